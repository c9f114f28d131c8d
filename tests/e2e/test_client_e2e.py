"""``ClaudeSDKClient`` end to end: the library drives the real ``claude`` CLI, which talks to
the loopback fake Anthropic API (fixtures in ``tests/e2e/conftest.py``).

Slow turns use the fake's ``delay`` (seconds before every word of the answer), so a test can
act mid-stream. Tests that need to be mid-stream wait for a condition (a ``text_delta``
stream event, the main thread blocked inside the library) instead of sleeping.
"""

from __future__ import annotations

import _thread
import asyncio
import logging
import signal
import sys
import threading
import time
import uuid
from pathlib import Path
from types import CodeType
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest
from helpers import is_init, results, texts, wait_until

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    ControlRequestError,
    ResultMessage,
    StatusMessage,
    StreamEvent,
    TextBlock,
    UsageError,
    UserMessage,
)
from claude_sync._engine.connection import Session
from claude_sync._engine.reader import Reader
from claude_sync.testing.fake_api import FakeAnthropicAPI, Reply, content_text, text, tool_use

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

SLOW_WORDS = 60
SLOW_DELAY = 0.1


def slow_reply(words: int = SLOW_WORDS, delay: float = SLOW_DELAY) -> Reply:
    """A text answer streamed one word per ``delay`` seconds (``words * delay`` in all)."""
    return text(" ".join(f"w{i}" for i in range(words)), delay=delay)


def is_text_delta(message: Any) -> bool:
    return (
        isinstance(message, StreamEvent)
        and message.event.get("type") == "content_block_delta"
        and message.event.get("delta", {}).get("type") == "text_delta"
    )


def read_until_mid_stream(client: ClaudeSDKClient) -> List[Any]:
    """Consume the running turn up to its first text delta (needs partial messages on)."""
    seen: List[Any] = []
    for message in client.receive_response(timeout=60):
        seen.append(message)
        if is_text_delta(message):
            return seen
    raise AssertionError(f"the turn ended before any text delta: {seen}")


def assert_aborted_mid_stream(aborted_turn: List[Any], full_text: str) -> None:
    """The rest of an interrupted turn: partial text, the interruption marker, the result."""
    result = aborted_turn[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "error_during_execution" and result.is_error is True
    assert result.terminal_reason == "aborted_streaming"
    assert results(aborted_turn) == [result]
    (partial,) = texts(aborted_turn)
    assert partial and full_text.startswith(partial) and partial != full_text
    markers = [
        block.text
        for m in aborted_turn
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, TextBlock)
    ]
    assert markers == ["[Request interrupted by user]"]


class FrameSpy:
    """Records every frame the library writes to the CLI's stdin (wraps ``write_frame``)."""

    def __init__(self, session: Session) -> None:
        self.frames: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        original = session.write_frame

        def spy(frame: Dict[str, Any], timeout: Optional[float] = None) -> None:
            with self._lock:
                self.frames.append(frame)
            original(frame, timeout)

        session.write_frame = spy  # type: ignore[method-assign]

    def control_subtypes(self) -> List[str]:
        with self._lock:
            return [
                f["request"]["subtype"] for f in self.frames if f.get("type") == "control_request"
            ]

    def request_ids(self, subtype: str) -> List[str]:
        with self._lock:
            return [
                f["request_id"]
                for f in self.frames
                if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
            ]


