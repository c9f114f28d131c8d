"""A whole run's figures from its results (``claude_sync._wire.run_totals``), with the shapes
the real CLI sends (measured on 2.1.197 / 2.1.332 / 2.1.333: ``num_turns``, ``usage`` and
``duration_ms`` per result, the main agent's only; ``total_cost_usd`` and ``modelUsage``
cumulative, subagents included)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from claude_sync import RunResult
from claude_sync._wire.agent_usage import usage_by_agent
from claude_sync._wire.parse import parse_message
from claude_sync._wire.run_totals import run_totals


def result(num_turns: int, usage: Any, cost: Any, model_usage: Any, duration_ms: Any = 100, **fields: Any) -> Any:
    wire: Dict[str, Any] = {
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": duration_ms, "duration_api_ms": 4,
        "num_turns": num_turns, "session_id": "s1", "total_cost_usd": cost, "usage": usage, "modelUsage": model_usage,
        "result": fields.pop("text", "done"),
    }  # fmt: skip
    wire.update(fields)
    return parse_message(wire)


def mu(inputs: int, outputs: int, cost: float) -> Dict[str, Any]:
    return {"claude-opus-5-5": {"inputTokens": inputs, "outputTokens": outputs, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "costUSD": cost}}


# The figures 2.1.333 sent for a run whose background agent woke a second turn (fake API: five
# requests, 125 in / 116 out; the main agent's three: 75 in / 81 out).
FIRST = result(2, {"input_tokens": 50, "output_tokens": 69}, 0.0022, mu(75, 95, 0.0022), 385, text="launched")
SECOND = result(1, {"input_tokens": 25, "output_tokens": 12}, 0.00282, mu(125, 116, 0.00282), 28, text="woken turn done")


def test_a_run_that_ended_twice_sums_the_per_result_figures_and_takes_the_cumulative_ones_once() -> None:
    totals = run_totals([FIRST, SECOND])
    assert totals.num_turns == 3 and totals.duration_ms == 413 and totals.total_cost_usd == 0.00282
    assert totals.usage == {"input_tokens": 125, "output_tokens": 116, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert totals.tokens_from == "modelUsage" and totals.results == (FIRST, SECOND)


def test_on_a_reused_cli_the_totals_before_the_run_are_taken_off() -> None:
    # 2.1.197 keeps process-wide totals across /clear: 25 in / 11 out and $0.0004 before.
    before = mu(25, 11, 0.0004)
    first = result(2, {"input_tokens": 50, "output_tokens": 69}, 0.002375, mu(75, 80, 0.002375))
    last = result(1, {"input_tokens": 25, "output_tokens": 12}, 0.003925, mu(150, 127, 0.003925))
    totals = run_totals([first, last], 0.0004, before)
    assert totals.usage == {"input_tokens": 125, "output_tokens": 116, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert totals.total_cost_usd == pytest.approx(0.003525)
    # Without the modelUsage before, a reused CLI's tokens come from the results (main agent only).
    assert run_totals([first, last], 0.0004).usage["input_tokens"] == 75  # type: ignore[index]


@pytest.mark.parametrize("odd", [None, "x", {"m": "x"}, {"m": {"inputTokens": True}}, {"m": {"inputTokens": -5, "outputTokens": 1}}])
def test_odd_model_usage_falls_back_to_the_results_usage(odd: Any) -> None:
    totals = run_totals([result(1, {"input_tokens": 3, "output_tokens": 4}, 0.1, odd)])
    assert totals.usage == {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert totals.tokens_from == "results"


def test_a_model_usage_below_the_results_or_going_down_is_not_trusted() -> None:
    assert run_totals([result(1, {"input_tokens": 30}, 0.1, mu(10, 10, 0.1))]).tokens_from == "results"
    assert run_totals([result(1, {"input_tokens": 3}, 0.1, mu(10, 10, 0.1))], 0.05, mu(20, 20, 0.05)).tokens_from == "results"


def test_odd_figures_count_as_absent_and_no_results_is_refused() -> None:
    totals = run_totals([result(True, "usage", "x", None, duration_ms=-3)])  # type: ignore[arg-type]
    assert (totals.num_turns, totals.duration_ms, totals.total_cost_usd, totals.usage) == (0, 0, None, None)
    with pytest.raises(ValueError, match="at least one"):
        run_totals([])


def test_run_result_keeps_every_result_and_its_agents_add_up_to_the_run() -> None:
    started = parse_message({"type": "system", "subtype": "task_started", "task_id": "t1", "tool_use_id": "a1",
                             "task_type": "local_agent", "description": "helper", "session_id": "s1", "uuid": "u"})  # fmt: skip
    done = parse_message({"type": "system", "subtype": "task_notification", "task_id": "t1", "tool_use_id": "a1", "status": "completed",
                          "output_file": "", "summary": "s", "usage": {"total_tokens": 34, "duration_ms": 5}, "session_id": "s1", "uuid": "u"})  # fmt: skip
    run = RunResult.from_messages([started, FIRST, done, SECOND])
    assert run.results == (FIRST, SECOND) and run.result is SECOND and run.text == "woken turn done"
    assert (run.num_turns, run.total_cost_usd) == (3, 0.00282)
    main, helper = run.agents
    assert (main.input_tokens, main.output_tokens) == (75, 81)
    assert (helper.input_tokens, helper.output_tokens, helper.total_tokens) == (50, 35, 85)  # not the CLI's 34
    assert main.total_tokens + helper.total_tokens == sum(run.usage.values())  # type: ignore[operator, union-attr]
    assert RunResult.from_json(run.to_json()).results == run.results
    # Two tasks: their remainder cannot be told apart, each keeps the CLI's own figure.
    second = parse_message({**started.raw, "task_id": "t2", "tool_use_id": "a2"})
    agents = usage_by_agent([started, second, FIRST, done, SECOND], run_usage=run.usage)
    assert agents[1].total_tokens == 34 and agents[1].input_tokens is None
