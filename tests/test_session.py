"""The threaded shell against the scriptable fake CLI: lifecycle, errors, flow control."""

from __future__ import annotations

import threading
from typing import Any, List

import pytest
from helpers import texts, wait_for

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    ControlTimeoutError,
    OversizedLineSkipped,
    ProcessError,
    ResultError,
    ResultMessage,
    query,
)
from claude_sync._io import session as _session

# ----------------------------------------------------------------------------- one-shot


def test_one_shot_answer_and_stdin_lifecycle(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "turn", "text": "4"}, {"op": "wait_eof"}])
    messages = list(query("What is 2 + 2?", options=cli.options()))
    assert texts(messages) == ["4"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "4"
    frames = cli.stdin_frames()
    assert [f["type"] for f in frames] == ["control_request", "user"]
    assert frames[0]["request"]["subtype"] == "initialize"
    assert frames[1]["message"] == {"role": "user", "content": "What is 2 + 2?"}
    kinds = [e["kind"] for e in cli.log()]
    assert kinds.index("eof") > kinds.index("got_user") if "got_user" in kinds else "eof" in kinds


def test_stdin_stays_open_until_the_result_is_read(fake_cli: Any) -> None:
    """The CLI sees EOF only after we read the result (never right after the prompt)."""
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "sleep", "seconds": 0.3},
        {"op": "emit", "obj": {"type": "system", "subtype": "status", "status": "probe"}},
        {"op": "sleep", "seconds": 0.3},
        {"op": "text", "text": "late"},
        {"op": "result"},
        {"op": "wait_eof"},
    ])
    messages = list(query("hi", options=cli.options()))
    assert texts(messages) == ["late"]
    log = cli.log()
    assert [e["kind"] for e in log][-1] == "eof"


def test_streamed_prompt_two_turns_two_results(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])
    prompts = [
        {"type": "user", "message": {"role": "user", "content": "one"}},
        {"type": "user", "message": {"role": "user", "content": "two"}},
    ]
    messages = list(query(prompts, options=cli.options()))
    assert texts(messages) == ["echo: one", "echo: two"]
    assert sum(isinstance(m, ResultMessage) for m in messages) == 2


def test_prompt_iterable_that_raises_surfaces_its_error(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "echo_turns"}])

    def prompts() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "one"}}
        raise LookupError("prompt source broke")

    with pytest.raises(LookupError, match="prompt source broke"):
        list(query(prompts(), options=cli.options()))


def test_error_result_is_yielded_then_raised(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "result", "subtype": "success", "is_error": True, "api_error_status": 401,
         "result": "Failed to authenticate. API Error: 401"},
        {"op": "wait_eof"},
        {"op": "exit", "code": 1},
    ])
    seen: List[Any] = []
    with pytest.raises(ResultError) as info:
        for message in query("hi", options=cli.options()):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage) and seen[-1].is_error
    assert info.value.api_error_status == 401 and info.value.subtype == "success"
    assert info.value.exit_code == 1


def test_error_result_as_data_when_asked(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "result", "subtype": "error_max_turns", "is_error": True, "errors": ["Reached maximum number of turns (1)"]},
        {"op": "wait_eof"},
        {"op": "exit", "code": 1},
    ])
    messages = list(query("hi", options=cli.options(raise_on_error_result=False)))
    assert messages[-1].subtype == "error_max_turns"


def test_crash_mid_stream_raises_process_error_with_stderr_tail(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "text", "text": "partial"},
        {"op": "stderr", "text": "FATAL: segfault in the fake"},
        {"op": "exit", "code": 3},
    ])
    seen: List[Any] = []
    with pytest.raises(ProcessError) as info:
        for message in query("hi", options=cli.options()):
            seen.append(message)
    assert texts(seen) == ["partial"]  # what came before the crash is delivered first
    assert info.value.exit_code == 3
    assert "segfault in the fake" in (info.value.stderr or "")
    assert "segfault in the fake" in str(info.value)


def test_exit_zero_without_result_is_an_error(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "text", "text": "cut"}, {"op": "exit", "code": 0}])
    with pytest.raises(ProcessError, match="before sending the result"):
        list(query("hi", options=cli.options()))


def test_missing_binary_is_cli_not_found(tmp_path: Any) -> None:
    from claude_sync import ClaudeAgentOptions

    with pytest.raises(CLINotFoundError, match="nonexistent"):
        list(query("hi", options=ClaudeAgentOptions(cli_path=str(tmp_path / "nonexistent" / "claude"))))


