"""The figures of a whole run from its results (``ResultMessage``; pure: results in, a record out).

A run is everything until the CLI is idle: a background agent that finishes wakes the CLI
for another turn, and that turn ends with a ``result`` of its own, so one run may end more
than once. Measured against the real CLI (2.1.197, 2.1.332 and 2.1.333, fake API; a run
that starts a background ``Agent`` and is woken by it, on a fresh CLI and on one reused
after ``/clear``), each figure of a result is either *per result* or *cumulative*:

- ``num_turns`` — per result (the main agent's model requests of that turn: 2, then 1);
- ``usage`` — per result, and the **main agent's only** (50 in / 69 out, then 25 / 12: a
  subagent's requests are in no result's ``usage``);
- ``duration_ms`` — per result (that turn's time; the time between the turns, while only
  the background agent worked, is in none); ``duration_api_ms`` is cumulative;
- ``total_cost_usd`` and ``modelUsage`` — cumulative for the CLI process (2.1.197: across
  ``/clear`` too) or for the conversation (2.1.330+: ``/clear`` restarts them at 0 / ``{}``),
  and they **include subagents** (the last result's ``modelUsage``: 125 in / 116 out, the
  sum over all five requests the fake API answered, the subagent's two included).

So the run's figures (``RunTotals``): ``num_turns`` and ``duration_ms`` summed over the
results; ``total_cost_usd`` the last result's minus the CLI's total before the run; the
tokens the last result's ``modelUsage`` minus the ``modelUsage`` before the run (every
agent's requests), or — when the CLI sent no ``modelUsage``, or the figures before the run
are not known — the results' ``usage`` summed (the main agent's only).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from .messages import ResultMessage
from .record import FrozenRecord, frozen_record

__all__ = ["TOKEN_KEYS", "RunTotals", "results_usage", "run_totals"]

TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
"""The token counts of a run's ``usage``, in the CLI's ``usage`` names."""

_MODEL_USAGE_KEYS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadInputTokens": "cache_read_input_tokens",
    "cacheCreationInputTokens": "cache_creation_input_tokens",
}


@frozen_record
class RunTotals(FrozenRecord):
    """A whole run's figures (see the module docstring for where each comes from).

    Attributes:
        results: Every ``ResultMessage`` of the run, in order (the last ends it).
        num_turns: The main agent's turns, summed over the results.
        usage: The run's tokens (``TOKEN_KEYS``); None when no result reported any.
        tokens_from: ``"modelUsage"`` (every agent's requests) or ``"results"`` (the results'
            ``usage`` summed: the main agent's only); None with ``usage``.
        duration_ms: The CLI's own time in the run's turns, summed over the results.
        total_cost_usd: What the run cost (the CLI's running total minus ``cost_before``);
            None when the CLI did not say.
        is_error: Whether the last result is an error.
        subtype: The last result's subtype.
    """

    results: Tuple[ResultMessage, ...]
    num_turns: int
    usage: Optional[Dict[str, int]]
    tokens_from: Optional[str]
    duration_ms: int
    total_cost_usd: Optional[float]
    is_error: bool
    subtype: str


def run_totals(
    results: Sequence[ResultMessage], cost_before: float = 0.0, usage_before: Optional[Mapping[str, Any]] = None
) -> RunTotals:
    """The figures of the run that ended with ``results`` (at least one, in order).

    ``cost_before``: the CLI's running total before the run (0 for a fresh CLI).
    ``usage_before``: the ``modelUsage`` of the CLI's last result before the run (None for a
    fresh CLI; on a reused CLI without it, the tokens come from the results' ``usage``).
    Never raises for odd figures: one of the wrong type counts as absent. Raises
    ``ValueError`` for no results.
    """
    if not results:
        raise ValueError("a run has at least one ResultMessage")
    last = results[-1]
    cost = last.total_cost_usd if _is_number(last.total_cost_usd) else None
    if cost is not None and cost_before:
        cost = max(0.0, cost - cost_before)
    reused_without_figures = bool(cost_before) and usage_before is None
    usage, source = _tokens(results, None if reused_without_figures else (usage_before or {}))
    return RunTotals(
        results=tuple(results),
        num_turns=sum(r.num_turns for r in results if _is_count(r.num_turns)),
        usage=usage,
        tokens_from=source,
        duration_ms=sum(r.duration_ms for r in results if _is_count(r.duration_ms)),
        total_cost_usd=cost,
        is_error=bool(last.is_error),
        subtype=last.subtype,
    )


def _tokens(
    results: Sequence[ResultMessage], usage_before: Optional[Mapping[str, Any]]
) -> Tuple[Optional[Dict[str, int]], Optional[str]]:
    summed = results_usage(results)
    if usage_before is not None:
        whole = _model_usage_delta(results[-1].model_usage, usage_before)
        if whole is not None and (summed is None or all(whole[k] >= summed[k] for k in TOKEN_KEYS)):
            return whole, "modelUsage"
    return (summed, "results") if summed is not None else (None, None)


def results_usage(results: Sequence[ResultMessage]) -> Optional[Dict[str, int]]:
    """The ``TOKEN_KEYS`` counts of the results' ``usage`` summed (the main agent's tokens);
    None when no result reported one. A count of the wrong type is left out."""
    totals = dict.fromkeys(TOKEN_KEYS, 0)
    known = False
    for result in results:
        usage = result.usage if isinstance(result.usage, dict) else {}
        for key in TOKEN_KEYS:
            if _is_count(usage.get(key)):
                totals[key] += usage[key]
                known = True
    return totals if known else None


def _model_usage_delta(after: Any, before: Mapping[str, Any]) -> Optional[Dict[str, int]]:
    """Every model's token counts in ``after`` minus those in ``before``; None when ``after``
    holds none (or a figure went down: not one conversation's running totals)."""
    now = _model_usage_sums(after)
    if now is None:
        return None
    earlier = _model_usage_sums(before) or dict.fromkeys(TOKEN_KEYS, 0)
    delta = {key: now[key] - earlier[key] for key in TOKEN_KEYS}
    return delta if all(value >= 0 for value in delta.values()) else None


def _model_usage_sums(model_usage: Any) -> Optional[Dict[str, int]]:
    if not isinstance(model_usage, Mapping):
        return None
    totals = dict.fromkeys(TOKEN_KEYS, 0)
    known = False
    for entry in model_usage.values():
        if not isinstance(entry, Mapping):
            continue
        for source, key in _MODEL_USAGE_KEYS.items():
            if _is_count(entry.get(source)):
                totals[key] += entry[source]
                known = True
    return totals if known else None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
