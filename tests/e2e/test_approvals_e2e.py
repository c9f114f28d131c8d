"""Approvals that wait for a person, on the real CLI (fake API).

The main path crosses processes and machines: the first run (process A, its own HOME) defers a
Bash call and exits; the ``PendingApproval`` travels as JSON; the resume runs in process B with
a fresh HOME, finding the session in PostgreSQL. The tool is ``echo … >> ran.txt`` so the
file's lines count how often it ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import pytest
from helpers import wait_until

from claude_sync import (
    AgentPool,
    ApprovalDecision,
    ApprovalDroppedError,
    ApprovalGate,
    ApprovalPolicy,
    ApprovalStaleError,
    ClaudeSDKClient,
    InMemorySessionStore,
    PendingApproval,
    RunResult,
    pending_approval,
    resume_approval,
    run_with_approvals,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, reply, text, tool_use

from .approval_scripts import subagent_asks_for_a_held_call
from .harness import hermetic_env, tool_results

pytestmark = pytest.mark.e2e

Options = Callable[..., Any]
ROOT = Path(__file__).resolve().parents[2]
POLICY = ApprovalPolicy(rules=["Bash(echo:*)"])

PHASE = r"""
import json, sys, time
from claude_sync import (ApprovalDecision, ApprovalError, ApprovalPolicy, ClaudeAgentOptions,
                         PendingApproval, resume_approval, run_with_approvals)
from claude_sync._sessions.stores.postgres import PostgresSessionStore
args = json.loads(sys.argv[1])
policy = ApprovalPolicy(rules=["Bash(echo:*)"])
with PostgresSessionStore(args["conninfo"]) as store:
    options = ClaudeAgentOptions(cli_path=args["cli"], env=args["env"], cwd=args["cwd"], session_store=store,
                                 close_timeout=5, initialize_timeout=30, control_timeout=30)
    started = time.monotonic()
    try:
        if args["pending"] is None:
            outcome = run_with_approvals(args["prompt"], policy=policy, options=options, timeout=120)
        else:
            outcome = resume_approval(PendingApproval.from_json(args["pending"]),
                                      ApprovalDecision.from_dict(args["decision"]),
                                      policy=policy, options=options, timeout=120)
    except ApprovalError as exc:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
        sys.exit(0)
seconds = time.monotonic() - started
if isinstance(outcome, PendingApproval):
    print(json.dumps({"pending": outcome.to_json(), "seconds": seconds}))
else:
    print(json.dumps({"text": outcome.text, "session_id": outcome.session_id, "seconds": seconds}))
