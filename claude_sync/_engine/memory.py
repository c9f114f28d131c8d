"""``MemoryTransport``: a ``Transport`` whose other end is Python code in the same process.

No process, no pipes: the session writes frames into an in-memory inbox that the **peer**
(a test, or a scripted CLI running on its own thread) reads, and the peer's lines come back
through an outbox the session's reader thread blocks on. What the peer can do mirrors what a
CLI process can do: write lines (whole or in arbitrary chunks), read the frames it was sent,
see end of input, write to its "stderr", and exit with a status.

The session's close calls ``stop(grace)``: input ends, the peer gets ``grace`` seconds to
exit (``"eof"``), else it is killed (exit -9, ``"killed"``).

Threads: the session's reader calls ``read_chunks``; any thread may ``write_bytes``; the
peer's methods may be called from any thread (usually the test's, or the scripted CLI's
``claude_sync-peer`` thread). Every blocking peer call takes a ``timeout``.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from typing import Any, Deque, Dict, Iterator, List, Optional, Union

from .._wire.errors import CLIConnectionError
from .transport import Transport

__all__ = ["MemoryTransport", "MemoryPeer", "PeerTimeout"]


class PeerTimeout(AssertionError):
    """The peer waited longer than its timeout for a frame (a test's failure, not the SDK's)."""


class _Pipe:
    """One direction: a deque of byte chunks, a condition, and an EOF flag."""

    def __init__(self) -> None:
        self.chunks: Deque[bytes] = collections.deque()
        self.cond = threading.Condition(threading.Lock())
        self.eof = False

    def put(self, data: bytes) -> None:
        with self.cond:
            if self.eof:
                raise BrokenPipeError("the pipe is closed")
            if data:
                self.chunks.append(data)
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def take(self, timeout: Optional[float]) -> Optional[bytes]:
        """Next chunk; ``b""`` at EOF; None when ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            while not self.chunks:
                if self.eof:
                    return b""
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self.cond.wait(remaining)
            return self.chunks.popleft()


class MemoryPeer:
    """The CLI's side of a ``MemoryTransport``: what a scripted CLI or a test drives."""

    def __init__(self, transport: MemoryTransport) -> None:
        self._transport = transport
        self._pending = b""
        self.received: List[Dict[str, Any]] = []
        """Every frame read so far, in order (for assertions after the fact)."""

    # -- what the CLI says ---------------------------------------------------------------

    def send(self, message: Union[Dict[str, Any], str, bytes]) -> None:
        """Write one line: a dict is JSON-encoded, str/bytes are sent as they are (add the
        newline yourself to send a partial line)."""
        if isinstance(message, dict):
            try:
                data = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
            except UnicodeEncodeError:  # lone surrogates: sent as JSON escapes, as the CLI does
                data = json.dumps(message).encode("ascii") + b"\n"
        elif isinstance(message, str):
            data = message.encode("utf-8")
        else:
            data = bytes(message)
        self._transport._stdout.put(data)

    def stderr(self, text: str) -> None:
        """Append to the CLI's stderr (kept as the tail an error message quotes)."""
        self._transport._stderr.extend(text.splitlines())

    def exit(self, code: int = 0) -> None:
        """End the CLI: stdout hits EOF and ``exit_code()`` becomes ``code``."""
        self._transport._exit(code)

    # -- what the CLI hears --------------------------------------------------------------

    def read_frame(self, timeout: float = 5.0) -> Dict[str, Any]:
        """The next frame the session wrote. Raises ``PeerTimeout`` when none arrives in
        time and ``EOFError`` when the session ended input first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            chunk = self._transport._stdin.take(max(0.0, deadline - time.monotonic()))
            if chunk is None:
                raise PeerTimeout(f"no frame from the client within {timeout}s")
            if chunk == b"":
                raise EOFError("the client ended its input")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        frame: Dict[str, Any] = json.loads(line)
        self.received.append(frame)
        return frame

    def read_bytes(self, timeout: Optional[float]) -> Optional[bytes]:
        """The session's next bytes as written, unframed (for a peer that cuts lines itself;
        do not mix with ``read_frame``): ``b""`` once it ended input, None when ``timeout``
        seconds (0: do not wait) passed first."""
        return self._transport._stdin.take(timeout)

    def wait_input_ended(self, timeout: float = 5.0) -> None:
        """Block until the session ends input (stdin EOF), discarding nothing: frames that
        arrive first are kept for ``read_frame``. Raises ``PeerTimeout``."""
        deadline = time.monotonic() + timeout
        pipe = self._transport._stdin
        with pipe.cond:
            while not pipe.eof:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PeerTimeout(f"the client did not end its input within {timeout}s")
                pipe.cond.wait(remaining)

    @property
    def input_ended(self) -> bool:
        return self._transport._stdin.eof


class MemoryTransport(Transport):
    """An in-process ``Transport``; drive the CLI's side through ``.peer``."""

    def __init__(self) -> None:
        self._stdin = _Pipe()
        self._stdout = _Pipe()
        self._stderr: Deque[str] = collections.deque(maxlen=200)
        self._connected = threading.Event()
        self._exit_code: Optional[int] = None
        self._exited = threading.Event()
        self._closed = False
        self.peer = MemoryPeer(self)

    def connect(self) -> None:
        """Mark connected (the peer may already have queued lines)."""
        self._connected.set()

    def wait_connected(self, timeout: float = 5.0) -> None:
        """For the peer: block until the session called ``connect``. Raises ``PeerTimeout``."""
        if not self._connected.wait(timeout):
            raise PeerTimeout(f"the client did not connect within {timeout}s")

    def write_bytes(self, data: bytes, timeout: Optional[float]) -> None:
        """Hand ``data`` to the peer (never blocks: the inbox is unbounded)."""
        try:
            self._stdin.put(data)
        except BrokenPipeError as exc:
            raise CLIConnectionError("Cannot write to the CLI: its stdin is closed") from exc

    def read_chunks(self) -> Iterator[bytes]:
        while True:
            chunk = self._stdout.take(None)
            if not chunk:
                return
            yield chunk

    def end_input(self) -> None:
        self._stdin.close()

    def close(self) -> None:
        """End input and stdout; a peer that has not exited counts as killed (-9)."""
        self._closed = True
        self._stdin.close()
        if self._exit_code is None:
            self._exit(-9)

    def stop(self, grace: float) -> Optional[str]:
        """End input and give the peer ``grace`` seconds to exit: ``"eof"`` if it did, else
        ``close()`` kills it (exit -9) and the answer is ``"killed"``."""
        self.end_input()
        if self.wait(grace) is not None:
            return "eof"
        self.close()
        return "killed"

    def is_ready(self) -> bool:
        return self._connected.is_set() and not self._stdin.eof and self._exit_code is None

    def exit_code(self) -> Optional[int]:
        return self._exit_code

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        self._exited.wait(timeout)
        return self._exit_code

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    def _exit(self, code: int) -> None:
        if self._exit_code is None:
            self._exit_code = code
        self._stdout.close()
        self._exited.set()
