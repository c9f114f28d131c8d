"""Span and metric attributes of a run, after OpenTelemetry's GenAI semantic conventions
(pure: messages and options in, attribute dicts out; no OpenTelemetry import, no clocks).

``gen_ai.*`` names are the conventions' (``invoke_agent`` / ``execute_tool`` spans, the
``gen_ai.client.*`` metrics); what they have no name for is ``claude_sync.*``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Union

from .._wire.messages import ResultMessage
from .._wire.run_totals import RunTotals

__all__ = [
    "AGENT_NAME", "CONTENT_ENV", "PROVIDER", "callback_attributes", "content_allowed", "error_type", "exception_attributes",
    "result_attributes", "run_attributes", "run_span_name", "token_counts", "tool_attributes", "tool_span_name",
]  # fmt: skip

PROVIDER = "anthropic"
"""``gen_ai.provider.name``."""
AGENT_NAME = "claude_code"
"""``gen_ai.agent.name``: the agent a run invokes is the Claude Code CLI."""
CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The variable GenAI instrumentations read to record prompt and answer text (off unless
``true``); claude_sync reads it too, and passes what it records through the redactor."""

_RESULT_TOKENS = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
    ("cache_read_input_tokens", "gen_ai.usage.cache_read.input_tokens"),
    ("cache_creation_input_tokens", "gen_ai.usage.cache_creation.input_tokens"),
)


def content_allowed(environ: Mapping[str, str]) -> bool:
    """Whether prompt and answer text may go on spans (``CONTENT_ENV`` is ``true``)."""
    return environ.get(CONTENT_ENV, "").strip().lower() == "true"


def run_span_name() -> str:
    """``invoke_agent claude_code`` (the conventions' ``invoke_agent {gen_ai.agent.name}``)."""
    return f"invoke_agent {AGENT_NAME}"


def run_attributes(kind: str, model: Optional[str]) -> Dict[str, Any]:
    """A run span's attributes at its start; ``kind``: ``query``, ``client_turn`` or ``pool``."""
    attributes: Dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.agent.name": AGENT_NAME,
        "claude_sync.run.kind": kind,
    }
    if isinstance(model, str) and model:
        attributes["gen_ai.request.model"] = model
    return attributes


def result_attributes(result: ResultMessage, model: Optional[str], totals: Optional[RunTotals] = None) -> Dict[str, Any]:
    """What a ``ResultMessage`` adds to its run span: session, tokens, cost, turns, stop
    reason (``model``: the one the CLI answered with, from its init or assistant lines).
    ``totals``: the whole run so far (a run a background agent woke ends more than once):
    tokens, cost and turns are then the run's, and ``claude_sync.results`` counts its results."""
    figures: Any = result if totals is None else totals
    attributes: Dict[str, Any] = {"claude_sync.result.subtype": str(result.subtype)}
    if totals is not None:
        attributes["claude_sync.results"] = len(totals.results)
    if isinstance(result.session_id, str):
        attributes["gen_ai.conversation.id"] = result.session_id
    if isinstance(model, str) and model:
        attributes["gen_ai.response.model"] = model
    usage = figures.usage if isinstance(figures.usage, dict) else {}
    for key, name in _RESULT_TOKENS:
        value = usage.get(key)
        if _is_count(value):
            attributes[name] = value
    if isinstance(result.stop_reason, str):
        attributes["gen_ai.response.finish_reasons"] = (result.stop_reason,)
    cost = figures.total_cost_usd
    if cost is not None and _is_number(cost):
        attributes["claude_sync.cost_usd"] = float(cost)
    if _is_count(figures.num_turns):
        attributes["claude_sync.num_turns"] = figures.num_turns
    if _is_count(result.duration_api_ms):
        attributes["claude_sync.duration_api_ms"] = result.duration_api_ms
    if result.is_error:
        attributes["error.type"] = str(result.subtype if result.subtype != "success" else "is_error")
    return attributes


def token_counts(result: Union[ResultMessage, RunTotals]) -> Dict[str, int]:
    """``{"input": n, "output": m}`` of a result or a whole run, for
    ``gen_ai.client.token.usage`` (input counts cache reads and writes, as the conventions ask)."""
    usage = result.usage if isinstance(result.usage, dict) else {}
    counts: Dict[str, int] = {}
    inputs: List[int] = []
    for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        value = usage.get(key)
        if _is_count(value):
            inputs.append(int(value))  # type: ignore[arg-type]  # _is_count checked it
    if inputs:
        counts["input"] = sum(inputs)
    if _is_count(usage.get("output_tokens")):
        counts["output"] = usage["output_tokens"]
    return counts


def tool_span_name(tool_name: str) -> str:
    """``execute_tool Bash``."""
    return f"execute_tool {tool_name}"


def tool_attributes(tool_name: str, call_id: str, agent: Optional[str]) -> Dict[str, Any]:
    """A tool call's span attributes; ``agent``: the ``Agent`` call it ran in (None: main)."""
    attributes: Dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool_name,
        "gen_ai.tool.call.id": call_id,
    }
    if agent is not None:
        attributes["claude_sync.agent.parent_tool_use_id"] = agent
    return attributes


def callback_attributes(subtype: str, request: Mapping[str, Any]) -> Dict[str, Any]:
    """A served callback's span attributes, from the CLI's request."""
    attributes: Dict[str, Any] = {"claude_sync.callback.kind": subtype}
    for key, name in (
        ("tool_name", "gen_ai.tool.name"),
        ("tool_use_id", "gen_ai.tool.call.id"),
        ("callback_id", "claude_sync.hook.callback_id"),
        ("server_name", "claude_sync.mcp.server"),
        ("agent_id", "claude_sync.agent.id"),
    ):
        value = request.get(key)
        if isinstance(value, str):
            attributes[name] = value
    hook_input = request.get("input")
    if isinstance(hook_input, dict) and isinstance(hook_input.get("hook_event_name"), str):
        attributes["claude_sync.hook.event"] = hook_input["hook_event_name"]
    message = request.get("message")
    if isinstance(message, dict) and message.get("method") == "tools/call":
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("name"), str):
            attributes["gen_ai.tool.name"] = params["name"]
    return attributes


def error_type(error: BaseException) -> str:
    """``error.type``: the error's class name (``ResultError``, ``ProcessError`` …)."""
    return type(error).__qualname__


def exception_attributes(error: BaseException) -> Dict[str, Any]:
    """The ``exception`` span event of ``error`` without its text, for when content capture is
    off: an exception's message may quote the model's answer (``ResultError``,
    ``StructuredOutputError``) or the user's words (a callback's own error), and its traceback
    ends with that message. The type, and a message saying why the text is missing."""
    kind = type(error)
    module = "claude_sync" if kind.__module__.startswith("claude_sync.") else kind.__module__  # its public name
    name = kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"
    return {
        "exception.type": name,
        "exception.message": f"{kind.__qualname__} (its text is recorded only with {CONTENT_ENV}=true)",
    }


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
