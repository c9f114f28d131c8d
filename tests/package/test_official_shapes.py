"""Shapes official code can see: errors, permission types, hook context and types, messages."""

from __future__ import annotations

import io
import typing
from typing import Any, List

import pytest

import claude_sync
from claude_sync import (
    KNOWN_HOOK_EVENTS,
    ClaudeAgentOptions,
    CLIJSONDecodeError,
    HookContext,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ProcessError,
    ResultError,
    ResultMessage,
    SystemMessage,
)
from claude_sync._wire.parse import parse_message
from claude_sync._wire.protocol import decode_line

# ----------------------------------------------------------------------------- errors


def test_result_error_official_constructor_derives_everything_from_data() -> None:
    data = {
        "type": "result", "subtype": "error_max_turns", "errors": ["  too many ", "", 3],
        "result": None, "api_error_status": 529, "terminal_reason": "max_turns",
        "session_id": "s1",
    }  # fmt: skip
    error = ResultError("run failed", data, 1)
    assert (error.subtype, error.errors, error.result) == ("error_max_turns", ["too many"], None)  # non-str entries dropped
    assert (error.api_error_status, error.terminal_reason, error.session_id) == (529, "max_turns", "s1")
    assert error.exit_code == 1 and error.data is data and isinstance(error, ProcessError)
    bare = ResultError("x")
    assert (bare.data, bare.errors, bare.subtype, bare.terminal_reason, bare.session_id) == ({}, [], None, None, None)
    assert ResultError("x", data={"errors": "one"}).errors == ["one"]
    assert ResultError("x", data={"errors": {"bad": 1}}).errors == [] and ResultError("x", data={"errors": 7}).errors == []


def test_result_error_raised_for_an_error_result_carries_terminal_reason() -> None:
    from claude_sync._wire.protocol import result_error

    wire = {
        "type": "result", "subtype": "success", "is_error": True, "result": "API Error: 529",
        "api_error_status": 529, "terminal_reason": "api_error", "session_id": "s9",
        "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1,
    }  # fmt: skip
    error = result_error(parse_message(wire), exit_code=1)  # type: ignore[arg-type]
    assert (error.terminal_reason, error.session_id, error.api_error_status) == ("api_error", "s9", 529)
    assert "API Error: 529" in str(error)


def test_json_decode_error_official_constructor() -> None:
    cause = ValueError("Expecting value")
    error = CLIJSONDecodeError("{oops", cause)
    assert (error.line, error.original_error) == ("{oops", cause)
    assert "{oops" in str(error)
    with pytest.raises(CLIJSONDecodeError) as info:
        decode_line(b"{not json}")
    assert info.value.line == "{not json}" and isinstance(info.value.original_error, ValueError)


# ----------------------------------------------------------------------------- permissions


def test_permission_results_construct_positionally_as_official() -> None:
    allow = PermissionResultAllow("allow", {"command": "ls"})
    assert (allow.behavior, allow.updated_input, allow.updated_permissions) == ("allow", {"command": "ls"}, None)
    deny = PermissionResultDeny("deny", "no", True)
    assert (deny.behavior, deny.message, deny.interrupt) == ("deny", "no", True)


def test_permission_update_without_destination_is_for_the_session() -> None:
    update = PermissionUpdate(type="addRules", rules=[PermissionRuleValue("Bash", "ls")], behavior="allow")
    assert update.to_dict() == {
        "type": "addRules", "destination": "session",
        "rules": [{"toolName": "Bash", "ruleContent": "ls"}], "behavior": "allow",
    }  # fmt: skip
    whole_tool = PermissionUpdate(type="addRules", rules=[PermissionRuleValue("Read")], behavior="allow", destination="localSettings")
    assert whole_tool.to_dict()["rules"] == [{"toolName": "Read"}]  # no null ruleContent
    assert whole_tool.to_dict()["destination"] == "localSettings"


@pytest.mark.parametrize(
    "update, missing",
    [
        (PermissionUpdate(type="addRules", behavior="allow"), "rules"),
        (PermissionUpdate(type="replaceRules", rules=[]), "behavior"),
        (PermissionUpdate(type="setMode"), "mode"),
        (PermissionUpdate(type="addDirectories"), "directories"),
        (PermissionUpdate(type="addRule", rules=[], behavior="allow"), "addRule"),
    ],
)
def test_permission_update_missing_fields_raise(update: PermissionUpdate, missing: str) -> None:
    with pytest.raises(ValueError, match=missing):
        update.to_dict()


