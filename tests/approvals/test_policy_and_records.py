"""Approvals, pure parts: the rule matcher, the policy, the records, the gate, staleness."""

from __future__ import annotations

import json
import pickle
import threading
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ApprovalClaimedError,
    ApprovalDecision,
    ApprovalGate,
    ApprovalPolicy,
    ApprovalRecordError,
    ClaudeAgentOptions,
    HookMatcher,
    PendingApproval,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_sync._agents.reuse import CliSlot, retire_reason
from claude_sync._approvals.staleness import why_stale
from claude_sync._options.shell_commands import commands_run
from claude_sync._options.tool_rules import check_rule, rule_matches
from claude_sync._wire.parse import parse_message


def needs_bash(name: str, tool_input: Dict[str, Any]) -> Any:
    return name == "Bash" and "deploy" in tool_input.get("command", "")


def record(**changes: Any) -> PendingApproval:
    fields: Dict[str, Any] = dict(
        session_id="0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01", tool_use_id="toolu_01", tool_name="Bash",
        tool_input={"command": "rm -rf build"}, cwd="/srv/app", permission_mode="default",
        reason="Bash call matches the approval rule 'Bash(rm:*)'", asked_at="2026-11-27T10:00:00.000+00:00",
    )  # fmt: skip
    fields.update(changes)
    return PendingApproval(**fields)


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    "rule,name,tool_input,expected",
    [
        ("Bash", "Bash", {"command": "ls"}, True),
        ("Bash(*)", "Bash", {"command": "ls"}, True),
        ("Bash(rm:*)", "Bash", {"command": "rm -rf /"}, True),
        ("Bash(rm:*)", "Bash", {"command": "rm"}, True),
        ("Bash(rm:*)", "Bash", {"command": "rmdir x"}, False),
        ("Bash(rm:*)", "Bash", {"command": "ls && rm x"}, True),
        ("Bash(rm:*)", "Bash", {"command": "ls; sudo rm x"}, True),
        ("Bash(rm:*)", "Bash", {"command": "echo $(rm x)"}, True),
        ("Bash(rm:*)", "Bash", {"command": "FOO=1 rm x"}, True),
        ("Bash(rm:*)", "Bash", {"command": "find . | xargs rm"}, True),
        ("Bash(rm:*)", "Bash", {"command": "echo rm"}, False),
        ("Bash(git push*)", "Bash", {"command": "git push origin main"}, True),
        ("Bash(git push:*)", "Bash", {"command": "git  push"}, True),  # spaces normalised: the safe side
        ("Bash(rm:*)", "Read", {"file_path": "rm"}, False),
        ("Read(/etc/*)", "Read", {"file_path": "/etc/passwd"}, True),
        ("Read(/etc/*)", "Read", {"file_path": "/home/x"}, False),
        ("Write", "Write", {}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://api.example.com/x"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com.evil.io/"}, False),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": 12}, True),  # unknown URL: asks (was False)
        ("mcp__db", "mcp__db__drop", {}, True),
        ("mcp__db", "mcp__dbx__drop", {}, False),
        ("mcp__db__drop", "mcp__db__drop", {}, True),
    ],
)  # fmt: skip
def test_rule_matches(rule: str, name: str, tool_input: Dict[str, Any], expected: bool) -> None:
    assert rule_matches(rule, name, tool_input) is expected


@pytest.mark.parametrize("rule", ["", "(x)", "Bash(rm", "Bash)x(", "Ba sh", "Bash\x00", "Bash(\ud800)"])
def test_a_malformed_rule_is_a_clear_error(rule: str) -> None:
    with pytest.raises(ValueError, match="invalid tool rule"):
        check_rule(rule)
    with pytest.raises(TypeError):
        check_rule(3)


def test_shell_commands_cover_every_command_of_a_line() -> None:
    found = commands_run("a x && b || c; d | e & f\n(g) `h` $(i)")
    assert found.unsure is None
    assert sorted(c[0].text for c in found.commands if not c[0].dynamic) == list("abcdefghi")
    assert [c[0].dynamic for c in found.commands].count(True) == 1  # `h` $(i): their output runs too


# ----------------------------------------------------------------------------- policy


def test_the_policy_asks_for_matching_rules_and_the_check() -> None:
    policy = ApprovalPolicy(rules=["Bash(rm:*)"], check=needs_bash)
    assert "Bash(rm:*)" in (policy.reason_for("Bash", {"command": "rm x"}) or "")
    assert policy.reason_for("Bash", {"command": "./deploy"}) == "Bash call needs approval (policy check)"
    assert policy.reason_for("Bash", {"command": "ls"}) is None
    assert ApprovalPolicy(check=lambda n, i: "costs money").reason_for("X", {}) == "costs money"
    assert pickle.loads(pickle.dumps(policy)) == policy


def test_a_check_that_raises_makes_the_call_wait() -> None:
    def broken(name: str, tool_input: Dict[str, Any]) -> bool:
        raise KeyError("boom")

    assert "raised KeyError" in (ApprovalPolicy(check=broken).reason_for("Bash", {}) or "")

    class Undecided:
        def __bool__(self) -> bool:
            raise ValueError("no truth value")

    assert "raised ValueError" in (ApprovalPolicy(check=lambda n, i: Undecided()).reason_for("Bash", {}) or "")


