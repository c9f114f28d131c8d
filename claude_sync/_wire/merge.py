"""Re-assembling whole assistant messages from the CLI's one-line-per-block stream (pure).

The CLI writes one ``assistant`` line per content block; the lines of one message share its
``message_id``. The rules, in one place (``next_merged``):

* consecutive block lines with the same ``message_id`` become one ``AssistantMessage`` holding
  all their blocks, in order — ended by a different ``message_id``, by any other message
  (which follows it), or by the end of the stream;
* ``StreamEvent``, ``ThinkingTokensMessage`` and ``ToolProgressMessage`` pass through at once,
  ahead of the held lines, *without* ending the held message (the CLI interleaves them with
  its block lines); a ``message_stop`` stream event does end it, right after the event;
* an ``AssistantMessage`` without ``message_id`` is never merged.

A merged message takes every field except ``content`` from its **last** line, and its ``raw``
is that last line's dict with ``message.content`` replaced by the raw dicts of all the blocks,
so ``parse_message(merged.raw) == merged``. A message made of a single line is returned as is.

One engine, two faces. ``next_merged`` keeps no state: a consumer appends every item it takes
to a plain list, asks what is ready, and removes exactly the items it yields with one
``del held[i:j]`` right before the ``yield`` — so when it is interrupted (Ctrl-C, a receive
timeout, leaving the loop) whatever is still in the list goes back to the session's queue, in
order: nothing lost, nothing delivered twice (``ClaudeSDKClient``'s merging receive). The
public ``AssistantMessageMerger`` is the same engine with the list kept inside it, for code
that feeds messages one by one. No threads, no I/O, no clocks.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from .blocks import ContentBlock
from .messages import AssistantMessage, Message, StreamEvent, ToolProgressMessage
from .record import construct
from .system_messages import ThinkingTokensMessage

__all__ = ["AssistantMessageMerger", "Ready", "extends_head", "merge_assistant_lines", "next_merged"]

PROGRESS_TYPES = (StreamEvent, ThinkingTokensMessage, ToolProgressMessage)
"""Live progress messages the CLI interleaves *between* the block lines of one assistant
message (a block's ``assistant`` line comes before its ``content_block_stop`` event). They
pass through the merger without ending the message being merged."""


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


def merge_assistant_lines(lines: List[AssistantMessage]) -> AssistantMessage:
    """One ``AssistantMessage`` from the block lines of one message (see the merger).

    ``lines`` must be non-empty; a single line is returned unchanged.
    """
    last = lines[-1]
    if len(lines) == 1:
        return last
    content: List[ContentBlock] = [block for line in lines for block in line.content]
    raw = dict(last.raw)
    raw_message = raw.get("message")
    raw["message"] = dict(raw_message if isinstance(raw_message, dict) else {})
    raw["message"]["content"] = [block.raw for block in content]
    attrs = dict(vars(last))
    attrs["content"] = content
    attrs["raw"] = raw
    return construct(AssistantMessage, attrs)


class AssistantMessageMerger:
    """Re-assembles whole assistant messages from the CLI's one-line-per-block stream.

    Feed messages in stream order; ``feed()`` returns what is ready, in order, by the rules of
    the module docstring; ``flush()`` at the end of the stream returns the held message. Not
    thread-safe; one merger per stream. Pure.
    """

    __slots__ = ("_held", "_closed")

    def __init__(self) -> None:
        self._held: List[Any] = []
        self._closed = 0

    @property
    def pending(self) -> bool:
        """Whether block lines are held waiting for the rest of their message."""
        return bool(self._held)

    def feed(self, message: Message) -> List[Message]:
        """Take the next message; return the messages that are ready, in stream order."""
        self._held.append(message)
        return self._ready(at_end=False)

    def flush(self) -> List[Message]:
        """Return the held message (merged), if any, and forget it. Call at end of stream."""
        return self._ready(at_end=True)

    def take_held(self) -> List[AssistantMessage]:
        """Return the held block lines unmerged, and forget them (to re-queue them)."""
        held, self._held, self._closed = self._held, [], 0
        return held

    def _ready(self, *, at_end: bool) -> List[Message]:
        out: List[Message] = []
        ready = next_merged(self._held, at_end=at_end, closed=self._closed)
        while ready is not None:
            self._closed = ready.closed
            del self._held[ready.start : ready.start + ready.length]
            out.append(ready.message)
            ready = next_merged(self._held, at_end=at_end, closed=self._closed)
        return out
