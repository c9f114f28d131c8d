"""What the tests of ``examples/approvals_app`` run: a redis server, the app's Celery workers and
web server as real processes, an HTTP client, and headless Chromium driven over the Chrome
DevTools protocol.

* ``RedisServer``: Debian's ``redis-server`` on a free loopback port, no persistence, in a temp
  dir; it daemonizes itself (``--daemonize yes``, a pid file), so it is nobody's child here, and
  ``stop()`` ends it by that PID (checked to still be this server).
* ``AppProcess``: one process of the example (``celery … worker`` or ``flask … run``), its
  output in a log file; ``stop()`` sends SIGTERM by PID (Celery's warm shutdown, Flask's exit),
  SIGKILL after a deadline, and waits.
* ``Http``: a cookie-keeping client (urllib) that does not follow redirects; ``form_token``
  reads the CSRF token of a page.
* ``Browser``: ``chromium --headless`` with ``--remote-debugging-port`` and a fresh profile dir,
  driven through one page's DevTools websocket (``websocket-client``): navigate, evaluate
  JavaScript, click. Closed by ``Browser.close`` then by PID; the profile dir removed.

Why CDP over a websocket rather than playwright: Debian's Chromium speaks it natively, the
driver is ~60 lines over one small pure-Python package, and playwright would add its own Node
driver and expect its own browser build (which this machine cannot download).
"""

from __future__ import annotations

import http.cookiejar
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

from helpers import require_package, require_program, wait_until
from pg_server import free_port

REDIS_HINT = "apt-get install -y redis-server  (or bash .ci/install_program.sh redis-server redis-server)"
CHROMIUM_HINT = "apt-get install -y chromium  (or bash .ci/install_program.sh chromium chromium)"


def require_redis_server() -> str:
    return require_program("CLAUDE_SYNC_REDIS_SERVER", "redis-server", REDIS_HINT)


def require_chromium() -> str:
    return require_program("CLAUDE_SYNC_CHROMIUM", "chromium", CHROMIUM_HINT)


def _process_is(pid: int, marker: str) -> bool:
    """Whether ``pid`` is alive (not a zombie) and its command line holds ``marker``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z" and marker.encode() in cmdline


class RedisServer:
    """``redis-server`` on 127.0.0.1:<free port>; ``start``/``stop`` from the test's thread."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.base = Path(tempfile.mkdtemp(prefix="claude_sync-redis-"))
        self.port = 0
        self.pid: Optional[int] = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 30.0) -> RedisServer:
        """Start and wait until it answers PING. Raises ``RuntimeError`` with the log's tail."""
        import redis

        self.port = self.port or free_port()
        pidfile = self.base / "redis.pid"
        subprocess.run(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--daemonize", "yes",
             "--pidfile", str(pidfile), "--dir", str(self.base), "--logfile", str(self.base / "redis.log"),
             "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
            check=True, timeout=timeout, stdin=subprocess.DEVNULL, capture_output=True,
        )  # fmt: skip
        wait_until(pidfile.exists, timeout, "redis-server's pid file")
        wait_until(lambda: pidfile.read_text().strip().isdigit(), timeout, "redis-server's pid")
        self.pid = int(pidfile.read_text())
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, socket_connect_timeout=2)
        try:
            if not wait_until(lambda: self._answers(client), timeout, fail=False):
                raise RuntimeError(f"redis-server did not answer PING within {timeout}s: {self.log_tail()}")
        finally:
            client.close()
        return self

    @staticmethod
    def _answers(client: Any) -> bool:
        import redis

        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False

    def running(self) -> bool:
        return self.pid is not None and _process_is(self.pid, f"127.0.0.1:{self.port}")

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM by PID (SIGKILL after ``timeout``) while it is still this server; waits."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if not self.running():
                break
            assert self.pid is not None
            os.kill(self.pid, sig)
            wait_until(lambda: not self.running(), timeout, fail=False)
        self.pid = None

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def log_tail(self) -> str:
        try:
            return (self.base / "redis.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""


class AppProcess:
    """One process of the example app, started with ``argv`` in ``cwd`` with ``env``."""

    def __init__(self, name: str, argv: Sequence[str], *, cwd: Path, env: Dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] = open(self.log_path, "wb")
        self.process = subprocess.Popen(list(argv), cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                                        stdout=self._log, stderr=subprocess.STDOUT)  # fmt: skip

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout: float) -> None:
        """Until the log matches ``pattern``; ``AssertionError`` with the log when the process
        exits or the time is up."""
        found = wait_until(lambda: re.search(pattern, self.log()) or self.process.poll() is not None, timeout, fail=False)
        if not found or not re.search(pattern, self.log()):
            raise AssertionError(f"{self.name}: no {pattern!r} in its log within {timeout}s "
                                 f"(exit code {self.process.poll()}):\n{self.log()[-4000:]}")  # fmt: skip

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """SIGTERM by PID, SIGKILL after ``timeout``; waits; closes the log. The exit code."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.process.poll() is not None:
                break
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                continue
        self.process.wait(10)
        self._log.close()
        return self.process.returncode


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Http:
    """An HTTP client with a cookie jar that reports redirects instead of following them."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())

    def request(self, method: str, path: str, form: Optional[Dict[str, str]] = None,
                headers: Optional[Dict[str, str]] = None, timeout: float = 30.0) -> Tuple[int, Dict[str, str], str]:  # fmt: skip
        """(status, headers, body text); never raises for an HTTP status."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers or {})
        try:
            with self.opener.open(req, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, dict(exc.headers), exc.read().decode()

    def get(self, path: str) -> Tuple[int, Dict[str, str], str]:
        return self.request("GET", path)

    def post(self, path: str, form: Dict[str, str], headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, str], str]:
        return self.request("POST", path, form, headers)

    def json(self, path: str) -> Dict[str, Any]:
        status, _, body = self.get(path)
        assert status == 200, (status, body[:2000])
        return json.loads(body)  # type: ignore[no-any-return]


def form_token(page: str) -> str:
    """The CSRF token of the first form on ``page``."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, f"no CSRF token in the page:\n{page[:2000]}"
    return found.group(1)


