"""The one exception tree of claude_sync.

::

    ClaudeSDKError                     base of everything raised on purpose
    ├── CLIConnectionError             could not start, or lost, the CLI process
    │   └── CLINotFoundError           no `claude` binary was found (``cli_path``)
    ├── ProcessError                   the CLI exited abnormally (``exit_code``, ``stderr``)
    │   └── ResultError                the run ended in an error ``ResultMessage``
    │       └── StructuredOutputError  no valid ``output_format`` value (raw value, path)
    ├── CLIJSONDecodeError             a ``{…}`` stdout line was not valid JSON (``line``)
    ├── MessageParseError              valid JSON of a known type with a broken shape (``data``)
    ├── ControlRequestError            the CLI answered our control request with an error
    ├── CallbackRequestError           a permission / hook request we cannot serve; ``ValueError``
    │   └── UnknownHookCallbackError   a hook callback id we never registered; ``LookupError``
    ├── ControlTimeoutError            no answer in time; also a builtin ``TimeoutError``
    ├── ReceiveTimeoutError            no message in time while receiving; also ``TimeoutError``
    ├── UsageError                     the API was used wrongly; also a ``RuntimeError``
    │   └── NotConnectedError          a call before connect() / after disconnect(); also a
    │                                  ``CLIConnectionError``
    └── UnscriptedRunError             the testing kit's switch is on and a run has no script
                                       (no CLI was started); also an ``AssertionError``

Names mirror the official ``claude-agent-sdk`` where the meaning is the same, so ported
``except`` clauses keep working. Every class pickles round-trip with all its attributes
(each stores its constructor arguments in ``self.args`` order via ``__reduce__``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from .._redaction.redactor import redact_text

__all__ = [
    "callback_failure_reason",
    "ClaudeSDKError",
    "CLIConnectionError",
    "CLINotFoundError",
    "ProcessError",
    "ResultError",
    "StructuredOutputError",
    "CLIJSONDecodeError",
    "MessageParseError",
    "ControlRequestError",
    "CallbackRequestError",
    "UnknownHookCallbackError",
    "ControlTimeoutError",
    "ReceiveTimeoutError",
    "UsageError",
    "NotConnectedError",
    "SessionStoreError",
    "UnscriptedRunError",
]


class ClaudeSDKError(Exception):
    """Base class of every error claude_sync raises on purpose. Its text goes through the one
    redactor (``_redaction.redactor``): a CLI's stderr tail, an error line or an echoed config
    shows no keys, tokens or header values (the attributes keep the data as it was). In
    IPython and Jupyter it shows once, with a short traceback of the caller's own frames
    (``%tb verbose`` for the whole one)."""

    def __init__(self, message: str = "") -> None:
        if message:
            message = redact_text(message)
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.init_kwargs()))

    def _render_traceback_(self) -> List[str]:
        """IPython/Jupyter: the traceback lines to show — the caller's frames, this error's
        text once (its hint included), a note of the frames left out (``%tb verbose`` shows
        them). IPython calls it; see ``claude_sync._display.tracebacks``."""
        from .._display.tracebacks import short_traceback  # first error shown only

        return short_traceback(self)

    def init_kwargs(self) -> Dict[str, Any]:
        """The constructor's keyword arguments that rebuild this error (``type(e)(**kwargs)``):
        what pickling and ``RunResult.to_dict()`` carry."""
        return {"message": str(self)}

    def _with_stderr_tail(self, tail: str) -> ClaudeSDKError:
        """A new error of this type with the same attributes, whose message ends with the
        CLI's stderr ``tail`` (the caller raises it ``from`` this one)."""
        kwargs = self.init_kwargs()
        kwargs["message"] = f"{self}\nstderr tail:\n{tail}"
        return _rebuild(type(self), kwargs)


def _rebuild(cls: type, kwargs: Dict[str, Any]) -> ClaudeSDKError:
    return cls(**kwargs)  # type: ignore[no-any-return]


class CLIConnectionError(ClaudeSDKError):
    """The CLI process could not be started, or the connection to it was lost."""


