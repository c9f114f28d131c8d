"""ClaudeSDKClient against the scripted in-memory CLI: every method, every misuse path,
timeouts (Ctrl-C: ``test_ctrl_c.py``)."""

from __future__ import annotations

import asyncio
import gc
import threading
import warnings
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit, control_frames, interruptible_turn, texts, wait_until

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
from claude_sync.testing import ScriptedCLI

ECHO = {"frobnicate": ScriptedCLI.UNSUPPORTED, "never_answered": ScriptedCLI.NO_ANSWER, "mcp_status": ScriptedCLI.ECHO}

# ----------------------------------------------------------------------------- turns


def test_two_turns_each_response_ends_at_its_result() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        client.query("first")
        first = list(client.receive_response())
        client.query("second")
        second = list(client.receive_response())
    assert texts(first) == ["echo: first"] and isinstance(first[-1], ResultMessage)
    assert texts(second) == ["echo: second"] and isinstance(second[-1], ResultMessage)


def test_connect_with_prompt_sends_it() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    client = cli.client()
    try:
        client.connect("hello")
        assert texts(list(client.receive_response())) == ["echo: hello"]
    finally:
        client.close()


def test_query_accepts_an_iterable_of_user_dicts_with_uuid() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        client.query([{"type": "user", "message": {"role": "user", "content": "a"}, "uuid": "u-1"}])
        list(client.receive_response())
    user = [f for f in cli.stdin_frames() if f["type"] == "user"][0]
    assert user["uuid"] == "u-1" and user["session_id"] == "default"


def test_merge_assistant_gives_whole_messages() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("part one", message_id="msg_A").text("part two", message_id="msg_A").result())
    with cli.client() as client:
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
def test_control_methods_send_their_request(call: Any, subtype: str, payload: Dict[str, Any]) -> None:
    cli = Kit(ScriptedCLI(auto_answers={subtype: ScriptedCLI.ECHO}))
    with cli.client() as client:
        answer = call(client)
    sent = control_frames(cli, subtype)
    assert sent == [dict({"subtype": subtype}, **payload)]
    if answer is not None:
        assert answer == {"echo": sent[0]}


def test_control_error_carries_the_cli_text() -> None:
    cli = Kit(ScriptedCLI(auto_answers=ECHO))
    with cli.client() as client:
        with pytest.raises(ControlRequestError) as info:
            client.send_control_request("frobnicate")
        assert str(info.value) == "Unsupported control request subtype: frobnicate"
        assert info.value.subtype == "frobnicate" and info.value.request_id
        assert client.get_mcp_status()["echo"]["subtype"] == "mcp_status"  # session still fine


def test_control_timeout_is_a_timeout_error_and_the_session_survives() -> None:
    cli = Kit(ScriptedCLI(auto_answers=ECHO))
    with cli.client() as client:
        with pytest.raises(TimeoutError) as info:
            client.send_control_request("never_answered", timeout=0.3)
        assert isinstance(info.value, ControlTimeoutError) and info.value.timeout == 0.3
        assert client.get_mcp_status()["echo"]["subtype"] == "mcp_status"


def test_get_server_info_is_the_cached_initialize_response() -> None:
    cli = Kit(ScriptedCLI(initialize_response={"commands": [], "fake": True}))
    with cli.client() as client:
        info = client.get_server_info()
    assert info is not None and info["fake"] is True and "pid" in info
    assert len(control_frames(cli, "initialize")) == 1


# ----------------------------------------------------------------------------- misuse


def test_misuse_paths() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    client = cli.client()
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


def test_connect_after_disconnect_starts_a_new_process(tmp_path: Path) -> None:
    """As the official client: ``disconnect()`` then ``connect()`` reconnects (a new CLI)."""
    cli = ScriptedCLI(directory=tmp_path).expect_user("again").text("echo: again").result()
    client = ClaudeSDKClient(cli.options())
    client.connect()
    first_pid = client.session.pid if client.session else None
    client.disconnect()
    client.connect()
    try:
        assert client.session is not None and client.session.pid != first_pid
        client.query("again")
        results = [m for m in client.receive_response(timeout=30) if isinstance(m, ResultMessage)]
        assert len(results) == 1
    finally:
        client.disconnect()


