"""The answer's text as it arrives: what ``text_stream()`` yields (pure, no I/O).

``TextDeltas.feed(message)`` returns the new pieces of top-level assistant text a message
carries:

* a ``StreamEvent`` ``text_delta`` (``include_partial_messages``) gives its text at once;
* an ``AssistantMessage`` gives its ``TextBlock`` texts — unless that message's text already
  came as deltas (the CLI sends the whole block again after streaming it), so nothing is
  yielded twice;
* text of subagents (``parent_tool_use_id`` set) is left out: it is not the answer.

Separate text blocks (text before a tool call, then text after it) are joined by a blank
line, so ``print(piece, end="")`` over the pieces reads well.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, List, Optional, Set

__all__ = ["TextDeltas", "iter_text"]

BLOCK_SEPARATOR = "\n\n"


class TextDeltas:
    """Turns a message stream into text pieces (one instance per stream; any one thread)."""

    def __init__(self) -> None:
        self._streamed: Set[str] = set()
        self._current_id: Optional[str] = None
        self._in_text_block = False
        self._started = False

    def feed(self, message: Any) -> List[str]:
        """The text pieces ``message`` adds (often none)."""
        kind = getattr(message, "type", None)
        if getattr(message, "parent_tool_use_id", None) is not None:
            return []
        if kind == "stream_event":
            return self._event(message.event)
        if kind == "assistant":
            return self._assistant(message)
        return []

    def _event(self, event: Any) -> List[str]:
        if not isinstance(event, dict):
            return []
        event_type = event.get("type")
        if event_type == "message_start":
            message = event.get("message")
            self._current_id = message.get("id") if isinstance(message, dict) else None
        elif event_type == "content_block_start":
            block = event.get("content_block")
            self._in_text_block = isinstance(block, dict) and block.get("type") == "text"
            if self._in_text_block and self._current_id is not None:
                self._streamed.add(self._current_id)
            return self._separator() if self._in_text_block else []
        elif event_type == "content_block_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                text = delta.get("text")
                if isinstance(text, str) and text:
                    return [text]
        return []

    def _assistant(self, message: Any) -> List[str]:
        if message.message_id is not None and message.message_id in self._streamed:
            return []
        pieces: List[str] = []
        for block in message.content:
            if getattr(block, "type", None) == "text" and block.text:
                pieces.extend(self._separator())
                pieces.append(block.text)
        return pieces

    def _separator(self) -> List[str]:
        if self._started:
            return [BLOCK_SEPARATOR]
        self._started = True
        return []


def iter_text(messages: Iterable[Any]) -> Iterator[str]:
    """The text pieces of ``messages`` (see the module doc). Closing this generator closes
    ``messages`` when it has a ``close()`` (a query stream reaps its CLI)."""
    deltas = TextDeltas()
    try:
        for message in messages:
            yield from deltas.feed(message)
    finally:
        close = getattr(messages, "close", None)
        if close is not None:
            close()
