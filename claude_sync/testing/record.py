"""Record a session's wire traffic (both directions, secrets redacted) to a JSONL file.

::

    from claude_sync.testing import recording_transport

    options = ClaudeAgentOptions(can_use_tool=my_policy)          # the real CLI, the real API
    with recording_transport(options, "tests/recordings/deny.jsonl") as transport:
        list(query("delete the logs", options=options, transport=transport))

and then, forever offline: ``ScriptedCLI.from_recording("tests/recordings/deny.jsonl")``
(see ``replay``). ``RecordingTransport(inner, path)`` wraps any ``Transport``;
``recording_transport(options, path)`` builds the ``SubprocessTransport`` the session would
have spawned for ``options`` (same argv, environment and cwd) and wraps it.

The file (``RECORDING_FORMAT`` version ``RECORDING_VERSION``): a header line
``{"format", "version", "claude_sync", "recorded_at"}``, then one line per frame
``{"dir": "in" | "out", "t": seconds, "frame": {...}}`` (``in``: client → CLI stdin, ``out``:
CLI stdout → client; a line that is not a JSON object is kept as ``"raw"``), then
``{"end": {"exit_code": …}}``. Redacted before writing, by the one redactor
(``claude_sync._redaction.redactor.redact_frame``, also ``claude_sync.testing.redact``): every
secret value the process knows (``_redaction.secrets``: the options' env, MCP headers and env,
settings, secret flags, the inherited environment's secret variables …) wherever it stands;
inside control frames' config (MCP headers echoed by ``get_mcp_status``, the ``env`` sent by
``set_mcp_servers``/``apply_flag_settings``) also every ``env``/``headers`` value and the
values of keys that name secrets. What the model and the user wrote is never rewritten
otherwise. A line that is not JSON is CLI text: ``redact_text`` (patterns too). A replay
redacts what the client sends the same way before comparing.

Threads: ``write_bytes`` from any thread and ``read_chunks`` on the session's reader both
append to the file under one lock.
"""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Dict, Iterator, List, Optional, Union

from .. import __version__
from .._engine.process import SubprocessTransport
from .._engine.spawn import materialize_argv
from .._engine.stand_in import blocks
from .._engine.tempfiles import remove_private_file
from .._engine.transport import Transport, close_after_stop
from .._options.command import build_spawn_plan, find_cli
from .._redaction.redactor import redact_frame, redact_text
from .._wire.errors import UnscriptedRunError

__all__ = ["RECORDING_FORMAT", "RECORDING_VERSION", "RecordingTransport", "recording_transport", "redact"]

RECORDING_FORMAT = "claude_sync.recording"
RECORDING_VERSION = 1



def redact(value: Any) -> Any:
    """A frame ``value`` with secrets replaced (see the module docstring): the one redactor's
    ``redact_frame``; ``value`` itself when nothing needed redacting."""
    return redact_frame(value)


class RecordingTransport(Transport):
    """Wraps ``inner`` and appends every line either way to ``path``. Closing it closes
    ``inner`` and the file (the end record carries the exit code).

    Attributes:
        inner: The transport that talks to the real CLI.
        path: The JSONL file the session is written to.
    """

    def __init__(self, inner: Transport, path: Union[str, Path], *, temp_files: Optional[List[str]] = None) -> None:
        self.inner = inner
        self.path = Path(path)
        self._lock = threading.Lock()
        self._file: Optional[IO[str]] = None
        self._start = 0.0
        self._pending_in = b""
        self._temp_files = list(temp_files or [])

    # ------------------------------------------------------------------ the file

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._start = time.monotonic()

        self._append({"format": RECORDING_FORMAT, "version": RECORDING_VERSION, "claude_sync": __version__,
                      "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})

    def _append(self, record: Dict[str, Any]) -> None:
        with self._lock:
            if self._file is not None:
                self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
                self._file.flush()

    def _record_line(self, direction: str, line: bytes) -> None:
        if not line.strip():
            return
        entry: Dict[str, Any] = {"dir": direction, "t": round(time.monotonic() - self._start, 4)}
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        if isinstance(frame, dict):
            entry["frame"] = redact(frame)
        else:
            entry["raw"] = redact_text(line.decode("utf-8", "replace"))
        self._append(entry)

    # ------------------------------------------------------------------ Transport

    def connect(self) -> None:
        self._open()
        self.inner.connect()

    def write_bytes(self, data: bytes, timeout: Optional[float]) -> None:
        with self._lock:
            lines = (self._pending_in + data).split(b"\n")
            self._pending_in = lines.pop()
        for line in lines:
            self._record_line("in", line)
        self.inner.write_bytes(data, timeout)

    def read_chunks(self) -> Iterator[bytes]:
        pending = b""
        for chunk in self.inner.read_chunks():
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._record_line("out", line)
            yield chunk
        self._record_line("out", pending)

    def end_input(self) -> None:
        self.inner.end_input()

    def stop(self, grace: float) -> Optional[str]:
        return self.inner.stop(grace)

    def close(self) -> None:
        """Close ``inner``, write the end record, close the file, delete temp files."""
        close_after_stop(self.inner)  # its stop() may have closed it (called once)
        with self._lock:
            handle, self._file = self._file, None
        if handle is not None:
            handle.write(json.dumps({"end": {"exit_code": self.inner.exit_code()}}) + "\n")
            handle.close()

        for path in self._temp_files:
            remove_private_file(path)
        self._temp_files.clear()

    def is_ready(self) -> bool:
        return self.inner.is_ready()

    def exit_code(self) -> Optional[int]:
        return self.inner.exit_code()

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        return self.inner.wait(timeout)

    def stderr_tail(self) -> str:
        return self.inner.stderr_tail()

    @property
    def pid(self) -> Optional[int]:
        return self.inner.pid

    def __enter__(self) -> RecordingTransport:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def recording_transport(options: Any, path: Union[str, Path]) -> RecordingTransport:
    """A ``RecordingTransport`` around the ``SubprocessTransport`` the session would spawn for
    ``options`` (CLI found with ``find_cli``, same argv/env/cwd). Its temp files (``--mcp-config``
    …) go when it closes, or at interpreter exit if it never does. Raises ``CLINotFoundError``,
    and ``UnscriptedRunError`` while the kit's switch is on (recording needs the real CLI)."""

    if blocks(options, os.environ):
        raise UnscriptedRunError(
            "recording_transport() would start the real claude CLI, and the kit's switch is on "
            "(use_scripted_cli, the claude_cli fixture or CLAUDE_SYNC_TESTING=block): record with it off"
        )

    plan = build_spawn_plan(options, find_cli(options.cli_path), environ=dict(os.environ))
    temp_files: List[str] = []
    argv, fds = materialize_argv(list(plan.argv), temp_files)
    inner = SubprocessTransport(argv, env=plan.env, cwd=plan.cwd, user=plan.user, pass_fds=fds,
                                stderr_callback=options.stderr, close_timeout=options.close_timeout)
    return RecordingTransport(inner, path, temp_files=temp_files)
