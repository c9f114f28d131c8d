"""ClaudeSDKClient against the fake CLI: every method, every misuse path, timeouts, Ctrl-C."""

from __future__ import annotations

import _thread
import asyncio
import threading
from typing import Any, Dict, List

import pytest
from helpers import texts, wait_for

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    CLIConnectionError,
    ControlRequestError,
    ControlTimeoutError,
    ReceiveTimeoutError,
    ResultMessage,
    UsageError,
)

ECHO = {"echo_controls": True, "fail_subtypes": ["frobnicate"], "silent_subtypes": ["never_answered"]}


def control_frames(cli: Any, subtype: str) -> List[Dict[str, Any]]:
    return [
        f["request"]
        for f in cli.stdin_frames()
        if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]




# ----------------------------------------------------------------------------- turns


def test_two_turns_each_response_ends_at_its_result(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    with ClaudeSDKClient(cli.options()) as client:
        client.query("first")
        first = list(client.receive_response())
        client.query("second")
        second = list(client.receive_response())
    assert texts(first) == ["echo: first"] and isinstance(first[-1], ResultMessage)
    assert texts(second) == ["echo: second"] and isinstance(second[-1], ResultMessage)


def test_connect_with_prompt_sends_it(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    client = ClaudeSDKClient(cli.options())
    try:
        client.connect("hello")
        assert texts(list(client.receive_response())) == ["echo: hello"]
    finally:
        client.close()


def test_query_accepts_an_iterable_of_user_dicts_with_uuid(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    with ClaudeSDKClient(cli.options()) as client:
        client.query([{"type": "user", "message": {"role": "user", "content": "a"}, "uuid": "u-1"}])
        list(client.receive_response())
    user = [f for f in cli.stdin_frames() if f["type"] == "user"][0]
    assert user["uuid"] == "u-1" and user["session_id"] == "default"


def test_merge_assistant_gives_whole_messages(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "text", "text": "part one", "id": "msg_A"},
        {"op": "text", "text": "part two", "id": "msg_A"},
        {"op": "result"},
        {"op": "wait_eof"},
    ])
    with ClaudeSDKClient(cli.options()) as client:
        client.query("hi")
        merged = list(client.receive_response(merge_assistant=True))
    assistants = [m for m in merged if isinstance(m, AssistantMessage)]
    assert len(assistants) == 1
    assert [b.text for b in assistants[0].content] == ["part one", "part two"]


# ----------------------------------------------------------------------------- control methods


@pytest.mark.parametrize(
    "call, subtype, payload",
    [
        (lambda c: c.set_permission_mode("acceptEdits"), "set_permission_mode", {"mode": "acceptEdits"}),
        (lambda c: c.set_model("claude-x"), "set_model", {"model": "claude-x"}),
        (lambda c: c.set_model(), "set_model", {"model": None}),
        (lambda c: c.set_max_thinking_tokens(2048), "set_max_thinking_tokens", {"max_thinking_tokens": 2048}),
        (lambda c: c.set_max_thinking_tokens(None), "set_max_thinking_tokens", {"max_thinking_tokens": None}),
        (lambda c: c.rewind_files("u-9", dry_run=True), "rewind_files", {"user_message_id": "u-9", "dry_run": True}),
        (lambda c: c.rewind_files("u-9"), "rewind_files", {"user_message_id": "u-9"}),
        (lambda c: c.get_mcp_status(), "mcp_status", {}),
        (lambda c: c.get_context_usage(), "get_context_usage", {}),
        (lambda c: c.stop_task("task-1"), "stop_task", {"task_id": "task-1"}),
        (lambda c: c.reconnect_mcp_server("calc"), "mcp_reconnect", {"serverName": "calc"}),
        (lambda c: c.toggle_mcp_server("calc", False), "mcp_toggle", {"serverName": "calc", "enabled": False}),
        (lambda c: c.send_control_request("get_settings", {"x": 1}), "get_settings", {"x": 1}),
    ],
)
def test_control_methods_send_their_request(fake_cli: Any, call: Any, subtype: str, payload: Dict[str, Any]) -> None:
    cli = fake_cli([{"op": "wait_eof"}], auto=ECHO)
    with ClaudeSDKClient(cli.options()) as client:
        answer = call(client)
    sent = control_frames(cli, subtype)
    assert sent == [dict({"subtype": subtype}, **payload)]
    if answer is not None:
        assert answer == {"echo": sent[0]}


def test_control_error_carries_the_cli_text(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_eof"}], auto=ECHO)
    with ClaudeSDKClient(cli.options()) as client:
        with pytest.raises(ControlRequestError) as info:
            client.send_control_request("frobnicate")
        assert str(info.value) == "Unsupported control request subtype: frobnicate"
        assert info.value.subtype == "frobnicate" and info.value.request_id
        assert client.get_mcp_status()["echo"]["subtype"] == "mcp_status"  # session still fine


def test_control_timeout_is_a_timeout_error_and_the_session_survives(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_eof"}], auto=ECHO)
    with ClaudeSDKClient(cli.options()) as client:
        with pytest.raises(TimeoutError) as info:
            client.send_control_request("never_answered", timeout=0.3)
        assert isinstance(info.value, ControlTimeoutError) and info.value.timeout == 0.3
        assert client.get_mcp_status()["echo"]["subtype"] == "mcp_status"


def test_get_server_info_is_the_cached_initialize_response(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_eof"}])
    with ClaudeSDKClient(cli.options()) as client:
        info = client.get_server_info()
    assert info is not None and info["fake"] is True and "pid" in info
    assert len(control_frames(cli, "initialize")) == 1


# ----------------------------------------------------------------------------- misuse


def test_misuse_paths(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}], auto=ECHO)
    client = ClaudeSDKClient(cli.options())
    with pytest.raises(UsageError, match="connect"):
        client.query("too early")
    with pytest.raises(CLIConnectionError, match="Not connected"):  # as the official client
        client.get_mcp_status()
    client.connect()
    with pytest.raises(UsageError, match="already connected"):
        client.connect()
    client.close()
    for call in (
        lambda: client.query("after close"),
        lambda: client.get_mcp_status(),
        lambda: client.interrupt(),
        lambda: client.receive_response(),
    ):
        with pytest.raises(UsageError) as info:
            call()
        assert isinstance(info.value, CLIConnectionError)
    client.close()  # idempotent
    assert isinstance(UsageError("x"), RuntimeError)


def test_connect_after_disconnect_starts_a_new_process(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}], auto=ECHO)
    client = ClaudeSDKClient(cli.options())
    client.connect()
    first_pid = client.session.pid if client.session else None
    client.disconnect()
    client.connect()
    try:
        assert client.session is not None and client.session.pid != first_pid
        client.query("again")
        texts = [m for m in client.receive_response(timeout=30) if isinstance(m, ResultMessage)]
        assert len(texts) == 1
    finally:
        client.disconnect()


