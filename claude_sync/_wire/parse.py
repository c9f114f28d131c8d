"""Wire dict → typed message. The per-line hot path of the reader thread.

Rules:

* Dispatch by table: message ``type`` → a small parser; ``system`` ``subtype`` → a small
  parser; content-block ``type`` → a small parser. A type missing from a table is not an
  error: the table's ``__missing__`` picks ``UnknownMessage`` / plain ``SystemMessage`` /
  ``ServerToolResultBlock`` (any ``*_tool_result``) / ``UnknownBlock``. Nothing is dropped.
  The message tables are built from ``messages.MESSAGE_CLASSES`` and
  ``system_messages.SYSTEM_CLASSES``; the block parsers come first below, then the message parsers.
* A *known* type with a broken shape (``assistant`` without ``message``, content that is
  not a list, a block that is not an object, a required key missing …) raises
  ``MessageParseError`` naming the problem, with the whole object as ``.data``.
* Speed: a hit in a table costs no call (``dict`` subscript; ``__missing__`` runs on misses
  only); optional keys are read as ``obj[k] if k in obj else None`` rather than
  ``obj.get(k)`` (one C call each); instances are made with ``construct`` (no frozen
  ``__init__``); error diagnosis happens only after something failed. Parsing a one-block
  assistant line costs about ten Python + C calls; ``tests/wire/test_parse.py`` pins ceilings.
  dataclasses-json is never touched here.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, Callable, Dict, Iterable, Optional, Tuple, Type

from .blocks import (
    BLOCK_CLASSES,
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolResultBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
    block_class,
)
from .errors import MessageParseError
from .messages import (
    MESSAGE_CLASSES,
    AssistantMessage,
    DeferredToolUse,
    Message,
    RateLimitEvent,
    RateLimitInfo,
    ResultMessage,
    StreamEvent,
    UnknownMessage,
    UserMessage,
)
from .record import construct
from .system_messages import (
    SYSTEM_CLASSES,
    HookEventMessage,
    SystemMessage,
    TaskUpdatedMessage,
)

__all__ = ["parse_message"]

# ----------------------------------------------------------------------------- blocks

Parser = Callable[[Dict[str, Any]], Any]


class _DispatchTable(Dict[str, Parser]):
    """A dict of parsers whose misses are answered by ``fallback(key)``.

    A hit is a plain dict subscript (no Python call); ``__missing__`` runs only on a miss.
    """

    __slots__ = ("_fallback",)

    def __init__(self, entries: Dict[str, Parser], fallback: Callable[[Any], Parser]):
        super().__init__(entries)
        self._fallback = fallback

    def __missing__(self, key: Any) -> Parser:
        return self._fallback(key)


def _parse_text(block: Dict[str, Any]) -> TextBlock:
    return construct(TextBlock, {"text": block["text"], "raw": block})


def _parse_thinking(block: Dict[str, Any]) -> ThinkingBlock:
    return construct(
        ThinkingBlock,
        {
            "thinking": block["thinking"],
            "signature": block["signature"] if "signature" in block else "",
            "raw": block,
        },
    )


def _parse_redacted_thinking(block: Dict[str, Any]) -> RedactedThinkingBlock:
    return construct(RedactedThinkingBlock, {"data": block["data"], "raw": block})


def _parse_tool_use(block: Dict[str, Any]) -> ToolUseBlock:
    return construct(
        ToolUseBlock,
        {"id": block["id"], "name": block["name"], "input": block["input"], "raw": block},
    )


def _parse_tool_result(block: Dict[str, Any]) -> ToolResultBlock:
    return construct(
        ToolResultBlock,
        {
            "tool_use_id": block["tool_use_id"],
            "content": block["content"] if "content" in block else None,
            "is_error": block["is_error"] if "is_error" in block else None,
            "raw": block,
        },
    )


def _parse_server_tool_use(block: Dict[str, Any]) -> ServerToolUseBlock:
    return construct(
        ServerToolUseBlock,
        {"id": block["id"], "name": block["name"], "input": block["input"], "raw": block},
    )


def _parse_server_tool_result(block: Dict[str, Any]) -> ServerToolResultBlock:
    return construct(
        ServerToolResultBlock,
        {
            "tool_use_id": block["tool_use_id"],
            "content": block["content"],
            "type": block["type"],
            "raw": block,
        },
    )


def _parse_image(block: Dict[str, Any]) -> ImageBlock:
    return construct(ImageBlock, {"source": block["source"], "raw": block})


def _parse_unknown_block(block: Dict[str, Any]) -> UnknownBlock:
    return construct(UnknownBlock, {"type": block["type"], "raw": block})


_PARSER_BY_BLOCK_CLASS: Dict[Type[Any], Parser] = {
    TextBlock: _parse_text,
    ThinkingBlock: _parse_thinking,
    RedactedThinkingBlock: _parse_redacted_thinking,
    ToolUseBlock: _parse_tool_use,
    ToolResultBlock: _parse_tool_result,
    ServerToolUseBlock: _parse_server_tool_use,
    ServerToolResultBlock: _parse_server_tool_result,
    ImageBlock: _parse_image,
    UnknownBlock: _parse_unknown_block,
}
"""Block class → its parser. Which wire ``type`` is which class is ``blocks.BLOCK_CLASSES`` /
``blocks.block_class``, the one block-type table."""


def _block_parser_for_unlisted(block_type: Any) -> Parser:
    """Raises ``TypeError`` when the block's ``type`` is not a string."""
    if type(block_type) is not str:
        raise TypeError(f"content block 'type' is not a string: {block_type!r}")
    return _PARSER_BY_BLOCK_CLASS[block_class(block_type)]


