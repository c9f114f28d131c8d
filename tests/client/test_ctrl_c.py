"""Ctrl-C (``KeyboardInterrupt``) anywhere in a session: nothing is lost or doubled, the turn
is interrupted through the protocol, a second one tears the session down, and shutdown always
finishes. Storms are seeded and bounded; they run in CI."""

from __future__ import annotations

import _thread
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, List

import pytest
from helpers import Kit, control_frames, interruptible_turn, texts, wait_until

from claude_sync import AssistantMessage, ClaudeSDKClient, ResultMessage, UsageError
from claude_sync._engine.states import SessionState
from claude_sync._wire import merge as merge_module
from claude_sync.testing import ScriptedCLI


def _interrupt_storm(fire: Callable[[], None], count: int, seed: int = 1234) -> Callable[[Callable[[], Any]], int]:
    """Run ``body`` while another thread interrupts the main thread ``count`` times at random
    moments; every interrupt is caught and ``body`` is called again. Returns the number of
    interrupts caught. The interrupter waits for each one to be caught before the next, and
    never fires after ``body`` has finished."""

    def run(body: Callable[[], Any]) -> int:
        caught = threading.Event()
        finished = threading.Event()
        go = threading.Event()
        fired: List[int] = []

        def interrupter() -> None:
            rng = random.Random(seed)
            go.wait(10)
            for _ in range(count):
                time.sleep(rng.uniform(0, 0.003))
                if finished.is_set():
                    return
                fire()
                fired.append(1)
                if not caught.wait(10):
                    return
                caught.clear()

        thread = threading.Thread(target=interrupter, name="claude_sync-test-interrupter")
        thread.start()
        interrupts = 0
        try:
            while True:
                try:
                    go.set()
                    body()
                    break
                except KeyboardInterrupt:
                    interrupts += 1
                    caught.set()
            finished.set()
            while thread.is_alive():
                try:
                    thread.join(0.01)
                except KeyboardInterrupt:  # one fired just as the body finished
                    interrupts += 1
                    caught.set()
        finally:
            finished.set()
            caught.set()
            _join_through_interrupts(thread)
        assert interrupts == len(fired)
        return interrupts

    return run


def _join_through_interrupts(thread: threading.Thread) -> None:
    deadline = time.monotonic() + 10
    while thread.is_alive() and time.monotonic() < deadline:
        try:
            thread.join(0.01)
        except KeyboardInterrupt:
            pass


def _send_sigint() -> None:
    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


@pytest.mark.parametrize("fire", [_thread.interrupt_main, _send_sigint], ids=["flag-only", "real-SIGINT"])
def test_ctrl_c_while_receiving_loses_and_doubles_nothing(tmp_path: Path, fire: Callable[[], None]) -> None:
    # The kit's CLI as a process on purpose: pipe-paced delivery gives the storm its many windows.
    count = 20000
    cli = ScriptedCLI(directory=tmp_path).expect_user("go").numbered_texts(count).result()
    with ClaudeSDKClient(cli.options()) as client:
        session = client.session
        assert session is not None
        session.send_user_message({"type": "user", "message": {"role": "user", "content": "go"}})
        received: List[Any] = []

        def drain_until_result() -> None:
            for item in session.messages():
                received.append(item)
                if isinstance(item, ResultMessage):
                    return

        interrupts = _interrupt_storm(fire, 60)(drain_until_result)
        assert interrupts >= 10, interrupts
        assert texts(received) == [str(i) for i in range(count)]
        assert isinstance(received[-1], ResultMessage)


def test_ctrl_c_in_receive_response_interrupts_the_turn_and_loses_nothing() -> None:
    turns, count = 8, 5000
    script = ScriptedCLI(auto_answers={"interrupt": None})
    for _ in range(turns):
        script = script.expect_user().numbered_texts(count).result()
    cli = Kit(script)
    with cli.client() as client:
        for turn in range(turns):
            client.query(f"turn {turn}")
            received: List[Any] = []

            def drain(received: List[Any] = received) -> None:
                for item in client.receive_response():
                    received.append(item)

            assert _interrupt_storm(_send_sigint, 1)(drain) <= 1
            assert texts(received) == [str(i) for i in range(count)], turn
            assert isinstance(received[-1], ResultMessage)
    interrupts = [f for f in cli.stdin_frames() if f.get("type") == "control_request" and f["request"]["subtype"] == "interrupt"]
    assert 1 <= len(interrupts) <= turns


def test_ctrl_c_while_merging_puts_the_held_blocks_back(tmp_path: Path) -> None:
    """Two block lines of message A are held by the merger while it waits for the rest;
    Ctrl-C arrives; the next merged receive still yields A whole (three blocks), then B."""
    go = tmp_path / "go"
    cli = Kit(ScriptedCLI(auto_init=False, auto_answers={"interrupt": None}).expect_user()
              .text("a1", message_id="msg_a").text("a2", message_id="msg_a").wait_for_file(go)
              .text("a3", message_id="msg_a").text("b1", message_id="msg_b").result())
    with cli.client() as client:
        session = client.session
        assert session is not None
        seen_before = session.frames_seen
        client.query("go")

        def interrupt_once_a1_a2_are_held() -> None:
            # both lines read and taken by the consumer, which is back to waiting for the next
            wait_until(
                lambda: session.frames_seen >= seen_before + 2
                and not session._reader.mailbox.items
                and session._reader.mailbox._sleeping
            )
            _thread.interrupt_main()

        interrupter = threading.Thread(target=interrupt_once_a1_a2_are_held, name="claude_sync-test-interrupter")
        first: List[Any] = []
        with pytest.raises(KeyboardInterrupt):
            interrupter.start()
            for message in client.receive_response(merge_assistant=True):
                first.append(message)
        _join_through_interrupts(interrupter)
        assert first == []  # A was still incomplete: nothing merged was yielded yet
        assert texts(list(session._reader.mailbox.items)) == ["a1", "a2"]  # back at the head, in order
        go.touch()
        rest = list(client.receive_response(merge_assistant=True))
    assert [texts([m]) for m in rest if not isinstance(m, ResultMessage)] == [["a1", "a2", "a3"], ["b1"]]
    assert isinstance(rest[-1], ResultMessage)




