"""The stream-json protocol, sans I/O: one stdout line in → one event out; frames out.

Pure: no threads, no subprocess, no clocks. The threaded shell (``_engine/connection.py``) feeds it
lines and acts on what comes back.

Line rules (``decode_line``):
- A line whose first non-blank byte is not ``{`` is noise: ``NoiseLineSkipped`` (the shell
  logs it; nothing reaches the user). The real CLI 2.1.197 printed none in 557 lines.
- A ``{…}`` line that is not valid JSON (or not UTF-8) raises ``CLIJSONDecodeError``. This
  **ends the session**: the shell treats it like a crash (every waiter wakes with that error,
  messages already queued are still delivered first). A corrupt object line means the stream
  can no longer be trusted — it may have been a control response somebody waits for.
- ``control_request`` / ``control_response`` / ``control_cancel_request`` / ``keep_alive``
  / ``transcript_mirror`` become control events; every other object is parsed into a message (unknown types stay
  visible as ``UnknownMessage``). A known type with a broken shape raises
  ``MessageParseError`` (also session-ending, for the same reason).

Outgoing frames are dicts built here and encoded by ``framing.encode_frame``.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from .errors import (
    ClaudeSDKError,
    CLIJSONDecodeError,
    ProcessError,
    ResultError,
    StructuredOutputError,
    as_text,
    error_texts,
)
from .messages import Message, ResultMessage
from .parse import parse_message
from .record import FrozenRecord, construct, frozen_record
from .run_end import RunEnd

__all__ = [
    "ControlCancelReceived",
    "ControlRequestReceived",
    "ControlResponseReceived",
    "Event",
    "KeepAliveReceived",
    "NoiseLineSkipped",
    "StreamItem",
    "TranscriptMirrorReceived",
    "TurnLedger",
    "control_error_frame",
    "control_request_frame",
    "control_success_frame",
    "decode_line",
    "exit_error",
    "result_error",
    "STRUCTURED_OUTPUT_RETRIES_SUBTYPE",
    "user_message_frame",
    "without_slash_command",
]

_LINE_EXCERPT = 2000


@frozen_record
class ControlRequestReceived(FrozenRecord):
    """The CLI asks us something (``can_use_tool``, ``hook_callback``, ``mcp_message``, …)."""

    request_id: str
    subtype: str
    request: Dict[str, Any]


@frozen_record
class ControlResponseReceived(FrozenRecord):
    """The CLI answered one of our control requests (``ok`` false: ``error`` holds its text)."""

    request_id: str
    ok: bool
    payload: Optional[Dict[str, Any]]
    error: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)


@frozen_record
class ControlCancelReceived(FrozenRecord):
    """The CLI no longer wants the answer to its request ``request_id``."""

    request_id: str


@frozen_record
class KeepAliveReceived(FrozenRecord):
    """A ``keep_alive`` frame: proof of life, nothing to deliver."""


@frozen_record
class NoiseLineSkipped(FrozenRecord):
    """A stdout line that was not a JSON object (``text`` is its first 2000 characters)."""

    text: str


@frozen_record
class TranscriptMirrorReceived(FrozenRecord):
    """A ``transcript_mirror`` frame (sent under ``--session-mirror``): the CLI just wrote
    ``entries`` to its transcript ``file_path``. For the session store, never the user."""

    file_path: str
    entries: List[Any]


ControlEvent = Union[
    ControlRequestReceived, ControlResponseReceived, ControlCancelReceived, KeepAliveReceived,
    NoiseLineSkipped, TranscriptMirrorReceived,
]  # fmt: skip
CONTROL_EVENT_TYPES = frozenset(
    (ControlRequestReceived, ControlResponseReceived, ControlCancelReceived, KeepAliveReceived,
     NoiseLineSkipped, TranscriptMirrorReceived)
)  # fmt: skip

Event = Union[Message, ControlEvent]
"""What ``decode_line`` returns for one line: a message for the user, or a control event."""

_KEEP_ALIVE = KeepAliveReceived()
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner


def decode_line(line: bytes) -> Event:
    """One complete stdout line → a message object or a control event.

    Raises ``CLIJSONDecodeError`` (corrupt ``{…}`` line, or JSON nested too deeply to decode)
    or ``MessageParseError`` (known type with a broken shape, or a ``type`` that is not a
    string).
    """
    if line[:1] != b"{":
        stripped = line.strip()
        if stripped[:1] != b"{":
            return NoiseLineSkipped(stripped[:_LINE_EXCERPT].decode("utf-8", "replace"))
        line = stripped
    obj = _load_object(line)
    kind = obj.get("type")
    if kind.__class__ is str and kind in _CONTROL_DECODERS:
        return _CONTROL_DECODERS[kind](obj)
    return parse_message(obj)  # a non-string type: MessageParseError


def _load_object(line: bytes) -> Dict[str, Any]:
    """Fast path: the C scanner on the decoded text; any doubt → ``json.loads`` for errors."""
    try:
        text = line.decode("utf-8")
        obj, end = _scan(text, 0)
    except (UnicodeDecodeError, StopIteration, ValueError, RecursionError):
        return _load_object_slowly(line)
    if end != len(text) or obj.__class__ is not dict:
        return _load_object_slowly(line)
    return obj


def _load_object_slowly(line: bytes) -> Dict[str, Any]:
    excerpt = line[:_LINE_EXCERPT].decode("utf-8", "replace")
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise CLIJSONDecodeError(
            excerpt, exc, message=f"Failed to decode a JSON line from the CLI ({len(line)} bytes): {exc}"
        ) from exc
    except RecursionError as exc:
        raise CLIJSONDecodeError(
            excerpt, exc, message=f"A JSON line from the CLI ({len(line)} bytes) is nested too deeply to decode"
        ) from exc
    if not isinstance(obj, dict):
        raise CLIJSONDecodeError(
            excerpt, message=f"Expected a JSON object line from the CLI, got {type(obj).__name__}"
        )
    return obj


def _decode_control_request(obj: Dict[str, Any]) -> ControlRequestReceived:
    request = obj.get("request")
    if not isinstance(request, dict):
        request = {}
    return construct(
        ControlRequestReceived,
        {"request_id": str(obj.get("request_id", "")), "subtype": str(request.get("subtype")), "request": request},
    )


def _decode_control_response(obj: Dict[str, Any]) -> ControlResponseReceived:
    response = obj.get("response")
    if not isinstance(response, dict):
        response = {}
    ok = response.get("subtype") == "success"
    payload = response.get("response")
    error = None if ok else str(response.get("error") or "control request failed")
    return construct(
        ControlResponseReceived,
        {
            "request_id": str(response.get("request_id", "")),
            "ok": ok,
            "payload": payload if payload.__class__ is dict else None,
            "error": error,
            "raw": obj,
        },
    )


def _decode_control_cancel(obj: Dict[str, Any]) -> ControlCancelReceived:
    return construct(ControlCancelReceived, {"request_id": str(obj.get("request_id", ""))})


def _decode_keep_alive(obj: Dict[str, Any]) -> KeepAliveReceived:
    return _KEEP_ALIVE


def _decode_transcript_mirror(obj: Dict[str, Any]) -> TranscriptMirrorReceived:
    entries = obj.get("entries")
    return construct(
        TranscriptMirrorReceived,
        {"file_path": str(obj.get("filePath", "")), "entries": entries if isinstance(entries, list) else []},
    )


_CONTROL_DECODERS: Dict[str, Callable[[Dict[str, Any]], ControlEvent]] = {
    "control_request": _decode_control_request,
    "control_response": _decode_control_response,
    "control_cancel_request": _decode_control_cancel,
    "keep_alive": _decode_keep_alive,
    "transcript_mirror": _decode_transcript_mirror,
}


# --------------------------------------------------------------------------- builders


def user_message_frame(
    content: Union[str, List[Dict[str, Any]]],
    *,
    session_id: str = "default",
    parent_tool_use_id: Optional[str] = None,
    uuid: Optional[str] = None,
) -> Dict[str, Any]:
    """A ``user`` stdin frame. Raises ``ValueError`` for empty or non-str/list content
    (the CLI exits 1 on a user message without content)."""
    if not isinstance(content, (str, list)):
        raise ValueError(f"user message content must be str or a list of blocks, got {type(content).__name__}")
    frame: Dict[str, Any] = {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": parent_tool_use_id,
        "session_id": session_id,
    }
    if uuid is not None:
        frame["uuid"] = uuid
    return frame


def normalize_user_frame(item: Dict[str, Any], session_id: str = "default") -> Dict[str, Any]:
    """Check a user-supplied stdin dict before it is written.

    Accepts a full ``{"type": "user", "message": {...}}`` frame (``session_id`` filled in when
    missing). Raises ``ValueError`` when it is not a dict, or a ``user`` frame without
    ``message.content`` (the real CLI would end the run with an error and exit 1).
    """
    if not isinstance(item, dict):
        raise ValueError(f"streamed prompt items must be dicts, got {type(item).__name__}")
    if item.get("type") == "user":
        message = item.get("message")
        if not isinstance(message, dict) or "content" not in message:
            raise ValueError("a streamed user message needs message.content")
        if "session_id" not in item:
            item = dict(item, session_id=session_id)
    return item


def without_slash_command(frame: Dict[str, Any]) -> Dict[str, Any]:
    """``frame`` with one space put before the ``/`` that starts its text (the string content,
    or any text block): CLI 2.1.197 and 2.1.332 run such a prompt as a slash command, and take
    it as text for the model when it starts with a space (measured: ``/config …`` then writes
    no ``settings.json`` and the model receives `` /config …``). Other frames are returned as
    they are; the caller's dict is never changed."""
    message = frame.get("message")
    if frame.get("type") != "user" or not isinstance(message, dict):
        return frame
    content = message.get("content")
    if isinstance(content, str):
        new_content: Any = " " + content if content.startswith("/") else content
    elif isinstance(content, list):
        new_content = [_text_block_as_text(block) for block in content]
    else:
        return frame
    return {**frame, "message": {**message, "content": new_content}}