"""


def phase(home: Path, fake_api: FakeAnthropicAPI, cli: str, cwd: Path, conninfo: str, *, prompt: str = "",
          pending: Optional[str] = None, decision: Optional[Dict[str, Any]] = None) -> subprocess.Popen[str]:  # fmt: skip
    """One run or resume in its own Python process, HOME ``home/home``; returns the process."""
    env = hermetic_env(home, fake_api.base_url)
    args = {"conninfo": conninfo, "cli": cli, "env": env, "cwd": str(cwd), "prompt": prompt,
            "pending": pending, "decision": decision}  # fmt: skip
    process_env = {**os.environ, "HOME": env["HOME"], "TMPDIR": env["TMPDIR"], "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", PHASE, json.dumps(args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=process_env)  # fmt: skip


def finish(process: subprocess.Popen[str]) -> Dict[str, Any]:
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.splitlines()[-1])  # type: ignore[no-any-return]


def defer_in_process_a(tmp_path: Path, fake_api: FakeAnthropicAPI, cli: str, app: Path, conninfo: str) -> PendingApproval:
    started = time.monotonic()
    first = finish(phase(tmp_path / "A", fake_api, cli, app, conninfo, prompt="record that it ran"))
    print(f"\n[figures] defer -> pending record: {first['seconds']:.2f} s in the run "
          f"({time.monotonic() - started:.2f} s with the process)")  # fmt: skip
    pending = PendingApproval.from_json(first["pending"])
    assert pending.tool_name == "Bash" and pending.tool_input == {"command": "echo ran >> ran.txt"}
    assert not (app / "ran.txt").exists()
    return pending


@pytest.mark.parametrize("decision", ["allow", "edit", "deny"])
def test_defer_exit_then_decide_in_another_process_with_a_fresh_home(
    decision: str, pg_conninfo: str, real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    fake_api.add(tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("all done"))
    pending = defer_in_process_a(tmp_path, fake_api, real_cli_path, app, pg_conninfo)
    chosen = {
        "allow": ApprovalDecision.allow(),
        "edit": ApprovalDecision.allow({"command": "echo edited >> ran.txt"}),
        "deny": ApprovalDecision.deny("a person said no: not today"),
    }[decision]
    b = finish(phase(tmp_path / "B", fake_api, real_cli_path, app, pg_conninfo, pending=pending.to_json(),
                     decision=chosen.to_dict()))  # fmt: skip
    print(f"[figures] resume ({decision}) -> result: {b['seconds']:.2f} s")
    assert b["text"] == "all done" and b["session_id"] == pending.session_id
    assert not list((tmp_path / "B" / "home" / ".claude").glob("projects/*/*.jsonl"))  # B used the store only
    [result] = tool_results(fake_api, pending.tool_use_id)
    if decision == "deny":
        assert not (app / "ran.txt").exists()
        assert result["is_error"] is True and "a person said no: not today" in json.dumps(result["content"])
    else:
        assert (app / "ran.txt").read_text() == ("ran\n" if decision == "allow" else "edited\n")
        assert result.get("is_error") is False
    fake_api.assert_no_surprises()


def test_two_concurrent_resumes_run_the_tool_once(
    pg_conninfo: str, real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    fake_api.add(tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("all done"))
    pending = defer_in_process_a(tmp_path, fake_api, real_cli_path, app, pg_conninfo)
    racers = [phase(tmp_path / name, fake_api, real_cli_path, app, pg_conninfo, pending=pending.to_json(),
                    decision=ApprovalDecision.allow().to_dict()) for name in ("B", "C")]  # fmt: skip
    outcomes = [finish(p) for p in racers]
    assert sorted(o.get("error", "won") for o in outcomes) == ["ApprovalClaimedError", "won"], outcomes
    assert (app / "ran.txt").read_text() == "ran\n"
    assert len(tool_results(fake_api, pending.tool_use_id)) == 1
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- in one process


def test_a_later_call_defers_again_and_a_late_decision_is_refused(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    store = InMemorySessionStore()
    options = e2e_options(session_store=store, permission_mode="acceptEdits")
    fake_api.add(
        tool_use("Bash", {"command": "echo one >> ran.txt"}),
        tool_use("Bash", {"command": "echo two >> ran.txt"}),
        text("both done"),
    )
    first = run_with_approvals("go", policy=POLICY, options=options, timeout=120)
    assert isinstance(first, PendingApproval) and first.permission_mode == "acceptEdits"
    second = resume_approval(first, ApprovalDecision.allow(), policy=POLICY, options=options, timeout=120)
    assert isinstance(second, PendingApproval) and second.tool_input == {"command": "echo two >> ran.txt"}
    assert second.session_id == first.session_id and second.tool_use_id != first.tool_use_id
    assert second.permission_mode == "acceptEdits"  # not the "default" the resume ran in until the decision
    assert (e2e_workdir / "ran.txt").read_text() == "one\n"
    with pytest.raises(ApprovalStaleError, match="moved on"):  # the first decision arrives again, late
        resume_approval(first, ApprovalDecision.allow(), policy=POLICY, options=options, timeout=120)
    done = resume_approval(second, ApprovalDecision.allow(), policy=POLICY, options=options, timeout=120)
    assert isinstance(done, RunResult) and done.text == "both done"
    assert (e2e_workdir / "ran.txt").read_text() == "one\ntwo\n"
    fake_api.assert_no_surprises()


def test_a_client_and_a_pool_stop_at_the_call_and_resume(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    fake_api.add(tool_use("Bash", {"command": "echo client >> ran.txt"}), text("client done"),
                 tool_use("Bash", {"command": "echo pool >> ran.txt"}), text("pool done"))  # fmt: skip
    gate = ApprovalGate(POLICY)
    options = gate.options(e2e_options())
    with ClaudeSDKClient(options) as client:
        client.query("go")
        messages = list(client.receive_response(timeout=120))
        pending = pending_approval(messages[-1], options, gate)
    assert pending is not None and "Bash(echo:*)" in pending.reason
    out = resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=e2e_options(), timeout=120)
    assert isinstance(out, RunResult) and out.text == "client done"
    pool_gate = ApprovalGate(POLICY)
    pool_options = pool_gate.options(e2e_options())
    with AgentPool(pool_options, max_workers=1, warm=1) as pool:
        deferred = pool.submit("go").result(timeout=120)
        pending = pending_approval(deferred, pool_options, pool_gate)
        assert pending is not None
        assert wait_until(lambda: pool.stats()["retired"] == 1, 30, "the deferring CLI retired")
        assert pool.stats()["reused"] == 0
    out = resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=e2e_options(), timeout=120)
    assert isinstance(out, RunResult) and out.text == "pool done"
    assert (e2e_workdir / "ran.txt").read_text() == "client\npool\n"
    fake_api.assert_no_surprises()


def test_a_deny_holds_and_the_permission_mode_comes_back_after_it(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """The resume runs in "default" mode until the decision is applied (2.1.197 skipped the hook
    and, in acceptEdits, ran ``echo x >> file`` unasked), then the recorded mode is back: the
    Write after the denied call runs without a can_use_tool (there is none)."""
    options = e2e_options(session_store=InMemorySessionStore(), permission_mode="acceptEdits")
    fake_api.add(tool_use("Bash", {"command": "echo one >> ran.txt"}),
                 tool_use("Write", {"file_path": str(e2e_workdir / "w.txt"), "content": "x"}), text("done"))  # fmt: skip
    pending = run_with_approvals("go", policy=POLICY, options=options, timeout=120)
    assert isinstance(pending, PendingApproval)
    out = resume_approval(pending, ApprovalDecision.deny("no"), policy=POLICY, options=options, timeout=120)
    assert isinstance(out, RunResult) and out.text == "done"
    assert not (e2e_workdir / "ran.txt").exists() and (e2e_workdir / "w.txt").read_text() == "x"
    fake_api.assert_no_surprises()


def test_on_a_dask_cluster_the_run_and_the_resume_are_plain_tasks(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """``run_with_approvals`` and ``resume_approval`` pickle with their arguments: submitted to a
    worker process each (no store object travels: the session is the local transcript under
    the options' HOME, which both tasks share)."""
    from helpers import require_package

    distributed = require_package("distributed")
    from multiprocessing import resource_tracker

    fake_api.add(tool_use("Bash", {"command": "echo dask >> ran.txt"}), text("dask done"))
    options = e2e_options()
    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",  # ":0": 8787 may be taken
                                      host="127.0.0.1") as cluster, distributed.Client(cluster) as client:  # fmt: skip
            pending = client.submit(run_with_approvals, "go", policy=POLICY, options=options, timeout=120).result(timeout=180)
            assert isinstance(pending, PendingApproval) and not (e2e_workdir / "ran.txt").exists()
            done = client.submit(resume_approval, pending, ApprovalDecision.allow(), policy=POLICY,
                                 options=options, timeout=120).result(timeout=180)  # fmt: skip
    finally:
        stop = getattr(resource_tracker._resource_tracker, "_stop", None)
        if stop is not None:
            stop()
    assert isinstance(done, RunResult) and done.text == "dask done"
    assert (e2e_workdir / "ran.txt").read_text() == "dask\n"
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- every held call reaches a person


