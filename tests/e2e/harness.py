"""Hermetic harness for running the real ``claude`` CLI against ``fake_api.FakeAnthropicAPI``.

* ``find_test_cli()``: where the pinned real binary is (or None).
* ``require_test_cli()``: that path, or a pytest *skip* (locally) / *fail* (``CI=true``).
* ``hermetic_env(tmp_path, base_url, **extra)``: the environment of docs/protocol/REAL_CLI_2.1.197.md §2: a
  fresh HOME, no inherited keys or proxies, every request to the loopback fake.
* ``StreamJsonCli``: a small subprocess driver for stream-json stdin/stdout, for tests that talk
  to the CLI without the library. It always ends the process by its PID.

Facts that shape these tests (CLI 2.1.197): run as root, as CI is here, the CLI refuses
``--permission-mode bypassPermissions`` ("--dangerously-skip-permissions cannot be used with
root/sudo privileges", exit 1) unless ``IS_SANDBOX=1`` is in its environment (seen working);
these tests allow tools with ``--allowedTools Bash`` instead.
``CLAUDE_CODE_MAX_RETRIES=0`` really means one request and no ``api_retry``.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pytest

PINNED_CLI_VERSION = os.environ.get("CLAUDE_SYNC_CLI_VERSION") or "2.1.197"
"""The CLI version the e2e tests expect; ``.ci/install_cli.sh`` honours the same override."""
INSTALL_COMMAND = "bash .ci/install_cli.sh  (then export CLAUDE_SYNC_TEST_CLI=<the path it prints>)"
FAKE_API_KEY = "sk-ant-fake-e2e-0000000000000000"

STRIPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "AWS_", "GOOGLE_", "VERTEX_", "OTEL_", "DEBUG")
STRIPPED_NAMES = frozenset(
    {"NODE_OPTIONS", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "NO_PROXY"}
)
LOOPBACK_NO_PROXY = "127.0.0.1,localhost,::1"
QUIET_FLAGS = (
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "DISABLE_BUG_COMMAND",
    "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL",
)


def default_cli_path(version: str = PINNED_CLI_VERSION) -> Path:
    """Where ``.ci/install_cli.sh`` puts the binary of ``version``."""
    cache = os.environ.get("CLAUDE_SYNC_CLI_CACHE") or str(
        Path.home() / ".cache" / "claude_sync" / "cli"
    )
    return Path(cache) / version / "node_modules" / ".bin" / "claude"


def find_test_cli() -> Optional[str]:
    """The real CLI to test against: ``$CLAUDE_SYNC_TEST_CLI`` if set, else the cached install
    of the pinned version if it exists, else None. Never raises."""
    explicit = os.environ.get("CLAUDE_SYNC_TEST_CLI")
    if explicit:
        return explicit
    cached = default_cli_path()
    return str(cached) if cached.exists() else None


def require_test_cli() -> str:
    """The real CLI path for an e2e test. When it is missing this **fails** the test under
    ``CI=true`` (CI must run the e2e tests) and skips it otherwise, naming the install command.

    Raises ``pytest.fail.Exception`` / ``pytest.skip.Exception`` accordingly.
    """
    path = find_test_cli()
    if path and os.access(path, os.X_OK):
        return path
    where = path or default_cli_path()
    reason = (
        f"real claude CLI {PINNED_CLI_VERSION} not found ({where}); install it: {INSTALL_COMMAND}"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)
    raise AssertionError("unreachable")  # pragma: no cover


@functools.cache
def cli_version(path: str) -> Tuple[int, ...]:
    """The version ``<path> --version`` reports (``"2.1.330 (Claude Code)"`` → ``(2, 1, 330)``).

    For the few e2e assertions where the CLI itself behaves differently between versions (the
    CI runs the suite against the pinned and the newest CLI). Raises ``ValueError`` when the
    output has no version, ``subprocess.TimeoutExpired`` after 60 s.
    """
    out = subprocess.run(
        [path, "--version"], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    first = out.split()[0] if out.split() else ""
    if not all(part.isdigit() for part in first.split(".")) or not first:
        raise ValueError(f"{path} --version printed {out!r}, not a version")
    return tuple(int(part) for part in first.split("."))


def cli_is_at_least(path: str, version: str) -> bool:
    """Whether the CLI at ``path`` is ``version`` or newer (e.g. ``"2.1.330"``)."""
    return cli_version(path) >= tuple(int(part) for part in version.split("."))


def _is_stripped(name: str) -> bool:
    upper = name.upper()
    return upper.startswith(STRIPPED_PREFIXES) or upper in STRIPPED_NAMES


def hermetic_env(
    tmp_path: Union[str, Path], base_url: str, **extra: Optional[Union[str, int]]
) -> Dict[str, str]:
    """The environment for one CLI run against the fake API at ``base_url``.

    Creates ``tmp_path/home`` with ``.claude/``, ``tmp/`` and the XDG folders. Inherited
    variables that could leak real keys, providers or proxies (``ANTHROPIC_*``, ``CLAUDE*``,
    ``AWS_*``, ``GOOGLE_*``, ``VERTEX_*``, ``OTEL_*``, ``DEBUG*``, ``NODE_OPTIONS``, ``*_proxy``)
    are removed. ``extra`` sets more variables (ints are turned into strings; ``None`` removes
    one), e.g. ``CLAUDE_CODE_MAX_RETRIES=0``.
    """
    home = Path(tmp_path) / "home"
    folders = {
        "CLAUDE_CONFIG_DIR": home / ".claude",
        "TMPDIR": home / "tmp",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_RUNTIME_DIR": home / ".run",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    folders["XDG_RUNTIME_DIR"].chmod(0o700)
    env = {name: value for name, value in os.environ.items() if not _is_stripped(name)}
    env.update({name: str(path) for name, path in folders.items()})
    env.update({flag: "1" for flag in QUIET_FLAGS})
    env.update(
        HOME=str(home),
        ANTHROPIC_API_KEY=FAKE_API_KEY,
        ANTHROPIC_BASE_URL=base_url,
        NO_PROXY=LOOPBACK_NO_PROXY,
        no_proxy=LOOPBACK_NO_PROXY,
    )
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


# ----------------------------------------------------------------------------- raw driver

STREAM_JSON_FLAGS = ("--output-format", "stream-json", "--input-format", "stream-json", "--verbose")


def user_message(
    content: Union[str, List[Dict[str, Any]]], session_id: str = "default"
) -> Dict[str, Any]:
    """A stdin ``user`` line with ``content`` (a string or content blocks)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": session_id,
    }


