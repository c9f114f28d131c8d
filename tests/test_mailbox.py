"""The reader → consumer hand-off, and Ctrl-C while receiving: nothing is lost or doubled."""

from __future__ import annotations

import _thread
import random
import signal
import threading
import time
from typing import Any, Callable, List

import pytest
from helpers import texts, wait_for

from claude_sync import ClaudeSDKClient, ResultMessage
from claude_sync._io.mailbox import Mailbox

# ----------------------------------------------------------------------------- the mailbox


def test_wait_returns_at_once_when_items_are_there() -> None:
    box = Mailbox()
    box.put("a")
    assert box.wait(10.0) is True
    assert list(box.items) == ["a"]  # waiting never takes


def test_wait_times_out_empty() -> None:
    box = Mailbox()
    started = time.monotonic()
    assert box.wait(0.05) is False
    assert time.monotonic() - started >= 0.04


def test_a_sleeping_consumer_is_rung_after_direct_appends() -> None:
    box = Mailbox()
    woke: List[bool] = []
    consumer = threading.Thread(target=lambda: woke.append(box.wait(30.0)), name="claude_sync-test-consumer")
    consumer.start()
    wait_for(lambda: box._sleeping)
    box.items.append("x")
    box.ring_if_sleeping()
    consumer.join(10)
    assert woke == [True]


def test_no_ring_while_the_consumer_is_busy() -> None:
    box = Mailbox()
    box.items.append("x")
    box.ring_if_sleeping()
    assert box._bell.empty()  # a busy stream costs no doorbell traffic


def test_an_interrupted_wait_leaves_every_item_in_place() -> None:
    box = Mailbox()

    class InterruptedBell:
        """The doorbell as a Ctrl-C handled by another thread makes it look: the wait
        returns because an item arrived, and the interrupt surfaces as it returns."""

        def get(self, block: bool, timeout: float) -> None:
            box.items.append("result")
            raise KeyboardInterrupt

    box._bell = InterruptedBell()  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        box.wait(1.0)
    assert list(box.items) == ["result"]
    assert box._sleeping is False


# ----------------------------------------------------------------------------- Ctrl-C in a session


def _interrupt_storm(fire: Callable[[], None], count: int) -> Callable[[Callable[[], Any]], int]:
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
            rng = random.Random(1234)
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
def test_ctrl_c_while_receiving_loses_and_doubles_nothing(fake_cli: Any, fire: Callable[[], None]) -> None:
    count = 20000
    cli = fake_cli([{"op": "numbered", "count": count}, {"op": "result"}, {"op": "wait_eof"}])
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


def test_ctrl_c_in_receive_response_interrupts_the_turn_and_loses_nothing(fake_cli: Any) -> None:
    turns, count = 8, 5000
    steps: List[Any] = []
    for _ in range(turns):
        steps += [{"op": "wait_user"}, {"op": "numbered", "count": count}, {"op": "result"}]
    cli = fake_cli(steps + [{"op": "wait_eof"}], auto={"echo_controls": True})
    with ClaudeSDKClient(cli.options()) as client:
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


def test_ctrl_c_while_merging_puts_the_held_blocks_back(fake_cli: Any, tmp_path: Any) -> None:
    """Two block lines of message A are held by the merger while it waits for the rest;
    Ctrl-C arrives; the next merged receive still yields A whole (three blocks), then B."""
    gate = tmp_path / "go"
    cli = fake_cli(
        [
            {"op": "wait_user"},
            {"op": "text", "text": "a1", "id": "msg_a"},
            {"op": "text", "text": "a2", "id": "msg_a"},
            {"op": "wait_file", "path": str(gate)},
            {"op": "text", "text": "a3", "id": "msg_a"},
            {"op": "text", "text": "b1", "id": "msg_b"},
            {"op": "result"},
            {"op": "wait_eof"},
        ],
        auto={"echo_controls": True},
    )
    with ClaudeSDKClient(cli.options()) as client:
        session = client.session
        assert session is not None
        seen_before = session.frames_seen
        client.query("go")

        def interrupt_once_a1_a2_are_held() -> None:
            # both lines read and taken by the consumer, which is back to waiting for the next
            wait_for(
                lambda: session.frames_seen >= seen_before + 2
                and not session._mailbox.items
                and session._mailbox._sleeping
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
        assert texts(list(session._mailbox.items)) == ["a1", "a2"]  # back at the head, in order
        gate.touch()
        rest = list(client.receive_response(merge_assistant=True))
    assert [texts([m]) for m in rest if not isinstance(m, ResultMessage)] == [["a1", "a2", "a3"], ["b1"]]
    assert isinstance(rest[-1], ResultMessage)
