"""Serving the CLI's requests: permission prompts, hook callbacks, in-process MCP servers.

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
from typing import Any, Dict, Tuple

from .._core.command import OptionsPlan
from .._core.errors import ClaudeSDKError
from .._core.hook_types import HookContext
from .._core.hooks import HookRegistry, hook_call_from_request, hook_output_to_wire
from .._core.mcp import (
    McpAction,
    McpCancelled,
    McpReply,
    McpToolCall,
    SdkMcpServers,
    mcp_control_response,
    run_tool_call,
)
from .._core.permissions import (
    PermissionRouting,
    callback_failure_reason,
    deny_all_permission_wire,
    fail_closed_permission_wire,
    permission_call_from_request,
    permission_result_to_wire,
)
from .._core.protocol import ControlRequestReceived
from .session import CliRequestHandler

__all__ = ["build_handlers"]

logger = logging.getLogger("claude_sync.callbacks")


def build_handlers(plan: OptionsPlan) -> Dict[str, CliRequestHandler]:
    """The request handlers that serve what ``plan`` carries: its permission routing, its
    hook registry and its SDK MCP servers (exactly the ones announced to the CLI).

    Raises nothing: the options were checked when the plan was made.
    """
    handlers: Dict[str, CliRequestHandler] = {
        "can_use_tool": _permission_handler(plan.permissions),
    }
    if len(plan.hooks):
        handlers["hook_callback"] = _hook_handler(plan.hooks)
    if plan.sdk_mcp_servers:
        bridge = _McpBridge(SdkMcpServers(plan.sdk_mcp_servers))
        handlers["@reader:mcp_message"] = bridge.route_on_reader
        handlers["mcp_message"] = bridge.serve
    return handlers


def _permission_handler(routing: PermissionRouting) -> CliRequestHandler:
    callback, deny_all = routing.callback, routing.deny_all

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
            logger.error("can_use_tool failed for %s (%s); the tool is denied", tool_name, reason, exc_info=exc)
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
            logger.error("%s; the CLI treats this as no decision (fail-open)", failure, exc_info=exc)
            raise failure from exc

    return serve_hook


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

    def __init__(self, servers: SdkMcpServers) -> None:
        self._servers = servers
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
        if isinstance(action, McpToolCall):
            try:
                return mcp_control_response(run_tool_call(action, signal))
            finally:
                with self._lock:
                    if self._calls.get(action.key) is signal:
                        del self._calls[action.key]
        return mcp_control_response(action.response if isinstance(action, McpReply) else None)