_BLOCK_PARSERS = _DispatchTable(
    {wire: _PARSER_BY_BLOCK_CLASS[cls] for wire, cls in BLOCK_CLASSES.items()},
    _block_parser_for_unlisted,
)


# ----------------------------------------------------------------------------- messages


def parse_message(obj: Dict[str, Any]) -> Message:
    """Turn one decoded stdout object into its message class.

    Unknown ``type`` → ``UnknownMessage``; unknown ``system`` subtype → ``SystemMessage``;
    unknown block → ``UnknownBlock``. Raises ``MessageParseError`` (``data=obj``) when
    ``obj`` is not a dict, has no string ``type``, or is a known type with a broken shape.
    """
    try:
        return _MESSAGE_PARSERS[obj["type"]](obj)  # type: ignore[no-any-return]
    except (KeyError, TypeError, AttributeError) as exc:
        raise MessageParseError(_explain(obj, exc), obj) from exc


def _shape_error(obj: Dict[str, Any], problem: str) -> MessageParseError:
    return MessageParseError(f"{obj['type']!r} message: {problem}", obj)


def _origin(origin: Any) -> Any:
    """``origin`` when it is an object with a string ``kind`` (as the official SDK keeps it);
    anything else (a string, ``{}``, null) → None. Only called when the key is present."""
    return origin if type(origin) is dict and type(origin.get("kind")) is str else None


# ----------------------------------------------------------------------------- hot message types


def _parse_assistant(obj: Dict[str, Any]) -> AssistantMessage:
    message = obj["message"]
    if type(message) is not dict:
        raise _shape_error(obj, "'message' is not an object")
    content = message["content"]
    if type(content) is not list:
        raise MessageParseError(
            f"Invalid assistant content (expected list, got {type(content).__name__})", obj
        )
    return construct(
        AssistantMessage,
        {
            "content": [_BLOCK_PARSERS[block["type"]](block) for block in content],
            "model": message["model"] if "model" in message else "",
            "parent_tool_use_id": (
                obj["parent_tool_use_id"] if "parent_tool_use_id" in obj else None
            ),
            "error": obj["error"] if "error" in obj else None,
            "usage": message["usage"] if "usage" in message else None,
            "message_id": message["id"] if "id" in message else None,
            "stop_reason": message["stop_reason"] if "stop_reason" in message else None,
            "session_id": obj["session_id"] if "session_id" in obj else None,
            "uuid": obj["uuid"] if "uuid" in obj else None,
            "user_message_uuid": obj["user_message_uuid"] if "user_message_uuid" in obj else None,
            "user_message_uuids": obj["user_message_uuids"] if "user_message_uuids" in obj else None,
            "raw": obj,
        },
    )


