"""``Transport``: the seam between a session and whatever carries its NDJSON lines.

The official ``claude-agent-sdk`` ``Transport`` shape without ``async``: ``connect``,
``write``, ``read_messages``, ``close``, ``is_ready``, ``end_input``. A session drives exactly
one transport; ``SubprocessTransport`` (the CLI as a child process) is the default, an
in-memory transport lets tests script the CLI's side without a process, and a user may
bring their own (a remote CLI, a recording proxy …).

Which thread calls what — what an implementation must guarantee:

======================  ==========================  ===================================
method                  called from                 must
======================  ==========================  ===================================
``connect``             the connecting thread, once  start the peer; raise
                                                     ``CLINotFoundError`` /
                                                     ``CLIConnectionError``
``write`` /             any thread, concurrently     write whole frames atomically
``write_bytes``                                      (serialise writers); raise
                                                     ``CLIConnectionError`` when the peer
                                                     is gone or the deadline passed
``read_chunks`` /       the session's reader thread  block until data, end at EOF; never
``read_messages``       only                         raise for EOF
``end_input``           any thread                   idempotent; no frame after it
``stop``                the closing thread           end the peer (bounded by about
                                                     ``3 * grace``) so the reader sees
                                                     EOF; may leave resources to ``close``
``close``               any thread                   idempotent, **bounded**; makes a
                                                     blocked reader see EOF
``is_ready``,           any thread                   never block
``exit_code``,
``stderr_tail``
``wait``                any thread                   wait at most ``timeout`` seconds
======================  ==========================  ===================================

A transport implements **either** ``read_chunks`` (bytes as they arrive; the session frames
them into lines, the fast path) **or** ``read_messages`` (decoded JSON objects, the official
shape); each has a default in terms of the other. Likewise ``write`` (a ``str``, the official
shape) and ``write_bytes`` (bytes with a deadline, what the session calls) default to each
other. A subclass that overrides neither of a pair gets a ``TypeError`` at class creation.

An object that is not a ``Transport`` but has the official methods (a plain class, a
``MagicMock``) is accepted too: ``as_transport`` wraps it, so the session sees a
``Transport`` whatever it was given.

A session closes its transport in two steps: ``stop(grace)`` (default: ``close()``), then —
once its reader thread has been joined — ``close()`` (``close_after_stop``: not again when
the default ``stop`` already called it, so a transport in the official shape sees ``close()``
once per session, as with the official SDK). A transport whose ``close`` would pull a
resource from under a blocked reader (a file descriptor) ends the peer in ``stop`` and
releases the resource in ``close``.

A session starts reading (``read_chunks``/``read_messages``) only after it has written its
first frame, ``initialize``, as the official SDK does. An exception raised while reading a
transport the caller brought reaches the caller as itself (the waiting call, the message
iterator); one raised by claude_sync's own transports or reader is a ``ClaudeSDKError``.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, Dict, Iterator, Optional

__all__ = ["Transport", "as_transport", "close_after_stop"]


class Transport(ABC):
    """Carries NDJSON lines between a session and the CLI. See the module docstring."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if getattr(cls, "__abstractmethods__", None):
            return  # still abstract: checked on the concrete subclass
        for one, other in (("read_chunks", "read_messages"), ("write_bytes", "write")):
            if getattr(cls, one) is getattr(Transport, one) and getattr(cls, other) is getattr(Transport, other):
                raise TypeError(f"{cls.__name__} must override {one}() or {other}()")

    # ------------------------------------------------------------------ the official shape

    @abstractmethod
    def connect(self) -> None:
        """Start the peer (spawn the process, open the connection). Called once.

        Raises ``CLINotFoundError`` or ``CLIConnectionError``.
        """

    def write(self, data: str) -> None:
        """Write ``data``: one or more complete NDJSON lines. Any thread.

        Raises ``CLIConnectionError`` when the peer is gone. The default encodes and calls
        ``write_bytes`` without a deadline.
        """
        self.write_bytes(data.encode("utf-8"), None)

    def read_messages(self) -> Iterator[Dict[str, Any]]:
        """Yield the peer's JSON objects in order until EOF (the reader thread only).

        The default frames ``read_chunks()`` into lines and decodes each; a line that is not
        a JSON object is skipped.
        """
        pending = b""
        for chunk in self.read_chunks():
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                message = _decode_object(line)
                if message is not None:
                    yield message
        message = _decode_object(pending)
        if message is not None:
            yield message

    @abstractmethod
    def close(self) -> None:
        """Stop the peer and release everything (idempotent, any thread, bounded)."""

    @abstractmethod
    def is_ready(self) -> bool:
        """True while frames can be written (connected, input not ended, peer alive)."""

    @abstractmethod
    def end_input(self) -> None:
        """Signal end of input (close stdin for a process). Idempotent, any thread."""

    # ------------------------------------------------------------------ claude_sync's additions

    def write_bytes(self, data: bytes, timeout: Optional[float]) -> None:
        """Write UTF-8 NDJSON ``data``, giving up after ``timeout`` seconds (None: no deadline).

        What the session calls. The default decodes and calls ``write`` (which then bounds
        itself). Raises ``CLIConnectionError``.
        """
        self.write(data.decode("utf-8"))

    def read_chunks(self) -> Iterator[bytes]:
        """Yield raw stdout bytes as they arrive, in any chunking, until EOF (reader thread).

        The default re-encodes ``read_messages()`` one line per object.
        """
        dumps = json.dumps
        for message in self.read_messages():
            yield dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"

    def stop(self, grace: float) -> Optional[str]:
        """End the peer, waiting about ``grace`` seconds per step; how it ended (e.g.
        ``"eof"``, ``"sigkill"``), or None. The session's close calls this before it joins
        its reader, and ``close()`` after. Default: ``close()``."""
        self.close()
        return None

    def exit_code(self) -> Optional[int]:
        """The peer's exit status once it has ended (a negative number: killed by that
        signal), else None. Never blocks. Default: None (no process to speak of); the
        session treats a stream that ended without a status, from a transport without a
        ``pid``, like exit 0 (an error only if a result was still expected)."""
        return None

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        """Wait at most ``timeout`` seconds for the peer to end; its ``exit_code()``."""
        return self.exit_code()

    def stderr_tail(self) -> str:
        """The last lines the peer wrote to its error stream (for error messages)."""
        return ""

    @property
    def pid(self) -> Optional[int]:
        """The CLI's process id, when there is a local process."""
        return None


