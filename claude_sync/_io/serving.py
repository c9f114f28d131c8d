"""Serving the CLI's requests: permission prompts, hook callbacks, in-process MCP servers,
MCP elicitations and user dialogs.

Each handler runs on a ``claude_sync-callback-<n>`` pool thread (never the reader), gets the
request and its cancellation signal (a ``threading.Event``), calls the pure adapters of
``_core.permissions`` / ``_core.hooks`` / ``_core.mcp`` around the user's function, and returns
the success payload. A raised exception becomes an error response (the session logs it);
``NoResponse`` sends nothing. What the CLI does with each outcome is the fail-closed /
fail-open table in the docstrings of ``_core.permissions`` and ``_core.hooks``.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._core.errors import ClaudeSDKError
from .._core.hook_types import HookContext
from .._core.hooks import HookRegistry, hook_call_from_request, hook_output_to_wire
from .._core.mcp import (
    McpAction,
    McpCancelled,
    McpForward,
    McpReply,
    McpToolCall,
    SdkMcpServers,
    mcp_control_response,
    run_tool_call,
)
from .._core.options import ClaudeAgentOptions
from .._core.permission_types import CanUseTool
from .._core.permissions import (
    callback_failure_reason,
    deny_all_permission_wire,
    fail_closed_permission_wire,
    permission_call_from_request,
    permission_result_to_wire,
)
from .._core.protocol import ControlRequestReceived
from .._core.ts_extras import (
    CANCELLED_DIALOG,
    DECLINE_ELICITATION,
    OnElicitation,
    OnUserDialog,
    elicitation_request_from_wire,
    elicitation_result_to_wire,
    user_dialog_request_from_wire,
    user_dialog_result_to_wire,
)
from .session import CliRequestHandler

__all__ = ["build_handlers"]

logger = logging.getLogger("claude_sync.callbacks")


def build_handlers(
    options: ClaudeAgentOptions, close_hooks: Optional[List[Callable[[float], None]]] = None
) -> Tuple[Dict[str, CliRequestHandler], Dict[str, Any]]:
    """The request handlers and the extra ``initialize`` fields ``options`` call for.

    What must be stopped when the session closes (the threads serving ``mcp`` package
    servers) is appended to ``close_hooks``, each called with the close grace in seconds.

    Raises ``ValueError``/``TypeError`` for invalid callback options (contradictions, bad hook
    matchers, a ``"sdk"`` MCP entry without a usable ``instance``), before any process starts.
    """
    if options.can_use_tool is not None and options.permission_prompt_tool_name is not None:
        raise ValueError("can_use_tool and permission_prompt_tool_name are mutually exclusive")
    if options.can_use_tool is not None and options.deny_all_permissions:
        raise ValueError("can_use_tool and deny_all_permissions are mutually exclusive")
    handlers: Dict[str, CliRequestHandler] = {
        "can_use_tool": _permission_handler(options.can_use_tool, options.deny_all_permissions),
    }
    initialize: Dict[str, Any] = {}
    registry = HookRegistry.from_options(options.hooks)
    if len(registry):
        handlers["hook_callback"] = _hook_handler(registry)
        initialize["hooks"] = registry.initialize_hooks_field()
    _add_mcp_handlers(options, handlers, close_hooks)
    _add_host_dialog_handlers(options, handlers)
    return handlers, initialize


def _permission_handler(callback: Optional[CanUseTool], deny_all: bool) -> CliRequestHandler:
    def serve_permission(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        request = event.request
        tool_use_id = request.get("tool_use_id")
        if deny_all:
            return deny_all_permission_wire(str(request.get("tool_name", "")), tool_use_id)
        if callback is None:
            return fail_closed_permission_wire(
                "claude_sync has no can_use_tool callback to ask", tool_use_id
            )
        tool_name, tool_input, context = permission_call_from_request(
            request, signal=signal, request_id=event.request_id
        )
        try:
            result = callback(tool_name, tool_input, context)
            return permission_result_to_wire(
                result, original_input=tool_input, tool_use_id=context.tool_use_id
            )
        except Exception as exc:  # noqa: BLE001 - fail closed, keep the session
            reason = callback_failure_reason(exc)
            logger.error("can_use_tool failed for %s (%s); the tool is denied", tool_name, reason)
            return fail_closed_permission_wire(reason, context.tool_use_id)

    return serve_permission


def _hook_handler(registry: HookRegistry) -> CliRequestHandler:
    def serve_hook(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        callback_id, hook_input, tool_use_id = hook_call_from_request(event.request)
        callback = registry.lookup(callback_id)
        context = HookContext(signal=signal, request_id=event.request_id, callback_id=callback_id)
        try:
            return hook_output_to_wire(callback(hook_input, tool_use_id, context))
        except Exception as exc:  # noqa: BLE001 - becomes the error response, fail-open
            # The error response's text: "Hook hook_0 (PreToolUse) failed: ValueError: boom".
            # A ClaudeSDKError, so the session sends it without logging it a second time.
            failure = ClaudeSDKError(
                f"Hook {callback_id} ({hook_input.get('hook_event_name')}) failed: "
                f"{callback_failure_reason(exc)}"
            )
            logger.error("%s; the CLI treats this as no decision (fail-open)", failure)
            raise failure from exc

    return serve_hook


def _add_host_dialog_handlers(
    options: ClaudeAgentOptions, handlers: Dict[str, CliRequestHandler]
) -> None:
    """``elicitation`` is always answered (a decline without ``on_elicitation``);
    ``request_user_dialog`` only with ``on_user_dialog`` (see ``_core.ts_extras``)."""
    handlers["elicitation"] = _elicitation_handler(options.on_elicitation)
    if options.on_user_dialog is not None:
        handlers["request_user_dialog"] = _user_dialog_handler(options.on_user_dialog)


def _elicitation_handler(callback: Optional[OnElicitation]) -> CliRequestHandler:
    def serve_elicitation(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        if callback is None:
            return dict(DECLINE_ELICITATION)
        request = elicitation_request_from_wire(event.request, signal, event.request_id)
        try:
            return elicitation_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: decline, keep the session
            logger.error(
                "on_elicitation failed for %s (%s); declined",
                request.server_name,
                callback_failure_reason(exc),
            )
            return dict(DECLINE_ELICITATION)

    return serve_elicitation


def _user_dialog_handler(callback: OnUserDialog) -> CliRequestHandler:
    def serve_user_dialog(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        request = user_dialog_request_from_wire(event.request, signal, event.request_id)
        try:
            return user_dialog_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: cancelled (the dialog's default)
            logger.error(
                "on_user_dialog failed for %s (%s); answered cancelled",
                request.dialog_kind,
                callback_failure_reason(exc),
            )
            return dict(CANCELLED_DIALOG)

    return serve_user_dialog


def _add_mcp_handlers(
    options: ClaudeAgentOptions,
    handlers: Dict[str, CliRequestHandler],
    close_hooks: Optional[List[Callable[[float], None]]],
) -> None:
    """Serve ``mcp_message`` for the in-process servers in ``options.mcp_servers``."""
    servers = SdkMcpServers.from_options(options.mcp_servers)
    if not servers.names:
        return
    package_bridges: Dict[str, Any] = {}
    if servers.package_servers:
        from .mcp_bridge import McpPackageBridge  # imports mcp lazily, on the first message

        if close_hooks is None:
            raise ValueError("mcp package servers need a session that closes them")
        for key, server in servers.package_servers.items():
            package_bridges[key] = McpPackageBridge(key, server)
            close_hooks.append(package_bridges[key].close)
    bridge = _McpBridge(servers, package_bridges)
    handlers["@reader:mcp_message"] = bridge.route_on_reader
    handlers["mcp_message"] = bridge.serve


class _McpBridge:
    """Routes JSON-RPC messages to in-process servers; tool calls run on the pool.

    Routing happens on the reader thread (pure, never user code), so a
    ``notifications/cancelled`` always finds the call it cancels, even when every pool
    thread is busy: it sets that call's signal right there.

    Both tables are keyed or valued by the request's signal (one ``threading.Event`` per CLI
    request, which the session passes to both steps) and hold it weakly: a request the session
    never serves (cancelled by ``control_cancel_request`` before a worker took it) leaves no
    entry behind once the session drops its signal.
    """

    def __init__(self, servers: SdkMcpServers, package_bridges: Dict[str, Any]) -> None:
        self._servers = servers
        self._package_bridges = package_bridges
        self._lock = threading.Lock()
        self._actions: weakref.WeakKeyDictionary[threading.Event, McpAction] = (
            weakref.WeakKeyDictionary()
        )
        self._calls: weakref.WeakValueDictionary[Tuple[str, Any], threading.Event] = (
            weakref.WeakValueDictionary()
        )

    def route_on_reader(self, event: ControlRequestReceived, signal: threading.Event) -> None:
        """Reader thread: route, register tool calls, apply cancellations."""
        request = event.request
        action = self._servers.route(str(request.get("server_name", "")), request.get("message"))
        with self._lock:
            self._actions[signal] = action
            if isinstance(action, McpToolCall):
                self._calls[action.key] = signal
            elif isinstance(action, McpCancelled):
                cancelled = self._calls.get(action.key)
                if cancelled is not None:
                    cancelled.set()

    def serve(self, event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        """Pool thread: answer the routed message (running the tool here, if it is a call)."""
        with self._lock:
            action = self._actions.pop(signal)
        if isinstance(action, McpForward):
            bridge = self._package_bridges[action.server_name]
            return mcp_control_response(bridge.handle(action.message, signal))
        if isinstance(action, McpToolCall):
            try:
                return mcp_control_response(run_tool_call(action, signal))
            finally:
                with self._lock:
                    if self._calls.get(action.key) is signal:
                        del self._calls[action.key]
        return mcp_control_response(action.response if isinstance(action, McpReply) else None)
