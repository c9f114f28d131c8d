"""In-process MCP servers: ``create_sdk_mcp_server`` and a pure JSON-RPC core.

The CLI reaches a server registered as ``{"type": "sdk", "name": …}`` through ``mcp_message``
control requests, each carrying one JSON-RPC message for one server. This module turns such a
message into an *action* and never touches a thread, a pipe or a clock:

* ``McpReply(response)``: answer now. ``response`` is the JSON-RPC response, or None for a
  notification (the control request is still acknowledged, see ``mcp_control_response``).
* ``McpToolCall``: run a tool. The shell runs ``run_tool_call(call, signal)`` on its callback
  pool; the handler runs in that (calling) thread and the JSON-RPC response comes back.
* ``McpCancelled``: ``notifications/cancelled`` named an earlier request; the shell sets that
  tool call's cancellation token.

How the shell drives it (reader thread first, because the order of messages matters there)::

    action = servers.route(server_name, message)          # reader thread: pure and quick
    if isinstance(action, McpToolCall):
        inflight[action.key] = signal                      # this control request's token
    elif isinstance(action, McpCancelled):
        token = inflight.get(action.key); token and token.set()
    ...
    # callback pool thread:
    if isinstance(action, McpToolCall):
        response = run_tool_call(action, signal)           # user code runs here
        inflight.pop(action.key, None)
    else:
        response = action.response if isinstance(action, McpReply) else None
    answer the control request with mcp_control_response(response)

Rules the dispatcher follows (MCP 2025-11-25, JSON-RPC 2.0):

* ids are echoed exactly (``0`` included); a message that is not a JSON-RPC request gets
  ``-32600``, an unknown method ``-32601``, an unknown tool or malformed ``tools/call`` params
  ``-32602``. Notifications never get a JSON-RPC response; unknown ones are ignored.
* Everything that goes wrong *inside* a tool (arguments that break the input schema, a handler
  that raises or returns the wrong thing, a call cancelled before it started) is a successful
  JSON-RPC response with ``isError: true`` and text the model can read and act on.
* No per-connection state: the CLI may run ``initialize`` / ``notifications/initialized`` /
  ``tools/list`` twice on one server (ids restarting at 0; with ``--mcp-config``, when the first
  user message arrives during the first handshake), and any order works.

Tools themselves (``@tool``, ``SdkMcpTool``, result normalisation) are in ``mcp_tools``.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Tuple,
    Union,
)

from .._wire.record import FrozenRecord, frozen_record
from .config import McpSdkServerConfig, is_own_server, mcp_package_lowlevel_server
from .tools import (
    ALWAYS_LOAD_META,
    RpcId,
    SdkMcpTool,
    ToolContext,
    error_result,
    normalize_tool_result,
)

if TYPE_CHECKING:  # pragma: no cover
    from .._callbacks.permission_types import CancellationSignal

PROTOCOL_VERSIONS: Tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The MCP revisions we speak, newest first (what the CLI 2.1.197 offers is the first)."""
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0]

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

_TOOL_USE_ID_META = "claudecode/toolUseId"

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "LATEST_PROTOCOL_VERSION",
    "METHOD_NOT_FOUND",
    "PROTOCOL_VERSIONS",
    "McpAction",
    "McpCancelled",
    "McpForward",
    "McpReply",
    "McpSdkServerConfig",
    "McpToolCall",
    "SdkMcpServer",
    "SdkMcpServers",
    "create_sdk_mcp_server",
    "mcp_control_response",
    "run_tool_call",
]


# ----------------------------------------------------------------------------- actions


@frozen_record
class McpReply(FrozenRecord):
    """Answer the ``mcp_message`` now: ``response`` is the JSON-RPC response, None for none."""

    response: Optional[Dict[str, Any]]


