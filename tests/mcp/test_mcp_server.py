"""In-process MCP tool servers: decorator, JSON-RPC dispatch, tool runs (claude_sync._mcp.server)."""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import os
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional

import pytest
from typing_extensions import TypedDict

from claude_sync._mcp.server import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_PROTOCOL_VERSION,
    METHOD_NOT_FOUND,
    McpCancelled,
    McpReply,
    McpToolCall,
    SdkMcpServer,
    SdkMcpServers,
    create_sdk_mcp_server,
    mcp_control_response,
    run_tool_call,
)
from claude_sync._mcp.tools import SdkMcpTool, ToolContext, normalize_tool_result, tool

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Flag:
    """A stand-in for the shell's cancellation token."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self._set


@tool("add", "Add two numbers", {"a": float, "b": float})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


class Where(TypedDict):
    city: str


@tool("weather", "Weather for a city", Where, annotations={"readOnlyHint": True})
def weather(args: Dict[str, Any], context: ToolContext) -> str:
    return f"sunny in {args['city']} (call {context.request_id})"


def calc() -> SdkMcpServer:
    return SdkMcpServer("calc", version="2.1.0", tools=[add, weather])


def request(
    method: str, rpc_id: Any = 1, params: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def reply_of(action: Any) -> Optional[Dict[str, Any]]:
    assert isinstance(action, McpReply), action
    return action.response


def call_tool(
    server: SdkMcpServer,
    name: str,
    arguments: Any,
    rpc_id: Any = 7,
    signal: Any = None,
    meta: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    action = server.handle(request("tools/call", rpc_id, params))
    assert isinstance(action, McpToolCall), action
    return server.run_tool_call(action, signal)


def one_tool_server(handler: Any, schema: Any = None) -> SdkMcpServer:
    return SdkMcpServer(
        "t", tools=[tool("t", "test tool", schema if schema is not None else {})(handler)]
    )


def error_text(response: Dict[str, Any]) -> str:
    result = response["result"]
    assert result["isError"] is True, result
    (block,) = result["content"]
    assert block["type"] == "text"
    return str(block["text"])


# ----------------------------------------------------------------------------- the decorator


def test_tool_builds_an_sdk_mcp_tool() -> None:
    assert isinstance(add, SdkMcpTool)
    assert add.name == "add" and add.description == "Add two numbers"
    assert add.input_schema == {"a": float, "b": float}  # as given
    assert add.json_schema == {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    }
    assert add.annotations is None
    assert add.takes_context is False
    assert weather.takes_context is True
    assert add.handler({"a": 1, "b": 2}) == {"content": [{"type": "text", "text": "3"}]}


def test_direct_construction_also_computes_schema_and_arity() -> None:
    made = SdkMcpTool("echo", "Echo", {"text": str}, lambda args, ctx: args["text"])
    assert made.json_schema["required"] == ["text"]
    assert made.takes_context is True


class CallableWithContext:
    def __call__(self, args: Dict[str, Any], context: ToolContext) -> str:
        return "ok"


class Holder:
    def method(self, args: Dict[str, Any]) -> str:
        return "ok"


def _two(args: Dict[str, Any], context: Any, extra: int) -> str:
    return "ok"


ARITY_CASES = [
    ("one positional", lambda args: "ok", False),
    ("args and context", lambda args, context: "ok", True),
    ("context with default", lambda args, context=None: "ok", True),
    ("var positional", lambda *a: "ok", True),
    ("keyword only extras", lambda args, *, flag=False: "ok", False),
    ("callable object", CallableWithContext(), True),
    ("bound method", Holder().method, False),
    ("partial leaves two", functools.partial(_two, extra=1), True),
    ("partial leaves one", functools.partial(_two, {}, extra=1), False),
    ("no signature builtin", str, False),
]


@pytest.mark.parametrize(
    ("label", "handler", "expected"), ARITY_CASES, ids=[c[0] for c in ARITY_CASES]
)
def test_context_arity_is_decided_at_decoration(label: str, handler: Any, expected: bool) -> None:
    assert tool("t", "d", {})(handler).takes_context is expected


async def _async_handler(args: Dict[str, Any]) -> Dict[str, Any]:
    return {}


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (_async_handler, "drop `async`"),
        (lambda: "x", "must take `args` or `\\(args, context\\)`"),
        (lambda *, args: "x", "must take `args`"),
        ("not callable", "must be callable"),
    ],
)
def test_bad_handlers_are_refused_at_decoration(handler: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        tool("t", "d", {})(handler)


def test_bad_names_and_schemas_are_refused_at_decoration() -> None:
    with pytest.raises(ValueError, match="non-empty string"):
        tool("", "d", {})(lambda a: "x")
    with pytest.raises(ValueError, match="must describe an object"):
        tool("t", "d", {"type": "string"})(lambda a: "x")
    with pytest.raises(TypeError, match="input_schema.when"):
        tool("t", "d", {"when": bytes})(lambda a: "x")
    with pytest.raises(TypeError, match="annotations must be a dict"):
        tool("t", "d", {}, annotations=["readOnly"])(lambda a: "x")


def test_json_schema_without_type_gets_object() -> None:
    made = tool("t", "d", {"properties": {"q": {"type": "string"}}})(lambda a: "x")
    assert made.json_schema == {"type": "object", "properties": {"q": {"type": "string"}}}


@dataclasses.dataclass
class Resize:
    width: int
    height: int = 10


def test_dataclass_input_schema() -> None:
    made = tool("resize", "Resize", Resize)(
        lambda args: f"{args['width']}x{args.get('height', 10)}"
    )
    server = SdkMcpServer("img", tools=[made])
    assert call_tool(server, "resize", {"width": 3})["result"] == {
        "content": [{"type": "text", "text": "3x10"}]
    }
    assert error_text(call_tool(server, "resize", {"height": 3})) == (
        "Invalid arguments for tool 'resize': missing required property \"width\""
    )


class Annotations:
    """Looks like mcp.types.ToolAnnotations (a pydantic model)."""

    def model_dump(self, by_alias: bool = False, exclude_none: bool = False) -> Dict[str, Any]:
        assert by_alias and exclude_none
        return {"title": "Nice", "destructiveHint": False}


@pytest.mark.parametrize(
    ("annotations", "expected_annotations", "expected_meta"),
    [
        (None, None, None),
        ({}, None, None),
        ({"readOnlyHint": True, "title": None}, {"readOnlyHint": True}, None),
        (
            {"read_only_hint": True, "open_world_hint": False},
            {"readOnlyHint": True, "openWorldHint": False},
            None,
        ),
        (
            {"readOnlyHint": True, "maxResultSizeChars": 500000},
            {"readOnlyHint": True},
            {"anthropic/maxResultSizeChars": 500000},
        ),
        ({"max_result_size_chars": 10}, None, {"anthropic/maxResultSizeChars": 10}),
        (Annotations(), {"title": "Nice", "destructiveHint": False}, None),
    ],
)
def test_annotations_in_tools_list(
    annotations: Any, expected_annotations: Any, expected_meta: Any
) -> None:
    made = (
        tool("t", "d", {})(lambda a: "x")
        if annotations is None
        else tool("t", "d", {}, annotations)(lambda a: "x")
    )
    entry = made.to_wire()
    assert entry.get("annotations") == expected_annotations
    assert entry.get("_meta") == expected_meta
    assert made.annotations is annotations  # kept as given


# ----------------------------------------------------------------------------- servers


def test_create_sdk_mcp_server_returns_the_official_config_dict() -> None:
    config = create_sdk_mcp_server("calc", version="2.1.0", tools=[add, weather])
    assert type(config) is dict and sorted(config) == ["instance", "name", "type"]
    assert (config["type"], config["name"]) == ("sdk", "calc")
    assert isinstance(config["instance"], SdkMcpServer)
    assert config["instance"].tools == (add, weather)


def test_sdk_mcp_server_attributes() -> None:
    server = calc()
    assert server.type == "sdk"
    assert (server.name, server.version) == ("calc", "2.1.0")
    assert server.tools == (add, weather)
    assert server.get_tool("add") is add and server.get_tool("nope") is None
    assert server.to_wire() == {"type": "sdk", "name": "calc"}
    assert SdkMcpServer("empty").tools == ()
    assert SdkMcpServer("v").version == "1.0.0"
    assert "add" in repr(server)


def test_two_tools_of_one_name_are_both_listed_and_the_last_handles_calls() -> None:
    # as in the official SDK (a LangChain standard test binds one model as a class and a dict)
    first = tool("twin", "the first", {"a": int})(lambda args: "first")
    last = tool("twin", "the last", {"b": str})(lambda args: "last")
    server = create_sdk_mcp_server("s", tools=[first, last])["instance"]
    listing = reply_of(server.handle(request("tools/list", 1)))
    assert listing is not None
    assert [(t["name"], t["description"]) for t in listing["result"]["tools"]] == [
        ("twin", "the first"),
        ("twin", "the last"),
    ]
    assert server.get_tool("twin") is last
    reply = call_tool(server, "twin", {"b": "x"})
    assert reply["result"]["content"] == [{"type": "text", "text": "last"}]


def test_server_construction_errors() -> None:
    with pytest.raises(TypeError, match="not a tool made with @tool"):
        create_sdk_mcp_server("calc", tools=[lambda a: "x"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="non-empty string"):
        create_sdk_mcp_server("")


# ----------------------------------------------------------------------------- dispatch


@pytest.mark.parametrize(
    ("offered", "answered"),
    [
        ("2025-11-25", "2025-11-25"),  # what the CLI 2.1.197 sends
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2099-01-01", LATEST_PROTOCOL_VERSION),
        (None, LATEST_PROTOCOL_VERSION),
        (42, LATEST_PROTOCOL_VERSION),
    ],
)
def test_initialize_negotiates_the_protocol_version(offered: Any, answered: str) -> None:
    params = {"capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2.1.197"}}
    if offered is not None:
        params["protocolVersion"] = offered
    assert reply_of(calc().handle(request("initialize", 0, params))) == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": answered,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "calc", "version": "2.1.0"},
        },
    }


def test_initialize_without_params() -> None:
    response = reply_of(calc().handle(request("initialize", 3)))
    assert response is not None and response["result"]["protocolVersion"] == LATEST_PROTOCOL_VERSION


def test_tools_list() -> None:
    response = reply_of(calc().handle(request("tools/list", 1, {})))
    assert response == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [
                {"name": "add", "description": "Add two numbers", "inputSchema": add.json_schema},
                {
                    "name": "weather",
                    "description": "Weather for a city",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                    "annotations": {"readOnlyHint": True},
                },
            ]
        },
    }
    json.dumps(response)  # the shell writes it as JSON


def test_tools_list_entries_are_fresh_dicts() -> None:
    server = calc()
    first = reply_of(server.handle(request("tools/list")))
    assert first is not None
    first["result"]["tools"][0]["name"] = "changed"
    second = reply_of(server.handle(request("tools/list")))
    assert second is not None and second["result"]["tools"][0]["name"] == "add"


def test_double_handshake_as_the_real_cli_does_it() -> None:
    """The CLI connects twice to one server; ids restart at 0 and answers must repeat."""
    server = calc()
    handshake = [
        request("initialize", 0, {"protocolVersion": "2025-11-25", "capabilities": {}}),
        notification("notifications/initialized"),
        request("tools/list", 1),
    ]
    first = [reply_of(server.handle(m)) for m in handshake]
    second = [reply_of(server.handle(m)) for m in handshake]
    assert first == second
    assert [r and r["id"] for r in first] == [0, None, 1]
    assert first[1] is None
    action = server.handle(request("tools/call", 2, {"name": "add", "arguments": {"a": 2, "b": 3}}))
    assert isinstance(action, McpToolCall)
    assert run_tool_call(action) == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"content": [{"type": "text", "text": "5"}]},
    }


@pytest.mark.parametrize("rpc_id", [0, 1, -5, "abc", "", 2**40])
def test_ids_are_echoed_exactly(rpc_id: Any) -> None:
    server = calc()
    assert reply_of(server.handle(request("ping", rpc_id))) == {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "result": {},
    }
    unknown = reply_of(server.handle(request("resources/list", rpc_id)))
    assert unknown is not None and unknown["id"] == rpc_id
    action = server.handle(
        request("tools/call", rpc_id, {"name": "add", "arguments": {"a": 1, "b": 1}})
    )
    assert isinstance(action, McpToolCall) and action.rpc_id == rpc_id
    response = run_tool_call(action)
    assert response["id"] == rpc_id
    assert type(response["id"]) is type(rpc_id)


def error(rpc_id: Any, code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}


DISPATCH_ERRORS = [
    ("not a dict", ["ping"], error(None, INVALID_REQUEST, "a JSON-RPC message must be an object")),
    ("a string", "ping", error(None, INVALID_REQUEST, "a JSON-RPC message must be an object")),
    (
        "no method",
        {"jsonrpc": "2.0", "id": 5},
        error(5, INVALID_REQUEST, "not a JSON-RPC request: 'method' must be a string"),
    ),
    (
        "method not a string",
        {"jsonrpc": "2.0", "id": 0, "method": 3},
        error(0, INVALID_REQUEST, "not a JSON-RPC request: 'method' must be a string"),
    ),
    (
        "no method, bad id",
        {"id": [1]},
        error(None, INVALID_REQUEST, "not a JSON-RPC request: 'method' must be a string"),
    ),
    (
        "wrong jsonrpc",
        {"jsonrpc": "1.0", "id": 5, "method": "ping"},
        error(5, INVALID_REQUEST, "'jsonrpc' must be \"2.0\""),
    ),
    (
        "bool id",
        request("ping", True),
        error(None, INVALID_REQUEST, "a request id must be a string or an integer"),
    ),
    (
        "float id",
        request("ping", 1.5),
        error(None, INVALID_REQUEST, "a request id must be a string or an integer"),
    ),
    (
        "null id",
        request("ping", None),
        error(None, INVALID_REQUEST, "a request id must be a string or an integer"),
    ),
    (
        "params a list",
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": []},
        error(4, INVALID_PARAMS, "tools/list: 'params' must be an object"),
    ),
    (
        "unknown method",
        request("resources/list", 9),
        error(9, METHOD_NOT_FOUND, "Method not found: resources/list"),
    ),
    (
        "unknown tool",
        request("tools/call", 0, {"name": "sub", "arguments": {}}),
        error(0, INVALID_PARAMS, "Unknown tool: sub"),
    ),
    (
        "tool name missing",
        request("tools/call", 2, {"arguments": {}}),
        error(2, INVALID_PARAMS, "tools/call: 'name' must be a string"),
    ),
    (
        "tools/call without params",
        request("tools/call", 2),
        error(2, INVALID_PARAMS, "tools/call: 'name' must be a string"),
    ),
    (
        "arguments a list",
        request("tools/call", 2, {"name": "add", "arguments": [1, 2]}),
        error(2, INVALID_PARAMS, "tools/call: 'arguments' must be an object"),
    ),
]


@pytest.mark.parametrize(
    ("label", "message", "expected"), DISPATCH_ERRORS, ids=[c[0] for c in DISPATCH_ERRORS]
)
def test_dispatch_errors(label: str, message: Any, expected: Dict[str, Any]) -> None:
    assert reply_of(calc().handle(message)) == expected


@pytest.mark.parametrize(
    "message",
    [
        notification("notifications/initialized"),
        notification("notifications/roots/list_changed", {}),
        notification("notifications/progress", {"progressToken": 1, "progress": 0.5}),
        notification("notifications/cancelled", {}),  # no requestId: nothing to cancel
        notification("notifications/cancelled", {"requestId": True}),
        notification("notifications/cancelled", []),  # malformed params on a notification
        {"jsonrpc": "1.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 3, "result": {}},  # a response: we never asked anything
        {"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "x"}},
    ],
)
def test_notifications_and_responses_get_no_jsonrpc_answer(message: Dict[str, Any]) -> None:
    assert reply_of(calc().handle(message)) is None


def test_cancelled_notification() -> None:
    server = calc()
    cancel = server.handle(
        notification(
            "notifications/cancelled", {"requestId": 2, "reason": "AbortError: remote-cancel"}
        )
    )
    assert cancel == McpCancelled("calc", 2, "AbortError: remote-cancel")
    call = server.handle(request("tools/call", 2, {"name": "add", "arguments": {"a": 1, "b": 2}}))
    assert isinstance(call, McpToolCall) and call.key == cancel.key == ("calc", 2)
    no_reason = server.handle(
        notification("notifications/cancelled", {"requestId": "r-1", "reason": 5})
    )
    assert no_reason == McpCancelled("calc", "r-1", None)


def test_mcp_control_response() -> None:
    assert mcp_control_response(None) == {"mcp_response": {"jsonrpc": "2.0", "result": {}}}
    response = {"jsonrpc": "2.0", "id": 0, "result": {}}
    assert mcp_control_response(response) == {"mcp_response": response}


# ----------------------------------------------------------------------------- routing


def test_registry_routes_by_the_configured_name() -> None:
    math_server = calc()
    other = SdkMcpServer("other", tools=[tool("ping", "Ping", {})(lambda args: "pong")])
    servers = SdkMcpServers({"math": math_server, "other": other})
    assert servers.names == ["math", "other"]
    assert len(servers) == 2 and "math" in servers and "calc" not in servers
    assert list(servers) == ["math", "other"]
    assert servers.get("math") is math_server and servers.get("calc") is None

    action = servers.route(
        "math", request("tools/call", 0, {"name": "weather", "arguments": {"city": "Oslo"}})
    )
    assert (
        isinstance(action, McpToolCall)
        and action.server_name == "math"
        and action.key == ("math", 0)
    )
    assert run_tool_call(action)["result"] == {
        "content": [{"type": "text", "text": "sunny in Oslo (call 0)"}]
    }

    action = servers.route("other", request("tools/call", 0, {"name": "ping"}))
    assert isinstance(action, McpToolCall)
    assert run_tool_call(action)["result"] == {"content": [{"type": "text", "text": "pong"}]}

    unknown_tool = reply_of(
        servers.route("other", request("tools/call", 1, {"name": "add", "arguments": {}}))
    )
    assert unknown_tool == error(1, INVALID_PARAMS, "Unknown tool: add")

    cancel = servers.route("math", notification("notifications/cancelled", {"requestId": 0}))
    assert cancel == McpCancelled("math", 0, None)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            request("initialize", 0),
            error(0, METHOD_NOT_FOUND, "No SDK MCP server named 'ghost' in this session"),
        ),
        (
            request("tools/list", "x"),
            error("x", METHOD_NOT_FOUND, "No SDK MCP server named 'ghost' in this session"),
        ),
        (
            "garbage",
            error(None, METHOD_NOT_FOUND, "No SDK MCP server named 'ghost' in this session"),
        ),
        (notification("notifications/initialized"), None),
    ],
)
def test_registry_unknown_server_is_a_jsonrpc_error(message: Any, expected: Any) -> None:
    assert reply_of(SdkMcpServers({"calc": calc()}).route("ghost", message)) == expected


def test_the_official_config_dict_is_an_in_process_server() -> None:
    from claude_sync._options.command import partition_mcp_servers

    server = calc()
    config = create_sdk_mcp_server("other", tools=[add])
    files = {"type": "stdio", "command": "mcp-files"}
    external, in_process = partition_mcp_servers({"calc": server, "files": files, "conf": config})
    assert external == {"files": files}
    assert in_process == {"calc": server, "conf": config["instance"]}
    servers = SdkMcpServers(in_process)
    assert servers.names == ["calc", "conf"] and servers.get("conf") is config["instance"]
    assert servers.package_servers == {} and len(SdkMcpServers()) == 0
    with pytest.raises(TypeError, match="not an in-process server"):
        SdkMcpServers({"x": object()})


# ----------------------------------------------------------------------------- tool calls


def test_context_carries_signal_ids_and_meta() -> None:
    seen: List[ToolContext] = []

    def handler(args: Dict[str, Any], context: ToolContext) -> str:
        seen.append(context)
        return "ok"

    flag = Flag()
    server = one_tool_server(handler)
    meta = {"claudecode/toolUseId": "toolu_01", "progressToken": 2}
    action = SdkMcpServers({"routed": server}).route(
        "routed", request("tools/call", 2, {"name": "t", "arguments": {}, "_meta": meta})
    )
    assert isinstance(action, McpToolCall) and action.tool_use_id == "toolu_01"
    assert run_tool_call(action, flag)["result"] == {"content": [{"type": "text", "text": "ok"}]}
    (context,) = seen
    assert context == ToolContext(
        signal=flag,
        tool_use_id="toolu_01",
        meta=meta,
        server_name="routed",
        request_id=2,
        tool_name="t",
    )


def test_context_without_meta() -> None:
    seen: List[ToolContext] = []
    server = one_tool_server(lambda args, context: seen.append(context) or "ok")
    call_tool(server, "t", {}, meta={"claudecode/toolUseId": 5})
    assert (
        seen[0].tool_use_id is None
        and seen[0].signal is None
        and seen[0].meta == {"claudecode/toolUseId": 5}
    )


def test_handler_sees_cancellation_while_running() -> None:
    flag = Flag()
    observed: List[bool] = []

    def slow(args: Dict[str, Any], context: ToolContext) -> str:
        observed.append(context.signal is not None and context.signal.is_set())
        flag.set()  # what the shell does when notifications/cancelled arrives meanwhile
        observed.append(context.signal is not None and context.signal.is_set())
        return "stopped early"

    response = call_tool(one_tool_server(slow), "t", {}, signal=flag)
    assert observed == [False, True]
    assert response["result"]["content"][0]["text"] == "stopped early"


def test_call_cancelled_before_it_starts_does_not_run_the_handler() -> None:
    ran: List[bool] = []
    flag = Flag()
    flag.set()
    response = call_tool(
        one_tool_server(lambda args: ran.append(True) or "x"), "t", {}, signal=flag
    )
    assert ran == []
    assert error_text(response) == "Tool 't' was cancelled before it started."


def test_raising_handler_becomes_an_error_result() -> None:
    def divide(args: Dict[str, Any]) -> str:
        return str(args["a"] / args["b"])

    server = SdkMcpServer(
        "m", tools=[tool("divide", "Divide", {"a": float, "b": float})(divide)]
    )
    response = call_tool(server, "divide", {"a": 1, "b": 0}, rpc_id=0)
    assert response["id"] == 0 and "error" not in response
    assert error_text(response) == "Tool 'divide' raised ZeroDivisionError: division by zero"
    assert error_text(
        call_tool(one_tool_server(lambda a: (_ for _ in ()).throw(RuntimeError())), "t", {})
    ) == ("Tool 't' raised RuntimeError")


def test_base_exceptions_propagate() -> None:
    def interrupted(args: Dict[str, Any]) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_tool(one_tool_server(interrupted), "t", {})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"a": 1}, 'missing required property "b"'),
        ({"a": 1, "b": "2"}, "b: expected number, got string"),
        ({"a": None, "b": 2}, "a: expected number, got null"),
        ({"a": True, "b": 2}, "a: expected number, got boolean"),
    ],
)
def test_invalid_arguments_do_not_reach_the_handler(
    arguments: Dict[str, Any], message: str
) -> None:
    ran: List[bool] = []

    @tool("add", "Add", {"a": float, "b": float})
    def guarded(args: Dict[str, Any]) -> str:
        ran.append(True)
        return "x"

    response = call_tool(SdkMcpServer("m", tools=[guarded]), "add", arguments)
    assert ran == []
    assert error_text(response) == f"Invalid arguments for tool 'add': {message}"


def test_missing_arguments_mean_an_empty_object() -> None:
    server = one_tool_server(lambda args: f"got {args!r}")
    action = server.handle(request("tools/call", 1, {"name": "t"}))
    assert isinstance(action, McpToolCall) and action.arguments == {} and action.meta == {}
    assert run_tool_call(action)["result"]["content"][0]["text"] == "got {}"


def test_str_return_is_one_text_block() -> None:
    assert call_tool(one_tool_server(lambda a: "plain"), "t", {})["result"] == {
        "content": [{"type": "text", "text": "plain"}]
    }


def test_multi_megabyte_text_result_passes_through() -> None:
    big = "0123456789abcdef" * (6 * 1024 * 1024 // 16)
    response = call_tool(
        one_tool_server(lambda a: {"content": [{"type": "text", "text": big}]}), "t", {}
    )
    assert response["result"]["content"][0]["text"] is big
    assert (
        json.loads(json.dumps(mcp_control_response(response)))["mcp_response"]["result"]["content"][
            0
        ]["text"]
        == big
    )


def test_multi_megabyte_argument() -> None:
    big = "y" * (3 * 1024 * 1024)
    response = call_tool(one_tool_server(lambda a: str(len(a["s"])), {"s": str}), "t", {"s": big})
    assert response["result"]["content"][0]["text"] == str(len(big))


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode("ascii")

GOOD_RESULTS = [
    (
        "text",
        {"content": [{"type": "text", "text": "hi"}]},
        {"content": [{"type": "text", "text": "hi"}]},
    ),
    ("empty content", {"content": []}, {"content": []}),
    (
        "image",
        {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
        {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
    ),
    (
        "image bytes",
        {"content": [{"type": "image", "data": b"\x89PNG\r\n\x1a\n", "mimeType": "image/png"}]},
        {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
    ),
    (
        "audio",
        {"content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]},
        {"content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]},
    ),
    (
        "resource link",
        {
            "content": [
                {
                    "type": "resource_link",
                    "uri": "file:///a.txt",
                    "name": "a.txt",
                    "description": "A",
                }
            ]
        },
        {
            "content": [
                {
                    "type": "resource_link",
                    "uri": "file:///a.txt",
                    "name": "a.txt",
                    "description": "A",
                }
            ]
        },
    ),
    (
        "embedded text",
        {
            "content": [
                {
                    "type": "resource",
                    "resource": {"uri": "mem://n", "text": "note", "mimeType": "text/plain"},
                }
            ]
        },
        {
            "content": [
                {
                    "type": "resource",
                    "resource": {"uri": "mem://n", "text": "note", "mimeType": "text/plain"},
                }
            ]
        },
    ),
    (
        "embedded blob",
        {"content": [{"type": "resource", "resource": {"uri": "mem://b", "blob": PNG}}]},
        {"content": [{"type": "resource", "resource": {"uri": "mem://b", "blob": PNG}}]},
    ),
    (
        "isError",
        {"content": [{"type": "text", "text": "no"}], "isError": True},
        {"content": [{"type": "text", "text": "no"}], "isError": True},
    ),
    (
        "is_error alias",
        {"content": [{"type": "text", "text": "no"}], "is_error": True},
        {"content": [{"type": "text", "text": "no"}], "isError": True},
    ),
    ("isError false omitted", {"content": [], "isError": False}, {"content": []}),
    (
        "structured only",
        {"structuredContent": {"temp": 21.5, "unit": "C"}},
        {
            "content": [{"type": "text", "text": '{"temp": 21.5, "unit": "C"}'}],
            "structuredContent": {"temp": 21.5, "unit": "C"},
        },
    ),
    (
        "structured and content",
        {"content": [{"type": "text", "text": "21.5 C"}], "structuredContent": {"t": 21.5}},
        {"content": [{"type": "text", "text": "21.5 C"}], "structuredContent": {"t": 21.5}},
    ),
    ("meta", {"content": [], "_meta": {"x/y": 1}}, {"content": [], "_meta": {"x/y": 1}}),
    ("unknown keys dropped", {"content": [], "extra": object()}, {"content": []}),
    (
        "tuple content",
        {"content": ({"type": "text", "text": "t"},)},
        {"content": [{"type": "text", "text": "t"}]},
    ),
]


@pytest.mark.parametrize(
    ("label", "returned", "expected"), GOOD_RESULTS, ids=[c[0] for c in GOOD_RESULTS]
)
def test_handler_results(label: str, returned: Dict[str, Any], expected: Dict[str, Any]) -> None:
    response = call_tool(one_tool_server(lambda a: returned), "t", {})
    assert response["result"] == expected
    json.dumps(response)


BAD_RESULTS = [
    ("none", None, "Tool 't' returned NoneType; a tool handler must return a str or a dict"),
    ("int", 5, "Tool 't' returned int;"),
    ("list", [{"type": "text", "text": "x"}], "Tool 't' returned list;"),
    ("no content", {"isError": True}, "it has no 'content' (a list of content blocks)"),
    ("content a str", {"content": "hello"}, "'content' must be a list of blocks, not str"),
    ("block not a dict", {"content": ["hello"]}, "content[0] must be a dict, not str"),
    (
        "unknown block",
        {"content": [{"type": "video", "url": "x"}]},
        "content[0] has type 'video'; expected one of text, image, audio, resource_link, resource",
    ),
    (
        "text not str",
        {"content": [{"type": "text", "text": 5}]},
        "content[0]: a text block needs a string 'text'",
    ),
    (
        "image without mimeType",
        {"content": [{"type": "text", "text": "ok"}, {"type": "image", "data": PNG}]},
        "content[1]: a image block needs a string 'mimeType'",
    ),
    (
        "link without name",
        {"content": [{"type": "resource_link", "uri": "u"}]},
        "content[0]: a resource_link block needs a string 'name'",
    ),
    (
        "resource without body",
        {"content": [{"type": "resource", "resource": {"uri": "u"}}]},
        "content[0]: an embedded resource needs a string 'text' or a base64 'blob'",
    ),
    (
        "resource not a dict",
        {"content": [{"type": "resource", "resource": "u"}]},
        "content[0]: a resource block needs 'resource'",
    ),
    ("isError not bool", {"content": [], "isError": "yes"}, "'isError' must be a bool, not str"),
    ("structured not a dict", {"structuredContent": [1, 2]}, "'structuredContent' must be a dict"),
    (
        "structured not json",
        {"structuredContent": {"when": {1, 2}}},
        "structuredContent.when: set is not JSON",
    ),
    (
        "structured bad key",
        {"structuredContent": {1: "x"}},
        "structuredContent: key 1 is not a string",
    ),
    ("meta not a dict", {"content": [], "_meta": "x"}, "'_meta' must be a dict"),
]


@pytest.mark.parametrize(
    ("label", "returned", "message"), BAD_RESULTS, ids=[c[0] for c in BAD_RESULTS]
)
def test_wrong_results_become_error_results(label: str, returned: Any, message: str) -> None:
    text = error_text(call_tool(one_tool_server(lambda a: returned), "t", {}))
    assert message in text
    assert text.startswith("Tool 't' returned")


def test_a_returned_coroutine_is_refused_and_closed() -> None:
    async def forgot_to_drop_async() -> str:
        return "x"

    coroutine = forgot_to_drop_async()
    text = error_text(call_tool(one_tool_server(lambda a: coroutine), "t", {}))
    assert text.startswith("Tool 't' returned coroutine;")
    assert coroutine.cr_frame is None  # closed: no "never awaited" warning later


def test_normalize_tool_result_accepts_any_mapping() -> None:
    from types import MappingProxyType

    assert normalize_tool_result("t", MappingProxyType({"content": []})) == {"content": []}


# ----------------------------------------------------------------------------- import weight


def test_pure_modules_import_nothing_forbidden_and_stay_light() -> None:
    """Import and use _mcp.server / _mcp.tools without the package __init__ (which loads the
    shell); schema code loads only when a tool is decorated."""
    package_dir = os.path.join(REPO, "claude_sync")
    script = textwrap.dedent(
        f"""
        import sys, types
        pkg = types.ModuleType("claude_sync"); pkg.__path__ = [{package_dir!r}]
        sys.modules["claude_sync"] = pkg
        before = set(sys.modules)
        import claude_sync._mcp.server as m
        import claude_sync._mcp.tools as mt
        on_import = set(sys.modules) - before
        assert "claude_sync._mcp.schema" not in on_import, "schema code loads at decoration time"
        t = mt.tool("t", "d", {{"a": int}})(lambda args, ctx: 1 / 0)
        s = m.create_sdk_mcp_server("s", tools=[t])["instance"]
        r = m.run_tool_call(s.handle({{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {{"name": "t", "arguments": {{"a": 1}}}}}}))
        assert r["result"]["isError"] is True
        forbidden = {{"threading", "subprocess", "queue", "time", "asyncio", "concurrent",
                      "socket", "select", "signal", "logging"}}
        print(sorted(forbidden & (set(sys.modules) - before)))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- ToolAnnotations


