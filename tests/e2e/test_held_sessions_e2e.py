"""A session held for a person is not resumed by a plain resume, on the real CLI (fake API).

The first run defers ``rm victim.txt`` with ``allowed_tools=["Bash"]`` (so nothing but the
approval stands between the CLI and the call). Then each plain way back into the session —
``run`` with ``resume``, a ``ClaudeSDKClient`` that only connects, ``resolve_settings`` with
``resume``, ``continue_conversation``, ``fork_session``, a resume from the session store on a
machine without the local transcript, and an ``AgentPool`` run — leaves the file in place and
the fake API without a new request; afterwards ``resume_approval(… allow)`` still applies and
runs the call once. Before the hold check each of them ran the ``rm`` (issue 36, item 1).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import pytest

from claude_sync import (
    AgentPool,
    ApprovalPendingError,
    ClaudeSDKClient,
    InMemorySessionStore,
    PendingApproval,
    resolve_settings,
    run,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI

from .approval_scripts import held_rm, the_decision_still_applies

pytestmark = pytest.mark.e2e

Options = Callable[..., Any]
PATHS = ["run-resume", "client-connect", "resolve-settings", "continue", "fork", "store-elsewhere", "pool"]


def plain_resume(how: str, options: Any, pending: PendingApproval) -> Any:
    """One plain way back into the held session; returns what it returned (or raises)."""
    resumed = dataclasses.replace(options, resume=pending.session_id)
    if how == "run-resume":
        return run("while we wait…", options=resumed, timeout=120)
    if how == "client-connect":
        with ClaudeSDKClient(resumed):
            return None
    if how == "resolve-settings":
        return resolve_settings(resumed, timeout=60)
    if how == "continue":
        return run("while we wait…", options=dataclasses.replace(options, continue_conversation=True), timeout=120)
    if how == "fork":
        return run("while we wait…", options=dataclasses.replace(resumed, fork_session=True), timeout=120)
    if how == "store-elsewhere":
        return run("while we wait…", options=resumed, timeout=120)
    with AgentPool(resumed, max_workers=1, warm=1) as pool:
        return pool.submit("while we wait…").result(timeout=120)


@pytest.mark.parametrize("how", PATHS)
def test_a_plain_resume_never_runs_the_held_call_and_the_decision_still_applies(
    how: str, e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    store = InMemorySessionStore() if how == "store-elsewhere" else None
    options = e2e_options(allowed_tools=["Bash"], session_store=store)
    victim, pending = held_rm(fake_api, options, e2e_workdir)
    transcripts = list((tmp_path / "home" / ".claude" / "projects").glob(f"*/{pending.session_id}.jsonl"))
    if how == "store-elsewhere":  # another machine: only the store has the session
        for path in transcripts:
            path.unlink()
    before = {p: p.read_bytes() for p in transcripts if p.exists()}
    asked = len(fake_api.turn_requests())

    if how == "resolve-settings":
        settings = plain_resume(how, options, pending)  # it answers, without resuming the session
        assert isinstance(settings.effective, dict)
    else:
        with pytest.raises(ApprovalPendingError, match="rm victim.txt") as caught:
            plain_resume(how, options, pending)
        assert caught.value.session_id == pending.session_id
        assert caught.value.held[0]["tool_use_id"] == pending.tool_use_id

    assert victim.read_text() == "keep me"
    assert len(fake_api.turn_requests()) == asked  # the model was not called
    assert {p: p.read_bytes() for p in before} == before  # the transcript is as it was

    the_decision_still_applies(fake_api, options, pending, victim)
    fake_api.assert_no_surprises()
