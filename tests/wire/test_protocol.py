"""The pure protocol core: line → event, outgoing frames, turn ledger, exit status → error."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest

from claude_sync import (
    AssistantMessage,
    CLIJSONDecodeError,
    MessageParseError,
    ProcessError,
    ResultMessage,
    UnknownMessage,
)
from claude_sync._wire.parse import parse_message
from claude_sync._wire.protocol import (
    ControlCancelReceived,
    ControlRequestReceived,
    ControlResponseReceived,
    KeepAliveReceived,
    NoiseLineSkipped,
    TurnLedger,
    control_error_frame,
    control_request_frame,
    control_success_frame,
    decode_line,
    exit_error,
    iter_user_frames,
    normalize_user_frame,
    result_error,
    user_message_frame,
)


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode()


@pytest.mark.parametrize(
    "raw, expected",
    [
        (
            {"type": "control_request", "request_id": "r1", "request": {"subtype": "can_use_tool", "tool_name": "Bash"}},
            ControlRequestReceived("r1", "can_use_tool", {"subtype": "can_use_tool", "tool_name": "Bash"}),
        ),
        ({"type": "control_cancel_request", "request_id": "r2"}, ControlCancelReceived("r2")),
        ({"type": "keep_alive"}, KeepAliveReceived()),
    ],
)
def test_control_frames_become_events(raw: Any, expected: Any) -> None:
    assert decode_line(line(raw)) == expected


def test_control_response_success_without_payload() -> None:
    raw = {"type": "control_response", "response": {"subtype": "success", "request_id": "int-1"}}
    event = decode_line(line(raw))
    assert isinstance(event, ControlResponseReceived)
    assert (event.request_id, event.ok, event.payload, event.error) == ("int-1", True, None, None)


def test_control_response_error_keeps_the_cli_text() -> None:
    raw = {"type": "control_response", "response": {"subtype": "error", "request_id": "x", "error": "File rewinding is not enabled."}}
    event = decode_line(line(raw))
    assert (event.ok, event.error) == (False, "File rewinding is not enabled.")


def test_messages_are_parsed_and_unknown_types_stay_visible() -> None:
    assistant = {"type": "assistant", "message": {"id": "m", "model": "x", "content": [{"type": "text", "text": "hi"}]}, "parent_tool_use_id": None, "session_id": "s"}
    assert isinstance(decode_line(line(assistant)), AssistantMessage)
    unknown = decode_line(line({"type": "brand_new_thing", "x": 1}))
    assert isinstance(unknown, UnknownMessage) and unknown.raw == {"type": "brand_new_thing", "x": 1}


@pytest.mark.parametrize("noise", [b"Debugger attached.", b"   ", b"[warn] something", b"42", b'"a string"'])
def test_noise_lines(noise: bytes) -> None:
    event = decode_line(noise)
    assert isinstance(event, NoiseLineSkipped) and event.text == noise.strip().decode()


def test_leading_whitespace_before_an_object_is_fine() -> None:
    assert decode_line(b'  {"type": "keep_alive"}  ') == KeepAliveReceived()


@pytest.mark.parametrize("bad", [b'{"type": "assistant", oops}', b'{"a": 1} trailing', b"{\xff\xfe}", b'{"unterminated": "'])
def test_corrupt_object_lines_raise_a_typed_error_naming_the_line(bad: bytes) -> None:
    with pytest.raises(CLIJSONDecodeError) as info:
        decode_line(bad)
    assert info.value.line.startswith("{")


def test_broken_shape_of_a_known_type_is_a_parse_error() -> None:
    with pytest.raises(MessageParseError):
        decode_line(line({"type": "assistant"}))


def test_builders() -> None:
    assert user_message_frame("hi") == {"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None, "session_id": "default"}
    assert user_message_frame("hi", uuid="u1", session_id="s")["uuid"] == "u1"
    assert control_request_frame("r", "interrupt") == {"type": "control_request", "request_id": "r", "request": {"subtype": "interrupt"}}
    assert control_request_frame("r", "set_model", {"model": None})["request"] == {"subtype": "set_model", "model": None}
    assert control_success_frame("r", {}) == {"type": "control_response", "response": {"subtype": "success", "request_id": "r", "response": {}}}
    assert control_error_frame("r", "boom")["response"] == {"subtype": "error", "request_id": "r", "error": "boom"}


@pytest.mark.parametrize("bad", [None, 3, {"text": "x"}])
def test_user_message_content_must_be_str_or_blocks(bad: Any) -> None:
    with pytest.raises(ValueError):
        user_message_frame(bad)


def test_streamed_user_frames_are_checked() -> None:
    frames = list(iter_user_frames(["plain", {"type": "user", "message": {"role": "user", "content": "d"}}], "sid"))
    assert [f["session_id"] for f in frames] == ["sid", "sid"]
    with pytest.raises(ValueError, match="message.content"):
        normalize_user_frame({"type": "user", "message": {"role": "user"}})
    with pytest.raises(ValueError, match="dicts"):
        list(iter_user_frames([42]))


def test_turn_ledger() -> None:
    ledger = TurnLedger()
    assert not ledger.turn_running and not ledger.should_close
    ledger.sent_user_message()
    ledger.sent_user_message()
    ledger.input_exhausted()
    assert ledger.turn_running and not ledger.should_close
    ledger.result_received()
    assert not ledger.should_close
    ledger.result_received()
    assert ledger.should_close and not ledger.turn_running


def _result(**fields: Any) -> ResultMessage:
    raw = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "session_id": "s"}
    raw.update(fields)
    return parse_message(raw)  # type: ignore[return-value]


ERROR_RESULT = _result(is_error=True, api_error_status=500, result="API Error: 500")


@pytest.mark.parametrize(
    "returncode, last, expecting, killed, expected",
    [
        (0, None, False, False, None),
        (0, _result(), True, False, "before sending the result"),
        (1, ERROR_RESULT, False, False, None),  # how the CLI reports an error run
        (1, ERROR_RESULT, True, False, "exited unexpectedly"),  # a later turn never finished
        (1, _result(), False, False, "exited unexpectedly"),
        (143, None, True, False, "exited unexpectedly"),
        (-9, None, True, True, None),  # we killed it
        (None, None, False, True, None),
    ],
)
def test_exit_error(returncode: Optional[int], last: Optional[ResultMessage], expecting: bool, killed: bool, expected: Optional[str]) -> None:
    error = exit_error(returncode, stderr_tail="tail text", last_result=last, expecting_result=expecting, killed_by_us=killed)
    if expected is None:
        assert error is None
    else:
        assert isinstance(error, ProcessError) and expected in str(error)
        assert error.exit_code == returncode and error.stderr == "tail text"


def test_result_error_carries_the_result() -> None:
    error = result_error(ERROR_RESULT, exit_code=1, stderr="s")
    assert error.api_error_status == 500 and error.subtype == "success" and error.result == "API Error: 500"
    assert error.data["is_error"] is True and error.exit_code == 1
    limited = result_error(_result(subtype="error_max_turns", is_error=True, errors=["Reached maximum number of turns (1)"]))
    assert "Reached maximum number of turns" in str(limited) and limited.errors == ["Reached maximum number of turns (1)"]