def test_tool_annotations_take_and_give_both_spellings() -> None:
    from claude_sync import ToolAnnotations

    hints = ToolAnnotations(read_only_hint=True, destructiveHint=False, max_result_size_chars=9)
    assert hints == ToolAnnotations(readOnlyHint=True, destructive_hint=False, maxResultSizeChars=9)
    assert (hints.readOnlyHint, hints.read_only_hint) == (True, True)
    assert hints.open_world_hint is None and hints.title is None
    assert hints.model_dump() == {"readOnlyHint": True, "destructiveHint": False, "maxResultSizeChars": 9}
    assert hints.model_dump(by_alias=False)["read_only_hint"] is True
    assert ToolAnnotations(readOnlyHint=True, read_only_hint=False).readOnlyHint is True  # wire wins
    assert ToolAnnotations(customHint=1).customHint == 1  # extra hints kept, as extra="allow"
    with pytest.raises(AttributeError):
        hints.readOnlyHint = False  # type: ignore[misc]
    with pytest.raises(AttributeError, match="no hint 'bogus'"):
        hints.bogus  # noqa: B018
    with pytest.raises(TypeError, match="readOnlyHint must be a bool"):
        ToolAnnotations(read_only_hint="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="maxResultSizeChars must be a non-negative int"):
        ToolAnnotations(maxResultSizeChars=-1)
    import pickle

    assert pickle.loads(pickle.dumps(hints)) == hints and "readOnlyHint=True" in repr(hints)


def test_tool_annotations_reach_tools_list_and_meta() -> None:
    from claude_sync import ToolAnnotations

    made = tool(
        "t", "d", {}, annotations=ToolAnnotations(title="T", read_only_hint=True, max_result_size_chars=5)
    )(lambda a: "x")
    entry = made.to_wire()
    assert entry["annotations"] == {"title": "T", "readOnlyHint": True}
    assert entry["_meta"] == {"anthropic/maxResultSizeChars": 5}
    listed = reply_of(SdkMcpServer("s", tools=[made]).handle(request("tools/list", 1)))
    assert listed["result"]["tools"][0]["annotations"] == {"title": "T", "readOnlyHint": True}


# ----------------------------------------------------------------------------- TS SDK extras


def test_search_hint_and_always_load_go_in_the_tool_meta() -> None:
    """The TS SDK's ``tool(…, {searchHint, alwaysLoad})`` → ``_meta`` keys the CLI reads."""
    hinted = tool("t", "d", {}, {"maxResultSizeChars": 9}, search_hint="tortoise", always_load=True)(lambda a: "x")
    assert hinted.to_wire()["_meta"] == {
        "anthropic/maxResultSizeChars": 9, "anthropic/searchHint": "tortoise", "anthropic/alwaysLoad": True,
    }  # fmt: skip
    plain = tool("p", "d", {}, search_hint="", always_load=False)(lambda a: "x")
    assert "_meta" not in plain.to_wire()
    with pytest.raises(TypeError, match="search_hint must be a str"):
        tool("t", "d", {}, search_hint=["x"])(lambda a: "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="always_load must be a bool"):
        tool("t", "d", {}, always_load="yes")(lambda a: "x")  # type: ignore[arg-type]


def test_server_instructions_always_load_and_timeout() -> None:
    own = tool("own", "d", {}, search_hint="h")(lambda a: "x")
    off = tool("off", "d", {}, annotations={"maxResultSizeChars": 5})(lambda a: "x")
    config = create_sdk_mcp_server("kit", tools=[own, off], instructions="Use own first.", always_load=True, timeout=2.5)
    server = config["instance"]
    result = reply_of(server.handle(request("initialize", 0, {})))["result"]  # type: ignore[index]
    assert result["instructions"] == "Use own first."
    listed = reply_of(server.handle(request("tools/list", 1, {})))["result"]["tools"]  # type: ignore[index]
    assert [entry["_meta"] for entry in listed] == [
        {"anthropic/alwaysLoad": True, "anthropic/searchHint": "h"},
        {"anthropic/alwaysLoad": True, "anthropic/maxResultSizeChars": 5},
    ]
    assert "_meta" not in own.to_wire() or "anthropic/alwaysLoad" not in own.to_wire()["_meta"]  # the tool is not changed
    assert server.wire_settings() == {"timeout": 2500}
    assert "instructions" not in reply_of(calc().handle(request("initialize", 0, {})))["result"]  # type: ignore[index]
    assert calc().wire_settings() == {}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"timeout": 0.5}, ValueError, "seconds >= 1"),
        ({"timeout": float("inf")}, ValueError, "seconds >= 1"),
        ({"timeout": float("nan")}, ValueError, "seconds >= 1"),
        ({"timeout": True}, TypeError, "number of seconds"),
        ({"timeout": "5"}, TypeError, "number of seconds"),
        ({"instructions": b"x"}, TypeError, "instructions must be a str"),
        ({"always_load": 1}, TypeError, "always_load must be a bool"),
    ],
)
def test_bad_server_extras_are_named(kwargs: Dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        create_sdk_mcp_server("kit", **kwargs)
