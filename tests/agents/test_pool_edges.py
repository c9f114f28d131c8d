"""``AgentPool`` edge cases on the testing kit's subprocess CLI, scripted to answer ``/clear``
the way the real CLI does (a new ``system/init`` session id, a zero-turn result), so CLIs are
really reset and reused: options changed after a CLI started, ``shutdown(wait=False)``,
draining the queue at shutdown, ``map()`` failing half-way."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest

from claude_sync import AgentPool, ClaudeAgentOptions, UsageError
from claude_sync.testing import ScriptedCLI

WAIT = 30.0
INIT = {"type": "system", "subtype": "init", "cwd": "/scripted", "tools": ["Read"], "mcp_servers": [],
        "model": "claude-scripted", "permissionMode": "default", "claude_code_version": "2.1.197"}  # fmt: skip


def result_line(session_id: str, text: str, turns: int) -> Dict[str, Any]:
    return {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 1,
            "num_turns": turns, "session_id": session_id, "total_cost_usd": 0.0, "result": text,
            "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip


def reusable_cli(directory: Path, runs: int = 40) -> ScriptedCLI:
    """A CLI that serves ``runs`` runs, each answered ``ran on <pid>`` and followed by a
    proven ``/clear``."""
    cli = ScriptedCLI(directory=directory, auto_init=False, timeout=60)
    for n in range(runs):
        sid = f"s{n}"
        cli.expect_user().emit(dict(INIT, session_id=sid)).text("ran").emit(result_line(sid, "ran", 1))
        cli.expect_user("/clear").emit(dict(INIT, session_id=f"s{n + 1}")).emit(result_line(f"s{n + 1}", "", 0))
    return cli


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def alive(pid: Any) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purposes
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_options_changed_after_a_cli_started_get_a_new_cli(tmp_path: Path) -> None:
    options = reusable_cli(tmp_path).options(cwd=str(tmp_path))
    other = tmp_path / "other"
    other.mkdir()
    with AgentPool(options, max_workers=1, warm=1) as pool:
        wait_until(lambda: pool.stats()["parked"] == 1, "a warm CLI")
        [warm] = pool.parked_pids()
        options.cwd = str(other)  # the warm CLI runs in tmp_path: it must not serve this run
        run = pool.submit("where?")
        run.result(WAIT)
        assert run.cli_pid != warm
        options.env["X"] = "1"  # in place, too
        again = pool.submit("where now?")
        again.result(WAIT)
        assert again.cli_pid not in (warm, run.cli_pid)
    assert pool.stats()["started"] >= 3


def test_a_run_keeps_the_options_it_was_submitted_with(tmp_path: Path) -> None:
    options = reusable_cli(tmp_path).options()
    with AgentPool(options, max_workers=1) as pool:
        first = pool.submit("one")
        first.result(WAIT)
        wait_until(lambda: pool.stats()["parked"] == 1, "the reset CLI parked")
        second = pool.submit("two")  # submitted with the options as they are now ...
        options.model = "claude-other"  # ... so this change is not its business
        second.result(WAIT)
        assert second.cli_pid == first.cli_pid


def test_shutdown_without_waiting_still_closes_the_parked_clis(tmp_path: Path) -> None:
    pool = AgentPool(reusable_cli(tmp_path).options(), max_workers=2, warm=2)
    wait_until(lambda: pool.stats()["parked"] == 2, "two warm CLIs")
    pids = pool.parked_pids()
    pool.shutdown(wait=False)
    wait_until(lambda: not any(alive(pid) for pid in pids), "the parked CLIs to exit")
    pool.shutdown(wait=True)  # joins the threads; nothing left to close


def test_shutdown_drains_the_queue_on_warm_clis(tmp_path: Path) -> None:
    pool = AgentPool(reusable_cli(tmp_path).options(), max_workers=3, warm=3)
    wait_until(lambda: pool.stats()["parked"] == 3, "three warm CLIs")
    futures = [pool.submit(f"run {n}") for n in range(30)]
    pool.shutdown(wait=True)
    assert all(f.result(0).text == "ran" for f in futures)
    stats = pool.stats()
    assert stats["started"] == 3 and stats["reused"] >= 27, stats
    assert len({f.cli_pid for f in futures}) == 3


def test_map_that_fails_while_submitting_cancels_what_it_submitted(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path, timeout=60).expect_user().stall(60)
    with AgentPool(cli.options(), max_workers=1) as pool:
        submitted: List[Any] = []
        submit = pool.submit

        def recording_submit(prompt: str, **kwargs: Any) -> Any:
            submitted.append(submit(prompt, **kwargs))
            return submitted[-1]

        pool.submit = recording_submit  # type: ignore[method-assign]

        def prompts() -> Iterator[str]:
            yield "a"
            yield "b"
            wait_until(lambda: submitted[0].running(), "the first run to start")
            raise RuntimeError("no more prompts")

        with pytest.raises(RuntimeError, match="no more prompts"):
            pool.map(prompts())
        assert [f.cancelled() for f in submitted] == [True, True]  # the running one was stopped
        del submitted[:]
        with pytest.raises(TypeError):
            pool.map(["fine", 3])  # type: ignore[list-item]
        assert [f.cancelled() for f in submitted] == [True]


def test_map_after_shutdown_raises_before_running_anything() -> None:
    pool = AgentPool(ClaudeAgentOptions(), max_workers=1)
    pool.shutdown()
    with pytest.raises(UsageError):
        pool.map(["x"])


@pytest.mark.parametrize("prompt, command", [
    ("/config permissionMode=acceptEdits", "config"), ("/heapdump", "heapdump"), ("/", None),
    (" /config x=y", None), ("please /config x=y", None), ("/ config", None), ("", None),
])  # fmt: skip
def test_which_prompts_are_slash_commands(prompt: str, command: Any) -> None:
    from claude_sync._agents.reuse import slash_command

    assert slash_command(prompt) == command


def test_a_cli_that_ran_a_slash_command_is_retired(tmp_path: Path) -> None:
    with AgentPool(reusable_cli(tmp_path).options(), max_workers=1) as pool:
        first = pool.submit("/config permissionMode=acceptEdits")
        first.result(WAIT)
        second = pool.submit("hello")
        second.result(WAIT)
        third = pool.submit("again")
        third.result(WAIT)
    assert first.cli_pid != second.cli_pid  # retired: it may have written settings
    assert second.cli_pid == third.cli_pid  # a plain prompt is reset and reused


def test_a_run_that_ends_after_shutdown_with_nothing_queued_is_not_reset(tmp_path: Path) -> None:
    """Its CLI will never serve another run: it is closed without the ``/clear`` (a reset is
    ~half of a pooled run's CPU on CLI 2.1.332); the run's own result is untouched."""
    gate = tmp_path / "answer-now"
    cli = ScriptedCLI(directory=tmp_path, auto_init=False, timeout=60)
    cli.expect_user().wait_for_file(gate).emit(dict(INIT, session_id="s0")).text("ran")
    cli.emit(result_line("s0", "ran", 1))
    cli.expect_user("/clear").emit(dict(INIT, session_id="s1")).emit(result_line("s1", "", 0))
    pool = AgentPool(cli.options(), max_workers=1)
    run = pool.submit("the last run")
    wait_until(run.running, "the run to start")
    pool.shutdown(wait=False)  # closing, and the queue is empty
    gate.touch()
    assert run.result(WAIT).text == "ran"
    pool.shutdown(wait=True)
    [report] = cli.runs
    prompts = [frame["message"]["content"] for frame in report.received if frame.get("type") == "user"]
    assert prompts == ["the last run"], prompts
    assert pool.stats()["reused"] == 0 and pool.stats()["alive"] == 0
