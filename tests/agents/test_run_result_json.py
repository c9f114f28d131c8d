"""``RunResult`` travels as JSON: ``to_dict``/``to_json`` and back (dataclasses-json, as the
messages), so a Celery task with the default JSON serializer can return one."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from claude_sync import OversizedLineSkipped, RunResult, run
from claude_sync._wire.parse import parse_message
from claude_sync.testing import ScriptedCLI

WIRE: List[Dict[str, Any]] = [
    {"type": "system", "subtype": "init", "session_id": "s1", "cwd": "/w", "model": "m", "tools": ["Bash"],
     "permissionMode": "default"},
    {"type": "assistant", "session_id": "s1", "parent_tool_use_id": None, "message": {
        "id": "msg1", "model": "m", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            {"type": "brand_new_block", "x": 1}]}},
    {"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a b", "is_error": False}]}},
    {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "uuid": "u2", "session_id": "s1"},
    {"type": "something_new", "session_id": "s1", "x": [1, 2]},
    {"type": "assistant", "session_id": "s1", "message": {
        "id": "msg2", "model": "m", "role": "assistant", "content": [{"type": "text", "text": "final **words**"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 12, "duration_api_ms": 10,
     "num_turns": 2, "session_id": "s1", "total_cost_usd": 0.5, "usage": {"input_tokens": 3},
     "result": "final **words**", "structured_output": {"answer": [4, {"deep": None}]}},
]  # fmt: skip


def a_run_result() -> RunResult:
    messages: List[Any] = [parse_message(dict(m)) for m in WIRE]
    messages.insert(3, OversizedLineSkipped.of(99_000_000, 64, '{"type": "assistant"'))
    return RunResult.from_messages(messages, cost_before=0.2)


def test_to_json_and_back_is_equal() -> None:
    original = a_run_result()
    text = original.to_json()
    json.loads(text)  # plain JSON: what a JSON serializer can carry
    copy = RunResult.from_json(text)
    assert copy == original
    assert [type(m) for m in copy.messages] == [type(m) for m in original.messages]
    assert copy.result == original.result and copy.structured_output == {"answer": [4, {"deep": None}]}
    assert copy.total_cost_usd == original.total_cost_usd  # this run's share, not the CLI's running total
    assert copy.messages[3] == OversizedLineSkipped.of(99_000_000, 64, '{"type": "assistant"')


def test_to_dict_is_plain_data_and_from_dict_rebuilds_it() -> None:
    original = a_run_result()
    data = original.to_dict()
    assert json.loads(json.dumps(data)) == data  # only JSON types inside
    assert data["text"] == "final **words**" and data["session_id"] == "s1"
    assert RunResult.from_dict(data) == original


def test_a_real_runs_result_travels(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().tool_use("Read", {"file_path": "x"}).tool_result("data").text("done").result()
    result = run("read x")
    assert RunResult.from_json(result.to_json()) == result