@frozen_record
class McpToolCall(FrozenRecord):
    """A valid ``tools/call`` for a known tool; run it with ``run_tool_call(call, signal)``."""

    server_name: str
    rpc_id: RpcId
    tool: SdkMcpTool
    arguments: Dict[str, Any]
    meta: Dict[str, Any]

    @property
    def key(self) -> Tuple[str, RpcId]:
        """What a later ``McpCancelled.key`` for this call equals."""
        return (self.server_name, self.rpc_id)

    @property
    def tool_use_id(self) -> Optional[str]:
        """The CLI's ``tool_use`` id (``_meta["claudecode/toolUseId"]``), if it sent one."""
        value = self.meta.get(_TOOL_USE_ID_META)
        return value if isinstance(value, str) else None


@frozen_record
class McpCancelled(FrozenRecord):
    """``notifications/cancelled``: the CLI gave up on request ``rpc_id`` of ``server_name``."""

    server_name: str
    rpc_id: RpcId
    reason: Optional[str]

    @property
    def key(self) -> Tuple[str, RpcId]:
        return (self.server_name, self.rpc_id)


@frozen_record
class McpForward(FrozenRecord):
    """A message for a server made with the ``mcp`` package: the shell hands ``message`` to
    that server's bridge (``_mcp.bridge``) and answers with what it returns."""

    server_name: str
    message: Any


McpAction = Union[McpReply, McpToolCall, McpCancelled, McpForward]


