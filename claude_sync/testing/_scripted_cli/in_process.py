"""``ScriptedTransport``: a script played in-process, behind the ``Transport`` seam.

A ``MemoryTransport`` whose CLI side is the scripted-CLI engine on a
``claude_sync-scripted-cli`` thread (started by ``connect()``, joined by ``close()``); the
engine talks to it through ``_MemoryWire``, the CLI's end of the in-memory pipes.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional

from ..._engine.memory import MemoryTransport
from .interpreter import ClientGone, RunReport, Wire
from .steps import script_runner

__all__ = ["ScriptedTransport"]

JsonDict = Dict[str, Any]


class _MemoryWire(Wire):
    """The CLI's end of a ``ScriptedTransport``. The engine thread only."""

    def __init__(self, transport: ScriptedTransport) -> None:
        super().__init__()
        self._transport = transport

    def read_chunk(self, timeout: Optional[float]) -> Optional[bytes]:
        return self._transport.peer.read_bytes(timeout)

    def write(self, data: bytes) -> None:
        try:
            self._transport.peer.send(data)
        except BrokenPipeError as exc:
            raise ClientGone("the client closed the transport") from exc

    def stderr(self, text: str) -> None:
        self._transport.peer.stderr(text)

    def stall(self, seconds: float) -> bool:
        return self._transport.wait(seconds) is not None

    def finish(self, code: int) -> None:
        self._transport.peer.exit(code)


class ScriptedTransport(MemoryTransport):
    """A ``MemoryTransport`` whose CLI side plays a script on a ``claude_sync-scripted-cli``
    thread, started by ``connect()`` and joined by ``close()``.

    Attributes:
        peer: The CLI's side of the in-process pipes, which the script plays on (a ``MemoryPeer``;
            tests rarely need it).
    """

    def __init__(self, script: JsonDict, queue: Any = None) -> None:
        """``queue`` (a ``run_queue.RunQueue``): play the scripted runs it hands out, one per
        first user message, instead of ``script``'s steps. Raises ``ValueError`` for a script
        of another format."""
        super().__init__()
        self._runner = script_runner(script, _MemoryWire(self), queue=queue)
        self._thread: Optional[threading.Thread] = None

    @property
    def report(self) -> RunReport:
        """What the run saw and did, filled in as it plays (with a queue: the scripted run
        being played, or the one before any was taken)."""
        return self._runner.report
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
        """Whether ``connect()`` started the script."""
        return self._thread is not None

    @property
    def pid(self) -> Optional[int]:
        return None

