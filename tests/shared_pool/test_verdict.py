"""The lease verdict (pure): reusable only when proven idle; each way to fail closed. And the
figures a reused CLI's results are rewritten to (``figures.py``)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync._options.command import SpawnPlan
from claude_sync._shared_pool.figures import own_figures
from claude_sync._shared_pool.verdict import LeaseVerdict, lease_refusal


def line(frame: Dict[str, Any]) -> bytes:
    return json.dumps(frame, separators=(",", ":")).encode() + b"\n"


INIT = line({"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize"}})
USER = line({"type": "user", "message": {"role": "user", "content": "hi"}, "session_id": "default"})
ASSISTANT = line({"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}})
RESULT = line({"duration_ms": 3, "type": "result", "subtype": "success", "total_cost_usd": 0.5})
IDLE = line({"type": "system", "subtype": "session_state_changed", "state": "idle"})
RUNNING = line({"type": "system", "subtype": "session_state_changed", "state": "running"})


def verdict(sent: List[bytes], read: List[bytes], options: Optional[ClaudeAgentOptions] = None) -> Optional[str]:
    judge = LeaseVerdict(options or ClaudeAgentOptions())
    for data in sent:
        judge.sent(data)
    for chunk in read:
        judge.read(chunk)
    return judge.reason()


def test_a_plain_turn_is_reusable_in_any_chunking() -> None:
    stream = ASSISTANT + RESULT
    for size in (1, 2, 7, 64, len(stream)):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert verdict([INIT, USER], chunks) is None, size


def test_idle_lines_after_the_result_keep_it_reusable_but_a_running_one_does_not() -> None:
    judge = LeaseVerdict(ClaudeAgentOptions())
    judge.sent(USER)
    judge.read(RUNNING + ASSISTANT + RESULT)
    assert judge.settling  # it reports its state: its idle line comes next
    judge.read(IDLE)
    assert judge.reason() is None and not judge.settling
    judge.read(RUNNING)
    assert judge.reason() == "the CLI wrote something after its last result"


def test_settling_between_a_result_and_its_idle() -> None:
    judge = LeaseVerdict(ClaudeAgentOptions())
    judge.sent(USER)
    judge.read(RUNNING + RESULT)
    assert judge.settling
    judge.read(IDLE)
    assert not judge.settling and judge.turn_over


@pytest.mark.parametrize(
    "sent, read, expected",
    [
        ([INIT], [], "no prompt was sent"),
        ([INIT, USER], [ASSISTANT], "a prompt sent had no result yet"),
        ([INIT, USER], [ASSISTANT + RESULT[:-5]], "the CLI was writing a line"),
        ([INIT, USER], [RESULT + ASSISTANT], "the CLI wrote something after its last result"),
        ([INIT, USER, USER], [RESULT], "a prompt sent had no result yet"),
        ([INIT, USER], [line({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t"}]}}), RESULT],
         "the run used a tool"),
        ([INIT, USER], [line({"type": "user", "message": {"content": [{"type": "tool_result"}]}}), RESULT],
         "the run used a tool"),
        ([INIT, USER], [line({"type": "control_request", "request": {"subtype": "can_use_tool"}}), RESULT],
         "control request"),
        ([INIT, USER, line({"type": "control_request", "request": {"subtype": "interrupt"}})], [RESULT],
         "the control request 'interrupt'"),
        ([INIT, USER, line({"type": "control_response", "response": {}})], [RESULT], "answered a request"),
        ([INIT, line({"type": "user", "message": {"content": "/config model=x"}})], [RESULT], "/config"),
        ([INIT, line({"type": "user", "message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "/x"}]}})],
         [RESULT], "/x"),
        ([INIT, line({"type": "user", "message": {"content": [{"type": "image"}]}})], [RESULT], "not plain text"),
        ([INIT, USER, b"not json\n"], [RESULT], "not JSON"),
        ([INIT, USER], [b'{"type": "result"}\n'], "no result"),  # spaced JSON: never taken for a result
    ],
)  # fmt: skip
def test_what_retires_a_cli(sent: List[bytes], read: List[bytes], expected: str) -> None:
    reason = verdict(sent, read)
    assert reason is not None and expected in reason, reason


def test_a_tool_use_split_across_chunks_is_seen() -> None:
    data = line({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t"}]}}) + RESULT
    cut = data.index(b"tool_use") + 3
    assert "tool" in str(verdict([USER], [data[:cut], data[cut:]]))


def test_a_prompt_escaped_by_slash_commands_false_is_no_command() -> None:
    escaped = line({"type": "user", "message": {"content": " /config model=x"}})
    assert verdict([escaped], [RESULT]) is None


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"slash_commands": False}, "slash_commands=False"),
        ({"max_budget_usd": 1.0}, "max_budget_usd"),
        ({"hooks": {"Stop": []}}, "hooks"),
    ],
)
def test_options_that_forbid_a_reset_retire_whatever_the_run(fields: Dict[str, Any], expected: str) -> None:
    reason = verdict([USER], [RESULT], ClaudeAgentOptions(**fields))
    assert reason is not None and expected in reason


def _plan(**fields: Any) -> SpawnPlan:
    return SpawnPlan(argv=["claude"], env={}, **fields)


@pytest.mark.parametrize(
    "fields, posix, expected",
    [
        ({}, False, "POSIX"),
        ({"spawn_command": lambda command: command}, True, "spawn_command"),
        ({"resume": "abc"}, True, "resume"),
        ({"continue_conversation": True}, True, "continue_conversation"),
        ({"session_store": object()}, True, "session_store"),
        ({"extra_args": {"resume": "abc"}}, True, "extra_args"),
    ],
)
def test_plans_that_are_not_leased(fields: Dict[str, Any], posix: bool, expected: str) -> None:
    options = ClaudeAgentOptions()
    for name, value in fields.items():
        object.__setattr__(options, name, value)
    reason = lease_refusal(options, _plan(), posix=posix)
    assert reason is not None and expected in reason, reason


def test_a_plan_run_as_another_user_or_in_a_trace_is_not_leased_and_a_plain_one_is() -> None:
    assert "user" in str(lease_refusal(ClaudeAgentOptions(), _plan(user="nobody"), posix=True))
    traced = SpawnPlan(argv=["claude"], env={"TRACEPARENT": "00-abc-def-01"})
    assert "TRACEPARENT" in str(lease_refusal(ClaudeAgentOptions(), traced, posix=True))
    assert lease_refusal(ClaudeAgentOptions(), _plan(), posix=True) is None


# ----------------------------------------------------------------------------- figures


def _result(cost: float, tokens: int) -> Dict[str, Any]:
    return {"type": "result", "total_cost_usd": cost, "usage": {"input_tokens": 1},
            "modelUsage": {"m": {"inputTokens": tokens, "outputTokens": tokens, "costUSD": cost, "contextWindow": 9},
                           "old": {"inputTokens": 4, "outputTokens": 4, "costUSD": 0.1}}}  # fmt: skip


def test_a_reused_cli_reports_its_own_cost_and_tokens_in_any_chunking() -> None:
    before = {"m": {"inputTokens": 10, "outputTokens": 10, "costUSD": 0.3}, "old": {"inputTokens": 4, "outputTokens": 4, "costUSD": 0.1}}
    stream = ASSISTANT + line(_result(0.5, 15)) + IDLE
    for size in (1, 5, len(stream)):
        out = b"".join(own_figures(iter([stream[i : i + size] for i in range(0, len(stream), size)]), 0.3, before))
        lines = [json.loads(x) for x in out.split(b"\n") if x]
        result = lines[1]
        assert result["total_cost_usd"] == pytest.approx(0.2)
        assert result["modelUsage"] == {"m": {"inputTokens": 5, "outputTokens": 5, "costUSD": pytest.approx(0.2), "contextWindow": 9}}
        assert lines[0] == json.loads(ASSISTANT) and lines[2] == json.loads(IDLE)


def test_a_fresh_cli_passes_its_chunks_untouched() -> None:
    chunks = [ASSISTANT[:5], ASSISTANT[5:] + RESULT]
    assert list(own_figures(iter(chunks), 0.0, None)) == chunks
