"""The library's OpenTelemetry spans and metrics, each scenario in a child process (the
providers are process-wide): ``otel_child.py`` drives the scripted CLI and prints what the
SDK's in-memory exporter and metric reader got."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import require_distribution


def require_otel_sdk() -> None:
    """Skip without ``opentelemetry-sdk`` (fail under ``CI=true`` unless the run says it lacks
    its extra: ``helpers.require_distribution``), checked without importing it here: an
    imported ``opentelemetry`` would turn tracing on for the rest of this process."""
    require_distribution("opentelemetry-sdk")


ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("otel_child.py")


def traced(scenario: str, **env: str) -> Dict[str, Any]:
    require_otel_sdk()
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    done = subprocess.run([sys.executable, str(CHILD), scenario], capture_output=True, text=True, timeout=120, env=environ, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    out: Dict[str, Any] = lines[-1]
    out["printed"] = lines[:-1]
    return out


def by_name(spans: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    return {span["name"]: span for span in spans}


def test_a_query_is_one_span_under_the_callers_with_its_tool_and_callbacks_below() -> None:
    spans = by_name(traced("query")["spans"])
    app, run = spans["app"], spans["invoke_agent claude_code"]
    assert run["parent"] == app["id"] and run["trace"] == app["trace"]
    for child in ("execute_tool Bash", "claude_sync.can_use_tool Bash", "claude_sync.hook PreToolUse"):
        assert spans[child]["parent"] == run["id"], child
    attributes = run["attributes"]
    assert attributes["gen_ai.operation.name"] == "invoke_agent" and attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.conversation.id"] == "scripted-session"
    assert attributes["gen_ai.response.model"] == "claude-scripted"
    assert attributes["gen_ai.usage.input_tokens"] == 10 and attributes["gen_ai.usage.output_tokens"] == 5
    assert attributes["claude_sync.num_turns"] >= 1 and "claude_sync.cost_usd" in attributes
    assert spans["execute_tool Bash"]["attributes"]["gen_ai.tool.call.id"] == "toolu_1"
    assert spans["claude_sync.can_use_tool Bash"]["attributes"]["claude_sync.permission.behavior"] == "allow"
    assert spans["claude_sync.hook PreToolUse"]["attributes"]["claude_sync.hook.decision"] == "allow"


def test_prompt_and_answer_are_recorded_only_when_asked_and_then_redacted() -> None:
    quiet = by_name(traced("query")["spans"])["invoke_agent claude_code"]["attributes"]
    assert "gen_ai.input.messages" not in quiet and "gen_ai.output.messages" not in quiet
    loud = by_name(traced("query", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")["spans"])
    attributes = loud["invoke_agent claude_code"]["attributes"]
    prompt = json.loads(attributes["gen_ai.input.messages"])[0]["parts"][0]["content"]
    assert prompt.startswith("list files") and "abcdefghijklmnop" not in prompt
    assert json.loads(attributes["gen_ai.output.messages"])[0]["parts"][0]["content"] == "done"


def test_an_error_result_sets_the_span_status_with_the_typed_error() -> None:
    out = traced("error")
    assert out["printed"] == [{"raised": "ResultError"}]
    run = by_name(out["spans"])["invoke_agent claude_code"]
    assert run["status"] == "ERROR" and run["attributes"]["error.type"] == "ResultError"


def test_exception_text_reaches_spans_only_when_content_capture_is_on() -> None:
    """The run's ``ResultError`` quotes the model's answer, a failing hook's error the user's
    words: with capture off the spans carry the exception types and no text; with capture on,
    the text, known secrets removed (the words themselves are not rewritten)."""
    quiet = traced("error_texts")
    assert quiet["printed"] == [{"raised": "ResultError"}]
    exported = json.dumps(quiet["spans"])
    for text in ("MODEL-ANSWER-TEXT", "USER-WORDS-TEXT", "the answer was 42", "abcdefghijklmnop"):
        assert text not in exported, text
    spans = by_name(quiet["spans"])
    [run_event] = [e for e in spans["invoke_agent claude_code"]["events"] if e["name"] == "exception"]
    assert run_event["attributes"]["exception.type"] == "claude_sync.ResultError"
    assert "exception.stacktrace" not in run_event["attributes"]
    [hook_event] = [e for e in spans["claude_sync.hook PreToolUse"]["events"] if e["name"] == "exception"]
    assert hook_event["attributes"]["exception.type"] in ("claude_sync.ClaudeSDKError", "RuntimeError")
    loud = traced("error_texts", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
    spans = by_name(loud["spans"])
    [run_event] = [e for e in spans["invoke_agent claude_code"]["events"] if e["name"] == "exception"]
    assert "MODEL-ANSWER-TEXT" in run_event["attributes"]["exception.message"]
    [hook_event] = [e for e in spans["claude_sync.hook PreToolUse"]["events"] if e["name"] == "exception"]
    assert "USER-WORDS-TEXT" in hook_event["attributes"]["exception.message"]
    assert "USER-WORDS-TEXT" in hook_event["attributes"]["exception.stacktrace"]
    assert "abcdefghijklmnop" not in json.dumps(loud["spans"])  # a known secret removed, as from the prompt


def test_each_client_turn_is_a_span_under_the_span_current_at_its_query() -> None:
    spans = traced("client")["spans"]
    turns = {span["id"]: span["name"] for span in spans if span["name"].startswith("turn-")}
    runs = [span for span in spans if span["name"] == "invoke_agent claude_code"]
    assert sorted(turns[run["parent"]] for run in runs) == ["turn-1", "turn-2"]
    first = next(run for run in runs if turns[run["parent"]] == "turn-1")
    callbacks = [span for span in spans if span["name"].startswith("claude_sync.")]
    assert callbacks and all(span["parent"] == first["id"] for span in callbacks)


def test_a_pooled_run_is_under_the_span_that_submitted_it_and_the_pool_is_gauged() -> None:
    out = traced("pool")
    spans = by_name(out["spans"])
    assert spans["invoke_agent claude_code"]["parent"] == spans["app"]["id"]
    states = {point["claude_sync.pool.state"] for point in out["metrics"]["claude_sync.pool.clis"]}
    assert states == {"alive", "parked", "busy", "queued"}


def test_metrics_per_model_and_token_type() -> None:
    metrics = traced("query")["metrics"]
    tokens = {(p["gen_ai.token.type"], p["value"] if "value" in p else None) for p in metrics["gen_ai.client.token.usage"]}
    assert {kind for kind, _ in tokens} == {"input", "output"}
    assert all(p.get("gen_ai.request.model") is None or isinstance(p["gen_ai.request.model"], str) for p in metrics["gen_ai.client.operation.duration"])
    assert {p["claude_sync.callback.kind"] for p in metrics["claude_sync.callback.duration"]} == {"can_use_tool", "hook_callback"}


@pytest.mark.parametrize("entry", ["query", "client"])
def test_without_opentelemetry_imported_nothing_of_it_is_loaded(entry: str) -> None:
    code = f"""
