"""Every held call reaches a person (pure parts): the gate defers one call per turn and holds the
others back (denied, listed in the record); a subagent's held call is denied and the run is not
a success; a run that stopped for a person is a record even with ``output_format``."""

from __future__ import annotations

import json
import pickle
import threading
from dataclasses import dataclass
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ApprovalDecision,
    ApprovalDroppedError,
    ApprovalGate,
    ApprovalPolicy,
    ApprovalRecordError,
    ClaudeAgentOptions,
    PendingApproval,
    PermissionResultDeny,
    ToolPermissionContext,
    pending_approval,
)
from claude_sync._approvals.flow import _outcome
from claude_sync._wire.parse import parse_message

POLICY = ApprovalPolicy(rules=["Bash(rm:*)"])
SESSION = "0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01"


def ask(gate: ApprovalGate, call_id: str, command: str, **extra: Any) -> str:
    hook_input = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
                  "session_id": SESSION, "prompt_id": "p1", **extra}  # fmt: skip
    answer = gate.pre_tool_use(hook_input, call_id, None)
    return answer["hookSpecificOutput"]["permissionDecision"] if answer else "none"


def result(deferred: Any = None, session: str = SESSION) -> Any:
    raw = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 0,
           "num_turns": 1, "session_id": session, "result": "done",
           "stop_reason": "tool_deferred" if deferred else "end_turn"}  # fmt: skip
    if deferred:
        raw["deferred_tool_use"] = {"id": deferred[0], "name": "Bash", "input": {"command": deferred[1]}}
    return parse_message(raw)


def test_two_held_calls_of_one_message_defer_one_and_hold_back_the_other() -> None:
    gate = ApprovalGate(POLICY)
    assert [ask(gate, "toolu_a", "rm a"), ask(gate, "toolu_b", "rm b"), ask(gate, "toolu_c", "ls")] == ["defer", "deny", "none"]
    assert list(gate.reasons) == ["toolu_a"]
    pending = pending_approval(result(("toolu_a", "rm a")), ClaudeAgentOptions(cwd="/srv"), gate)
    assert pending is not None and pending.tool_use_id == "toolu_a"
    [held] = pending.held_back
    assert held == {"tool_use_id": "toolu_b", "tool_name": "Bash", "tool_input": {"command": "rm b"},
                    "reason": "Bash call matches the approval rule 'Bash(rm:*)'", "where": "message"}  # fmt: skip
    assert PendingApproval.from_json(pending.to_json()) == pending
    assert pickle.loads(pickle.dumps(pending)) == pending


def test_the_model_is_told_why_the_held_back_call_did_not_run() -> None:
    gate = ApprovalGate(POLICY)
    ask(gate, "toolu_a", "rm a")
    answer = gate.pre_tool_use({"tool_name": "Bash", "tool_input": {"command": "rm b"}, "session_id": SESSION,
                                "prompt_id": "p1"}, "toolu_b", None)  # fmt: skip
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Not run yet" in reason and "toolu_a" in reason and "Ask for it again" in reason


def test_another_turn_or_session_defers_its_own_call() -> None:
    gate = ApprovalGate(POLICY)
    assert ask(gate, "toolu_a", "rm a") == "defer"
    assert ask(gate, "toolu_b", "rm b", prompt_id="p2") == "defer"
    assert ask(gate, "toolu_c", "rm c", session_id="other") == "defer"
    assert ask(gate, "toolu_a", "rm a") == "defer"  # the CLI asking again about the same call


def test_concurrent_hooks_defer_exactly_one_call_of_a_turn() -> None:
    gate = ApprovalGate(POLICY)
    start = threading.Barrier(8, timeout=30)
    answers: List[str] = []

    def one(index: int) -> None:
        start.wait()
        answers.append(ask(gate, f"toolu_{index}", f"rm {index}"))

    threads = [threading.Thread(target=one, args=(i,), name=f"claude_sync-test-{i}") for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answers) == ["defer"] + ["deny"] * 7
    assert len(gate.reasons) == 1 and len(gate.held_back) == 7


def test_a_subagents_held_call_is_denied_and_the_run_is_not_a_success() -> None:
    gate = ApprovalGate(POLICY)
    assert ask(gate, "toolu_sub", "rm x", agent_id="a1b2", agent_type="general-purpose") == "deny"
    assert not gate.reasons  # the turn's deferral is still free for the main agent
    with pytest.raises(ApprovalDroppedError, match="toolu_sub") as caught:
        pending_approval(result(), ClaudeAgentOptions(), gate)
    assert caught.value.calls[0]["where"] == "subagent" and caught.value.session_id == SESSION
    copy = pickle.loads(pickle.dumps(caught.value))
    assert copy.calls == caught.value.calls and copy.session_id == SESSION
    assert pending_approval(result(), ClaudeAgentOptions(), gate) is None  # reported once: a later turn is not blamed