def _text_block_as_text(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "text":
        text = block.get("text")
        if isinstance(text, str) and text.startswith("/"):
            return {**block, "text": " " + text}
    return block


def control_request_frame(request_id: str, subtype: str, payload: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Our request to the CLI."""
    request: Dict[str, Any] = {"subtype": subtype}
    if payload:
        request.update(payload)
    return {"type": "control_request", "request_id": request_id, "request": request}


def control_success_frame(request_id: str, response: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Our successful answer to a CLI request."""
    body: Dict[str, Any] = {"subtype": "success", "request_id": request_id}
    if response is not None:
        body["response"] = response
    return {"type": "control_response", "response": body}


def control_error_frame(request_id: str, error: str) -> Dict[str, Any]:
    """Our error answer to a CLI request."""
    return {
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": error},
    }


# --------------------------------------------------------------------------- turns and stdin


class TurnLedger:
    """Counts user messages written and results read; tells when a one-shot run may end.

    A one-shot run closes the CLI's stdin only after the **run-ending** result has been
    read: every user message written has been answered by its own ``result`` (the CLI runs
    queued messages as separate turns, never merged) and the prompt iterable is exhausted.
    Closing earlier makes the real CLI exit as soon as its turn ends, and it may cut a large
    stdout line and never write the result (seen 6 of 6 times with an 850 KB answer and a
    slow reader). A run the CLI may call back waits for more: ``run_end`` (``RunEnd``) says
    when the CLI is done (``finished``). The same counts tell a client whether a turn is running.

    Not thread-safe: the session updates it under its lock.
    """

    __slots__ = ("user_messages", "results", "exhausted", "run_end")

    def __init__(self, run_end: Optional[RunEnd] = None) -> None:
        self.user_messages = 0
        self.results = 0
        self.exhausted = False
        self.run_end = run_end if run_end is not None else RunEnd(calls_back=False)

    def sent_user_message(self) -> None:
        self.user_messages += 1
        self.run_end.user_message_sent()

    def unsent_user_message(self) -> None:
        """Take back ``sent_user_message`` for a message whose write failed."""
        self.user_messages -= 1

    def input_exhausted(self) -> None:
        self.exhausted = True

    def result_received(self, now: float = 0.0) -> None:
        self.results += 1
        self.run_end.result(now)

    @property
    def turn_running(self) -> bool:
        return self.results < self.user_messages

    @property
    def should_close(self) -> bool:
        """True once the input is exhausted and every user message got its result."""
        return self.exhausted and not self.turn_running

    def finished(self, now: float) -> bool:
        """``should_close``, and for a run the CLI may call back, the CLI said it is done."""
        return self.should_close and (not self.run_end.calls_back or self.run_end.due(now))


# --------------------------------------------------------------------------- errors


STRUCTURED_OUTPUT_RETRIES_SUBTYPE = "error_max_structured_output_retries"
"""The result subtype of a run whose every ``StructuredOutput`` call failed the schema (the
CLI allows ``MAX_STRUCTURED_OUTPUT_RETRIES`` calls, 5 by default)."""


def result_error(
    result: ResultMessage, *, exit_code: Optional[int] = None, stderr: Optional[str] = None
) -> ResultError:
    """The ``ResultError`` an error result turns into (raised after it was yielded); a
    ``StructuredOutputError`` for ``error_max_structured_output_retries``.

    Whatever shape ``errors``/``result`` have on the wire, this returns a ``ResultError``:
    ``errors`` becomes a list of strs (see ``errors.error_texts``: non-str entries dropped, as
    the official SDK does; the message still shows them as JSON), a non-str ``result`` its JSON.
    Its first line says what happened (the CLI's words: "Not logged in · Please run /login"),
    then in brackets what kind of end it was (``_end_words``): an API failure's HTTP status
    rather than its subtype, which is ``success`` and would mislead.
    """
    from .hints import hint_for  # error results are rare: loaded on the first

    errors = error_texts(result.errors)
    text = None if result.result is None else as_text(result.result)
    odd = as_text(result.errors) if result.errors not in (None, [], "") else ""  # shapes .errors drops
    detail = text or "; ".join(errors) or odd
    happened = detail or "The Claude Code run ended with an error result"
    message = f"{happened} ({_end_words(result)})"
    if result.subtype == STRUCTURED_OUTPUT_RETRIES_SUBTYPE:
        return StructuredOutputError(
            message, data=dict(result.raw), exit_code=exit_code, stderr=stderr, problem=detail or "(no detail)"
        )
    return ResultError(message, data=dict(result.raw), exit_code=exit_code, stderr=stderr, hint=hint_for(result))


def _end_words(result: ResultMessage) -> str:
    """How the run ended, for the error's first line: ``API error 401`` for an API failure
    (whose subtype is ``success``, which would mislead), the error subtype as the CLI named
    it (``error_max_turns``, ``error_during_execution: aborted_streaming`` with the terminal
    reason when that says how it was stopped), else ``error result``."""
    subtype = result.subtype if isinstance(result.subtype, str) else ""
    if result.api_error_status:
        words = f"API error {result.api_error_status}"
    elif subtype and subtype != "success":
        words = subtype
    else:
        words = "error result"
    reason = result.terminal_reason
    if isinstance(reason, str) and reason not in ("", "completed", "max_turns", "api_error"):
        words += f": {reason}"  # aborted_streaming, aborted_tools …: how it was stopped
    return words


def exit_error(
    returncode: Optional[int],
    *,
    stderr_tail: str,
    last_result: Optional[ResultMessage],
    expecting_result: bool,
    killed_by_us: bool,
) -> Optional[ClaudeSDKError]:
    """The error, if any, that a finished CLI process means for the user.

    - We stopped it (close ladder, SIGTERM/SIGKILL) → None.
    - Exit 0 with nothing outstanding → None; exit 0 while a result was still expected →
      ``ProcessError`` (the CLI ended the run without its result).
    - Exit 1 right after an error result → None: that is how the CLI reports an error run,
      and the result itself carries the detail.
    - Anything else → ``ProcessError`` with the exit code and the stderr tail.
    """
    if killed_by_us:
        return None
    if returncode == 0:
        if expecting_result:
            return ProcessError(
                "Claude Code CLI exited before sending the result of the run",
                exit_code=0,
                stderr=stderr_tail,
            )
        return None
    if returncode == 1 and last_result is not None and last_result.is_error and not expecting_result:
        return None
    return ProcessError("Claude Code CLI process exited unexpectedly", exit_code=returncode, stderr=stderr_tail)


def iter_user_frames(prompts: Iterable[Any], session_id: str = "default") -> Iterable[Dict[str, Any]]:
    """Normalise a user's prompt iterable item by item (lazily). Raises ``ValueError``."""
    for item in prompts:
        if isinstance(item, str):
            yield user_message_frame(item, session_id=session_id)
        else:
            yield normalize_user_frame(item, session_id)


StreamItem = Message
"""What a session's message stream yields: messages — where a line over ``max_buffer_size``
was skipped, the ``SystemMessage`` ``OversizedLineSkipped`` stands in for it. (Once a union
with that marker; kept as a name so annotations that use it go on working.)"""
