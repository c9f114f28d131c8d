"""``resume_approval`` refuses before any CLI starts: wrong types, another session or cwd, a
record whose call is not in the session (or has another input), a call that already ran, and a
claim someone else holds. The options name a CLI that does not exist, so a refusal that came
too late would be a ``CLINotFoundError`` instead. The claim is taken at the last moment before
the CLI process starts: a resume that fails before spends nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ApprovalClaimedError,
    ApprovalDecision,
    ApprovalPolicy,
    ApprovalRecordError,
    ApprovalStaleError,
    ClaudeAgentOptions,
    ClaudeSDKError,
    InMemorySessionStore,
    PendingApproval,
    project_key_for_directory,
    resume_approval,
)
from claude_sync._approvals.claims import claim

SESSION = "0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01"
POLICY = ApprovalPolicy(rules=["Bash(rm:*)"])
CALL = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "rm -rf build"}}


def setup(tmp_path: Path, *after: Dict[str, Any]) -> Any:
    store = InMemorySessionStore()
    key = {"project_key": project_key_for_directory(str(tmp_path)), "session_id": SESSION}
    store.append(key, [  # type: ignore[arg-type]
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "clean up"}},
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [CALL]}},
        *after,
    ])  # fmt: skip
    options = ClaudeAgentOptions(session_store=store, cli_path=str(tmp_path / "no-such-claude"))
    pending = PendingApproval(
        session_id=SESSION, tool_use_id="toolu_01", tool_name="Bash", tool_input={"command": "rm -rf build"},
        cwd=str(tmp_path), permission_mode=None, reason="r", asked_at="2026-11-27T10:00:00.000+00:00",
    )  # fmt: skip
    return store, options, pending


def test_wrong_types_and_other_sessions_are_refused(tmp_path: Path) -> None:
    _, options, pending = setup(tmp_path)
    with pytest.raises(ApprovalRecordError, match="PendingApproval"):
        resume_approval(pending.to_dict(), ApprovalDecision.allow(), policy=POLICY, options=options)  # type: ignore[arg-type]
    with pytest.raises(ApprovalRecordError, match="ApprovalDecision"):
        resume_approval(pending, "allow", policy=POLICY, options=options)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="options.resume"):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=ClaudeAgentOptions(resume="other"))
    with pytest.raises(ValueError, match="options.cwd"):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=ClaudeAgentOptions(cwd="/elsewhere"))


def test_a_tampered_record_is_stale_and_runs_nothing(tmp_path: Path) -> None:
    store, options, pending = setup(tmp_path)
    data = pending.to_dict()
    data["tool_input"] = {"command": "rm -rf /"}
    with pytest.raises(ApprovalStaleError, match="different input"):
        resume_approval(PendingApproval.from_dict(data), ApprovalDecision.allow(), policy=POLICY, options=options)
    data = dict(pending.to_dict(), tool_use_id="toolu_99")
    with pytest.raises(ApprovalStaleError, match="no tool call toolu_99"):
        resume_approval(PendingApproval.from_dict(data), ApprovalDecision.allow(), policy=POLICY, options=options)
    key = {"project_key": project_key_for_directory(str(tmp_path)), "session_id": SESSION}
    assert store.list_subkeys(key) == []  # no claim was made


def test_a_call_that_ran_is_stale(tmp_path: Path) -> None:
    result = {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "done"}]}}  # fmt: skip
    _, options, pending = setup(tmp_path, result)
    with pytest.raises(ApprovalStaleError, match="already has a result"):
        resume_approval(pending, ApprovalDecision.deny("no"), policy=POLICY, options=options)


def spy_cli(tmp_path: Path) -> Path:
    """An executable that only leaves a mark that it was started (then exits: the connect fails)."""
    path = tmp_path / "spy-claude"
    path.write_text('#!/bin/sh\necho started >> "$0.ran"\n')
    path.chmod(0o755)
    return path


def claims(store: Any, tmp_path: Path) -> List[str]:
    key = {"project_key": project_key_for_directory(str(tmp_path)), "session_id": SESSION}
    return [subkey for subkey in store.list_subkeys(key) if subkey.startswith("approvals/")]


def test_a_claim_held_elsewhere_is_refused_before_any_cli_starts(tmp_path: Path) -> None:
    _, options, pending = setup(tmp_path)
    spy = spy_cli(tmp_path)
    claim(pending, ApprovalDecision.allow(), options, "worker-7", "t")
    with pytest.raises(ApprovalClaimedError, match="worker-7") as caught:
        resume_approval(pending, ApprovalDecision.deny("no"), policy=POLICY,
                        options=replace(options, cli_path=str(spy)))  # fmt: skip
    assert caught.value.claim["decision"]["behavior"] == "allow"
    assert not Path(f"{spy}.ran").exists()


def test_a_resume_that_fails_before_the_spawn_spends_nothing(tmp_path: Path) -> None:
    """A missing CLI or options that cannot be carried out fail before the claim: any later
    delivery may still claim. Once a CLI was about to start the claim is spent: the same
    claimant gets past it (a deliberate retry), another one does not, and no CLI starts."""
    from claude_sync import CLINotFoundError, ProcessError

    store, options, pending = setup(tmp_path)
    for _ in range(2):
        with pytest.raises(CLINotFoundError):
            resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=options)
    spy = spy_cli(tmp_path)
    with pytest.raises(ValueError):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY,
                        options=replace(options, cli_path=str(spy), max_turns=-1))  # fmt: skip
    assert claims(store, tmp_path) == [] and not Path(f"{spy}.ran").exists()
    spied = replace(options, cli_path=str(spy), initialize_timeout=10)
    with pytest.raises((ProcessError, ClaudeSDKError)):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=spied, claimant="job-1")
    assert claims(store, tmp_path) == ["approvals/claim-toolu_01"]
    assert Path(f"{spy}.ran").read_text() == "started\n"
    with pytest.raises(ApprovalClaimedError, match="job-1"):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=spied, claimant="job-2")
    assert Path(f"{spy}.ran").read_text() == "started\n"  # the loser started nothing
    with pytest.raises((ProcessError, ClaudeSDKError)):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=spied, claimant="job-1")
    assert Path(f"{spy}.ran").read_text() == "started\nstarted\n"


@pytest.mark.parametrize("claimant", ["", "   ", "x" * 501, 7])
def test_a_bad_claimant_is_refused(tmp_path: Path, claimant: Any) -> None:
    _, options, pending = setup(tmp_path)
    with pytest.raises(ApprovalRecordError, match="claimant"):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=options, claimant=claimant)


def test_the_user_spawn_command_still_runs_and_the_claim_follows_it(tmp_path: Path) -> None:
    store, options, pending = setup(tmp_path)
    spy = spy_cli(tmp_path)
    seen: List[Any] = []

    def wrap(command: Any) -> Any:
        seen.append(claims(store, tmp_path))  # the claim is not taken yet
        return command.replace(argv=[str(spy), *command.argv[1:]])

    with pytest.raises(ClaudeSDKError):
        resume_approval(pending, ApprovalDecision.allow(), policy=POLICY,
                        options=replace(options, cli_path=str(spy), spawn_command=wrap, initialize_timeout=10))  # fmt: skip
    assert seen == [[]] and claims(store, tmp_path) == ["approvals/claim-toolu_01"]


def test_the_same_delivery_twice_at_once_in_one_process_starts_one_cli(tmp_path: Path) -> None:
    """Two resumes of one call in one process (a worker's threads; here even the same
    claimant): the second is refused at once while the first is under way, and no second CLI
    starts. The first is held inside its spawn (its own ``spawn_command``) until then."""
    import threading

    store, options, pending = setup(tmp_path)
    spy = spy_cli(tmp_path)
    second_done = threading.Event()
    outcomes: List[Any] = []

    def hold(command: Any) -> Any:
        assert second_done.wait(30)
        return command

    def first() -> None:
        try:
            resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, claimant="delivery-1",
                            options=replace(options, cli_path=str(spy), spawn_command=hold, initialize_timeout=10))  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - the spy exits at once: the connect fails
            outcomes.append(exc)

    thread = threading.Thread(target=first, name="claude_sync-test-first")
    thread.start()
    try:
        from helpers import wait_until

        from claude_sync._approvals import flow

        assert wait_until(lambda: bool(flow._RUNNING), 30, "the first resume is under way")
        with pytest.raises(ApprovalClaimedError, match="in this process already"):
            resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, claimant="delivery-1",
                            options=replace(options, cli_path=str(spy)))  # fmt: skip
    finally:
        second_done.set()
        thread.join(60)
    assert not thread.is_alive() and isinstance(outcomes[0], ClaudeSDKError)
    assert Path(f"{spy}.ran").read_text() == "started\n"
    assert claims(store, tmp_path) == ["approvals/claim-toolu_01"]


def test_a_record_edited_to_name_the_held_back_call_is_stale(tmp_path: Path) -> None:
    """The second held call of the message was held back (denied: it has a result). A record
    edited to name it, or to drop it from ``held_back``, decides nothing it should not."""
    held = {"type": "tool_use", "id": "toolu_02", "name": "Bash", "input": {"command": "rm b"}}
    store, options, pending = setup(
        tmp_path,
        {"type": "assistant", "uuid": "a2", "message": {"id": "m1", "role": "assistant", "content": [held]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": "Not run yet", "is_error": True}]}},
    )  # fmt: skip
    edited = PendingApproval.from_dict(dict(pending.to_dict(), tool_use_id="toolu_02", tool_input={"command": "rm b"}))
    with pytest.raises(ApprovalStaleError, match="already has a result"):
        resume_approval(edited, ApprovalDecision.allow(), policy=POLICY, options=options)
    assert claims(store, tmp_path) == []