def test_an_invalid_update_in_a_permission_answer_fails_loudly_not_silently() -> None:
    """The CLI would drop every update of the answer: the callback's mistake is reported."""
    from claude_sync._callbacks.permissions import permission_result_to_wire

    bad = PermissionResultAllow(updated_permissions=[PermissionUpdate(type="setMode")])
    with pytest.raises(ValueError, match="mode"):
        permission_result_to_wire(bad, original_input={}, tool_use_id="t")


# ----------------------------------------------------------------------------- hooks


def test_hook_context_reads_like_the_official_dict() -> None:
    context = HookContext(signal=None, request_id="r", callback_id="hook_0")
    assert context["signal"] is None and context.get("signal") is None
    assert dict(context) == {"signal": None, "request_id": "r", "callback_id": "hook_0"}
    assert "signal" in context and "nope" not in context
    with pytest.raises(KeyError):
        context["nope"]


def test_all_34_hook_events_have_typed_inputs_and_are_known() -> None:
    import claude_sync.types as types

    assert len(KNOWN_HOOK_EVENTS) == 34 and len(set(KNOWN_HOOK_EVENTS)) == 34
    assert {"PreModelSwitch", "PostModelSwitch", "DirectoryAdded", "PreSkillShellCommand"} <= set(KNOWN_HOOK_EVENTS)
    members = typing.get_args(types.HookInput)
    events = {typing.get_args(typing.get_type_hints(m)["hook_event_name"])[0] for m in members}
    assert events == set(KNOWN_HOOK_EVENTS)
    for member in members:
        assert member.__name__ == typing.get_args(typing.get_type_hints(member)["hook_event_name"])[0] + "HookInput"
        assert {"session_id", "transcript_path", "cwd"} <= member.__required_keys__


def test_hook_outputs_cover_every_event_with_specific_output() -> None:
    import claude_sync.types as types

    members = typing.get_args(types.HookSpecificOutput)
    names = {typing.get_args(typing.get_type_hints(m)["hookEventName"])[0] for m in members}
    assert names <= set(KNOWN_HOOK_EVENTS)
    assert {"PreModelSwitch", "PostModelSwitch", "Setup", "MessageDisplay", "PreSkillShellCommand"} <= names
    assert set(typing.get_args(types.HookJSONOutput)) == {types.AsyncHookJSONOutput, types.SyncHookJSONOutput}
    for member in members:  # as the official SDK's test: each one a top-level name too
        assert getattr(claude_sync, member.__name__) is member and member.__name__ in claude_sync.__all__


def test_not_required_keys_are_not_required() -> None:
    import claude_sync.types as types

    assert types.BaseHookInput.__required_keys__ == {"session_id", "transcript_path", "cwd"}
    assert "effort" in types.BaseHookInput.__optional_keys__
    assert types.SyncHookJSONOutput.__required_keys__ == frozenset()
    assert types.MessageOrigin.__required_keys__ == {"kind"}
    assert types.McpServerStatus.__required_keys__ == {"name", "status"}


def test_model_switch_hook_input_matches_the_cli_schema() -> None:
    import claude_sync.types as types

    required = types.PreModelSwitchHookInput.__required_keys__
    assert {"from_model", "to_model", "requested_model", "source", "context_tokens", "pricing"} <= required
    assert {"directory", "source"} <= types.DirectoryAddedHookInput.__required_keys__


def test_skill_shell_command_hook_matches_the_cli_schema() -> None:
    """CLI 2.1.332's ``PreSkillShellCommand`` input and output schemas (its bundle's zod
    schemas and the TS SDK 0.3.332's ``sdk.d.ts`` agree)."""
    import claude_sync.types as types

    hook_input = types.PreSkillShellCommandHookInput
    assert hook_input.__required_keys__ == {
        "session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
        "tool_use_id", "command_name", "invoked_by",
    }  # fmt: skip
    assert "command_source" in hook_input.__optional_keys__
    hints = typing.get_type_hints(hook_input)
    assert typing.get_args(hints["invoked_by"]) == ("user", "claude", "other")
    assert typing.get_type_hints(hints["tool_input"])["command"] is str
    output = types.PreSkillShellCommandHookSpecificOutput
    assert output.__required_keys__ == {"hookEventName"}
    assert output.__optional_keys__ == {"permissionDecision", "permissionDecisionReason", "updatedInput"}
    import typing_extensions  # strips NotRequired on every Python (3.9's typing keeps it)

    decision = typing_extensions.get_type_hints(output)["permissionDecision"]
    assert typing.get_args(decision) == ("allow", "deny", "ask", "defer")


