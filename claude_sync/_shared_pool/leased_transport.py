"""``LeasedTransport``: a session's transport over a CLI leased from the shared pool.

The pool handed this process the CLI's pipe ends (``lease_client.Lease``: stdin's write end,
stdout's and stderr's read ends) and keeps its own copies; the CLI is not our child. So:

- **reading** (the session's reader thread, ``read_chunks``): the lease's ``prefix`` (bytes
  the pool read past its reset's result) first, then stdout, waiting with ``poll`` on
  [stdout, a wake pipe]: ``stop`` and ``end_input`` wake it, and it ends **without
  consuming a byte** the next leaseholder would need. Every chunk goes to the
  ``LeaseVerdict`` (``verdict.py``). Once input ended and the CLI is idle after its last
  result, the reader ends as if the CLI had exited (it stays alive for the pool);
- **writing** (any thread): ``process.write_all`` with a deadline under a lock, as
  ``SubprocessTransport`` does; our stdin copy is made non-blocking (a flag of the shared
  file description: the pool's copy is non-blocking too);
- **stderr**: drained on ``claude_sync-stderr-<pid>`` by ``process.StderrTail`` (same tail,
  same callback), woken at ``stop`` by its own wake pipe;
- **exit**: ``pid``, ``exit_code``/``wait`` from the pool's exit notice (``Lease.exit_notice``);
- **stop(grace)**: waits (bounded) for the ``idle`` line a 2.1.33x CLI writes after a result,
  stops the reader and the drain, computes the verdict and calls ``Lease.give_back`` —
  reusable only when proven idle. It **never signals** the pid (not our child: the pool
  kills what is given back unusable).

Fork: a child forked while a lease is held must never use or give back the parent's lease:
``os.register_at_fork`` closes this transport's wake pipes in the child and marks every live
leased transport as the parent's (writes raise, reads end, ``stop`` gives nothing back). The
lease's own fds and socket are the lease client's to close in the child.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from typing import Any, Callable, Dict, Iterator, Optional

from .._engine.green import readable
from .._engine.process import StderrTail, write_all
from .._engine.transport import Transport
from .._options.options import ClaudeAgentOptions
from .._redaction.redactor import redacted_logger
from .._wire.errors import CLIConnectionError
from .verdict import LeaseVerdict

__all__ = ["LeasedTransport", "SETTLE_WAIT"]

logger = redacted_logger("claude_sync.shared_pool")

SETTLE_WAIT = 1.0
"""At most this long ``stop`` (and an ended input) waits, after a result, for the ``idle``
line a CLI that reports its state (2.1.33x) writes right after it (measured: ~1-5 ms)."""
_READ_SIZE = 64 * 1024
EXIT_LOOK = 0.001
"""How long ``exit_code`` looks for an exit notice the pool may have sent."""

_live: "weakref.WeakSet[LeasedTransport]" = weakref.WeakSet()


def _in_forked_child() -> None:
    for transport in list(_live):
        transport._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)


class LeasedTransport(Transport):
    """A leased CLI (see the module docstring). ``lease``: a ``lease_client.Lease``;
    ``options``: the run's options (the verdict's rules); ``stderr_callback``: where stderr
    lines go (``process.stderr_sink``); ``close_timeout``: the bound of ``wait`` after EOF
    and of the drain's join."""

    def __init__(
        self,
        lease: Any,
        *,
        options: Optional[ClaudeAgentOptions] = None,
        stderr_callback: Optional[Callable[[str], None]] = None,
        close_timeout: float = 5.0,
    ) -> None:
        self.lease = lease
        self.close_timeout = close_timeout
        self.verdict = LeaseVerdict(options)
        self._stderr = StderrTail(stderr_callback)
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()  # a read and its verdict vs. stop's "no more reads"
        self._settled = threading.Condition(threading.Lock())
        self._input_ended = False
        self._stdin_broken = False  # a write timed out: a frame may be half written
        self._stopping = False
        self._connected = False
        self._read_eof = False  # the CLI's stdout really ended (it exited)
        self.stopped_by_us = False
        """True once this transport ended the stream itself (input ended, CLI idle; or stop):
        the session then treats the end as its own, not as a crash."""
        self.last_rung: Optional[str] = None
        self.reason: Optional[str] = None
        """Why the CLI was given back unusable (None: given back reusable, or not yet)."""
        self.initialize_answer: Optional[Dict[str, Any]] = None
        """The ``initialize`` answer the session used (set by ``SharedPoolLease.handshaken``):
        given back with a reusable CLI, for the next leaseholder."""
        self._exit: Optional[int] = None
        self._parent_only = False
        self._given_back = False
        self._wake_r = self._wake_w = self._stop_r = self._stop_w = -1

    # ------------------------------------------------------------------ start

    def connect(self) -> None:
        """Start the stderr drain over the leased CLI (the connecting thread). Raises
        ``CLIConnectionError`` when a pipe cannot be made; the lease is given back unusable."""
        try:
            self._wake_r, self._wake_w = os.pipe()
            self._stop_r, self._stop_w = os.pipe()
            for fd in (self._wake_r, self._wake_w, self._stop_w):
                os.set_blocking(fd, False)
            os.set_blocking(self.lease.stdin_fd, False)
        except OSError as exc:
            self._give_back(False, f"the leaseholder could not start: {exc}")
            self._close_wakes()
            raise CLIConnectionError(f"Could not use the leased CLI: {exc}") from exc
        self._connected = True
        _live.add(self)
        self._stderr.start(self.lease.stderr_fd, self.lease.pid, wake_fd=self._stop_r)

    @property
    def pid(self) -> Optional[int]:
        return int(self.lease.pid)

    def exit_code(self) -> Optional[int]:
        """The CLI's exit status once the pool reported it exited, else None (looks at the
        pool's connection for at most ``EXIT_LOOK`` s)."""
        return self.wait(EXIT_LOOK)

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        """Wait at most ``timeout`` seconds for the pool's exit notice; once this transport
        ended the stream itself (the CLI lives on for the pool) it does not wait."""
        if self._exit is not None or self._parent_only or self._given_back:
            return self._exit
        if self.stopped_by_us or self.last_rung is not None:
            timeout = EXIT_LOOK
        code = self.lease.exit_notice(timeout)
        if code is not None:
            self._exit = code
        return self._exit

    def is_ready(self) -> bool:
        return (self._connected and not self._input_ended and not self._stdin_broken and not self._stopping
                and not self._parent_only and self._exit is None)  # fmt: skip

    def stderr_tail(self) -> str:
        tail = self._stderr.tail()
        if self._read_eof and self._exit is None and not self.stopped_by_us:
            note = ("[claude_sync] the leased CLI's output ended and the shared pool sent no exit status: "
                    "the pool process is gone (its CLIs die with it)")  # fmt: skip
            return f"{tail}\n{note}" if tail else note
        return tail

    # ------------------------------------------------------------------ stdout (reader thread)

    def read_chunks(self) -> Iterator[bytes]:
        """The lease's prefix, then stdout chunks, until the CLI's stdout ends, ``stop``
        begins, or input ended and the CLI is idle after its result (reader thread only)."""
        prefix = bytes(self.lease.prefix or b"")
        if prefix:
            with self._read_lock:
                if not self._stopping:
                    self.verdict.read(prefix)
            yield prefix
        fd = self.lease.stdout_fd
        settle_until: Optional[float] = None
        while True:
            if self._stopping or self._parent_only:
                return
            timeout: Optional[float] = None
            if self._input_ended and self.verdict.turn_over:
                if not self.verdict.settling:
                    self.stopped_by_us = True  # the run is over: end as a CLI would at EOF
                    return
                settle_until = settle_until or time.monotonic() + SETTLE_WAIT
                timeout = settle_until - time.monotonic()
                if timeout <= 0:
                    self.stopped_by_us = True
                    return
            try:
                ready = readable((fd, self._wake_r), timeout)
            except (OSError, ValueError):
                return
            if self._wake_r in ready:
                self._drain_wake()
                continue
            if fd not in ready:
                continue
            with self._read_lock:
                if self._stopping:
                    return
                try:
                    chunk = os.read(fd, _READ_SIZE)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._read_eof = True
                    return
                self.verdict.read(chunk)
            if self.verdict.settling is False:
                with self._settled:
                    self._settled.notify_all()
            yield chunk

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 64):
                pass
        except OSError:  # BlockingIOError: emptied (the read end is non-blocking)
            pass

    def _wake(self, fd: int) -> None:
        try:
            os.write(fd, b"x")
        except OSError:  # full (already woken) or closed
            pass

    # ------------------------------------------------------------------ stdin (any thread)

    def write_bytes(self, data: bytes, timeout: Optional[float]) -> None:
        """Write whole frames to the CLI's stdin within ``timeout`` seconds (None: no bound).
        Raises ``CLIConnectionError`` after ``end_input``/``stop``, in a forked child, on a
        broken pipe or the deadline (then nothing more is written: the CLI is retired)."""
        if not self._write_lock.acquire(timeout=-1 if timeout is None else timeout if timeout > 0 else 0):
            raise CLIConnectionError(f"Timed out after {timeout}s waiting to write to the CLI")
        try:
            if self._parent_only:
                raise CLIConnectionError("this leased CLI belongs to the parent process (this is a forked child)")
            if self._input_ended or self._stdin_broken or self._stopping or not self._connected:
                raise CLIConnectionError("Cannot write to the CLI: its input has ended")
            self.verdict.sent(data)
            write_all(self.lease.stdin_fd, memoryview(data), timeout, self._break_stdin)
        finally:
            self._write_lock.release()

    def _break_stdin(self) -> None:
        self._stdin_broken = True

    def end_input(self) -> None:
        """No frame follows (idempotent, any thread). The CLI's stdin is the pool's too, so it
        sees no EOF: the reader ends by itself once the CLI is idle after its last result."""
        with self._write_lock:
            if self._input_ended:
                return
            self._input_ended = True
        if self._wake_w >= 0:
            self._wake(self._wake_w)

    # ------------------------------------------------------------------ the end

    def stop(self, grace: float) -> str:
        """End this lease (closing thread; idempotent): wait at most ``min(grace,
        SETTLE_WAIT)`` for a settling CLI's ``idle`` line, stop the reader and the stderr
        drain without reading on, judge (``LeaseVerdict`` and the state of the pipes) and
        give the CLI back. Returns ``"returned"`` (reusable) or ``"retired"``. Never
        signals the CLI."""
        if self.last_rung is not None:
            return self.last_rung
        if self._parent_only:
            self.last_rung = "parent's"
            return self.last_rung
        if self._connected and self.verdict.settling and not self._read_eof:
            deadline = time.monotonic() + min(grace, SETTLE_WAIT)
            with self._settled:
                while self.verdict.settling and not self._read_eof:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._settled.wait(min(remaining, 0.05))
        with self._read_lock:
            self._stopping = True
        self.stopped_by_us = True
        if self._connected:
            self._wake(self._wake_w)
            self._wake(self._stop_w)
            self._stderr.join(grace)
        reason = self._reason()
        self.reason = reason
        self.last_rung = "returned" if reason is None else "retired"
        self._give_back(reason is None, reason or "idle after its result")
        _live.discard(self)
        return self.last_rung

    def _reason(self) -> Optional[str]:
        if not self._connected:
            return "the leaseholder never used it"
        if self._stdin_broken:
            return "a write to the CLI timed out (a frame may be half written)"
        if self._read_eof or self.wait(EXIT_LOOK) is not None:
            return "the CLI exited"
        if self._stderr.running:
            return "its stderr drain did not stop"
        reason = self.verdict.reason()
        if reason is not None:
            return reason
        try:
            if self.lease.stdout_fd in readable((self.lease.stdout_fd,), 0):
                return "the CLI wrote more after its last result"
        except (OSError, ValueError):
            return "its stdout could not be checked"
        return None

    def _give_back(self, reusable: bool, reason: str) -> None:
        self._given_back = True
        if self._connected:
            try:  # the file description is the pool's too: leave it as the pool gave it
                os.set_blocking(self.lease.stdin_fd, True)
            except OSError:
                pass
        try:
            if reusable and self.initialize_answer is not None:
                self.lease.give_back(reusable, reason, initialize=self.initialize_answer)
            else:
                self.lease.give_back(reusable, reason)
        except Exception:  # noqa: BLE001 - give_back never raises by contract; a bug must not break close
            logger.exception("Giving the leased CLI pid %s back failed", self.lease.pid)

    def close(self) -> None:
        """``stop`` if not yet, then close the wake pipes (idempotent; after the reader was
        joined, so no thread polls them)."""
        if self.last_rung is None:
            self.stop(self.close_timeout)
        self._close_wakes()

    def _close_wakes(self) -> None:
        fds = (self._wake_r, self._wake_w, self._stop_r, self._stop_w)
        self._wake_r = self._wake_w = self._stop_r = self._stop_w = -1
        for fd in fds:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _forked(self) -> None:
        """In a forked child (the only thread): the lease is the parent's. Never give it back
        from here; close this transport's own pipes (their numbers are this child's now)."""
        self._parent_only = True
        self.last_rung = "parent's"
        self._close_wakes()