def test_second_concurrent_consumer_is_rejected(tmp_path: Path) -> None:
    release = tmp_path / "release"
    cli = Kit(ScriptedCLI(auto_init=False).expect_user().text("one").wait_for_file(release).result().expect_user("again"))
    with cli.client() as client:
        client.query("hi")
        first = client.receive_response()
        assert isinstance(next(first), AssistantMessage)
        with pytest.raises(UsageError, match="already receiving"):
            next(client.receive_response())
        release.touch()
        assert isinstance(list(first)[-1], ResultMessage)
        client.query("again")  # the slot is free again after the first consumer finished
        gate_free = client.receive_messages(idle_timeout=0.3)
        with pytest.raises(ReceiveTimeoutError):
            list(gate_free)


def test_idle_timeout_raises_and_leaves_the_session_running() -> None:
    cli = Kit(ScriptedCLI().expect_user().expect_user().text("late").result())
    with cli.client() as client:
        client.query("first")
        with pytest.raises(ReceiveTimeoutError) as info:
            list(client.receive_response(idle_timeout=0.3))
        assert info.value.kind == "idle" and isinstance(info.value, TimeoutError)
        client.query("second")
        assert texts(list(client.receive_response(timeout=10))) == ["late"]


def test_total_timeout_applies_even_while_messages_flow() -> None:
    script = ScriptedCLI().expect_user()
    for i in range(200):
        script = script.text(str(i)) if i % 2 == 0 else script.stall(0.05)
    cli = Kit(script.result())
    with cli.client(close_timeout=0.1) as client:  # the CLI is still dripping: close kills it
        client.query("slow drip")
        with pytest.raises(ReceiveTimeoutError) as info:
            list(client.receive_response(timeout=0.5, idle_timeout=0.4))
        assert info.value.kind == "total"


# ----------------------------------------------------------------------------- interrupt


def test_interrupt_with_drain_consumes_the_aborted_turn() -> None:
    cli = interruptible_turn()
    with cli.client() as client:
        client.query("long task")
        wait_until(lambda: cli.steps_done() >= 1)  # the CLI has the prompt
        drained = client.interrupt(drain=True)
        assert isinstance(drained[-1], ResultMessage)
        assert drained[-1].subtype == "error_during_execution" and drained[-1].terminal_reason == "aborted_streaming"
        client.query("next")
        nxt = list(client.receive_response())
    assert texts(nxt) == ["second answer"] and not nxt[-1].is_error


def test_interrupt_without_drain_next_response_ends_at_the_aborted_result() -> None:
    cli = interruptible_turn()
    with cli.client() as client:
        client.query("long task")
        wait_until(lambda: cli.steps_done() >= 1)  # the CLI has the prompt
        assert client.interrupt() == []
        aborted = list(client.receive_response())
        assert aborted[-1].terminal_reason == "aborted_streaming"
        client.query("next")
        assert texts(list(client.receive_response())) == ["second answer"]


def test_interrupt_while_idle_is_harmless() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        assert client.interrupt(drain=True) == []
        client.query("after")
        assert texts(list(client.receive_response())) == ["echo: after"]
    assert len(control_frames(cli, "interrupt")) == 1


# ----------------------------------------------------------------------------- threads


def test_control_call_from_another_thread_while_iterating() -> None:
    cli = Kit(ScriptedCLI(auto_answers=ECHO).expect_user().text("a").stall(0.5).text("b").result())
    answers: List[Any] = []
    with cli.client() as client:
        client.query("hi")
        for message in client.receive_response():
            if isinstance(message, AssistantMessage) and message.content[0].text == "a":
                worker = threading.Thread(target=lambda: answers.append(client.get_mcp_status()))
                worker.start()
                worker.join(10)
    assert answers == [{"echo": {"subtype": "mcp_status"}}]


def test_queries_from_several_threads() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        workers = [threading.Thread(target=client.query, args=(f"q{i}",)) for i in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(10)
        results = []
        for _ in range(4):
            results += [m for m in client.receive_response() if isinstance(m, ResultMessage)]
    assert sorted(r.result for r in results) == [f"echo: q{i}" for i in range(4)]


def test_close_from_another_thread_ends_iteration() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("a"))  # then silent until input ends
    client = cli.client(close_timeout=0.5)
    client.connect()
    client.query("hi")
    seen = []
    for message in client.receive_messages():
        seen.append(message)
        threading.Thread(target=client.close).start()
    assert texts(seen) == ["a"]
    client.close()