class Browser:
    """Headless Chromium with one page, driven over its DevTools websocket. ``close()`` ends it
    (``Browser.close``, then SIGTERM / SIGKILL by PID) and removes its profile dir."""

    FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage")  # fmt: skip

    def __init__(self, binary: str, timeout: float = 60.0) -> None:
        websocket = require_package("websocket")
        self.profile = Path(tempfile.mkdtemp(prefix="claude_sync-chromium-"))
        self._ids = itertools.count(1)
        self.socket: Any = None
        port = free_port()
        self._log = open(self.profile.parent / f"{self.profile.name}.log", "wb")
        self.process = subprocess.Popen(
            [binary, *self.FLAGS, f"--user-data-dir={self.profile}", f"--remote-debugging-port={port}",
             "--remote-debugging-address=127.0.0.1", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            targets: List[Dict[str, Any]] = []

            def page_listed() -> bool:
                nonlocal targets
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                        targets = [t for t in json.load(response) if t.get("type") == "page"]
                except OSError:
                    return False
                return bool(targets)

            if not wait_until(page_listed, timeout, fail=False):
                raise AssertionError(f"chromium's DevTools did not list a page within {timeout}s: {self.log_tail()}")
            self.socket = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=timeout,
                                                      suppress_origin=True)  # fmt: skip
            self.call("Page.enable")
        except BaseException:
            self.close()
            raise

    def log_tail(self) -> str:
        try:
            return Path(self._log.name).read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def call(self, method: str, **params: Any) -> Dict[str, Any]:
        """One DevTools command; its ``result``. Events arriving meanwhile are dropped.
        Raises ``AssertionError`` for a protocol error."""
        message_id = next(self._ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})  # type: ignore[no-any-return]

    def evaluate(self, expression: str) -> Any:
        """The value of the JavaScript ``expression`` in the page (JSON values only)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def goto(self, url: str, timeout: float = 30.0) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'", timeout)

    def wait_for(self, expression: str, timeout: float = 30.0) -> None:
        """Poll the JavaScript ``expression`` until it is truthy (a navigation in between is fine)."""

        def true_now() -> bool:
            try:
                return bool(self.evaluate(expression))
            except AssertionError:  # the page was replaced while we asked
                return False

        if not wait_until(true_now, timeout, fail=False):
            raise AssertionError(f"{expression!r} not true within {timeout}s; page: "
                                 f"{self.evaluate('document.body ? document.body.innerText : location.href')!r:.2000}")  # fmt: skip

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the middle of the element ``selector``."""
        box = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def close(self) -> None:
        if self.socket is not None:
            try:
                self.call("Browser.close")
            except Exception:  # noqa: BLE001 - closing anyway, by PID below
                pass
            self.socket.close()
            self.socket = None
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and self.process.poll() is None:
                self.process.send_signal(sig)
            try:
                self.process.wait(10)
                break
            except subprocess.TimeoutExpired:
                continue
        self._log.close()
        os.unlink(self._log.name)
        shutil.rmtree(self.profile, ignore_errors=True)