def mcp_control_response(response: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The ``response`` payload of the control_response answering an ``mcp_message``.

    For a notification (``response`` None) the real CLI expects an empty JSON-RPC result.
    """
    if response is None:
        response = {"jsonrpc": "2.0", "result": {}}
    return {"mcp_response": response}


def _result(rpc_id: RpcId, result: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result}


def _error(rpc_id: Optional[RpcId], code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}


def _is_valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


# ----------------------------------------------------------------------------- servers


class SdkMcpServer:
    """An in-process MCP server holding tools; pass it in ``ClaudeAgentOptions.mcp_servers``.

    ``type`` is ``"sdk"`` and it has ``handle``: that is how ``command.partition_mcp_servers``
    tells it from external servers.
    Stateless: ``handle`` may be called from any thread, in any order, any number of times.

    Attributes:
        type: ``"sdk"``.
        name: The server's name (the CLI addresses it by its ``mcp_servers`` key).
        version: The version it reports to the CLI.
        tools: Its tools, in order.
        instructions: What the server tells the model about its tools (the MCP ``initialize``
            answer's ``instructions``; the CLI puts them in the system prompt), or None.
        always_load: Every tool always in the prompt, never deferred behind tool search
            (``_meta["anthropic/alwaysLoad"]`` on each, OR'd with the tool's own).
        timeout: The CLI's limit on one tool call of this server, in seconds (sent in
            ``initialize.sdkMcpServerConfigs``, in milliseconds; it overrides
            ``MCP_TOOL_TIMEOUT``); None: the CLI's default.
    """

    type = "sdk"

    def __init__(
        self,
        name: str,
        version: str = "1.0.0",
        tools: Optional[List[SdkMcpTool]] = None,
        *,
        instructions: Optional[str] = None,
        always_load: bool = False,
        timeout: Optional[float] = None,
    ) -> None:
        """Two tools with one name are both listed and the last one handles calls (as in the
        official SDK). Raises ValueError for an empty name or a ``timeout`` that is not a
        finite number of seconds >= 1; TypeError for a tool that is not an
        ``SdkMcpTool``, a non-str ``instructions``, a non-bool ``always_load`` or a
        non-number ``timeout``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"an MCP server name must be a non-empty string, not {name!r}")
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(f"server {name!r}: instructions must be a str, not {instructions!r}")
        if not isinstance(always_load, bool):
            raise TypeError(f"server {name!r}: always_load must be a bool, not {always_load!r}")
        self.name = name
        self.version = version
        self.instructions = instructions
        self.always_load = always_load
        self.timeout = _check_timeout(name, timeout)
        self.tools: Tuple[SdkMcpTool, ...] = tuple(tools or ())
        self._by_name: Dict[str, SdkMcpTool] = {}
        for item in self.tools:
            if not isinstance(item, SdkMcpTool):
                raise TypeError(f"server {name!r}: {item!r} is not a tool made with @tool")
            self._by_name[item.name] = item  # a later tool of the same name replaces it

    def wire_settings(self) -> Dict[str, Any]:
        """This server's entry in ``initialize.sdkMcpServerConfigs`` (``{}``: none needed)."""
        return {} if self.timeout is None else {"timeout": int(round(self.timeout * 1000))}

    def __repr__(self) -> str:
        names = ", ".join(self._by_name)
        return f"SdkMcpServer(name={self.name!r}, version={self.version!r}, tools=[{names}])"

    def to_wire(self) -> Dict[str, str]:
        """This server's entry in ``--mcp-config`` (the CLI routes its traffic back to us)."""
        return {"type": "sdk", "name": self.name}

    def get_tool(self, name: str) -> Optional[SdkMcpTool]:
        """The tool named ``name``, or None."""
        return self._by_name.get(name)

    def handle(self, message: Any, server_name: Optional[str] = None) -> McpAction:
        """Decide what to do with one JSON-RPC message from the CLI. Never raises.

        ``server_name`` is the name the CLI addressed (the key in ``mcp_servers``); it
        defaults to ``self.name`` and ends up in ``McpToolCall``/``McpCancelled``/``ToolContext``.
        """
        routed_as = server_name or self.name
        if not isinstance(message, dict):
            return McpReply(_error(None, INVALID_REQUEST, "a JSON-RPC message must be an object"))
        method = message.get("method")
        if not isinstance(method, str):
            if "method" not in message and ("result" in message or "error" in message):
                return McpReply(None)  # a response; we never send requests, so nothing to do
            rpc_id = message.get("id")
            return McpReply(
                _error(
                    rpc_id if _is_valid_id(rpc_id) else None,
                    INVALID_REQUEST,
                    "not a JSON-RPC request: 'method' must be a string",
                )
            )
        if message.get("jsonrpc", "2.0") != "2.0":
            return _reject(message, INVALID_REQUEST, "'jsonrpc' must be \"2.0\"")
        params = message.get("params")
        if params is None:
            params = {}
        if "id" not in message:
            if not isinstance(params, dict):
                return McpReply(None)
            return _notification(method, params, routed_as)
        rpc_id = message["id"]
        if not _is_valid_id(rpc_id):
            return McpReply(
                _error(None, INVALID_REQUEST, "a request id must be a string or an integer")
            )
        if not isinstance(params, dict):
            return McpReply(_error(rpc_id, INVALID_PARAMS, f"{method}: 'params' must be an object"))
        answer = self._REQUESTS.get(method)
        if answer is None:
            return McpReply(_error(rpc_id, METHOD_NOT_FOUND, f"Method not found: {method}"))
        return answer(self, rpc_id, params, routed_as)

    def _initialize(self, rpc_id: RpcId, params: Dict[str, Any], _routed_as: str) -> McpAction:
        offered = params.get("protocolVersion")
        version = offered if offered in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION
        result: Dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": self.name, "version": self.version},
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return McpReply(_result(rpc_id, result))

    def _ping(self, rpc_id: RpcId, _params: Dict[str, Any], _routed_as: str) -> McpAction:
        return McpReply(_result(rpc_id, {}))

    def _tools_list(self, rpc_id: RpcId, _params: Dict[str, Any], _routed_as: str) -> McpAction:
        listing = [item.to_wire() for item in self.tools]
        if self.always_load:
            for entry in listing:
                entry["_meta"] = {ALWAYS_LOAD_META: True, **entry.get("_meta", {})}
        return McpReply(_result(rpc_id, {"tools": listing}))

    def _tools_call(self, rpc_id: RpcId, params: Dict[str, Any], routed_as: str) -> McpAction:
        name = params.get("name")
        if not isinstance(name, str):
            return McpReply(_error(rpc_id, INVALID_PARAMS, "tools/call: 'name' must be a string"))
        found = self._by_name.get(name)
        if found is None:
            return McpReply(_error(rpc_id, INVALID_PARAMS, f"Unknown tool: {name}"))
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return McpReply(
                _error(rpc_id, INVALID_PARAMS, "tools/call: 'arguments' must be an object")
            )
        meta = params.get("_meta")
        return McpToolCall(
            routed_as, rpc_id, found, arguments, meta if isinstance(meta, dict) else {}
        )

    _REQUESTS: Dict[str, Callable[[SdkMcpServer, RpcId, Dict[str, Any], str], McpAction]] = {
        "initialize": _initialize,
        "ping": _ping,
        "tools/list": _tools_list,
        "tools/call": _tools_call,
    }

    def run_tool_call(
        self, call: McpToolCall, signal: Optional[CancellationSignal] = None
    ) -> Dict[str, Any]:
        """Same as the module function ``run_tool_call``."""
        return run_tool_call(call, signal)