class CLINotFoundError(CLIConnectionError):
    """No usable ``claude`` binary was found.

    ``cli_path`` is the explicit path that was tried, if any.

    Attributes:
        cli_path: The explicit path that was tried (``ClaudeAgentOptions.cli_path``), or None.
    """

    def __init__(self, message: str = "Claude Code CLI not found", cli_path: Optional[str] = None):
        super().__init__(message)
        self.cli_path = cli_path

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "cli_path": self.cli_path}


class ProcessError(ClaudeSDKError):
    """The CLI process exited abnormally.

    ``exit_code`` is the process's return code (negative: killed by that signal) and
    ``stderr`` the tail of what it wrote to stderr (bounded, may be empty).

    Attributes:
        exit_code: The CLI's exit status (negative: killed by that signal); None when unknown.
        stderr: The tail of what the CLI wrote to stderr (bounded; may be empty or None).
    """

    def __init__(
        self, message: str, exit_code: Optional[int] = None, stderr: Optional[str] = None
    ):
        self.exit_code = exit_code
        self.stderr = stderr
        self._message = message
        super().__init__(self._compose())

    def _compose(self) -> str:
        """The text: the message (with the exit code), notes of subclasses, the stderr tail."""
        first = self._message if self.exit_code is None else f"{self._message} (exit code {self.exit_code})"
        parts = [first, *self._notes()]
        if self.stderr:
            parts.append(f"stderr tail:\n{self.stderr}")
        return "\n".join(parts)

    def _notes(self) -> List[str]:
        return []

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": self._message, "exit_code": self.exit_code, "stderr": self.stderr}


class ResultError(ProcessError):
    """The run ended with an error ``ResultMessage`` (``is_error`` true).

    Raised after that ``ResultMessage`` was yielded, so the data was seen first. Built like
    the official one, ``ResultError(message, data=None, exit_code=None)`` (plus our
    ``stderr``): every other attribute is derived from ``data``, the result's wire dict —
    ``subtype``, ``errors`` (blank / non-string entries dropped), ``result``,
    ``api_error_status``, ``terminal_reason`` (``"api_error"``, ``"max_turns"`` …) and
    ``session_id``. API failures arrive as ``subtype == "success"`` with
    ``api_error_status`` set; aborted or limited runs as ``error_during_execution`` /
    ``error_max_turns`` / … with ``errors``. ``hint`` (ours): one line of what to do, for
    the failures a newcomer meets (not logged in, invalid key …), shown after the first line.

    Attributes:
        hint: One line of what to do, for the failures a newcomer meets (not logged in, invalid key
            …); None otherwise.
        data: The error result's wire dict ({} when none was given).
        subtype: The result's ``subtype`` (``"success"`` for an API failure, ``"error_max_turns"``
            …).
        errors: The result's error texts (blank entries dropped, others as JSON text).
        result: The result's text, if any.
        api_error_status: The HTTP status of the API failure, if that is what ended the run.
        terminal_reason: Why the run ended (``"api_error"``, ``"max_turns"`` …), when the CLI says.
        session_id: The session the result belongs to.
    """

    def __init__(
        self,
        message: str,
        data: Optional[Dict[str, Any]] = None,
        exit_code: Optional[int] = None,
        stderr: Optional[str] = None,
        hint: Optional[str] = None,
    ):
        self.hint = hint
        super().__init__(message, exit_code=exit_code, stderr=stderr)
        self.data: Dict[str, Any] = data if isinstance(data, dict) else {}
        self.subtype: Optional[str] = _str_or_none(self.data.get("subtype"))
        self.errors: List[str] = error_texts(self.data.get("errors"))
        result = self.data.get("result")
        self.result: Optional[str] = None if result is None else as_text(result)
        status = self.data.get("api_error_status")
        self.api_error_status: Optional[int] = (
            status if isinstance(status, int) and not isinstance(status, bool) else None
        )
        self.terminal_reason: Optional[str] = _str_or_none(self.data.get("terminal_reason"))
        self.session_id: Optional[str] = _str_or_none(self.data.get("session_id"))

    def _notes(self) -> List[str]:
        return [] if self.hint is None else [f"Hint: {self.hint}"]

    def init_kwargs(self) -> Dict[str, Any]:
        kwargs = super().init_kwargs()
        kwargs["data"] = self.data
        kwargs["hint"] = self.hint
        return kwargs


