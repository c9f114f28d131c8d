"""In-process MCP tool definitions: ``@tool``, ``SdkMcpTool``, ``ToolContext`` (pure).

``@tool`` turns a plain function into an ``SdkMcpTool`` whose ``inputSchema`` listing is
worked out once, when the tool is made; ``normalize_tool_result`` turns what a handler
returned into an MCP ``CallToolResult`` (any mistake becomes ``isError`` text the model can
read; ``server.run_tool_call`` runs one call's handler and hands its return value here).
The JSON-RPC side (servers, dispatch) is in ``server``.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple, Union

from .._wire.record import FrozenRecord, frozen_record
from .annotations import ANNOTATION_ALIASES, ToolAnnotations

if TYPE_CHECKING:  # pragma: no cover
    from .._callbacks.permission_types import CancellationSignal

RpcId = Union[int, str]

_MAX_RESULT_SIZE_META = "anthropic/maxResultSizeChars"
SEARCH_HINT_META = "anthropic/searchHint"
ALWAYS_LOAD_META = "anthropic/alwaysLoad"
__all__ = [
    "RpcId",
    "SdkMcpTool",
    "ToolAnnotations",
    "ToolContext",
    "normalize_tool_result",
    "tool",
]


@frozen_record
class ToolContext(FrozenRecord):
    """What a two-parameter handler ``handler(args, context)`` gets besides its arguments.

    ``signal`` is set once the CLI cancels the call (``notifications/cancelled``, sent on
    interrupt) or the session closes; long handlers should poll ``signal.is_set()``.
    ``request_id`` is the JSON-RPC id of the ``tools/call`` request.

    Attributes:
        signal: Set once the CLI cancels the call or the session closes.
        tool_use_id: The id of the model's tool call, when the CLI sends it.
        meta: The ``_meta`` of the ``tools/call`` request.
        server_name: The server the call is addressed to.
        request_id: The JSON-RPC id of the ``tools/call`` request.
        tool_name: The tool called.
    """

    signal: Optional[CancellationSignal]
    tool_use_id: Optional[str]
    meta: Dict[str, Any]
    server_name: str
    request_id: RpcId
    tool_name: str = ""


@dataclass(frozen=True, eq=False)
class SdkMcpTool:
    """One tool: the ``@tool`` decorator's product.

    ``json_schema`` (the ``inputSchema`` sent to the CLI) and ``takes_context`` (whether the
    handler takes ``(args, context)``) are worked out once, when the tool is made.

    Raises (on construction):
        TypeError: the input schema has no JSON form, the handler is ``async`` or takes no
            positional parameter, the annotations are neither a dict nor a model,
            ``search_hint`` is not a str or ``always_load`` not a bool.
        ValueError: the name is empty or the schema does not describe an object.

    Attributes:
        name: The tool's name (the model sees ``mcp__<server>__<name>``).
        description: What the tool does, for the model.
        input_schema: The input schema as given: a JSON Schema dict, a ``{name: type}`` shorthand, a
            ``TypedDict`` or a dataclass.
        handler: The function that runs the tool: ``handler(args)`` or ``handler(args, context)``.
        annotations: Hints for the CLI (``ToolAnnotations`` or a dict), or None.
        search_hint: Words that help the CLI's tool search find this tool when its tools are
            deferred (``_meta["anthropic/searchHint"]``), or None.
        always_load: Always put this tool in the prompt, never deferred behind tool search
            (``_meta["anthropic/alwaysLoad"]``).
        json_schema: The JSON Schema sent to the CLI as ``inputSchema``, worked out when the tool is
            made.
        takes_context: Whether the handler takes ``(args, context)``.
    """

    name: str
    description: str
    input_schema: Any
    handler: Callable[..., Any]
    annotations: Any = None
    search_hint: Optional[str] = None
    always_load: bool = False
    json_schema: Dict[str, Any] = field(init=False, repr=False)
    takes_context: bool = field(init=False, repr=False)
    _listing: Dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a tool name must be a non-empty string, not {self.name!r}")
        if self.search_hint is not None and not isinstance(self.search_hint, str):
            raise TypeError(f"tool {self.name!r}: search_hint must be a str, not {self.search_hint!r}")
        if not isinstance(self.always_load, bool):
            raise TypeError(f"tool {self.name!r}: always_load must be a bool, not {self.always_load!r}")
        schema = _tool_input_schema(self.name, self.input_schema)
        object.__setattr__(self, "json_schema", schema)
        object.__setattr__(self, "takes_context", _takes_context(self.name, self.handler))
        listing = _listing(self.name, self.description, schema, self.annotations)
        meta: Dict[str, Any] = {SEARCH_HINT_META: self.search_hint} if self.search_hint else {}
        if self.always_load:
            meta[ALWAYS_LOAD_META] = True
        if meta:
            listing["_meta"] = {**listing.get("_meta", {}), **meta}
        object.__setattr__(self, "_listing", listing)

    def to_wire(self) -> Dict[str, Any]:
        """This tool's entry in a ``tools/list`` result (a fresh dict)."""
        return dict(self._listing)


