"""A run's OpenTelemetry spans and metrics (the shell over ``semconv`` and ``tool_calls``).

Only when the application uses OpenTelemetry: ``RunTrace.begin`` returns None unless
``opentelemetry.trace`` is already imported, so a program without it imports nothing and
pays one ``sys.modules`` look-up per run. With it, spans go to whatever tracer provider the
application set up (none: the API's no-op spans).

Spans of one run::

    <the caller's current span>
    └── invoke_agent claude_code            the run (query() / a client turn / a pool run)
        ├── execute_tool Agent              from its tool_use to its tool_result
        │   └── execute_tool Bash           a call the subagent made (parent_tool_use_id)
        ├── claude_sync.can_use_tool Bash   the permission callback, on its pool thread
        ├── claude_sync.hook PreToolUse     each hook callback
        └── claude_sync.mcp_tool add        each in-process MCP tool handler

Tool spans start and end when the consumer's thread sees the ``tool_use`` and the
``tool_result`` (a consumer that stops reading stretches them); a background ``Agent`` call's
span lasts until its task ends (``tool_calls``), so the subagent's calls sit under it on every
CLI; callback spans are children
of the run span (not of the tool span: the callback may run before the consumer has seen the
``tool_use``), named by ``gen_ai.tool.call.id``.

Text: the prompt, the answer and an exception's message and traceback (they may quote either)
are recorded only when ``semconv.CONTENT_ENV`` is ``true`` (known secrets removed); otherwise an
error is recorded by its type alone.

Threads: ``begin``/``observe``/``end`` on the thread that iterates the run; ``callback_span``
on the callback pool's threads (it only reads the run span's context). Nothing here raises
into the run: an OpenTelemetry failure is logged at debug level and the run goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import traceback
import weakref
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

from .._engine.serving import Handler
from .._redaction.redactor import redacted_logger, scrub
from .._version import __version__
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.run_totals import RunTotals, run_totals
from .._wire.system_messages import SystemMessage
from . import semconv
from .openinference import MODES, TRACING_ENV, openinference_attributes, tracing_mode
from .tool_calls import ToolCallEnded, ToolCalls, ToolCallStarted

__all__ = [
    "RunTrace", "TraceHolder", "attached", "caller_context", "otel_in_use", "traced_handlers", "untraced", "watch_pool",
]  # fmt: skip

logger = redacted_logger("claude_sync.tracing")

SCOPE = "claude_sync"
"""The instrumentation scope of every span and metric of the library."""


def otel_in_use() -> bool:
    """Whether the application imported OpenTelemetry's tracing API (any thread)."""
    return "opentelemetry.trace" in sys.modules


