"""``ProcessExit``: how a CLI process ended, as ``on_process_exit`` is told (pure; the watch
that calls it is ``_engine.exit_watch``)."""

from __future__ import annotations

from typing import Callable, Optional

from .._wire.record import FrozenRecord, frozen_record

__all__ = ["CLOSE_RUNGS", "OnProcessExit", "ProcessExit", "exit_report"]

CLOSE_RUNGS = ("eof", "sigterm", "sigkill")
"""The rungs of the close ladder at which ``close()`` ended the process."""


@frozen_record
class ProcessExit(FrozenRecord):
    """How a CLI process ended (``on_process_exit``'s argument).

    Attributes:
        pid: The process id it had.
        exit_code: Its exit status; None when a signal ended it.
        signal: The name of the signal that ended it (``"SIGKILL"`` …), else None.
        closed_by: None when it ended on its own; when ``close()`` ended it, the rung of the
            close ladder that did: ``"eof"`` (it exited on stdin's end), ``"sigterm"``,
            ``"sigkill"``.
        stderr_tail: The last lines it wrote to stderr (empty if none).
    """

    pid: int
    exit_code: Optional[int]
    signal: Optional[str]
    closed_by: Optional[str]
    stderr_tail: str


OnProcessExit = Callable[[ProcessExit], None]
"""The type of ``ClaudeAgentOptions.on_process_exit``."""


def exit_report(pid: int, returncode: int, rung: Optional[str], stderr_tail: str, signal_name: str = "") -> ProcessExit:
    """The report of a process reaped with ``returncode`` (negative: killed by signal
    ``signal_name``), after the close ladder's ``rung`` (None, or ``"exited"`` when it ended
    on its own)."""
    return ProcessExit(
        pid=pid,
        exit_code=returncode if returncode >= 0 else None,
        signal=(signal_name or f"signal {-returncode}") if returncode < 0 else None,
        closed_by=rung if rung in CLOSE_RUNGS else None,
        stderr_tail=stderr_tail,
    )
