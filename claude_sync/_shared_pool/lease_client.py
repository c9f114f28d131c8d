"""The leaseholder's end of the shared pool's socket: ask for a CLI, receive its pipe ends,
learn when it exits, give it back.

``lease(plan, path=…, timeout=…)`` connects to the pool (its directory checked first, the
pool's uid checked through ``SO_PEERCRED``), sends the plan, and returns a ``Lease`` holding
the CLI's stdin write end, stdout read end and stderr read end (received ``SCM_RIGHTS``,
close-on-exec). The lease lives as long as its connection: ``give_back`` ends it (the pool
resets and parks the CLI, or kills it); a connection that closes without a give-back — this
process died, or forgot — makes the pool kill the CLI.

Fork: a child forked while a lease is open closes its copies of every lease's fds and socket
(``os.register_at_fork``): the parent keeps its lease, and the child cannot keep the CLI's
connection alive once the parent is gone.

Threads: ``lease`` runs on the caller's thread (blocking, bounded by ``timeout``); a ``Lease``'s
``exit_notice`` and ``give_back`` may be called from any thread, at the same time.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import struct
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from .._options.argv import FileArg
from .._redaction.redactor import redacted_logger
from . import paths, protocol
from .errors import PoolUnavailable, SharedPoolError

__all__ = ["Lease", "LeasePlan", "PoolUnavailable", "SharedPoolError", "lease", "socket_path"]

logger = redacted_logger("claude_sync.shared_pool")

ANSWER_MARGIN = 15.0
"""Seconds past the lease's ``timeout`` the answer may take (the pool answers "busy" at the
timeout; a cold spawn takes milliseconds) before the client gives up."""
RECV_BYTES = 65536
SEND_TIMEOUT = 5.0
"""Bound on writing one message to the pool (the return: a short script must not wait)."""


@dataclass(frozen=True)
class LeasePlan:
    """What the CLI must be: the spawn plan's argv (``FileArg`` items included), its whole
    environment and its cwd (None: this process's cwd, filled in by ``lease``). Two plans that
    differ anywhere — one env value — never share a CLI. ``repr`` shows no env values."""

    argv: Tuple[Union[str, FileArg], ...]
    env: Mapping[str, str] = field(repr=False)
    cwd: Optional[str] = None


def socket_path(environ: Mapping[str, str], option: Union[None, bool, str]) -> Optional[str]:
    """The pool's socket path, or None when leasing is off. ``option`` (the ``shared_pool``
    option): False → off; True → the default path; a str → that path; None →
    ``CLAUDE_SYNC_SHARED_POOL`` in ``environ`` (``""``/``"0"``/unset off; ``"1"`` the default
    path; a path). Raises ``ValueError``/``TypeError`` for a value it cannot mean (see
    ``paths.resolve_socket_path``)."""
    return paths.resolve_socket_path(environ, option)


_leases: "weakref.WeakSet[Lease]" = weakref.WeakSet()


class Lease:
    """One leased CLI: its pipe ends and what the pool said about it.

    Attributes:
        pid: The CLI's pid (not our child: never signal it).
        state: ``"fresh"`` (spawned ahead), ``"reset"`` (a parked CLI, ``/clear`` proven) or
            ``"cold"`` (spawned for this request).
        runs: How many leases this CLI served before this one.
        cost_before: The CLI's running cost total after its last reset (2.1.197 keeps
            process-wide totals; 0 when fresh).
        usage_before: The ``modelUsage`` of that reset's result, or None when fresh.
        stdin_fd / stdout_fd / stderr_fd: The CLI's pipe ends (blocking, close-on-exec);
            closed by ``give_back``.
        prefix: CLI output the pool read past its reset's result: it comes before ``stdout_fd``.
        lease_id: The pool's name for this lease.
        initialize_answer: The CLI's answer to the ``initialize`` an earlier leaseholder sent
            (the same fields: the plan's env digests them), kept by the pool since a reset
            that passed; None for a fresh or cold CLI, or when the pool's value was not one
            (``initialize_problem`` says why): then send ``initialize`` as usual.
        initialize_problem: Why the pool's ``initialize`` value was dropped, or None.
    """

    def __init__(self, sock: socket.socket, reader: protocol.LineReader, answer: Dict[str, Any], fds: List[int]) -> None:
        self._sock: Optional[socket.socket] = sock
        self._reader = reader
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._reading = False
        self._returncode: Optional[int] = None
        self._given = False
        self.pid = int(answer["pid"])
        self.state = str(answer.get("state", "cold"))
        self.runs = int(answer.get("runs", 0))
        self.cost_before = float(answer.get("cost_before") or 0.0)
        usage = answer.get("usage_before")
        self.usage_before: Optional[Dict[str, Any]] = usage if isinstance(usage, dict) else None
        self.lease_id = str(answer.get("lease", ""))
        self.prefix = protocol.unb64(answer.get("prefix", ""), "prefix")
        known, self.initialize_problem = protocol.initialize_answer(answer.get("initialize"))
        if known is not None and self.state != "reset":
            known, self.initialize_problem = None, f"an initialize answer came with a {self.state!r} CLI"
        self.initialize_answer: Optional[Dict[str, Any]] = known
        if self.initialize_problem is not None:
            logger.debug("lease %s: sending initialize (%s)", self.lease_id, self.initialize_problem)
        self.stdin_fd, self.stdout_fd, self.stderr_fd = fds
        self._fds: List[int] = list(fds)
        _leases.add(self)

    def __repr__(self) -> str:
        return f"Lease(pid={self.pid}, state={self.state!r}, runs={self.runs}, given_back={self._given})"

    @property
    def given_back(self) -> bool:
        return self._given

    def exit_notice(self, timeout: Optional[float]) -> Optional[int]:
        """The CLI's return code once the pool reports it exited (waiting at most ``timeout``
        s; None: forever — use a timeout), else None. Also None after ``give_back`` or when
        the pool's connection is gone (a dead pool's CLIs are dead too: the caller sees EOF on
        stdout). Any thread; never raises."""
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        with self._lock:
            while self._reading:
                if self._returncode is not None or self._sock is None:
                    return self._returncode
                if not self._changed.wait(_left(deadline)):
                    return self._returncode
                if deadline is not None and time.monotonic() >= deadline:
                    return self._returncode
            if self._returncode is not None or self._sock is None or self._given:
                return self._returncode
            sock = self._sock
            self._reading = True
        try:
            self._read_events(sock, deadline)
        finally:
            with self._lock:
                self._reading = False
                if self._given:
                    self._close_socket()
                self._changed.notify_all()
        return self._returncode

    def _read_events(self, sock: socket.socket, deadline: Optional[float]) -> None:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        while self._returncode is None and not self._given:
            left = _left(deadline)
            if left is not None and left <= 0:
                return
            if not poller.poll(None if left is None else left * 1000):
                return
            try:
                data = sock.recv(RECV_BYTES, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:  # the pool is gone (or we shut the socket down in give_back)
                with self._lock:
                    if not self._given:
                        logger.debug("the shared pool closed lease %s's connection", self.lease_id)
                return
            try:
                messages = self._reader.feed(data)
            except protocol.ProtocolError as exc:
                logger.debug("a bad message from the shared pool: %s", exc)
                return
            for message in messages:
                if message.get("event") == "exited" and isinstance(message.get("returncode"), int):
                    with self._lock:
                        self._returncode = message["returncode"]

    def give_back(
        self, reusable: bool, reason: str, leftover: bytes = b"", initialize: Optional[Mapping[str, Any]] = None
    ) -> None:
        """End the lease: tell the pool whether the CLI may serve again (``reusable``: proven
        idle; ``reason``: why not, for its log; ``leftover``: stdout bytes read and not
        consumed; ``initialize``: the CLI's ``initialize`` answer this lease used, for the
        next leaseholder — sent only with a reusable give-back), then close the pipe ends and
        the connection. Idempotent; any thread; never raises (a dead pool is logged at DEBUG;
        an answer JSON cannot carry is left out). Stop using the fds before calling it."""
        with self._lock:
            if self._given:
                return
            self._given = True
            sock = self._sock
        if sock is not None:
            try:
                message = {"v": protocol.VERSION, "op": "return", "reusable": bool(reusable), "reason": str(reason)[:2000],
                           "leftover": protocol.b64(bytes(leftover))}  # fmt: skip
                data = protocol.encode(message)
                if reusable and initialize:
                    try:
                        data = protocol.encode({**message, "initialize": dict(initialize)})
                    except (protocol.ProtocolError, ValueError, TypeError) as exc:
                        logger.debug("lease %s: the initialize answer is not given back: %s", self.lease_id, exc)
                sock.settimeout(SEND_TIMEOUT)
                sock.sendall(data)
            except (OSError, protocol.ProtocolError, ValueError) as exc:
                logger.debug("could not give lease %s back to the shared pool: %s", self.lease_id, exc)
        self._close_fds()
        with self._lock:
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # wakes a thread waiting in exit_notice
                except OSError:
                    pass
            if not self._reading:
                self._close_socket()
            self._changed.notify_all()
        _leases.discard(self)

    def _close_fds(self) -> None:
        fds, self._fds = self._fds, []
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def _close_socket(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def _forget_in_child(self) -> None:
        """In a forked child: close this process's copies, touch nothing else."""
        self._given = True
        self._reading = False
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._close_fds()
        self._close_socket()

    def __del__(self) -> None:  # a lease dropped without give_back: the pool kills its CLI
        try:
            if not self._given:
                self._given = True
                self._close_fds()
                self._close_socket()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _after_fork_in_child() -> None:
    for held in list(_leases):
        held._forget_in_child()
    _leases.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _left(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a connected Unix socket (``SO_PEERCRED``)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def connect(path: str, timeout: float) -> socket.socket:
    """A connection to the pool at ``path``, its directory and its uid checked. Raises
    ``PoolUnavailable``."""
    if not hasattr(socket, "AF_UNIX") or not hasattr(socket, "SO_PEERCRED"):
        raise PoolUnavailable("no Unix sockets with SO_PEERCRED on this platform")
    paths.check_dir(os.path.dirname(os.path.abspath(path)))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        _connect(sock, path, time.monotonic() + max(0.05, timeout))
        uid = peer_uid(sock)
        if uid != os.geteuid():
            raise PoolUnavailable(f"refused: the pool at {path} runs as uid {uid}, not {os.geteuid()}")
        return sock
    except PoolUnavailable:
        sock.close()
        raise
    except FileNotFoundError:
        sock.close()
        raise PoolUnavailable(f"no pool: no socket at {path}") from None
    except ConnectionRefusedError:
        sock.close()
        raise PoolUnavailable(f"no pool: a stale socket at {path} (nobody listens; the pool died?)") from None
    except (OSError, socket.timeout) as exc:
        sock.close()
        raise PoolUnavailable(f"no pool: cannot connect to {path}: {exc}") from None


def _connect(sock: socket.socket, path: str, deadline: float) -> None:
    """``connect``, retried while the pool's accept queue is full (``EAGAIN`` on a Unix socket
    with a timeout), until ``deadline``."""
    pause = 0.002
    while True:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            sock.connect(path)
            return
        except BlockingIOError:
            if time.monotonic() + pause >= deadline:
                raise socket.timeout("the pool's accept queue stayed full") from None
            time.sleep(pause)  # a bounded back-off: the pool is accepting, just behind
            pause = min(0.05, pause * 2)


def request(path: str, message: Dict[str, Any], timeout: float) -> Dict[str, Any]:
    """Send one request (``status``, ``stop``) and return the answer. Raises
    ``PoolUnavailable`` (no pool), ``SharedPoolError`` (no answer within ``timeout``)."""
    sock = connect(path, timeout)
    try:
        answer, fds, _ = _exchange(sock, message, timeout)
        for fd in fds:
            os.close(fd)
        return answer
    finally:
        sock.close()


def lease(plan: LeasePlan, *, path: str, timeout: float) -> Lease:
    """Lease a CLI for ``plan`` from the pool at ``path``, waiting at most ``timeout`` s for
    one (the pool answers "busy" then). Caller's thread.

    Raises ``PoolUnavailable`` (no pool there, a stale socket, a refused directory, a pool of
    another uid, another protocol version, a pool that is stopping: spawn as usual) and
    ``SharedPoolError`` (the pool is there but did not lease: busy past ``timeout``, refused
    the plan, broke the handshake). ``TypeError`` for a plan that is not str/``FileArg`` argv
    and str env."""
    argv = list(plan.argv)
    if argv and isinstance(argv[0], str) and not os.path.isabs(argv[0]):
        found = shutil.which(argv[0], path=plan.env.get("PATH", os.defpath))
        argv[0] = os.path.abspath(found or argv[0])
    cwd = plan.cwd if plan.cwd is not None else os.getcwd()
    wire = protocol.plan_to_wire(argv, plan.env, os.path.abspath(cwd))
    message = {"v": protocol.VERSION, "op": "lease", "plan": wire, "timeout": float(timeout), "pid": os.getpid()}
    sock = connect(path, timeout + ANSWER_MARGIN)
    try:
        answer, fds, reader = _exchange(sock, message, timeout + ANSWER_MARGIN)
    except BaseException:
        sock.close()
        raise
    if answer.get("ok") is True and len(fds) == 3 and isinstance(answer.get("pid"), int):
        try:
            return Lease(sock, reader, answer, fds)
        except (protocol.ProtocolError, ValueError, TypeError) as exc:
            problem: BaseException = SharedPoolError(f"the shared pool sent a bad lease: {exc}")
    elif answer.get("ok") is True:
        problem = SharedPoolError(f"the shared pool sent a lease with {len(fds)} fds, not 3")
    else:
        problem = _refusal(answer, path)
    for fd in fds:
        os.close(fd)
    sock.close()
    raise problem


def _refusal(answer: Mapping[str, Any], path: str) -> BaseException:
    kind = answer.get("error")
    text = str(answer.get("message", ""))[:2000]
    if kind in ("version", "stopping"):
        return PoolUnavailable(f"the pool at {path} did not lease ({kind}): {text}")
    if kind not in protocol.ERROR_KINDS:
        kind = "broken"
    return SharedPoolError(f"the shared pool did not lease a CLI ({kind}): {text}", kind=str(kind))


def _exchange(sock: socket.socket, message: Dict[str, Any], timeout: float) -> Tuple[Dict[str, Any], List[int], protocol.LineReader]:
    """Send ``message``, receive one answer and the fds that came with it. Raises
    ``SharedPoolError`` (a timeout, EOF, a bad answer); nothing is left open then."""
    deadline = time.monotonic() + timeout
    reader = protocol.LineReader()
    fds: List[int] = []
    try:
        sock.settimeout(max(0.05, min(timeout, SEND_TIMEOUT)))
        sock.sendall(protocol.encode(message))
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SharedPoolError(f"the shared pool did not answer within {timeout:.1f}s", kind="busy")
            sock.settimeout(left)
            data, got, flags, _ = socket.recv_fds(sock, RECV_BYTES, 3, socket.MSG_CMSG_CLOEXEC)
            fds.extend(got)
            if flags & socket.MSG_CTRUNC:
                raise SharedPoolError("the shared pool's fds were truncated")
            if not data:
                raise SharedPoolError("the shared pool closed the connection before answering (did it die?)")
            answers = reader.feed(data)
            if answers:
                # an "exited" event may follow in the same chunk: put it back for exit_notice
                rest = b"".join(protocol.encode(extra) for extra in answers[1:])
                reader.buffer[:0] = rest
                return answers[0], fds, reader
    except SharedPoolError:
        _close_all(fds)
        raise
    except socket.timeout:
        _close_all(fds)
        raise SharedPoolError(f"the shared pool did not answer within {timeout:.1f}s", kind="busy") from None
    except protocol.ProtocolError as exc:
        _close_all(fds)
        raise SharedPoolError(f"the shared pool sent a bad answer: {exc}") from None
    except OSError as exc:
        _close_all(fds)
        raise SharedPoolError(f"the connection to the shared pool broke: {exc}") from None
    except BaseException:
        _close_all(fds)
        raise


def _close_all(fds: List[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