def _reject(message: Dict[str, Any], code: int, text: str) -> McpReply:
    """An error reply to a request, silence for a notification."""
    if "id" not in message:
        return McpReply(None)
    rpc_id = message["id"]
    return McpReply(_error(rpc_id if _is_valid_id(rpc_id) else None, code, text))


def _notification(method: str, params: Dict[str, Any], routed_as: str) -> McpAction:
    if method == "notifications/cancelled":
        target = params.get("requestId")
        if isinstance(target, (str, int)) and not isinstance(target, bool):
            reason = params.get("reason")
            return McpCancelled(routed_as, target, reason if isinstance(reason, str) else None)
    return McpReply(None)  # notifications/initialized and anything else: nothing to answer


def create_sdk_mcp_server(
    name: str,
    version: str = "1.0.0",
    tools: Optional[List[SdkMcpTool]] = None,
    *,
    instructions: Optional[str] = None,
    always_load: bool = False,
    timeout: Optional[float] = None,
) -> McpSdkServerConfig:
    """An in-process MCP server with ``tools``: the official config dict ``{"type": "sdk",
    "name": name, "instance": SdkMcpServer(…)}``, an ``mcp_servers`` value (as is the server).

    ``instructions``, ``always_load`` and ``timeout`` (seconds) are the TS SDK's
    ``createSdkMcpServer`` options of those names (``timeout`` there is in milliseconds); see
    ``SdkMcpServer``.

    Raises:
        ValueError: an empty name, a timeout below 1 second. (Two tools with the same name are
            both listed; the last one handles calls, as in the official SDK.)
        TypeError: an item of ``tools`` is not an ``SdkMcpTool``, or an option of the wrong type.
    """
    server = SdkMcpServer(
        name, version=version, tools=tools, instructions=instructions,
        always_load=always_load, timeout=timeout,
    )  # fmt: skip
    return {"type": "sdk", "name": name, "instance": server}


def _check_timeout(name: str, timeout: Any) -> Optional[float]:
    """A per-server tool-call timeout in seconds: None, or a finite number >= 1 (the CLI
    ignores values under 1000 ms, and an option accepted and ignored is a bug)."""
    import math
    from numbers import Real

    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, Real):
        raise TypeError(f"server {name!r}: timeout must be a number of seconds, not {timeout!r}")
    if not math.isfinite(timeout) or timeout < 1:
        raise ValueError(
            f"server {name!r}: timeout must be a finite number of seconds >= 1 (the CLI ignores "
            f"shorter ones), not {timeout!r}"
        )
    return float(timeout)


