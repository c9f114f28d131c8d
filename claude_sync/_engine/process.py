"""The CLI child process: spawn, write, read, drain stderr, stop. The I/O shell's bottom layer.

``SubprocessTransport`` is the default ``Transport``: it owns one ``subprocess.Popen`` with
binary pipes, started in a new process group (POSIX) so tools the CLI started die with it.
Threads that touch it:

- the session's reader thread iterates ``read_chunks`` (only it);
- any thread may call ``write_bytes`` (serialised by a lock, with a deadline),
  ``end_input``, ``stop``, ``close`` and ``stderr_tail``;
- its own ``claude_sync-stderr`` thread drains stderr into a bounded tail and calls the
  user's ``stderr`` callback per line (exceptions there are logged, never propagated).

Every live transport is in a registry; an ``atexit`` hook kills what is still running when
the interpreter exits, so a forgotten session never leaves an orphan CLI behind. A forked
child starts with an empty registry: the parent's CLIs are the parent's.
"""

from __future__ import annotations

import atexit
import collections
import os
import select
import signal
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Union, cast

from .._redaction.redactor import redacted_logger
from .._wire.errors import CLIConnectionError, CLINotFoundError
from .child import ChildProcess
from .green import readable, wait_readable
from .host_death import popen
from .transport import Transport

if TYPE_CHECKING:  # pragma: no cover
    import subprocess

__all__ = ["SubprocessTransport", "SIGKILL_REAP_WAIT", "STDERR_TAIL_BYTES", "StderrTail", "write_all"]

logger = redacted_logger("claude_sync.transport")

STDERR_TAIL_BYTES = 64 * 1024
"""How much of the CLI's stderr (the last bytes, in whole lines) is kept for errors."""
_STDERR_LINE_KEEP = 8 * 1024
_READ_SIZE = 64 * 1024
"""Bytes asked of the stdout pipe per read (a pipe holds 64 KiB; asking for more only makes
CPython allocate — and the kernel zero — a bigger buffer on every read)."""
_POSIX = os.name == "posix"
SIGKILL_REAP_WAIT = 5.0
"""The least the close ladder waits for the reap after SIGKILL, whatever its ``grace``: a
SIGKILL cannot be refused, but the kernel's teardown of a big process (the CLI's Node heap)
takes tens to hundreds of milliseconds on a busy machine — more than an abandoned run's
50 ms grace. A child not reaped by then is reported as not exited yet, never as undying."""

_live: weakref.WeakSet[SubprocessTransport] = weakref.WeakSet()


def _reap_all_at_exit() -> None:
    for transport in list(_live):
        transport.stop(grace=0.5)


atexit.register(_reap_all_at_exit)


def _forget_the_parents_transports() -> None:
    """In a forked child: the parent's CLIs are not this process's children (it cannot wait
    for them, and its atexit must not end their input); its own transports start afresh."""
    global _live
    _live = weakref.WeakSet()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_the_parents_transports)