def tool(
    name: str,
    description: str,
    input_schema: Any,
    annotations: Any = None,
    *,
    search_hint: Optional[str] = None,
    always_load: bool = False,
) -> Callable[[Callable[..., Any]], SdkMcpTool]:
    """Decorator: turn a plain function into an ``SdkMcpTool``.

    ``input_schema`` is a JSON Schema dict, a ``{name: type}`` dict (every key required), a
    TypedDict or a dataclass. The handler is a plain (sync) function taking ``args`` or
    ``(args, context)`` and returning ``{"content": [...]}`` (optionally ``isError``,
    ``structuredContent``, ``_meta``) or a str. ``annotations`` is a ``ToolAnnotations``, a
    dict of MCP tool hints (``readOnlyHint``…, snake_case accepted) or an ``mcp.types``
    ``ToolAnnotations``; they are sent in ``tools/list``, and ``maxResultSizeChars`` among
    them is forwarded to the CLI as ``_meta["anthropic/maxResultSizeChars"]``.
    ``search_hint`` (words for the CLI's tool search) and ``always_load`` (never deferred
    behind tool search) go to the CLI as ``_meta["anthropic/searchHint"]`` and
    ``_meta["anthropic/alwaysLoad"]``, as the TS SDK's ``tool(…, {searchHint, alwaysLoad})``.

    Raises (when applied): see ``SdkMcpTool``.
    """

    def decorate(handler: Callable[..., Any]) -> SdkMcpTool:
        return SdkMcpTool(
            name, description, input_schema, handler, annotations,
            search_hint=search_hint, always_load=always_load,
        )  # fmt: skip

    return decorate


def _tool_input_schema(name: str, spec: Any) -> Dict[str, Any]:
    """The tool's input JSON Schema; a hand-written one missing ``type`` gets ``"object"``.

    Raises:
        TypeError: the spec has no JSON form.
        ValueError: the schema describes something other than an object (the CLI drops
            such tools).
    """
    from .schema import to_json_schema

    schema = to_json_schema(spec)
    if "type" not in schema:  # the CLI lists only tools whose inputSchema says "object"
        schema = {"type": "object", **schema}
    if schema.get("type", "object") != "object":
        raise ValueError(f"tool {name!r}: input_schema must describe an object, got {schema!r}")
    return schema


def _takes_context(name: str, handler: Callable[..., Any]) -> bool:
    """Whether ``handler`` wants ``(args, context)`` rather than ``(args)``.

    Raises:
        TypeError: ``handler`` is not callable, is a coroutine function (tools are plain
            functions here), or takes no positional argument.
    """
    if not callable(handler):
        raise TypeError(f"tool {name!r}: the handler must be callable, not {handler!r}")
    if inspect.iscoroutinefunction(handler) or inspect.isasyncgenfunction(handler):
        raise TypeError(
            f"tool {name!r}: claude_sync tool handlers are plain functions; drop `async` "
            "(the handler runs on a worker thread)"
        )
    try:
        parameters = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return False  # no introspectable signature (some builtins): the one-argument form
    kinds = [p.kind for p in parameters]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return True
    positional = [
        p
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if not positional:
        raise TypeError(f"tool {name!r}: the handler must take `args` or `(args, context)`")
    return len(positional) >= 2


def _listing(
    name: str, description: str, schema: Dict[str, Any], annotations: Any
) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"name": name, "description": description, "inputSchema": schema}
    hints = _annotation_dict(name, annotations)
    max_size = hints.pop("maxResultSizeChars", None)
    if hints:
        entry["annotations"] = hints
    if max_size is not None:
        entry["_meta"] = {_MAX_RESULT_SIZE_META: max_size}
    return entry


def _annotation_dict(name: str, annotations: Any) -> Dict[str, Any]:
    """Annotations as camelCase wire keys, unset (None) hints left out.

    Raises:
        TypeError: not a mapping and not a model with ``model_dump``.
    """
    if annotations is None:
        return {}
    if isinstance(annotations, Mapping):
        raw = dict(annotations)
    elif callable(getattr(annotations, "model_dump", None)):  # ours, or mcp.types' model
        raw = annotations.model_dump(by_alias=True, exclude_none=True)
    else:
        raise TypeError(
            f"tool {name!r}: annotations must be a dict or ToolAnnotations, "
            f"not {type(annotations).__name__}"
        )
    return {ANNOTATION_ALIASES.get(k, k): v for k, v in raw.items() if v is not None}


