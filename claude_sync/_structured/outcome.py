"""What a run's ``output_format`` produced: the instance, or a ``StructuredOutputError``
that keeps everything (pure).

How the real CLIs (2.1.197, 2.1.331) report structured output:

* the model calls the ``StructuredOutput`` tool; a value that fits the schema ends the turn
  at once, and the result carries it as ``structured_output``;
* a value that does not fit gets an error ``tool_result``
  (``Output does not match required schema: /lines/0/price: must be string``) and the model
  tries again, up to ``MAX_STRUCTURED_OUTPUT_RETRIES`` calls (5) in all; then the result is
  ``error_max_structured_output_retries`` without the value — so the raw value and the path
  come from the last call and its ``tool_result`` in the turn's messages (``AttemptLog``);
* a model that never calls the tool gets one reminder, then the run ends ``success``
  without ``structured_output``;
* a schema the CLI cannot compile (Ajv, draft-07, strict: an unknown keyword; on 2.1.197
  any ``format``) makes it drop the tool without a word: ``system/init`` then does not list
  ``StructuredOutput`` (``AttemptLog.offered`` is False), and the run ends as above.

``with_parsed_output`` runs on the consumer's thread as each result is yielded and raises no
``Exception``; ``AttemptLog`` and ``output_outcome`` run on the caller's thread. Whatever the
user's class raises while decoding is a ``StructuredOutputError`` (``decode``).
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

from .._wire.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from .._wire.errors import StructuredOutputError, as_text
from .._wire.messages import AssistantMessage, ResultMessage, UserMessage
from .._wire.protocol import STRUCTURED_OUTPUT_RETRIES_SUBTYPE
from .._wire.record import construct
from .._wire.system_messages import SystemMessage
from .class_schema import json_schema_of
from .decode import OutputMismatch, decode_output, json_path

__all__ = [
    "STRUCTURED_OUTPUT_TOOL",
    "AttemptLog",
    "cli_problem",
    "is_output_class",
    "output_outcome",
    "parse_output",
    "with_parsed_output",
]

STRUCTURED_OUTPUT_TOOL = "StructuredOutput"
"""The name of the tool the CLI adds for ``--json-schema`` / ``initialize.jsonSchema``."""

_NOTHING = object()
_CLI_PROBLEM = re.compile(
    r"^Output does not match required schema: (?P<pointer>/[^:]*|root): "
    r"(?P<problem>.*?)(?=, (?:/[^:,]*|root): |$)",
    re.S,
)
"""The CLI's first complaint: ``<JSON pointer or "root">: <Ajv message>``, complaints joined by
``", "`` (a message may hold commas itself: 2.1.331 lists the allowed values)."""


def is_output_class(output_format: Any) -> bool:
    """Whether ``output_format`` is a class (to decode into) rather than a schema dict."""
    return isinstance(output_format, type)


def type_name(cls: Any) -> str:
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', repr(cls))}"


def parse_output(cls: Any, value: Any) -> Any:
    """``value`` (a JSON value, e.g. a ``ResultMessage.structured_output``) as an instance of
    the output class ``cls`` — what ``output_format=cls`` does with the run's value.

    Raises:
        StructuredOutputError: the value does not fit (``error_path``, ``problem``,
            ``raw_output`` = ``value``).
        TypeError: ``cls`` is not a dataclass/TypedDict/pydantic v2 model or has no JSON form.
    """
    try:
        return decode_output(cls, value)
    except OutputMismatch as exc:
        raise _mismatch_error(cls, value, exc, None) from None


def with_parsed_output(cls: Any, result: ResultMessage) -> ResultMessage:
    """``result`` with ``parsed_output`` set when its ``structured_output`` fits ``cls``;
    ``result`` itself otherwise (the consumer's thread, as each result is yielded). Raises no
    ``Exception``: whatever goes wrong is found again, and reported, by ``output_outcome``.
    What is not an ``Exception`` (a Ctrl-C while the class decodes) passes through: the
    caller puts the result back for the next read."""
    if result.is_error or result.structured_output is None:
        return result
    try:
        parsed = decode_output(cls, result.structured_output)
    except Exception:  # noqa: BLE001 - reported by output_outcome on the caller's thread
        return result
    return construct(ResultMessage, dict(vars(result), parsed_output=parsed))


class AttemptLog:
    """The top-level ``StructuredOutput`` calls of a turn, as its messages go by: the input of
    the last one and the error its ``tool_result`` gave (caller's thread)."""

    __slots__ = ("last_input", "last_id", "last_error", "offered")

    def __init__(self) -> None:
        self.last_input: Any = _NOTHING
        self.last_id: Optional[str] = None
        self.last_error: Optional[str] = None
        self.offered: Optional[bool] = None
        """Whether ``system/init`` listed the ``StructuredOutput`` tool (None: not seen)."""

    @classmethod
    def of(cls, messages: List[Any]) -> AttemptLog:
        log = cls()
        for message in messages:
            log.observe(message)
        return log

    def observe(self, message: Any) -> None:
        if isinstance(message, SystemMessage) and message.subtype == "init":
            tools = message.data.get("tools")  # init is a plain SystemMessage, as officially
            if isinstance(tools, list):
                self.offered = STRUCTURED_OUTPUT_TOOL in tools
        elif message.__class__ is AssistantMessage:
            if message.parent_tool_use_id is None:
                for block in message.content:
                    if isinstance(block, ToolUseBlock) and block.name == STRUCTURED_OUTPUT_TOOL:
                        self.last_input, self.last_id, self.last_error = block.input, block.id, None
        elif message.__class__ is UserMessage and self.last_id is not None:
            if isinstance(message.content, list):
                for block in message.content:
                    if isinstance(block, ToolResultBlock) and block.tool_use_id == self.last_id and block.is_error:
                        self.last_error = _result_text(block.content)

    @property
    def raw(self) -> Any:
        """The last value the model offered (None when it made no call)."""
        return None if self.last_input is _NOTHING else self.last_input


def output_outcome(
    output_format: Any,
    result: ResultMessage,
    attempts: AttemptLog,
    *,
    exit_code: Optional[int] = None,
    stderr: Optional[str] = None,
) -> Tuple[Any, Optional[StructuredOutputError]]:
    """``(output, error)`` of a run's result: for a class, ``(instance, None)`` or
    ``(None, StructuredOutputError)``; for a schema dict, ``(structured_output, None)`` (None
    when the model never called the tool: the official behaviour, kept) or
    ``(None, StructuredOutputError)`` when the CLI gave up or could not use the schema at
    all; without ``output_format``, ``(None, None)``.

    Error results other than ``error_max_structured_output_retries`` give ``(None, None)``:
    they are ``ResultError``s, whatever the output format. ``exit_code``/``stderr``: the CLI's,
    for the error of an error result. A result that stopped before a deferred call (it waits
    for a person: ``deferred_tool_use``) gives ``(None, None)``: no value yet, and no error.
    Raises ``TypeError`` only for a class that is not an output class (options validation
    refuses those earlier).
    """
    if output_format is None or result.deferred_tool_use is not None:
        return None, None
    if result.subtype == STRUCTURED_OUTPUT_RETRIES_SUBTYPE:
        return None, _retries_error(output_format, result, attempts, exit_code, stderr)
    if result.is_error:
        return None, None
    if result.structured_output is None and attempts.offered is False:
        return None, _refused_schema_error(output_format, result)
    if not is_output_class(output_format):
        return result.structured_output, None  # a schema dict: the value as it came, if any
    if result.structured_output is None:
        return None, _never_called_error(output_format, result)
    if result.parsed_output is not None:
        return result.parsed_output, None
    try:
        return decode_output(output_format, result.structured_output), None
    except OutputMismatch as exc:
        return None, _mismatch_error(output_format, result.structured_output, exc, result)


def _schema_of(output_format: Any) -> Optional[Any]:
    if is_output_class(output_format):
        return json_schema_of(output_format)
    schema = output_format.get("schema") if isinstance(output_format, dict) else None
    return schema


def _type_of(output_format: Any) -> Optional[str]:
    return type_name(output_format) if is_output_class(output_format) else None


def _mismatch_error(
    cls: Any, value: Any, mismatch: OutputMismatch, result: Optional[ResultMessage]
) -> StructuredOutputError:
    path = json_path(mismatch.path)
    return StructuredOutputError(
        f"The structured output does not fit {cls.__qualname__} at {path}: {mismatch.problem}",
        data=dict(result.raw) if result is not None else None,
        raw_output=value,
        schema=json_schema_of(cls),
        error_path=path,
        problem=mismatch.problem,
        output_type=type_name(cls),
    )


def _retries_error(
    output_format: Any,
    result: ResultMessage,
    attempts: AttemptLog,
    exit_code: Optional[int],
    stderr: Optional[str],
) -> StructuredOutputError:
    path, problem = cli_problem(attempts.last_error)
    if problem is None:
        problem = "; ".join(_texts(result.errors)) or "no valid structured output"
    where = f" (last attempt: {path}: {problem})" if path else f" (last attempt: {problem})"
    return StructuredOutputError(
        "The model did not produce structured output that fits the schema before the CLI "
        f"stopped retrying [{result.subtype}]{where}",
        data=dict(result.raw),
        exit_code=exit_code,
        stderr=stderr,
        raw_output=attempts.raw,
        schema=_schema_of(output_format),
        error_path=path,
        problem=problem,
        output_type=_type_of(output_format),
    )


def _never_called_error(output_format: Any, result: ResultMessage) -> StructuredOutputError:
    problem = "the model never called the StructuredOutput tool"
    return StructuredOutputError(
        f"The run ended without structured output: {problem} (its text answer: {_short(result.result)})",
        data=dict(result.raw),
        raw_output=None,
        schema=_schema_of(output_format),
        problem=problem,
        output_type=_type_of(output_format),
    )


def _refused_schema_error(output_format: Any, result: ResultMessage) -> StructuredOutputError:
    problem = (
        "the CLI did not offer the StructuredOutput tool: it could not compile the schema (its "
        "Ajv refuses unknown keywords, and CLI 2.1.197 every \"format\")"
    )
    return StructuredOutputError(
        f"The run ended without structured output: {problem}",
        data=dict(result.raw),
        raw_output=None,
        schema=_schema_of(output_format),
        problem=problem,
        output_type=_type_of(output_format),
    )


def cli_problem(text: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """``("$.lines[0].price", "must be string")`` from the CLI's first schema complaint
    (``Output does not match required schema: /lines/0/price: must be string, …``)."""
    if not text:
        return None, None
    match = _CLI_PROBLEM.match(text)
    if match is None:
        return None, text
    pointer = match.group("pointer")
    return pointer_to_path(pointer if pointer and pointer != "root" else ""), match.group("problem").strip()


def pointer_to_path(pointer: str) -> str:
    """A JSON pointer (``/lines/0/price``) as a JSON path (``$.lines[0].price``)."""
    path = "$"
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        path += f"[{part}]" if part.isdigit() else f".{part}"
    return path


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            item.get("text", "") if isinstance(item, dict) else getattr(item, "text", "")
            for item in content
            if isinstance(item, (dict, TextBlock))
        )
    return as_text(content)


def _texts(errors: Any) -> List[str]:
    return [str(item) for item in errors] if isinstance(errors, list) else []


def _short(text: Optional[str]) -> str:
    if not text:
        return "(none)"
    return repr(text if len(text) <= 200 else text[:197] + "...")