def test_ctrl_c_while_waiting_sends_interrupt_and_session_survives() -> None:
    cli = interruptible_turn()
    with cli.client() as client:
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


def test_second_ctrl_c_before_the_result_closes() -> None:
    cli = Kit(ScriptedCLI().expect_user())  # then silent until input ends (interrupts answered)
    with cli.client(close_timeout=0.5) as client:
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


# ----------------------------------------------------------------------------- Ctrl-C while closing


def test_ctrl_c_during_close_does_not_abort_the_shutdown() -> None:
    """The CLI ignores EOF, so close() waits in its stop rung; Ctrl-C lands right there.
    The close still finishes (the CLI killed, every thread joined) and then re-raises."""
    cli = Kit(ScriptedCLI().expect_user().stall(60))  # busy: EOF does not end it, a kill does
    client = cli.client(close_timeout=1.0)
    client.connect()
    client.query("stuck")
    wait_until(lambda: cli.steps_done() >= 1)  # the CLI has the prompt

    def press_ctrl_c_once_close_waits() -> None:
        wait_until(lambda: cli.transport is not None and cli.transport.peer.input_ended)  # close sent EOF: it now waits for an exit
        _send_sigint()

    interrupter = threading.Thread(target=press_ctrl_c_once_close_waits, name="claude_sync-test-interrupter")
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        client.close()
    _join_through_interrupts(interrupter)
    session = client.session
    assert session is not None and session.state is SessionState.CLOSED
    assert session.transport is not None and session.transport.exit_code() is not None
    client.close()  # nothing left to do


def _numbers(messages: List[Any]) -> List[str]:
    return texts([m for m in messages if isinstance(m, AssistantMessage)])


def test_ctrl_c_storm_with_merge_assistant_and_close() -> None:
    """Seeded and bounded: per trial, turns whose block lines merge into messages of 7 blocks
    are received with ``merge_assistant=True`` while Ctrl-C lands at a random moment (nothing
    lost or doubled, every result arrives); then ``close()`` runs under a storm of Ctrl-Cs
    and must end CLOSED with the CLI gone, resumed by the next ``close()`` when cut short."""
    trials, turns, count, per = 4, 3, 2000, 7
    for trial in range(trials):
        script = ScriptedCLI(auto_answers={"interrupt": None})
        for _ in range(turns):
            script = script.expect_user().numbered_texts(count, per_message=per).result()
        cli = Kit(script)
        client = cli.client()
        client.connect()
        for turn in range(turns):
            client.query(f"turn {turn}")
            received: List[Any] = []

            def drain(received: List[Any] = received, client: ClaudeSDKClient = client) -> None:
                for message in client.receive_response(merge_assistant=True, timeout=30):
                    received.append(message)

            assert _interrupt_storm(_send_sigint, 1, seed=100 * trial + turn)(drain) <= 1
            assert _numbers(received) == [str(i) for i in range(count)], (trial, turn)
            assert all(len(m.content) <= per for m in received if isinstance(m, AssistantMessage))
            assert sum(isinstance(m, ResultMessage) for m in received) == 1
        _interrupt_storm(_send_sigint, 6, seed=100 * trial + 99)(client.close)
        session = client.session
        assert session is not None and session.state is SessionState.CLOSED
        assert session.transport is not None and session.transport.exit_code() is not None


def test_ctrl_c_while_the_held_message_is_merged_at_the_result_loses_nothing(monkeypatch: Any) -> None:
    """Ctrl-C lands while the result ends the held message and it is being merged (the
    window that grows with the message's size): the lines and the result stay available."""
    cli = Kit(ScriptedCLI().expect_user().text("a1", message_id="msg_a").text("a2", message_id="msg_a").result())
    real_merge = merge_module.merge_assistant_lines
    interrupted: List[int] = []

    def merge_interrupted_once(lines: Any) -> Any:
        if not interrupted:
            interrupted.append(len(lines))
            raise KeyboardInterrupt
        return real_merge(lines)

    monkeypatch.setattr(merge_module, "merge_assistant_lines", merge_interrupted_once)
    with cli.client() as client:
        client.query("go")
        with pytest.raises(KeyboardInterrupt):
            list(client.receive_response(merge_assistant=True))
        assert interrupted == [2]
        rest = list(client.receive_response(merge_assistant=True, timeout=10))
    assert [texts([m]) for m in rest if isinstance(m, AssistantMessage)] == [["a1", "a2"]]
    assert isinstance(rest[-1], ResultMessage)
