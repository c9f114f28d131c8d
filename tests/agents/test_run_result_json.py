"""``RunResult`` travels as JSON: ``to_dict``/``to_json`` and back (dataclasses-json, as the
messages), so a Celery task with the default JSON serializer can return one."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any, Dict, List

import pytest
from helpers import require_package

from claude_sync import ClaudeAgentOptions, OversizedLineSkipped, RunResult, run
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


@dataclasses.dataclass
class Count:
    n: int


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


# ----------------------------------------------------------------------------- kombu (Celery's JSON)


def kombu_json() -> Any:
    """kombu's serialization registry. Checked once: kombu swaps its module for a lazy one
    without ``__spec__``, which ``require_package``'s ``find_spec`` then refuses."""
    if "kombu" not in sys.modules:
        require_package("kombu")  # Celery's message library: its JSON encoder calls __json__
    from kombu import serialization

    return serialization


def test_a_celery_task_can_return_a_run_result_under_the_json_serializer() -> None:
    """What a Celery worker does with a task's return value (kombu's ``json`` serializer,
    inside the result backend's envelope) and what ``task.get()`` hands the caller back.
    Without ``__json__`` kombu raised ``TypeError`` (Celery: ``EncodeError``)."""
    serialization = kombu_json()
    original = a_run_result()
    content_type, encoding, payload = serialization.dumps({"status": "SUCCESS", "result": original}, serializer="json")
    got = serialization.loads(payload, content_type, encoding)["result"]
    assert isinstance(got, dict) and got == original.__json__()
    assert RunResult.from_dict(got) == original


def test_from_json_reads_what_kombu_wrote() -> None:
    kombu_json()
    from kombu.utils.json import dumps

    original = a_run_result()
    assert RunResult.from_json(dumps(original)) == original
    assert RunResult.from_json(dumps(original, ensure_ascii=False)) == original


def test_json_is_what_a_json_encoder_looking_for_json_writes() -> None:
    """kombu's contract (``JSONEncoder.default``: ``o.__json__()``), with the standard library."""
    original = a_run_result()
    text = json.dumps({"result": original}, default=lambda o: o.__json__())
    assert RunResult.from_dict(json.loads(text)["result"]) == original
    assert original.__json__() == original.to_dict() == json.loads(original.to_json())
    assert original.result.__json__() == original.result.to_dict()  # every message travels too


@pytest.mark.parametrize(
    "text",
    ["lone \udcff surrogate", "\U0001f600 astral", "nul \x00 byte", "x" * 1_000_000],
    ids=["lone-surrogate", "astral", "nul", "1MB"],
)
def test_awkward_text_survives_the_trip(text: str) -> None:
    serialization = kombu_json()
    wire = [dict(m) for m in WIRE]
    wire[-1] = dict(wire[-1], result=text, structured_output={"big": 10**200, "text": text})
    original = RunResult.from_messages([parse_message(m) for m in wire])
    content_type, encoding, payload = serialization.dumps(original, serializer="json")
    assert RunResult.from_dict(serialization.loads(payload, content_type, encoding)) == original


def test_a_typed_result_travels_as_its_json_value_and_its_error_too(claude_cli: ScriptedCLI) -> None:
    serialization = kombu_json()
    claude_cli.expect_user().tool_use("StructuredOutput", {"n": "x"}).result("x", structured_output={"n": "x"})
    outcome = run("count", options=ClaudeAgentOptions(raise_on_error_result=False), output_format=Count)
    assert outcome.output_error is not None
    content_type, encoding, payload = serialization.dumps(outcome, serializer="json")
    back = RunResult.from_dict(serialization.loads(payload, content_type, encoding))
    assert back.output_error is not None and back.output_error.raw_output == {"n": "x"}
    assert back.output_error.error_path == "$.n" and str(back.output_error) == str(outcome.output_error)