class StructuredOutputError(ResultError):
    """The run did not produce a valid ``output_format`` value; nothing of it is lost.

    Raised when the CLI gave up (result ``error_max_structured_output_retries``: every
    ``StructuredOutput`` call failed the schema), when the run ended without calling
    ``StructuredOutput`` at all, and when the CLI accepted a value that the class refuses
    (a ``Literal`` or a tuple position the schema could not express, a date that does not
    exist, a ``__post_init__`` that raises, a pydantic validator) — whatever ``Exception``
    decoding raised (a validator's ``TypeError``, a value nested too deeply to walk): then
    ``error_path`` is ``"$"`` unless the failing object is known. With
    ``raise_on_error_result=False``, ``run()`` returns the ``RunResult`` instead, this error
    as its ``output_error``.

    The ``ResultError`` attributes describe the result (``subtype``, ``errors``,
    ``session_id`` …; empty for a value decoded by hand).

    Attributes:
        raw_output: The JSON value the model gave (its last attempt); None when it gave none.
        schema: The JSON Schema that was sent to the CLI.
        error_path: The JSON path of the first mismatch (``"$.lines[2].price"``); None when
            unknown.
        problem: What is wrong at ``error_path``, in words.
        output_type: The class's qualified name (``"invoices.Invoice"``): a name, so the error
            pickles where the class cannot be imported; None for a hand-written schema dict.
    """

    def __init__(
        self,
        message: str,
        data: Optional[Dict[str, Any]] = None,
        exit_code: Optional[int] = None,
        stderr: Optional[str] = None,
        hint: Optional[str] = None,
        raw_output: Any = None,
        schema: Optional[Dict[str, Any]] = None,
        error_path: Optional[str] = None,
        problem: Optional[str] = None,
        output_type: Optional[str] = None,
    ):
        super().__init__(message, data=data, exit_code=exit_code, stderr=stderr, hint=hint)
        self.raw_output = raw_output
        self.schema = schema
        self.error_path = error_path
        self.problem = problem
        self.output_type = output_type

    def init_kwargs(self) -> Dict[str, Any]:
        kwargs = super().init_kwargs()
        kwargs.update(
            raw_output=self.raw_output,
            schema=self.schema,
            error_path=self.error_path,
            problem=self.problem,
            output_type=self.output_type,
        )
        return kwargs