class RunTrace:
    """The spans of one run (see the module docstring for threads)."""

    def __init__(self, kind: str, model: Optional[str], prompt: Any = None, before: Optional[ResultMessage] = None) -> None:
        from opentelemetry import context, trace

        self._trace = trace
        self._context = context
        self.started = time.monotonic()
        self.model: Optional[str] = None
        self.request_model = model
        self.kind = kind
        self.content = semconv.content_allowed(os.environ)
        self.span = trace.get_tracer(SCOPE, __version__).start_span(
            semconv.run_span_name(), kind=trace.SpanKind.CLIENT, attributes=semconv.run_attributes(kind, model)
        )
        self.openinference = tracing_mode(os.environ) == "openinference"
        if self.openinference:
            self.span.set_attributes(openinference_attributes(semconv.run_attributes(kind, model)))
        self.parent = trace.set_span_in_context(self.span)
        """The context whose current span is the run's: the parent of its tool and callback spans."""
        if self.content and isinstance(prompt, str):
            self.span.set_attribute("gen_ai.input.messages", _messages_json("user", prompt))
            if self.openinference:
                self.span.set_attributes({"input.value": scrub(prompt), "input.mime_type": "text/plain"})
        self._calls = ToolCalls()
        self._tool_spans: Dict[str, Any] = {}
        self._ended_tool_spans: Dict[str, Any] = {}
        """Tool spans already ended, by call id: a background agent's calls still go under its
        ``Agent`` span when that call's result came first (its task not tracked)."""
        self._results: List[ResultMessage] = []
        self._before = before
        self._ended = False

    @classmethod
    def begin(cls, kind: str, model: Optional[str], prompt: Any = None, before: Optional[ResultMessage] = None) -> Optional[RunTrace]:
        """A run span under the caller's current span, or None when OpenTelemetry is not in
        use (or failed: logged at debug level). Caller's thread. ``before``: the CLI's last
        result before this run (a client's earlier turn): its running totals are not this
        run's (``run_totals``)."""
        if not otel_in_use():
            return None
        try:
            if _untraced_now() or _switched_off():
                return None
            return cls(kind, model, prompt, before)
        except Exception:  # noqa: BLE001 - tracing never breaks a run
            logger.debug("could not start the run's span", exc_info=True)
            return None

    def holder(self) -> TraceHolder:
        """A ``TraceHolder`` of this run alone (one ``query()``: one run per connection)."""
        return TraceHolder(self)

    @contextlib.contextmanager
    def current(self) -> Iterator[None]:
        """Make the run span current on this thread for the block (around ``connect()``, so
        the CLI is given it as ``TRACEPARENT``)."""
        token = self._context.attach(self.parent)
        try:
            yield
        finally:
            self._context.detach(token)

    def observe(self, item: Any) -> None:
        """Follow one stream item: the model, tool spans, and a result's attributes."""
        try:
            self._observe(item)
        except Exception:  # noqa: BLE001
            logger.debug("could not trace a message", exc_info=True)

    def _observe(self, item: Any) -> None:
        if isinstance(item, AssistantMessage):
            if item.parent_tool_use_id is None and item.model:
                self.model = item.model
        elif isinstance(item, SystemMessage) and item.subtype == "init" and self.model is None:
            model = item.data.get("model")
            self.model = model if isinstance(model, str) else None
        for event in self._calls.observe(item):
            if isinstance(event, ToolCallStarted):
                self._start_tool(event)
            else:
                self._end_tool(event)
        if isinstance(item, ResultMessage):
            self._note_result(item)

    def _start_tool(self, event: ToolCallStarted) -> None:
        parent_span = None
        if event.agent is not None:
            parent_span = self._tool_spans.get(event.agent) or self._ended_tool_spans.get(event.agent)
        parent = self.parent if parent_span is None else self._trace.set_span_in_context(parent_span)
        self._tool_spans[event.call_id] = span = self._trace.get_tracer(SCOPE, __version__).start_span(
            semconv.tool_span_name(event.name),
            context=parent,
            kind=self._trace.SpanKind.INTERNAL,
            attributes=semconv.tool_attributes(event.name, event.call_id, event.agent),
        )
        if self.openinference:
            span.set_attributes(openinference_attributes(semconv.tool_attributes(event.name, event.call_id, event.agent)))

    def _end_tool(self, event: ToolCallEnded) -> None:
        span = self._tool_spans.pop(event.call_id, None)
        if span is None:
            return
        self._ended_tool_spans[event.call_id] = span
        if event.background:
            span.set_attribute("claude_sync.tool.background", True)
        if event.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, "the tool failed or was denied"))
        span.end()

    def _note_result(self, result: ResultMessage) -> None:
        """A result ends a turn, not necessarily the run: the span's figures are the run's so
        far (``run_totals``); the metrics are recorded once, at ``end``."""
        self._results.append(result)
        attributes = semconv.result_attributes(result, self.model or self.request_model, self._totals())
        self.span.set_attributes(attributes)
        if self.openinference:
            self.span.set_attributes(openinference_attributes(attributes))
        if self.content and isinstance(result.result, str):
            self.span.set_attribute("gen_ai.output.messages", _messages_json("assistant", result.result))
            if self.openinference:
                self.span.set_attributes({"output.value": scrub(result.result), "output.mime_type": "text/plain"})
        if result.is_error:
            self.span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, f"error result ({result.subtype})"))

    def _totals(self) -> RunTotals:
        before = self._before
        if before is None:
            return run_totals(self._results)
        model_usage = before.model_usage if isinstance(before.model_usage, dict) else {}
        return run_totals(self._results, before.total_cost_usd or 0.0, model_usage)

    def end(self, error: Optional[BaseException] = None) -> None:
        """End the run span (and tool spans still open); ``error``: what the run raised.
        Idempotent; never raises."""
        if self._ended:
            return
        self._ended = True
        try:
            for span in self._tool_spans.values():
                span.set_attribute("claude_sync.tool.unfinished", True)
                span.end()
            self._tool_spans.clear()
            if error is not None:
                self.span.set_attribute("error.type", semconv.error_type(error))
                self._record_exception(self.span, error)
                self.span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, semconv.error_type(error)))
            self.span.end()
            if self._results:
                _metrics().record_result(self._totals(), self.model or self.request_model)
            _metrics().record_duration(time.monotonic() - self.started, self.model or self.request_model, error)
        except Exception:  # noqa: BLE001
            logger.debug("could not end the run's span", exc_info=True)

    def _record_exception(self, span: Any, error: BaseException) -> None:
        """``error`` on ``span``: with its text and traceback (known secrets removed) only when content
        capture is on (the text may quote the model or the user); else its type alone."""
        if self.content:
            trace_text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            span.record_exception(error, attributes={"exception.message": scrub(str(error)), "exception.stacktrace": scrub(trace_text)})
        else:
            span.add_event("exception", semconv.exception_attributes(error))

    @contextlib.contextmanager
    def callback_span(self, subtype: str, request: Mapping[str, Any]) -> Iterator[Any]:
        """A span around one served callback, child of the run span (pool thread); yields it,
        or None when OpenTelemetry failed to make one (logged at debug level: the callback
        is served all the same). Its status is ERROR when the block raised; the error
        propagates."""
        started = time.monotonic()
        span = self._start_callback_span(subtype, request)
        failed: Optional[BaseException] = None
        try:
            yield span
        except BaseException as exc:
            failed = exc
            raise
        finally:
            self._end_callback_span(span, subtype, time.monotonic() - started, failed)

    def _start_callback_span(self, subtype: str, request: Mapping[str, Any]) -> Any:
        try:
            attributes = semconv.callback_attributes(subtype, request)
            tracer = self._trace.get_tracer(SCOPE, __version__)
            return tracer.start_span(_callback_span_name(subtype, attributes), context=self.parent, attributes=attributes)
        except Exception:  # noqa: BLE001 - tracing never fails a callback
            logger.debug("could not start a callback's span", exc_info=True)
            return None

    def _end_callback_span(self, span: Any, subtype: str, seconds: float, failed: Optional[BaseException]) -> None:
        try:
            if span is not None:
                if failed is not None:
                    self._record_exception(span, failed)
                    span.set_attribute("error.type", semconv.error_type(failed))
                    span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, semconv.error_type(failed)))
                span.end()
            _metrics().record_callback(subtype, seconds, failed)
        except Exception:  # noqa: BLE001
            logger.debug("could not end a callback's span", exc_info=True)


