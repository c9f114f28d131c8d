"""Runs one traced scenario in a child process (OpenTelemetry's tracer and meter providers
are process-wide, and set once) and prints the spans and metric points as JSON.

``python tests/tracing/otel_child.py SCENARIO``; the scenarios drive the library over the
scripted CLI's in-memory transport.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from claude_sync import (
    AgentPool,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    query,
)
from claude_sync.testing import ScriptedCLI

EXPORTER = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(provider)
READER = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))
APP = trace.get_tracer("the-app")
SNAPSHOTS: List[Any] = []


def allow(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
    return PermissionResultAllow()


def pre_tool_use(hook_input: Any, tool_use_id: Any, context: Any) -> Dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


def a_tool_turn(cli: ScriptedCLI, answer: str = "done") -> ScriptedCLI:
    cli.expect_user().tool_use("Bash", {"command": "ls"}, id="toolu_1")
    cli.ask_hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_1")
    cli.ask_permission(expect={"behavior": "allow"})
    cli.tool_result("a b", tool_use_id="toolu_1").text(answer).result(answer)
    return cli


def callbacks() -> Dict[str, Any]:
    return {"can_use_tool": allow, "hooks": {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]}}


def scenario_query() -> None:
    cli = a_tool_turn(ScriptedCLI())
    with APP.start_as_current_span("app"):
        known = {"env": {"ANTHROPIC_API_KEY": "SECRET-sk-ant-api03-abcdefghijklmnop"}}  # a key it was given: known
        list(query("list files SECRET-sk-ant-api03-abcdefghijklmnop", options=ClaudeAgentOptions(**callbacks(), **known), transport=cli.transport()))


def scenario_error() -> None:
    cli = ScriptedCLI()
    cli.expect_user().result("it broke", is_error=True, subtype="error_during_execution")
    with APP.start_as_current_span("app"):
        try:
            list(query("go", transport=cli.transport()))
        except Exception as exc:  # noqa: BLE001
            print(json.dumps({"raised": type(exc).__name__}))


def scenario_error_texts() -> None:
    """A run whose error result quotes the model's answer, under a hook that fails with the
    user's words: the texts must not reach the spans unless capture is on."""
    cli = ScriptedCLI()
    cli.expect_user().tool_use("Bash", {"command": "ls"}, id="toolu_1")
    cli.ask_hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_1", expect_error=True)
    cli.result("MODEL-ANSWER-TEXT the answer was 42", is_error=True, subtype="success")  # quoted by ResultError

    def failing_hook(hook_input: Any, tool_use_id: Any, context: Any) -> Dict[str, Any]:
        raise RuntimeError("USER-WORDS-TEXT from the hook with SECRET-sk-ant-api03-abcdefghijklmnop")

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[failing_hook])]}
    known = {"ANTHROPIC_API_KEY": "SECRET-sk-ant-api03-abcdefghijklmnop"}  # a key it was given: known
    with APP.start_as_current_span("app"):
        try:
            list(query("go", options=ClaudeAgentOptions(hooks=hooks, env=known), transport=cli.transport()))
        except Exception as exc:  # noqa: BLE001
            print(json.dumps({"raised": type(exc).__name__}))


def scenario_client() -> None:
    cli = a_tool_turn(ScriptedCLI())
    cli.expect_user().text("second").result("second")
    with ClaudeSDKClient(ClaudeAgentOptions(**callbacks()), transport=cli.transport()) as client:
        with APP.start_as_current_span("turn-1"):
            client.query("first")
            list(client.receive_response())
        with APP.start_as_current_span("turn-2"):
            client.query("second")
            list(client.receive_response(merge_assistant=True))


def scenario_pool() -> None:
    cli = ScriptedCLI()
    cli.expect_user().text("pooled").result("pooled")
    with AgentPool(max_workers=1, reuse=False, transport_factory=lambda options: cli.transport()) as pool:
        with APP.start_as_current_span("app"):
            future = pool.submit("hi")
        future.result(timeout=30)
        SNAPSHOTS.append(READER.get_metrics_data())  # the pool gauge, while the pool lives


def scenario_broken_processor() -> None:
    """A span processor that raises on every span of the library: runs and callbacks go on."""
    from opentelemetry.sdk.trace import SpanProcessor

    class Broken(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            if not span.name.startswith("app"):
                raise RuntimeError("broken processor")

    provider.add_span_processor(Broken())
    cli = a_tool_turn(ScriptedCLI())
    with APP.start_as_current_span("app"):
        messages = list(query("go", options=ClaudeAgentOptions(**callbacks()), transport=cli.transport()))
    print(json.dumps({"last": type(messages[-1]).__name__, "text": messages[-1].result}))


def main() -> None:
    globals()[f"scenario_{sys.argv[1]}"]()
    provider.force_flush()
    spans: List[Dict[str, Any]] = []
    for span in EXPORTER.get_finished_spans():
        spans.append({
            "name": span.name, "id": span.context.span_id, "trace": span.context.trace_id,
            "parent": span.parent.span_id if span.parent else None, "status": span.status.status_code.name,
            "attributes": {k: list(v) if isinstance(v, tuple) else v for k, v in (span.attributes or {}).items()},
            "status_description": span.status.description,
            "events": [{"name": e.name, "attributes": dict(e.attributes or {})} for e in span.events],
        })  # fmt: skip
    points: Dict[str, List[Dict[str, Any]]] = {}
    for data in [*SNAPSHOTS, READER.get_metrics_data()]:
        _points(data, points)
    print(json.dumps({"spans": spans, "metrics": points}))


def _points(data: Any, points: Dict[str, List[Dict[str, Any]]]) -> None:
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    points.setdefault(metric.name, []).append(dict(point.attributes or {}, value=getattr(point, "value", None)))


if __name__ == "__main__":
    main()
