"""One traced run of the real CLI in a child process (OpenTelemetry's providers are
process-wide): the application's and the library's spans from the SDK's in-memory exporter,
the CLI's own from a real OTLP/HTTP receiver, printed as one JSON line.

``python tests/e2e/otel_cli_child.py SCENARIO CLI_PATH WORKDIR cli-exports|no-cli-spans [BACKEND]``:
with ``BACKEND`` (an OTLP/HTTP endpoint, e.g. Arize Phoenix's), the application's spans are also
exported there and the CLI's go only there.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the receiver
from background_agent import RUN_PROMPT as BACKGROUND_PROMPT  # noqa: E402
from background_agent import responder as background_responder  # noqa: E402
from otlp_export import OtlpHttpExporter  # noqa: E402
from otlp_receiver import OtlpReceiver  # noqa: E402

from claude_sync import AgentPool, ClaudeAgentOptions, ClaudeSDKClient, HookMatcher, query  # noqa: E402
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use  # noqa: E402
from claude_sync.testing.offline import hermetic_env  # noqa: E402

EXPORTER = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(provider)
APP = trace.get_tracer("the-app")


def responder(request: Any) -> Any:
    said = json.dumps(request.messages)
    if "say hi" in said:
        return text("hi")
    if '"tool_use_id"' in said:
        return text("listed")
    return tool_use("Bash", {"command": "echo traced", "description": "say"})


def pre_tool_use(hook_input: Any, tool_use_id: Any, context: Any) -> Dict[str, Any]:
    return {}


def main() -> None:
    scenario, cli_path, workdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    cli_exports = sys.argv[4] == "cli-exports"  # 2.1.197 exports no span
    backend = sys.argv[5] if len(sys.argv) > 5 else None  # a real backend's OTLP/HTTP endpoint (Phoenix)
    api = FakeAnthropicAPI(responder=background_responder if scenario == "background" else responder).start()
    receiver = OtlpReceiver().start()
    out: Dict[str, Any] = {}
    if backend is not None:  # the application's spans go there too, and the CLI's only there
        provider.add_span_processor(SimpleSpanProcessor(OtlpHttpExporter(backend)))  # type: ignore[arg-type]
        cli_exports = False
    try:
        env = hermetic_env(workdir, api.base_url, OTEL_EXPORTER_OTLP_ENDPOINT=backend or receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY=200)
        options = ClaudeAgentOptions(
            cli_path=cli_path, env=env, cwd=str(workdir), allowed_tools=["Bash"], max_turns=4, trace_cli=True,
            hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]},
        )  # fmt: skip
        if scenario == "query":
            with APP.start_as_current_span("app-query"):
                list(query("list", options=options, timeout=120))
        elif scenario == "background":
            options = dataclasses.replace(options, allowed_tools=["Bash", "Agent", "Task"], max_turns=6)
            with APP.start_as_current_span("app-query"):
                list(query(BACKGROUND_PROMPT, options=options, timeout=120))
            out["api_usage"] = [r.usage for r in api.turn_requests()]
        elif scenario == "client":
            with APP.start_as_current_span("app-session"), ClaudeSDKClient(options) as client:
                for name in ("app-turn-1", "app-turn-2"):
                    with APP.start_as_current_span(name):
                        client.query("list")
                        list(client.receive_response(timeout=120))
        elif scenario in ("pool", "pool_untraced_cli"):
            pooled = options if scenario == "pool" else ClaudeAgentOptions(cli_path=cli_path, env=env, cwd=str(workdir), max_turns=2)
            with AgentPool(pooled, max_workers=1, reuse=True) as pool:
                for name in ("app-run-a", "app-run-b"):
                    with APP.start_as_current_span(name):
                        future = pool.submit("say hi" if scenario != "pool" else "list")
                    future.result(timeout=120)
                parked_by = time.monotonic() + 60  # the reset after the last run may still be under way
                while pool.stats()["parked"] + pool.stats()["retired"] == 0 and time.monotonic() < parked_by:
                    time.sleep(0.01)
                out["pool"] = pool.stats()
        expected_cli_runs = {"query": 1, "background": 2, "client": 2, "pool": 2, "pool_untraced_cli": 0}[scenario]
        if expected_cli_runs and cli_exports:
            receiver.wait_for(lambda spans: sum(s["name"] == "claude_code.interaction" for s in spans) >= expected_cli_runs, timeout=60)
        out["cli_spans"] = receiver.spans
        out["otlp_requests"] = receiver.requests
    finally:
        receiver.stop()
        api.stop()
    out["spans"] = [
        {"name": s.name, "trace": f"{s.context.trace_id:032x}", "id": f"{s.context.span_id:016x}",
         "parent": f"{s.parent.span_id:016x}" if s.parent else None, "attributes": dict(s.attributes or {})}
        for s in EXPORTER.get_finished_spans()
    ]  # fmt: skip
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