class TraceHolder:
    """Which run a connection's callbacks belong to now (``run``: set by the thread driving
    runs, read by the callback pool). One per connection."""

    __slots__ = ("run",)

    def __init__(self, run: Optional[RunTrace] = None) -> None:
        self.run = run


def traced_handlers(handlers: Dict[str, Handler], holder: TraceHolder) -> Dict[str, Handler]:
    """``handlers`` whose ``serve`` runs inside a callback span of ``holder.run`` (when a
    run is being traced; else exactly as before)."""
    return {
        subtype: Handler(_traced_serve(subtype, handler.serve, holder), handler.route, handler.refuse, handler.close)
        for subtype, handler in handlers.items()
    }


def _traced_serve(subtype: str, serve: Callable[..., Any], holder: TraceHolder) -> Callable[..., Any]:
    def traced(event: Any, signal: Any) -> Any:
        run = holder.run
        if run is None:
            return serve(event, signal)
        with run.callback_span(subtype, event.request) as span:
            answer = serve(event, signal)
            if span is not None:
                _note_answer(span, answer)
            return answer

    traced.__wrapped__ = serve  # type: ignore[attr-defined]  # inspect.unwrap finds the handler
    return traced


def _note_answer(span: Any, answer: Any) -> None:
    """The decision a callback answered with, on its span (permission behavior, hook decision).
    Never raises."""
    try:
        _set_decision(span, answer)
    except Exception:  # noqa: BLE001
        logger.debug("could not note a callback's answer", exc_info=True)


