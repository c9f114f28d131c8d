"""The pure parts of tracing: span attributes from results and requests, tool calls followed
through a stream (``claude_sync._tracing.semconv`` / ``tool_calls``)."""

from __future__ import annotations

from typing import Any, Dict

from claude_sync._tracing import semconv
from claude_sync._tracing.tool_calls import ToolCallEnded, ToolCalls, ToolCallStarted
from claude_sync._wire.parse import parse_message


def result(**fields: Any) -> Any:
    wire: Dict[str, Any] = {
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": 5, "duration_api_ms": 4,
        "num_turns": 3, "session_id": "s1", "total_cost_usd": 0.25, "stop_reason": "end_turn",
        "usage": {"input_tokens": 7, "output_tokens": 9, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20},
    }  # fmt: skip
    wire.update(fields)
    return parse_message(wire)


def test_result_attributes_follow_the_genai_conventions() -> None:
    attributes = semconv.result_attributes(result(), "claude-x")
    assert attributes == {
        "claude_sync.result.subtype": "success", "gen_ai.conversation.id": "s1", "gen_ai.response.model": "claude-x",
        "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 9, "gen_ai.usage.cache_read.input_tokens": 100,
        "gen_ai.usage.cache_creation.input_tokens": 20, "gen_ai.response.finish_reasons": ("end_turn",),
        "claude_sync.cost_usd": 0.25, "claude_sync.num_turns": 3, "claude_sync.duration_api_ms": 4,
    }  # fmt: skip


def test_odd_result_fields_are_left_out() -> None:
    odd = semconv.result_attributes(result(total_cost_usd=float("nan"), usage={"input_tokens": True}, num_turns=-1), None)
    assert "claude_sync.cost_usd" not in odd and "gen_ai.usage.input_tokens" not in odd and "claude_sync.num_turns" not in odd


def test_an_error_result_names_its_subtype() -> None:
    assert semconv.result_attributes(result(subtype="error_max_turns", is_error=True), None)["error.type"] == "error_max_turns"


def test_token_counts_fold_the_cache_into_input() -> None:
    assert semconv.token_counts(result()) == {"input": 127, "output": 9}


def test_content_is_recorded_only_for_true() -> None:
    assert semconv.content_allowed({semconv.CONTENT_ENV: "TRUE "})
    assert not semconv.content_allowed({semconv.CONTENT_ENV: "1"}) and not semconv.content_allowed({})


def test_callback_attributes_name_the_tool_the_hook_and_the_mcp_tool() -> None:
    permission = semconv.callback_attributes("can_use_tool", {"tool_name": "Bash", "tool_use_id": "t1", "agent_id": "a"})
    assert permission["gen_ai.tool.name"] == "Bash" and permission["gen_ai.tool.call.id"] == "t1"
    hook = semconv.callback_attributes("hook_callback", {"callback_id": "hook_0", "input": {"hook_event_name": "Stop"}})
    assert hook["claude_sync.hook.event"] == "Stop"
    mcp = semconv.callback_attributes("mcp_message", {"server_name": "calc", "message": {"method": "tools/call", "params": {"name": "add"}}})
    assert mcp["gen_ai.tool.name"] == "add" and mcp["claude_sync.mcp.server"] == "calc"


def assistant(blocks: Any, parent: Any = None) -> Any:
    return parse_message({"type": "assistant", "parent_tool_use_id": parent, "message": {"id": "m", "model": "x", "content": blocks}})


def tool_result(call_id: str, parent: Any = None, is_error: bool = False) -> Any:
    return parse_message({"type": "user", "parent_tool_use_id": parent, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call_id, "content": "x", "is_error": is_error}]}})  # fmt: skip


def test_tool_calls_start_at_their_use_and_end_at_their_result_with_the_agent_they_ran_in() -> None:
    calls = ToolCalls()
    assert calls.observe(assistant([{"type": "tool_use", "id": "a1", "name": "Agent", "input": {}}])) == [ToolCallStarted("a1", "Agent", None)]
    assert calls.observe(assistant([{"type": "tool_use", "id": "b1", "name": "Bash", "input": {}}], parent="a1")) == [ToolCallStarted("b1", "Bash", "a1")]
    assert calls.observe(tool_result("b1", parent="a1", is_error=True)) == [ToolCallEnded("b1", True)]
    assert calls.observe(tool_result("a1")) == [ToolCallEnded("a1", False)]
    assert calls.open == {}


