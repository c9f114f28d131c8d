"""Tool calls followed through a run's stream (pure: stream items in, events out).

A call starts with its ``tool_use`` (or ``server_tool_use``) block in an assistant line and
ends with the ``tool_result`` (or server tool result) block that names its id. A call in a
subagent carries the ``Agent`` call it ran in (the line's ``parent_tool_use_id``).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional

from .._wire.blocks import ServerToolResultBlock, ServerToolUseBlock, ToolResultBlock, ToolUseBlock
from .._wire.messages import AssistantMessage, UserMessage

__all__ = ["ToolCallEnded", "ToolCallStarted", "ToolCalls"]


class ToolCallStarted(NamedTuple):
    """The model asked for tool ``name``; ``agent``: the ``Agent`` call it ran in (None: main)."""

    call_id: str
    name: str
    agent: Optional[str]


class ToolCallEnded(NamedTuple):
    """The call ``call_id`` has its result (``is_error``: the tool failed or was denied)."""

    call_id: str
    is_error: bool


class ToolCalls:
    """The calls of one run still waiting for their result (one thread feeds it)."""

    def __init__(self) -> None:
        self.open: Dict[str, ToolCallStarted] = {}

    def observe(self, item: Any) -> List[Any]:
        """The ``ToolCallStarted`` / ``ToolCallEnded`` events ``item`` brings, in order. A
        result for a call never started, and a second start of an open id, bring none."""
        if isinstance(item, AssistantMessage):
            return self._blocks(item.content, item.parent_tool_use_id)
        if isinstance(item, UserMessage) and isinstance(item.content, list):
            return self._blocks(item.content, item.parent_tool_use_id)
        return []

    def _blocks(self, blocks: List[Any], agent: Optional[str]) -> List[Any]:
        events: List[Any] = []
        for block in blocks:
            if isinstance(block, (ToolUseBlock, ServerToolUseBlock)) and isinstance(block.id, str):
                if block.id not in self.open:
                    started = ToolCallStarted(block.id, str(block.name), agent if isinstance(agent, str) else None)
                    self.open[block.id] = started
                    events.append(started)
            elif isinstance(block, (ToolResultBlock, ServerToolResultBlock)):
                if self.open.pop(block.tool_use_id, None) is not None:
                    events.append(ToolCallEnded(block.tool_use_id, bool(getattr(block, "is_error", False))))
        return events