@pytest.mark.parametrize(
    "kwargs,error",
    [({"rules": "Bash(rm:*)"}, TypeError), ({"rules": [3]}, TypeError), ({"rules": ["Bash(rm"]}, ValueError),
     ({"check": "yes"}, TypeError), ({}, ValueError)],
)  # fmt: skip
def test_a_bad_policy_is_refused(kwargs: Dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        ApprovalPolicy(**kwargs)


# ----------------------------------------------------------------------------- records


def test_a_pending_approval_round_trips_through_json_and_pickle() -> None:
    pending = record(tool_input={"command": "echo \ud800 \u00e9", "deep": [[[1]]]})
    text = pending.to_json()
    assert text.isascii()
    assert PendingApproval.from_json(text) == pending
    assert PendingApproval.from_dict(json.loads(text)) == pending
    assert pickle.loads(pickle.dumps(pending)) == pending


@pytest.mark.parametrize(
    "data",
    ["[]", "{}", "not json", '{"session_id": 1}', "[" * 100000],
)
def test_a_bad_record_text_is_a_typed_error(data: str) -> None:
    with pytest.raises(ApprovalRecordError):
        PendingApproval.from_json(data)


@pytest.mark.parametrize(
    "change",
    [{"session_id": "../etc"}, {"tool_use_id": "a/b"}, {"tool_use_id": ""}, {"tool_input": []},
     {"tool_input": {"x": object()}}, {"permission_mode": "yolo"}, {"cwd": ""}, {"version": 2},
     {"version": True}, {"reason": None}],
)  # fmt: skip
def test_every_field_is_checked(change: Dict[str, Any]) -> None:
    with pytest.raises(ApprovalRecordError, match=next(iter(change))):
        record(**change)


def test_unknown_fields_are_refused() -> None:
    data = dict(record().to_dict(), extra=1)
    with pytest.raises(ApprovalRecordError, match="unknown"):
        PendingApproval.from_dict(data)


def test_decisions() -> None:
    assert ApprovalDecision.allow().behavior == "allow"
    assert ApprovalDecision.from_dict(ApprovalDecision.allow({"command": "ls"}).to_dict()).updated_input == {"command": "ls"}
    for bad in (lambda: ApprovalDecision.deny(""), lambda: ApprovalDecision("maybe"),
                lambda: ApprovalDecision("deny", {"x": 1}, "no"), lambda: ApprovalDecision.allow([1])):  # type: ignore
        with pytest.raises(ApprovalRecordError):
            bad()


def test_errors_pickle_with_their_attributes() -> None:
    error = ApprovalClaimedError("taken", "toolu_01", {"claimant": "a"})
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.tool_use_id, copy.claim) == ("taken", "toolu_01", {"claimant": "a"})


# ----------------------------------------------------------------------------- gate


def context(tool_use_id: str) -> ToolPermissionContext:
    return ToolPermissionContext(signal=threading.Event(), suggestions=[], tool_use_id=tool_use_id)  # type: ignore[arg-type]


def hook_input(tool_input: Dict[str, Any]) -> Dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}


POLICY = ApprovalPolicy(rules=["Bash(rm:*)"])


def test_a_first_run_defers_what_the_policy_names_and_nothing_else() -> None:
    gate = ApprovalGate(POLICY)
    answer = gate.pre_tool_use(hook_input({"command": "rm x"}), "toolu_01", None)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "defer"
    assert gate.reasons == {"toolu_01": "Bash call matches the approval rule 'Bash(rm:*)'"}
    assert gate.pre_tool_use(hook_input({"command": "ls"}), "toolu_02", None) == {}


@pytest.mark.parametrize("where", ["hook", "can_use_tool"])
@pytest.mark.parametrize(
    "decision,expected",
    [(ApprovalDecision.allow(), ("allow", None)), (ApprovalDecision.allow({"command": "rm y"}), ("allow", {"command": "rm y"})),
     (ApprovalDecision.deny("no"), ("deny", "no"))],
)  # fmt: skip
def test_a_decision_applies_to_exactly_its_call(where: str, decision: ApprovalDecision, expected: Any) -> None:
    pending = record(tool_input={"command": "rm x"})
    gate = ApprovalGate(POLICY, decided=(pending, decision))
    if where == "hook":
        out = gate.pre_tool_use(hook_input({"command": "rm x"}), "toolu_01", None)["hookSpecificOutput"]
        got = (out["permissionDecision"], out.get("updatedInput") if expected[0] == "allow" else out["permissionDecisionReason"])
    else:
        result = gate.can_use_tool("Bash", {"command": "rm x"}, context("toolu_01"))
        got = (result.behavior, result.updated_input if isinstance(result, PermissionResultAllow) else result.message)
    assert got == expected and gate.applied == [("toolu_01", where)]
    # another call the policy names defers again; asked through can_use_tool it is refused, never run
    again = gate.pre_tool_use(hook_input({"command": "rm z"}), "toolu_02", None)
    assert again["hookSpecificOutput"]["permissionDecision"] == "defer"
    refused = gate.can_use_tool("Bash", {"command": "rm z"}, context("toolu_03"))
    assert isinstance(refused, PermissionResultDeny) and refused.interrupt


