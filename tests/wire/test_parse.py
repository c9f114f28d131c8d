"""parse_message: wire dicts (as the real CLI 2.1.197 sends them) → typed messages.

The wire samples (``tests/wire_samples.py``) follow docs/protocol/REAL_CLI_2.1.197.md.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
from typing import Any, Dict, List, Tuple

import pytest
from wire_samples import (
    CASE_IDS,
    CASES,
    INIT,
    INIT_FIELDS,
    MODEL_USAGE,
    RESULT_SUCCESS,
    assistant_line,
    system_line,
    user_line,
)

from claude_sync._wire.blocks import (
    ServerToolResultBlock,
    ThinkingBlock,
    UnknownBlock,
)
from claude_sync._wire.errors import ClaudeSDKError, MessageParseError
from claude_sync._wire.messages import (
    AssistantMessage,
    RateLimitEvent,
    ResultMessage,
    StreamEvent,
    UserMessage,
    message_from_dict,
)
from claude_sync._wire.parse import parse_message
from claude_sync._wire.system_messages import (
    HookEventMessage,
    SystemInitMessage,
    SystemMessage,
)


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_parses_real_cli_lines(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    pristine = copy.deepcopy(wire)
    message = parse_message(wire)
    assert type(message) is cls
    for attribute, value in expected.items():
        assert getattr(message, attribute) == value, attribute
    assert message.raw is wire
    assert wire == pristine  # the parser never mutates its input


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_fast_construction_sets_every_init_field(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    """``construct`` bypasses __init__, so a forgotten field would only show up here."""
    message = parse_message(wire)
    objects = [message, *getattr(message, "content", [])]
    if isinstance(message, RateLimitEvent):
        objects.append(message.rate_limit_info)
    for obj in objects:
        if isinstance(obj, str):
            continue
        init_fields = {f.name for f in dataclasses.fields(obj) if f.init}
        assert set(vars(obj)) == init_fields, type(obj).__name__
        rebuilt = type(obj)(**vars(obj))  # the generated __init__ accepts exactly these
        assert rebuilt == obj


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_every_block_keeps_its_wire_dict(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    message = parse_message(wire)
    content = getattr(message, "content", None)
    if isinstance(content, list):
        assert [block.raw for block in content] == wire["message"]["content"]
        assert all(block.raw is raw for block, raw in zip(content, wire["message"]["content"]))
        assert [block.type for block in content] == [
            raw["type"] for raw in wire["message"]["content"]
        ]


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_messages_are_immutable(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    message = parse_message(wire)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.uuid = "changed"  # type: ignore[misc]
    assert "uuid" not in vars(message) or vars(message)["uuid"] != "changed"


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_serde_round_trip(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    message = parse_message(wire)
    as_dict = message.to_dict()
    restored = type(message).from_dict(as_dict)
    assert restored == message
    assert type(restored) is type(message)
    assert restored.raw == wire  # raw is not compared by ==, so check it separately
    for before, after in zip(
        getattr(message, "content", []) or [], getattr(restored, "content", []) or []
    ):
        if not isinstance(before, str):
            assert type(after) is type(before)
            assert after.raw == before.raw
    assert message_from_dict(as_dict) == message
    assert type(message_from_dict(as_dict)) is type(message)
    assert type(message).from_json(message.to_json()) == message


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_messages_pickle(
    name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]
) -> None:
    message = parse_message(wire)
    restored = pickle.loads(pickle.dumps(message))
    assert restored == message
    assert restored.raw == message.raw


def test_system_subclasses_are_system_messages_with_the_whole_dict_as_data() -> None:
    message = parse_message(INIT)
    assert isinstance(message, SystemMessage)
    assert message.data is INIT
    assert message.raw is INIT
    hook = parse_message(system_line("hook_response", hook_event="Stop", outcome="error"))
    assert isinstance(hook, HookEventMessage)
    assert isinstance(hook, SystemMessage)


def test_init_is_a_plain_system_message_whose_init_property_is_the_typed_view() -> None:
    message = parse_message(INIT)
    assert type(message) is SystemMessage and type(message).__name__ == "SystemMessage"
    init = message.init
    assert isinstance(init, SystemInitMessage)
    for attribute, value in INIT_FIELDS.items():
        assert getattr(init, attribute) == value, attribute
    assert init.init is init and init.data is INIT
    assert parse_message(system_line("status", status="requesting")).init is None
    assert SystemInitMessage.of({"type": "system", "subtype": "init"}).model is None
    with pytest.raises(TypeError, match="init wire dict"):
        SystemInitMessage.of([])  # type: ignore[arg-type]


def test_model_usage_comes_from_camel_case_wire_key() -> None:
    message = parse_message(RESULT_SUCCESS)
    assert isinstance(message, ResultMessage)
    assert message.model_usage == MODEL_USAGE
    assert "model_usage" in message.to_dict()
    assert "modelUsage" not in message.to_dict()


@pytest.mark.parametrize(
    "block_type",
    [
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "advisor_tool_result",
        "mcp_tool_result",
    ],
)
def test_every_server_tool_result_type_keeps_its_type(block_type: str) -> None:
    raw = {
        "type": block_type,
        "tool_use_id": "srvtoolu_9",
        "content": {"type": "error", "error_code": "x"},
    }
    message = parse_message(assistant_line(raw))
    assert message.content == [ServerToolResultBlock("srvtoolu_9", raw["content"], block_type)]
    assert message.content[0].type == block_type


@pytest.mark.parametrize(
    "block_type", ["document", "mcp_tool_use", "compaction", "search_result", "tool_result_x"]
)
def test_other_unknown_blocks_stay_visible(block_type: str) -> None:
    raw = {"type": block_type, "payload": [1, 2]}
    message = parse_message(user_line([raw]))
    assert message.content == [UnknownBlock(block_type, raw)]


def test_unknown_message_and_unknown_block_compare_by_raw() -> None:
    a = parse_message({"type": "future_thing", "x": 1})
    b = parse_message({"type": "future_thing", "x": 2})
    assert a != b
    assert "x" in repr(a)


def test_thinking_block_without_signature_is_accepted() -> None:
    message = parse_message(assistant_line({"type": "thinking", "thinking": "hmm"}))
    assert message.content == [ThinkingBlock("hmm", "")]


def test_optional_fields_default_when_absent() -> None:
    minimal = parse_message({"type": "assistant", "message": {"content": []}})
    assert minimal == AssistantMessage(content=[], model="")
    result = parse_message({"type": "result", "subtype": "success", "is_error": False})
    assert result == ResultMessage("success", 0, 0, False, 0, "")
    user = parse_message({"type": "user", "message": {"content": "hi"}})
    assert user == UserMessage("hi")
    event = parse_message({"type": "stream_event", "event": {"type": "ping"}})
    assert event == StreamEvent("", "", {"type": "ping"})


# ----------------------------------------------------------------------------- broken shapes

TEXT = {"type": "text", "text": "hi"}

BROKEN: List[Tuple[str, Any, str]] = [
    ("not_a_dict", ["type", "assistant"], "Invalid message data type (expected dict, got list)"),
    ("string", "assistant", "Invalid message data type (expected dict, got str)"),
    ("no_type", {"message": {}}, "Message missing 'type' field"),
    ("type_not_string", {"type": 5}, "message 'type' is not a string: 5"),
    ("type_unhashable", {"type": ["assistant"]}, "message 'type' is not a string"),
    (
        "assistant_without_message",
        {"type": "assistant"},
        "Missing required field in assistant message: 'message'",
    ),
    (
        "assistant_message_not_dict",
        {"type": "assistant", "message": "hi"},
        "'message' is not an object",
    ),
    (
        "assistant_without_content",
        {"type": "assistant", "message": {"id": "m"}},
        "Missing required field in assistant message: 'content'",
    ),
    (
        "assistant_content_not_list",
        {"type": "assistant", "message": {"content": "hi"}},
        "Invalid assistant content (expected list, got str)",
    ),
    (
        "assistant_block_not_dict",
        {"type": "assistant", "message": {"content": [TEXT, "oops"]}},
        "Invalid content block (expected dict, got str): content block #1 of the 'assistant' "
        "message",
    ),
    (
        "assistant_block_none",
        {"type": "assistant", "message": {"content": [None]}},
        "Invalid content block (expected dict, got NoneType): content block #0",
    ),
    (
        "assistant_block_without_type",
        {"type": "assistant", "message": {"content": [{"text": "hi"}]}},
        "Missing required field in assistant message: 'type' (content block #0)",
    ),
    (
        "assistant_block_type_not_string",
        {"type": "assistant", "message": {"content": [{"type": 3}]}},
        "content block #0: content block 'type' is not a string: 3",
    ),
    (
        "text_without_text",
        {"type": "assistant", "message": {"content": [TEXT, {"type": "text"}]}},
        "Missing required field in assistant message: 'text' (content block #1, 'text')",
    ),
    (
        "tool_use_without_input",
        {
            "type": "assistant",
            "message": {"content": [{"type": "tool_use", "id": "t", "name": "Bash"}]},
        },
        "Missing required field in assistant message: 'input' (content block #0, 'tool_use')",
    ),
    (
        "server_result_without_tool_use_id",
        {
            "type": "assistant",
            "message": {"content": [{"type": "web_fetch_tool_result", "content": {}}]},
        },
        "Missing required field in assistant message: 'tool_use_id' "
        "(content block #0, 'web_fetch_tool_result')",
    ),
    (
        "image_without_source",
        {"type": "user", "message": {"content": [{"type": "image"}]}},
        "Missing required field in user message: 'source' (content block #0, 'image')",
    ),
    (
        "user_without_message",
        {"type": "user"},
        "Missing required field in user message: 'message'",
    ),
    (
        "user_message_not_dict",
        {"type": "user", "message": []},
        "'user' message: 'message' is not an object",
    ),
    (
        "user_content_int",
        {"type": "user", "message": {"content": 5}},
        "'user' message: 'message.content' is neither a string nor a list",
    ),
    (
        "user_tool_result_without_id",
        {"type": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}},
        "Missing required field in user message: 'tool_use_id' (content block #0, 'tool_result')",
    ),
    (
        "result_without_is_error",
        {"type": "result", "subtype": "success"},
        "Missing required field in result message: 'is_error'",
    ),
    (
        "result_without_subtype",
        {"type": "result", "is_error": True},
        "Missing required field in result message: 'subtype'",
    ),
    (
        "system_without_subtype",
        {"type": "system"},
        "Missing required field in system message: 'subtype'",
    ),
    (
        "system_subtype_not_string",
        {"type": "system", "subtype": None},
        "system 'subtype' is not a string: None",
    ),
    (
        "stream_event_without_event",
        {"type": "stream_event"},
        "Missing required field in stream_event message: 'event'",
    ),
    (
        "stream_event_event_not_dict",
        {"type": "stream_event", "event": "x"},
        "'event' is not an object",
    ),
    (
        "rate_limit_without_info",
        {"type": "rate_limit_event"},
        "Missing required field in rate_limit_event message: 'rate_limit_info'",
    ),
    (
        "rate_limit_info_not_dict",
        {"type": "rate_limit_event", "rate_limit_info": 1},
        "'rate_limit_info' is not an object",
    ),
    (
        "rate_limit_info_without_status",
        {"type": "rate_limit_event", "rate_limit_info": {"resetsAt": 1}},
        "Missing required field in rate_limit_event message: 'status'",
    ),
    (
        "prompt_suggestion_without_suggestion",
        {"type": "prompt_suggestion"},
        "Missing required field in prompt_suggestion message: 'suggestion'",
    ),
    (
        "tool_progress_without_tool_name",
        {"type": "tool_progress", "tool_use_id": "t"},
        "Missing required field in tool_progress message: 'tool_name'",
    ),
]


@pytest.mark.parametrize("name, wire, problem", BROKEN, ids=[case[0] for case in BROKEN])
def test_broken_shapes_raise_message_parse_error(name: str, wire: Any, problem: str) -> None:
    with pytest.raises(MessageParseError) as caught:
        parse_message(wire)
    assert problem in str(caught.value)
    assert caught.value.data is wire
    assert isinstance(caught.value, ClaudeSDKError)


# ----------------------------------------------------------------------------- call-count guard

COUNTED_EVENTS = ("call", "c_call")

CALL_CEILINGS = [
    # (name, wire, ceiling). Measured: 8 / 8 / 4 / 4 on CPython 3.9–3.11 (list comprehensions
    # are a call there), 7 / 7 / 4 / 4 on 3.12+. The brief's target for the text line is ≤ 15.
    ("assistant_text", assistant_line({"type": "text", "text": "4"}), 12),
    (
        "user_tool_result",
        user_line(
            [
                {
                    "tool_use_id": "toolu_01",
                    "type": "tool_result",
                    "content": "ok",
                    "is_error": False,
                }
            ],
            tool_use_result={"stdout": "ok", "stderr": "", "interrupted": False},
        ),
        12,
    ),
    ("result", RESULT_SUCCESS, 6),
    ("stream_event", CASES[CASE_IDS.index("stream_event_text_delta")][1], 6),
]


def count_calls(wire: Dict[str, Any]) -> List[str]:
    """Every Python call and C call made while parsing ``wire`` (sys.setprofile events)."""
    seen: List[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            seen.append(frame.f_code.co_name)
        elif event == "c_call" and arg is not sys.setprofile:
            seen.append(getattr(arg, "__qualname__", repr(arg)))

    sys.setprofile(profile)
    try:
        parse_message(wire)
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize(
    "name, wire, ceiling", CALL_CEILINGS, ids=[case[0] for case in CALL_CEILINGS]
)
def test_parse_hot_path_call_count(name: str, wire: Dict[str, Any], ceiling: int) -> None:
    calls = count_calls(wire)
    assert calls[0] == "parse_message"  # the probe sees the parse itself
    assert len(calls) <= ceiling, calls


def test_call_count_probe_sees_c_calls() -> None:
    """The guard would be worthless if c_call events were not counted."""
    seen: List[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in COUNTED_EVENTS and arg is not sys.setprofile:
            seen.append(event)

    sys.setprofile(profile)
    try:
        {"a": 1}.get("a")
    finally:
        sys.setprofile(None)
    assert "c_call" in seen


def test_commands_changed_is_typed() -> None:
    from claude_sync import CommandsChangedMessage, SystemMessage
    from claude_sync._wire.parse import parse_message

    wire = {"type": "system", "subtype": "commands_changed", "uuid": "u", "session_id": "s",
            "commands": [{"name": "fresh", "description": "d", "argumentHint": ""}]}  # fmt: skip
    message = parse_message(wire)
    assert isinstance(message, CommandsChangedMessage) and isinstance(message, SystemMessage)
    assert message.commands == wire["commands"] and message.data == wire and message.session_id == "s"
    assert parse_message({"type": "system", "subtype": "commands_changed"}).commands is None  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- official leniency


@pytest.mark.parametrize("kind", ["user", "result"])
@pytest.mark.parametrize(
    "origin, kept",
    [
        ({"kind": "channel", "x": 1}, True),
        ("channel", False),
        ({}, False),
        ({"kind": 3}, False),
        (None, False),
    ],
)
def test_origin_is_kept_only_as_an_object_with_a_string_kind(
    kind: str, origin: Any, kept: bool
) -> None:
    wire: Dict[str, Any] = (
        {"type": "user", "message": {"content": "hi"}}
        if kind == "user"
        else {"type": "result", "subtype": "success", "is_error": False}
    )
    wire["origin"] = origin
    assert parse_message(wire).origin == (origin if kept else None)  # type: ignore[union-attr]


@pytest.mark.parametrize("patch", ["completed", None, 42, ["status"]])
def test_a_task_updated_patch_that_is_not_an_object_is_empty(patch: Any) -> None:
    wire = {"type": "system", "subtype": "task_updated", "task_id": "t", "patch": patch}
    message = parse_message(wire)
    assert (message.patch, message.status) == ({}, None)  # type: ignore[attr-defined]
    missing = parse_message({"type": "system", "subtype": "task_updated", "task_id": "t"})
    assert (missing.patch, missing.status) == ({}, None)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "keys, name",
    [
        ({"hook_event": "PreToolUse", "hook_name": "PreToolUse:Bash"}, "PreToolUse"),
        ({"hook_event": "", "hook_name": "Stop"}, "Stop"),
        ({"hook_event_name": "SessionStart"}, "SessionStart"),
        ({}, ""),
    ],
)
@pytest.mark.parametrize("subtype", ["hook_started", "hook_response"])
def test_hook_event_name_is_the_first_non_empty_of_three_keys(
    subtype: str, keys: Dict[str, Any], name: str
) -> None:
    message = parse_message({"type": "system", "subtype": subtype, "hook_id": "h", **keys})
    assert type(message) is HookEventMessage
    assert (message.hook_event_name, message.hook_id) == (name, "h")