def test_a_subagents_held_call_rides_on_the_record_when_the_main_agent_deferred_too() -> None:
    gate = ApprovalGate(POLICY)
    ask(gate, "toolu_sub", "rm x", agent_id="a1")
    ask(gate, "toolu_main", "rm y")
    pending = pending_approval(result(("toolu_main", "rm y")), ClaudeAgentOptions(), gate)
    assert pending is not None and [c["where"] for c in pending.held_back] == ["subagent"]


def test_a_deferral_the_result_does_not_report_is_not_a_success() -> None:
    gate = ApprovalGate(POLICY)
    ask(gate, "toolu_a", "rm a")
    with pytest.raises(ApprovalDroppedError, match="toolu_a.*dropped"):
        pending_approval(result(), ClaudeAgentOptions(), gate)


def test_a_held_call_asked_through_can_use_tool_is_not_a_success() -> None:
    gate = ApprovalGate(POLICY, user_can_use_tool=None)
    context = ToolPermissionContext(signal=threading.Event(), suggestions=[], tool_use_id="toolu_p")  # type: ignore[arg-type]
    answer = gate.can_use_tool("Bash", {"command": "rm z"}, context)
    assert isinstance(answer, PermissionResultDeny) and answer.interrupt
    with pytest.raises(ApprovalDroppedError, match="can_use_tool"):
        pending_approval(result(), ClaudeAgentOptions(), gate)


def test_a_shared_gate_keeps_sessions_apart() -> None:
    gate = ApprovalGate(POLICY)
    ask(gate, "toolu_sub", "rm x", agent_id="a1", session_id="other")
    assert pending_approval(result(), ClaudeAgentOptions(), gate) is None
    with pytest.raises(ApprovalDroppedError):
        pending_approval(result(session="other"), ClaudeAgentOptions(), gate)


def test_the_decision_is_not_applied_when_before_apply_fails() -> None:
    pending = PendingApproval(session_id=SESSION, tool_use_id="toolu_a", tool_name="Bash", tool_input={"command": "rm a"},
                              cwd="/srv", permission_mode=None, reason="r", asked_at="t")  # fmt: skip
    gate = ApprovalGate(POLICY, decided=(pending, ApprovalDecision.allow()))

    def refuse() -> None:
        raise RuntimeError("claimed elsewhere")

    gate.before_apply = refuse
    assert ask(gate, "toolu_a", "rm a") == "deny"
    assert not gate.applied and "claimed elsewhere" in gate.refused[0][1]
    context = ToolPermissionContext(signal=threading.Event(), suggestions=[], tool_use_id="toolu_a")  # type: ignore[arg-type]
    assert isinstance(gate.can_use_tool("Bash", {"command": "rm a"}, context), PermissionResultDeny)
    assert not gate.applied


# ----------------------------------------------------------------------------- records


def record_dict(**changes: Any) -> Dict[str, Any]:
    data = {"session_id": SESSION, "tool_use_id": "toolu_a", "tool_name": "Bash", "tool_input": {"command": "rm a"},
            "cwd": "/srv", "permission_mode": None, "reason": "r", "asked_at": "t", "version": 1}  # fmt: skip
    data.update(changes)
    return data


HELD = {"tool_use_id": "toolu_b", "tool_name": "Bash", "tool_input": {"command": "rm b"}, "reason": "r", "where": "message"}


def test_a_record_without_held_back_still_reads() -> None:
    assert PendingApproval.from_dict(record_dict()).held_back == ()
    assert PendingApproval.from_dict(record_dict(held_back=[HELD])).held_back == (HELD,)


@pytest.mark.parametrize(
    "held",
    [{}, [1], [dict(HELD, tool_use_id="toolu_a")], [dict(HELD, where="elsewhere")], [dict(HELD, extra=1)],
     [dict(HELD, tool_input=[])], [dict(HELD, tool_use_id="../x")], [{k: v for k, v in HELD.items() if k != "reason"}]],
)  # fmt: skip
def test_an_edited_held_back_list_is_refused(held: Any) -> None:
    with pytest.raises(ApprovalRecordError, match="held_back"):
        PendingApproval.from_json(json.dumps(record_dict(held_back=held)))


# ----------------------------------------------------------------------------- typed output


@dataclass
class Report:
    summary: str


def test_a_run_that_stopped_for_a_person_is_a_record_with_an_output_format() -> None:
    gate = ApprovalGate(POLICY)
    ask(gate, "toolu_a", "rm a")
    options = ClaudeAgentOptions(output_format=Report, cwd="/srv")
    outcome = _outcome([result(("toolu_a", "rm a"))], options, gate)
    assert isinstance(outcome, PendingApproval) and outcome.tool_use_id == "toolu_a"


def test_a_deferred_result_has_no_typed_output_and_no_output_error() -> None:
    from claude_sync._structured.outcome import AttemptLog, output_outcome

    assert output_outcome(Report, result(("toolu_a", "rm a")), AttemptLog()) == (None, None)
    assert output_outcome(Report, result(), AttemptLog())[1] is not None  # a finished run without one still fails