def _parse_user(obj: Dict[str, Any]) -> UserMessage:
    message = obj["message"]
    if type(message) is not dict:
        raise _shape_error(obj, "'message' is not an object")
    content = message["content"]
    if type(content) is list:
        content = [_BLOCK_PARSERS[block["type"]](block) for block in content]
    elif type(content) is not str:
        raise _shape_error(obj, "'message.content' is neither a string nor a list")
    return construct(
        UserMessage,
        {
            "content": content,
            "uuid": obj["uuid"] if "uuid" in obj else None,
            "parent_tool_use_id": (
                obj["parent_tool_use_id"] if "parent_tool_use_id" in obj else None
            ),
            "tool_use_result": obj["tool_use_result"] if "tool_use_result" in obj else None,
            "origin": _origin(obj["origin"]) if "origin" in obj else None,
            "is_replay": "isReplay" in obj and obj["isReplay"] is True,
            "is_synthetic": "isSynthetic" in obj and obj["isSynthetic"] is True,
            "session_id": obj["session_id"] if "session_id" in obj else None,
            "raw": obj,
        },
    )


def _parse_result(obj: Dict[str, Any]) -> ResultMessage:
    return construct(
        ResultMessage,
        {
            "subtype": obj["subtype"],
            "duration_ms": obj["duration_ms"] if "duration_ms" in obj else 0,
            "duration_api_ms": obj["duration_api_ms"] if "duration_api_ms" in obj else 0,
            "is_error": obj["is_error"],
            "num_turns": obj["num_turns"] if "num_turns" in obj else 0,
            "session_id": obj["session_id"] if "session_id" in obj else "",
            "stop_reason": obj["stop_reason"] if "stop_reason" in obj else None,
            "total_cost_usd": obj["total_cost_usd"] if "total_cost_usd" in obj else None,
            "usage": obj["usage"] if "usage" in obj else None,
            "result": obj["result"] if "result" in obj else None,
            "structured_output": (obj["structured_output"] if "structured_output" in obj else None),
            "model_usage": obj["modelUsage"] if "modelUsage" in obj else None,
            "permission_denials": (
                obj["permission_denials"] if "permission_denials" in obj else None
            ),
            "deferred_tool_use": (
                _parse_deferred(obj["deferred_tool_use"]) if obj.get("deferred_tool_use") else None
            ),
            "errors": obj["errors"] if "errors" in obj else None,
            "api_error_status": obj["api_error_status"] if "api_error_status" in obj else None,
            "uuid": obj["uuid"] if "uuid" in obj else None,
            "terminal_reason": obj["terminal_reason"] if "terminal_reason" in obj else None,
            "origin": _origin(obj["origin"]) if "origin" in obj else None,
            "user_message_uuid": obj["user_message_uuid"] if "user_message_uuid" in obj else None,
            "user_message_uuids": obj["user_message_uuids"] if "user_message_uuids" in obj else None,
            "code_mode_refusal": obj["code_mode_refusal"] if "code_mode_refusal" in obj else None,
            "parsed_output": None,
            "raw": obj,
        },
    )


def _parse_stream_event(obj: Dict[str, Any]) -> StreamEvent:
    event = obj["event"]
    if type(event) is not dict:
        raise _shape_error(obj, "'event' is not an object")
    return construct(
        StreamEvent,
        {
            "uuid": obj["uuid"] if "uuid" in obj else "",
            "session_id": obj["session_id"] if "session_id" in obj else "",
            "event": event,
            "parent_tool_use_id": (
                obj["parent_tool_use_id"] if "parent_tool_use_id" in obj else None
            ),
            "user_message_uuid": obj["user_message_uuid"] if "user_message_uuid" in obj else None,
            "user_message_uuids": obj["user_message_uuids"] if "user_message_uuids" in obj else None,
            "raw": obj,
        },
    )


def _parse_deferred(value: Any) -> DeferredToolUse:
    if type(value) is not dict:
        raise TypeError(f"'deferred_tool_use' is not an object: {value!r}")
    return construct(DeferredToolUse, {"id": value["id"], "name": value["name"], "input": value["input"]})


# ----------------------------------------------------------------------------- table-read types

_REQUIRED = object()

