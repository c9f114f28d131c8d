"""When a one-shot run that the CLI may still call back is over (pure: no threads, no clocks).

A ``result`` ends a turn, not necessarily the run. A background agent that finishes wakes
the CLI for another turn, and that turn's hooks, permission prompts and SDK MCP calls need
stdin: closed too early, the CLI cannot ask (2.1.197 logs "Stream closed", 2.1.330 cancels
the tool). So a run whose options the CLI calls back (``calls_back``: hooks, ``can_use_tool``
or ``deny_all_permissions``, in-process MCP servers) ends on the CLI's own signal, as the
official SDK's does:

* the CLI reports ``session_state_changed`` (CLI 2.1.330+, because the session sets
  ``CLAUDE_CODE_SDK_READS_SESSION_STATE``): the run ends at ``idle`` after a result;
  ``running`` / ``requires_action`` reopen it (a woken turn);
* a CLI that reports no state (2.1.197): the run ends at a result, unless an agent task the
  CLI started (``task_started`` of type ``local_agent`` / ``local_workflow``) has not ended
  (``task_notification``, or ``task_updated`` with a terminal status): then at the first
  result after it ended. (From such a CLI an agent that ended *before* the result still wakes
  a turn nothing can announce; no ledger can close that gap.)
* bounded: between turns, still ``running`` ``ceiling`` seconds after a result with no new
  turn, no tracked task and no request being answered, the run ends anyway (the CLI's own
  ``CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS``, 10 minutes by default, 0 for none).

A run the CLI cannot call back ends at its result as before (``TurnLedger``). The session
updates this on the reader thread under its lock; the consumer asks ``due(now)``.
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Set

from .system_messages import (
    SessionStateChangedMessage,
    TaskNotificationMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
)

__all__ = ["AGENT_TASK_TYPES", "CEILING_ENV", "DEFAULT_CEILING", "RunEnd", "TERMINAL_TASK_STATUSES", "run_end_ceiling"]

AGENT_TASK_TYPES = frozenset(("local_agent", "local_workflow"))
"""Task types whose end wakes the parent for another turn (background shells are not: one may
run forever, and holding stdin for it would hold the run forever)."""

TERMINAL_TASK_STATUSES = frozenset(("completed", "failed", "stopped", "killed"))
"""As ``claude_sync.TERMINAL_TASK_STATUSES`` (kept here: that module is loaded lazily)."""

CEILING_ENV = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS"
DEFAULT_CEILING = 600.0
"""Seconds: the CLI's default background-wait ceiling."""
_MAX_CEILING_MS = 2**31 - 1


def run_end_ceiling(options_env: Mapping[str, str], environ: Optional[Mapping[str, str]] = None) -> Optional[float]:
    """The ceiling in seconds as the CLI will read ``CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS``:
    ``options_env`` over ``environ`` (default ``os.environ``); None for ``0`` (no limit); the
    default for a value that is not a plain non-negative integer."""
    inherited = os.environ if environ is None else environ
    raw = options_env.get(CEILING_ENV, inherited.get(CEILING_ENV))
    if raw is None:
        return DEFAULT_CEILING
    try:
        value = int(raw)
    except (TypeError, ValueError):
        return DEFAULT_CEILING
    if value < 0:
        return DEFAULT_CEILING
    return None if value == 0 else min(value, _MAX_CEILING_MS) / 1000.0


class RunEnd:
    """The run-end state of one session (see the module docstring). Not thread-safe."""

    __slots__ = ("calls_back", "ceiling", "state", "result_seen", "tasks", "ended", "turn_running", "ceiling_at")

    def __init__(self, calls_back: bool, ceiling: Optional[float] = DEFAULT_CEILING) -> None:
        self.calls_back = calls_back
        self.ceiling = ceiling
        self.state: Optional[str] = None
        """The CLI's latest ``session_state_changed`` state; None while it reports none."""
        self.result_seen = False
        self.tasks: Set[str] = set()
        """Agent tasks started and not ended."""
        self.ended = False
        self.turn_running = False
        self.ceiling_at: Optional[float] = None

    # ------------------------------------------------------------------ events

    def user_message_sent(self) -> None:
        """A prompt written owes a run of its own."""
        self.result_seen = False
        self.ended = False
        self.ceiling_at = None

    def result(self, now: float) -> None:
        self.result_seen = True
        self.turn_running = False
        if not self.calls_back or self.state in (None, "idle"):
            self._end_unless_tasks()
        elif self.state != "requires_action":
            self._arm(now)

    def state_changed(self, state: Optional[str], now: float) -> None:
        self.state = state
        if state == "idle":
            if self.result_seen:
                self._end_unless_tasks()
            return
        self.ended = False  # work the CLI took up after the run ended (a woken turn)
        if state == "requires_action":
            self.ceiling_at = None  # a request is being answered: stdin must outlast it
        else:
            self._rearm_between_turns(now)

    def task_frame(self, subtype: str, task_id: Optional[str], task_type: Optional[str], status: Optional[str], now: float) -> None:
        """A ``task_started`` / ``task_notification`` / ``task_updated`` frame."""
        if not task_id:
            return
        had_tasks = bool(self.tasks)
        if subtype == "task_started":
            if task_type in AGENT_TASK_TYPES:
                self.tasks.add(task_id)
        elif subtype == "task_notification" or status in TERMINAL_TASK_STATUSES:
            self.tasks.discard(task_id)
        if had_tasks and not self.tasks:
            self._rearm_between_turns(now)

    def frame(self, item: object, now: float) -> None:
        """Any frame the reader hands over: a ``session_state_changed``, a task frame, or (a
        top-level assistant message or stream event) turn activity."""
        if isinstance(item, SessionStateChangedMessage):
            self.state_changed(item.state, now)
        elif isinstance(item, TaskStartedMessage):
            self.task_frame(item.subtype, item.task_id, item.task_type, None, now)
        elif isinstance(item, (TaskNotificationMessage, TaskUpdatedMessage)):
            self.task_frame(item.subtype, item.task_id, None, item.status, now)
        else:
            self.turn_activity()

    @property
    def watching_turns(self) -> bool:
        """True between a result and the next turn activity, when the CLI may call back."""
        return self.calls_back and self.result_seen and not self.turn_running

    def turn_activity(self) -> None:
        """A top-level assistant message or stream event: a turn is under way."""
        self.turn_running = True
        self.ended = False
        self.ceiling_at = None

    # ------------------------------------------------------------------ the question

    def due(self, now: float) -> bool:
        """True once the run is over (stdin may close): ended, or the ceiling passed with no
        tracked task."""
        if not self.ended and self.ceiling_at is not None and now >= self.ceiling_at:
            self.ceiling_at = None
            if not self.tasks:
                self.ended = True
        return self.ended

    # ------------------------------------------------------------------ inside

    def _end_unless_tasks(self) -> None:
        if not self.tasks:
            self.ended = True
            self.ceiling_at = None

    def _arm(self, now: float) -> None:
        if self.ceiling is None or self.ended or self.turn_running or not self.calls_back:
            return
        self.ceiling_at = now + self.ceiling

    def _rearm_between_turns(self, now: float) -> None:
        if self.result_seen and self.state not in (None, "idle", "requires_action"):
            self._arm(now)
