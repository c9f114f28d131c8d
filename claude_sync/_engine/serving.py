"""Serving the CLI's requests: permission prompts, hook callbacks, in-process MCP servers
and the host dialogs (MCP elicitations, user dialogs; types in ``_callbacks.dialogs``).

Two parts:

- ``RequestServer``: the machinery. The session's reader thread hands it each CLI request
  (``dispatch``) and each cancel (``cancel``); it keeps the in-flight table (request id →
  cancellation signal, a ``threading.Event``), runs handlers on the ``claude_sync-callback-<n>``
  pool, and writes **exactly one answer** per request that was not cancelled — a success, or,
  when the handler failed in any way (``SystemExit``/``KeyboardInterrupt`` included) or its
  answer cannot be encoded as JSON, the handler's refusal (a deny for permissions:
  fail-closed) or an error response, with the reason logged.
- the handlers ``build_handlers`` makes from the options plan: each calls the pure adapters
  of ``_callbacks.permissions`` / ``_callbacks.hooks`` / ``_mcp.server`` around the user's function and
  returns the success payload. What the CLI does with each
  outcome is the fail-closed / fail-open table in the docstrings of ``_callbacks.permissions``
  and ``_callbacks.hooks``.
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._callbacks.dialogs import (
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
from .._callbacks.hook_types import HookContext
from .._callbacks.hooks import HookRegistry, hook_call_from_request, hook_output_to_wire
from .._callbacks.permissions import (
    PermissionRouting,
    callback_failure_reason,
    deny_all_permission_wire,
    fail_closed_permission_wire,
    permission_call_from_request,
    permission_result_to_wire,
)
from .._mcp.server import (
    McpAction,
    McpCancelled,
    McpForward,
    McpReply,
    McpToolCall,
    SdkMcpServers,
    mcp_control_response,
    run_tool_call,
)
from .._options.command import OptionsPlan
from .._redaction.redactor import redacted_logger
from .._wire.errors import ClaudeSDKError
from .._wire.framing import encode_frame
from .._wire.protocol import ControlRequestReceived, control_error_frame, control_success_frame
from .callback_pool import CallbackPool

__all__ = ["Handler", "RequestServer", "build_handlers"]

logger = redacted_logger("claude_sync.callbacks")

ServeFn = Callable[[ControlRequestReceived, threading.Event], Optional[Dict[str, Any]]]
"""Serves one CLI request on a pool thread; returns the success payload or raises."""
RouteFn = Callable[[ControlRequestReceived, threading.Event], None]
"""Reader-thread bookkeeping for one request, before it is queued: never user code, never
blocks (e.g. MCP routing, so a cancel notification finds the call it cancels)."""
RefuseFn = Callable[[ControlRequestReceived, str], Dict[str, Any]]
"""The success payload that refuses a request (``reason`` given), when serving it failed."""
CloseFn = Callable[[float], None]
"""Stops what a handler started (e.g. an ``mcp`` package server's thread), within a grace."""


class Handler:
    """How one request subtype is served: ``serve`` on the pool; ``route`` (optional) on the
    reader thread first; ``refuse`` (optional) builds the answer when serving failed or its
    answer cannot be encoded (default: an error response); ``close`` (optional) runs when the
    server closes, before its pool stops."""

    __slots__ = ("serve", "route", "refuse", "close")

    def __init__(
        self,
        serve: ServeFn,
        route: Optional[RouteFn] = None,
        refuse: Optional[RefuseFn] = None,
        close: Optional[CloseFn] = None,
    ) -> None:
        self.serve = serve
        self.route = route
        self.refuse = refuse
        self.close = close


class RequestServer:
    """Serves the CLI's control requests (see the module docstring).

    Threads: ``dispatch`` and ``cancel`` run on the session's reader thread (they never run
    user code or block); handlers and answers on the pool; ``signal_all``, ``in_flight`` on
    any thread; ``close`` on the closing thread. ``attach`` gives it the session's writer.
    """

    def __init__(self, handlers: Dict[str, Handler], workers: int) -> None:
        self.handlers = handlers
        self._pool = CallbackPool(workers, "claude_sync-callback")
        self._lock = threading.Lock()
        self._inflight: Dict[str, threading.Event] = {}
        self._accepting = True
        self._write: Optional[Callable[[bytes], None]] = None

    def attach(self, write: Callable[[bytes], None]) -> None:
        """Set how answers are written (the session's ``write_encoded``)."""
        self._write = write

    # -- the reader thread -------------------------------------------------------------

    def dispatch(self, event: ControlRequestReceived) -> None:
        """Register the request as in flight and queue it for the pool (reader thread)."""
        signal = threading.Event()
        with self._lock:
            if not self._accepting:
                return
            self._inflight[event.request_id] = signal
        handler = self.handlers.get(event.subtype)
        if handler is not None and handler.route is not None:
            handler.route(event, signal)
        self._pool.submit(self._serve, event, signal)

    def cancel(self, request_id: str) -> None:
        """The CLI withdrew a request: set its signal; it gets no answer (reader thread)."""
        with self._lock:
            signal = self._inflight.pop(request_id, None)
        if signal is None:
            logger.debug("control_cancel_request for %s, which is not in flight", request_id)
            return
        signal.set()

    # -- the pool ----------------------------------------------------------------------

    def _serve(self, event: ControlRequestReceived, signal: threading.Event) -> Optional[Tuple[Any, ...]]:
        """Pool thread: run the handler; returns the answer's write for the pool to run once
        the worker counts as idle (None: cancelled, or no response wanted)."""
        if event.request_id not in self._inflight:
            return None  # cancelled before it started (a cancel drops the entry): not run
        handler = self.handlers.get(event.subtype)
        try:
            if handler is None:
                raise ClaudeSDKError(f"claude_sync does not handle control request subtype {event.subtype!r}")
            frame = control_success_frame(event.request_id, handler.serve(event, signal) or {})
            try:
                data = encode_frame(frame)
            except (TypeError, ValueError, RecursionError) as exc:
                data = self._encode_harder(event, handler, frame, exc)
        except Exception as exc:  # noqa: BLE001 - any failure becomes an error response
            if not isinstance(exc, ClaudeSDKError):
                from .._redaction.redactor import redact_text  # a failing handler: first use only

                logger.error("Handler for CLI request %r failed: %s", event.subtype, redact_text(repr(exc)))
            data = encode_frame(control_error_frame(event.request_id, _wire_text(str(exc) or type(exc).__name__)))
        except BaseException as exc:  # noqa: BLE001 - SystemExit/KeyboardInterrupt in user code
            reason = callback_failure_reason(exc)
            logger.error("A callback for CLI request %r raised %s; refused instead", event.subtype, reason)
            data = self._refusal(event, handler, reason)
        if not self._forget(event.request_id):
            return None  # cancelled meanwhile: the CLI wants no answer
        return (self._answer, event.request_id, data)  # the answer provokes the next request

    def _encode_harder(
        self, event: ControlRequestReceived, handler: Handler, frame: Dict[str, Any], failure: BaseException
    ) -> bytes:
        """An answer ``encode_frame`` refused: lone surrogates are sent as JSON escapes;
        anything else JSON cannot carry (NaN, inf, a set, a datetime …) turns the answer into
        the refusal."""
        try:
            data = (json.dumps(frame, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n").encode()
        except (TypeError, ValueError, RecursionError) as exc:
            reason = f"the answer cannot be encoded as JSON ({type(exc).__name__}: {exc})"
            logger.error("Answer to CLI request %r (%s): %s; refused instead", event.subtype, event.request_id, reason)
            return self._refusal(event, handler, reason)
        logger.warning("Answer to CLI request %r had text JSON cannot carry as UTF-8 (%s); sent escaped", event.subtype, failure)
        return data

    def _refusal(self, event: ControlRequestReceived, handler: Optional[Handler], reason: str) -> bytes:
        reason = _wire_text(reason)
        if handler is not None and handler.refuse is not None:
            return encode_frame(control_success_frame(event.request_id, handler.refuse(event, reason)))
        return encode_frame(control_error_frame(event.request_id, reason))

    def _answer(self, request_id: str, data: bytes) -> None:
        """Pool thread: write the answer to a CLI request."""
        write = self._write
        if write is None:
            return
        try:
            write(data)
        except ClaudeSDKError as exc:
            logger.debug("Could not answer CLI request %s: %s", request_id, exc)

    def _forget(self, request_id: str) -> bool:
        """Drop an in-flight entry; False if it was already gone (cancelled)."""
        with self._lock:
            return self._inflight.pop(request_id, None) is not None

    # -- any thread --------------------------------------------------------------------

    def in_flight(self, request_id: str) -> bool:
        with self._lock:
            return request_id in self._inflight

    def signal_all(self) -> None:
        """Set every in-flight request's signal (interrupt, close)."""
        with self._lock:
            signals = list(self._inflight.values())
        for signal in signals:
            signal.set()

    def stop_accepting(self) -> None:
        """Refuse new requests from now on and signal the running ones (close, step one)."""
        with self._lock:
            self._accepting = False
        self.signal_all()

    def close(self, grace: float) -> List[str]:
        """Stop accepting, close the handlers (which releases workers waiting on them), then
        shut the pool down (bounded by ``grace``); the names of worker threads still busy
        (abandoned)."""
        self.stop_accepting()
        for handler in self.handlers.values():
            if handler.close is not None:
                try:
                    handler.close(grace)
                except Exception:  # noqa: BLE001 - closing goes on
                    logger.exception("Closing the handler of a CLI request subtype failed")
        return self._pool.shutdown(grace)

    @property
    def thread_count(self) -> int:
        return self._pool.thread_count

    def in_worker(self) -> bool:
        return self._pool.in_worker()


def _wire_text(text: str) -> str:
    """``text`` with anything UTF-8 cannot carry (lone surrogates) written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def build_handlers(plan: OptionsPlan) -> Dict[str, Handler]:
    """The request handlers that serve what ``plan`` carries: its permission routing, its
    hook registry and its SDK MCP servers (exactly the ones announced to the CLI).

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
            from .._mcp.bridge import McpPackageBridge  # imports mcp lazily, on the first message

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