FieldSpec = Tuple[str, str, Any]


def _field_specs(cls: Type[Any], skip: Iterable[str]) -> Tuple[FieldSpec, ...]:
    """``(attribute, wire key, default)`` for each ``__init__`` field of ``cls`` not skipped.

    The wire key is the field's ``metadata["wire"]`` or its name; a field without a default
    is required (``_REQUIRED``).
    """
    skipped = set(skip)
    return tuple(
        (f.name, f.metadata.get("wire", f.name), _REQUIRED if f.default is MISSING else f.default)
        for f in fields(cls)
        if f.init and f.name not in skipped
    )


def _read_fields(
    specs: Tuple[FieldSpec, ...], source: Dict[str, Any], attrs: Dict[str, Any]
) -> Dict[str, Any]:
    """Fill ``attrs`` from ``source`` by ``specs``.

    Raises ``KeyError`` for a missing required key.
    """
    for name, key, default in specs:
        if key in source:
            attrs[name] = source[key]
        elif default is _REQUIRED:
            raise KeyError(key)
        else:
            attrs[name] = default
    return attrs


def _record_parser(cls: Type[Any]) -> Parser:
    """A parser copying ``cls``'s fields from same-named (or ``wire``-named) top-level keys."""
    specs = _field_specs(cls, skip=("raw",))

    def parse(obj: Dict[str, Any]) -> Any:
        return construct(cls, _read_fields(specs, obj, {"raw": obj}))

    parse.__name__ = parse.__qualname__ = f"_parse_{cls.__name__}"
    return parse


def _system_parser(cls: Type[SystemMessage]) -> Parser:
    """A parser for a typed system subtype: ``subtype``, ``data`` = the dict, typed fields."""
    specs = _field_specs(cls, skip=("subtype", "data"))

    def parse(obj: Dict[str, Any]) -> Any:
        return construct(cls, _read_fields(specs, obj, {"subtype": obj["subtype"], "data": obj}))

    parse.__name__ = parse.__qualname__ = f"_parse_{cls.__name__}"
    return parse


_TASK_UPDATED_SPECS = _field_specs(TaskUpdatedMessage, skip=("subtype", "data", "status"))


def _parse_task_updated(obj: Dict[str, Any]) -> TaskUpdatedMessage:
    """``status`` comes from ``patch.status`` (the wire has no top-level status)."""
    attrs = _read_fields(_TASK_UPDATED_SPECS, obj, {"subtype": obj["subtype"], "data": obj})
    patch = attrs["patch"]
    if type(patch) is not dict:  # missing, a string, null … → {} (as the official SDK)
        patch = attrs["patch"] = {}
    attrs["status"] = patch["status"] if "status" in patch else None
    return construct(TaskUpdatedMessage, attrs)


_HOOK_EVENT_SPECS = _field_specs(HookEventMessage, skip=("subtype", "data", "hook_event_name"))


def _parse_hook_event(obj: Dict[str, Any]) -> HookEventMessage:
    """``hook_event_name`` = the first truthy of ``hook_event``, ``hook_name``,
    ``hook_event_name``, else ``""`` (as the official SDK)."""
    attrs = _read_fields(_HOOK_EVENT_SPECS, obj, {"subtype": obj["subtype"], "data": obj})
    attrs["hook_event_name"] = (
        obj.get("hook_event") or obj.get("hook_name") or obj.get("hook_event_name") or ""
    )
    return construct(HookEventMessage, attrs)


def _parse_plain_system(obj: Dict[str, Any]) -> SystemMessage:
    return construct(SystemMessage, {"subtype": obj["subtype"], "data": obj})


def _system_parser_for_unlisted(subtype: Any) -> Parser:
    """Raises ``TypeError`` when ``subtype`` is not a string."""
    if type(subtype) is not str:
        raise TypeError(f"system 'subtype' is not a string: {subtype!r}")
    return _parse_plain_system


_SYSTEM_PARSERS = _DispatchTable(
    {subtype: _system_parser(cls) for subtype, cls in SYSTEM_CLASSES.items()},
    _system_parser_for_unlisted,
)
_SYSTEM_PARSERS["task_updated"] = _parse_task_updated
_SYSTEM_PARSERS["hook_started"] = _SYSTEM_PARSERS["hook_response"] = _parse_hook_event