def error_result(text: str) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def normalize_tool_result(tool_name: str, returned: Any) -> Dict[str, Any]:
    """A handler's return value as an MCP ``CallToolResult``; any mistake → ``isError``.

    A str becomes one text block. A dict may hold ``content`` (list of blocks), ``isError``
    (or ``is_error``), ``structuredContent`` (an object; without ``content`` its JSON text
    becomes the content) and ``_meta``; other keys are dropped. Never raises.
    """
    if isinstance(returned, str):
        return {"content": [{"type": "text", "text": returned}]}
    if not isinstance(returned, Mapping):
        _close_if_coroutine(returned)
        return error_result(
            f"Tool '{tool_name}' returned {type(returned).__name__}; a tool handler must return "
            "a str or a dict such as {'content': [{'type': 'text', 'text': '...'}]}."
        )
    try:
        return _build_result(returned)
    except _BadResult as exc:
        return error_result(f"Tool '{tool_name}' returned an invalid result: {exc}")


class _BadResult(Exception):
    pass


def _build_result(returned: Mapping[str, Any]) -> Dict[str, Any]:
    """Raises _BadResult naming the first field that is wrong."""
    content = returned.get("content")
    structured = returned.get("structuredContent")
    if structured is not None:
        if not isinstance(structured, dict):
            raise _BadResult("'structuredContent' must be a dict")
        _require_json(structured, "structuredContent")
    if content is None:
        if structured is None:
            raise _BadResult("it has no 'content' (a list of content blocks)")

        content = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False)}]
    elif not isinstance(content, (list, tuple)):
        raise _BadResult(f"'content' must be a list of blocks, not {type(content).__name__}")
    result: Dict[str, Any] = {"content": [_content_block(i, b) for i, b in enumerate(content)]}
    is_error = returned.get("isError", returned.get("is_error", False))
    if not isinstance(is_error, bool):
        raise _BadResult(f"'isError' must be a bool, not {type(is_error).__name__}")
    if is_error:
        result["isError"] = True
    if structured is not None:
        result["structuredContent"] = structured
    meta = returned.get("_meta")
    if meta is not None:
        if not isinstance(meta, dict):
            raise _BadResult("'_meta' must be a dict")
        _require_json(meta, "_meta")
        result["_meta"] = meta
    return result


_BLOCK_FIELDS: Dict[str, Tuple[str, ...]] = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource_link": ("uri", "name"),
    "resource": (),
}


def _content_block(index: int, block: Any) -> Dict[str, Any]:
    """One content block, checked; ``bytes`` image/audio data is base64-encoded.

    Raises _BadResult.
    """
    where = f"content[{index}]"
    if not isinstance(block, dict):
        raise _BadResult(f"{where} must be a dict, not {type(block).__name__}")
    checked: Dict[str, Any] = block
    kind = checked.get("type")
    required = _BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
    if required is None:
        known = ", ".join(_BLOCK_FIELDS)
        raise _BadResult(f"{where} has type {kind!r}; expected one of {known}")
    if kind in ("image", "audio") and isinstance(checked.get("data"), (bytes, bytearray)):
        import base64

        checked = {**checked, "data": base64.b64encode(checked["data"]).decode("ascii")}
    for name in required:
        if not isinstance(checked.get(name), str):
            raise _BadResult(f"{where}: a {kind} block needs a string {name!r}")
    if kind == "resource":
        _check_embedded_resource(where, checked.get("resource"))
    return checked


def _check_embedded_resource(where: str, resource: Any) -> None:
    """Raises _BadResult unless ``resource`` is ``{"uri", "text"}`` or ``{"uri", "blob"}``."""
    if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
        raise _BadResult(
            f"{where}: a resource block needs 'resource': {{'uri': str, 'text' or 'blob': str}}"
        )
    if not (isinstance(resource.get("text"), str) or isinstance(resource.get("blob"), str)):
        raise _BadResult(f"{where}: an embedded resource needs a string 'text' or a base64 'blob'")


def _require_json(value: Any, path: str) -> None:
    """Raises _BadResult at the first value ``json.dumps`` could not write."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _BadResult(f"{path}: key {key!r} is not a string")
            _require_json(item, f"{path}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _require_json(item, f"{path}[{index}]")
        return
    raise _BadResult(f"{path}: {type(value).__name__} is not JSON")


def _close_if_coroutine(value: Any) -> None:
    """Close a coroutine a handler returned, so Python does not warn it was never awaited."""
    if hasattr(value, "__await__") and callable(getattr(value, "close", None)):
        value.close()
