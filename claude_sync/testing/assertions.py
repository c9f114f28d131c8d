"""Small assertion helpers for the messages a run yields (no pytest needed).

::

    messages = list(query("2 + 2?", transport=cli.transport()))
    assert texts(messages) == ["4"]
    assert_result(messages, result="4", is_error=False)
    assert tool_uses(messages) == [("Bash", {"command": "ls"})]
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple

from .._wire.blocks import TextBlock, ToolUseBlock
from .._wire.messages import AssistantMessage, ResultMessage

__all__ = ["assert_result", "result_of", "texts", "tool_uses"]

_UNSET: Any = object()


def texts(messages: Iterable[Any]) -> List[str]:
    """The text of every ``TextBlock`` of every ``AssistantMessage``, in order."""

    return [
        block.text
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, TextBlock)
    ]


def tool_uses(messages: Iterable[Any]) -> List[Tuple[str, Dict[str, Any]]]:
    """``(name, input)`` of every ``ToolUseBlock`` the assistant sent, in order."""

    return [
        (block.name, dict(block.input))
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolUseBlock)
    ]


def result_of(messages: Iterable[Any]) -> Any:
    """The last ``ResultMessage``. Raises ``AssertionError`` when there is none."""
    found: Optional[Any] = None
    kinds: List[str] = []
    for message in messages:
        kinds.append(type(message).__name__)
        if isinstance(message, ResultMessage):
            found = message
    if found is None:
        raise AssertionError(f"no ResultMessage among the {len(kinds)} messages: {kinds}")
    return found


def assert_result(messages: Iterable[Any], *, result: Any = _UNSET, is_error: Any = _UNSET,
                  subtype: Any = _UNSET, **fields: Any) -> Any:
    """Check fields of the last ``ResultMessage`` (only those given); return it.

    Raises ``AssertionError`` naming every field that differs.
    """
    message = result_of(messages)
    wanted = dict(fields)
    for name, value in (("result", result), ("is_error", is_error), ("subtype", subtype)):
        if value is not _UNSET:
            wanted[name] = value
    problems = [
        f"{name}: expected {value!r}, got {getattr(message, name, '<missing>')!r}"
        for name, value in wanted.items()
        if getattr(message, name, _UNSET) != value
    ]
    if problems:
        raise AssertionError("ResultMessage differs: " + "; ".join(problems))
    return message
