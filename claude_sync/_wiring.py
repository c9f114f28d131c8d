"""The wiring: options → a ``Session`` with the request handlers and extensions that serve them.

The one module that puts the features (``_callbacks``, ``_mcp``, ``_sessions``) onto the
engine, which names none of them.

``build_session`` (called by ``ClaudeSDKClient.connect`` and by ``query()``'s first
``next()``) validates and interprets the options once (``_options.command.interpret_options``
→ an ``OptionsPlan``) and gives the engine three things made from them:

- the **request handlers** (``build_handlers``), one per CLI request subtype the run serves:
  ``can_use_tool`` (``_callbacks.permissions``), ``hook_callback`` (``_callbacks.hooks``),
  ``mcp_message`` (``_mcp.server``, ``_mcp.bridge``), ``elicitation`` and
  ``request_user_dialog`` (``_callbacks.dialogs``); each calls the pure adapters around the
  user's function and returns the success payload. The ``RequestServer``
  (``_engine.serving``) runs them on the callback pool and writes their answers. What the CLI
  does with each outcome is the fail-closed / fail-open table in the docstrings of
  ``_callbacks.permissions`` and ``_callbacks.hooks``;
- the **connection extensions** (``connection_extensions``, made when ``connect`` starts):
  the session store's bridge (``_sessions.store_bridge``: its ``prepare`` re-plans the options
  for a resume from the store), the host-death watch, the wire log, the CLI-version check;
- the **plan** itself, which the engine turns into argv, env and ``initialize``
  (``_engine.spawn``).

A ``can_use_tool`` request, end to end: the reader thread (``_engine.reader``) parses the
line (``_wire.protocol``) and hands it to ``RequestServer.dispatch`` (``_engine.serving``),
which queues it on the pool (``_engine.callback_pool``); a pool thread runs
``serve_permission`` here, which turns the request into the callback's arguments
(``_callbacks.permissions.permission_call_from_request``), calls the user's ``can_use_tool``
and turns its result into the answer (``permission_result_to_wire``); ``RequestServer``
writes it through the session (``_engine.connection.Session.write_encoded``) to the
transport. Thread of each function: said in its docstring.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ._callbacks.dialogs import (
    CANCELLED_DIALOG,
    DECLINE_ELICITATION,
    HostCallbacks,
    OnElicitation,
    OnUserDialog,
    elicitation_request_from_wire,
    elicitation_result_to_wire,
    user_dialog_request_from_wire,
    user_dialog_result_to_wire,
)
from ._callbacks.hook_types import HookContext
from ._callbacks.hooks import HookRegistry, hook_call_from_request, hook_output_to_wire
from ._callbacks.permissions import (
    PermissionRouting,
    deny_all_permission_wire,
    fail_closed_permission_wire,
    permission_call_from_request,
    permission_result_to_wire,
)
from ._display.redaction import redacted_logger
from ._engine.connection import Session
from ._engine.extensions import ConnectionExtension
from ._engine.serving import Handler, RequestServer, ServeFn
from ._engine.transport import Transport
from ._mcp.server import (
    McpAction,
    McpCancelled,
    McpForward,
    McpReply,
    McpToolCall,
    SdkMcpServers,
    mcp_control_response,
    run_tool_call,
)
from ._options.command import OptionsPlan, interpret_options
from ._options.options import ClaudeAgentOptions
from ._options.validation import validate_options
from ._wire.errors import ClaudeSDKError, callback_failure_reason
from ._wire.protocol import ControlRequestReceived

if TYPE_CHECKING:  # pragma: no cover
    from ._tracing.otel import TraceHolder

__all__ = ["build_handlers", "build_session", "connection_extensions", "host_dialog_handlers"]

logger = redacted_logger("claude_sync.callbacks")


def build_session(
    options: ClaudeAgentOptions, transport: Optional[Transport] = None, *, tracing: Optional[TraceHolder] = None
) -> Session:
    """A not-yet-connected session for ``options``, interpreted once (``interpret_options``):
    the session spawns from that plan and the request handlers serve from it; over
    ``transport`` (None: the CLI as a child process). ``tracing``: the runs the callbacks
    belong to, for their spans (``claude_sync._tracing.otel``; None: no callback spans).
    Caller's thread.

    Raises ``ValueError`` / ``TypeError`` for invalid options (e.g. ``can_use_tool`` together
    with ``permission_prompt_tool_name``), before anything starts.
    """
    validate_options(options)  # again: options are mutable after construction
    plan = interpret_options(options)
    handlers = build_handlers(plan)
    if tracing is not None:
        from ._tracing.otel import traced_handlers

        handlers = traced_handlers(handlers, tracing)
    server = RequestServer(handlers, options.callback_workers)
    return Session(options, plan=plan, server=server, transport=transport, extensions=connection_extensions)


def connection_extensions(session: Session) -> List[ConnectionExtension]:
    """A connection's extensions, in order (the connecting thread, when ``connect`` starts):
    the session store's bridge (with ``options.session_store``), the host-death watch, the
    wire log (``claude_sync.wire`` at DEBUG) and, with ``verbatim_prompts``, the CLI-version
    check. Loads each feature's module on its first use only."""
    from ._engine.host_death import HostDeathWatch
    from ._engine.wire_log import wire_tap

    options = session.options
    found: List[Optional[ConnectionExtension]] = []
    if options.session_store is not None:
        from ._sessions.store_bridge import (  # session stores: first use only
            StoreBridge,
            mirror_error_frame,
        )

        def report(key: Any, error: str) -> None:
            session.put_message(mirror_error_frame(key, error))

        found.append(StoreBridge(options.session_store, report))
    found += [HostDeathWatch(session), wire_tap(session)]
    if options.verbatim_prompts:
        from ._engine.notices import VerbatimPromptsCheck

        found.append(VerbatimPromptsCheck())
    return [extension for extension in found if extension is not None]