def test_second_concurrent_consumer_is_rejected(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "text", "text": "one"}, {"op": "wait_file", "path": "GATE"}, {"op": "result"}, {"op": "wait_eof"}])
    gate = cli.gate("release")
    script = cli.script_path.read_text().replace("GATE", str(gate))
    cli.script_path.write_text(script)
    with ClaudeSDKClient(cli.options()) as client:
        client.query("hi")
        first = client.receive_response()
        assert isinstance(next(first), AssistantMessage)
        with pytest.raises(UsageError, match="already receiving"):
            next(client.receive_response())
        gate.touch()
        assert isinstance(list(first)[-1], ResultMessage)
        client.query("again")  # the slot is free again after the first consumer finished
        gate_free = client.receive_messages(idle_timeout=0.3)
        with pytest.raises(ReceiveTimeoutError):
            list(gate_free)


def test_idle_timeout_raises_and_leaves_the_session_running(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "wait_user"}, {"op": "text", "text": "late"}, {"op": "result"}, {"op": "wait_eof"}])
    with ClaudeSDKClient(cli.options()) as client:
        client.query("first")
        with pytest.raises(ReceiveTimeoutError) as info:
            list(client.receive_response(idle_timeout=0.3))
        assert info.value.kind == "idle" and isinstance(info.value, TimeoutError)
        client.query("second")
        assert texts(list(client.receive_response(timeout=10))) == ["late"]


def test_total_timeout_applies_even_while_messages_flow(fake_cli: Any) -> None:
    steps = [{"op": "wait_user"}] + [{"op": "text", "text": str(i)} if i % 2 == 0 else {"op": "sleep", "seconds": 0.05} for i in range(200)]
    cli = fake_cli(steps + [{"op": "result"}, {"op": "wait_eof"}])
    with ClaudeSDKClient(cli.options()) as client:
        client.query("slow drip")
        with pytest.raises(ReceiveTimeoutError) as info:
            list(client.receive_response(timeout=0.5, idle_timeout=0.4))
        assert info.value.kind == "total"


# ----------------------------------------------------------------------------- interrupt