def test_a_repeated_use_and_an_unknown_result_bring_nothing() -> None:
    calls = ToolCalls()
    block = {"type": "tool_use", "id": "a1", "name": "Read", "input": {}}
    calls.observe(assistant([block]))
    assert calls.observe(assistant([block])) == []
    assert calls.observe(tool_result("zz")) == []


def task(subtype: str, call_id: str, **fields: Any) -> Any:
    wire: Dict[str, Any] = {"type": "system", "subtype": subtype, "task_id": "t1", "tool_use_id": call_id, "session_id": "s1", "uuid": "u"}
    wire.update(fields)
    return parse_message(wire)


def test_a_background_agent_call_ends_with_its_task_not_with_its_launched_result() -> None:
    calls = ToolCalls()
    calls.observe(assistant([{"type": "tool_use", "id": "a1", "name": "Agent", "input": {"run_in_background": True}}]))
    assert calls.observe(task("task_started", "a1", task_type="local_agent", description="d")) == []
    assert calls.observe(tool_result("a1")) == []  # "launched": the subagent works on
    assert calls.observe(assistant([{"type": "tool_use", "id": "b1", "name": "Bash", "input": {}}], parent="a1")) == [ToolCallStarted("b1", "Bash", "a1")]
    assert calls.observe(tool_result("b1", parent="a1")) == [ToolCallEnded("b1", False)]
    assert calls.observe(tool_result("a1")) == []  # a repeated result changes nothing
    ended = calls.observe(task("task_notification", "a1", status="failed", output_file="", summary="s"))
    assert ended == [ToolCallEnded("a1", True, background=True)] and calls.open == {}


def test_a_background_agent_call_ends_with_a_terminal_task_updated_which_names_only_the_task() -> None:
    calls = ToolCalls()
    calls.observe(assistant([{"type": "tool_use", "id": "a1", "name": "Agent", "input": {"run_in_background": True}}]))
    calls.observe(task("task_started", "a1", task_type="local_agent", description="d"))
    assert calls.observe(tool_result("a1")) == []  # "launched"
    running = parse_message({"type": "system", "subtype": "task_updated", "task_id": "t1", "patch": {"status": "running"}})
    assert calls.observe(running) == []
    done = parse_message({"type": "system", "subtype": "task_updated", "task_id": "t1", "patch": {"status": "completed"}})
    assert calls.observe(done) == [ToolCallEnded("a1", False, background=True)] and calls.open == {}
    other = parse_message({"type": "system", "subtype": "task_updated", "task_id": "t9", "patch": {"status": "failed"}})
    assert calls.observe(other) == []  # a task this run never saw start


def test_a_foreground_agent_whose_task_ends_first_ends_at_its_result_and_a_shell_task_is_not_waited_for() -> None:
    calls = ToolCalls()
    calls.observe(assistant([{"type": "tool_use", "id": "a1", "name": "Agent", "input": {}}]))
    calls.observe(task("task_started", "a1", task_type="local_agent", description="d"))
    assert calls.observe(task("task_notification", "a1", status="completed", output_file="", summary="s")) == []
    assert calls.observe(tool_result("a1")) == [ToolCallEnded("a1", False)]
    calls.observe(assistant([{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"run_in_background": True}}]))
    calls.observe(task("task_started", "b1", task_type="local_bash", description="d"))
    assert calls.observe(tool_result("b1")) == [ToolCallEnded("b1", False)]


def test_result_attributes_with_run_totals_carry_the_whole_run() -> None:
    from claude_sync._wire.run_totals import run_totals

    main = {"input_tokens": 20, "output_tokens": 30}  # the main agent's only: a subagent's are in modelUsage
    first = result(num_turns=2, total_cost_usd=0.1, usage=main, modelUsage={"m": {"inputTokens": 30, "outputTokens": 40, "costUSD": 0.1}})
    last = result(num_turns=1, total_cost_usd=0.3, usage=main, modelUsage={"m": {"inputTokens": 90, "outputTokens": 70, "costUSD": 0.3}})
    attributes = semconv.result_attributes(last, "m", run_totals([first, last]))
    assert attributes["claude_sync.results"] == 2 and attributes["claude_sync.num_turns"] == 3
    assert attributes["gen_ai.usage.input_tokens"] == 90 and attributes["claude_sync.cost_usd"] == 0.3