def main_thread_is_in(code: CodeType) -> bool:
    """True if the main thread is executing ``code`` right now (anywhere on its stack)."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


WAITING_FOR_MESSAGES = Reader.items.__code__
"""The code object of the library's receive loop: the main thread is blocked in it while
``receive_response()`` waits for the CLI."""


class CtrlC:
    """Presses Ctrl-C in the main thread (``_thread.interrupt_main``) from a helper thread once
    ``ready()`` holds. ``fired`` tells whether it did; errors are kept for the test."""

    def __init__(self, ready: Callable[[], bool], then: Optional[Callable[[], None]] = None):
        self.fired = False
        self.errors: List[BaseException] = []
        self._ready = ready
        self._then = then
        self._thread = threading.Thread(target=self._run, name="e2e-ctrl-c", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            if not wait_until(self._ready, 60, fail=False):
                return
            self.fired = True
            _thread.interrupt_main()
            if self._then is not None:
                self._then()
        except BaseException as exc:  # noqa: BLE001 - reported by join()
            self.errors.append(exc)

    def join(self) -> None:
        self._thread.join(60)
        assert not self._thread.is_alive() and not self.errors, self.errors
        assert self.fired, "Ctrl-C was never pressed: the main thread did not block in time"


def drain(iterator: Iterator[Any]) -> List[Any]:
    return list(iterator)


# ----------------------------------------------------------------------------- conversation


def test_two_turn_conversation_keeps_the_history(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("first answer"), text("second answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        client.query("first question")
        first = list(client.receive_response(timeout=60))
        client.query("second question")
        second = list(client.receive_response(timeout=60))

    assert texts(first) == ["first answer"] and texts(second) == ["second answer"]
    for turn in (first, second):
        assert isinstance(turn[-1], ResultMessage) and results(turn) == [turn[-1]]
        assert turn[-1].subtype == "success" and turn[-1].is_error is False
    assert [turn[-1].result for turn in (first, second)] == ["first answer", "second answer"]
    # Wire fact (2.1.197): every turn starts with its own system/init, same session id.
    inits = [m for m in first + second if is_init(m)]
    assert [first[0], second[0]] == inits
    assert len({m.init.session_id for m in inits} | {first[-1].session_id}) == 1

    one, two = fake_api.turn_requests()
    assert one.last_user_text.endswith("first question")
    dialogue = [(m["role"], m["content"]) for m in two.messages if m.get("role") != "system"]
    assert [role for role, _ in dialogue] == ["user", "assistant", "user"]
    assert content_text(dialogue[0][1]).endswith("first question")
    assert content_text(dialogue[1][1]) == "first answer"
    assert content_text(dialogue[2][1]).endswith("second question")
    fake_api.assert_no_surprises()


def test_get_server_info_is_the_cached_initialize_response(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    with ClaudeSDKClient(e2e_options()) as client:
        info = client.get_server_info()
        assert info is not None
        assert client.session is not None and info["pid"] == client.session.pid
        names = {command["name"] for command in info["commands"]}
        assert "compact" in names
        assert info["account"]["apiKeySource"] == "ANTHROPIC_API_KEY"
        assert client.get_server_info() is info  # cached, no second request
    assert fake_api.turn_requests() == []


# ----------------------------------------------------------------------------- interrupt


def test_interrupt_with_drain_returns_the_aborted_turn(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    slow = slow_reply()
    fake_api.add(slow, text("second answer"))
    with ClaudeSDKClient(e2e_options(include_partial_messages=True)) as client:
        client.query("talk slowly")
        read_until_mid_stream(client)
        aborted = client.interrupt(drain=True, timeout=30)
        client.query("and now quickly")
        nxt = list(client.receive_response(timeout=60))

    assert_aborted_mid_stream(aborted, slow.full_text)
    assert is_init(nxt[0])  # only the next turn, nothing left over
    assert texts(nxt) == ["second answer"]
    assert results(nxt) == [nxt[-1]] and nxt[-1].subtype == "success"
    first = fake_api.turn_requests()[0]
    assert fake_api.wait_for(lambda requests: requests[first.index].aborted, 10)
    fake_api.assert_no_surprises()


def test_plain_interrupt_next_response_ends_at_the_aborted_result(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    slow = slow_reply()
    fake_api.add(slow, text("second answer"))
    with ClaudeSDKClient(e2e_options(include_partial_messages=True)) as client:
        client.query("talk slowly")
        read_until_mid_stream(client)
        assert client.interrupt(timeout=30) == []
        rest = list(client.receive_response(timeout=60))
        client.query("and now quickly")
        nxt = list(client.receive_response(timeout=60))

    assert_aborted_mid_stream(rest, slow.full_text)
    assert texts(nxt) == ["second answer"] and nxt[-1].subtype == "success"
    fake_api.assert_no_surprises()


def test_interrupt_while_idle_is_harmless(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("first answer"), text("second answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        spy = FrameSpy(client.session)  # type: ignore[arg-type]
        assert client.interrupt(drain=True, timeout=30) == []  # before any turn
        client.query("one")
        first = list(client.receive_response(timeout=60))
        assert client.interrupt(timeout=30) == []  # between turns
        assert client.interrupt(drain=True, timeout=30) == []
        client.query("two")
        second = list(client.receive_response(timeout=60))
    assert spy.control_subtypes() == ["interrupt", "interrupt", "interrupt"]
    assert texts(first) == ["first answer"] and texts(second) == ["second answer"]
    assert [r.subtype for r in results(first + second)] == ["success", "success"]
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- control requests


def test_set_model_changes_the_model_of_the_next_request(
    fake_api: FakeAnthropicAPI, e2e_options: Any, real_cli_path: str
) -> None:
    """CLI 2.1.330 first checks the model with a 1-token request (the fake API's
    ``side:model_check``) and quotes the model name in the replay text."""
    fake_api.add(text("first answer"), text("second answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        client.query("one")
        first = list(client.receive_response(timeout=60))
        assert client.set_model("claude-sonnet-4-5") is None
        # The CLI writes the replay line before its answer, so it is already queued.
        replay_stream = client.receive_messages(timeout=30)
        replay = next(replay_stream)
        replay_stream.close()
        client.query("two")
        second = list(client.receive_response(timeout=60))

    assert isinstance(replay, UserMessage) and replay.is_replay is True
    shown = "`claude-sonnet-4-5`" if cli_is_at_least(real_cli_path, "2.1.330") else "claude-sonnet-4-5"
    assert replay.content == f"<local-command-stdout>Set model to {shown}</local-command-stdout>"
    assert replay.raw["isReplay"] is True
    default_model = fake_api.turn_requests()[0].model
    assert default_model != "claude-sonnet-4-5"
    assert [r.model for r in fake_api.turn_requests()] == [default_model, "claude-sonnet-4-5"]
    assert [m.model for m in first + second if isinstance(m, AssistantMessage)] == [
        default_model,
        "claude-sonnet-4-5",
    ]
    assert texts(second) == ["second answer"]
    fake_api.assert_no_surprises()


def test_set_model_replay_is_the_first_message_of_the_next_response(
    fake_api: FakeAnthropicAPI, e2e_options: Any, real_cli_path: str
) -> None:
    """Before the first turn: 2.1.197 replays "Set model to …" as the first message of the next
    response (and shows it to the model); 2.1.330 switches silently."""
    fake_api.add(text("answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        client.set_model("claude-sonnet-4-5")
        client.query("hi")
        messages = list(client.receive_response(timeout=60))
    silent = cli_is_at_least(real_cli_path, "2.1.330")
    if not silent:
        assert isinstance(messages[0], UserMessage) and messages[0].is_replay
        messages = messages[1:]
    assert not any(isinstance(m, UserMessage) for m in messages)
    assert is_init(messages[0])
    assert texts(messages) == ["answer"]
    (turn,) = fake_api.turn_requests()
    assert turn.model == "claude-sonnet-4-5"
    # The replay text also reaches the model, ahead of our prompt in the same user message.
    shown = "Set model to claude-sonnet-4-5</local-command-stdout>" in turn.last_user_text
    assert shown is not silent
    assert turn.last_user_text.endswith("hi")
    fake_api.assert_no_surprises()


def test_set_permission_mode_answers_the_mode_and_a_status_follows(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    with ClaudeSDKClient(e2e_options()) as client:
        assert client.set_permission_mode("acceptEdits") == {"mode": "acceptEdits"}
        stream = client.receive_messages(timeout=30)
        status = next(stream)
        stream.close()
    assert isinstance(status, StatusMessage)
    assert status.permission_mode == "acceptEdits" and status.status is None
    assert fake_api.turn_requests() == []


def test_get_mcp_status_and_get_context_usage(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("short answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        assert client.get_mcp_status() == {"mcpServers": []}
        client.query("hi")
        list(client.receive_response(timeout=60))
        usage = client.get_context_usage()
    assert usage["categories"] and isinstance(usage["categories"], list)
    assert usage["totalTokens"] > 0 and usage["maxTokens"] >= usage["totalTokens"]
    assert fake_api.requests("count_tokens")  # the CLI counts through the API
    fake_api.assert_no_surprises()


def test_rewind_files_dry_run_reports_the_file_a_tool_created(
    fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Path
) -> None:
    target = e2e_workdir / "notes.txt"
    fake_api.add(
        tool_use("Write", {"file_path": str(target), "content": "written by the tool\n"}),
        text("wrote it"),
    )
    options = e2e_options(allowed_tools=["Write"], enable_file_checkpointing=True)
    message_id = str(uuid.uuid4())
    with ClaudeSDKClient(options) as client:
        client.query(
            [
                {
                    "type": "user",
                    "message": {"role": "user", "content": "write the notes"},
                    "uuid": message_id,
                }
            ]
        )
        turn = list(client.receive_response(timeout=60))
        assert target.read_text() == "written by the tool\n"
        dry = client.rewind_files(message_id, dry_run=True)
        assert target.exists()  # a dry run changes nothing
        unknown = client.rewind_files(str(uuid.uuid4()), dry_run=True)

    assert turn[-1].result == "wrote it"
    assert dry["canRewind"] is True
    assert [Path(p).resolve() for p in dry["filesChanged"]] == [target.resolve()]
    assert dry["deletions"] == 1 and dry["insertions"] == 0
    # Wire fact: a dry run for an unknown message is a *success* answer saying it cannot.
    assert unknown == {"canRewind": False, "error": "No file checkpoint found for this message."}
    fake_api.assert_no_surprises()


def test_rewind_files_without_checkpointing_is_a_control_error(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    with ClaudeSDKClient(e2e_options()) as client:
        with pytest.raises(ControlRequestError) as caught:
            client.rewind_files(str(uuid.uuid4()))
        # Wire fact (2.1.197): the dry run is answered as a success that says it cannot.
        dry = client.rewind_files(str(uuid.uuid4()), dry_run=True)
        assert client.get_mcp_status() == {"mcpServers": []}  # the session is fine
    assert str(caught.value) == "File rewinding is not enabled."
    assert caught.value.subtype == "rewind_files"
    assert dry == {"canRewind": False, "error": "File rewinding is not enabled."}


def test_unknown_control_subtype_carries_the_cli_text(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("still fine"))
    with ClaudeSDKClient(e2e_options()) as client:
        with pytest.raises(ControlRequestError) as caught:
            client.send_control_request("frobnicate")
        client.query("hi")
        after = list(client.receive_response(timeout=60))
    assert str(caught.value) == "Unsupported control request subtype: frobnicate"
    assert caught.value.subtype == "frobnicate" and caught.value.request_id
    assert texts(after) == ["still fine"]
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- threads and loops


def test_control_call_from_a_second_thread_while_a_slow_turn_is_iterated(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    slow = slow_reply(words=15)
    fake_api.add(slow)
    answers: List[Any] = []
    with ClaudeSDKClient(e2e_options()) as client:
        client.query("talk slowly")
        messages: List[Any] = []
        for message in client.receive_response(timeout=60):
            messages.append(message)
            if is_init(message):
                # The consumer is parked right here, yet the control answer arrives.
                worker = threading.Thread(
                    target=lambda: answers.append(client.get_mcp_status(timeout=30)),
                    name="e2e-control-caller",
                )
                worker.start()
                worker.join(30)
                assert not worker.is_alive()
                assert not results(messages)  # answered while the turn was still running
    assert answers == [{"mcpServers": []}]
    assert texts(messages) == [slow.full_text]  # the turn itself was not disturbed
    assert messages[-1].subtype == "success"
    fake_api.assert_no_surprises()


def test_the_sync_api_works_inside_a_running_event_loop(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("first answer"), text("second answer"))
    options = e2e_options()

    async def main() -> List[str]:
        asyncio.get_running_loop()  # a loop is running in this thread, as in Jupyter
        answers: List[str] = []
        with ClaudeSDKClient(options) as client:
            for prompt in ("one", "two"):
                client.query(prompt)
                answers += texts(list(client.receive_response(timeout=60)))
            assert client.get_mcp_status() == {"mcpServers": []}
        return answers

    assert asyncio.run(main()) == ["first answer", "second answer"]
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- Ctrl-C


@pytest.fixture
def sigint_raises_keyboard_interrupt() -> Iterator[None]:
    """Python's default SIGINT handler for the test. A process started as a background job of
    a non-interactive shell inherits SIGINT *ignored*, and then ``interrupt_main()`` does
    nothing at all."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _streaming_and_waiting(fake_api: FakeAnthropicAPI, streamed_for: float) -> Callable[[], bool]:
    """Ready when the slow answer has been streaming for ``streamed_for`` seconds and the main
    thread waits inside the library. Without partial messages nothing reaches the consumer
    while a text block streams, so the main thread stays parked in the library's wait and the
    Ctrl-C cannot land in the test's own loop body instead."""

    def ready() -> bool:
        turns = fake_api.turn_requests()
        return (
            bool(turns)
            and time.monotonic() - turns[0].received_at >= streamed_for
            and main_thread_is_in(WAITING_FOR_MESSAGES)
        )

    return ready


