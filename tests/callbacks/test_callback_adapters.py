"""The pure permission / hook adapters of ``claude_sync._core.callbacks``.

Wire examples are the ones the real CLI 2.1.197 sent (docs/protocol/REAL_CLI_2.1.197.md §4 b, c), with
``$SCRATCH`` and ``toolu_…`` filled in.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
from fractions import Fraction
from typing import Any, Dict, List, Optional

import pytest

from claude_sync._callbacks.hook_types import KNOWN_HOOK_EVENTS, HookContext, HookMatcher
from claude_sync._callbacks.hooks import (
    hook_call_from_request,
    hook_output_to_wire,
)
from claude_sync._callbacks.permission_types import (
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)
from claude_sync._callbacks.permissions import (
    deny_all_permission_wire,
    fail_closed_permission_wire,
    permission_call_from_request,
    permission_result_to_wire,
    suggestions_from_wire,
)
from claude_sync._options.hook_registry import HookRegistry, RegisteredHook
from claude_sync._wire.errors import (
    CallbackRequestError,
    ClaudeSDKError,
    UnknownHookCallbackError,
    callback_failure_reason,
)

# ----------------------------------------------------------------------------- wire examples

BASH_TOUCH_REQUEST: Dict[str, Any] = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "touch created_by_bash.txt", "description": "Create a file"},
    "description": "Create a file",
    "permission_suggestions": [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "touch created_by_bash.txt"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        {"type": "addDirectories", "directories": ["/scratch/work"], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
    ],
    "blocked_path": "/scratch/work/created_by_bash.txt",
    "tool_use_id": "toolu_01Bash",
}

WRITE_OUTSIDE_CWD_REQUEST: Dict[str, Any] = {
    "subtype": "can_use_tool",
    "tool_name": "Write",
    "display_name": "Write",
    "input": {"file_path": "/elsewhere/out.txt", "content": "hi"},
    "description": "Write /elsewhere/out.txt",
    "decision_reason": "Path is outside allowed working directories",
    "decision_reason_type": "workingDir",
    "tool_use_id": "toolu_01Write",
}

MCP_ADD_REQUEST: Dict[str, Any] = {
    "subtype": "can_use_tool",
    "tool_name": "mcp__calc__add",
    "display_name": "Add",
    "input": {"a": 2, "b": 3},
    "description": "Add two numbers",
    "permission_suggestions": [
        {
            "type": "addRules",
            "rules": [{"toolName": "mcp__calc__add"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ],
    "tool_use_id": "toolu_01Mcp",
}

SUBAGENT_REQUEST: Dict[str, Any] = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "touch from_subagent.txt"},
    "description": "Create a file",
    "permission_suggestions": [
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
    ],
    "blocked_path": "/scratch/work/from_subagent.txt",
    "tool_use_id": "toolu_01Sub",
    "agent_id": "a1b2c3d4",
}


class _Signal:
    def is_set(self) -> bool:
        return False

    def wait(self, timeout: Optional[float] = None) -> bool:
        return False


# ----------------------------------------------------------------------------- can_use_tool in


@pytest.mark.parametrize(
    "request_, expected",
    [
        (
            BASH_TOUCH_REQUEST,
            dict(
                tool_name="Bash",
                tool_use_id="toolu_01Bash",
                display_name="Bash",
                description="Create a file",
                title=None,
                decision_reason=None,
                decision_reason_type=None,
                blocked_path="/scratch/work/created_by_bash.txt",
                agent_id=None,
                suggestions=[
                    PermissionUpdate(
                        type="addRules",
                        rules=[PermissionRuleValue("Bash", "touch created_by_bash.txt")],
                        behavior="allow",
                        destination="localSettings",
                    ),
                    PermissionUpdate(
                        type="addDirectories", directories=["/scratch/work"], destination="session"
                    ),
                    PermissionUpdate(type="setMode", mode="acceptEdits", destination="session"),
                ],
            ),
        ),
        (
            WRITE_OUTSIDE_CWD_REQUEST,
            dict(
                tool_name="Write",
                tool_use_id="toolu_01Write",
                display_name="Write",
                description="Write /elsewhere/out.txt",
                title=None,
                decision_reason="Path is outside allowed working directories",
                decision_reason_type="workingDir",
                blocked_path=None,
                agent_id=None,
                suggestions=[],
            ),
        ),
        (
            MCP_ADD_REQUEST,
            dict(
                tool_name="mcp__calc__add",
                tool_use_id="toolu_01Mcp",
                display_name="Add",
                description="Add two numbers",
                title=None,
                decision_reason=None,
                decision_reason_type=None,
                blocked_path=None,
                agent_id=None,
                suggestions=[
                    PermissionUpdate(
                        type="addRules",
                        rules=[PermissionRuleValue("mcp__calc__add", None)],
                        behavior="allow",
                        destination="localSettings",
                    )
                ],
            ),
        ),
        (
            SUBAGENT_REQUEST,
            dict(
                tool_name="Bash",
                tool_use_id="toolu_01Sub",
                display_name="Bash",
                description="Create a file",
                title=None,
                decision_reason=None,
                decision_reason_type=None,
                blocked_path="/scratch/work/from_subagent.txt",
                agent_id="a1b2c3d4",
                suggestions=[
                    PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")
                ],
            ),
        ),
    ],
    ids=["bash_touch", "write_outside_cwd", "mcp_add", "subagent"],
)
def test_permission_request_populates_every_context_field(
    request_: Dict[str, Any], expected: Dict[str, Any]
) -> None:
    request = copy.deepcopy(request_)
    signal = _Signal()
    tool_name, tool_input, context = permission_call_from_request(
        request, signal=signal, request_id="req-7"
    )
    assert tool_name == expected.pop("tool_name")
    assert tool_input == request_["input"]
    assert isinstance(context, ToolPermissionContext)
    assert context.signal is signal
    assert context.request_id == "req-7"
    assert context.raw == request_
    for name, value in expected.items():
        assert getattr(context, name) == value, name


def test_permission_request_title_is_read() -> None:
    request = dict(WRITE_OUTSIDE_CWD_REQUEST, title="Claude wants to write out.txt")
    _, _, context = permission_call_from_request(request, signal=None, request_id=None)
    assert context.title == "Claude wants to write out.txt"
    assert context.signal is None and context.request_id is None


def test_tool_input_is_the_request_dict_so_in_place_edits_are_sent() -> None:
    request = copy.deepcopy(BASH_TOUCH_REQUEST)
    _, tool_input, _ = permission_call_from_request(request, signal=None, request_id="r")
    tool_input["command"] = "touch safer.txt"
    wire = permission_result_to_wire(
        PermissionResultAllow(), original_input=request["input"], tool_use_id="toolu_01Bash"
    )
    assert wire["updatedInput"]["command"] == "touch safer.txt"


def test_non_string_context_fields_become_none_but_stay_in_raw() -> None:
    request = dict(MCP_ADD_REQUEST, decision_reason={"type": "rule"}, agent_id=7, title=None)
    _, _, context = permission_call_from_request(request, signal=None, request_id="r")
    assert context.decision_reason is None
    assert context.agent_id is None
    assert context.raw["decision_reason"] == {"type": "rule"}
    assert context.raw["agent_id"] == 7


@pytest.mark.parametrize(
    "request_, fragment",
    [
        ({"subtype": "can_use_tool", "input": {}}, "without a tool_name"),
        ({"tool_name": "", "input": {}}, "without a tool_name"),
        ({"tool_name": 3, "input": {}}, "without a tool_name"),
        ({"tool_name": "Bash"}, "must be an object, got NoneType"),
        ({"tool_name": "Bash", "input": ["ls"]}, "must be an object, got list"),
    ],
)
def test_malformed_permission_request_raises_callback_request_error(
    request_: Dict[str, Any], fragment: str
) -> None:
    with pytest.raises(CallbackRequestError, match=fragment) as info:
        permission_call_from_request(request_, signal=None, request_id="r")
    assert info.value.subtype == "can_use_tool"
    assert isinstance(info.value, ClaudeSDKError) and isinstance(info.value, ValueError)


# ----------------------------------------------------------------------------- suggestions


SUGGESTION_KINDS = [
    (
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "git status:*"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        PermissionUpdate(
            type="addRules",
            rules=[PermissionRuleValue("Bash", "git status:*")],
            behavior="allow",
            destination="localSettings",
        ),
    ),
    (
        {
            "type": "addRules",
            "rules": [{"toolName": "mcp__calc__add"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        PermissionUpdate(
            type="addRules",
            rules=[PermissionRuleValue("mcp__calc__add")],
            behavior="allow",
            destination="localSettings",
        ),
    ),
    (
        {
            "type": "replaceRules",
            "rules": [{"toolName": "Read"}, {"toolName": "Bash", "ruleContent": "ls:*"}],
            "behavior": "deny",
            "destination": "userSettings",
        },
        PermissionUpdate(
            type="replaceRules",
            rules=[PermissionRuleValue("Read"), PermissionRuleValue("Bash", "ls:*")],
            behavior="deny",
            destination="userSettings",
        ),
    ),
    (
        {
            "type": "removeRules",
            "rules": [{"toolName": "WebFetch", "ruleContent": "domain:example.com"}],
            "behavior": "ask",
            "destination": "projectSettings",
        },
        PermissionUpdate(
            type="removeRules",
            rules=[PermissionRuleValue("WebFetch", "domain:example.com")],
            behavior="ask",
            destination="projectSettings",
        ),
    ),
    (
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        PermissionUpdate(type="setMode", mode="acceptEdits", destination="session"),
    ),
    (
        {"type": "addDirectories", "directories": ["/a", "/b"], "destination": "session"},
        PermissionUpdate(type="addDirectories", directories=["/a", "/b"], destination="session"),
    ),
    (
        {"type": "removeDirectories", "directories": ["/a"], "destination": "cliArg"},
        PermissionUpdate(type="removeDirectories", directories=["/a"], destination="cliArg"),
    ),
    (
        {"type": "setSandbox", "enabled": True, "paths": ["/x"], "destination": "session"},
        PermissionUpdate(
            type="setSandbox", destination="session", extra={"enabled": True, "paths": ["/x"]}
        ),
    ),
]
SUGGESTION_IDS = [
    "addRules", "addRules_no_content", "replaceRules", "removeRules", "setMode",
    "addDirectories", "removeDirectories", "unknown_kind",
]  # fmt: skip


@pytest.mark.parametrize("wire, update", SUGGESTION_KINDS, ids=SUGGESTION_IDS)
def test_every_suggestion_kind_parses_from_a_request(
    wire: Dict[str, Any], update: PermissionUpdate
) -> None:
    request = {"tool_name": "Bash", "input": {}, "permission_suggestions": [wire]}
    _, _, context = permission_call_from_request(request, signal=None, request_id="r")
    assert context.suggestions == [update]


@pytest.mark.parametrize("wire, update", SUGGESTION_KINDS, ids=SUGGESTION_IDS)
def test_every_suggestion_kind_goes_back_to_the_same_wire(
    wire: Dict[str, Any], update: PermissionUpdate
) -> None:
    assert update.to_dict() == wire
    assert PermissionUpdate.from_dict(wire).to_dict() == wire


@pytest.mark.parametrize("wire, update", SUGGESTION_KINDS, ids=SUGGESTION_IDS)
def test_permission_update_round_trip(wire: Dict[str, Any], update: PermissionUpdate) -> None:
    assert PermissionUpdate.from_dict(update.to_dict()) == update


def test_suggestions_accepted_back_as_updated_permissions_echo_the_request() -> None:
    _, tool_input, context = permission_call_from_request(
        copy.deepcopy(BASH_TOUCH_REQUEST), signal=None, request_id="r"
    )
    wire = permission_result_to_wire(
        PermissionResultAllow(updated_permissions=context.suggestions),
        original_input=tool_input,
        tool_use_id=context.tool_use_id,
    )
    assert wire["updatedPermissions"] == BASH_TOUCH_REQUEST["permission_suggestions"]


@pytest.mark.parametrize(
    "suggestions, kept_types",
    [
        (None, []),
        ("deny", []),
        (["deny", {"type": "setMode", "mode": "plan", "destination": "session"}], ["setMode"]),
        ([{"type": "addRules", "rules": "Bash"}, {"type": "addRules", "rules": [1]}], []),
        ([{"type": "addDirectories", "directories": "/a"}], []),
        ([{"type": "addRules", "rules": [{"toolName": "Read"}]}, 5, None], ["addRules"]),
    ],
    ids=["absent", "string", "old_string_items", "bad_rules", "bad_directories", "mixed"],
)
def test_malformed_suggestions_are_left_out_but_stay_in_raw(
    suggestions: Any, kept_types: List[str]
) -> None:
    request = {"tool_name": "Bash", "input": {}, "permission_suggestions": suggestions}
    _, _, context = permission_call_from_request(request, signal=None, request_id="r")
    assert [update.type for update in context.suggestions] == kept_types
    assert context.raw["permission_suggestions"] == suggestions
    assert [update.type for update in suggestions_from_wire(suggestions)] == kept_types


# ----------------------------------------------------------------------------- can_use_tool out

ORIGINAL = {"command": "touch created_by_bash.txt"}
UPDATE = PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")


@pytest.mark.parametrize(
    "result, tool_use_id, expected",
    [
        (
            PermissionResultAllow(),
            "toolu_1",
            {"behavior": "allow", "updatedInput": ORIGINAL},
        ),
        (
            PermissionResultAllow(updated_input={"command": "touch changed_by_sdk.txt"}),
            "toolu_1",
            {
                "behavior": "allow",
                "updatedInput": {"command": "touch changed_by_sdk.txt"},
            },
        ),
        (
            PermissionResultAllow(updated_input={}),
            "toolu_1",
            {"behavior": "allow", "updatedInput": {}},
        ),
        (
            PermissionResultAllow(updated_permissions=[UPDATE]),
            "toolu_1",
            {
                "behavior": "allow",
                "updatedInput": ORIGINAL,
                "updatedPermissions": [
                    {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
                ],
            },
        ),
        (
            PermissionResultAllow(updated_permissions=[]),
            "toolu_1",
            {
                "behavior": "allow",
                "updatedInput": ORIGINAL,
                "updatedPermissions": [],
            },
        ),
        (PermissionResultAllow(), None, {"behavior": "allow", "updatedInput": ORIGINAL}),
        (
            PermissionResultDeny(message="Not allowed in tests"),
            "toolu_1",
            {
                "behavior": "deny",
                "message": "Not allowed in tests",
            },
        ),
        (
            PermissionResultDeny(message="stop", interrupt=True),
            "toolu_1",
            {"behavior": "deny", "message": "stop", "interrupt": True},
        ),
        (
            PermissionResultDeny(),
            None,
            {"behavior": "deny", "message": ""},
        ),
    ],
    ids=[
        "allow", "allow_updated_input", "allow_empty_updated_input", "allow_permissions",
        "allow_empty_permissions", "allow_no_tool_use_id", "deny", "deny_interrupt",
        "deny_defaults",
    ],
)  # fmt: skip
def test_permission_result_to_wire(
    result: Any, tool_use_id: Optional[str], expected: Dict[str, Any]
) -> None:
    wire = permission_result_to_wire(result, original_input=ORIGINAL, tool_use_id=tool_use_id)
    assert wire == expected
    json.dumps(wire)


def test_deny_interrupt_is_sent_as_a_real_bool() -> None:
    wire = permission_result_to_wire(
        PermissionResultDeny(message="m", interrupt=1),  # type: ignore[arg-type]
        original_input={},
        tool_use_id=None,
    )
    assert wire["interrupt"] is True


def test_the_class_decides_the_behavior_not_its_field() -> None:
    odd = PermissionResultAllow(behavior="deny")  # type: ignore[arg-type]
    wire = permission_result_to_wire(odd, original_input=ORIGINAL, tool_use_id=None)
    assert wire["behavior"] == "allow"


@pytest.mark.parametrize(
    "result, type_name, hint",
    [
        (None, "NoneType", "every code path"),
        (True, "bool", ""),
        ("allow", "str", ""),
        (PermissionResultAllow, "type", ""),
        (PermissionUpdate(type="setMode"), "PermissionUpdate", ""),
    ],
    ids=["none", "bool", "str", "class_not_instance", "other_dataclass"],
)
def test_wrong_permission_result_type_raises_type_error(
    result: Any, type_name: str, hint: str
) -> None:
    with pytest.raises(TypeError) as info:
        permission_result_to_wire(result, original_input=ORIGINAL, tool_use_id="t")
    message = str(info.value)
    assert f"got {type_name}" in message
    assert "PermissionResultAllow or PermissionResultDeny" in message
    assert hint in message


@pytest.mark.parametrize(
    "result, fragment",
    [
        (
            PermissionResultAllow(updated_input=["x"]),  # type: ignore[arg-type]
            "updated_input must be a dict or None, got list",
        ),
        (
            PermissionResultAllow(updated_permissions=UPDATE),  # type: ignore[arg-type]
            "must be a list of PermissionUpdate or None, got PermissionUpdate",
        ),
        (
            PermissionResultAllow(updated_permissions=[UPDATE.to_dict()]),  # type: ignore[list-item]
            r"updated_permissions\[0\] must be a PermissionUpdate .*got dict",
        ),
        (
            PermissionResultDeny(message=None),  # type: ignore[arg-type]
            "message must be a str, got NoneType",
        ),
    ],
    ids=["updated_input_list", "permissions_not_list", "permissions_dict_item", "deny_message"],
)
def test_bad_fields_of_a_permission_result_raise_type_error(result: Any, fragment: str) -> None:
    with pytest.raises(TypeError, match=fragment):
        permission_result_to_wire(result, original_input=ORIGINAL, tool_use_id="t")


@pytest.mark.parametrize(
    "answer, tool_use_id, expected",
    [
        (
            {"behavior": "allow", "updatedInput": {"command": "ls"}},
            "toolu_1",
            {"behavior": "allow", "updatedInput": {"command": "ls"}},  # the dict as written
        ),
        ({"behavior": "allow"}, None, {"behavior": "allow", "updatedInput": ORIGINAL}),
        (
            {
                "behavior": "allow", "updatedInput": {}, "toolUseID": "toolu_1",
                "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}],
                "decisionClassification": "user_permanent",
            },
            "toolu_1",
            {
                "behavior": "allow", "updatedInput": {}, "toolUseID": "toolu_1",
                "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
                "decisionClassification": "user_permanent",
            },
        ),
        (
            {"behavior": "deny", "message": "no"},
            "toolu_1",
            {"behavior": "deny", "message": "no"},
        ),
        (
            {"behavior": "deny", "message": "stop", "interrupt": True, "decisionClassification": "user_reject"},
            None,
            {"behavior": "deny", "message": "stop", "interrupt": True, "decisionClassification": "user_reject"},
        ),
    ],
    ids=["allow", "allow_keeps_input", "allow_everything", "deny", "deny_interrupt"],
)  # fmt: skip
def test_the_two_wire_answer_dicts_of_the_ts_docs_are_accepted(
    answer: Dict[str, Any], tool_use_id: Optional[str], expected: Dict[str, Any]
) -> None:
    assert permission_result_to_wire(answer, original_input=ORIGINAL, tool_use_id=tool_use_id) == expected


@pytest.mark.parametrize(
    "answer, error, fragment",
    [
        ({}, TypeError, "needs \"behavior\": \"allow\" or \"deny\", got None"),
        ({"behavior": "ask"}, TypeError, "got 'ask'"),
        ({"behavior": "allow", "updated_input": {}}, TypeError, "does not take: updated_input"),
        ({"behavior": "deny", "message": "m", "updatedInput": {}}, TypeError, "does not take: updatedInput"),
        ({"behavior": "allow", "updatedInput": None}, TypeError, "updatedInput\" must be a dict"),
        ({"behavior": "allow", "updatedInput": ["x"]}, TypeError, "got list"),
        ({"behavior": "allow", "updatedPermissions": {"type": "setMode"}}, TypeError, "list of permission update dicts"),
        ({"behavior": "allow", "updatedPermissions": [{"type": "setMode"}]}, ValueError, "needs mode"),
        ({"behavior": "deny"}, TypeError, "needs a str \"message\", got NoneType"),
        ({"behavior": "deny", "message": "m", "interrupt": "yes"}, TypeError, "interrupt\" must be a bool"),
        ({"behavior": "deny", "message": "m", "decisionClassification": "always"}, TypeError, "user_temporary"),
        ({"behavior": "allow", "toolUseID": "toolu_other"}, TypeError, "toolu_other"),
    ],
    ids=[
        "no_behavior", "unknown_behavior", "snake_case_key", "allow_key_on_deny", "input_none", "input_list",
        "permissions_not_list", "permission_missing_field", "deny_no_message", "interrupt_not_bool",
        "bad_classification", "other_tool_use_id",
    ],
)  # fmt: skip
def test_any_other_answer_dict_is_refused_with_what_was_wrong(answer: Dict[str, Any], error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        permission_result_to_wire(answer, original_input=ORIGINAL, tool_use_id="toolu_1")


def test_allow_with_a_non_dict_original_input_raises() -> None:
    with pytest.raises(TypeError, match="original_input must be a dict, got NoneType"):
        permission_result_to_wire(
            PermissionResultAllow(),
            original_input=None,  # type: ignore[arg-type]
            tool_use_id="t",
        )


# ----------------------------------------------------------------------------- shell-made denies


@pytest.mark.parametrize("tool_use_id", ["toolu_9", None])
def test_fail_closed_permission_wire(tool_use_id: Optional[str]) -> None:
    wire = fail_closed_permission_wire("ValueError: boom", tool_use_id)
    assert wire["behavior"] == "deny"
    assert wire["interrupt"] is False
    assert "can_use_tool" in wire["message"] and "failed" in wire["message"]
    assert wire["message"].endswith("ValueError: boom")
    assert wire.get("toolUseID") == tool_use_id
    assert ("toolUseID" in wire) == (tool_use_id is not None)
    assert set(wire) <= {"behavior", "message", "interrupt", "toolUseID"}


@pytest.mark.parametrize("tool_use_id", ["toolu_9", None])
def test_deny_all_permission_wire(tool_use_id: Optional[str]) -> None:
    wire = deny_all_permission_wire("Bash", tool_use_id)
    assert wire["behavior"] == "deny"
    assert wire["interrupt"] is False
    assert "deny_all_permissions" in wire["message"]
    assert "Bash" in wire["message"]
    assert ("toolUseID" in wire) == (tool_use_id is not None)
    assert wire.get("toolUseID") == tool_use_id


@pytest.mark.parametrize(
    "error, expected",
    [
        (ValueError("boom"), "ValueError: boom"),
        (RuntimeError(), "RuntimeError"),
        (KeyError("x"), "KeyError: 'x'"),
        (TypeError("  padded\n"), "TypeError: padded"),
    ],
)
def test_callback_failure_reason(error: BaseException, expected: str) -> None:
    assert callback_failure_reason(error) == expected


def test_callback_failure_reason_is_bounded() -> None:
    reason = callback_failure_reason(ValueError("x" * 10_000))
    assert len(reason) == 2000
    assert reason.startswith("ValueError: xxx") and reason.endswith("…")


# ----------------------------------------------------------------------------- hook registry


def _hook_a(data: Dict[str, Any], tool_use_id: Optional[str], ctx: HookContext) -> None:
    return None


def _hook_b(data: Dict[str, Any], tool_use_id: Optional[str], ctx: HookContext) -> Dict[str, Any]:
    return {"continue_": True}


def _several_events() -> Dict[str, List[HookMatcher]]:
    return {
        "PreToolUse": [
            HookMatcher(matcher="Bash", hooks=[_hook_a, _hook_b], timeout=30),
            HookMatcher(matcher="Write|Edit", hooks=[_hook_b]),
        ],
        "UserPromptSubmit": [HookMatcher(hooks=[_hook_a], timeout=2.5)],
        "Stop": [HookMatcher(hooks=[_hook_b])],
    }


class _Count(int):
    """An ``int`` subclass, as numpy-like integer types are for ``numbers.Integral``."""


def _matcher(**fields: Any) -> HookMatcher:
    fields.setdefault("hooks", [_hook_a])
    return HookMatcher(**fields)


def test_initialize_hooks_field_for_several_events_and_matchers() -> None:
    registry = HookRegistry.from_options(_several_events())
    assert registry.initialize_hooks_field() == {
        "PreToolUse": [
            {"hookCallbackIds": ["hook_0", "hook_1"], "matcher": "Bash", "timeout": 30},
            {"hookCallbackIds": ["hook_2"], "matcher": "Write|Edit"},
        ],
        "UserPromptSubmit": [{"hookCallbackIds": ["hook_3"], "timeout": 2.5}],
        "Stop": [{"hookCallbackIds": ["hook_4"]}],
    }
    assert len(registry) == 5
    assert registry.callback_ids == ["hook_0", "hook_1", "hook_2", "hook_3", "hook_4"]
    json.dumps(registry.initialize_hooks_field())


def test_lookup_returns_each_registered_callback() -> None:
    registry = HookRegistry.from_options(_several_events())
    assert [registry.lookup(f"hook_{n}") for n in range(5)] == [
        _hook_a, _hook_b, _hook_b, _hook_a, _hook_b,
    ]  # fmt: skip
    assert registry.registered("hook_2") == RegisteredHook(
        callback_id="hook_2",
        event="PreToolUse",
        matcher_index=1,
        matcher="Write|Edit",
        timeout=None,
        callback=_hook_b,
    )


def test_callback_ids_are_stable_for_the_same_options() -> None:
    first = HookRegistry.from_options(_several_events())
    second = HookRegistry.from_options(_several_events())
    assert first.initialize_hooks_field() == second.initialize_hooks_field()


def test_the_same_function_registered_twice_gets_two_ids() -> None:
    registry = HookRegistry.from_options(
        {
            "PreToolUse": [HookMatcher(hooks=[_hook_a, _hook_a])],
            "Stop": [HookMatcher(hooks=[_hook_a])],
        }
    )
    assert registry.callback_ids == ["hook_0", "hook_1", "hook_2"]
    assert {registry.lookup(cid) for cid in registry.callback_ids} == {_hook_a}


@pytest.mark.parametrize(
    "hooks",
    [None, {}, {"PreToolUse": []}, {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[])]}],
    ids=["none", "empty", "event_without_matchers", "matcher_without_hooks"],
)
def test_no_callbacks_give_an_empty_hooks_field(hooks: Any) -> None:
    registry = HookRegistry.from_options(hooks)
    assert registry.initialize_hooks_field() == {}
    assert len(registry) == 0


def test_matchers_without_hooks_do_not_shift_ids_or_leak_into_the_field() -> None:
    registry = HookRegistry.from_options(
        {"PreToolUse": [HookMatcher(matcher="Read", hooks=[]), HookMatcher(hooks=[_hook_a])]}
    )
    assert registry.initialize_hooks_field() == {"PreToolUse": [{"hookCallbackIds": ["hook_0"]}]}
    assert registry.registered("hook_0").matcher_index == 1


def test_every_known_and_an_unknown_event_name_is_accepted() -> None:
    events = list(KNOWN_HOOK_EVENTS) + ["SomeFutureEvent"]
    registry = HookRegistry.from_options({event: [_matcher()] for event in events})
    field = registry.initialize_hooks_field()
    assert list(field) == events
    assert len(registry) == len(events)


def test_tuples_are_accepted_for_matchers_and_hooks() -> None:
    registry = HookRegistry.from_options(
        {"PreToolUse": (HookMatcher(hooks=(_hook_a,)),)}  # type: ignore[arg-type]
    )
    assert registry.lookup("hook_0") is _hook_a


@pytest.mark.parametrize(
    "timeout, wire",
    [(30, 30), (2.5, 2.5), (Fraction(5, 2), 2.5), (Fraction(4, 2), 2.0), (_Count(7), 7)],
    ids=["int", "float", "fraction", "whole_fraction", "integral_type"],
)
def test_timeouts_are_sent_as_plain_json_numbers(timeout: Any, wire: Any) -> None:
    registry = HookRegistry.from_options({"Stop": [_matcher(timeout=timeout)]})
    field = registry.initialize_hooks_field()
    sent = field["Stop"][0]["timeout"]
    assert sent == wire and type(sent) is type(wire)
    json.dumps(field)


def test_callable_objects_are_accepted_as_hooks() -> None:
    class Hook:
        def __call__(self, data: Any, tool_use_id: Any, ctx: Any) -> None:
            return None

    hook = Hook()
    registry = HookRegistry.from_options({"Stop": [HookMatcher(hooks=[hook])]})
    assert registry.lookup("hook_0") is hook


@pytest.mark.parametrize(
    "hooks, error, fragment",
    [
        ([_matcher()], TypeError, "hooks must be a dict .* got list"),
        ({1: [_matcher()]}, TypeError, "event names must be str, got int"),
        ({"": [_matcher()]}, ValueError, "must not be empty"),
        ({"Stop": _matcher()}, TypeError, "single HookMatcher; wrap it in a list"),
        ({"Stop": None}, TypeError, r"\['Stop'\] must be a list of HookMatcher, got NoneType"),
        ({"Stop": [{"hooks": [_hook_a]}]}, TypeError, r"\['Stop'\]\[0\] must be a HookMatcher"),
        ({"Stop": [_hook_a]}, TypeError, "must be a HookMatcher, got function"),
        ({"Stop": [_matcher(matcher=5)]}, TypeError, r"\.matcher must be a str or None, got int"),
        ({"Stop": [_matcher(hooks=_hook_a)]}, TypeError, r"\.hooks must be a list .* function"),
        ({"Stop": [_matcher(hooks=[_hook_a, "x"])]}, TypeError, r"\.hooks\[1\] must be callable"),
        ({"Stop": [_matcher(timeout=0)]}, ValueError, "finite number of seconds > 0, got 0"),
        ({"Stop": [_matcher(timeout=-1.5)]}, ValueError, "> 0, got -1.5"),
        ({"Stop": [_matcher(timeout=math.inf)]}, ValueError, "got inf"),
        ({"Stop": [_matcher(timeout=math.nan)]}, ValueError, "got nan"),
        ({"Stop": [_matcher(timeout="30")]}, TypeError, "number of seconds or None, got str"),
        ({"Stop": [_matcher(timeout=True)]}, TypeError, "got bool"),
        ({"Stop": [_matcher(timeout=3_000_000)]}, ValueError, r"at most 2147483\.647 seconds .* got 3000000"),
    ],
    ids=[
        "hooks_list", "event_int", "event_empty", "single_matcher", "matchers_none",
        "matcher_dict", "matcher_function", "matcher_pattern_int", "hooks_not_list",
        "hook_not_callable", "timeout_zero", "timeout_negative", "timeout_inf", "timeout_nan",
        "timeout_str", "timeout_bool", "timeout_beyond_the_clis_timer",
    ],
)  # fmt: skip
def test_bad_hook_options_are_rejected_at_construction(
    hooks: Any, error: type, fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        HookRegistry.from_options(hooks)


@pytest.mark.parametrize("callback_id", ["hook_99", "", None, 0, "cb_PreToolUse"])
def test_unknown_callback_id_raises_a_typed_error(callback_id: Any) -> None:
    registry = HookRegistry.from_options({"Stop": [HookMatcher(hooks=[_hook_a])]})
    with pytest.raises(UnknownHookCallbackError, match="known: hook_0") as info:
        registry.lookup(callback_id)
    error = info.value
    assert error.callback_id == callback_id
    assert error.subtype == "hook_callback"
    assert isinstance(error, (CallbackRequestError, ClaudeSDKError, LookupError))


def test_unknown_callback_id_with_no_hooks_registered() -> None:
    with pytest.raises(UnknownHookCallbackError, match="none registered"):
        HookRegistry.from_options(None).lookup("hook_0")


def test_callback_errors_pickle_with_their_attributes() -> None:
    unknown = UnknownHookCallbackError("no such id", callback_id="hook_7")
    copied = pickle.loads(pickle.dumps(unknown))
    assert type(copied) is UnknownHookCallbackError
    assert str(copied) == "no such id"
    assert (copied.callback_id, copied.subtype) == ("hook_7", "hook_callback")
    bad = pickle.loads(pickle.dumps(CallbackRequestError("broken", subtype="can_use_tool")))
    assert (str(bad), bad.subtype) == ("broken", "can_use_tool")


def test_duplicate_ids_in_a_hand_built_registry_are_rejected() -> None:
    entry = RegisteredHook("hook_0", "Stop", 0, None, None, _hook_a)
    with pytest.raises(ValueError, match="duplicate hook callback id 'hook_0'"):
        HookRegistry([entry, entry])


# ----------------------------------------------------------------------------- hook calls


def test_hook_call_from_a_real_pre_tool_use_request() -> None:
    hook_input = {
        "session_id": "s-1",
        "transcript_path": "/home/u/.claude/projects/p/s-1.jsonl",
        "cwd": "/scratch/work",
        "prompt_id": "p-1",
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "effort": {"level": "high"},
        "tool_name": "Bash",
        "tool_input": {"command": "touch x"},
        "tool_use_id": "toolu_01Bash",
    }
    request = {
        "subtype": "hook_callback",
        "callback_id": "hook_0",
        "input": hook_input,
        "tool_use_id": "toolu_01Bash",
    }
    callback_id, got_input, tool_use_id = hook_call_from_request(request)
    assert (callback_id, tool_use_id) == ("hook_0", "toolu_01Bash")
    assert got_input is hook_input


@pytest.mark.parametrize(
    "request_, expected",
    [
        ({"callback_id": "hook_3", "input": {"prompt": "hi"}}, ("hook_3", {"prompt": "hi"}, None)),
        ({"callback_id": "hook_3"}, ("hook_3", {}, None)),
        (
            {"callback_id": "hook_3", "input": None, "tool_use_id": "hook-1a2b"},
            ("hook_3", {}, "hook-1a2b"),
        ),
    ],
    ids=["no_tool_use_id", "no_input", "synthetic_tool_use_id"],
)  # fmt: skip
def test_hook_call_optional_parts(request_: Dict[str, Any], expected: Any) -> None:
    assert hook_call_from_request(request_) == expected


@pytest.mark.parametrize(
    "request_, fragment",
    [
        ({"input": {}}, "without a callback_id"),
        ({"callback_id": "", "input": {}}, "without a callback_id"),
        ({"callback_id": 3, "input": {}}, "without a callback_id"),
        ({"callback_id": "hook_0", "input": "text"}, "input must be an object, got str"),
        ({"callback_id": "hook_0", "tool_use_id": 5}, "tool_use_id must be a str, got int"),
    ],
)  # fmt: skip
def test_malformed_hook_request_raises(request_: Dict[str, Any], fragment: str) -> None:
    with pytest.raises(CallbackRequestError, match=fragment) as info:
        hook_call_from_request(request_)
    assert info.value.subtype == "hook_callback"


DENY_OUTPUT = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Blocked by the test hook",
    }
}


@pytest.mark.parametrize(
    "output, expected",
    [
        (None, {}),
        ({}, {}),
        (DENY_OUTPUT, DENY_OUTPUT),
        ({"continue_": False, "stopReason": "done"}, {"continue": False, "stopReason": "done"}),
        ({"async_": True, "asyncTimeout": 5000}, {"async": True, "asyncTimeout": 5000}),
        ({"continue_": True, "async_": False}, {"continue": True, "async": False}),
        ({"continue": False}, {"continue": False}),
        ({"continue_": False, "continue": False}, {"continue": False}),
        ({"decision": "block", "reason": "no"}, {"decision": "block", "reason": "no"}),
        (
            {"hookSpecificOutput": {"continue_": 1, "updatedInput": {"async_": 2}}},
            {"hookSpecificOutput": {"continue_": 1, "updatedInput": {"async_": 2}}},
        ),
    ],
    ids=[
        "none", "empty", "pre_tool_use_deny", "continue_", "async_", "both_safe_keys",
        "wire_spelling", "both_spellings_agree", "decision", "nested_keys_untouched",
    ],
)  # fmt: skip
def test_hook_output_to_wire(output: Any, expected: Dict[str, Any]) -> None:
    wire = hook_output_to_wire(output)
    assert wire == expected
    if output is not None:
        assert wire is not output


def test_hook_output_is_not_modified() -> None:
    output = {"continue_": False}
    hook_output_to_wire(output)
    assert output == {"continue_": False}


@pytest.mark.parametrize(
    "output, fragment",
    [
        ({"continue_": True, "continue": False}, "both 'continue_'=True and 'continue'=False"),
        ({"async": True, "async_": False}, "both 'async_'=False and 'async'=True"),
    ],
)
def test_conflicting_spellings_in_hook_output_raise(output: Dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        hook_output_to_wire(output)


@pytest.mark.parametrize(
    "output, type_name",
    [(True, "bool"), ("continue", "str"), ([{"continue": True}], "list"), (0, "int")],
)
def test_hook_output_of_a_wrong_type_raises(output: Any, type_name: str) -> None:
    with pytest.raises(TypeError, match=f"must return a dict .* or None, got {type_name}$"):
        hook_output_to_wire(output)


def test_permission_context_is_the_one_its_init_builds() -> None:
    # The context is made without calling __init__ (cheaper per request): it must be the very
    # instance the dataclass's own __init__ makes from the same values, fields in order.
    request = dict(copy.deepcopy(BASH_TOUCH_REQUEST), agent_id="a1", title="T", blocked_path="/x")
    signal = _Signal()
    _, _, context = permission_call_from_request(request, signal=signal, request_id="req-1")
    by_init = ToolPermissionContext(**{f.name: getattr(context, f.name) for f in dataclasses.fields(context)})
    assert context == by_init and repr(context) == repr(by_init)
    assert list(vars(context)) == list(vars(by_init))
    assert dataclasses.asdict(context)["raw"] == request


def test_permission_contexts_share_no_mutable_field() -> None:
    request = {"tool_name": "Bash", "input": {"command": "ls"}}  # no suggestions
    _, _, first = permission_call_from_request(request, signal=None, request_id="r1")
    _, _, second = permission_call_from_request(request, signal=None, request_id="r2")
    first.suggestions.append(PermissionUpdate(type="setMode", mode="plan"))
    first.raw["added"] = True
    assert second.suggestions == [] and "added" not in second.raw and "added" not in request
