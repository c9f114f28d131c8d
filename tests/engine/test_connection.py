"""The threaded shell against the kit's scripted CLI: lifecycle, errors, flow control."""

from __future__ import annotations

import datetime
import json
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit, texts, wait_until

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    ControlTimeoutError,
    HookMatcher,
    MessageParseError,
    OversizedLineSkipped,
    PermissionResultAllow,
    ProcessError,
    ResultError,
    ResultMessage,
    UsageError,
    create_sdk_mcp_server,
    query,
    tool,
)
from claude_sync._engine import connection as _session_module
from claude_sync._engine import reader as _reader
from claude_sync.testing import ScriptedCLI
from claude_sync.testing._scripted_cli.cli_lines import result_line

# ----------------------------------------------------------------------------- one-shot


def test_one_shot_answer_and_stdin_lifecycle() -> None:
    cli = Kit(ScriptedCLI.answer("4"))
    messages = list(cli.query("What is 2 + 2?"))
    assert texts(messages) == ["4"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "4"
    frames = cli.stdin_frames()
    assert [f["type"] for f in frames] == ["control_request", "user"]
    assert frames[0]["request"]["subtype"] == "initialize"
    assert frames[1]["message"] == {"role": "user", "content": "What is 2 + 2?"}
    assert cli.cli.last_run.ended == "eof"


def test_stdin_stays_open_until_the_result_is_read(tmp_path: Path) -> None:
    """The CLI sees EOF only after we read the result (never right after the prompt).

    Deterministic: the CLI looks at its stdin only once the consumer holds the first message,
    which is after ``query()`` has finished sending the prompt — so a ``query()`` that ends
    input together with the prompt fails here every time, not only when a race goes one way.
    """
    consumer_has_text = tmp_path / "consumer_has_text"
    cli = Kit(ScriptedCLI().expect_user().text("late").wait_for_file(consumer_has_text).expect_input_open().result())
    messages = []
    for message in cli.query("hi"):
        messages.append(message)
        if isinstance(message, AssistantMessage):
            consumer_has_text.touch()
    assert texts(messages) == ["late"]
    cli.cli.verify()  # the input was still open when the CLI looked
    assert cli.cli.last_run.ended == "eof"


def test_streamed_prompt_two_turns_two_results() -> None:
    cli = Kit(ScriptedCLI().echo_turns())
    prompts = [
        {"type": "user", "message": {"role": "user", "content": "one"}},
        {"type": "user", "message": {"role": "user", "content": "two"}},
    ]
    messages = list(cli.query(prompts))
    assert texts(messages) == ["echo: one", "echo: two"]
    assert sum(isinstance(m, ResultMessage) for m in messages) == 2


def test_prompt_iterable_that_raises_surfaces_its_error() -> None:
    cli = Kit(ScriptedCLI().echo_turns())

    def prompts() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "one"}}
        raise LookupError("prompt source broke")

    with pytest.raises(LookupError, match="prompt source broke"):
        list(cli.query(prompts()))


def test_error_result_is_yielded_then_raised() -> None:
    cli = Kit(ScriptedCLI().expect_user().result(
        "Failed to authenticate. API Error: 401", subtype="success", is_error=True, api_error_status=401,
    ))  # the CLI exits 1 at EOF after an error result
    seen: List[Any] = []
    with pytest.raises(ResultError) as info:
        for message in cli.query("hi"):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage) and seen[-1].is_error
    assert info.value.api_error_status == 401 and info.value.subtype == "success"
    assert info.value.exit_code == 1


def test_error_result_as_data_when_asked() -> None:
    cli = Kit(ScriptedCLI().expect_user().result(
        subtype="error_max_turns", is_error=True, errors=["Reached maximum number of turns (1)"]))
    messages = list(cli.query("hi", raise_on_error_result=False))
    assert messages[-1].subtype == "error_max_turns"


def test_crash_mid_stream_raises_process_error_with_stderr_tail() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("partial").stderr("FATAL: segfault in the fake").crash(3))
    seen: List[Any] = []
    with pytest.raises(ProcessError) as info:
        for message in cli.query("hi"):
            seen.append(message)
    assert texts(seen) == ["partial"]  # what came before the crash is delivered first
    assert info.value.exit_code == 3
    assert "segfault in the fake" in (info.value.stderr or "")
    assert "segfault in the fake" in str(info.value)


def test_exit_zero_without_result_is_an_error() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("cut").crash(0))
    with pytest.raises(ProcessError, match="before sending the result"):
        list(cli.query("hi"))


