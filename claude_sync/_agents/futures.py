"""``RunFuture``: the ``concurrent.futures.Future`` that ``AgentPool.submit`` returns.

It differs from the stdlib's in one way: ``cancel()`` also stops a *running* run (the stdlib
refuses to cancel a running future). Cancelling marks the future cancelled and tells its
waiters (``wait``, ``as_completed``) at once, then closes the run's CLI. This reaches into
``concurrent.futures._base`` (the state names, ``_condition``, ``_waiters``,
``_invoke_callbacks``), unchanged from Python 3.9 through 3.13.
"""

from __future__ import annotations

from concurrent.futures import Future, InvalidStateError
from concurrent.futures import _base as futures_base
from typing import TYPE_CHECKING, Any, Callable, Optional

from .run import RunResult, T

if TYPE_CHECKING:  # pragma: no cover
    from .reuse import CliSlot

__all__ = ["RunFuture", "settle"]


class RunFuture(Future[RunResult[T]]):
    """A ``concurrent.futures.Future`` whose ``cancel()`` also stops a *running* run
    (``RunFuture[Invoice]`` for a run with ``output_format=Invoice``).

    The stdlib refuses to cancel a running future; here cancelling one closes its CLI
    (bounded) and marks the future cancelled — waiters (``wait``, ``as_completed``) are
    told as they would be for a pending one.
    """

    def __init__(self) -> None:
        super().__init__()
        self._stop_run: Optional[Callable[[], None]] = None
        self.cli_pid: Optional[int] = None
        """The pid of the CLI serving this run (set when it has one; the last one if the
        run had to move to a fresh CLI)."""

    def attach(self, slot: CliSlot) -> bool:
        """Worker: ``slot`` serves this run (cancel closes it); False if already cancelled."""
        with self._condition:
            if self._state in (futures_base.CANCELLED, futures_base.CANCELLED_AND_NOTIFIED):
                return False
            self._stop_run = slot.close
            return True

    def start(self) -> bool:
        """Worker: move to running; False if cancelled meanwhile (waiters already told)."""
        with self._condition:
            if self._state == futures_base.CANCELLED_AND_NOTIFIED:
                return False
            return self.set_running_or_notify_cancel()

    def note_pid(self, slot: CliSlot) -> None:
        self.cli_pid = slot.pid

    def cancel(self) -> bool:
        """Cancel (pending) or stop and cancel (running); False once finished. Any thread."""
        with self._condition:  # an RLock: the stdlib methods below take it again
            if self._state != futures_base.RUNNING:
                if not super().cancel():
                    return False
                if self._state == futures_base.CANCELLED:  # tell wait()/as_completed now,
                    self.set_running_or_notify_cancel()  # not when a worker gets to it
                return True
            self._state = futures_base.CANCELLED_AND_NOTIFIED
            for waiter in self._waiters:
                waiter.add_cancelled(self)
            self._condition.notify_all()
            stop = self._stop_run
        if stop is not None:
            stop()
        self._invoke_callbacks()  # type: ignore[attr-defined]  # private in the stubs, present 3.9-3.13
        return True


def settle(
    future: RunFuture[Any], *, result: Optional[RunResult[Any]] = None, exc: Optional[BaseException] = None
) -> None:
    """Worker: finish the future unless ``cancel()`` got there first."""
    try:
        if exc is not None:
            future.set_exception(exc)
        elif result is not None:
            future.set_result(result)
    except InvalidStateError:
        pass
