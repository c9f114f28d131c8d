"""The CLI's ``mcp_message`` requests for the in-process MCP servers: routed on the reader
thread, served on the callback pool (``McpRequests``).

Routing (``McpRequests.route_on_reader``) is pure ``server.SdkMcpServers.route`` plus two weak
tables, so a ``notifications/cancelled`` finds the call it cancels even when every pool thread
is busy; serving (``McpRequests.serve``) runs the tool (``server.run_tool_call``) or forwards
the message to an ``mcp`` package server (``bridge``). I/O: a lock shared by both threads.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Dict, Tuple

from .._redaction.redactor import redacted_logger
from .._wire.protocol import ControlRequestReceived
from .server import (
    McpAction,
    McpCancelled,
    McpForward,
    McpReply,
    McpToolCall,
    SdkMcpServers,
    mcp_control_response,
    run_tool_call,
)

__all__ = ["McpRequests"]

logger = redacted_logger("claude_sync.callbacks")


class McpRequests:
    """This run's ``mcp_message`` requests: JSON-RPC messages routed to its in-process servers;
    tool calls run on the callback pool.

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
        self._package_bridges: Dict[str, Any] = {}
        if servers.package_servers:
            from .bridge import McpPackageBridge  # imports mcp lazily, on the first message

            for key, server in servers.package_servers.items():
                self._package_bridges[key] = McpPackageBridge(key, server)
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
                return mcp_control_response(run_tool_call(action, signal, _log_tool_failure))
            finally:
                with self._lock:
                    if self._calls.get(action.key) is signal:
                        del self._calls[action.key]
        return mcp_control_response(action.response if isinstance(action, McpReply) else None)

    def close(self, grace: float) -> None:
        """Stop the threads serving ``mcp`` package servers (joined within ``grace``)."""
        for bridge in self._package_bridges.values():
            bridge.close(grace)


def _log_tool_failure(tool_name: str, exc: Exception) -> None:
    """Pool thread: an in-process MCP tool raised; the model gets an ``isError`` result."""
    logger.error("MCP tool %r raised (the model gets an error result)", tool_name, exc_info=exc)