def build_handlers(plan: OptionsPlan) -> Dict[str, Handler]:
    """The request handlers that serve what ``plan`` carries: its permission routing, its
    hook registry, its SDK MCP servers (exactly the ones announced to the CLI) and its host
    dialogs. Caller's thread; the handlers run on the callback pool.

    Raises nothing: the options were checked when the plan was made.
    """
    handlers: Dict[str, Handler] = {
        "can_use_tool": Handler(_permission_handler(plan.permissions), refuse=_deny_on_failure),
    }
    if len(plan.hooks):
        handlers["hook_callback"] = Handler(_hook_handler(plan.hooks))
    if plan.sdk_mcp_servers:
        bridge = _McpBridge(SdkMcpServers(plan.sdk_mcp_servers))
        handlers["mcp_message"] = Handler(bridge.serve, route=bridge.route_on_reader, close=bridge.close)

    handlers.update(host_dialog_handlers(plan.host_callbacks))
    return handlers


def _deny_on_failure(event: ControlRequestReceived, reason: str) -> Dict[str, Any]:
    """Permissions fail closed: whatever went wrong, the tool is denied."""
    return fail_closed_permission_wire(reason, event.request.get("tool_use_id"))


def _permission_handler(routing: PermissionRouting) -> ServeFn:
    callback, deny_all = routing.callback, routing.deny_all

    def serve_permission(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        """Pool thread: one ``can_use_tool`` request → the user's callback → the answer."""
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


def _hook_handler(registry: HookRegistry) -> ServeFn:
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
        self._package_bridges: Dict[str, Any] = {}
        if servers.package_servers:
            from ._mcp.bridge import McpPackageBridge  # imports mcp lazily, on the first message

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


# ----------------------------------------------------------------------------- host dialogs


def host_dialog_handlers(callbacks: HostCallbacks) -> Dict[str, Handler]:
    """``elicitation`` is always answered (a decline without ``on_elicitation``);
    ``request_user_dialog`` only with ``on_user_dialog``."""
    handlers = {"elicitation": Handler(_elicitation_handler(callbacks.on_elicitation))}
    if callbacks.on_user_dialog is not None:
        handlers["request_user_dialog"] = Handler(_user_dialog_handler(callbacks.on_user_dialog))
    return handlers


def _elicitation_handler(callback: Optional[OnElicitation]) -> ServeFn:
    def serve_elicitation(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        if callback is None:
            return dict(DECLINE_ELICITATION)
        request = elicitation_request_from_wire(event.request, signal, event.request_id)
        try:
            return elicitation_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: decline, keep the session
            reason = callback_failure_reason(exc)
            logger.error("on_elicitation failed for %s (%s); declined", request.server_name, reason)
            return dict(DECLINE_ELICITATION)

    return serve_elicitation


def _user_dialog_handler(callback: OnUserDialog) -> ServeFn:
    def serve_user_dialog(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        request = user_dialog_request_from_wire(event.request, signal, event.request_id)
        try:
            return user_dialog_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: cancelled (the dialog's default)
            reason = callback_failure_reason(exc)
            logger.error("on_user_dialog failed for %s (%s); answered cancelled", request.dialog_kind, reason)
            return dict(CANCELLED_DIALOG)

    return serve_user_dialog
