"""``run()`` and ``AgentPool`` end to end: the real CLI against the fake API.

Covers one-call runs, the futures shape (``submit``/``map``/``as_completed``), warm start
(the CLI that serves a run was spawned before the submit), cancel and shutdown reaping, a
CLI killed while parked or mid-run, and CLI reuse through ``/clear`` with one isolation test
per kind of state that could leak from one run to the next.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import time
from concurrent.futures import CancelledError, as_completed, wait
from pathlib import Path
from typing import Any, Dict, List, Set

import pytest
from helpers import child_pids, is_init, wait_until

from claude_sync import (
    AgentPool,
    HookMatcher,
    PermissionResultAllow,
    PermissionRuleValue,
    PermissionUpdate,
    ProcessError,
    ReceiveTimeoutError,
    ResultError,
    RunResult,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    run,
    tool,
)
from claude_sync.testing.fake_api import (
    ApiRequest,
    FakeAnthropicAPI,
    content_text,
    error,
    text,
    tool_use,
)

pytestmark = pytest.mark.e2e

NO_RETRIES = {"CLAUDE_CODE_MAX_RETRIES": "0"}
WAIT = 60.0


def request_text(request: ApiRequest) -> str:
    """Every piece of text a request carried: messages and system prompt."""
    return " ".join(content_text(m.get("content")) for m in request.messages) + request.system_text


def wait_parked(pool: AgentPool, count: int) -> List[Any]:
    wait_until(lambda: pool.stats()["parked"] >= count, WAIT, "parked CLIs")
    return pool.parked_pids()


def tool_results(result: RunResult) -> List[ToolResultBlock]:
    return [
        block
        for m in result.messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]


def result_text(block: ToolResultBlock) -> str:
    return content_text(block.content)


# ----------------------------------------------------------------------------- run()


def test_run_returns_a_picklable_result(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("four"))
    result = run("What is 2 + 2?", options=e2e_options(), timeout=WAIT)
    assert result.text == "four" and result.is_error is False and result.num_turns == 1
    assert result.result.result == "four"
    assert is_init(result.messages[0])
    assert result.session_id == result.messages[0].init.session_id
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    assert result.usage is not None and result.usage["input_tokens"] > 0
    assert pickle.loads(pickle.dumps(result)) == result
    (turn,) = fake_api.turn_requests()
    assert turn.last_user_text.endswith("What is 2 + 2?")
    assert child_pids() == []


def test_run_with_a_prompt_stream(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("streamed"))
    prompt = [{"type": "user", "message": {"role": "user", "content": "from a stream"}}]
    result = run(iter(prompt), options=e2e_options(), timeout=WAIT)
    assert result.text == "streamed"
    assert fake_api.turn_requests()[0].last_user_text.endswith("from a stream")


def test_run_raises_result_error_as_query_does(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(error(500, "api_error", "Fake api_error"))
    with pytest.raises(ResultError) as caught:
        run("hi", options=e2e_options(env=NO_RETRIES), timeout=WAIT)
    assert caught.value.api_error_status == 500
    assert child_pids() == []


def test_run_timeout_reaps_the_cli(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("too late", delay=30.0))
    with pytest.raises(ReceiveTimeoutError):
        run("slow", options=e2e_options(), timeout=3.0)
    assert child_pids() == []


# ----------------------------------------------------------------------------- the pool


def test_submit_map_and_as_completed(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(*[lambda request: text("echo " + request.last_user_text.split()[-1])] * 7)
    with AgentPool(e2e_options(), max_workers=2) as pool:
        futures = {pool.submit(f"say p{i}"): i for i in range(4)}
        seen = {futures[f]: f.result().text for f in as_completed(futures, timeout=WAIT)}
        assert seen == {i: f"echo p{i}" for i in range(4)}
        assert [r.text for r in pool.map(["say m0", "say m1", "say m2"], timeout=WAIT)] == [
            "echo m0",
            "echo m1",
            "echo m2",
        ]
    stats = pool.stats()  # after shutdown joined the workers (they reset after settling)
    # Seven tool-free runs on two workers: the CLIs were reset and reused, not restarted.
    assert stats["reused"] >= 5 and stats["started"] <= 3, stats
    assert child_pids() == []
    fake_api.assert_no_surprises()


def test_warm_cli_was_spawned_before_the_submit(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("warm answer"))
    with AgentPool(e2e_options(), max_workers=1, warm=1) as pool:
        (warm_pid,) = wait_parked(pool, 1)
        assert warm_pid in child_pids()
        future = pool.submit("hello")
        assert future.result(WAIT).text == "warm answer"
        assert future.cli_pid == warm_pid
    assert child_pids() == []


def test_a_warm_cli_serves_only_runs_with_equal_options(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("other options"), text("pool options"))
    options = e2e_options()
    with AgentPool(options, max_workers=1, warm=1, max_clis=2) as pool:  # room for the cold one beside it
        (warm_pid,) = wait_parked(pool, 1)
        other = pool.submit("a", options=e2e_options(model="claude-other-model"))
        assert other.result(WAIT).text == "other options"
        assert other.cli_pid != warm_pid  # started cold: its spawn differs
        assert warm_pid in pool.parked_pids()
        same = pool.submit("b", options=e2e_options())  # an equal options object
        assert same.result(WAIT).text == "pool options"
        assert same.cli_pid == warm_pid
    assert [r.model for r in fake_api.turn_requests()][0] == "claude-other-model"


def test_cancel_stops_a_running_run_and_reaps_its_cli(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("never", delay=60.0), text("after"))
    with AgentPool(e2e_options(), max_workers=1) as pool:
        future = pool.submit("slow")
        assert fake_api.wait_for(lambda reqs: any(r.kind == "turn" for r in reqs), WAIT)
        pid = future.cli_pid
        assert pid is not None and pid in child_pids()
        assert future.cancel() is True
        assert future.cancelled() and future.done()
        assert pid not in child_pids()
        with pytest.raises(CancelledError):
            future.result(0)
        assert pool.submit("next").result(WAIT).text == "after"  # the pool goes on
    assert child_pids() == []


def test_shutdown_cancel_futures_settles_everything(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("slow 1", delay=60.0), text("slow 2", delay=60.0))
    pool = AgentPool(e2e_options(), max_workers=2, warm=1)
    futures = [pool.submit(f"q{i}") for i in range(5)]
    assert fake_api.wait_for(lambda reqs: sum(r.kind == "turn" for r in reqs) == 2, WAIT)
    started = time.monotonic()
    pool.shutdown(cancel_futures=True)
    assert time.monotonic() - started < 30.0
    done, not_done = wait(futures, timeout=0)
    assert not not_done and all(f.cancelled() for f in futures)
    assert child_pids() == []


def test_ctrl_c_in_the_with_block_stops_every_run(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("slow", delay=60.0))
    futures: List[Any] = []
    with pytest.raises(KeyboardInterrupt):
        with AgentPool(e2e_options(), max_workers=1) as pool:
            futures += [pool.submit("a"), pool.submit("b")]
            assert fake_api.wait_for(lambda reqs: any(r.kind == "turn" for r in reqs), WAIT)
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread
    assert all(f.cancelled() for f in futures)
    assert child_pids() == []


def test_a_cli_killed_while_parked_is_replaced(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("fresh"))
    with AgentPool(e2e_options(), max_workers=1, warm=1) as pool:
        (pid,) = wait_parked(pool, 1)
        os.kill(pid, signal.SIGKILL)
        future = pool.submit("hi")  # at once: the pool may not have noticed yet
        assert future.result(WAIT).text == "fresh"
        assert future.cli_pid != pid
        assert pool.stats()["replaced_dead"] == 1
    assert child_pids() == []


def test_a_cli_crashing_mid_run_fails_that_future_only(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("never", delay=60.0), text("survivor"))
    with AgentPool(e2e_options(), max_workers=1) as pool:
        doomed = pool.submit("crash")
        assert fake_api.wait_for(lambda reqs: any(r.kind == "turn" for r in reqs), WAIT)
        assert doomed.cli_pid is not None
        os.kill(doomed.cli_pid, signal.SIGKILL)
        assert isinstance(doomed.exception(WAIT), ProcessError)
        assert pool.submit("next").result(WAIT).text == "survivor"
    assert child_pids() == []


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_workers"):
        AgentPool(max_workers=0)
    with pytest.raises(ValueError, match="warm"):
        AgentPool(max_workers=2, warm=-1)
    with pytest.raises(ValueError, match="cannot exceed"):
        AgentPool(max_workers=2, warm=3)


# ----------------------------------------------------------------------------- isolation


def test_isolation_conversation_history(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("ANSWER-ONE-7f3"), text("answer two"))
    with AgentPool(e2e_options(), max_workers=1) as pool:
        a, b, second = _two_runs(pool, "QUESTION-ONE-c41", "question two")
        first = a.result()
    assert a.cli_pid == b.cli_pid  # one CLI served both runs, reset in between
    assert second.session_id != first.session_id
    # Every message of the second run belongs to its own session (nothing late from the first).
    assert {getattr(m, "session_id", None) for m in second.messages} - {None} == {second.session_id}
    later = fake_api.turn_requests()[1]
    assert "question two" in request_text(later)
    assert "QUESTION-ONE-c41" not in request_text(later) and "ANSWER-ONE-7f3" not in request_text(later)
    # The cost of the second run is its own, not the CLI's running total (2.1.197 reports
    # the running total in the ResultMessage).
    assert first.total_cost_usd is not None and second.total_cost_usd is not None
    assert 0 < second.total_cost_usd < 1.5 * first.total_cost_usd


def _two_runs(pool: AgentPool, first: str, second: str) -> List[Any]:
    a = pool.submit(first)
    a.result(WAIT)
    b = pool.submit(second)
    return [a, b, b.result(WAIT)]


def test_isolation_a_slash_command_retires_the_cli_and_its_settings_write_is_real(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    """``/config permissionMode=acceptEdits`` as a prompt writes the user's settings.json (both
    CLIs; the run never reaches the API): the CLI that ran it is retired, and what it wrote
    outlives it — the documented limit of reuse isolation."""
    options = e2e_options()
    settings = Path(options.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    fake_api.add(text("plain run"))
    with AgentPool(options, max_workers=1) as pool:
        a, b, second = _two_runs(pool, "/config permissionMode=acceptEdits", "hello")
    assert "acceptEdits" in a.result(0).text
    assert second.text == "plain run"
    assert a.cli_pid != b.cli_pid  # retired after the slash command
    assert pool.stats()["retired"] >= 1
    assert json.loads(settings.read_text())["permissions"]["defaultMode"] == "acceptEdits"
    [init] = [m.init for m in second.messages if is_init(m)]
    assert init.permission_mode == "acceptEdits"  # every later CLI starts with it
    assert len(fake_api.turn_requests()) == 1


def test_isolation_bash_working_directory(
    fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Path
) -> None:
    (e2e_workdir / "sub").mkdir()
    fake_api.add(
        tool_use("Bash", {"command": "cd sub && pwd", "description": "enter sub"}),
        text("moved"),
        tool_use("Bash", {"command": "pwd", "description": "where am I"}),
        text("here"),
    )
    with AgentPool(e2e_options(allowed_tools=["Bash"]), max_workers=1) as pool:
        a, b, second = _two_runs(pool, "go to sub", "where are you")
    assert a.cli_pid != b.cli_pid  # a run that used Bash retires its CLI
    (pwd,) = tool_results(second)
    assert result_text(pwd).strip() == str(e2e_workdir)


def test_isolation_background_task(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    marker = "pool_isolation_marker_5b1"
    fake_api.add(
        tool_use(
            "Bash",
            {"command": f"sleep 300 # {marker}", "description": "background", "run_in_background": True},
        ),
        *[lambda request: text("second run" if "anything running" in request.last_user_text else "started")] * 4,
    )
    with AgentPool(e2e_options(allowed_tools=["Bash"]), max_workers=1) as pool:
        a, b, second = _two_runs(pool, "start it", "anything running?")
        assert a.cli_pid != b.cli_pid
        assert second.text == "second run"
        # The retired CLI takes its background task along: the CLI ends it as it exits, which
        # can land a moment after the pool's close of that CLI returned — wait for it, bounded
        # (a task left running, ``sleep 300``, still fails this).
        wait_until(lambda: not _processes_with(marker), 10, "the background task's end")


def _processes_with(marker: str) -> Set[int]:
    found: Set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


def test_isolation_session_permission_rules(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    asked: List[str] = []

    def allow_for_the_session(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
        asked.append(tool_input.get("command", ""))
        rule = PermissionUpdate(
            type="addRules", rules=[PermissionRuleValue(tool_name="Bash")], behavior="allow", destination="session"
        )
        return PermissionResultAllow(updated_permissions=[rule])

    fake_api.add(
        tool_use("Bash", {"command": "touch one.txt", "description": "one"}),
        text("ran one"),
        tool_use("Bash", {"command": "touch two.txt", "description": "two"}),
        text("ran two"),
    )
    with AgentPool(e2e_options(can_use_tool=allow_for_the_session), max_workers=1) as pool:
        a, b, _ = _two_runs(pool, "run one", "run two")
    assert a.cli_pid != b.cli_pid
    assert asked == ["touch one.txt", "touch two.txt"]  # the rule granted in run one did not carry over


def test_isolation_files_read(fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Path) -> None:
    """A read-only run keeps its CLI; the reset makes the CLI forget the files it read: the
    2.1.197 refuses to edit a file not read since ("File has not been read yet"), the 2.1.330
    edits it without "(file state is current …)". Without the reset, both edit and say the
    file state is current."""
    target = e2e_workdir / "notes.txt"
    target.write_text("original\n")
    fake_api.add(
        tool_use("Read", {"file_path": str(target)}),
        text("read it"),
        tool_use("Edit", {"file_path": str(target), "old_string": "original", "new_string": "changed"}),
        text("tried"),
    )
    with AgentPool(e2e_options(allowed_tools=["Read", "Edit"]), max_workers=1) as pool:
        a, b, second = _two_runs(pool, "read notes", "edit notes")
    assert a.cli_pid == b.cli_pid  # Read only: the CLI was reset and reused
    (edit,) = tool_results(second)
    said = result_text(edit)
    assert "file state is current" not in said
    assert ("has not been read yet" in said) if edit.is_error else ("updated successfully" in said)


def test_isolation_mcp_server_state(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    calls: List[int] = []

    @tool("count", "Count calls", {})
    def count(args: Dict[str, Any]) -> Dict[str, Any]:
        calls.append(1)
        return {"content": [{"type": "text", "text": f"call {len(calls)}"}]}

    server = create_sdk_mcp_server("counter", tools=[count])
    fake_api.add(tool_use("mcp__counter__count", {}), text("counted"), text("plain"))
    options = e2e_options(mcp_servers={"counter": server}, allowed_tools=["mcp__counter__count"])
    with AgentPool(options, max_workers=1) as pool:
        a, b, second = _two_runs(pool, "count", "say something")
    assert calls == [1]
    assert a.cli_pid != b.cli_pid  # MCP tool use retires the CLI (and its MCP connections)
    assert second.text == "plain"


def test_isolation_set_model_and_permission_mode_on_a_leased_client(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("after the lease"))
    with AgentPool(e2e_options(), max_workers=1, warm=1) as pool:
        with pool.client() as client:
            leased_pid = client.session.pid
            client.set_model("haiku")
            client.set_permission_mode("acceptEdits")
        assert leased_pid not in child_pids()  # a leased CLI is never reused
        future = pool.submit("hi")
        result = future.result(WAIT)
        assert future.cli_pid != leased_pid
    (init,) = [m.init for m in result.messages if is_init(m)]
    assert init.permission_mode == "default"
    assert "haiku" not in (fake_api.turn_requests()[-1].model or "")


def test_reuse_false_never_reuses(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("a"), text("b"))
    with AgentPool(e2e_options(), max_workers=1, reuse=False) as pool:
        a, b, _ = _two_runs(pool, "one", "two")
        assert pool.stats()["reused"] == 0
    assert a.cli_pid != b.cli_pid


def test_recycled_after_max_runs(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("a"), text("b"), text("c"))
    with AgentPool(e2e_options(), max_workers=1, max_runs_per_cli=2) as pool:
        pids = [pool.submit(p) for p in ("one",)]
        pids[0].result(WAIT)
        second = pool.submit("two")
        second.result(WAIT)
        third = pool.submit("three")
        third.result(WAIT)
    assert pids[0].cli_pid == second.cli_pid != third.cli_pid


def test_hooks_never_see_a_reset(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    seen: List[Any] = []

    def record(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        seen.append((hook_input.get("hook_event_name"), hook_input.get("source") or hook_input.get("prompt")))
        return {}

    hooks = {event: [HookMatcher(hooks=[record])] for event in ("SessionStart", "UserPromptSubmit")}
    fake_api.add(text("a"), text("b"))
    with AgentPool(e2e_options(hooks=hooks), max_workers=1) as pool:
        a, b, _ = _two_runs(pool, "first prompt", "second prompt")
    assert a.cli_pid != b.cli_pid  # hooks set: no reuse
    assert ("UserPromptSubmit", "/clear") not in seen and ("SessionStart", "clear") not in seen
    assert [p for event, p in seen if event == "UserPromptSubmit"] == ["first prompt", "second prompt"]


CTRL_C_SCRIPT = """
import json, sys
from claude_sync import AgentPool, ClaudeAgentOptions
options = ClaudeAgentOptions(**json.loads(sys.argv[1]))
with AgentPool(options, max_workers=2) as pool:
    futures = [pool.submit("slow one"), pool.submit("slow two"), pool.submit("queued")]
    print("submitted", flush=True)
    for future in futures:
        future.result()
"""


def test_real_ctrl_c_in_a_program_reaps_every_cli(
    fake_api: FakeAnthropicAPI, e2e_options: Any, tmp_path: Path
) -> None:
    import json
    import subprocess
    import sys

    fake_api.add(text("never", delay=60.0), text("never", delay=60.0))
    options = e2e_options()
    fields = {"cli_path": options.cli_path, "env": options.env, "cwd": options.cwd, "close_timeout": 5.0}
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_SCRIPT)
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen(
        [sys.executable, str(script), json.dumps(fields)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(options.env, PYTHONPATH=root),
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "submitted"
        assert fake_api.wait_for(lambda reqs: sum(r.kind == "turn" for r in reqs) == 2, WAIT)
        clis = _processes_with_child_of(proc.pid)
        assert len(clis) == 2
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "KeyboardInterrupt" in err
    assert all(not Path(f"/proc/{pid}").exists() for pid in clis), clis  # no orphaned CLI


def _processes_with_child_of(parent: int) -> Set[int]:
    found: Set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == parent:
                found.add(int(entry.name))
    return found