def test_a_decision_never_applies_to_a_different_input() -> None:
    gate = ApprovalGate(POLICY, decided=(record(tool_input={"command": "rm x"}), ApprovalDecision.allow()))
    out = gate.pre_tool_use(hook_input({"command": "rm -rf /"}), "toolu_01", None)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and not gate.applied
    denied = gate.can_use_tool("Bash", {"command": "rm -rf /"}, context("toolu_01"))
    assert isinstance(denied, PermissionResultDeny) and len(gate.refused) == 2


def test_the_gate_wires_into_options_without_losing_the_users_callbacks() -> None:
    asked: List[str] = []

    def mine(name: str, tool_input: Dict[str, Any], ctx: Any) -> Any:
        asked.append(name)
        return PermissionResultAllow()

    user_hook = HookMatcher(matcher="Bash", hooks=[lambda i, t, c: {}])
    base = ClaudeAgentOptions(can_use_tool=mine, hooks={"PreToolUse": [user_hook]}, allowed_tools=["Bash(rm:*)", "Read"])
    gate = ApprovalGate(POLICY, decided=(record(), ApprovalDecision.allow()))
    options = gate.options(base)
    assert options.hooks is not None and options.hooks["PreToolUse"][1] is user_hook
    assert options.allowed_tools == ["Read"]  # the decided call's allow rule is gone on resume
    assert base.allowed_tools == ["Bash(rm:*)", "Read"] and base.hooks == {"PreToolUse": [user_hook]}
    assert isinstance(options.can_use_tool(  # type: ignore[misc]
        "Read", {"file_path": "/x"}, context("toolu_9")), PermissionResultAllow) and asked == ["Read"]
    assert ApprovalGate(POLICY).options(ClaudeAgentOptions()).can_use_tool is None  # first run: the CLI denies
    no_callback = ApprovalGate(POLICY, decided=(record(), ApprovalDecision.allow())).options(ClaudeAgentOptions())
    denied = no_callback.can_use_tool("Read", {}, context("toolu_9"))  # type: ignore[misc]
    assert isinstance(denied, PermissionResultDeny) and not denied.interrupt
    with pytest.raises(ValueError, match="permission_prompt_tool_name"):
        ApprovalGate(POLICY).options(ClaudeAgentOptions(permission_prompt_tool_name="mcp__x__y"))
    with pytest.raises(TypeError):
        ApprovalGate(["Bash"])  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- staleness


def assistant(message_id: str, *blocks: Dict[str, Any]) -> Dict[str, Any]:
    return {"type": "assistant", "message": {"id": message_id, "role": "assistant", "content": list(blocks)}}


def user(*blocks: Any) -> Dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": list(blocks)}}


CALL = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "rm -rf build"}}


def test_staleness() -> None:
    pending = record()
    prompt = user({"type": "text", "text": "go"})
    assert why_stale([prompt, assistant("m1", {"type": "text", "text": "ok"}), assistant("m1", CALL)], pending) is None
    assert "no tool call" in (why_stale([prompt], pending) or "")
    assert "different input" in (why_stale([assistant("m1", dict(CALL, input={"command": "ls"}))], pending) or "")
    ran = [assistant("m1", CALL), user({"type": "tool_result", "tool_use_id": "toolu_01", "content": "x"})]
    assert "already has a result" in (why_stale(ran, pending) or "")
    assert "later prompt" in (why_stale([assistant("m1", CALL), prompt], pending) or "")
    assert "went on" in (why_stale([assistant("m1", CALL), assistant("m2", {"type": "text", "text": "x"})], pending) or "")
    other_result = user({"type": "tool_result", "tool_use_id": "toolu_00", "content": "x"})
    assert why_stale([assistant("m1", {**CALL, "id": "toolu_00"}), assistant("m1", CALL), other_result], pending) is None


# ----------------------------------------------------------------------------- pool


def test_a_pooled_cli_whose_run_deferred_is_never_reused() -> None:
    init = {"type": "system", "subtype": "init", "session_id": "s", "tools": [], "model": "m", "cwd": "/", "permissionMode": "default"}
    result = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 0,
              "num_turns": 1, "session_id": "s", "stop_reason": "tool_deferred", "result": "",
              "deferred_tool_use": {"id": "toolu_01", "name": "Read", "input": {"file_path": "/x"}}}  # fmt: skip
    messages = [parse_message(init), parse_message(result)]
    reason = retire_reason(CliSlot(client=None, options=ClaudeAgentOptions()), messages, max_runs=10)
    assert reason is not None and "deferred" in reason
    plain = [parse_message(init), parse_message({k: v for k, v in result.items() if k != "deferred_tool_use"})]
    assert retire_reason(CliSlot(client=None, options=ClaudeAgentOptions()), plain, max_runs=10) is None