@pytest.mark.usefixtures("sigint_raises_keyboard_interrupt")
def test_ctrl_c_while_waiting_interrupts_the_turn_and_the_session_survives(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    slow = slow_reply()
    fake_api.add(slow, text("second answer"))
    with ClaudeSDKClient(e2e_options()) as client:
        spy = FrameSpy(client.session)  # type: ignore[arg-type]
        client.query("talk slowly")
        # Ctrl-C after ~5 words were streamed, while receive_response() waits for more.
        ctrl_c = CtrlC(_streaming_and_waiting(fake_api, 5 * SLOW_DELAY))
        before: List[Any] = []
        with pytest.raises(KeyboardInterrupt):
            for message in client.receive_response(timeout=60):
                before.append(message)
        ctrl_c.join()
        # The library turned Ctrl-C into the protocol interrupt (no signal to the CLI) ...
        assert spy.control_subtypes() == ["interrupt"]
        assert client.session is not None and not client.session.closed
        # ... so the aborted turn's result follows on the next receive_response().
        rest = list(client.receive_response(timeout=60))
        client.query("again")
        nxt = list(client.receive_response(timeout=60))

    assert before and all(is_init(m) for m in before)
    assert_aborted_mid_stream(rest, slow.full_text)
    assert texts(nxt) == ["second answer"] and nxt[-1].subtype == "success"
    first = fake_api.turn_requests()[0]
    assert fake_api.wait_for(lambda requests: requests[first.index].aborted, 10)
    fake_api.assert_no_surprises()


@pytest.mark.usefixtures("sigint_raises_keyboard_interrupt")
def test_second_ctrl_c_before_the_aborted_result_closes_the_session(
    fake_api: FakeAnthropicAPI, e2e_options: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The real CLI sends the aborted result ~15 ms after acknowledging the interrupt, too
    soon to press Ctrl-C again in between on purpose. To land the second one deterministically
    in that window, the library's reader thread is held right after it delivered the
    acknowledgement (so the result, even if already read in the same chunk, is not queued),
    and released once the library has started closing the session."""
    caplog.set_level(logging.INFO, logger="claude_sync.client")
    fake_api.add(slow_reply())
    with ClaudeSDKClient(e2e_options()) as client:
        session = client.session
        assert session is not None
        spy = FrameSpy(session)
        reader_held = threading.Event()
        release_reader = threading.Event()
        original_resolve = session.resolve

        def resolve_then_hold(response: Any) -> None:  # runs on the reader thread
            original_resolve(response)
            if response.request_id in spy.request_ids("interrupt") and not reader_held.is_set():
                reader_held.set()
                release_reader.wait(60)

        session.resolve = resolve_then_hold  # type: ignore[method-assign]
        try:
            client.query("talk slowly")
            first = CtrlC(_streaming_and_waiting(fake_api, 3 * SLOW_DELAY))
            with pytest.raises(KeyboardInterrupt):
                drain(client.receive_response(timeout=60))
            first.join()
            assert reader_held.is_set() and spy.control_subtypes() == ["interrupt"]
            assert not session.closed  # the first Ctrl-C only interrupted
            assert session.turn_running  # and the aborted result is not in yet

            def release_once_closing() -> None:
                wait_until(lambda: main_thread_is_in(Session.close.__code__), 30, fail=False)
                release_reader.set()

            second = CtrlC(
                lambda: main_thread_is_in(WAITING_FOR_MESSAGES), then=release_once_closing
            )
            with pytest.raises(KeyboardInterrupt):
                drain(client.receive_response(timeout=60))
            second.join()
        finally:
            release_reader.set()

        assert session.closed
        assert "Second Ctrl-C: closing the Claude Code session" in caplog.messages
        assert session.transport is not None and session.transport.returncode is not None
        # One protocol interrupt (the first Ctrl-C); the second one closed instead. (The close
        # ladder's own best-effort interrupt goes straight to the transport, not through here.)
        assert spy.control_subtypes() == ["interrupt"]
        with pytest.raises(UsageError):
            client.query("the session is gone")
