"""One CLI the shared pool owns: spawned for a plan, lent, reset with ``/clear``, killed.

The CLI is spawned through ``_engine.host_death.popen`` (the kernel kills it when the pool
dies, however it dies) in its own process group, with pipes for stdin, stdout and stderr whose
pool ends are close-on-exec. File arguments are materialized as the engine does
(``_engine.spawn.materialize_argv``): memory files inherited as ``/dev/fd/N``, or private temp
files the pool removes when the CLI retires.

``kill`` ends it for good: SIGKILL to its process group while the CLI is not reaped yet (a
zombie's pid cannot be reused, so the signal can only reach its own group), then the reap, then
the pool's pipe ends, its pidfd and its temp files closed/removed. Never a signal after the reap.

``reset`` (a handler thread, the CLI parked-to-be and lent to nobody): the ``/clear`` user
frame, the answer read up to its ``result`` (bounded), checked by ``reuse.reset_answer_problem``.
Any control request or response from the CLI, a line that is not JSON, a timeout, EOF → failed.

Threads: a ``PooledCli``'s state is changed under the pool's lock; ``kill``, ``returncode`` and
the watcher's reap hold the CLI's own lock, so at most one thread signals or reaps it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import threading
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from .._agents.reuse import RESET_PROMPT, init_fingerprint, reset_answer_problem
from .._engine.host_death import popen
from .._engine.spawn import materialize_argv
from .._engine.tempfiles import remove_private_files
from .._wire.errors import MessageParseError
from .._wire.parse import parse_message
from .._wire.protocol import StreamItem, user_message_frame
from .protocol import WirePlan

__all__ = ["PooledCli", "rss_bytes", "spawn_cli"]

RESET_READ_BYTES = 65536
MAX_RESET_BYTES = 16 * 1024 * 1024
"""The most a ``/clear`` answer may hold before the CLI is judged broken."""
REAP_TIMEOUT = 5.0
"""Bound on the reap after SIGKILL (the kernel ends a killed process at once)."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class PooledCli:
    """One CLI and what the pool knows about it (see the module docstring for who may touch
    what)."""

    def __init__(self, plan: WirePlan, process: "subprocess.Popen[bytes]", temp_files: List[str]) -> None:
        self.plan = plan
        self.process = process
        self.pid = process.pid
        self.temp_files = temp_files
        self.lock = threading.Lock()
        self.pidfd: Optional[int] = None
        if hasattr(os, "pidfd_open"):
            try:
                self.pidfd = os.pidfd_open(process.pid)
                os.set_inheritable(self.pidfd, False)
            except OSError:
                self.pidfd = None
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self.stdin_fd = process.stdin.fileno()
        self.stdout_fd = process.stdout.fileno()
        self.stderr_fd = process.stderr.fileno()
        self.state = "fresh"  # fresh | leased | resetting | parked | dead
        self.runs = 0
        self.cost_before = 0.0
        self.usage_before: Optional[Dict[str, Any]] = None
        self.baseline: Optional[Dict[str, Any]] = None
        self.session_ids: List[str] = []
        self.prefix = b""
        self.initialize_answer: Optional[Dict[str, Any]] = None
        """The CLI's answer to its ``initialize``, given back with it; kept only once a reset
        passed (``server._reset``), handed to the next leaseholder (it writes none then)."""
        self.started = time.monotonic()
        self.last_used = self.started
        self.lease: Any = None  # the lease's connection record while leased
        self.reaped_code: Optional[int] = None

    def __repr__(self) -> str:
        return f"PooledCli(pid={self.pid}, plan={self.plan.plan_id}, state={self.state})"

    def returncode(self) -> Optional[int]:
        """The exit status once the CLI ended (reaped here, its group killed first), else None.
        Any thread."""
        with self.lock:
            if self.reaped_code is not None:
                return self.reaped_code
            if not _exited(self.pidfd, self.process):
                return None
            _kill_group(self.pid)  # the leader is a zombie: its group's pid is still its own
            self.reaped_code = self.process.wait()
            return self.reaped_code

    def kill(self) -> Optional[int]:
        """SIGKILL the CLI's process group, reap it, close the pool's ends and remove its temp
        files. Idempotent; any thread; never raises. The exit status, or None when the reap
        overran ``REAP_TIMEOUT`` (then the OS reaps it when the pool exits)."""
        with self.lock:
            if self.reaped_code is None:
                _kill_group(self.pid)
                try:
                    self.reaped_code = self.process.wait(REAP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass
            code = self.reaped_code
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            if self.pidfd is not None:
                os.close(self.pidfd)
                self.pidfd = None
            files, self.temp_files = self.temp_files, []
        remove_private_files(files)
        return code

    def rss(self) -> int:
        """Bytes resident: the CLI and its descendants (``/proc``); 0 once gone."""
        return rss_bytes(self.pid) if self.reaped_code is None else 0

    def reset(self, leftover: bytes, timeout: float) -> Optional[str]:
        """Write ``/clear`` and read the answer (a handler thread). Returns why the reset
        failed, or None: then ``cost_before``/``usage_before``/``prefix``/``session_ids``/
        ``baseline`` describe the clean CLI. Never raises."""
        try:
            answer, rest = self._clear(leftover, time.monotonic() + timeout)
        except _ResetFailed as exc:
            return str(exc)
        except OSError as exc:
            return f"the CLI's pipes broke during /clear: {exc.strerror or exc}"
        baseline = self.baseline if self.baseline is not None else init_fingerprint(answer)
        problem = reset_answer_problem(answer, baseline, self.session_ids)
        if problem is not None:
            return problem
        result = answer[-1]
        self.baseline = baseline
        self.session_ids.append(getattr(result, "session_id", ""))
        self.cost_before = getattr(result, "total_cost_usd", None) or 0.0
        usage = getattr(result, "model_usage", None)
        self.usage_before = usage if isinstance(usage, dict) else {}
        self.prefix = rest
        return None

    def _clear(self, leftover: bytes, deadline: float) -> Tuple[List[StreamItem], bytes]:
        frame = (json.dumps(user_message_frame(RESET_PROMPT)) + "\n").encode("utf-8")
        _write_all(self.stdin_fd, frame, deadline)
        buffer = bytearray(leftover)
        answer: List[StreamItem] = []
        while True:
            end = buffer.find(b"\n")
            while end >= 0:
                line = bytes(buffer[:end]).strip()
                del buffer[: end + 1]
                if line:
                    item = _parse_line(line)
                    if item is not None:
                        answer.append(item)
                        if getattr(item, "type", None) == "result":
                            return answer, bytes(buffer)
                end = buffer.find(b"\n")
            if len(buffer) > MAX_RESET_BYTES:
                raise _ResetFailed(f"/clear's answer is over {MAX_RESET_BYTES} bytes")
            chunk = _read_some(self.stdout_fd, deadline)
            if not chunk:
                raise _ResetFailed("the CLI closed its stdout during /clear (it exited?)")
            buffer += chunk


class _ResetFailed(Exception):
    pass


def _parse_line(line: bytes) -> Optional[StreamItem]:
    try:
        obj = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _ResetFailed("the CLI wrote a line that is not JSON during /clear") from None
    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind in ("control_request", "control_response", "control_cancel_request"):
        raise _ResetFailed(f"the CLI sent a {kind} during /clear (a callback the pool cannot answer)")
    if kind == "keep_alive":
        return None
    try:
        return parse_message(obj)
    except MessageParseError:
        raise _ResetFailed(f"the CLI wrote a {kind!r} line of an unknown shape during /clear") from None


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            raise _ResetFailed("the CLI did not read /clear in time")
        view = view[os.write(fd, view) :]


def _read_some(fd: int, deadline: float) -> bytes:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    left = deadline - time.monotonic()
    if left <= 0 or not poller.poll(left * 1000):
        raise _ResetFailed("the CLI did not answer /clear in time")
    return os.read(fd, RESET_READ_BYTES)


def _exited(pidfd: Optional[int], process: "subprocess.Popen[bytes]") -> bool:
    if pidfd is not None:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(0))
    try:  # no pidfd: peek without reaping
        info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(pid: int) -> None:
    """SIGKILL the group ``pid`` leads. Only called while ``pid`` is not reaped."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def spawn_cli(plan: WirePlan) -> PooledCli:
    """Start a CLI for ``plan`` (any thread): its argv materialized, its whole env, its cwd, its
    own process group. Raises ``OSError`` (nothing is left open or on disk then)."""
    temp_files: List[str] = []
    argv, fds = materialize_argv(list(plan.argv), temp_files)
    try:
        process = popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=plan.env_dict(),
            cwd=plan.cwd,
            pass_fds=fds,
            start_new_session=True,
            bufsize=0,
        )
    except BaseException:
        remove_private_files(temp_files)
        raise
    finally:
        for fd in fds:
            os.close(fd)
    return PooledCli(plan, process, temp_files)


def rss_bytes(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (``/proc/<pid>/task/*/children``); 0 for
    what cannot be read. Any thread."""
    total = 0
    seen: Set[int] = set()
    todo = [pid]
    while todo and len(seen) < 10_000:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children", "rb") as handle:
                    todo.extend(int(child) for child in handle.read().split())
            except (OSError, ValueError):
                continue
    return total
