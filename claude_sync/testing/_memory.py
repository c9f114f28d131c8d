"""``ScriptedTransport``: a script played in-process, behind the ``Transport`` seam.

A ``MemoryTransport`` whose CLI side is the scripted-CLI engine on a
``claude_sync-scripted-cli`` thread (started by ``connect()``, joined by ``close()``); the
engine talks to it through ``_MemoryWire``, the CLI's end of the in-memory pipes.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, Optional

from .._engine.memory import MemoryTransport
from ._engine import ClientGone, RunReport, ScriptRunner, Wire

__all__ = ["ScriptedTransport"]

JsonDict = Dict[str, Any]


class _MemoryWire(Wire):
    """The CLI's end of a ``ScriptedTransport``. The engine thread only."""

    def __init__(self, transport: ScriptedTransport) -> None:
        self._transport = transport
        self._pending = b""

    def write(self, data: bytes) -> None:
        try:
            self._transport.peer.send(data)
        except BrokenPipeError as exc:
            raise ClientGone("the client closed the transport") from exc

    def read_line(self, timeout: Optional[float]) -> Optional[bytes]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            chunk = self._transport._stdin.take(left)
            if chunk is None:
                return None
            if chunk == b"":
                if self._pending:
                    line, self._pending = self._pending, b""
                    return line
                raise EOFError
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line

    def stderr(self, text: str) -> None:
        self._transport.peer.stderr(text)

    def stall(self, seconds: float) -> bool:
        return self._transport._exited.wait(seconds)

    def finish(self, code: int) -> None:
        self._transport.peer.exit(code)


class ScriptedTransport(MemoryTransport):
    """A ``MemoryTransport`` whose CLI side plays a script on a ``claude_sync-scripted-cli``
    thread, started by ``connect()`` and joined by ``close()``."""

    def __init__(self, script: JsonDict) -> None:
        from .scripted import check_script_format

        check_script_format(script)
        super().__init__()
        self.report = RunReport(len(script["steps"]))
        self._runner = ScriptRunner(script, _MemoryWire(self), self.report)
        self._thread: Optional[threading.Thread] = None

    def connect(self) -> None:
        """Start playing (once). Any thread."""
        super().connect()
        if self._thread is None:
            self._thread = threading.Thread(target=self._runner.run, name="claude_sync-scripted-cli", daemon=True)
            self._thread.start()

    def close(self, join_timeout: float = 10.0) -> None:
        """End the run (the script sees its client go) and join the thread, bounded."""
        super().close()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(join_timeout)

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def pid(self) -> Optional[int]:
        return None