@dataclass
class Report:
    summary: str


def test_two_held_calls_in_one_message_both_reach_a_person(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """Measured: deferring both makes the CLI report (and re-run) only the last and drop the
    other from the model's history. The gate defers the first and holds the second back: the
    record lists it, the model is told it did not run, asks again, and that becomes the next
    record. Typed output does not get in the way (``output_format`` set throughout)."""
    options = e2e_options(session_store=InMemorySessionStore(), output_format=Report)
    one, two = {"command": "echo one >> ran.txt"}, {"command": "echo two >> ran.txt"}
    fake_api.add(reply(tool_use("Bash", one, id="toolu_one"), tool_use("Bash", two, id="toolu_two")),
                 tool_use("Bash", two, id="toolu_two_again"), text("both done"))  # fmt: skip
    first = run_with_approvals("go", policy=POLICY, options=options, timeout=120)
    assert isinstance(first, PendingApproval) and first.tool_use_id == "toolu_one"
    assert [(c["tool_use_id"], c["tool_input"], c["where"]) for c in first.held_back] == [("toolu_two", two, "message")]
    assert not (e2e_workdir / "ran.txt").exists()
    second = resume_approval(first, ApprovalDecision.allow(), policy=POLICY, options=options, timeout=120)
    assert isinstance(second, PendingApproval) and (second.tool_use_id, second.tool_input) == ("toolu_two_again", two)
    assert (e2e_workdir / "ran.txt").read_text() == "one\n"
    [held] = tool_results(fake_api, "toolu_two")  # the model saw the held-back call and why it did not run
    assert held["is_error"] is True and "Not run yet" in json.dumps(held["content"])
    done = resume_approval(second, ApprovalDecision.allow(), policy=POLICY, options=replace(options, output_format=None), timeout=120)
    assert isinstance(done, RunResult) and done.text == "both done"
    assert (e2e_workdir / "ran.txt").read_text() == "one\ntwo\n"
    fake_api.assert_no_surprises()


def test_a_held_call_inside_a_subagent_is_not_a_success(
    real_cli_path: str, e2e_options: Options, tmp_path: Path, e2e_workdir: Path
) -> None:
    """Measured: deferred inside a subagent, the CLI ends the subagent with no output and the
    run ends with a normal result; nothing is resumable. The gate denies the call and
    ``run_with_approvals`` raises ``ApprovalDroppedError`` naming it."""
    with FakeAnthropicAPI(responder=subagent_asks_for_a_held_call) as api:
        options = e2e_options(env=hermetic_env(tmp_path, api.base_url))
        with pytest.raises(ApprovalDroppedError, match="toolu_sub") as caught:
            run_with_approvals("go", policy=POLICY, options=options, timeout=120)
        assert caught.value.calls[0]["where"] == "subagent"
        [denied] = tool_results(api, "toolu_sub")
        assert denied["is_error"] is True and "cannot wait" in json.dumps(denied["content"])
    assert not (e2e_workdir / "ran.txt").exists()


# ----------------------------------------------------------------------------- rules that fail closed


@pytest.mark.parametrize("command", ['for f in victim.txt; do rm "$f"; done', "\\rm victim.txt"])
def test_rm_behind_shell_grammar_or_a_backslash_defers(
    command: str, e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """``allowed_tools=["Bash"]`` would run the line unasked: the rule ``Bash(rm:*)`` must see
    the ``rm`` inside the loop and behind the backslash, and hold the call."""
    (e2e_workdir / "victim.txt").write_text("keep me")
    fake_api.add(tool_use("Bash", {"command": command}), text("deleted"))
    outcome = run_with_approvals("clean up", policy=ApprovalPolicy(rules=["Bash(rm:*)"]),
                                 options=e2e_options(allowed_tools=["Bash"]), timeout=120)  # fmt: skip
    assert isinstance(outcome, PendingApproval), outcome
    assert outcome.tool_input == {"command": command} and "Bash(rm:*)" in outcome.reason
    assert (e2e_workdir / "victim.txt").read_text() == "keep me"
    fake_api.assert_no_surprises(script_consumed=False)


def test_a_read_of_a_key_under_home_defers_and_the_key_never_reaches_the_model(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """``Read(~/.ssh/*)``: the CLI hands the hook the absolute path under its own (isolated)
    HOME; the rule resolves ``~`` against that HOME and holds the call."""
    options = e2e_options(allowed_tools=["Read"])
    key = Path(options.env["HOME"]) / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY----- e2e-secret-0f3c")
    fake_api.add(tool_use("Read", {"file_path": str(key)}), text("read it"))
    outcome = run_with_approvals("show me the key", policy=ApprovalPolicy(rules=["Read(~/.ssh/*)"]),
                                 options=options, timeout=120)  # fmt: skip
    assert isinstance(outcome, PendingApproval), outcome
    assert outcome.tool_name == "Read" and outcome.cwd == str(e2e_workdir)
    assert all("e2e-secret-0f3c" not in json.dumps(r.body) for r in fake_api.requests())
    fake_api.assert_no_surprises(script_consumed=False)
