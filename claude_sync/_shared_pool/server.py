"""The shared pool process: the socket, the CLIs per plan, the caps, the waiters, the leases.

Threads, all named ``claude_sync-pool-*`` and joined by ``stop``:

- ``claude_sync-pool-accept``: accepts connections (backlog ``BACKLOG``), checks the peer's uid
  (``SO_PEERCRED``: another uid gets ``{"ok": false, "error": "refused"}`` and is closed, and a
  log line), and queues the connection for a handler — a full queue answers "busy" at once.
- ``claude_sync-pool-handler-N`` (a fixed number): read one request (bounded), answer
  ``status``/``stop``, serve a ``lease`` (a parked CLI of the same plan, else a fresh one, else a
  cold spawn under the caps, else the request joins the FIFO of waiters), run the ``/clear``
  resets and spawn the spares.
- ``claude_sync-pool-watch``: one ``poll`` over every leased and waiting connection, every
  CLI's pidfd and the stderr of the CLIs nobody holds: a ``return`` message ends a lease
  (reusable → a reset job; else the CLI is killed); a connection that ends without one kills
  its CLI; a CLI that exits is reaped (its group killed first) and, when leased, its
  leaseholder gets ``{"event": "exited", "returncode": N}``; waiters past their deadline get
  "busy"; CLIs idle longer than ``idle_seconds`` are retired.

Caps: never more than ``max_clis`` CLIs (spawning ones included); over ``max_memory_mb`` (the
CLIs' RSS with their children, from ``/proc``) no new CLI starts. To make room for a request,
the least-recently-used idle (parked or fresh) CLI of any plan is retired first; with none
idle, the request waits (FIFO, at most ``max_waiting`` waiters, each at most its own timeout).

``stop`` (any thread; SIGTERM/SIGINT/``op: stop`` in ``claude-sync serve``) ends it all: the
listening socket closed and its file removed, waiters answered "stopping", every CLI killed and
reaped, every connection closed, every thread joined, the lock released and its file removed.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import select
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._redaction.redactor import redacted_logger
from .._tracing.otel import watch_pool
from . import paths, protocol
from .clis import PooledCli, spawn_cli
from .errors import PoolUnavailable
from .lease_client import peer_uid

__all__ = ["Caps", "SharedPool"]

logger = redacted_logger("claude_sync.shared_pool")

BACKLOG = 1024
REQUEST_TIMEOUT = 2.0
"""Bound on a connection's first request arriving once accepted (a client sends it right
after connecting; a silent connection holds a handler thread this long at most)."""
SEND_TIMEOUT = 5.0
"""Bound on writing one answer (a leaseholder that does not read is dropped)."""
RECV_BYTES = 65536


@dataclass
class Caps:
    """The pool's limits (``claude-sync serve``'s flags)."""

    max_clis: int = 4
    max_memory_mb: Optional[float] = None
    spares: int = 1
    idle_seconds: float = 600.0
    max_waiting: int = 256
    max_runs: int = 100
    """Leases one CLI serves before it is retired (as ``AgentPool(max_runs_per_cli=)``)."""
    reset_timeout: float = 30.0
    handlers: int = 8

    def check(self) -> None:
        """Raises ``ValueError`` naming a limit out of range."""
        if self.max_clis < 1:
            raise ValueError("max_clis must be >= 1")
        if self.max_memory_mb is not None and self.max_memory_mb <= 0:
            raise ValueError("max_memory_mb must be > 0")
        if self.spares < 0 or self.max_waiting < 0 or self.max_runs < 1 or self.handlers < 1:
            raise ValueError("spares and max_waiting must be >= 0, max_runs and handlers >= 1")
        if not self.idle_seconds > 0 or not self.reset_timeout > 0:
            raise ValueError("idle_seconds and reset_timeout must be > 0")


class _Conn:
    """A client connection the watcher polls: a lease (``cli`` set) or a waiter."""

    __slots__ = ("sock", "reader", "cli", "plan", "deadline", "peer_pid", "lease_id", "done")

    def __init__(self, sock: socket.socket, reader: protocol.LineReader) -> None:
        self.sock = sock
        self.reader = reader
        self.cli: Optional[PooledCli] = None
        self.plan: Optional[protocol.WirePlan] = None
        self.deadline = 0.0
        self.peer_pid = 0
        self.lease_id = ""
        self.done = False


class SharedPool:
    """The pool behind one socket. ``start()`` binds and starts the threads; ``stop()`` ends
    everything. Raises ``PoolUnavailable`` from ``start`` (a refused directory, a pool already
    there: ``.holder`` is its pid)."""

    def __init__(self, socket_path: str, caps: Optional[Caps] = None) -> None:
        self.path = os.path.abspath(socket_path)
        self.caps = caps or Caps()
        self.caps.check()
        self.metric_attributes = {"claude_sync.pool.kind": "shared"}
        self._lock = threading.RLock()
        self._clis: List[PooledCli] = []
        self._spawning = 0
        self._plan_rss: Dict[protocol.WirePlan, int] = {}
        self._waiters: List[_Conn] = []
        self._leases: List[_Conn] = []
        self._jobs: "queue.Queue[Optional[Tuple[Callable[..., None], Tuple[Any, ...]]]]" = queue.Queue(maxsize=BACKLOG)
        self._threads: List[threading.Thread] = []
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        self._listener: Optional[socket.socket] = None
        self._socket_ino: Optional[Tuple[int, int]] = None
        self._lock_fd: Optional[int] = None
        self._ids = itertools.count(1)
        self.started_at = time.time()
        self.counts = {"started": 0, "retired": 0, "leases": 0, "reused": 0, "refused_peers": 0, "busy": 0}

    # ------------------------------------------------------------------ start / stop

    def start(self) -> None:
        """Take the lock, bind the socket (a stale file from a dead pool is replaced), start the
        threads. Caller's thread. Raises ``PoolUnavailable`` (``holder`` attribute: the pid of
        the pool holding the lock, or None)."""
        try:
            paths.prepare_dir(self.path)
            fd, holder = paths.take_lock(self.path)
            if fd is None:
                error = PoolUnavailable(f"another pool (pid {holder}) serves {self.path}")
                error.holder = holder  # type: ignore[attr-defined]
                raise error
            self._lock_fd = fd
            if os.path.lexists(self.path):
                logger.info("replacing the stale socket %s (its pool is gone: the lock was free)", self.path)
                os.unlink(self.path)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
            old_umask = os.umask(0o077)
            try:
                listener.bind(self.path)
            finally:
                os.umask(old_umask)
            listener.listen(BACKLOG)
            listener.settimeout(None)
            info = os.stat(self.path)
            self._socket_ino = (info.st_dev, info.st_ino)
            self._listener = listener
        except BaseException:
            self._close_fds()
            raise
        self._thread("claude_sync-pool-accept", self._accept_loop)
        self._thread("claude_sync-pool-watch", self._watch_loop)
        for index in range(self.caps.handlers):
            self._thread(f"claude_sync-pool-handler-{index}", self._handler_loop)
        logger.info("shared pool %d serving %s (max_clis=%d, max_memory_mb=%s, spares=%d, idle_seconds=%g)",
                    os.getpid(), self.path, self.caps.max_clis, self.caps.max_memory_mb, self.caps.spares,
                    self.caps.idle_seconds)  # fmt: skip
        watch_pool(self)

    def _thread(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until ``stop`` was asked (True) or ``timeout`` passed (False)."""
        return self._stopping.wait(timeout)

    def request_stop(self) -> None:
        """Ask the pool to stop (any thread, a signal handler too): ``wait`` returns."""
        self._stopping.set()
        self._wake()

    def stop(self, join_timeout: float = 10.0) -> None:
        """Stop everything (see the module docstring). Idempotent; never raises."""
        self.request_stop()
        with self._lock:
            if self._stopped.is_set():
                return
            self._stopped.set()
            listener, self._listener = self._listener, None
        if listener is not None:
            self._unlink_socket()
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for _ in range(self.caps.handlers):
            try:
                self._jobs.put(None, timeout=join_timeout)
            except queue.Full:
                break
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(join_timeout)
        with self._lock:
            conns = self._waiters + self._leases
            self._waiters, self._leases = [], []
            clis, self._clis = self._clis, []
        for conn in conns:
            if conn.cli is None:
                self._send(conn, protocol.error("stopping", "the pool is stopping"))
            self._close_conn(conn)
        for cli in clis:
            self._kill(cli, "the pool stopped")
        while True:  # connections accepted but never handled
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None and job[0] == self._handle_connection:
                job[1][0].close()
        self._close_fds()
        logger.info("shared pool %d stopped", os.getpid())

    def _unlink_socket(self) -> None:
        try:
            info = os.stat(self.path)
            if (info.st_dev, info.st_ino) == self._socket_ino:
                os.unlink(self.path)
        except OSError:
            pass

    def _close_fds(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        if self._lock_fd is not None:
            try:
                os.unlink(paths.lock_path(self.path))
            except OSError:
                pass
            os.close(self._lock_fd)
            self._lock_fd = None

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    # ------------------------------------------------------------------ accepting

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        poller = select.poll()
        poller.register(listener.fileno(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while not self._stopping.is_set():
            if not poller.poll(1000):
                continue
            try:
                sock, _ = listener.accept()
            except (BlockingIOError, InterruptedError, socket.timeout):
                continue
            except OSError:
                if self._stopping.is_set():
                    return
                time.sleep(0.05)  # EMFILE and the like: do not spin
                continue
            try:
                self._admit(sock)
            except Exception:  # noqa: BLE001 - one connection must not end the accept loop
                logger.exception("admitting a connection failed")
                sock.close()

    def _admit(self, sock: socket.socket) -> None:
        try:
            uid = peer_uid(sock)
        except OSError:
            sock.close()
            return
        if uid != os.geteuid():
            self._count("refused_peers")
            logger.warning("refused a connection from uid %d (this pool serves uid %d only)", uid, os.geteuid())
            self._send_now(sock, protocol.error("refused", "this pool serves its own uid only"))
            sock.close()
            return
        try:
            self._jobs.put_nowait((self._handle_connection, (sock,)))
        except queue.Full:
            self._count("busy")
            self._send_now(sock, protocol.error("busy", "the pool's queue of connections is full"))
            sock.close()

    @staticmethod
    def _send_now(sock: socket.socket, message: Dict[str, Any]) -> None:
        try:
            sock.setblocking(False)
            sock.send(protocol.encode(message))
        except OSError:
            pass

    # ------------------------------------------------------------------ handlers

    def _handler_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            function, args = job
            try:
                function(*args)
            except Exception:  # noqa: BLE001 - one job must not end a handler
                logger.exception("a shared-pool job failed")

    def _submit(self, function: Callable[..., None], *args: Any) -> bool:
        try:
            self._jobs.put((function, args), timeout=SEND_TIMEOUT)
            return True
        except queue.Full:
            return False

    def _handle_connection(self, sock: socket.socket) -> None:
        conn = _Conn(sock, protocol.LineReader())
        try:
            message = self._first_message(conn)
        except protocol.ProtocolError as exc:
            self._send(conn, protocol.error(exc.kind, str(exc)))
            self._close_conn(conn)
            return
        except (OSError, socket.timeout):
            self._close_conn(conn)
            return
        op = message["op"]
        if op == "status":
            self._send(conn, self.status())
            self._close_conn(conn)
        elif op == "stop":
            self._send(conn, {"ok": True})
            self._close_conn(conn)
            self.request_stop()
        elif op == "lease":
            self._start_lease(conn, message)
        else:
            self._send(conn, protocol.error("bad_request", f"op {op!r} is only valid during a lease"))
            self._close_conn(conn)

    def _first_message(self, conn: _Conn) -> Dict[str, Any]:
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise protocol.ProtocolError(f"no request within {REQUEST_TIMEOUT:.0f}s")
            conn.sock.settimeout(left)
            try:
                data = conn.sock.recv(RECV_BYTES)
            except socket.timeout:
                raise protocol.ProtocolError(f"no request within {REQUEST_TIMEOUT:.0f}s") from None
            if not data:
                raise OSError("closed before a request")
            messages = conn.reader.feed(data)
            if messages:
                if len(messages) > 1 or conn.reader.pending:
                    raise protocol.ProtocolError("one request per connection, then wait for the answer")
                problem = protocol.request_problem(messages[0])
                if problem is not None:
                    raise problem
                return messages[0]

    def _start_lease(self, conn: _Conn, message: Dict[str, Any]) -> None:
        try:
            conn.plan = protocol.plan_from_wire(message["plan"])
        except protocol.ProtocolError as exc:
            self._send(conn, protocol.error("bad_request", str(exc)))
            self._close_conn(conn)
            return
        pid = message.get("pid")
        conn.peer_pid = pid if isinstance(pid, int) else 0
        conn.deadline = time.monotonic() + float(message["timeout"])
        with self._lock:
            if self._stopping.is_set():
                grant = None
                refusal: Optional[Dict[str, Any]] = protocol.error("stopping", "the pool is stopping")
            else:
                ahead = sum(waiter.plan == conn.plan for waiter in self._waiters)
                # a CLI of this plan being given back right now is worth waiting for too
                ahead -= self._returning(conn.plan) if ahead == 0 else 0
                grant = self._take(conn.plan, first_in_line=not self._waiters, ahead=ahead)
                refusal = None
                if grant is None:
                    if len(self._waiters) >= self.caps.max_waiting:
                        self._count("busy")
                        refusal = protocol.error("busy", f"{len(self._waiters)} requests wait already (max_waiting)")
                    elif message["timeout"] <= 0:
                        self._count("busy")
                        refusal = protocol.error("busy", "no CLI free and the request's timeout is 0")
                    else:
                        self._waiters.append(conn)
        if refusal is not None:
            self._send(conn, refusal)
            self._close_conn(conn)
            return
        if grant is None:
            self._wake()  # the watcher polls the waiter and its deadline
            return
        self._grant(conn, grant)

    def _returning(self, plan: protocol.WirePlan) -> int:
        """Under the lock: leased CLIs of ``plan`` whose connection has something to read (most
        likely their give-back, which the watcher is about to handle)."""
        count = 0
        for conn in self._leases:
            if conn.cli is not None and conn.cli.plan == plan and not conn.done:
                poller = select.poll()
                poller.register(conn.sock, select.POLLIN)
                count += bool(poller.poll(0))
        return count

    def _take(self, plan: protocol.WirePlan, first_in_line: bool, ahead: int = 0) -> Optional[Any]:
        """Under the lock: a CLI for ``plan`` marked leased, or ``"spawn"`` (a slot reserved:
        the caller spawns), or None (wait). A CLI of the plan being reset is waited for (a
        reset takes milliseconds, a cold start a second of CPU) unless ``ahead`` waiters of the
        same plan will take every such CLI. Retires idle CLIs of other plans to make room when
        ``first_in_line``."""
        for state in ("parked", "fresh"):
            matches = [cli for cli in self._clis if cli.state == state and cli.plan == plan]
            if matches:
                cli = max(matches, key=lambda c: c.last_used)
                cli.state = "leased"
                return cli
        resetting = sum(cli.state == "resetting" and cli.plan == plan for cli in self._clis)
        if not first_in_line or resetting > ahead:
            return None
        while True:
            count_ok = len(self._clis) + self._spawning < self.caps.max_clis
            memory_ok = self._memory_ok()
            if count_ok and memory_ok:
                self._spawning += 1
                return "spawn"
            idle = [cli for cli in self._clis if cli.state in ("parked", "fresh")]
            if not idle:
                return None
            victim = min(idle, key=lambda c: c.last_used)
            self._retire_locked(victim, "idle, retired to make room under " + ("max_memory_mb" if count_ok else "max_clis"))

    def _memory_ok(self) -> bool:
        """Under the lock: the CLIs' memory is under ``max_memory_mb``. A CLI counts as its RSS
        (children included) or, while it is smaller, the most a CLI of its plan was seen to
        hold: a CLI that has just started (still small) counts what it will grow to."""
        if self.caps.max_memory_mb is None:
            return True
        if len(self._plan_rss) > 256:  # bounded: forget the plans no CLI runs for
            live = {cli.plan for cli in self._clis}
            self._plan_rss = {plan: rss for plan, rss in self._plan_rss.items() if plan in live}
        total = 0
        for cli in self._clis:
            now = cli.rss()
            seen = self._plan_rss.get(cli.plan, 0)
            if now > seen:
                self._plan_rss[cli.plan] = seen = now
            total += max(now, seen)
        return total < self.caps.max_memory_mb * 1024 * 1024

    def _grant(self, conn: _Conn, grant: Any) -> None:
        """Hand ``grant`` (a leased CLI, or a reserved slot to spawn into) to ``conn``: spawn
        when needed, send the lease with the fds, register it with the watcher."""
        state = "fresh"
        if grant == "spawn":
            assert conn.plan is not None
            try:
                cli = spawn_cli(conn.plan)
            except OSError as exc:
                with self._lock:
                    self._spawning -= 1
                    self._serve_waiters_locked()
                logger.warning("could not start a CLI for plan %s: %s", conn.plan.plan_id, exc.strerror or exc)
                self._send(conn, protocol.error("refused", f"the pool could not start the CLI: {exc.strerror or exc}"))
                self._close_conn(conn)
                return
            self._count("started")
            logger.info("started CLI pid %d for plan %s (cold, for pid %d)", cli.pid, cli.plan.plan_id, conn.peer_pid)
            cli.state = "leased"
            state = "cold"
            with self._lock:
                self._spawning -= 1
                stopped = self._stopped.is_set()
                if not stopped:
                    self._clis.append(cli)
            if stopped:  # ``stop`` has killed the CLIs it knew of: this one is ours to kill
                self._kill(cli, "the pool stopped")
                self._send(conn, protocol.error("stopping", "the pool is stopping"))
                self._close_conn(conn)
                return
        else:
            cli = grant
            state = "reset" if cli.runs else "fresh"
        conn.cli = cli
        conn.lease_id = f"{os.getpid()}-{next(self._ids)}"
        answer = {
            "ok": True, "lease": conn.lease_id, "pid": cli.pid, "state": state, "runs": cli.runs,
            "cost_before": cli.cost_before, "usage_before": cli.usage_before, "prefix": protocol.b64(cli.prefix),
            "initialize": cli.initialize_answer if state == "reset" else None,
        }  # fmt: skip
        cli.prefix = b""
        sent = self._send(conn, answer, fds=[cli.stdin_fd, cli.stdout_fd, cli.stderr_fd])
        if not sent:
            self._close_conn(conn)
            self._retire(cli, "the leaseholder could not be sent its lease")
            return
        self._count("leases")
        with self._lock:
            cli.lease = conn
            cli.last_used = time.monotonic()
            self._leases.append(conn)
            self._want_spare_locked(cli.plan)
        self._wake()

    # ------------------------------------------------------------------ spares and waiters

    def _want_spare_locked(self, plan: protocol.WirePlan) -> None:
        if self.caps.spares <= 0 or self._stopping.is_set() or self._waiters:
            return
        idle = [cli for cli in self._clis if cli.plan == plan and cli.state in ("parked", "fresh", "resetting")]
        if len(idle) >= self.caps.spares:
            return
        if len(self._clis) + self._spawning >= self.caps.max_clis or not self._memory_ok():
            return
        self._spawning += 1
        if not self._submit(self._spawn_spare, plan):
            self._spawning -= 1

    def _spawn_spare(self, plan: protocol.WirePlan) -> None:
        try:
            cli = spawn_cli(plan)
        except OSError as exc:
            logger.warning("could not start a spare CLI for plan %s: %s", plan.plan_id, exc.strerror or exc)
            with self._lock:
                self._spawning -= 1
                self._serve_waiters_locked()
            return
        self._count("started")
        logger.info("started CLI pid %d for plan %s (spare)", cli.pid, plan.plan_id)
        with self._lock:
            self._spawning -= 1
            if self._stopping.is_set() or self._stopped.is_set():
                stale = True
            else:
                stale = False
                self._clis.append(cli)
                self._serve_waiters_locked()
        if stale:
            self._kill(cli, "the pool stopped")
        self._wake()

    def _serve_waiters_locked(self) -> None:
        """Under the lock: hand what is free now to the waiters, in order (a waiter whose plan
        has an idle CLI takes it; only the first needing room may spawn or evict)."""
        if self._stopping.is_set():
            return
        first_needing_room = True
        ahead: Dict[protocol.WirePlan, int] = {}
        for conn in list(self._waiters):
            assert conn.plan is not None
            grant = self._take(conn.plan, first_in_line=first_needing_room, ahead=ahead.get(conn.plan, 0))
            if grant is None:
                ahead[conn.plan] = ahead.get(conn.plan, 0) + 1
                first_needing_room = False
                continue
            self._waiters.remove(conn)
            if not self._submit(self._grant, conn, grant):  # pragma: no cover - the job queue is huge
                self._undo_grant_locked(grant)
                self._send(conn, protocol.error("busy", "the pool is overloaded"))
                self._close_conn(conn)

    def _undo_grant_locked(self, grant: Any) -> None:
        if grant == "spawn":
            self._spawning -= 1
        else:
            grant.state = "parked" if grant.runs else "fresh"

    # ------------------------------------------------------------------ the end of a lease

    def _end_lease(self, conn: _Conn, message: Optional[Dict[str, Any]]) -> None:
        """The watcher: ``conn`` sent ``return`` (``message``) or ended without (None)."""
        with self._lock:
            if conn in self._leases:
                self._leases.remove(conn)
            cli, conn.cli = conn.cli, None
        self._close_conn(conn)
        if cli is None:
            return
        cli.lease = None
        if message is None:
            self._retire(cli, f"its leaseholder (pid {conn.peer_pid}) disconnected without giving it back")
            return
        cli.runs += 1
        if cli.returncode() is not None:
            self._retire(cli, "it exited during the lease")
            return
        if not message.get("reusable"):
            reason = str(message.get("reason", ""))[:300] or "not reusable"
            self._retire(cli, f"given back not reusable: {reason}")
            return
        if cli.runs >= self.caps.max_runs:
            self._retire(cli, f"served {cli.runs} leases (max_runs={self.caps.max_runs})")
            return
        try:
            leftover = protocol.unb64(message.get("leftover", ""), "leftover")
        except protocol.ProtocolError as exc:
            self._retire(cli, f"a bad give-back: {exc}")
            return
        known, problem = protocol.initialize_answer(message.get("initialize"))
        if problem is not None:
            logger.info("CLI pid %d: its initialize answer is not kept (%s)", cli.pid, problem)
        with self._lock:
            cli.state = "resetting"
            cli.initialize_answer = None  # kept again only once this reset passed
        if not self._submit(self._reset, cli, leftover, known):
            self._retire(cli, "the pool is overloaded (no handler for the reset)")

    def _reset(self, cli: PooledCli, leftover: bytes, initialize: Optional[Dict[str, Any]] = None) -> None:
        problem = cli.reset(leftover, self.caps.reset_timeout)
        if problem is not None:
            self._retire(cli, f"the /clear reset failed: {problem}")
            return
        self._count("reused")
        with self._lock:
            if cli.state != "resetting":  # retired meanwhile (stop, exit)
                return
            cli.initialize_answer = initialize
            cli.state = "parked"
            cli.last_used = time.monotonic()
            self._serve_waiters_locked()
        self._wake()

    def _retire(self, cli: PooledCli, reason: str) -> None:
        with self._lock:
            self._retire_locked(cli, reason)

    def _retire_locked(self, cli: PooledCli, reason: str) -> None:
        if cli.state == "dead":
            return
        cli.state = "dead"
        if cli in self._clis:
            self._clis.remove(cli)
        self._kill(cli, reason)
        self._serve_waiters_locked()
        self._wake()

    def _kill(self, cli: PooledCli, reason: str) -> None:
        cli.state = "dead"
        code = cli.kill()
        self._count("retired")
        logger.info("retired CLI pid %d of plan %s after %d leases (exit %s): %s", cli.pid, cli.plan.plan_id, cli.runs,
                    code, reason)  # fmt: skip

    # ------------------------------------------------------------------ the watcher

    def _watch_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                self._watch_once()
            except Exception:  # noqa: BLE001 - the watch must go on: it is what kills orphaned CLIs
                logger.exception("the shared pool's watcher failed once; it goes on")
                time.sleep(0.1)  # no spin should it fail again at once

    def _watch_once(self) -> None:
        """One round of the watcher: poll, then handle what is ready and the timers."""
        with self._lock:
            leases = list(self._leases)
            waiters = list(self._waiters)
            clis = list(self._clis)
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        by_fd: Dict[int, Tuple[str, Any]] = {}
        for conn in leases + waiters:
            try:
                fd = conn.sock.fileno()
            except OSError:
                continue
            if fd >= 0:
                by_fd[fd] = ("conn", conn)
                poller.register(fd, select.POLLIN)
        for cli in clis:
            if cli.pidfd is not None:
                by_fd[cli.pidfd] = ("exit", cli)
                poller.register(cli.pidfd, select.POLLIN)
            if cli.state in ("fresh", "parked"):
                by_fd[cli.stderr_fd] = ("stderr", cli)
                poller.register(cli.stderr_fd, select.POLLIN)
        events = poller.poll(self._next_timeout(waiters, clis) * 1000)
        for fd, _ in events:
            if fd == self._wake_r:
                try:
                    os.read(self._wake_r, 4096)
                except OSError:
                    pass
                continue
            kind, item = by_fd.get(fd, ("", None))
            if kind == "conn":
                self._conn_readable(item)
            elif kind == "exit":
                self._cli_exited(item)
            elif kind == "stderr":
                self._drain_stderr(item)
        self._timers()

    def _next_timeout(self, waiters: List[_Conn], clis: List[PooledCli]) -> float:
        now = time.monotonic()
        times = [conn.deadline - now for conn in waiters]
        times += [cli.last_used + self.caps.idle_seconds - now for cli in clis if cli.state in ("fresh", "parked")]
        if any(cli.pidfd is None for cli in clis):
            times.append(0.5)
        return min([5.0] + [max(0.0, t) for t in times])

    def _conn_readable(self, conn: _Conn) -> None:
        """The watcher: a lease's or a waiter's connection has something to read. Under the
        pool's lock from the read to the CLI's new state, so a request for the same plan sees
        the CLI either leased with its give-back unread (``_returning``) or being reset."""
        with self._lock:
            self._conn_readable_locked(conn)

    def _conn_readable_locked(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        messages: List[Dict[str, Any]] = []
        broken = not data
        if data:
            try:
                messages = conn.reader.feed(data)
            except protocol.ProtocolError as exc:
                logger.warning("a bad message on lease %s (pid %d): %s", conn.lease_id, conn.peer_pid, exc)
                broken = True
        for message in messages:
            if conn.cli is not None and message.get("op") == "return" and message.get("v") == protocol.VERSION:
                self._end_lease(conn, message)
                return
            broken = True  # anything else during a lease, or from a waiter, is a protocol error
        if not broken:
            return
        with self._lock:
            waiting = conn in self._waiters
            if waiting:
                self._waiters.remove(conn)
        if waiting:
            self._close_conn(conn)
            with self._lock:
                self._serve_waiters_locked()
        else:
            self._end_lease(conn, None)

    def _cli_exited(self, cli: PooledCli) -> None:
        code = cli.returncode()
        if code is None:
            return
        with self._lock:
            conn = cli.lease
            leased = cli.state == "leased" and conn is not None
        if leased:
            self._send(conn, {"event": "exited", "returncode": code})
            # the lease stays until its give-back or EOF; the CLI's slot is free now
        if cli.state != "resetting":  # a reset sees EOF and retires it itself
            self._retire(cli, f"it exited ({code})")

    def _drain_stderr(self, cli: PooledCli) -> None:
        """An idle CLI's stderr, dropped (a full pipe would block it). Under the pool's lock
        and only while nobody holds the CLI, so no leaseholder reads it at the same time."""
        with self._lock:
            if cli.state not in ("fresh", "parked") or cli.reaped_code is not None:
                return
            poller = select.poll()
            poller.register(cli.stderr_fd, select.POLLIN)
            if not poller.poll(0):
                return
            try:
                os.read(cli.stderr_fd, RECV_BYTES)
            except OSError:
                pass

    def _timers(self) -> None:
        now = time.monotonic()
        expired: List[_Conn] = []
        with self._lock:
            for conn in list(self._waiters):
                if conn.deadline <= now:
                    self._waiters.remove(conn)
                    expired.append(conn)
            idle = [cli for cli in self._clis if cli.state in ("fresh", "parked") and now - cli.last_used >= self.caps.idle_seconds]
            for cli in idle:
                self._retire_locked(cli, f"idle for {self.caps.idle_seconds:g}s")
        for conn in expired:
            self._count("busy")
            self._send(conn, protocol.error("busy", f"no CLI became free within the lease's timeout (max_clis={self.caps.max_clis})"))
            self._close_conn(conn)

    # ------------------------------------------------------------------ connections

    def _send(self, conn: _Conn, message: Dict[str, Any], fds: Optional[List[int]] = None) -> bool:
        """Write one message (the fds on its first byte), bounded by ``SEND_TIMEOUT``. False
        when the peer is gone or does not read."""
        try:
            data = protocol.encode(message)
            conn.sock.settimeout(SEND_TIMEOUT)
            if fds:
                sent = socket.send_fds(conn.sock, [data], fds)
                data = data[sent:]
            if data:
                conn.sock.sendall(data)
            return True
        except (OSError, protocol.ProtocolError, ValueError):
            return False

    def _close_conn(self, conn: _Conn) -> None:
        if conn.done:
            return
        conn.done = True
        try:
            conn.sock.close()
        except OSError:
            pass

    # ------------------------------------------------------------------ status

    def _count(self, name: str) -> None:
        with self._lock:
            self.counts[name] += 1

    def status(self) -> Dict[str, Any]:
        """The status answer: the CLIs (pid, plan id, cli path, cwd, state, RSS, runs, age), the
        caps, the waiters. No env value, no argv content but the CLI's path. Any thread."""
        now = time.monotonic()
        with self._lock:
            clis = list(self._clis)
            waiting = len(self._waiters)
            spawning = self._spawning
            counts = dict(self.counts)
        listed = [
            {"pid": cli.pid, "plan": cli.plan.plan_id, "cli": cli.plan.cli, "cwd": cli.plan.cwd, "state": cli.state,
             "rss_bytes": cli.rss(), "runs": cli.runs, "age_s": round(now - cli.started, 1)}
            for cli in clis
        ]  # fmt: skip
        caps = {"max_clis": self.caps.max_clis, "max_memory_mb": self.caps.max_memory_mb, "spares": self.caps.spares,
                "idle_seconds": self.caps.idle_seconds, "max_waiting": self.caps.max_waiting,
                "max_runs": self.caps.max_runs}  # fmt: skip
        return {"ok": True, "pid": os.getpid(), "socket": self.path, "clis": listed, "caps": caps, "waiting": waiting,
                "spawning": spawning, "counts": counts, "uptime_s": round(time.time() - self.started_at, 1)}

    def stats(self) -> Dict[str, int]:
        """For the ``claude_sync.pool.clis`` gauge: CLIs ``alive``/``parked``/``busy`` and
        requests ``queued``. Any thread."""
        with self._lock:
            states = [cli.state for cli in self._clis]
            return {"alive": len(states), "parked": sum(s in ("parked", "fresh") for s in states),
                    "busy": sum(s in ("leased", "resetting") for s in states), "queued": len(self._waiters)}  # fmt: skip


def configure_logging(level: int = logging.INFO) -> None:
    """One line per event on stderr: ``claude-sync serve: …``."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("claude-sync serve: %(asctime)s %(message)s", "%H:%M:%S"))
    log = redacted_logger("claude_sync.shared_pool")
    log.addHandler(handler)
    log.setLevel(level)
    log.propagate = False
