"""The message model: equality/repr rules, serde, the assistant merger, the lazy import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import claude_sync
from claude_sync._wire.blocks import (
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolResultBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
)
from claude_sync._wire.merge import AssistantMessageMerger
from claude_sync._wire.messages import (
    AssistantMessage,
    Message,
    RateLimitEvent,
    RateLimitInfo,
    ResultMessage,
    StreamEvent,
    ToolProgressMessage,
    UnknownMessage,
    UserMessage,
    message_from_dict,
)
from claude_sync._wire.parse import parse_message
from claude_sync._wire.system_messages import (
    HookEventMessage,
    HookProgressMessage,
    HookResponseMessage,
    HookStartedMessage,
    StatusMessage,
    SystemInitMessage,
    SystemMessage,
    TaskUpdatedMessage,
    ThinkingTokensMessage,
)

SID = "sess-1"


# ----------------------------------------------------------------------------- equality and repr


def test_raw_is_left_out_of_equality_and_repr() -> None:
    parsed = TextBlock("hi", raw={"type": "text", "text": "hi", "citations": None})
    assert parsed == TextBlock("hi")
    assert "raw" not in repr(parsed)
    assert repr(parsed) == "TextBlock(text='hi')"


def test_unknown_types_compare_and_print_their_raw() -> None:
    assert UnknownBlock("document", {"a": 1}) != UnknownBlock("document", {"a": 2})
    assert UnknownMessage("x", {"a": 1}) != UnknownMessage("x", {"a": 2})
    assert "'a': 1" in repr(UnknownMessage("x", {"a": 1}))


@pytest.mark.parametrize(
    "obj, wire_type",
    [
        (TextBlock("t"), "text"),
        (ThinkingBlock("t", "s"), "thinking"),
        (RedactedThinkingBlock("d"), "redacted_thinking"),
        (ToolUseBlock("i", "n", {}), "tool_use"),
        (ToolResultBlock("i"), "tool_result"),
        (ServerToolUseBlock("i", "web_search", {}), "server_tool_use"),
        (ServerToolResultBlock("i", [], "web_fetch_tool_result"), "web_fetch_tool_result"),
        (ImageBlock({"type": "url", "url": "u"}), "image"),
        (UnknownBlock("document"), "document"),
        (UserMessage("hi"), "user"),
        (AssistantMessage([], "m"), "assistant"),
        (SystemMessage("x", {}), "system"),
        (StatusMessage("status", {}), "system"),
        (ResultMessage("success", 1, 1, False, 1, SID), "result"),
        (StreamEvent("u", SID, {}), "stream_event"),
        (RateLimitEvent(RateLimitInfo("allowed"), "u", SID), "rate_limit_event"),
        (UnknownMessage("later"), "later"),
    ],
)
def test_every_class_exposes_its_wire_type(obj: Any, wire_type: str) -> None:
    assert obj.type == wire_type


def test_wire_type_is_not_a_constructor_argument() -> None:
    with pytest.raises(TypeError):
        TextBlock("hi", type="other")  # type: ignore[call-arg]


def test_sdk_style_positional_construction_still_works() -> None:
    assert ToolResultBlock("toolu_1", "out", True).is_error is True
    message = AssistantMessage([TextBlock("a")], "claude", None, "rate_limit")
    assert message.error == "rate_limit"
    result = ResultMessage("success", 10, 5, False, 1, SID, "end_turn", 0.5)
    assert (result.stop_reason, result.total_cost_usd) == ("end_turn", 0.5)


def test_system_message_raw_is_its_data() -> None:
    data = {"type": "system", "subtype": "status", "status": None}
    message = SystemMessage("status", data)
    assert message.raw is data


# ----------------------------------------------------------------------------- serde, hand-made

HAND_MADE: List[Any] = [
    AssistantMessage(
        content=[
            ThinkingBlock("think", "sig"),
            TextBlock("hi"),
            ToolUseBlock("toolu_1", "Bash", {"command": "ls"}),
            ServerToolUseBlock("srv_1", "web_search", {"query": "q"}),
            ServerToolResultBlock(
                "srv_1", [{"type": "web_search_result"}], "web_search_tool_result"
            ),
            RedactedThinkingBlock("opaque"),
            UnknownBlock("document", {"type": "document", "source": {}}),
        ],
        model="claude-opus-4-8",
        usage={"input_tokens": 1},
        message_id="msg_1",
    ),
    UserMessage("plain text", uuid="u1", is_replay=True),
    UserMessage(
        [
            ToolResultBlock("toolu_1", [{"type": "text", "text": "5"}], False),
            ImageBlock({"type": "base64"}),
        ],
        tool_use_result=[{"type": "text", "text": "5"}],
    ),
    UserMessage([ToolResultBlock("toolu_1", {"odd": "dict content"})]),
    SystemMessage("brand_new", {"type": "system", "subtype": "brand_new", "n": 1}),
    SystemMessage("init", {"type": "system", "subtype": "init", "session_id": SID, "tools": ["Bash"]}),
    TaskUpdatedMessage(
        "task_updated", {}, task_id="t", patch={"status": "killed"}, status="killed"
    ),
    HookEventMessage("hook_response", {}, hook_event_name="Stop", exit_code=2, outcome="error"),
    ResultMessage(
        "error_max_turns",
        1,
        1,
        True,
        2,
        SID,
        errors=["Reached maximum number of turns (1)"],
        model_usage={"m": {"costUSD": 0.1}},
        structured_output=[1, "two"],
    ),
    StreamEvent("u", SID, {"type": "message_stop"}),
    RateLimitEvent(RateLimitInfo("rejected", resets_at=5, raw={"status": "rejected"}), "u", SID),
    UnknownMessage("later", {"type": "later", "x": [1, 2]}),
]


@pytest.mark.parametrize("message", HAND_MADE, ids=lambda m: type(m).__name__)
def test_hand_made_messages_round_trip(message: Any) -> None:
    as_dict = message.to_dict()
    json.dumps(as_dict)  # plain JSON values only
    restored = type(message).from_dict(as_dict)
    assert restored == message
    assert type(restored) is type(message)
    assert message_from_dict(as_dict) == message
    assert type(message_from_dict(as_dict)) is type(message)
    assert type(message).from_json(message.to_json(indent=2)) == message


def test_the_typed_init_view_round_trips_through_its_own_class() -> None:
    view = SystemInitMessage("init", {"type": "system", "subtype": "init"}, session_id=SID, tools=["Bash"])
    assert SystemInitMessage.from_dict(view.to_dict()) == view
    plain = next(m for m in HAND_MADE if type(m) is SystemMessage and m.subtype == "init")
    assert plain.init == SystemInitMessage.of(plain.data) and plain.init.tools == ["Bash"]


def test_nested_blocks_round_trip_to_their_own_classes() -> None:
    message = HAND_MADE[0]
    restored = AssistantMessage.from_dict(message.to_dict())
    assert [type(block) for block in restored.content] == [type(block) for block in message.content]
    assert restored.content[-1].raw == {"type": "document", "source": {}}


def test_to_dict_uses_python_field_names_and_includes_type() -> None:
    as_dict = ResultMessage("success", 1, 1, False, 1, SID, model_usage={}).to_dict()
    assert as_dict["type"] == "result"
    assert "model_usage" in as_dict
    assert "modelUsage" not in as_dict


def test_from_dict_reports_a_missing_required_field() -> None:
    with pytest.raises(KeyError):
        TextBlock.from_dict({"type": "text"})


def test_message_from_dict_rejects_non_dicts() -> None:
    with pytest.raises(TypeError):
        message_from_dict([])  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- merger


def block_line(
    block: Dict[str, Any], msg_id: str = "msg_1", uuid: str = "u", **top: Any
) -> AssistantMessage:
    line = {
        "type": "assistant",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8",
            "content": [block],
            "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
        "parent_tool_use_id": None,
        "session_id": SID,
        "uuid": uuid,
    }
    line.update(top)
    message = parse_message(line)
    assert isinstance(message, AssistantMessage)
    return message


THINK = {"type": "thinking", "thinking": "plan", "signature": "sig"}
TEXT = {"type": "text", "text": "Running ls"}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}


def event(kind: str, parent: Any = None, **fields: Any) -> StreamEvent:
    message = parse_message(
        {
            "type": "stream_event",
            "event": {"type": kind, **fields},
            "session_id": SID,
            "uuid": "e",
            "parent_tool_use_id": parent,
        }
    )
    assert isinstance(message, StreamEvent)
    return message


def run(merger: AssistantMessageMerger, messages: List[Message]) -> List[Message]:
    out: List[Message] = []
    for message in messages:
        out += merger.feed(message)
    return out + merger.flush()


def tool_result_line() -> UserMessage:
    message = parse_message(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a\nb"}],
            },
            "session_id": SID,
        }
    )
    assert isinstance(message, UserMessage)
    return message


def test_block_lines_of_one_message_merge_in_order() -> None:
    lines = [block_line(THINK, uuid="u1"), block_line(TEXT, uuid="u2"), block_line(TOOL, uuid="u3")]
    merger = AssistantMessageMerger()
    assert [merger.feed(line) for line in lines] == [[], [], []]
    assert merger.pending
    (merged,) = merger.flush()
    assert not merger.pending
    assert isinstance(merged, AssistantMessage)
    assert merged.content == [
        ThinkingBlock("plan", "sig"),
        TextBlock("Running ls"),
        ToolUseBlock("toolu_1", "Bash", {"command": "ls"}),
    ]
    assert merged.message_id == "msg_1"
    assert merged.uuid == "u3"  # every field but content comes from the last line
    assert [block.raw for block in merged.content] == [THINK, TEXT, TOOL]


def test_take_held_returns_the_unmerged_lines_and_forgets_them() -> None:
    lines = [block_line(THINK, uuid="u1"), block_line(TEXT, uuid="u2")]
    merger = AssistantMessageMerger()
    for line in lines:
        merger.feed(line)
    held = merger.take_held()
    assert held == lines and held[0] is lines[0]
    assert not merger.pending and merger.flush() == []


def test_merged_raw_is_a_whole_wire_message_that_parses_back_to_the_merged_message() -> None:
    lines = [block_line(THINK, uuid="u1"), block_line(TEXT, uuid="u2")]
    (merged,) = run(AssistantMessageMerger(), list(lines))
    assert merged.raw["message"]["content"] == [THINK, TEXT]
    assert merged.raw["uuid"] == "u2"
    assert parse_message(merged.raw) == merged
    assert lines[1].raw["message"]["content"] == [TEXT]  # the lines' own raw is untouched


def test_merged_message_round_trips_through_serde() -> None:
    (merged,) = run(AssistantMessageMerger(), [block_line(THINK), block_line(TEXT)])
    assert AssistantMessage.from_dict(merged.to_dict()) == merged


def test_a_single_line_message_comes_out_unchanged() -> None:
    line = block_line(TEXT)
    assert run(AssistantMessageMerger(), [line])[0] is line


def test_a_new_message_id_ends_the_held_message() -> None:
    first, second = block_line(TEXT, msg_id="msg_1"), block_line(TOOL, msg_id="msg_2")
    merger = AssistantMessageMerger()
    assert merger.feed(first) == []
    assert merger.feed(second) == [first]
    assert merger.flush() == [second]


def test_other_messages_end_the_held_message_and_keep_their_order() -> None:
    lines = [block_line(TEXT), block_line(TOOL)]
    result = tool_result_line()
    merger = AssistantMessageMerger()
    out = run(merger, [*lines, result])
    assert len(out) == 2
    assert isinstance(out[0], AssistantMessage) and len(out[0].content) == 2
    assert out[1] is result


def test_messages_without_message_id_are_never_merged() -> None:
    a = AssistantMessage([TextBlock("a")], "m")
    b = AssistantMessage([TextBlock("b")], "m")
    assert run(AssistantMessageMerger(), [a, b]) == [a, b]


def test_progress_messages_pass_through_without_splitting_the_message() -> None:
    """The real CLI with partial messages: each block line arrives before its content_block_stop."""
    thinking_tokens = ThinkingTokensMessage("thinking_tokens", {}, estimated_tokens=10)
    progress = ToolProgressMessage("toolu_0", "Bash", elapsed_time_seconds=1.0)
    stream = [
        event("message_start"),
        event("content_block_start", index=0),
        thinking_tokens,
        block_line(THINK),
        event("content_block_stop", index=0),
        progress,
        event("content_block_start", index=1),
        block_line(TEXT),
        event("content_block_stop", index=1),
        event("message_delta", delta={"stop_reason": "end_turn"}),
        event("message_stop"),
        ResultMessage("success", 1, 1, False, 1, SID),
    ]
    out = run(AssistantMessageMerger(), stream)
    kinds = [m.event["type"] if isinstance(m, StreamEvent) else type(m).__name__ for m in out]
    assert kinds == [
        "message_start",
        "content_block_start",
        "ThinkingTokensMessage",
        "content_block_stop",
        "ToolProgressMessage",
        "content_block_start",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "AssistantMessage",
        "ResultMessage",
    ]
    merged = out[kinds.index("AssistantMessage")]
    assert [block.type for block in merged.content] == ["thinking", "text"]


def test_message_stop_of_another_agent_does_not_end_the_held_message() -> None:
    merger = AssistantMessageMerger()
    merger.feed(block_line(TEXT))
    assert merger.feed(event("message_stop", parent="toolu_agent")) == [
        event("message_stop", parent="toolu_agent")
    ]
    assert merger.pending


def test_flush_without_held_message_is_empty() -> None:
    merger = AssistantMessageMerger()
    assert merger.flush() == []
    status = StatusMessage("status", {}, status="requesting")
    assert merger.feed(status) == [status]


# ----------------------------------------------------------------------------- imports

PACKAGE_PARENT = str(Path(claude_sync.__file__).resolve().parent.parent)

LAZY_PROBE = """
import json, sys
import claude_sync._wire.messages, claude_sync._wire.parse
from claude_sync._wire.parse import parse_message
block = {"type": "text", "text": "x"}
message = parse_message({"type": "assistant", "message": {"model": "m", "content": [block]}})
before = sorted(name for name in ("dataclasses_json", "marshmallow") if name in sys.modules)
message.to_dict()
after = sorted(name for name in ("dataclasses_json", "marshmallow") if name in sys.modules)
print(json.dumps({"before": before, "after": after}))
"""


def test_dataclasses_json_is_imported_only_on_first_serde_use() -> None:
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT)
    completed = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["before"] == []
    assert report["after"] == ["dataclasses_json", "marshmallow"]  # the probe can see imports


def test_assistant_text_joins_the_text_blocks_only() -> None:
    """Issue 19: what code keeps writing by hand (``"".join(b.text for b in m.content if …)``);
    blocks joined by a blank line, as ``text_stream()`` joins them."""
    message = AssistantMessage(
        [ThinkingBlock("hmm", "sig"), TextBlock("First."), ToolUseBlock("t", "Bash", {}), TextBlock("Then.")], "m"
    )
    assert message.text == "First.\n\nThen."
    assert AssistantMessage([ToolUseBlock("t", "Bash", {})], "m").text == ""
    assert "text" not in message.to_dict()  # computed, not a field


def test_hook_lines_decode_to_the_official_classes_and_todays_names_still_match() -> None:
    """The official SDK decodes ``hook_started``/``hook_response`` as ``HookEventMessage`` and
    ``hook_progress`` as a plain ``SystemMessage``; code that checks the class name ports
    unchanged, and ``isinstance`` with claude_sync's finer names keeps working."""
    line = {"type": "system", "hook_event": "Stop", "hook_id": "h", "session_id": SID}
    started = parse_message({**line, "subtype": "hook_started"})
    response = parse_message({**line, "subtype": "hook_response", "exit_code": 2, "outcome": "error"})
    progress = parse_message({**line, "subtype": "hook_progress", "stdout": "so far"})
    assert [type(m).__name__ for m in (started, response, progress)] == [
        "HookEventMessage", "HookEventMessage", "SystemMessage",
    ]
    assert isinstance(started, HookStartedMessage) and not isinstance(started, HookResponseMessage)
    assert isinstance(response, HookResponseMessage) and not isinstance(response, HookStartedMessage)
    assert isinstance(progress, HookProgressMessage) and not isinstance(progress, HookEventMessage)
    assert not isinstance(response, HookProgressMessage)
    assert (response.hook_event_name, response.exit_code, response.outcome) == ("Stop", 2, "error")
    assert progress.data["stdout"] == "so far"
    other = parse_message({"type": "system", "subtype": "status", "status": None})
    assert not isinstance(other, (HookStartedMessage, HookProgressMessage, HookResponseMessage))
    made = HookResponseMessage("hook_response", {}, hook_event_name="Stop", outcome="error")
    assert isinstance(made, HookEventMessage) and isinstance(made, HookResponseMessage)