def test_missing_binary_is_cli_not_found(tmp_path: Any) -> None:
    from claude_sync import ClaudeAgentOptions

    with pytest.raises(CLINotFoundError, match="nonexistent"):
        list(query("hi", options=ClaudeAgentOptions(cli_path=str(tmp_path / "nonexistent" / "claude"))))


def test_cli_dying_during_initialize_names_its_stderr() -> None:
    cli = Kit(ScriptedCLI(auto_initialize=False).stderr("bad flag --frobnicate").crash(2))
    with pytest.raises(Exception) as info:
        list(cli.query("hi"))
    text = repr(info.value) + repr(info.value.__cause__)
    assert "bad flag --frobnicate" in text and "2" in text


def test_cli_gone_before_initialize_is_written_still_names_its_exit_and_stderr(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The write of ``initialize`` hits a closed pipe before the reader has seen EOF: the
    error must still say why the CLI ended (a ``ProcessError`` with its exit code and stderr),
    not just "broken pipe"."""
    from claude_sync._engine.process import SubprocessTransport

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
    cli = ScriptedCLI(directory=tmp_path).crash(2, stderr="bad flag --frobnicate")
    with pytest.raises(ProcessError) as info:
        list(query("hi", options=cli.options()))
    assert "Broken pipe" in str(info.value.__cause__)
    assert info.value.exit_code == 2
    assert "bad flag --frobnicate" in str(info.value)


def test_initialize_timeout() -> None:
    cli = Kit(ScriptedCLI(auto_initialize=False).expect_control("initialize", hold=True))
    with pytest.raises(ControlTimeoutError) as info:
        list(cli.query("hi", initialize_timeout=0.5))
    assert info.value.subtype == "initialize" and isinstance(info.value, TimeoutError)


# ----------------------------------------------------------------------------- lines


def test_twenty_mib_line_with_default_settings() -> None:
    size = 20 * 1024 * 1024
    cli = Kit(ScriptedCLI().expect_user().oversized_line(size).result())
    messages = list(cli.query("big"))
    assert [len(t) for t in texts(messages)] == [size]


def test_over_cap_line_is_skipped_reported_and_the_next_delivered() -> None:
    cli = Kit(ScriptedCLI().expect_user().oversized_line(50_000).text("after").result())
    messages = list(cli.query("hi", max_buffer_size=10_000))
    skipped = [m for m in messages if isinstance(m, OversizedLineSkipped)]
    assert len(skipped) == 1 and skipped[0].size > 50_000 and skipped[0].limit == 10_000
    assert skipped[0].prefix.startswith('{"type": "assistant"')
    assert texts(messages) == ["after"]


def test_noise_lines_are_skipped(caplog: Any) -> None:
    cli = Kit(ScriptedCLI().expect_user().raw("Debugger attached.\n").raw("   \n").text("real").result())
    messages = list(cli.query("hi"))
    assert texts(messages) == ["real"]
    assert "Debugger attached." in caplog.text


def test_malformed_json_line_ends_the_session_with_a_typed_error() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("before").raw('{"type": "assistant", "message": {oops\n').text("never"))
    seen: List[Any] = []
    with pytest.raises(CLIJSONDecodeError) as info:
        for message in cli.query("hi"):
            seen.append(message)
    assert texts(seen) == ["before"]
    assert '{"type": "assistant", "message": {oops' in info.value.line


def test_a_decode_error_is_built_whole_with_the_stderr_tail() -> None:
    cli = Kit(ScriptedCLI().expect_user().stderr("parser went sideways").raw('{"type": "assistant", oops\n'))
    with pytest.raises(CLIJSONDecodeError) as info:
        list(cli.query("hi"))
    error, bare = info.value, info.value.__cause__
    assert str(error).endswith("\nstderr tail:\nparser went sideways") and error.args == (str(error),)
    assert error.line == '{"type": "assistant", oops' and isinstance(error.original_error, ValueError)
    assert isinstance(bare, CLIJSONDecodeError) and "stderr tail" not in str(bare) and bare.line == error.line


# ----------------------------------------------------------------------------- cleanup


def test_early_break_reaps_the_process(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path).expect_user().numbered_texts(5000).stall(60)
    stream = query("hi", options=cli.options(close_timeout=0.5))  # busy past EOF: the close ladder SIGTERMs it
    for _ in stream:
        break
    session = stream.session
    stream.close()
    assert session is not None and session.transport is not None
    assert session.transport.returncode is not None


def test_break_without_close_is_cleaned_up_by_generator_finalisation() -> None:
    cli = Kit(ScriptedCLI().expect_user().flood(100))  # then silent until input ends
    pids = []
    for message in cli.query("hi"):
        pids.append(message)
        break
    # the no_leaks fixture asserts the child and the threads are gone


def test_keyboard_interrupt_in_loop_body_reaps() -> None:
    cli = Kit(ScriptedCLI().expect_user().flood(10))
    with pytest.raises(KeyboardInterrupt):
        for _ in cli.query("hi"):
            raise KeyboardInterrupt


def test_with_block_closes_on_exception() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("x"))
    with pytest.raises(RuntimeError):
        with cli.query("hi") as stream:
            for _ in stream:
                raise RuntimeError("user bug")
    assert stream.session is not None and stream.session.closed


@pytest.mark.parametrize(
    "after_the_turn, expected_rung",
    [
        (lambda cli: cli, "eof"),  # the script's end: exit at EOF
        (lambda cli: cli.stall(60), "sigterm"),  # busy past EOF
        (lambda cli: cli.ignore_sigterm().stall(60), "sigkill"),
    ],
)
def test_each_shutdown_rung(tmp_path: Path, after_the_turn: Any, expected_rung: str) -> None:
    cli = after_the_turn(ScriptedCLI(directory=tmp_path).expect_user().text("ready").result())
    client = ClaudeSDKClient(cli.options(close_timeout=0.5))
    client.connect()
    client.query("hi")
    assert texts(list(client.receive_response())) == ["ready"]  # the CLI is past the turn
    client.close()
    assert client.session is not None and client.session.close_rung == expected_rung


def test_close_after_a_decode_error_while_the_cli_is_blocked_writing_ends_at_the_first_rung(tmp_path: Path) -> None:
    """The reader stops on a bad line while the CLI is blocked writing a line bigger than the
    pipe: the reader drops our end of stdout, so the CLI's write fails and it exits — close
    needs no signal (before: EOF could not reach it, close waited a rung and SIGTERMed it)."""
    cli = ScriptedCLI(directory=tmp_path).expect_user().raw('{"type": "assistant", oops\n').oversized_line(4 * 1024 * 1024).stall(60)
    client = ClaudeSDKClient(cli.options(close_timeout=2.0))
    client.connect()
    client.query("hi")
    with pytest.raises(CLIJSONDecodeError):
        list(client.receive_response())
    client.close()
    assert client.session is not None and client.session.close_rung in ("exited", "eof")


def test_close_is_idempotent_and_callable_from_many_threads() -> None:
    cli = Kit(ScriptedCLI())
    client = cli.client()
    client.connect()
    threads = [threading.Thread(target=client.close) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    client.close()
    assert client.session is not None and client.session.closed


# ----------------------------------------------------------------------------- flow control


def test_flood_without_draining_stays_bounded_then_delivers_everything() -> None:
    count = 100_000
    cli = Kit(ScriptedCLI().expect_user().flood(count).result())
    client = cli.client()
    client.connect()
    session = client.session
    assert session is not None
    client.query("flood me")
    wait_until(lambda: session._reader.paused)
    backlog = len(session._reader.mailbox.items)
    # bounded by the high-water mark plus at most one read chunk's worth of lines
    assert backlog <= _reader.HIGH_WATER_MESSAGES + 5000, backlog
    assert backlog < count
    received = sum(1 for m in client.receive_response() if isinstance(m, AssistantMessage))
    assert received == count
    client.close()


def test_control_call_while_nobody_drains_does_not_deadlock() -> None:
    cli = Kit(ScriptedCLI().expect_user().flood(30_000).expect_set_model().result())
    with cli.client() as client:
        session = client.session
        assert session is not None
        client.query("flood")
        wait_until(lambda: session._reader.paused)
        client.set_model("claude-test", timeout=20)  # answered only after the whole flood
        messages = list(client.receive_response())
        assert sum(isinstance(m, AssistantMessage) for m in messages) == 30_000


# ----------------------------------------------------------------------------- one answer per CLI request


def _permission_request(tool_input: Dict[str, Any]) -> Dict[str, Any]:
    return {"subtype": "can_use_tool", "tool_name": "Bash", "input": tool_input, "tool_use_id": "toolu_1"}


def _serve_one(request_id: str, request: Dict[str, Any], *, error: bool = False, **options: Any) -> List[Dict[str, Any]]:
    """Run a turn in which the CLI sends ``request`` and waits for the answer (an error answer
    with ``error``); return every answer we wrote to it."""
    cli = Kit(ScriptedCLI().expect_user().ask_control(request, request_id=request_id, expect_error=error or None).result())
    with cli.client(**options) as client:
        client.query("go")
        list(client.receive_response(timeout=30))
    return [f["response"] for f in cli.stdin_frames()
            if f.get("type") == "control_response" and f["response"]["request_id"] == request_id]


def test_a_lone_surrogate_echoed_by_a_plain_allow_is_sent_escaped() -> None:
    def allow(name: str, tool_input: Dict[str, Any], context: Any) -> PermissionResultAllow:
        return PermissionResultAllow()

    [answer] = _serve_one("p1", _permission_request({"command": "echo \ud800"}), can_use_tool=allow)
    assert answer["subtype"] == "success"
    assert answer["response"]["behavior"] == "allow"
    assert answer["response"]["updatedInput"] == {"command": "echo \ud800"}


@pytest.mark.parametrize(
    "bad", [float("nan"), float("inf"), {1, 2}, datetime.datetime(2026, 1, 1)], ids=["nan", "inf", "set", "datetime"]
)
def test_a_permission_answer_json_cannot_carry_is_a_deny(bad: Any, caplog: Any) -> None:
    def allow(name: str, tool_input: Dict[str, Any], context: Any) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input={"command": "ls", "extra": bad})

    [answer] = _serve_one("p1", _permission_request({"command": "ls"}), can_use_tool=allow)
    assert answer["subtype"] == "success" and answer["response"]["behavior"] == "deny"
    assert "cannot be encoded as JSON" in answer["response"]["message"]
    assert "cannot be encoded as JSON" in caplog.text


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt()], ids=["SystemExit", "KeyboardInterrupt"])
def test_system_exit_or_ctrl_c_inside_can_use_tool_is_a_deny(raised: BaseException) -> None:
    def explode(name: str, tool_input: Dict[str, Any], context: Any) -> Any:
        raise raised

    [answer] = _serve_one("p1", _permission_request({"command": "ls"}), can_use_tool=explode)
    assert answer["subtype"] == "success" and answer["response"]["behavior"] == "deny"
    assert type(raised).__name__ in answer["response"]["message"]


def _hook_request() -> Dict[str, Any]:
    return {"subtype": "hook_callback", "callback_id": "hook_0", "tool_use_id": "toolu_1",
            "input": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}}  # fmt: skip


@pytest.mark.parametrize("outcome", ["set", "nan", "KeyboardInterrupt", "SystemExit"])
def test_a_hook_answer_json_cannot_carry_or_a_hook_raising_base_exceptions_is_an_error(outcome: str) -> None:
    def hook(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        if outcome == "KeyboardInterrupt":
            raise KeyboardInterrupt
        if outcome == "SystemExit":
            raise SystemExit(2)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "odd": {1} if outcome == "set" else float("nan")}}

    hooks = {"PreToolUse": [HookMatcher(matcher=None, hooks=[hook])]}
    [answer] = _serve_one("h1", _hook_request(), error=True, hooks=hooks)
    assert answer["subtype"] == "error"


def test_an_mcp_tool_result_json_cannot_carry_is_an_error() -> None:
    @tool("when", "Now", {})
    def when(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"content": [{"type": "text", "text": "now"}], "structuredContent": {"at": float("nan")}}

    server = create_sdk_mcp_server("clock", tools=[when])
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "when", "arguments": {}}}
    request = {"subtype": "mcp_message", "server_name": "clock", "message": message}
    [answer] = _serve_one("m1", request, error=True, mcp_servers={"clock": server})
    assert answer["subtype"] == "error" and "cannot be encoded as JSON" in answer["error"]


# ----------------------------------------------------------------------------- bad lines at the end of the stream


def test_a_cli_dying_mid_line_is_a_process_error_chained_to_the_decode_error() -> None:
    cli = Kit(ScriptedCLI().expect_user().text("before").raw('{"type": "assistant", "message": {"id": "cut')
              .stderr("Killed").crash(137))
    seen: List[Any] = []
    with pytest.raises(ProcessError) as info:
        for message in cli.query("hi"):
            seen.append(message)
    assert texts(seen) == ["before"]
    assert info.value.exit_code == 137 and "Killed" in (info.value.stderr or "")
    assert isinstance(info.value.__cause__, CLIJSONDecodeError)


def test_a_result_line_without_newline_at_eof_is_counted() -> None:
    line = json.dumps(result_line(session_id="scripted-session", model="claude-scripted", result="4"))
    cli = Kit(ScriptedCLI().expect_user().text("4").raw(line).crash(0))
    messages = list(cli.query("2 + 2?"))  # no ProcessError("exited before sending the result")
    assert texts(messages) == ["4"] and isinstance(messages[-1], ResultMessage)


@pytest.mark.parametrize(
    "line, error",
    [
        ('{"type": ["assistant"], "message": {}}', MessageParseError),
        ('{"type": {"nested": true}}', MessageParseError),
        # Too deep for json on <= 3.12 (RecursionError -> CLIJSONDecodeError); 3.13's decoder
        # takes it, and the assistant line without "message" is then MessageParseError.
        ('{"type": "assistant", "deep": ' + "[" * 5000 + "]" * 5000 + "}", (CLIJSONDecodeError, MessageParseError)),
    ],
    ids=["type-list", "type-object", "nested-5000-deep"],
)
def test_odd_lines_are_typed_bad_input_not_a_reader_bug(line: str, error: Any, caplog: Any) -> None:
    cli = Kit(ScriptedCLI().expect_user().raw(line + "\n"))
    with pytest.raises(error):
        list(cli.query("hi"))
    assert "internal error" not in caplog.text and "reader thread failed" not in caplog.text


# ----------------------------------------------------------------------------- the state machine


def test_the_session_walks_its_states_and_refuses_what_the_table_refuses(monkeypatch: Any) -> None:
    from claude_sync._engine.states import SessionState

    cli = Kit(ScriptedCLI())
    client = cli.client()
    seen: List[SessionState] = []
    original_request = _session_module.Session.request

    def spy_request(self: Any, subtype: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(self.state)  # the initialize request is sent while CONNECTING
        return original_request(self, subtype, *args, **kwargs)

    monkeypatch.setattr(_session_module.Session, "request", spy_request)
    client.connect()
    monkeypatch.undo()
    session = client.session
    assert session is not None
    assert seen == [SessionState.CONNECTING] and session.state is SessionState.OPEN
    with pytest.raises(UsageError, match="already connected"):
        session.connect()
    session.close()
    assert session.state is SessionState.CLOSED
    with pytest.raises(UsageError, match="closed"):
        session.request("mcp_status")
    with pytest.raises(UsageError, match="closed"):
        session.write_frame({"type": "user"})
    session.close()  # CLOSED: nothing to do
    fresh = _session_module.Session(cli.options())
    assert fresh.state is SessionState.NEW
    with pytest.raises(UsageError, match="not connected"):
        fresh.request("mcp_status")
    fresh.close()
    assert fresh.state is SessionState.CLOSED
    with pytest.raises(UsageError, match="already connected"):
        fresh.connect()


@pytest.mark.parametrize("ladder_first", [True, False], ids=["close_ladder_ran_first", "close_waits_for_the_spawn"])
def test_close_while_connect_is_starting_the_cli_leaves_nothing_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ladder_first: bool
) -> None:
    """Ctrl-C in ``with AgentPool`` closes clients whose CLIs are starting: a CLI spawned after
    the close began must be reaped, not left running with its reader threads."""
    from claude_sync._engine import spawn

    cli = ScriptedCLI(directory=tmp_path)  # answers initialize, then waits for EOF
    client = ClaudeSDKClient(cli.options(close_timeout=0.5 if ladder_first else 5.0))
    real_start = spawn.start_transport
    spawned: List[Any] = []
    cli_started = threading.Event()

    def slow_start(*args: Any, **kwargs: Any) -> Any:
        transport = real_start(*args, **kwargs)
        spawned.append(transport)
        cli_started.set()
        session = client.session
        assert session is not None
        # close() has begun; with ladder_first, wait until it gave up waiting and finished
        wanted = (_session_module.SessionState.CLOSED,) if ladder_first else (
            _session_module.SessionState.CLOSING, _session_module.SessionState.CLOSED)
        wait_until(lambda: session.state in wanted, 10.0)
        return transport

    monkeypatch.setattr(spawn, "start_transport", slow_start)
    failure: List[BaseException] = []

    def connect() -> None:
        try:
            client.connect()
        except BaseException as exc:  # noqa: BLE001 - inspected below
            failure.append(exc)

    connecting = threading.Thread(target=connect, name="test-connect")
    connecting.start()
    # the CLI is running and connect still holds the spawn lock (waiting for CONNECTING alone
    # let close() win before the spawn: connect then spawned nothing, and this test saw no CLI)
    assert cli_started.wait(10)
    client.close()
    connecting.join(20)
    assert not connecting.is_alive()
    assert failure and isinstance(failure[0], (UsageError, CLIConnectionError)), failure
    [transport] = spawned
    assert wait_until(lambda: transport.exit_code() is not None, 10.0, fail=False), "the CLI started during close still runs"