def test_sync_api_inside_a_running_event_loop() -> None:
    cli = Kit(ScriptedCLI().echo_turns())

    async def main() -> List[str]:
        asyncio.get_running_loop()  # we are inside a loop, as in Jupyter
        with cli.client() as client:
            client.query("from a loop")
            return texts(list(client.receive_response()))

    assert asyncio.run(main()) == ["echo: from a loop"]


# ----------------------------------------------------------------------------- nothing held, nothing lost


def test_a_receive_timeout_while_merging_keeps_the_held_block_lines(tmp_path: Path) -> None:
    """Text and tool_use lines of one message are held while a long tool runs; a receive
    timeout fires; the next merged receive still gets the whole message."""
    tool_done = tmp_path / "tool_done"
    cli = Kit(ScriptedCLI().expect_user().text("a1", message_id="msg_a").text("a2", message_id="msg_a")
              .wait_for_file(tool_done).text("a3", message_id="msg_a").result())
    with cli.client() as client:
        client.query("go")
        with pytest.raises(ReceiveTimeoutError):
            list(client.receive_response(merge_assistant=True, idle_timeout=0.3))
        tool_done.touch()
        rest = list(client.receive_response(merge_assistant=True, timeout=10))
    assert [texts([m]) for m in rest if isinstance(m, AssistantMessage)] == [["a1", "a2", "a3"]]
    assert isinstance(rest[-1], ResultMessage)


def test_leaving_a_merged_loop_early_gives_the_held_lines_back(tmp_path: Path) -> None:
    more = tmp_path / "more"
    cli = Kit(ScriptedCLI(auto_init=False).expect_user().text("a", message_id="msg_a").text("b1", message_id="msg_b")
              .wait_for_file(more).text("b2", message_id="msg_b").result())
    with cli.client() as client:
        client.query("go")
        for message in client.receive_response(merge_assistant=True):
            assert texts([message]) == ["a"]
            break  # b1 is held by then: it goes back to the queue
        more.touch()
        rest = list(client.receive_response(merge_assistant=True, timeout=10))
    assert [texts([m]) for m in rest if isinstance(m, AssistantMessage)] == [["b1", "b2"]]


def test_an_iterator_never_started_does_not_hold_the_consumer_slot() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        client.query("one")
        forgotten = client.receive_response()  # created, never iterated
        assert texts(list(client.receive_response())) == ["echo: one"]
        client.query("two")
        assert texts(list(client.receive_response())) == ["echo: two"]
        del forgotten


def test_a_dropped_connected_client_is_reaped_with_a_resource_warning() -> None:
    cli = Kit(ScriptedCLI())
    client = cli.client()
    client.connect()
    session = client.session
    assert session is not None and not session.closed
    with pytest.warns(ResourceWarning, match="never closed"):
        del client
        gc.collect()
    assert session.closed and session.transport is not None and session.transport.exit_code() is not None


def test_a_closed_client_dropped_gives_no_warning() -> None:
    cli = Kit(ScriptedCLI())
    client = cli.client()
    client.connect()
    client.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        del client
        gc.collect()


def test_verbatim_prompts_marks_every_user_message_client_composed() -> None:
    cli = Kit(ScriptedCLI(auto_answers={"get_binary_version": ScriptedCLI.ECHO}).echo_turns())
    with cli.client(verbatim_prompts=True) as client:
        client.query("@/etc/passwd please")
        list(client.receive_response(timeout=30))
    users = [f for f in cli.stdin_frames() if f.get("type") == "user"]
    assert users and all(f.get("client_composed") is True for f in users)
    assert users[0]["message"]["content"] == "@/etc/passwd please"


def test_user_messages_are_not_marked_by_default() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client() as client:
        client.query("hi")
        list(client.receive_response(timeout=30))
    users = [f for f in cli.stdin_frames() if f.get("type") == "user"]
    assert users and all("client_composed" not in f for f in users)