def _set_decision(span: Any, answer: Any) -> None:
    if not isinstance(answer, dict):
        return
    behavior = answer.get("behavior")
    if isinstance(behavior, str):
        span.set_attribute("claude_sync.permission.behavior", behavior)
    specific = answer.get("hookSpecificOutput")
    decision = specific.get("permissionDecision") if isinstance(specific, dict) else answer.get("decision")
    if isinstance(decision, str):
        span.set_attribute("claude_sync.hook.decision", decision)


def _callback_span_name(subtype: str, attributes: Mapping[str, Any]) -> str:
    if subtype == "can_use_tool":
        return f"claude_sync.can_use_tool {attributes.get('gen_ai.tool.name', '')}".rstrip()
    if subtype == "hook_callback":
        return f"claude_sync.hook {attributes.get('claude_sync.hook.event', '')}".rstrip()
    if subtype == "mcp_message":
        return f"claude_sync.mcp_tool {attributes.get('gen_ai.tool.name', '')}".rstrip()
    return f"claude_sync.{subtype}"


def _messages_json(role: str, text: str) -> str:
    """``gen_ai.input.messages`` / ``gen_ai.output.messages``: one text message, with the
    secret values claude_sync knows redacted (``scrub``: the words are not otherwise rewritten)."""
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": scrub(text)}]}])


# ----------------------------------------------------------------------------- metrics


class _Metrics:
    """The library's instruments (made once, on the first run traced)."""

    def __init__(self) -> None:
        from opentelemetry import metrics

        meter = metrics.get_meter(SCOPE, __version__)
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens used per run, by type"
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="Wall time of a run"
        )
        self.cost = meter.create_counter("claude_sync.cost", unit="USD", description="What runs cost, as the CLI reports it")
        self.callbacks = meter.create_histogram(
            "claude_sync.callback.duration", unit="s", description="Time the application's callbacks took"
        )
        self.pools: weakref.WeakSet[Any] = weakref.WeakSet()
        meter.create_observable_gauge(
            "claude_sync.pool.clis", callbacks=[self._observe_pools], unit="{process}",
            description="AgentPool (and shared pool) CLIs alive, parked and busy (running or starting), and runs queued",
        )  # fmt: skip

    def record_result(self, result: RunTotals, model: Optional[str]) -> None:
        """A whole run's tokens and cost (once per run: the CLI's cost is a running total)."""
        attributes = _metric_attributes(model)
        for token_type, count in semconv.token_counts(result).items():
            self.tokens.record(count, dict(attributes, **{"gen_ai.token.type": token_type}))
        cost = result.total_cost_usd
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost >= 0:
            self.cost.add(float(cost), attributes)

    def record_duration(self, seconds: float, model: Optional[str], error: Optional[BaseException]) -> None:
        attributes = _metric_attributes(model)
        if error is not None:
            attributes["error.type"] = semconv.error_type(error)
        self.duration.record(seconds, attributes)

    def record_callback(self, subtype: str, seconds: float, error: Optional[BaseException]) -> None:
        attributes: Dict[str, Any] = {"claude_sync.callback.kind": subtype}
        if error is not None:
            attributes["error.type"] = semconv.error_type(error)
        self.callbacks.record(seconds, attributes)

    def _observe_pools(self, options: Any) -> List[Any]:
        from opentelemetry.metrics import Observation

        observations = []
        for pool in list(self.pools):
            stats = pool.stats()
            for state in ("alive", "parked", "busy", "queued"):
                if state in stats:
                    attributes = {"claude_sync.pool.state": state, "claude_sync.pool.id": id(pool)}
                    attributes.update(getattr(pool, "metric_attributes", {}))  # the shared pool: kind "shared"
                    observations.append(Observation(stats[state], attributes))
        return observations


