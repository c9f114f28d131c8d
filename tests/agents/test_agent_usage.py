"""Usage per agent (``RunResult.agents``), from wire lines as the real CLI sends them."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from claude_sync import RunResult
from claude_sync._wire.agent_usage import MAIN_AGENT, AgentUsage, usage_by_agent
from claude_sync._wire.parse import parse_message

AGENT_CALL = "toolu_agent_1"


def assistant(block: Dict[str, Any], *, message_id: str, parent: Optional[str] = None, model: str = "claude-opus-4-8") -> Any:
    return parse_message({
        "type": "assistant", "parent_tool_use_id": parent, "session_id": "s",
        "message": {"id": message_id, "type": "message", "role": "assistant", "model": model, "content": [block],
                    "usage": {"input_tokens": 25, "output_tokens": 1}},
    })  # fmt: skip


def tool_use(name: str, call_id: str) -> Dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def task(subtype: str, **fields: Any) -> Any:
    return parse_message({"type": "system", "subtype": subtype, "task_id": "t1", "tool_use_id": AGENT_CALL, "session_id": "s", **fields})


def result(*, cost: float = 0.0026, usage: Optional[Dict[str, Any]] = None, model_usage: Any = None, duration_ms: int = 200) -> Any:
    return parse_message({
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": duration_ms, "duration_api_ms": 100,
        "num_turns": 2, "session_id": "s", "total_cost_usd": cost, "result": "main done",
        "usage": usage if usage is not None else {"input_tokens": 50, "output_tokens": 51, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 4},
        "modelUsage": model_usage if model_usage is not None else {"claude-opus-4-8[1m]": {"inputTokens": 100, "outputTokens": 84, "costUSD": cost}},
    })  # fmt: skip


def a_run_with_a_subagent(sub_model: str = "claude-opus-4-8") -> List[Any]:
    """The 2.1.197 shape of a foreground ``Agent`` call whose subagent runs ``Bash``."""
    return [
        assistant(tool_use("Agent", AGENT_CALL), message_id="m1"),
        task("task_started", description="helper", subagent_type="general-purpose", task_type="local_agent"),
        task("task_progress", usage={"total_tokens": 26, "tool_uses": 1, "duration_ms": 90}),
        assistant({"type": "text", "text": "let me look"}, message_id="m2", parent=AGENT_CALL, model=sub_model),
        assistant(tool_use("Bash", "toolu_bash"), message_id="m2", parent=AGENT_CALL, model=sub_model),
        task("task_notification", status="completed", usage={"total_tokens": 27, "tool_uses": 1, "duration_ms": 114}),
        assistant({"type": "text", "text": "main done"}, message_id="m3"),
        result(model_usage={
            "claude-opus-4-8[1m]": {"costUSD": 0.002},
            **({} if sub_model == "claude-opus-4-8" else {sub_model: {"costUSD": 0.0006}}),
        }),
    ]  # fmt: skip


def by_agent(messages: List[Any], **kwargs: Any) -> Dict[str, AgentUsage]:
    return {usage.agent: usage for usage in usage_by_agent(messages, **kwargs)}


def test_calls_are_counted_per_agent_and_lines_of_one_message_count_once() -> None:
    agents = by_agent(a_run_with_a_subagent())
    assert list(agents) == [MAIN_AGENT, AGENT_CALL]
    main, sub = agents[MAIN_AGENT], agents[AGENT_CALL]
    assert (main.model_requests, main.tool_calls, main.tools) == (2, 1, {"Agent": 1})
    assert (sub.model_requests, sub.tool_calls, sub.tools) == (1, 1, {"Bash": 1})


def test_main_tokens_come_from_the_results_and_a_tasks_from_its_notification() -> None:
    agents = by_agent(a_run_with_a_subagent())
    main, sub = agents[MAIN_AGENT], agents[AGENT_CALL]
    assert (main.input_tokens, main.output_tokens, main.cache_read_input_tokens, main.cache_creation_input_tokens) == (50, 51, 3, 4)
    assert main.total_tokens == 108 and main.duration_ms == 200
    assert (sub.total_tokens, sub.duration_ms, sub.status) == (27, 114, "completed")  # the notification, not the progress line
    assert sub.input_tokens is None and sub.output_tokens is None
    assert (sub.task_type, sub.subagent_type, sub.description) == ("local_agent", "general-purpose", "helper")


def test_agents_sharing_a_model_get_no_cost_and_a_model_of_its_own_gives_one() -> None:
    shared = by_agent(a_run_with_a_subagent())
    assert shared[MAIN_AGENT].cost_usd is None and shared[AGENT_CALL].cost_usd is None
    apart = by_agent(a_run_with_a_subagent(sub_model="claude-haiku-4-5"))
    assert apart[MAIN_AGENT].cost_usd == 0.002 and apart[AGENT_CALL].cost_usd == 0.0006


def test_a_reused_cli_tells_no_task_cost_apart() -> None:
    apart = by_agent(a_run_with_a_subagent(sub_model="claude-haiku-4-5"), fresh_cli=False)
    assert apart[MAIN_AGENT].cost_usd is None and apart[AGENT_CALL].cost_usd is None


def test_a_run_without_tasks_gives_main_the_run_cost() -> None:
    messages = [assistant({"type": "text", "text": "4"}, message_id="m1"), result(cost=0.5)]
    assert by_agent(messages)[MAIN_AGENT].cost_usd == 0.5
    assert by_agent(messages, run_cost=0.125)[MAIN_AGENT].cost_usd == 0.125  # a pooled run's own cost
    assert by_agent(messages, fresh_cli=False)[MAIN_AGENT].cost_usd is None  # a running total: not this run's


def test_several_results_of_one_run_add_up() -> None:
    messages = [result(duration_ms=10, usage={"input_tokens": 1, "output_tokens": 2}), result(duration_ms=5, usage={"input_tokens": 10, "output_tokens": 20})]
    main = by_agent(messages)[MAIN_AGENT]
    assert (main.input_tokens, main.output_tokens, main.duration_ms) == (11, 22, 15)


def test_odd_fields_are_left_out_not_raised() -> None:
    odd = [
        task("task_started", tool_use_id=["not", "a", "str"]),
        task("task_notification", usage={"total_tokens": "many", "duration_ms": -1}, status=7),
        result(usage={"input_tokens": True, "output_tokens": None}, model_usage=["x"], cost=float("nan")),
    ]
    agents = by_agent(odd)
    assert agents[AGENT_CALL].total_tokens is None and agents[AGENT_CALL].status is None
    assert agents[MAIN_AGENT].input_tokens is None


def test_run_result_carries_the_breakdown_and_it_travels_as_json() -> None:
    built = RunResult.from_messages(a_run_with_a_subagent())
    assert [a.agent for a in built.agents] == [MAIN_AGENT, AGENT_CALL]
    again = RunResult.from_json(built.to_json())
    assert again.agents == built.agents and isinstance(again.agents[1], AgentUsage)


def test_the_footer_lists_each_agent_when_there_were_tasks() -> None:
    from claude_sync._display.live import RunView

    view = RunView()
    printed = "".join(piece for message in a_run_with_a_subagent() for piece in view.feed(message))
    assert "  main: 2 requests · 1 tool call · 108 tokens · 0.2 s\n" in printed
    assert "  general-purpose 'helper': 1 request · 1 tool call · 27 tokens · 0.1 s · completed\n" in printed
    assert "general-purpose &#x27;helper&#x27;: 1 request" in view.to_markdown()
    assert "general-purpose &#x27;helper&#x27;: 1 request" in RunResult.from_messages(a_run_with_a_subagent())._repr_html_()


def test_a_run_without_tasks_keeps_its_one_line_footer() -> None:
    from claude_sync._display.live import RunView

    view = RunView()
    printed = ""
    for message in [assistant({"type": "text", "text": "4"}, message_id="m1"), result()]:
        printed += "".join(view.feed(message))
    assert "main:" not in printed and "done · 2 turns" in printed
