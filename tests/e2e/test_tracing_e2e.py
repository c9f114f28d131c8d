"""One trace from the application through claude_sync's run span to the real CLI's own spans
(``trace_cli=True``), with a real OTLP/HTTP receiver decoding what the CLI's exporter sends.

Each scenario runs in a child process (``otel_cli_child.py``): OpenTelemetry's providers are
process-wide. CLI 2.1.332 exports ``claude_code.interaction`` / ``llm_request`` / ``tool``
spans under the ``TRACEPARENT`` it was started with; 2.1.197 exports none (checked here too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import require_distribution

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("otel_cli_child.py")
RUN = "invoke_agent claude_code"


def require_otel() -> None:
    """Skip without the OpenTelemetry SDK and protobuf decoder (fail under ``CI=true`` unless
    the run says it lacks their extra: ``helpers.require_distribution``), checked without
    importing them into this process."""
    for distribution in ("opentelemetry-sdk", "opentelemetry-proto"):
        require_distribution(distribution)


def traced(scenario: str, cli: str, workdir: Path) -> Dict[str, Any]:
    require_otel()
    exports = "cli-exports" if cli_is_at_least(cli, "2.1.332") else "no-cli-spans"
    done = subprocess.run(
        [sys.executable, str(CHILD), scenario, cli, str(workdir), exports],
        capture_output=True, text=True, timeout=400, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    out: Dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    out["exports"] = exports == "cli-exports"
    return out


def named(spans: List[Dict[str, Any]], name: str) -> List[Dict[str, Any]]:
    return [span for span in spans if span["name"] == name]


def check_cli_spans_under(out: Dict[str, Any], parent: Dict[str, Any], interactions: int) -> None:
    """The CLI's spans: ``interactions`` interaction spans whose parent is ``parent`` (in its
    trace), each with its model requests and tool below; none at all from a CLI that exports none."""
    cli = out["cli_spans"]
    if not out["exports"]:
        assert cli == [] and out["otlp_requests"] == 0
        return
    assert {span["trace"] for span in cli} == {parent["trace"]}
    roots = named(cli, "claude_code.interaction")
    assert len(roots) == interactions and all(span["parent"] == parent["id"] for span in roots)
    by_id = {span["id"]: span for span in cli}
    requests = named(cli, "claude_code.llm_request")
    assert requests and all(by_id[span["parent"]]["name"] == "claude_code.interaction" for span in requests)
    tools = named(cli, "claude_code.tool")
    assert tools and all(span["attributes"].get("tool_name") == "Bash" for span in tools)


def test_query_one_trace_from_the_app_span_to_the_clis_model_requests(real_cli_path: str, e2e_workdir: Path) -> None:
    out = traced("query", real_cli_path, e2e_workdir)
    spans = out["spans"]
    app, run = named(spans, "app-query")[0], named(spans, RUN)[0]
    assert run["parent"] == app["id"] and run["trace"] == app["trace"]
    assert named(spans, "execute_tool Bash")[0]["parent"] == run["id"]
    assert named(spans, "claude_sync.hook PreToolUse")[0]["parent"] == run["id"]
    assert run["attributes"]["gen_ai.conversation.id"] and run["attributes"]["gen_ai.usage.input_tokens"] > 0
    check_cli_spans_under(out, run, interactions=1)


def test_client_turns_and_the_cli_spans_share_the_trace_of_the_span_current_at_connect(real_cli_path: str, e2e_workdir: Path) -> None:
    out = traced("client", real_cli_path, e2e_workdir)
    spans = out["spans"]
    session = named(spans, "app-session")[0]
    turns = {span["id"]: span["name"] for span in spans if span["name"].startswith("app-turn-")}
    runs = named(spans, RUN)
    assert sorted(turns[run["parent"]] for run in runs) == ["app-turn-1", "app-turn-2"]
    assert {span["trace"] for span in spans} == {session["trace"]}
    check_cli_spans_under(out, session, interactions=2)  # TRACEPARENT is per process: the span at connect()


def test_a_pooled_cli_with_trace_cli_serves_one_run_so_run_b_is_never_under_run_as_trace(real_cli_path: str, e2e_workdir: Path) -> None:
    out = traced("pool", real_cli_path, e2e_workdir)
    spans = out["spans"]
    assert out["pool"]["started"] == 2 and out["pool"]["reused"] == 0
    for name in ("app-run-a", "app-run-b"):
        app = named(spans, name)[0]
        run = next(span for span in named(spans, RUN) if span["parent"] == app["id"])
        if out["exports"]:
            interactions = [s for s in named(out["cli_spans"], "claude_code.interaction") if s["trace"] == app["trace"]]
            assert len(interactions) == 1 and interactions[0]["parent"] == app["id"], name
        assert run["trace"] == app["trace"]
    if out["exports"]:
        assert len(named(out["cli_spans"], "claude_code.interaction")) == 2


def test_a_reused_pooled_cli_gives_each_run_its_own_span_and_the_reset_none(real_cli_path: str, e2e_workdir: Path) -> None:
    out = traced("pool_untraced_cli", real_cli_path, e2e_workdir)
    assert out["pool"]["reused"] == 2 and out["pool"]["started"] == 1
    spans = out["spans"]
    runs = named(spans, RUN)
    assert len(runs) == 2  # the /clear between them is the pool's own turn: no span
    parents = {span["id"]: span["name"] for span in spans}
    assert sorted(parents[run["parent"]] for run in runs) == ["app-run-a", "app-run-b"]


def test_a_run_that_ends_twice_is_one_span_with_the_whole_runs_figures_and_the_subagents_calls_under_its_agent_span(
    real_cli_path: str, e2e_workdir: Path
) -> None:
    """Issue 37: a background ``Agent`` (its subagent runs ``Bash``) and the turn its end wakes.
    The run span carries the run's figures (every request the fake API answered); the
    subagent's ``Bash`` sits under the ``Agent`` span on every CLI (the ``Agent`` span lasts
    until its task ends); with ``trace_cli=True`` each of our tool spans and the CLI's
    ``claude_code.tool`` span for the same call share ``gen_ai.tool.call.id`` in one trace."""
    out = traced("background", real_cli_path, e2e_workdir)
    spans = out["spans"]
    app, run = named(spans, "app-query")[0], named(spans, RUN)[0]
    assert run["parent"] == app["id"]
    agent, bash = named(spans, "execute_tool Agent")[0], named(spans, "execute_tool Bash")[0]
    assert agent["parent"] == run["id"] and bash["parent"] == agent["id"], spans
    assert agent["attributes"]["claude_sync.tool.background"] is True
    figures = run["attributes"]
    usage = out["api_usage"]
    assert len(usage) == 5 and figures["claude_sync.results"] == 2 and figures["claude_sync.num_turns"] == 3
    assert figures["gen_ai.usage.input_tokens"] == sum(u["input_tokens"] for u in usage)
    assert figures["gen_ai.usage.output_tokens"] == sum(u["output_tokens"] for u in usage)
    if not out["exports"]:
        assert out["cli_spans"] == []
        return
    cli_tools = {s["attributes"]["gen_ai.tool.call.id"]: s for s in named(out["cli_spans"], "claude_code.tool")}
    ours = {s["attributes"]["gen_ai.tool.call.id"]: s for s in spans if s["name"].startswith("execute_tool ")}
    assert set(cli_tools) == set(ours) and {s["trace"] for s in cli_tools.values()} == {app["trace"]}
    requests = named(out["cli_spans"], "claude_code.llm_request")
    assert sum(s["attributes"]["gen_ai.usage.output_tokens"] for s in requests) == figures["gen_ai.usage.output_tokens"]