# ----------------------------------------------------------------------------- messages

SID = "0b5c"


def test_new_message_fields_are_parsed() -> None:
    result = parse_message({
        "type": "result", "subtype": "success", "is_error": False, "session_id": SID,
        "deferred_tool_use": {"id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
        "origin": {"kind": "human"}, "user_message_uuid": "u1", "user_message_uuids": ["u1"],
        "terminal_reason": "completed",
    })  # fmt: skip
    assert isinstance(result, ResultMessage)
    assert result.deferred_tool_use is not None and result.deferred_tool_use.name == "Bash"
    assert (result.origin, result.user_message_uuid, result.user_message_uuids) == ({"kind": "human"}, "u1", ["u1"])
    assistant = parse_message({
        "type": "assistant", "session_id": SID, "user_message_uuid": "u2", "user_message_uuids": ["u2"],
        "message": {"model": "m", "content": [{"type": "text", "text": "hi"}]},
    })  # fmt: skip
    assert (assistant.user_message_uuid, assistant.user_message_uuids) == ("u2", ["u2"])  # type: ignore[union-attr]
    event = parse_message({"type": "stream_event", "uuid": "e", "session_id": SID, "event": {}, "user_message_uuid": "u3"})
    assert event.user_message_uuid == "u3"  # type: ignore[union-attr]


def test_system_init_is_exactly_the_official_plain_system_message() -> None:
    """As official 0.2.188: ``type(m).__name__ == "SystemMessage"`` and ``m.data`` is the wire
    dict (several official e2e tests check the name); our typed fields are ``m.init``."""
    init = parse_message({"type": "system", "subtype": "init", "session_id": SID, "model": "m"})
    assert type(init) is SystemMessage and type(init).__name__ == "SystemMessage" and init.subtype == "init"
    assert init.data["model"] == "m"
    assert init.init is not None and init.init.model == "m" and init.init.session_id == SID


# ----------------------------------------------------------------------------- shell pieces


def test_stderr_goes_to_sys_stderr_or_debug_stderr_without_a_callback(capsys: Any) -> None:
    from claude_sync._engine.process import stderr_sink

    stderr_sink(ClaudeAgentOptions())("cli says hi")
    assert capsys.readouterr().err == "cli says hi\n"
    buffer = io.StringIO()
    stderr_sink(ClaudeAgentOptions(debug_stderr=buffer))("to the buffer")
    assert buffer.getvalue() == "to the buffer\n"
    seen: List[str] = []
    assert stderr_sink(ClaudeAgentOptions(stderr=seen.append)) == seen.append


def test_trace_carrier_is_none_without_opentelemetry_loaded(monkeypatch: Any) -> None:
    import sys

    from claude_sync._tracing.carrier import trace_carrier

    monkeypatch.delitem(sys.modules, "opentelemetry", raising=False)
    assert trace_carrier() is None


def test_trace_carrier_uses_an_already_loaded_opentelemetry(monkeypatch: Any) -> None:
    from helpers import fake_opentelemetry

    from claude_sync._tracing.carrier import trace_carrier

    fake_opentelemetry(monkeypatch, "00-1-2-01")
    assert trace_carrier() == {"traceparent": "00-1-2-01"}


@pytest.mark.parametrize(
    "version, ignored",
    [("2.1.197", True), ("2.1.248", False), ("2.1.330 (Claude Code)", False), (None, True), ("", True)],
)
def test_verbatim_prompts_need_cli_2_1_248(version: Any, ignored: bool) -> None:
    from claude_sync._options.environment import verbatim_prompts_ignored

    assert (verbatim_prompts_ignored(version) is not None) == ignored