def _parse_system(obj: Dict[str, Any]) -> SystemMessage:
    return _SYSTEM_PARSERS[obj["subtype"]](obj)  # type: ignore[no-any-return]


_RATE_LIMIT_INFO_SPECS = _field_specs(RateLimitInfo, skip=("raw",))


def _parse_rate_limit_event(obj: Dict[str, Any]) -> RateLimitEvent:
    info = obj["rate_limit_info"]
    if type(info) is not dict:
        raise _shape_error(obj, "'rate_limit_info' is not an object")
    return construct(
        RateLimitEvent,
        {
            "rate_limit_info": construct(
                RateLimitInfo, _read_fields(_RATE_LIMIT_INFO_SPECS, info, {"raw": info})
            ),
            "uuid": obj["uuid"] if "uuid" in obj else "",
            "session_id": obj["session_id"] if "session_id" in obj else "",
            "raw": obj,
        },
    )


def _parse_unknown_message(obj: Dict[str, Any]) -> UnknownMessage:
    return construct(UnknownMessage, {"type": obj["type"], "raw": obj})


def _message_parser_for_unlisted(kind: Any) -> Parser:
    """Raises ``TypeError`` when the message ``type`` is not a string."""
    if type(kind) is not str:
        raise TypeError(f"message 'type' is not a string: {kind!r}")
    return _parse_unknown_message


_PARSER_BY_MESSAGE_CLASS: Dict[Type[Any], Parser] = {
    AssistantMessage: _parse_assistant,
    UserMessage: _parse_user,
    ResultMessage: _parse_result,
    StreamEvent: _parse_stream_event,
    SystemMessage: _parse_system,
    RateLimitEvent: _parse_rate_limit_event,
}
"""Message classes with a hand-written parser; every other class in ``MESSAGE_CLASSES`` (the
one message-type table) is read field by field (``_record_parser``)."""

_MESSAGE_PARSERS = _DispatchTable(
    {
        kind: _PARSER_BY_MESSAGE_CLASS.get(cls) or _record_parser(cls)
        for kind, cls in MESSAGE_CLASSES.items()
    },
    _message_parser_for_unlisted,
)


# ------------------------------------------------------------------ diagnosis (slow path only)


def _explain(obj: Any, exc: BaseException) -> str:
    """A one-line description of why ``obj`` could not be parsed (after ``exc`` was raised).

    Worded as the official SDK words the same case (``Invalid message data type …``,
    ``Message missing 'type' field``, ``Missing required field in <type> message: '<key>'``,
    ``Invalid content block …``), with where in the message it was when that helps.
    """
    if type(obj) is not dict:
        return f"Invalid message data type (expected dict, got {type(obj).__name__})"
    if "type" not in obj or obj["type"] == "":
        return "Message missing 'type' field"
    kind = obj["type"]
    if type(kind) is not str:
        return f"message 'type' is not a string: {kind!r}"
    problem = _content_block_problem(obj)
    if problem is not None:
        return problem
    if isinstance(exc, KeyError):
        return f"Missing required field in {kind} message: {exc.args[0]!r}"
    return f"{kind!r} message: {str(exc) or type(exc).__name__}"


def _content_block_problem(obj: Dict[str, Any]) -> Optional[str]:
    """What is wrong with the first bad block of ``obj["message"]["content"]``, if any."""
    message = obj.get("message")
    content = message.get("content") if type(message) is dict else None
    if type(content) is not list:
        return None
    kind = obj["type"]
    for index, block in enumerate(content):
        where = f"content block #{index}"
        if type(block) is not dict:
            return (
                f"Invalid content block (expected dict, got {type(block).__name__}): "
                f"{where} of the {kind!r} message"
            )
        if "type" not in block:
            return f"Missing required field in {kind} message: 'type' ({where})"
        try:
            _BLOCK_PARSERS[block["type"]](block)
        except KeyError as exc:
            return (
                f"Missing required field in {kind} message: {exc.args[0]!r} "
                f"({where}, {block['type']!r})"
            )
        except (TypeError, AttributeError) as exc:
            return f"{kind!r} message: {where}: {exc}"
    return None
