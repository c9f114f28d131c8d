"""The tracing switch (``CLAUDE_SYNC_TRACING``) and the OpenInference view of a run's spans
(pure: attribute dicts in, attribute dicts out; no OpenTelemetry import).

``CLAUDE_SYNC_TRACING``:

* unset or ``on``: claude_sync's spans, with OpenTelemetry's GenAI attributes (``semconv``);
* ``off``: no run span and nothing under it — when another instrumentation already makes the
  agent span of each run (an OpenInference instrumentor of the official SDK, ported), so a run
  does not get two;
* ``openinference``: claude_sync's spans carry OpenInference's attributes as well (the span
  kind AGENT / TOOL, model, provider, session id, token counts, tool name; the input and output
  values only where the GenAI content switch allows the text), which Arize Phoenix and Arize
  read. The attribute names are in ``openinference_attributes``.

Any other value is treated as ``on`` and logged once as a warning (tracing never breaks a run).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping

__all__ = ["MODES", "TRACING_ENV", "openinference_attributes", "tracing_mode"]

TRACING_ENV = "CLAUDE_SYNC_TRACING"
MODES = ("on", "off", "openinference")
"""The values of ``TRACING_ENV``."""

_SPAN_KINDS = {"invoke_agent": "AGENT", "execute_tool": "TOOL"}
_RENAMED = (
    ("gen_ai.request.model", "llm.model_name"),
    ("gen_ai.response.model", "llm.model_name"),  # after the request's: the model that answered
    ("gen_ai.provider.name", "llm.provider"),
    ("gen_ai.provider.name", "llm.system"),
    ("gen_ai.conversation.id", "session.id"),
    ("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
    ("gen_ai.usage.output_tokens", "llm.token_count.completion"),
    ("gen_ai.usage.cache_read.input_tokens", "llm.token_count.prompt_details.cache_read"),
    ("gen_ai.usage.cache_creation.input_tokens", "llm.token_count.prompt_details.cache_write"),
    ("gen_ai.tool.name", "tool.name"),
    ("gen_ai.tool.call.id", "tool_call.id"),
)


def tracing_mode(environ: Mapping[str, str]) -> str:
    """``on``, ``off`` or ``openinference`` from ``TRACING_ENV`` (unset, empty or unknown: ``on``)."""
    value = environ.get(TRACING_ENV, "").strip().lower()
    return value if value in MODES else "on"


def openinference_attributes(attributes: Mapping[str, Any]) -> Dict[str, Any]:
    """The OpenInference attributes that say what the GenAI ``attributes`` of a span say."""
    found: Dict[str, Any] = {}
    kind = _SPAN_KINDS.get(attributes.get("gen_ai.operation.name", ""))
    if kind is not None:
        found["openinference.span.kind"] = kind
    for gen_ai, name in _RENAMED:
        if gen_ai in attributes:
            found[name] = attributes[gen_ai]
    prompt, completion = found.get("llm.token_count.prompt"), found.get("llm.token_count.completion")
    if isinstance(prompt, int) and isinstance(completion, int):
        found["llm.token_count.total"] = prompt + completion
    return found