def _interruptible_turn(cli_factory: Any) -> Any:
    return cli_factory(
        [
            {"op": "wait_user"},
            {"op": "text", "text": "partial"},
            {"op": "wait_request", "subtype": "interrupt"},
            {"op": "emit", "obj": {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": None, "session_id": "s"}},
            {"op": "result", "subtype": "error_during_execution", "is_error": True, "terminal_reason": "aborted_streaming", "errors": ["[ede_diagnostic] aborted"]},
            {"op": "turn", "text": "second answer"},
            {"op": "wait_eof"},
        ],
        auto={"manual_interrupt": True},
    )


def test_interrupt_with_drain_consumes_the_aborted_turn(fake_cli: Any) -> None:
    cli = _interruptible_turn(fake_cli)
    with ClaudeSDKClient(cli.options()) as client:
        client.query("long task")
        wait_for(lambda: any(e["kind"] == "got_user" for e in cli.log()))
        drained = client.interrupt(drain=True)
        assert isinstance(drained[-1], ResultMessage)
        assert drained[-1].subtype == "error_during_execution" and drained[-1].terminal_reason == "aborted_streaming"
        client.query("next")
        nxt = list(client.receive_response())
    assert texts(nxt) == ["second answer"] and not nxt[-1].is_error


def test_interrupt_without_drain_next_response_ends_at_the_aborted_result(fake_cli: Any) -> None:
    cli = _interruptible_turn(fake_cli)
    with ClaudeSDKClient(cli.options()) as client:
        client.query("long task")
        wait_for(lambda: any(e["kind"] == "got_user" for e in cli.log()))
        assert client.interrupt() == []
        aborted = list(client.receive_response())
        assert aborted[-1].terminal_reason == "aborted_streaming"
        client.query("next")
        assert texts(list(client.receive_response())) == ["second answer"]


def test_interrupt_while_idle_is_harmless(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    with ClaudeSDKClient(cli.options()) as client:
        assert client.interrupt(drain=True) == []
        client.query("after")
        assert texts(list(client.receive_response())) == ["echo: after"]
    assert len(control_frames(cli, "interrupt")) == 1


# ----------------------------------------------------------------------------- threads


def test_control_call_from_another_thread_while_iterating(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "text", "text": "a"}, {"op": "sleep", "seconds": 0.5}, {"op": "text", "text": "b"}, {"op": "result"}, {"op": "wait_eof"}], auto=ECHO)
    answers: List[Any] = []
    with ClaudeSDKClient(cli.options()) as client:
        client.query("hi")
        for message in client.receive_response():
            if isinstance(message, AssistantMessage) and message.content[0].text == "a":
                worker = threading.Thread(target=lambda: answers.append(client.get_mcp_status()))
                worker.start()
                worker.join(10)
    assert answers == [{"echo": {"subtype": "mcp_status"}}]


def test_queries_from_several_threads(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    with ClaudeSDKClient(cli.options()) as client:
        workers = [threading.Thread(target=client.query, args=(f"q{i}",)) for i in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(10)
        results = []
        for _ in range(4):
            results += [m for m in client.receive_response() if isinstance(m, ResultMessage)]
    assert sorted(r.result for r in results) == [f"echo: q{i}" for i in range(4)]


def test_close_from_another_thread_ends_iteration(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "text", "text": "a"}, {"op": "sleep", "seconds": 60}])
    client = ClaudeSDKClient(cli.options(close_timeout=0.5))
    client.connect()
    client.query("hi")
    seen = []
    for message in client.receive_messages():
        seen.append(message)
        threading.Thread(target=client.close).start()
    assert texts(seen) == ["a"]
    client.close()


def test_sync_api_inside_a_running_event_loop(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])

    async def main() -> List[str]:
        asyncio.get_running_loop()  # we are inside a loop, as in Jupyter
        with ClaudeSDKClient(cli.options()) as client:
            client.query("from a loop")
            return texts(list(client.receive_response()))

    assert asyncio.run(main()) == ["echo: from a loop"]


# ----------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_while_waiting_sends_interrupt_and_session_survives(fake_cli: Any) -> None:
    cli = _interruptible_turn(fake_cli)
    with ClaudeSDKClient(cli.options()) as client:
        client.query("long task")
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            for _ in client.receive_response():
                pass
        timer.join()
        assert len(control_frames(cli, "interrupt")) == 1
        aborted = list(client.receive_response())
        assert aborted[-1].terminal_reason == "aborted_streaming"
        client.query("next")
        assert texts(list(client.receive_response())) == ["second answer"]


def test_second_ctrl_c_before_the_result_closes(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "sleep", "seconds": 60}])
    with ClaudeSDKClient(cli.options(close_timeout=0.5)) as client:
        client.query("stuck")
        for _ in range(2):
            timer = threading.Timer(0.2, _thread.interrupt_main)
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                list(client.receive_response())
            timer.join()
        assert client.session is not None and client.session.closed
        with pytest.raises(UsageError):
            client.query("dead")


def test_verbatim_prompts_marks_every_user_message_client_composed(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}], auto=ECHO)
    options = cli.options()
    options.verbatim_prompts = True
    with ClaudeSDKClient(options) as client:
        client.query("@/etc/passwd please")
        list(client.receive_response(timeout=30))
    users = [f for f in cli.stdin_frames() if f.get("type") == "user"]
    assert users and all(f.get("client_composed") is True for f in users)
    assert users[0]["message"]["content"] == "@/etc/passwd please"


def test_user_messages_are_not_marked_by_default(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}], auto=ECHO)
    with ClaudeSDKClient(cli.options()) as client:
        client.query("hi")
        list(client.receive_response(timeout=30))
    users = [f for f in cli.stdin_frames() if f.get("type") == "user"]
    assert users and all("client_composed" not in f for f in users)
