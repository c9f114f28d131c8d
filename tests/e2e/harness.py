"""Hermetic harness for running the real ``claude`` CLI against ``fake_api.FakeAnthropicAPI``.

The environment builder and CLI discovery live in ``claude_sync.testing.offline`` (users need
them too); this module adds what only our e2e tests use (pytest skip/fail, a raw driver).

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
import textwrap
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_sync.testing.fake_api import FakeAnthropicAPI
from claude_sync.testing.offline import (  # noqa: F401 - re-exported for the e2e tests
    FAKE_API_KEY,
    LOOPBACK_NO_PROXY,
    PINNED_CLI_VERSION,
    QUIET_FLAGS,
    STRIPPED_NAMES,
    STRIPPED_PREFIXES,
    default_cli_path,
    find_offline_cli,
    hermetic_env,
    is_stripped,
)

INSTALL_COMMAND = "bash .ci/install_cli.sh  (then export CLAUDE_SYNC_TEST_CLI=<the path it prints>)"

find_test_cli = find_offline_cli
_is_stripped = is_stripped


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


OptionsFactory = Callable[..., ClaudeAgentOptions]
"""The type of the ``e2e_options`` fixture: ``e2e_options(**fields) -> ClaudeAgentOptions``."""


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


FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}
"""``env`` for a test that expects no API error: the CLI gives up at once instead of retrying."""


def client_turn(client: ClaudeSDKClient, prompt: str) -> List[Any]:
    """Send ``prompt`` on a connected client and return the turn's messages (the result last)."""
    client.query(prompt)
    messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage), messages
    return messages


def cli_is_at_least(path: str, version: str) -> bool:
    """Whether the CLI at ``path`` is ``version`` or newer (e.g. ``"2.1.330"``)."""
    return cli_version(path) >= tuple(int(part) for part in version.split("."))


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


def tool_results(fake_api: FakeAnthropicAPI, tool_use_id: str) -> List[Dict[str, Any]]:
    """The ``tool_result`` blocks for ``tool_use_id`` in every turn request the fake API got."""
    found = []
    for request in fake_api.turn_requests():
        for message in request.messages:
            content = message.get("content")
            if message.get("role") == "user" and isinstance(content, list):
                found += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id]
    return found


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


STDIO_SERVER = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"],
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "ext", "version": "0.1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "echo", "description": "Echo s",
                                 "inputSchema": {"type": "object", "properties": {"s": {"type": "string"}}}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "ext:" + message["params"]["arguments"]["s"]}]}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32601, "message": "no " + str(method)}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    """
)
"""A minimal external MCP server over stdio (one tool, ``echo``), as a Python script."""
