"""Fake-API scripts the approval e2e tests share (a responder decides from what the CLI sent),
and the held ``rm`` the held-session tests start from and end with."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Tuple

from claude_sync import ApprovalDecision, ApprovalPolicy, PendingApproval, RunResult, resume_approval, run_with_approvals
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import tool_results

RM_POLICY = ApprovalPolicy(rules=["Bash(rm:*)"])


def held_rm(fake_api: FakeAnthropicAPI, options: Any, workdir: Path) -> Tuple[Path, PendingApproval]:
    """A run whose ``rm victim.txt`` waits for a person (``RM_POLICY``): the victim file (still
    there) and the pending record."""
    victim = workdir / "victim.txt"
    victim.write_text("keep me")
    fake_api.add(tool_use("Bash", {"command": "rm victim.txt"}), text("removed"))
    pending = run_with_approvals("tidy up", policy=RM_POLICY, options=options, timeout=120)
    assert isinstance(pending, PendingApproval) and victim.exists()
    return victim, pending


def the_decision_still_applies(fake_api: FakeAnthropicAPI, options: Any, pending: PendingApproval, victim: Path) -> None:
    """Allowing the held ``rm`` now runs it exactly once and the run answers."""
    done = resume_approval(pending, ApprovalDecision.allow(), policy=RM_POLICY, options=options, timeout=120)
    assert isinstance(done, RunResult) and done.text == "removed"
    assert not victim.exists()
    assert len(tool_results(fake_api, pending.tool_use_id)) == 1


def subagent_asks_for_a_held_call(request: Any) -> Any:
    """The parent starts a (foreground) subagent; the subagent asks for a held Bash call."""
    first = request.messages[0]["content"]
    prompt = [b.get("text") for b in first if isinstance(b, dict) and b.get("type") == "text"][-1] if isinstance(first, list) else first
    answered = any(isinstance(b, dict) and b.get("type") == "tool_result"
                   for m in request.messages if isinstance(m.get("content"), list) for b in m["content"])  # fmt: skip
    if prompt == "run echo":
        return text("sub done") if answered else tool_use("Bash", {"command": "echo sub >> ran.txt"}, id="toolu_sub")
    if answered:
        return text("parent done")
    return tool_use("Agent", {"description": "tidy", "prompt": "run echo", "subagent_type": "general-purpose",
                              "run_in_background": False}, id="toolu_agent")  # fmt: skip
