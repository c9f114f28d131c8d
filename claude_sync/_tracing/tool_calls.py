"""Tool calls followed through a run's stream (pure: stream items in, events out).

A call starts with its ``tool_use`` (or ``server_tool_use``) block in an assistant line and
ends with the ``tool_result`` (or server tool result) block that names its id. A call in a
subagent carries the ``Agent`` call it ran in (the line's ``parent_tool_use_id``).

A background ``Agent`` call (``run_in_background``) gets its ``tool_result`` ("launched") at
once, while its subagent works on: the CLI (2.1.197, 2.1.332, 2.1.333) sends ``task_started``
(``task_type`` ``local_agent``, ``tool_use_id`` the call's id) before that result, and
``task_notification`` (or a terminal ``task_updated``) when the subagent is done. Such a call
ends at its task's end (``ToolCallEnded.background``), so the subagent's calls fall inside it.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Set

from .._wire.blocks import ServerToolResultBlock, ServerToolUseBlock, ToolResultBlock, ToolUseBlock
from .._wire.messages import AssistantMessage, UserMessage
from .._wire.run_end import AGENT_TASK_TYPES, TERMINAL_TASK_STATUSES
from .._wire.system_messages import TaskNotificationMessage, TaskStartedMessage, TaskUpdatedMessage

__all__ = ["ToolCallEnded", "ToolCallStarted", "ToolCalls"]


class ToolCallStarted(NamedTuple):
    """The model asked for tool ``name``; ``agent``: the ``Agent`` call it ran in (None: main)."""

    call_id: str
    name: str
    agent: Optional[str]


class ToolCallEnded(NamedTuple):
    """The call ``call_id`` has its result (``is_error``: the tool failed or was denied);
    ``background``: an agent call whose task outlived its result ended with that task."""

    call_id: str
    is_error: bool
    background: bool = False


class ToolCalls:
    """The calls of one run still waiting for their result (one thread feeds it)."""

    def __init__(self) -> None:
        self.open: Dict[str, ToolCallStarted] = {}
        self.agent_tasks: Set[str] = set()
        """Open calls whose agent task runs (``task_started`` seen, its end not yet)."""
        self.waiting: Dict[str, bool] = {}
        """Calls whose result came while their task ran: call id → the result's ``is_error``."""
        self.task_calls: Dict[str, str] = {}
        """Task id → the call that started it (``task_updated`` names only the task)."""

    def observe(self, item: Any) -> List[Any]:
        """The ``ToolCallStarted`` / ``ToolCallEnded`` events ``item`` brings, in order. A
        result for a call never started, and a second start of an open id, bring none."""
        if isinstance(item, AssistantMessage):
            return self._blocks(item.content, item.parent_tool_use_id)
        if isinstance(item, UserMessage) and isinstance(item.content, list):
            return self._blocks(item.content, item.parent_tool_use_id)
        if isinstance(item, TaskStartedMessage):
            if item.tool_use_id in self.open and item.task_type in AGENT_TASK_TYPES:
                self.agent_tasks.add(item.tool_use_id)
                if isinstance(item.task_id, str):
                    self.task_calls[item.task_id] = item.tool_use_id
            return []
        if isinstance(item, TaskNotificationMessage):
            return self._task_ended(item.tool_use_id, item.status)
        if isinstance(item, TaskUpdatedMessage) and item.status in TERMINAL_TASK_STATUSES:
            call_id = self.task_calls.get(item.task_id) if isinstance(item.task_id, str) else None
            return self._task_ended(call_id, item.status)
        return []

    def _task_ended(self, call_id: Any, status: Any) -> List[Any]:
        if not isinstance(call_id, str):
            return []
        self.agent_tasks.discard(call_id)
        if call_id not in self.waiting:
            return []
        is_error = self.waiting.pop(call_id) or status in ("failed", "killed")
        self.open.pop(call_id, None)
        return [ToolCallEnded(call_id, is_error, background=True)]

    def _blocks(self, blocks: List[Any], agent: Optional[str]) -> List[Any]:
        events: List[Any] = []
        for block in blocks:
            if isinstance(block, (ToolUseBlock, ServerToolUseBlock)) and isinstance(block.id, str):
                if block.id not in self.open:
                    started = ToolCallStarted(block.id, str(block.name), agent if isinstance(agent, str) else None)
                    self.open[block.id] = started
                    events.append(started)
            elif isinstance(block, (ToolResultBlock, ServerToolResultBlock)):
                is_error = bool(getattr(block, "is_error", False))
                if block.tool_use_id in self.agent_tasks and block.tool_use_id not in self.waiting:
                    self.waiting[block.tool_use_id] = is_error  # launched: ends with its task
                elif block.tool_use_id not in self.waiting and self.open.pop(block.tool_use_id, None) is not None:
                    events.append(ToolCallEnded(block.tool_use_id, is_error))
        return events