import sys
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, query
from claude_sync.testing import ScriptedCLI
cli = ScriptedCLI(); cli.expect_user().text("x").result("x")
if {entry!r} == "query":
    list(query("hi", transport=cli.transport()))
else:
    with ClaudeSDKClient(transport=cli.transport()) as c:
        c.query("hi"); list(c.receive_response())
loaded = sorted(m for m in sys.modules if m.startswith(("opentelemetry", "claude_sync._tracing")))
print(loaded)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_a_tracer_that_raises_never_breaks_the_run_or_its_callbacks() -> None:
    out = traced("broken_processor")
    assert out["printed"] == [{"last": "ResultMessage", "text": "done"}]  # the permission was answered allow
    assert [span["name"] for span in out["spans"]] == ["app"]


def test_the_switch_turns_claude_syncs_spans_off_for_another_instrumentation() -> None:
    """Issue 40: with an OpenInference instrumentor of the official SDK (ported) and our own
    tracing both on, each run had two agent spans; ``CLAUDE_SYNC_TRACING=off`` leaves one."""
    names = [span["name"] for span in traced("query", CLAUDE_SYNC_TRACING="off")["spans"]]
    assert names == ["app"]  # the application's own span only: no run, tool or callback span of ours


def test_openinference_attributes_on_our_spans_when_asked() -> None:
    """Phoenix and Arize read OpenInference attributes; ``CLAUDE_SYNC_TRACING=openinference``
    adds them to the same spans (one agent span per run), text only where content is allowed."""
    plain = by_name(traced("query")["spans"])["invoke_agent claude_code"]["attributes"]
    assert "openinference.span.kind" not in plain
    spans = by_name(traced("query", CLAUDE_SYNC_TRACING="openinference")["spans"])
    run = spans["invoke_agent claude_code"]["attributes"]
    assert run["openinference.span.kind"] == "AGENT" and run["llm.provider"] == "anthropic"
    assert run["session.id"] == "scripted-session" and run["llm.model_name"] == "claude-scripted"
    assert (run["llm.token_count.prompt"], run["llm.token_count.completion"], run["llm.token_count.total"]) == (10, 5, 15)
    assert "input.value" not in run and "output.value" not in run
    tool = spans["execute_tool Bash"]["attributes"]
    assert tool["openinference.span.kind"] == "TOOL" and tool["tool.name"] == "Bash"
    loud = by_name(
        traced("query", CLAUDE_SYNC_TRACING="openinference", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")["spans"]
    )["invoke_agent claude_code"]["attributes"]
    assert loud["input.value"].startswith("list files") and "abcdefghijklmnop" not in loud["input.value"]
    assert loud["output.value"] == "done"