class SdkMcpServers:
    """The SDK servers of one session, keyed by the name the CLI addresses them by."""

    def __init__(self, servers: Optional[Mapping[str, Any]] = None) -> None:
        """``servers``: each in-process server by its key (``command.partition_mcp_servers``
        resolved them): ours (an ``SdkMcpServer``, answered here) or one built with the ``mcp``
        package (its messages become ``McpForward`` actions for the shell's bridge, which runs
        its low-level server, kept in ``package_servers``).

        Raises TypeError for a server that is neither.
        """
        self._servers: Dict[str, SdkMcpServer] = {}
        self.package_servers: Dict[str, Any] = {}
        self._order: List[str] = []
        for key, server in (servers or {}).items():
            self._order.append(key)
            if is_own_server(server):
                self._servers[key] = server
                continue
            lowlevel = mcp_package_lowlevel_server(server)
            if lowlevel is None:
                raise TypeError(f"mcp_servers[{key!r}] is not an in-process server: {server!r}")
            self.package_servers[key] = lowlevel

    @property
    def names(self) -> List[str]:
        """The server names, in ``mcp_servers`` order (for ``initialize.sdkMcpServers``)."""
        return list(self._order)

    def __len__(self) -> int:
        return len(self._servers) + len(self.package_servers)

    def __contains__(self, name: object) -> bool:
        return name in self._servers or name in self.package_servers

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def get(self, name: str) -> Optional[SdkMcpServer]:
        return self._servers.get(name)

    def route(self, server_name: str, message: Any) -> McpAction:
        """``handle`` on the named server; an unknown name gets a JSON-RPC error. Never raises."""
        server = self._servers.get(server_name)
        if server is not None:
            return server.handle(message, server_name)
        if server_name in self.package_servers:
            return McpForward(server_name, message)
        if isinstance(message, dict) and "id" not in message:
            return McpReply(None)  # a notification: JSON-RPC forbids answering it
        rpc_id = message.get("id") if isinstance(message, dict) else None
        return McpReply(
            _error(
                rpc_id if _is_valid_id(rpc_id) else None,
                METHOD_NOT_FOUND,
                f"No SDK MCP server named {server_name!r} in this session",
            )
        )


# ----------------------------------------------------------------------------- running


def run_tool_call(
    call: McpToolCall,
    signal: Optional[CancellationSignal] = None,
    on_error: Optional[Callable[[str, Exception], None]] = None,
) -> Dict[str, Any]:
    """Run ``call``'s handler in the calling thread; return the JSON-RPC response.

    ``on_error(tool_name, exc)`` is called with an exception the handler raised (before it
    becomes an ``isError`` result), so the shell can log it with its traceback.

    Arguments are checked against the tool's schema first (the handler is not called when
    they do not fit); a call whose ``signal`` is already set is not started. Failures are
    ``isError`` results, never JSON-RPC errors.

    Raises:
        BaseException: only what is not an ``Exception`` (KeyboardInterrupt, SystemExit)
            and was raised by the handler.
    """
    return _result(call.rpc_id, _call_tool(call, signal, on_error))


def _call_tool(
    call: McpToolCall,
    signal: Optional[CancellationSignal],
    on_error: Optional[Callable[[str, Exception], None]] = None,
) -> Dict[str, Any]:
    from .schema_validation import validate

    spec = call.tool
    if signal is not None and signal.is_set():
        return error_result(f"Tool '{spec.name}' was cancelled before it started.")
    problem = validate(spec.json_schema, call.arguments)
    if problem is not None:
        return error_result(f"Invalid arguments for tool '{spec.name}': {problem}")
    try:
        if spec.takes_context:
            context = ToolContext(
                signal=signal,
                tool_use_id=call.tool_use_id,
                meta=call.meta,
                server_name=call.server_name,
                request_id=call.rpc_id,
                tool_name=spec.name,
            )
            returned = spec.handler(call.arguments, context)
        else:
            returned = spec.handler(call.arguments)
    except Exception as exc:  # noqa: BLE001 - the model is told, the session goes on
        if on_error is not None:
            on_error(spec.name, exc)  # the shell logs it with its traceback
        text = str(exc)
        return error_result(
            f"Tool '{spec.name}' raised {type(exc).__name__}" + (f": {text}" if text else "")
        )
    return normalize_tool_result(spec.name, returned)