def test_cli_dying_during_initialize_names_its_stderr(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "stderr", "text": "bad flag --frobnicate"}, {"op": "exit", "code": 2}], auto={"no_initialize": True})
    with pytest.raises(Exception) as info:
        list(query("hi", options=cli.options()))
    text = repr(info.value) + repr(info.value.__cause__)
    assert "bad flag --frobnicate" in text and "2" in text


def test_cli_gone_before_initialize_is_written_still_names_its_exit_and_stderr(
    fake_cli: Any, monkeypatch: Any
) -> None:
    """The write of ``initialize`` hits a closed pipe before the reader has seen EOF: the
    error must still say why the CLI ended, not just "broken pipe"."""
    from claude_sync._io.process import SubprocessTransport

    start, read_chunk, write = SubprocessTransport.connect, SubprocessTransport.read_chunk, SubprocessTransport.write_bytes
    write_failed = threading.Event()

    def start_and_let_it_die(self: SubprocessTransport) -> None:
        start(self)
        assert self.wait(10) == 2  # gone before we write a byte

    def failing_write(self: SubprocessTransport, data: bytes, timeout: Any) -> None:
        try:
            write(self, data, timeout)
        except CLIConnectionError:
            write_failed.set()
            raise

    def eof_after_the_write_failed(self: SubprocessTransport) -> bytes:
        chunk = read_chunk(self)
        if not chunk:
            assert write_failed.wait(10)  # the reader learns of the exit only now
        return chunk

    monkeypatch.setattr(SubprocessTransport, "connect", start_and_let_it_die)
    monkeypatch.setattr(SubprocessTransport, "write_bytes", failing_write)
    monkeypatch.setattr(SubprocessTransport, "read_chunk", eof_after_the_write_failed)
    cli = fake_cli([{"op": "stderr", "text": "bad flag --frobnicate"}, {"op": "exit", "code": 2}], auto={"no_initialize": True})
    with pytest.raises(CLIConnectionError) as info:
        list(query("hi", options=cli.options()))
    assert "Broken pipe" in str(info.value)
    assert isinstance(info.value.__cause__, ProcessError)
    assert info.value.__cause__.exit_code == 2
    assert "bad flag --frobnicate" in str(info.value)


def test_initialize_timeout(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_eof"}], auto={"no_initialize": True})
    with pytest.raises(ControlTimeoutError) as info:
        list(query("hi", options=cli.options(initialize_timeout=0.5)))
    assert info.value.subtype == "initialize" and isinstance(info.value, TimeoutError)


# ----------------------------------------------------------------------------- lines


def test_twenty_mib_line_with_default_settings(fake_cli: Any) -> None:
    size = 20 * 1024 * 1024
    cli = fake_cli([{"op": "wait_user"}, {"op": "big", "bytes": size}, {"op": "result"}, {"op": "wait_eof"}])
    messages = list(query("big", options=cli.options()))
    assert [len(t) for t in texts(messages)] == [size]


def test_over_cap_line_is_skipped_reported_and_the_next_delivered(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "big", "bytes": 50_000},
        {"op": "text", "text": "after"},
        {"op": "result"},
        {"op": "wait_eof"},
    ])
    messages = list(query("hi", options=cli.options(max_buffer_size=10_000)))
    skipped = [m for m in messages if isinstance(m, OversizedLineSkipped)]
    assert len(skipped) == 1 and skipped[0].size > 50_000 and skipped[0].limit == 10_000
    assert skipped[0].prefix.startswith('{"type": "assistant"')
    assert texts(messages) == ["after"]


def test_noise_lines_are_skipped(fake_cli: Any, caplog: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "raw", "text": "Debugger attached."},
        {"op": "raw", "text": "   "},
        {"op": "text", "text": "real"},
        {"op": "result"},
        {"op": "wait_eof"},
    ])
    messages = list(query("hi", options=cli.options()))
    assert texts(messages) == ["real"]
    assert "Debugger attached." in caplog.text


def test_malformed_json_line_ends_the_session_with_a_typed_error(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "text", "text": "before"},
        {"op": "raw", "text": '{"type": "assistant", "message": {oops'},
        {"op": "text", "text": "never"},
        {"op": "wait_eof"},
    ])
    seen: List[Any] = []
    with pytest.raises(CLIJSONDecodeError) as info:
        for message in query("hi", options=cli.options()):
            seen.append(message)
    assert texts(seen) == ["before"]
    assert '{"type": "assistant", "message": {oops' in info.value.line


