"""``TextDeltas`` (the pure part of ``text_stream()``) and ``QueryStream.text_stream()``."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from claude_sync import ClaudeAgentOptions, CLINotFoundError, UsageError, query
from claude_sync._wire.parse import parse_message
from claude_sync._wire.text import TextDeltas, iter_text

SID = "s"


def event(payload: Dict[str, Any], parent: Any = None) -> Any:
    return parse_message({"type": "stream_event", "uuid": "u", "session_id": SID, "event": payload, "parent_tool_use_id": parent})


def start(msg_id: str) -> Any:
    return event({"type": "message_start", "message": {"id": msg_id, "type": "message", "role": "assistant", "content": []}})


def block_start(kind: str, index: int = 0) -> Any:
    return event({"type": "content_block_start", "index": index, "content_block": {"type": kind, "text": ""}})


def delta(text: str, index: int = 0) -> Any:
    return event({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}})


def assistant(msg_id: str, *blocks: Dict[str, Any], parent: Any = None) -> Any:
    return parse_message(
        {
            "type": "assistant",
            "message": {"id": msg_id, "model": "m", "role": "assistant", "content": list(blocks)},
            "parent_tool_use_id": parent,
            "session_id": SID,
        }
    )


def text_block(text: str) -> Dict[str, Any]:
    return {"type": "text", "text": text}


def pieces(messages: List[Any]) -> List[str]:
    return list(iter_text(messages))


def test_deltas_are_yielded_and_the_whole_block_after_them_is_not() -> None:
    stream = [start("m1"), block_start("text"), delta("Hel"), delta("lo"), assistant("m1", text_block("Hello"))]
    assert pieces(stream) == ["Hel", "lo"]


def test_without_partial_messages_whole_blocks_are_yielded() -> None:
    stream = [assistant("m1", text_block("first")), assistant("m1", {"type": "tool_use", "id": "t", "name": "X", "input": {}}), assistant("m2", text_block("second"))]
    assert pieces(stream) == ["first", "\n\n", "second"]


def test_blocks_are_separated_and_thinking_and_subagents_are_left_out() -> None:
    stream = [
        start("m1"),
        block_start("thinking"),
        event({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
        block_start("text", 1),
        delta("Let me check.", 1),
        assistant("sub", text_block("subagent text"), parent="toolu_1"),
        start("m2"),
        block_start("text"),
        delta("Done."),
        assistant("m2", text_block("Done.")),
    ]
    assert "".join(pieces(stream)) == "Let me check.\n\nDone."


def test_closing_the_text_iterator_closes_the_source() -> None:
    closed: List[bool] = []

    class Source:
        def __iter__(self) -> Any:
            return iter([assistant("m1", text_block("a")), assistant("m2", text_block("b"))])

        def close(self) -> None:
            closed.append(True)

    texts = iter_text(Source())
    assert next(texts) == "a"
    texts.close()  # type: ignore[attr-defined]
    assert closed == [True]


def test_feed_ignores_other_messages() -> None:
    deltas = TextDeltas()
    assert deltas.feed(parse_message({"type": "system", "subtype": "init", "session_id": SID})) == []
    assert deltas.feed(object()) == []


def test_query_text_stream_turns_partial_messages_on_without_touching_the_options() -> None:
    options = ClaudeAgentOptions()
    stream = query("hi", options=options)
    stream.text_stream()
    assert stream._run.options.include_partial_messages is True
    assert options.include_partial_messages is False
    stream.close()


def test_query_text_stream_after_iteration_started_is_a_usage_error() -> None:
    stream = query("hi", options=ClaudeAgentOptions(cli_path="/nonexistent/claude"))
    with pytest.raises(CLINotFoundError):
        next(stream)
    with pytest.raises(UsageError):
        stream.text_stream()
