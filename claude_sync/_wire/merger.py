"""Re-assembling whole assistant messages from the CLI's one-line-per-block stream (pure).

No threads, no I/O, no clocks; one ``AssistantMessageMerger`` per stream.
"""

from __future__ import annotations

from typing import List

from .blocks import ContentBlock
from .messages import AssistantMessage, Message, StreamEvent, ToolProgressMessage
from .record import construct
from .system_messages import ThinkingTokensMessage

__all__ = ["AssistantMessageMerger", "merge_assistant_lines"]

PROGRESS_TYPES = (StreamEvent, ThinkingTokensMessage, ToolProgressMessage)
"""Live progress messages the CLI interleaves *between* the block lines of one assistant
message (a block's ``assistant`` line comes before its ``content_block_stop`` event). They
pass through the merger without ending the message being merged."""


class AssistantMessageMerger:
    """Re-assembles whole assistant messages from the CLI's one-line-per-block stream.

    Feed messages in stream order; ``feed()`` returns what is ready, in order:

    * consecutive ``AssistantMessage``\\ s with the same ``message_id`` are held and come out
      as one message holding all their blocks, in order, when a different ``message_id``
      arrives, when any other message arrives, or on ``flush()``;
    * ``StreamEvent``, ``ThinkingTokensMessage`` and ``ToolProgressMessage`` pass through at
      once *without* ending the held message (the CLI interleaves them with its block
      lines). A ``message_stop`` stream event does end it, right after the event;
    * an ``AssistantMessage`` without ``message_id`` is never merged;
    * every other message ends the held message and then passes through.

    A merged message takes every field except ``content`` from its **last** line, and its
    ``raw`` is that last line's dict with ``message.content`` replaced by the raw dicts of
    all the blocks, so ``parse_message(merged.raw) == merged``. A message made of a single
    line is returned as is. Not thread-safe; one merger per stream. Pure.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: List[AssistantMessage] = []

    @property
    def pending(self) -> bool:
        """Whether block lines are held waiting for the rest of their message."""
        return bool(self._held)

    def feed(self, message: Message) -> List[Message]:
        """Take the next message; return the messages that are ready, in stream order."""
        if isinstance(message, AssistantMessage):
            return self._feed_assistant(message)
        if isinstance(message, PROGRESS_TYPES):
            if isinstance(message, StreamEvent) and self._ends_held_message(message):
                return [message, *self.flush()]
            return [message]
        ready = self.flush()
        ready.append(message)
        return ready

    def take_held(self) -> List[AssistantMessage]:
        """Return the held block lines unmerged, and forget them (to re-queue them)."""
        held, self._held = self._held, []
        return held

    def flush(self) -> List[Message]:
        """Return the held message (merged), if any, and forget it. Call at end of stream."""
        if not self._held:
            return []
        merged = merge_assistant_lines(self._held)
        self._held = []
        return [merged]

    def _feed_assistant(self, message: AssistantMessage) -> List[Message]:
        if message.message_id is None:
            ready = self.flush()
            ready.append(message)
            return ready
        if self._held and self._held[0].message_id != message.message_id:
            ready = self.flush()
            self._held.append(message)
            return ready
        self._held.append(message)
        return []

    def _ends_held_message(self, event: StreamEvent) -> bool:
        return (
            bool(self._held)
            and event.event.get("type") == "message_stop"
            and event.parent_tool_use_id == self._held[-1].parent_tool_use_id
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
