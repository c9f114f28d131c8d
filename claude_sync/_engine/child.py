"""``ChildProcess``: wait for, signal and reap one ``Popen`` child without ever signalling a
process that is not ours.

The rule. A process group is signalled only while its leader — our child — is known not to be
reaped. An unreaped child (running, or a zombie) pins its PID, and a PID in use as a
process-group id is not handed out again, so ``killpg(pid)`` then reaches only the CLI's own
group. Once the child is reaped the PID may belong to a stranger's group. Hence:

- every reap goes through ``_settle``, which first sends the group its last SIGKILL (tools the
  CLI left behind) while the zombie still pins the id, then reaps; nothing is signalled after;
- the exit is looked at without reaping (``waitid(WNOWAIT)``) wherever the OS allows;
- a child reaped by somebody else (a host that ignores SIGCHLD, gevent's child watcher) is
  never signalled at all (its stragglers are then not killed either);
- where Linux has pidfds (5.3+, Python 3.9+), a timed wait sleeps on the child's pidfd
  (readable once it exits) instead of polling.

Any thread may call the methods; one lock serialises looking, signalling and reaping.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:  # pragma: no cover
    from subprocess import Popen

__all__ = ["ChildProcess"]

_POSIX = os.name == "posix"
_CAN_PEEK = _POSIX and hasattr(os, "waitid") and hasattr(os, "WNOWAIT")
"""Whether a child's exit can be seen without reaping it (``waitid(WNOWAIT)``)."""
_HAS_PIDFD = hasattr(os, "pidfd_open")


class ChildProcess:
    """One child process (``proc``), waited for, signalled and reaped by the rule above."""

    def __init__(self, proc: Popen[Any]) -> None:
        self._proc = proc
        self._lock = threading.Lock()
        self._foreign_reaper = False
        self._pidfd: Optional[int] = None
        if _HAS_PIDFD and proc.returncode is None:
            try:
                self._pidfd = os.pidfd_open(proc.pid)  # type: ignore[attr-defined,unused-ignore]
            except OSError:  # a kernel before 5.3, a seccomp filter, a child already reaped
                self._pidfd = None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def poll(self) -> Optional[int]:
        """The return code if the child has exited (it is then reaped, its group cleared),
        else None. Never blocks."""
        with self._lock:
            if self._proc.returncode is not None:
                return self._proc.returncode
            state = self._leader_state()
            if state == "running":
                return None
            return self._settle(state)

    def wait(self, timeout: Optional[float]) -> Optional[int]:
        """Wait up to ``timeout`` seconds (None: no limit) for the exit; the return code, or
        None if the child is still running. Reaps like ``poll``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while True:
            code = self.poll()
            if code is not None:
                return code
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            if self._sleep_on_pidfd(remaining):
                continue
            delay = min(delay * 2, 0.05)
            time.sleep(delay if remaining is None else min(delay, remaining))

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the child's process group (POSIX; the child alone elsewhere), only
        while the child is ours: running, or exited but not reaped."""
        with self._lock:
            if self._proc.returncode is not None:
                return
            if not _POSIX:  # pragma: no cover - Windows
                self._proc.send_signal(sig)
                return
            if self._leader_state() == "gone":
                self._proc.poll()  # record the foreign reap; signal nothing
                return
            try:
                os.killpg(self._proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        """Release the pidfd (idempotent). Waits after this poll instead of sleeping on it."""
        with self._lock:
            fd, self._pidfd = self._pidfd, None
        if fd is not None:
            os.close(fd)

    # -- under the lock ----------------------------------------------------------------

    def _leader_state(self) -> str:
        """``"running"``, ``"exited"`` (a zombie we have not reaped) or ``"gone"`` (reaped by
        somebody else, or no way to look without reaping)."""
        if not _CAN_PEEK:
            return "gone" if self._proc.poll() is not None else "running"
        try:
            info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return "gone"
        return "running" if info is None else "exited"

    def _settle(self, state: str) -> Optional[int]:
        """The leader has exited: SIGKILL what is left of its group while the zombie still
        pins the id, then reap. Returns the code (None: reaped elsewhere, not known yet)."""
        if state == "exited" and _POSIX:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)  # tools the CLI left behind
            except (ProcessLookupError, PermissionError):
                pass
        code = self._proc.poll()
        if code is None and state == "exited":  # pragma: no cover - a zombie always reaps
            code = self._proc.wait()
        if code is None:  # reaped by another party whose Popen has not heard yet (gevent)
            self._foreign_reaper = True
        return code

    def _sleep_on_pidfd(self, remaining: Optional[float]) -> bool:
        """Block until the child exits or ``remaining`` passes; False without a usable pidfd."""
        fd = self._pidfd
        if fd is None or self._foreign_reaper:  # a reaped child's pidfd stays readable
            return False

        try:
            select.select([fd], [], [], 1.0 if remaining is None else min(remaining, 1.0))
        except (OSError, ValueError):  # closed by close() meanwhile: poll again
            pass
        return True