def _str_or_none(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def error_texts(raw: Any) -> List[str]:
    """A result's ``errors`` as strings, as the official SDK reads them: a bare str is one
    error, each str entry of a list is stripped, and blank or non-str entries (a dict, a
    number) are dropped; any other shape is no errors."""
    items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def as_text(value: Any) -> str:
    """A wire value as text for an error message: a str as it is, anything else as (at most
    2000 characters of) its JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)[:2000]
    except (TypeError, ValueError, RecursionError):
        return f"<{type(value).__name__}>"


class CLIJSONDecodeError(ClaudeSDKError):
    """A stdout line that looked like a JSON object (``{…}``) failed to parse.

    Built like the official one, ``CLIJSONDecodeError(line, original_error)``: ``line`` holds
    (a prefix of, at most 2000 characters) the offending line, ``original_error`` the
    parser's exception (None when the line parsed but was not an object). ``message``
    replaces the default text.

    Attributes:
        line: The offending line (at most its first 2000 characters).
        original_error: The parser's exception (None when the line parsed but was not an object).
    """

    def __init__(
        self,
        line: str,
        original_error: Optional[BaseException] = None,
        *,
        message: Optional[str] = None,
    ):
        super().__init__(message if message is not None else f"Failed to decode JSON: {line[:100]}...")
        self.line = line
        self.original_error = original_error

    def init_kwargs(self) -> Dict[str, Any]:
        return {"line": self.line, "original_error": self.original_error, "message": str(self)}


class MessageParseError(ClaudeSDKError):
    """A JSON line of a known message type did not have the expected shape (``data``).

    Attributes:
        data: The line's JSON value that did not have the expected shape.
    """

    def __init__(self, message: str, data: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.data = data

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "data": self.data}


class ControlRequestError(ClaudeSDKError):
    """The CLI answered one of our control requests with an error (its text is the message).

    Attributes:
        subtype: The kind of control request that failed (``set_model`` …).
        request_id: Its request id.
    """

    def __init__(
        self, message: str, subtype: Optional[str] = None, request_id: Optional[str] = None
    ):
        super().__init__(message)
        self.subtype = subtype
        self.request_id = request_id

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "subtype": self.subtype, "request_id": self.request_id}


class CallbackRequestError(ClaudeSDKError, ValueError):
    """A ``can_use_tool`` / ``hook_callback`` request we cannot serve (broken shape).

    The shell answers it with an error control response; ``subtype`` names the request kind.
    """

    def __init__(self, message: str, subtype: Optional[str] = None):
        super().__init__(message)
        self.subtype = subtype

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "subtype": self.subtype}


class UnknownHookCallbackError(CallbackRequestError, LookupError):
    """The CLI named a hook callback id we never registered (``callback_id``)."""

    def __init__(self, message: str, callback_id: Any = None, subtype: Optional[str] = None):
        super().__init__(message, subtype=subtype if subtype is not None else "hook_callback")
        self.callback_id = callback_id

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "callback_id": self.callback_id, "subtype": self.subtype}


class ControlTimeoutError(ClaudeSDKError, TimeoutError):
    """No answer to one of our control requests within its timeout.

    Attributes:
        subtype: The kind of control request that got no answer.
        request_id: Its request id.
        timeout: The timeout that expired, in seconds.
    """

    def __init__(
        self,
        message: str,
        subtype: Optional[str] = None,
        request_id: Optional[str] = None,
        timeout: Optional[float] = None,
    ):
        super().__init__(message)
        self.subtype = subtype
        self.request_id = request_id
        self.timeout = timeout

    def init_kwargs(self) -> Dict[str, Any]:
        return {
            "message": str(self),
            "subtype": self.subtype,
            "request_id": self.request_id,
            "timeout": self.timeout,
        }


class ReceiveTimeoutError(ClaudeSDKError, TimeoutError):
    """No message arrived in time while receiving. The session is left running.

    ``kind`` is ``"total"`` (the whole call's ``timeout``) or ``"idle"`` (no frame for
    ``idle_timeout`` seconds).

    Attributes:
        kind: ``"total"`` (the whole call's ``timeout``) or ``"idle"`` (no frame for
            ``idle_timeout`` seconds).
        timeout: The timeout that expired, in seconds.
    """

    def __init__(self, message: str, kind: str = "total", timeout: Optional[float] = None):
        super().__init__(message)
        self.kind = kind
        self.timeout = timeout

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "kind": self.kind, "timeout": self.timeout}


class UsageError(ClaudeSDKError, RuntimeError):
    """The API was used in a way it does not support (after close, two consumers, …)."""


class NotConnectedError(CLIConnectionError, UsageError):
    """A client method was called before ``connect()`` or after ``disconnect()``.

    A ``CLIConnectionError`` as in the official SDK, and a ``UsageError`` (the API was used
    out of order), so either ``except`` clause catches it.
    """


class SessionStoreError(ClaudeSDKError, RuntimeError):
    """A ``SessionStore`` call failed or timed out where the session cannot go on without it
    (loading a session to resume from the store). Mirroring failures never raise: they are
    reported as a ``SystemMessage`` with ``subtype="mirror_error"``."""


class UnscriptedRunError(ClaudeSDKError, AssertionError):
    """The testing kit's switch is on (``claude_sync.testing.use_scripted_cli``, the
    ``claude_cli`` fixture, or ``CLAUDE_SYNC_TESTING=block``) and a run was given neither a
    transport nor a script: it was refused before any CLI started. An ``AssertionError``, as
    a mock library's "request not mocked" is: the test, not the code under test, is wrong."""


MAX_REASON_CHARS = 2000
"""Characters of a callback failure's text sent to the CLI (``callback_failure_reason``)."""


def callback_failure_reason(error: BaseException) -> str:
    """A one-line, bounded description of a callback's exception, for the wire.

    ``"ValueError: boom"``; cut to ``MAX_REASON_CHARS``. Used as the ``reason`` of
    ``fail_closed_permission_wire``, as the text of a hook's error response and of any
    refused CLI request. Secrets in it are redacted (``redactor.redact_text``: failure text,
    where no value can be known).
    """
    text = redact_text(str(error).strip())
    reason = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if len(reason) > MAX_REASON_CHARS:
        reason = reason[: MAX_REASON_CHARS - 1] + "…"
    return reason
