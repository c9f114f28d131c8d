"""Serving the CLI's requests: the ``RequestServer``.

The session's reader thread hands it each CLI request (``dispatch``) and each cancel
(``cancel``); it keeps the in-flight table (request id → cancellation signal, a
``threading.Event``), runs the handler of the request's subtype on the
``claude_sync-callback-<n>`` pool, and writes **exactly one answer** per request that was not
cancelled — a success, or, when the handler failed in any way (``SystemExit``/
``KeyboardInterrupt`` included) or its answer cannot be encoded as JSON, the handler's refusal
(a deny for permissions: fail-closed) or an error response, with the reason logged.

Which handlers serve which subtype (permission prompts, hook callbacks, in-process MCP
servers, host dialogs) is the wiring's choice: ``claude_sync._wiring.build_handlers``. This
module knows no feature.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._redaction.redactor import redact_text, redacted_logger
from .._wire.errors import ClaudeSDKError, callback_failure_reason
from .._wire.framing import encode_frame
from .._wire.protocol import ControlRequestReceived, control_error_frame, control_success_frame
from .callback_pool import CallbackPool
from .green import request_signal

__all__ = ["CloseFn", "Handler", "RefuseFn", "RequestServer", "RouteFn", "ServeFn"]

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
        signal = request_signal()
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
