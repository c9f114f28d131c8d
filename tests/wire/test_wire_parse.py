"""``claude_sync.parse_message``: the public wire parser, with the official private parser's
contract (issue 40: record/replay libraries call ``claude_agent_sdk._internal.message_parser
.parse_message``; claude_sync had no public parser to port them to)."""

from __future__ import annotations

from typing import Any

import pytest

import claude_sync
from claude_sync import AssistantMessage, MessageParseError, TextBlock, UnknownBlock, UnknownMessage


def test_a_known_type_becomes_its_typed_message() -> None:
    message = claude_sync.parse_message(
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "x"}, {"type": "new_block"}], "model": "m"}}
    )
    assert isinstance(message, AssistantMessage)
    assert message.content[0] == TextBlock(text="x")
    assert isinstance(message.content[1], UnknownBlock), "kept, not dropped as officially"


def test_an_unknown_type_is_none_as_officially_or_kept_on_request() -> None:
    assert claude_sync.parse_message({"type": "definitely_not_a_real_type"}) is None
    kept = claude_sync.parse_message({"type": "definitely_not_a_real_type", "x": 1}, keep_unknown=True)
    assert isinstance(kept, UnknownMessage) and kept.type == "definitely_not_a_real_type" and kept.raw["x"] == 1


@pytest.mark.parametrize(
    "data, says",
    [
        ([], r"Invalid message data type \(expected dict, got list\)"),
        ("{}", r"Invalid message data type \(expected dict, got str\)"),
        ({}, "Message missing 'type' field"),
        ({"type": ""}, "Message missing 'type' field"),
        ({"type": 5}, "'type' is not a string"),
        ({"type": "result", "subtype": "success"}, "Missing required field in result message: 'is_error'"),
        ({"type": "assistant", "message": []}, "'message' is not an object"),  # officially a TypeError
    ],
)
def test_a_broken_object_is_a_message_parse_error_carrying_it(data: Any, says: str) -> None:
    with pytest.raises(MessageParseError, match=says) as caught:
        claude_sync.parse_message(data)
    assert caught.value.data == data