def control_request(request_id: str, subtype: str, **fields: Any) -> Dict[str, Any]:
    """A stdin ``control_request`` line, e.g. ``control_request("init-1", "initialize")``."""
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": dict(fields, subtype=subtype),
    }


class CliTimeout(AssertionError):
    """No matching stdout line arrived in time (carries what did arrive and stderr's tail)."""


class StreamJsonCli:
    """The real CLI in stream-json mode, driven line by line. Use as a context manager: on exit
    stdin is closed, the process is given ``close_timeout`` seconds, then SIGTERM, then SIGKILL,
    always by PID, and the reader threads are joined.

    ``lines`` holds every parsed stdout line received so far; ``stderr_text()`` the captured
    stderr (capped at ``stderr_cap`` bytes).
    """

    def __init__(
        self,
        cli_path: str,
        env: Dict[str, str],
        cwd: Union[str, Path],
        extra_args: Sequence[str] = (),
        *,
        close_timeout: float = 15.0,
        stderr_cap: int = 256 * 1024,
    ) -> None:
        self.argv = [cli_path, *STREAM_JSON_FLAGS, *extra_args]
        self.env = env
        self.cwd = str(cwd)
        self.close_timeout = close_timeout
        self.lines: List[Dict[str, Any]] = []
        self.non_json_lines: List[bytes] = []
        self.returncode: Optional[int] = None
        self.started_at = 0.0
        self._stderr_cap = stderr_cap
        self._stderr = bytearray()
        self._inbox: queue.Queue[Optional[Dict[str, Any]]] = queue.Queue()
        self._threads: List[threading.Thread] = []
        self.process: Optional[subprocess.Popen[bytes]] = None

    # -- life cycle

    def start(self) -> StreamJsonCli:
        """Spawn the CLI. Raises ``OSError`` if it cannot be executed."""
        self.started_at = time.monotonic()
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
        )
        self._spawn_reader("stdout", self.process.stdout, self._on_stdout_line)
        self._spawn_reader("stderr", self.process.stderr, self._on_stderr_chunk)
        return self

    def __enter__(self) -> StreamJsonCli:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def pid(self) -> int:
        assert self.process is not None, "not started"
        return self.process.pid

    def close_stdin(self) -> None:
        if (
            self.process is not None
            and self.process.stdin is not None
            and not self.process.stdin.closed
        ):
            try:
                self.process.stdin.close()
            except OSError:
                pass

    def wait(self, timeout: float) -> Optional[int]:
        """Wait up to ``timeout`` seconds; the exit code, or None if it is still running."""
        assert self.process is not None, "not started"
        try:
            self.returncode = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def close(self) -> Optional[int]:
        """Close stdin, wait, then SIGTERM / SIGKILL by PID; join the readers. Never raises for
        a process that already ended. Returns the exit code."""
        if self.process is None:
            return None
        self.close_stdin()
        if self.wait(self.close_timeout) is None:
            self._signal(signal.SIGTERM)
            if self.wait(5.0) is None:
                self._signal(signal.SIGKILL)
                self.wait(10.0)
        for thread in self._threads:
            thread.join(10.0)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return self.returncode

    def _signal(self, signum: int) -> None:
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    # -- talking

    def send(self, message: Dict[str, Any]) -> None:
        """Write one JSON line to stdin. Raises ``BrokenPipeError`` if the CLI has exited."""
        assert self.process is not None and self.process.stdin is not None, "not started"
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def initialize(
        self, request_id: str = "init-1", timeout: float = 30.0, **fields: Any
    ) -> Dict[str, Any]:
        """Send ``initialize`` (with ``fields``) and return its control_response line."""
        self.send(control_request(request_id, "initialize", **fields))
        return self.read_until(lambda line: is_response_to(line, request_id), timeout)

    def read_until(
        self, predicate: Callable[[Dict[str, Any]], bool], timeout: float = 60.0
    ) -> Dict[str, Any]:
        """Read stdout lines until one satisfies ``predicate``; return it.

        Raises ``CliTimeout`` after ``timeout`` seconds or when stdout ends first.
        """
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = (
                    self._inbox.get(timeout=max(0.0, left))
                    if left > 0
                    else self._inbox.get_nowait()
                )
            except queue.Empty:
                raise CliTimeout(self._explain(f"no matching line within {timeout:.0f}s")) from None
            if line is None:
                self._inbox.put(None)  # keep reporting the end to later calls
                raise CliTimeout(self._explain("stdout ended before a matching line"))
            if predicate(line):
                return line

    def read_result(self, timeout: float = 60.0) -> Dict[str, Any]:
        return self.read_until(lambda line: line.get("type") == "result", timeout)

    def stderr_text(self) -> str:
        return self._stderr.decode(errors="replace")

    def lines_of(self, kind: str, subtype: Optional[str] = None) -> List[Dict[str, Any]]:
        return [
            line
            for line in list(self.lines)
            if line.get("type") == kind and (subtype is None or line.get("subtype") == subtype)
        ]

    # -- readers

    def _spawn_reader(
        self, name: str, pipe: Optional[IO[bytes]], sink: Callable[[bytes], None]
    ) -> None:
        def pump() -> None:
            assert pipe is not None
            try:
                for chunk in iter(pipe.readline, b""):
                    sink(chunk)
            except (OSError, ValueError):
                pass
            finally:
                if name == "stdout":
                    self._inbox.put(None)

        thread = threading.Thread(target=pump, name=f"e2e-cli-{name}-{self.pid}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _on_stdout_line(self, raw: bytes) -> None:
        try:
            line = json.loads(raw)
        except ValueError:
            self.non_json_lines.append(raw)
            return
        self.lines.append(line)
        self._inbox.put(line)

    def _on_stderr_chunk(self, raw: bytes) -> None:
        room = self._stderr_cap - len(self._stderr)
        if room > 0:
            self._stderr.extend(raw[:room])

    def _explain(self, what: str) -> str:
        kinds = [f"{line.get('type')}/{line.get('subtype', '')}" for line in self.lines[-20:]]
        code = self.process.poll() if self.process else None
        stderr_tail = self.stderr_text()[-2000:]
        return (
            f"{what}; last stdout lines: {kinds}; exit code: {code}; stderr tail: {stderr_tail!r}"
        )


def is_response_to(line: Dict[str, Any], request_id: str) -> bool:
    return (
        line.get("type") == "control_response"
        and line.get("response", {}).get("request_id") == request_id
    )


def texts_of(line: Dict[str, Any]) -> List[str]:
    """The text blocks of an ``assistant`` stdout line."""
    content = line.get("message", {}).get("content") or []
    return [
        block.get("text", "")
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    ]