# ----------------------------------------------------------------------------- cleanup


def test_early_break_reaps_the_process(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "flood", "count": 5000}, {"op": "sleep", "seconds": 60}])
    stream = query("hi", options=cli.options())
    for _ in stream:
        break
    session = stream.session
    stream.close()
    assert session is not None and session.transport is not None
    assert session.transport.returncode is not None


def test_break_without_close_is_cleaned_up_by_generator_finalisation(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "flood", "count": 100}, {"op": "sleep", "seconds": 60}])
    pids = []
    for message in query("hi", options=cli.options()):
        pids.append(message)
        break
    # the no_leaks fixture asserts the child and the threads are gone


def test_keyboard_interrupt_in_loop_body_reaps(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "flood", "count": 10}, {"op": "sleep", "seconds": 60}])
    with pytest.raises(KeyboardInterrupt):
        for _ in query("hi", options=cli.options()):
            raise KeyboardInterrupt


def test_with_block_closes_on_exception(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_user"}, {"op": "text", "text": "x"}, {"op": "sleep", "seconds": 60}])
    with pytest.raises(RuntimeError):
        with query("hi", options=cli.options()) as stream:
            for _ in stream:
                raise RuntimeError("user bug")
    assert stream.session is not None and stream.session.closed


@pytest.mark.parametrize(
    "steps, expected_rung",
    [
        ([{"op": "wait_user"}, {"op": "wait_eof"}], "eof"),
        ([{"op": "wait_user"}, {"op": "sleep", "seconds": 60}], "sigterm"),
        ([{"op": "ignore_sigterm"}, {"op": "wait_user"}, {"op": "sleep", "seconds": 60}], "sigkill"),
    ],
)
def test_each_shutdown_rung(fake_cli: Any, steps: Any, expected_rung: str) -> None:
    cli = fake_cli(steps)
    client = ClaudeSDKClient(cli.options(close_timeout=0.5))
    client.connect()
    client.query("hi")
    wait_for(lambda: any(e["kind"] == "got_user" for e in cli.log()))
    if expected_rung == "sigkill":
        wait_for(lambda: any(e["kind"] == "ignoring_sigterm" for e in cli.log()))
    client.close()
    assert client.session is not None and client.session.close_rung == expected_rung


def test_close_is_idempotent_and_callable_from_many_threads(fake_cli: Any) -> None:
    cli = fake_cli([{"op": "wait_eof"}])
    client = ClaudeSDKClient(cli.options())
    client.connect()
    threads = [threading.Thread(target=client.close) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    client.close()
    assert client.session is not None and client.session.closed


# ----------------------------------------------------------------------------- flow control


def test_flood_without_draining_stays_bounded_then_delivers_everything(fake_cli: Any) -> None:
    count = 100_000
    cli = fake_cli([{"op": "wait_user"}, {"op": "flood", "count": count}, {"op": "result"}, {"op": "wait_eof"}])
    client = ClaudeSDKClient(cli.options())
    client.connect()
    session = client.session
    assert session is not None
    client.query("flood me")
    wait_for(lambda: session._paused)
    backlog = len(session._mailbox.items)
    # bounded by the high-water mark plus at most one read chunk's worth of lines
    assert backlog <= _session.HIGH_WATER_MESSAGES + 5000, backlog
    assert backlog < count
    received = sum(1 for m in client.receive_response() if isinstance(m, AssistantMessage))
    assert received == count
    client.close()


def test_control_call_while_nobody_drains_does_not_deadlock(fake_cli: Any) -> None:
    cli = fake_cli([
        {"op": "wait_user"},
        {"op": "flood", "count": 30_000},
        {"op": "wait_request", "subtype": "set_model"},
        {"op": "result"},
        {"op": "wait_eof"},
    ])
    with ClaudeSDKClient(cli.options()) as client:
        session = client.session
        assert session is not None
        client.query("flood")
        wait_for(lambda: session._paused)
        client.set_model("claude-test", timeout=20)  # answered only after the whole flood
        messages = list(client.receive_response())
        assert sum(isinstance(m, AssistantMessage) for m in messages) == 30_000
