"""``claude_sync.testing.ScriptedCLI``: every step kind, in-process and as a subprocess.

Each scenario runs twice (``mode``): through ``cli.transport()`` (a ``MemoryTransport`` whose
CLI side is the script on a thread) and through ``cli.install(tmp_path)`` (a real subprocess
the client spawns with ``cli_path``). The same script is used both ways.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest
from helpers import results, texts

from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    ControlRequestError,
    ControlTimeoutError,
    HookMatcher,
    OversizedLineSkipped,
    PermissionResultAllow,
    PermissionResultDeny,
    ProcessError,
    ResultError,
    ResultMessage,
    ThinkingBlock,
    UnknownMessage,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)
from claude_sync.testing import SCRIPT_FAILED_EXIT, ScriptedCLI

Runner = Callable[..., List[Any]]


@pytest.fixture(params=["memory", "subprocess"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def connect(cli: ScriptedCLI, mode: str, tmp_path: Path, **fields: Any) -> Dict[str, Any]:
    """``query``/``ClaudeSDKClient`` keyword arguments that run ``cli`` in ``mode``."""
    fields.setdefault("close_timeout", 5.0)
    fields.setdefault("control_timeout", 10.0)
    if mode == "memory":
        return {"options": ClaudeAgentOptions(**fields), "transport": cli.transport()}
    return {"options": ClaudeAgentOptions(cli_path=cli.install(tmp_path), **fields)}


def run(cli: ScriptedCLI, mode: str, tmp_path: Path, prompt: Any = "hi", **fields: Any) -> List[Any]:
    return list(query(prompt, **connect(cli, mode, tmp_path, **fields)))


# ----------------------------------------------------------------------------- saying


def test_a_one_line_script_is_a_valid_run(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI.answer("4")
    messages = run(cli, mode, tmp_path, "What is 2 + 2?")
    assert texts(messages) == ["4"]
    [result] = results(messages)
    assert result.result == "4" and not result.is_error and result.session_id == "scripted-session"
    assert messages[0].subtype == "init"
    cli.verify(runs=1)
    report = cli.last_run
    assert report.ended == "eof" and report.exit_code == 0
    [user] = [f for f in report.received if f["type"] == "user"]
    assert user["message"]["content"] == "What is 2 + 2?"
    assert report.initialize is not None and report.initialize["subtype"] == "initialize"
    if mode == "subprocess":
        assert "--input-format" in report.argv and "stream-json" in report.argv


def test_numbered_texts_arrive_in_order_and_complete(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().numbered_texts(1000, batch=100).result()
    messages = run(cli, mode, tmp_path)
    assert texts(messages) == [str(i) for i in range(1000)]
    assert len({m.message_id for m in messages if isinstance(m, AssistantMessage)}) == 1000
    [result] = results(messages)
    assert result.result == "".join(str(i) for i in range(1000))
    cli.verify(runs=1)


def test_numbered_texts_can_share_message_ids_and_a_flood_repeats_one_line(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().numbered_texts(10, batch=3, per_message=4).flood(600, text="x").result()
    messages = run(cli, mode, tmp_path)
    numbered = [m for m in messages if isinstance(m, AssistantMessage)][:10]
    assert [m.message_id for m in numbered] == ["msg_numbered_0"] * 4 + ["msg_numbered_1"] * 4 + ["msg_numbered_2"] * 2
    assert texts(messages) == [str(i) for i in range(10)] + ["x"] * 600
    flooded = {m.message_id for m in messages if isinstance(m, AssistantMessage)} - {m.message_id for m in numbered}
    assert len(flooded) == 1
    cli.verify(runs=1)


def test_echo_turns_answers_every_prompt_until_input_ends(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().echo_turns()
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        answers = []
        for prompt in ("one", "two"):
            client.query(prompt)
            answers.append(list(client.receive_response(timeout=30)))
        assert client.interrupt(drain=True) == []  # an interrupt between turns is answered
    assert [texts(turn) for turn in answers] == [["echo: one"], ["echo: two"]]
    assert [(r.result, r.num_turns) for r in results(answers[0] + answers[1])] == [("echo: one", 1), ("echo: two", 2)]
    assert answers[0][0].subtype == "init" and not any(m.subtype == "init" for m in answers[1] if hasattr(m, "subtype"))
    cli.verify(runs=1)
    assert cli.last_run.ended == "eof"


def test_expect_input_open_fails_once_the_client_ended_its_input(mode: str, tmp_path: Path) -> None:
    open_cli = ScriptedCLI().expect_user().expect_input_open().text("still open").result()
    assert texts(run(open_cli, mode, tmp_path)) == ["still open"]  # query() keeps stdin open until the result
    open_cli.verify()
    gate = tmp_path / "input_ended"
    closed_cli = ScriptedCLI().expect_user().text("done").result().wait_for_file(gate).expect_input_open()
    with ClaudeSDKClient(**connect(closed_cli, mode, tmp_path)) as client:
        client.query("hi")
        list(client.receive_response(timeout=30))
        assert client.session is not None
        client.session.close_stdin()
        gate.touch()
    with pytest.raises(AssertionError, match=r"step 5 of 5 \(expect_input_open\): the client has already ended its input"):
        closed_cli.verify()


def test_auto_answers_can_refuse_or_ignore_a_subtype(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI(auto_answers={"frobnicate": ScriptedCLI.UNSUPPORTED, "never": ScriptedCLI.NO_ANSWER})
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        with pytest.raises(ControlRequestError, match="^Unsupported control request subtype: frobnicate$"):
            client.send_control_request("frobnicate")
        with pytest.raises(ControlTimeoutError):
            client.send_control_request("never", timeout=0.1)
    cli.verify()


def test_a_file_gate_answers_what_is_answered_whenever_it_comes(mode: str, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    cli = ScriptedCLI(auto_answers={"mcp_status": ScriptedCLI.ECHO}).expect_user().wait_for_file(gate).text("after").result()
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        client.query("hi")
        assert client.get_mcp_status() == {"echo": {"subtype": "mcp_status"}}  # while the CLI waits at the gate
        gate.touch()
        assert texts(list(client.receive_response(timeout=30))) == ["after"]
    cli.verify()


def test_every_message_kind_reaches_the_client(mode: str, tmp_path: Path) -> None:
    cli = (
        ScriptedCLI()
        .expect_user("go")
        .thinking("let me think")
        .tool_use("Bash", {"command": "ls"}, id="toolu_1")
        .tool_result("a.txt", tool_use_id="toolu_1")
        .emit({"type": "brand_new_kind", "payload": 1})
        .system("status", status="requesting")
        .text("done")
        .result(total_cost_usd=0.25, usage={"input_tokens": 7, "output_tokens": 3}, num_turns=2)
    )
    messages = run(cli, mode, tmp_path, "go")
    kinds = [type(m).__name__ for m in messages]
    assert kinds[0] == "SystemMessage" and messages[0].init is not None  # init: plain, as the official SDK
    assert any(isinstance(m, AssistantMessage) and isinstance(m.content[0], ThinkingBlock) for m in messages)
    assert any(isinstance(m, UserMessage) for m in messages)
    assert any(isinstance(m, UnknownMessage) for m in messages)
    [result] = results(messages)
    assert result.total_cost_usd == 0.25 and result.usage is not None and result.usage["input_tokens"] == 7
    assert result.num_turns == 2 and result.result == "done"
    cli.verify()


def test_an_api_error_ends_in_a_result_error(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().api_error(429)
    with pytest.raises(ResultError) as raised:
        run(cli, mode, tmp_path)
    assert "429" in str(raised.value)
    cli.verify()
    assert cli.last_run.exit_code == 1  # like the real CLI after an error result


def test_an_oversized_line_is_skipped_and_the_run_goes_on(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().oversized_line(200_000).text("after").result()
    messages = run(cli, mode, tmp_path, max_buffer_size=100_000)
    assert any(isinstance(m, OversizedLineSkipped) for m in messages)
    assert texts(messages) == ["after"]
    cli.verify()


def test_a_crash_surfaces_exit_code_and_stderr(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().text("partial").crash(3, stderr="segfault in the scripted CLI")
    with pytest.raises(ProcessError) as raised:
        run(cli, mode, tmp_path)
    assert raised.value.exit_code == 3
    assert "segfault in the scripted CLI" in str(raised.value)
    cli.verify()


# ----------------------------------------------------------------------------- asking


def deny_rm(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
    if "rm " in str(tool_input.get("command")):
        return PermissionResultDeny(message="no rm")
    return PermissionResultAllow()


def test_a_permission_policy_is_asked_and_its_answer_checked(mode: str, tmp_path: Path) -> None:
    cli = (
        ScriptedCLI()
        .expect_user()
        .tool_use("Bash", {"command": "rm -rf /"})
        .ask_permission(expect={"behavior": "deny", "message": "no rm"})
        .tool_use("Bash", {"command": "ls"})
        .ask_permission(expect={"behavior": "allow", "updatedInput": {"command": "ls"}})
        .text("ok")
        .result()
    )
    run(cli, mode, tmp_path, can_use_tool=deny_rm)
    cli.verify()
    answers = [a["answer"]["behavior"] for a in cli.last_run.answers if a["kind"] == "can_use_tool"]
    assert answers == ["deny", "allow"]


def test_a_policy_that_answers_otherwise_fails_verify_naming_the_step(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().tool_use("Bash", {"command": "ls"}).ask_permission(expect={"behavior": "deny"}).result()
    with pytest.raises(ProcessError) as raised:
        run(cli, mode, tmp_path, can_use_tool=deny_rm)
    assert raised.value.exit_code == SCRIPT_FAILED_EXIT
    with pytest.raises(AssertionError) as failed:
        cli.verify()
    message = str(failed.value)
    assert "step 3 of 4 (ask_permission Bash)" in message
    assert "behavior: expected 'deny', got 'allow'" in message
    assert "step 3 of 4" in str(raised.value)  # the client's own error quotes the CLI's stderr


def block_bash(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": f"no {hook_input['tool_name']}"}}


def test_a_hook_is_called_through_its_registered_callback(mode: str, tmp_path: Path) -> None:
    cli = (
        ScriptedCLI()
        .expect_user()
        .ask_hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls"},
                  expect={"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no Bash"}})
        .result()
    )
    run(cli, mode, tmp_path, hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[block_bash])]})
    cli.verify()


def test_asking_a_hook_the_client_never_registered_fails_clearly(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().ask_hook("Stop").result()
    with pytest.raises(ProcessError):
        run(cli, mode, tmp_path)
    with pytest.raises(AssertionError, match=r"step 2 of 3 \(ask_hook Stop\): the client registered no Stop hook"):
        cli.verify()


@tool("add", "Add two numbers", {"a": int, "b": int})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


def test_an_mcp_tool_is_called_after_the_handshake(mode: str, tmp_path: Path) -> None:
    calc = create_sdk_mcp_server("calc", tools=[add])
    cli = (
        ScriptedCLI()
        .expect_user()
        .ask_mcp_tool("calc", "add", {"a": 2, "b": 3}, expect={"content": [{"type": "text", "text": "5"}]})
        .ask_mcp_tool("calc", "add", {"a": 1, "b": 1}, expect={"content": [{"type": "text", "text": "2"}]})
        .result()
    )
    run(cli, mode, tmp_path, mcp_servers={"calc": calc})
    cli.verify()
    kinds = [a["kind"] for a in cli.last_run.answers]
    assert kinds == ["mcp:initialize", "mcp:initialized", "mcp:tools/list", "mcp:tools/call", "mcp:tools/call"]


def test_an_elicitation_without_on_elicitation_is_declined(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().ask_elicitation("calc", "Your name?", expect={"action": "decline"}).result()
    run(cli, mode, tmp_path)
    cli.verify()


# ----------------------------------------------------------------------------- hearing


def test_interrupt_and_set_model_are_expected_and_answered(mode: str, tmp_path: Path) -> None:
    cli = (
        ScriptedCLI()
        .expect_user("first")
        .text("one")
        .result()
        .expect_set_model("claude-other")
        .expect_interrupt()
        .expect_user("second")
        .text("two")
        .result()
    )
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        client.query("first")
        assert texts(list(client.receive_response())) == ["one"]
        client.set_model("claude-other")
        client.interrupt()
        client.query("second")
        assert texts(list(client.receive_response())) == ["two"]
    cli.verify()


def test_an_unexpected_frame_fails_with_what_was_expected_and_what_came(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().result().expect_interrupt().result()
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        client.query("one")
        list(client.receive_response())
        client.query("unscripted")
        with pytest.raises(ProcessError):
            list(client.receive_response())
    with pytest.raises(AssertionError) as failed:
        cli.verify()
    assert "step 3 of 4 (expect_control interrupt): expected a control_request 'interrupt'; got user message 'unscripted'" in str(failed.value)


def test_a_client_that_stops_early_fails_verify(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI.answer("one").expect_user("two").text("never").result()
    with pytest.raises(ProcessError) as raised:  # query() ends input after its result
        run(cli, mode, tmp_path, "one")
    assert raised.value.exit_code == SCRIPT_FAILED_EXIT
    with pytest.raises(AssertionError, match=r"step 4 of 6 \(expect_user 'two'\): expected the user message 'two'; "
                                             r"the client ended its input \(stdin EOF\) first"):
        cli.verify()


def test_a_permission_never_answered_fails_within_the_step_timeout(mode: str, tmp_path: Path) -> None:
    def stuck(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
        context.signal.wait(30)  # released when the session closes
        return PermissionResultAllow()

    cli = ScriptedCLI().expect_user().tool_use("Bash", {"command": "ls"}).ask_permission(timeout=0.5).result()
    with pytest.raises(ProcessError):
        run(cli, mode, tmp_path, can_use_tool=stuck)
    with pytest.raises(AssertionError, match=r"no answer to can_use_tool\('Bash'\) within 0.5s"):
        cli.verify()


def test_a_stall_makes_the_clients_own_timeout_fire(mode: str, tmp_path: Path) -> None:
    from claude_sync import ControlTimeoutError

    cli = ScriptedCLI().expect_control("set_permission_mode").stall(30)
    with ClaudeSDKClient(**connect(cli, mode, tmp_path, control_timeout=0.3, close_timeout=0.5)) as client:
        client.set_permission_mode("acceptEdits", timeout=10)  # answered: the script expected it
        with pytest.raises(ControlTimeoutError):
            client.set_model("x")  # the scripted CLI stalls: no answer
    cli.verify()  # a stall ended by the client closing the CLI counts as played
    assert cli.last_run.ended in ("closed by the client", "SIGTERM")


# ----------------------------------------------------------------------------- data


def test_the_script_is_data_and_round_trips_through_json() -> None:
    cli = ScriptedCLI(timeout=3).answer("4").expect_interrupt()
    again = ScriptedCLI.from_script(json.loads(json.dumps(cli.script)))
    assert again.script == cli.script
    with pytest.raises(ValueError, match="unsupported scripted-CLI script format 'claude_sync.scripted_cli/9'"):
        ScriptedCLI.from_script(dict(cli.script, format="claude_sync.scripted_cli/9"))
    with pytest.raises(TypeError):
        ScriptedCLI().emit({"type": "x", "callback": print})  # not JSON: refused when written
    with pytest.raises(ValueError, match="no tool_use step"):
        ScriptedCLI().ask_permission()


def test_verify_says_when_the_script_never_ran() -> None:
    with pytest.raises(AssertionError, match="never started"):
        ScriptedCLI.answer("4").verify()


def test_results_without_is_error_keep_the_turns_text() -> None:
    cli = ScriptedCLI().expect_user().text("a").text("b").result().expect_user().text("c").result()
    with ClaudeSDKClient(transport=cli.transport()) as client:
        client.query("1")
        first = [m for m in client.receive_response() if isinstance(m, ResultMessage)]
        client.query("2")
        second = [m for m in client.receive_response() if isinstance(m, ResultMessage)]
    assert first[0].result == "ab" and second[0].result == "c"
    cli.verify()


def test_answers_to_asks_sent_without_waiting_never_count_as_unexpected(mode: str, tmp_path: Path) -> None:
    cli = (
        ScriptedCLI()
        .expect_user()
        .ask_control({"subtype": "hook_callback", "callback_id": "nope", "input": {}}, request_id="late", wait=False)
        .text("meanwhile")
        .result()
        .expect_user("again")  # the answer to "late" arrives while this waits: set aside
        .expect_answer("late", expect_error="hook_callback")
        .ask_control({"subtype": "hook_callback", "callback_id": "never", "input": {}}, request_id="uncollected", wait=False)
        .result()
    )
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        client.query("one")
        assert texts(list(client.receive_response())) == ["meanwhile"]
        client.query("again")
        list(client.receive_response())
    cli.verify()  # the uncollected answer after the last step is no failure either


def test_a_malformed_step_ends_the_run_instead_of_hanging_the_client(mode: str, tmp_path: Path) -> None:
    cli = ScriptedCLI().expect_user().step("text").result()  # "text" without its text
    with pytest.raises(ProcessError) as raised:
        run(cli, mode, tmp_path)
    assert raised.value.exit_code == SCRIPT_FAILED_EXIT
    with pytest.raises(AssertionError, match=r"step 2 of 3 \(text ''\): the scripted CLI could not play this step: KeyError\('text'\)"):
        cli.verify()
    broken = ScriptedCLI().step("teleport")
    with pytest.raises(ClaudeSDKError):
        list(query("hi", **connect(broken, mode, tmp_path)))
    with pytest.raises(AssertionError, match=r"step 1 of 1 \(teleport\): unknown step op 'teleport' \(a newer script format\?\)"):
        broken.verify()


def test_an_interrupted_turn_ends_like_the_real_clis(mode: str, tmp_path: Path) -> None:
    cli = (ScriptedCLI().expect_user().text("thinking out loud").expect_interrupt().interrupted()
           .expect_user("next").text("fine").result())
    with ClaudeSDKClient(**connect(cli, mode, tmp_path)) as client:
        client.query("long task")
        first = []
        for message in client.receive_response():
            first.append(message)
            if texts([message]) == ["thinking out loud"]:
                client.interrupt()
        [result] = results(first)
        assert result.is_error and result.subtype == "error_during_execution"
        client.query("next")
        assert texts(list(client.receive_response())) == ["fine"]
    cli.verify()


def test_result_errors_are_written_as_given() -> None:
    from claude_sync.testing._scripted_cli.cli_lines import result_line

    def errors(value: Any) -> Any:
        return result_line(session_id="s", model="m", result=None, subtype="error_during_execution", is_error=True, errors=value)["errors"]

    assert errors(None) == [] and errors(("a", "b")) == ["a", "b"]
    assert errors("one string") == "one string" and errors({"nested": ["x"]}) == {"nested": ["x"]} and errors(42) == 42


def test_ignore_sigterm_is_for_a_subprocess_run_only() -> None:
    """(Its subprocess effect, close needing SIGKILL, is shown by tests/engine/test_connection.py's
    ``test_each_shutdown_rung``.)"""
    cli = ScriptedCLI().ignore_sigterm()
    with pytest.raises(ClaudeSDKError, match="ignore_sigterm needs the scripted CLI as a subprocess"):
        list(query("hi", options=ClaudeAgentOptions(close_timeout=1.0), transport=cli.transport()))
    with pytest.raises(AssertionError, match="ignore_sigterm needs the scripted CLI as a subprocess"):
        cli.verify()
