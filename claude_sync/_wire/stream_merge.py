"""The assistant-message merger as a pure step over a list of taken-but-undelivered items.

``AssistantMessageMerger`` keeps the block lines it holds inside itself, so a consumer that
is interrupted (Ctrl-C, a receive timeout, leaving the loop) between taking a line and
yielding the merged message cannot give those lines back reliably. ``next_merged`` keeps no
state of its own: the consumer appends every item it takes to a plain list, asks what is
ready, and removes exactly the items it yields with one ``del held[i:j]`` right before the
``yield``. Whatever is still in the list when the consumer stops goes back to the session's
queue, in order — nothing is lost and nothing is delivered twice.

The rules are the merger's (see ``AssistantMessageMerger``): consecutive block lines with one
``message_id`` become one message; progress messages pass through ahead of the held lines;
a ``message_stop`` stream event ends the held message (after the event); anything else ends
it and follows it.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from .merger import PROGRESS_TYPES, merge_assistant_lines
from .messages import AssistantMessage, StreamEvent

__all__ = ["Ready", "extends_head", "next_merged"]


class Ready(NamedTuple):
    """The next message to deliver: it stands for ``held[start:start + length]``."""

    start: int
    length: int
    message: Any
    closed: int
    """How many block lines at the head of ``held`` a ``message_stop`` has closed (0: none):
    pass it back as ``closed`` so they come out without waiting for the next line, and a
    later line with the same ``message_id`` starts a new message."""


def next_merged(held: List[Any], *, at_end: bool = False, closed: int = 0) -> Optional[Ready]:
    """What can be delivered from ``held`` (taken items, in stream order), or None.

    None means: the block lines at the head may still grow, take another item first (or call
    again with ``at_end=True`` at the end of the stream). ``closed`` is the previous
    ``Ready.closed``. ``held`` is not modified. Pure.
    """
    if not held:
        return None
    head = held[0]
    if not isinstance(head, AssistantMessage) or head.message_id is None:
        return Ready(0, 1, head, 0)
    count = 1
    for index in range(1, len(held)):
        item = held[index]
        if isinstance(item, AssistantMessage):
            if item.message_id == head.message_id and (not closed or count < closed):
                count += 1
                continue
            break  # another message starts: the held one is whole
        if isinstance(item, PROGRESS_TYPES):
            ends = isinstance(item, StreamEvent) and _is_stop_of(item, held[count - 1])
            return Ready(index, 1, item, closed or (count if ends else 0))
        break  # any other message ends the held one and follows it
    else:
        if not (at_end or closed):
            return None
    return Ready(0, count, merge_assistant_lines(held[:count]), 0)


def _is_stop_of(event: StreamEvent, line: AssistantMessage) -> bool:
    return event.event.get("type") == "message_stop" and event.parent_tool_use_id == line.parent_tool_use_id


def extends_head(held: List[Any], closed: int) -> bool:
    """True when the item just appended to ``held`` only adds a block line to the message
    held at its head, so nothing can be delivered yet (spares ``next_merged`` its scan on
    every line of a long message). Valid because, between deliveries, ``held`` holds only
    the block lines of one message. Pure."""
    if closed or len(held) < 2:
        return False
    head, last = held[0], held[-1]
    return (
        last.__class__ is AssistantMessage
        and head.__class__ is AssistantMessage
        and head.message_id is not None
        and last.message_id == head.message_id
    )