class SubprocessTransport(Transport):
    """One CLI process with binary stdin/stdout/stderr pipes.

    ``close_timeout`` is each wait of the close ladder (``stop``) that ``close`` runs, and
    the bound on waiting for the stderr drain once the process has exited.
    """

    def __init__(
        self,
        argv: List[str],
        *,
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[str] = None,
        user: Optional[Union[str, int]] = None,
        stderr_callback: Optional[Callable[[str], None]] = None,
        close_timeout: float = 5.0,
        pass_fds: Sequence[int] = (),
    ) -> None:
        self.argv = argv
        self.pass_fds = tuple(pass_fds)  # ours: closed once connect() has spawned (or failed to)
        self.close_timeout = close_timeout
        self.env = env
        self.cwd = cwd
        self.user = user
        self._proc: Optional[subprocess.Popen[bytes]] = None
        self._write_lock = threading.Lock()
        self._stdin_closed = False
        self._stderr = StderrTail(stderr_callback)
        self.stopped_by_us = False
        self.last_rung: Optional[str] = None
        self._child: Optional[ChildProcess] = None

    # -- start -------------------------------------------------------------------------

    def connect(self) -> None:
        """Spawn the CLI (it inherits ``pass_fds``; our copies are closed either way). Raises
        ``CLINotFoundError`` (no such binary) or ``CLIConnectionError`` (any other OS error,
        e.g. not executable, bad cwd)."""
        import subprocess  # a CLI is spawned: a leased connection (the stderr tail, write_all) never loads it

        kwargs: Dict[str, object] = {}
        if self.pass_fds:
            kwargs["pass_fds"] = self.pass_fds
        if _POSIX:
            kwargs["start_new_session"] = True
            if self.user is not None:
                kwargs["user"] = self.user  # Python 3.9+: run the CLI as this OS user
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        try:
            self._proc = popen(  # argv from _options.command.build_spawn_plan; dies with this process
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                bufsize=0,
                **kwargs,
            )
        except FileNotFoundError as exc:
            if self.cwd and not os.path.isdir(self.cwd):
                raise CLIConnectionError(f"Working directory does not exist: {self.cwd}") from exc
            raise CLINotFoundError(
                f"Claude Code CLI not found at {self.argv[0]!r}", cli_path=self.argv[0]
            ) from exc
        except OSError as exc:
            raise CLIConnectionError(f"Failed to start Claude Code CLI {self.argv[0]!r}: {exc}") from exc
        finally:
            self._close_passed_fds()
        self._child = ChildProcess(self._proc)
        _live.add(self)
        if _POSIX:
            assert self._proc.stdin is not None
            os.set_blocking(self._proc.stdin.fileno(), False)
        assert self._proc.stderr is not None
        self._stderr.start(self._proc.stderr.fileno(), self._proc.pid)

    def _close_passed_fds(self) -> None:
        """Close our copies of ``pass_fds`` (the CLI has its own once spawned)."""
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    @property
    def pid(self) -> Optional[int]:
        return self._proc.pid if self._proc else None

    @property
    def returncode(self) -> Optional[int]:
        """The exit status once the process ended (it is then reaped, see ``child``), else None."""
        return self._child.poll() if self._child is not None else None

    def exit_code(self) -> Optional[int]:
        return self.returncode

    def is_ready(self) -> bool:
        return self._child is not None and not self._stdin_closed and self._child.poll() is None

    # -- stdout (reader thread only) ---------------------------------------------------

    def read_chunks(self) -> Iterator[bytes]:
        """Yield stdout bytes as they arrive until EOF. Only the reader thread iterates.

        Closing the generator before EOF (the reader stopped on an error) closes our end of
        stdout: the CLI's next write fails (EPIPE) and it exits, rather than staying blocked
        on a full pipe that nobody will drain until the close ladder signals it."""
        read = self.read_chunk
        at_eof = False
        try:
            while True:
                chunk = read()
                if not chunk:
                    at_eof = True
                    return
                yield chunk
        finally:
            if not at_eof:
                self._close_stdout()

    def _close_stdout(self) -> None:
        """Drop the read end of stdout (the reader thread, once it stopped reading)."""
        if self._proc is not None and self._proc.stdout is not None:
            try:
                self._proc.stdout.close()
            except OSError:
                pass

    def read_chunk(self) -> bytes:
        """Block until stdout has bytes; ``b""`` at EOF. Only the reader thread calls this."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            try:
                return os.read(fd, _READ_SIZE)
            except BlockingIOError:  # a non-blocking pipe (gevent's subprocess): not EOF
                if not wait_readable(fd, None):
                    return b""
            except OSError:  # closed under us during teardown
                return b""

    # -- stdin (any thread) ------------------------------------------------------------

    def write_bytes(self, data: bytes, timeout: Optional[float]) -> None:
        """Write all of ``data`` to stdin, giving up after ``timeout`` seconds (None: wait).

        Raises ``CLIConnectionError`` if stdin is closed, the CLI went away (broken pipe), or
        the deadline passed (the CLI stopped reading). A timed-out write may have written a
        prefix; the stream is then unusable and stdin is closed so the CLI never sees half a
        frame followed by another frame.
        """
        if not self._write_lock.acquire(timeout=-1 if timeout is None else timeout if timeout > 0 else 0):
            raise CLIConnectionError(f"Timed out after {timeout}s waiting to write to the CLI")
        try:
            if self._stdin_closed or self._proc is None or self._proc.stdin is None:
                raise CLIConnectionError("Cannot write to the CLI: its stdin is closed")
            write_all(self._proc.stdin.fileno(), memoryview(data), timeout, self._close_stdin_locked)
        finally:
            self._write_lock.release()

    def end_input(self) -> None:
        """Send EOF to the CLI (idempotent). Waits for an in-progress write to finish."""
        with self._write_lock:
            self._close_stdin_locked()

    def _close_stdin_locked(self) -> None:
        if self._stdin_closed:
            return
        self._stdin_closed = True
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass

    # -- stop --------------------------------------------------------------------------

    # Waiting, signalling and reaping go through ``ChildProcess`` (``child.py``), which never
    # signals a process group once its leader was reaped.

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        """Wait up to ``timeout`` seconds (None: forever) for exit; the return code, or None
        if still alive. Reaps the child (after clearing its group, see ``child``)."""
        return self._child.wait(timeout) if self._child is not None else None

    def stop(self, grace: float) -> str:
        """The close ladder: stdin EOF → wait → SIGTERM (group) → wait → SIGKILL → wait.

        Each wait is at most ``grace`` seconds, but the last one, for the reap after SIGKILL,
        lasts up to ``max(grace, SIGKILL_REAP_WAIT)`` (it ends as soon as the child is reaped). Returns the rung that ended the process:
        ``"exited"`` (already gone), ``"eof"``, ``"sigterm"``, ``"sigkill"`` or ``"stuck"``.
        Idempotent; callable from any thread except the stderr thread. Never signals a
        process that was already reaped (see ``child``).
        """
        if self._child is None:
            return "exited"
        if self._child.poll() is not None:
            rung = "exited"
        else:
            self.end_input()
            rung = self._escalate(grace)
        self.last_rung = self.last_rung or rung
        self._after_exit(grace)
        return rung

    def _escalate(self, grace: float) -> str:
        if self.wait(grace) is not None:
            return "eof"
        self.stopped_by_us = True
        self._signal_group(signal.SIGTERM)
        if self.wait(grace) is not None:
            return "sigterm"
        self._signal_group(signal.SIGKILL if _POSIX else signal.SIGTERM)
        reap_wait = max(grace, SIGKILL_REAP_WAIT)
        if self.wait(reap_wait) is not None:
            return "sigkill"
        # What is known: the signal was sent and the child has not been reaped yet (a kernel
        # stuck in uninterruptible I/O, a huge address space still being torn down).
        logger.warning(
            "Claude Code CLI pid %s has not exited %.1f s after SIGKILL; it is left to exit on its own", self.pid, reap_wait
        )
        return "stuck"

    def _signal_group(self, sig: int) -> None:
        assert self._child is not None
        self._child.signal_group(sig)

    def _after_exit(self, grace: float) -> None:
        """Join the stderr thread and forget the transport (the group was cleared when the
        leader was reaped)."""
        self._stderr.join(grace)
        _live.discard(self)

    def close(self) -> None:
        """Run the close ladder (``stop(close_timeout)``), then close every pipe (idempotent).

        The session calls ``stop`` first and this only after its reader thread is joined, so
        no thread is reading a pipe when it is closed (its fd number could be reused).
        """
        if self.last_rung is None:  # not stopped yet (stop again would signal a reaped group)
            self.stop(self.close_timeout)
        self._close_pipes()
        self._close_passed_fds()  # never connected: the memory files go now

    def _close_pipes(self) -> None:
        if self._proc is None:
            return
        self.end_input()
        if self._child is not None:
            self._child.close()  # the pidfd
        for pipe in (self._proc.stdout, self._proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    # -- stderr ------------------------------------------------------------------------

    def stderr_tail(self) -> str:
        """The last lines the CLI wrote to stderr (at most ``STDERR_TAIL_BYTES``).

        Once the process has exited, first waits (at most ``close_timeout``) for the drain
        to reach EOF, so the tail is complete.
        """
        if self._child is not None and self._child.poll() is not None:
            self.join_stderr(self.close_timeout)
        return self._stderr.tail()

    def join_stderr(self, timeout: float) -> None:
        """Wait (bounded) until all stderr has been drained, so the tail is complete."""
        self._stderr.join(timeout)


def write_all(fd: int, view: memoryview, timeout: Optional[float], close_stdin: Callable[[], None]) -> None:
    """Write all of ``view`` to the non-blocking pipe ``fd`` (the caller holds its write lock);
    only when the pipe is full does the ``timeout`` clock start. On the deadline calls
    ``close_stdin`` (a prefix may be written: the stream is unusable) and raises
    ``CLIConnectionError``; a broken pipe raises it too. Shared by every transport that
    writes a CLI's stdin (``SubprocessTransport``, the shared pool's leased transport)."""
    sent = 0
    total = len(view)
    deadline: Optional[float] = None
    while sent < total:
        try:
            sent += os.write(fd, view[sent:])
            continue
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as exc:
            raise CLIConnectionError(f"The CLI closed its stdin (process gone?): {exc}") from exc
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            close_stdin()
            raise CLIConnectionError(
                f"Timed out writing to the CLI ({sent} of {total} bytes written); stdin closed"
            )
        select.select([], [fd], [], 0.5 if remaining is None else min(remaining, 0.5))


class StderrTail:
    """A CLI's stderr: drained on a ``claude_sync-stderr-<pid>`` thread into a bounded tail
    (the last ``STDERR_TAIL_BYTES``, whole lines) and the user's ``callback`` per line (its
    exceptions are logged, never propagated). ``tail`` and ``join``: any thread."""

    def __init__(self, callback: Optional[Callable[[str], None]]) -> None:
        self._callback = callback
        self._lines: Deque[str] = collections.deque()
        self._size = 0
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def start(self, fd: int, pid: int, wake_fd: Optional[int] = None) -> None:
        """Start draining ``fd`` (the caller's thread; once) until EOF — or, with
        ``wake_fd``, until that becomes readable (the rest stays unread in ``fd``). ``fd``
        stays the caller's: it closes it only after ``join`` saw the thread end."""
        self._thread = threading.Thread(
            target=self._drain, args=(fd, wake_fd), name=f"claude_sync-stderr-{pid}", daemon=True
        )
        self._thread.start()

    def join(self, timeout: float) -> None:
        """Wait (bounded) until the drain reached EOF (not from the stderr thread itself)."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def _drain(self, fd: int, wake_fd: Optional[int]) -> None:
        """Runs on the ``claude_sync-stderr-<pid>`` thread until ``fd`` hits EOF (or ``wake_fd`` wakes it)."""
        pending = b""
        while True:
            if wake_fd is not None:
                try:
                    ready = readable((fd, wake_fd), None)
                except (OSError, ValueError):
                    break
                if wake_fd in ready:
                    break
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:  # non-blocking pipe under gevent: wait, read again
                if wait_readable(fd, None):
                    continue
                break
            except OSError:
                break
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            if len(pending) > _STDERR_LINE_KEEP * 4:
                lines.append(pending)
                pending = b""
            for line in lines:
                self.keep(line.decode("utf-8", "replace").rstrip("\r"))
        if pending:
            self.keep(pending.decode("utf-8", "replace"))

    def keep(self, line: str) -> None:
        """One stderr line: into the tail, then to the callback."""
        kept = line if len(line) <= _STDERR_LINE_KEEP else line[:_STDERR_LINE_KEEP] + " …[cut]"
        with self._lock:
            self._lines.append(kept)
            self._size += len(kept) + 1
            while self._size > STDERR_TAIL_BYTES and len(self._lines) > 1:
                self._size -= len(self._lines.popleft()) + 1
        callback = self._callback
        if callback is not None:
            try:
                callback(line)
            except Exception:  # noqa: BLE001 - user callback must not kill the drain
                logger.exception("The stderr callback raised; stderr keeps being drained")

    def tail(self) -> str:
        with self._lock:
            return "\n".join(self._lines)


def stderr_sink(options: Any) -> Callable[[str], None]:
    """Where the CLI's stderr lines go: the ``stderr`` callback if set, else written to
    ``options.debug_stderr`` or, by default, to ``sys.stderr`` as it is when the line arrives
    (so the terminal shows them, as it does with the official SDK, and redirections of
    ``sys.stderr`` are honoured). Runs on the stderr thread; write errors propagate to the
    drain, which logs them and keeps draining."""
    if options.stderr is not None:
        return cast(Callable[[str], None], options.stderr)
    target = options.debug_stderr

    def write(line: str) -> None:
        stream = target if target is not None else sys.stderr
        if stream is not None:
            stream.write(line + "\n")
            stream.flush()

    return write