def _decode_object(line: bytes) -> Optional[Dict[str, Any]]:
    line = line.strip()
    if not line:
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def close_after_stop(transport: Optional[Transport]) -> None:
    """The last step of closing ``transport`` after ``stop()``: ``close()``, unless ``stop`` is
    ``Transport.stop``, which called it already (closing thread). None: nothing to close."""
    if transport is not None and type(transport).stop is not Transport.stop:
        transport.close()


OFFICIAL_METHODS = ("connect", "write", "read_messages", "close", "is_ready", "end_input")
"""The methods of the official ``Transport``: what any transport object must have."""


def as_transport(value: object) -> Transport:
    """``value`` as a ``Transport``: itself when it is one, else a ``Transport`` that calls
    the official methods (``OFFICIAL_METHODS``) of any object that has them, as the official
    SDK accepts a duck-typed transport (a plain class, a ``MagicMock``). Raises ``TypeError``
    naming every method it lacks."""
    if isinstance(value, Transport):
        return value
    missing = [f"{name}()" for name in OFFICIAL_METHODS if not callable(getattr(value, name, None))]
    if missing:
        raise TypeError(
            f"transport {type(value).__name__} lacks {', '.join(missing)}: a transport is a "
            f"claude_sync.Transport or any object with {', '.join(n + '()' for n in OFFICIAL_METHODS)}"
        )
    return _DuckTransport(value)


class _DuckTransport(Transport):
    """A ``Transport`` over any object with the official methods (see ``as_transport``).

    Only those methods are called, each looked up on the object at call time (a test may set
    one after handing the object over). claude_sync's extras are not taken from the object —
    a ``MagicMock`` has every attribute, and its ``pid`` must never be taken for a process to
    signal: ``stop`` is ``close()``, there is no ``pid``, exit status or stderr. A transport
    that has them subclasses ``Transport``.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def connect(self) -> None:
        self.inner.connect()

    def write(self, data: str) -> None:
        self.inner.write(data)

    def read_messages(self) -> Iterator[Dict[str, Any]]:
        return iter(self.inner.read_messages())

    def close(self) -> None:
        self.inner.close()

    def is_ready(self) -> bool:
        return bool(self.inner.is_ready())

    def end_input(self) -> None:
        self.inner.end_input()