def _metric_attributes(model: Optional[str]) -> Dict[str, Any]:
    attributes: Dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": semconv.PROVIDER}
    if model:
        attributes["gen_ai.request.model"] = model
    return attributes


_METRICS: Optional[_Metrics] = None
_METRICS_LOCK = threading.Lock()


def _metrics() -> _Metrics:
    global _METRICS
    if _METRICS is None:
        with _METRICS_LOCK:
            if _METRICS is None:
                _METRICS = _Metrics()
    return _METRICS


_UNTRACED_KEY: Any = None


def _untraced_key() -> Any:
    global _UNTRACED_KEY
    if _UNTRACED_KEY is None:
        from opentelemetry import context

        _UNTRACED_KEY = context.create_key("claude_sync.untraced")
    return _UNTRACED_KEY


_WARNED_MODE: List[str] = []  # the unknown value warned about (once per process)


def _switched_off() -> bool:
    """``CLAUDE_SYNC_TRACING=off`` (an unknown value counts as ``on``, warned about once)."""
    value = os.environ.get(TRACING_ENV, "")
    mode = tracing_mode(os.environ)
    if value.strip() and mode == "on" and value.strip().lower() != "on" and not _WARNED_MODE:
        _WARNED_MODE.append(value)
        logger.warning("%s=%r is not one of %s: claude_sync traces as with 'on'", TRACING_ENV, value, ", ".join(MODES))
    return mode == "off"


def _untraced_now() -> bool:
    from opentelemetry import context

    return bool(context.get_value(_untraced_key()))


@contextlib.contextmanager
def untraced() -> Iterator[None]:
    """No run span starts in the block (this thread): for the library's own turns, such as
    ``AgentPool``'s ``/clear`` reset. Nothing when OpenTelemetry is not in use."""
    if not otel_in_use():
        yield
        return
    from opentelemetry import context

    token = context.attach(context.set_value(_untraced_key(), True))
    try:
        yield
    finally:
        context.detach(token)


def caller_context() -> Any:
    """This thread's OpenTelemetry context, to carry a run to another thread (None when
    OpenTelemetry is not in use)."""
    if not otel_in_use():
        return None
    from opentelemetry import context

    return context.get_current()


@contextlib.contextmanager
def attached(carried: Any) -> Iterator[None]:
    """Run the block in ``carried`` (a ``caller_context()``; None: as it is)."""
    if carried is None:
        yield
        return
    from opentelemetry import context

    token = context.attach(carried)
    try:
        yield
    finally:
        context.detach(token)


def watch_pool(pool: Any) -> None:
    """Report ``pool.stats()`` as the ``claude_sync.pool.clis`` gauge while the pool lives
    (when OpenTelemetry is in use; else nothing). Never raises."""
    if not otel_in_use():
        return
    try:
        _metrics().pools.add(pool)
    except Exception:  # noqa: BLE001
        logger.debug("could not watch the pool's gauges", exc_info=True)
