"""What a turn's messages say about its ``output_format``: the instance, or a
``StructuredOutputError`` keeping the raw value, the schema and the path. The wire lines are
shaped like the real CLIs' (2.1.197, 2.1.331)."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import ResultError, ResultMessage, StructuredOutputError, json_schema_of
from claude_sync._structured.outcome import (
    AttemptLog,
    output_outcome,
    pointer_to_path,
    with_parsed_output,
)
from claude_sync._wire.parse import parse_message
from claude_sync._wire.protocol import result_error

SID = "7f0c2b1e-0000-4000-8000-000000000001"


@dataclasses.dataclass
class Answer:
    a: int


@dataclasses.dataclass
class Fussy:
    a: int

    def __post_init__(self) -> None:
        raise RuntimeError("never happy")


def call(value: Any, tool_id: str, *, name: str = "StructuredOutput", parent: Optional[str] = None) -> Any:
    return parse_message(
        {
            "type": "assistant",
            "message": {"id": f"msg_{tool_id}", "model": "m", "role": "assistant",
                        "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": value}]},
            "parent_tool_use_id": parent,
            "session_id": SID,
        }
    )  # fmt: skip


def tool_result(tool_id: str, text: str, *, is_error: bool = True) -> Any:
    return parse_message(
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": is_error}]},
            "parent_tool_use_id": None,
            "session_id": SID,
        }
    )


def result(subtype: str = "success", *, is_error: bool = False, **fields: Any) -> ResultMessage:
    line: Dict[str, Any] = {"type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": 1,
                            "duration_api_ms": 1, "num_turns": 1, "session_id": SID}  # fmt: skip
    line.update(fields)
    message = parse_message(line)
    assert isinstance(message, ResultMessage)
    return message


RETRIES_197 = ["Failed to provide valid structured output after 2 attempts"]
RETRIES_331 = ["Failed to provide valid structured output after 2 attempts — last StructuredOutput error: Output does not match required schema: /a: must be integer"]
SCHEMA_TEXT = "Output does not match required schema: /a: must be integer, /b: must be string"


def exhausted_turn(errors: List[str]) -> List[Any]:
    return [
        call({"a": "x"}, "t1"),
        tool_result("t1", SCHEMA_TEXT),
        call({"a": "y"}, "t2"),
        tool_result("t2", SCHEMA_TEXT),
        result("error_max_structured_output_retries", is_error=True, errors=errors),
    ]


def test_the_attempt_log_keeps_the_last_top_level_call() -> None:
    log = AttemptLog.of(
        [
            call({"a": "sub"}, "s1", parent="toolu_agent"),  # a subagent's: not the run's answer
            call({"cmd": "ls"}, "b1", name="Bash"),
            call({"a": "x"}, "t1"),
            tool_result("t1", SCHEMA_TEXT),
            call({"a": 2}, "t2"),
        ]
    )
    assert log.raw == {"a": 2} and log.last_error is None
    assert AttemptLog().raw is None


@pytest.mark.parametrize("errors", [RETRIES_197, RETRIES_331], ids=["2.1.197", "2.1.331"])
@pytest.mark.parametrize("output_format", [Answer, {"type": "json_schema", "schema": {"type": "object"}}], ids=["class", "dict"])
def test_exhausted_retries_keep_the_last_value_and_path(errors: List[str], output_format: Any) -> None:
    messages = exhausted_turn(errors)
    output, error = output_outcome(output_format, messages[-1], AttemptLog.of(messages))
    assert output is None and isinstance(error, StructuredOutputError) and isinstance(error, ResultError)
    assert error.raw_output == {"a": "y"}
    assert error.error_path == "$.a" and error.problem == "must be integer"
    assert error.subtype == "error_max_structured_output_retries" and error.session_id == SID
    assert error.errors == errors
    if isinstance(output_format, dict):
        assert error.schema == {"type": "object"} and error.output_type is None
    else:
        assert error.schema == json_schema_of(Answer) and error.output_type == f"{__name__}.Answer"


def test_exhausted_retries_without_the_calls_in_view() -> None:
    output, error = output_outcome(Answer, exhausted_turn(RETRIES_197)[-1], AttemptLog())
    assert error is not None and error.raw_output is None and error.error_path is None
    assert error.problem == RETRIES_197[0]


def test_a_run_that_never_called_the_tool() -> None:
    chat = result(result="I would rather chat.")
    output, error = output_outcome(Answer, chat, AttemptLog())
    assert output is None and error is not None
    assert error.raw_output is None and error.problem == "the model never called the StructuredOutput tool"
    assert "I would rather chat." in str(error)
    # a schema dict keeps the official behaviour: no value, no error
    assert output_outcome({"type": "json_schema", "schema": {}}, chat, AttemptLog()) == (None, None)


def test_a_value_the_class_refuses() -> None:
    done = result(structured_output={"a": 1})
    output, error = output_outcome(Fussy, done, AttemptLog())
    assert output is None and error is not None
    assert error.error_path == "$" and "never happy" in (error.problem or "")
    assert error.raw_output == {"a": 1} and error.subtype == "success"


def test_success() -> None:
    done = result(structured_output={"a": 1})
    assert output_outcome(Answer, done, AttemptLog()) == (Answer(1), None)
    assert output_outcome({"type": "json_schema", "schema": {}}, done, AttemptLog()) == ({"a": 1}, None)
    assert output_outcome(None, done, AttemptLog()) == (None, None)


def test_other_error_results_stay_result_errors() -> None:
    failed = result(is_error=True, api_error_status=401, result="Invalid API key")
    assert output_outcome(Answer, failed, AttemptLog()) == (None, None)


def test_with_parsed_output_never_raises() -> None:
    done = result(structured_output={"a": 1})
    parsed = with_parsed_output(Answer, done)
    assert parsed.parsed_output == Answer(1) and parsed == done and parsed.raw is done.raw
    assert done.parsed_output is None  # the original is not changed
    assert output_outcome(Answer, parsed, AttemptLog())[0] is parsed.parsed_output  # not decoded again
    assert with_parsed_output(Fussy, done) is done
    assert with_parsed_output(Answer, result(structured_output={"a": "x"})).parsed_output is None
    assert with_parsed_output(Answer, result()).parsed_output is None


def test_parsed_output_is_not_serialised() -> None:
    parsed = with_parsed_output(Answer, result(structured_output={"a": 1}))
    data = parsed.to_dict()
    assert "parsed_output" not in data
    assert ResultMessage.from_dict(data).parsed_output is None
    assert "parsed_output" not in repr(parsed)


def test_result_error_for_the_retries_subtype() -> None:
    error = result_error(result("error_max_structured_output_retries", is_error=True, errors=RETRIES_197))
    assert type(error) is StructuredOutputError and error.problem == RETRIES_197[0]


def test_the_error_pickles_with_everything() -> None:
    messages = exhausted_turn(RETRIES_331)
    _, error = output_outcome(Answer, messages[-1], AttemptLog.of(messages))
    assert error is not None
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is StructuredOutputError and str(copy) == str(error)
    for name in ("raw_output", "schema", "error_path", "problem", "output_type", "subtype", "errors", "session_id", "data"):
        assert getattr(copy, name) == getattr(error, name), name


@pytest.mark.parametrize(
    ("pointer", "path"),
    [("", "$"), ("/a", "$.a"), ("/lines/0/price", "$.lines[0].price"), ("/a~1b/c~0d", "$.a/b.c~d")],
)
def test_pointer_to_path(pointer: str, path: str) -> None:
    assert pointer_to_path(pointer) == path


@pytest.mark.parametrize(
    ("text", "path", "problem"),
    [
        ("Output does not match required schema: /a: must be integer", "$.a", "must be integer"),
        (SCHEMA_TEXT, "$.a", "must be integer"),
        ('Output does not match required schema: /currency: must be equal to one of the allowed values: ["EUR", "USD"], /b: must be string', "$.currency", 'must be equal to one of the allowed values: ["EUR", "USD"]'),
        ("Output does not match required schema: root: must have required property 'a'", "$", "must have required property 'a'"),
        ("Something else entirely", None, "Something else entirely"),
    ],
    ids=["one", "two", "a comma inside (2.1.331)", "root", "unknown"],
)
def test_the_cli_complaint_is_read(text: str, path: Optional[str], problem: str) -> None:
    from claude_sync._structured.outcome import cli_problem

    assert cli_problem(text) == (path, problem)


def init(*tools: str) -> Any:
    return parse_message({"type": "system", "subtype": "init", "session_id": SID, "tools": list(tools)})


@pytest.mark.parametrize("output_format", [Answer, {"type": "json_schema", "schema": {"type": "object", "x-note": 1}}], ids=["class", "dict"])
def test_a_schema_the_cli_dropped_is_named(output_format: Any) -> None:
    """The CLI drops the tool when Ajv cannot compile the schema; system/init then lacks it."""
    log = AttemptLog.of([init("Bash", "Read"), result(result="No tool to call.")])
    assert log.offered is False
    output, error = output_outcome(output_format, result(result="No tool to call."), log)
    assert output is None and error is not None
    assert (error.problem or "").startswith("the CLI did not offer the StructuredOutput tool")


def test_an_offered_tool_never_called_is_not_a_dropped_schema() -> None:
    log = AttemptLog.of([init("Bash", "StructuredOutput")])
    assert log.offered is True
    _, error = output_outcome(Answer, result(), log)
    assert error is not None and error.problem == "the model never called the StructuredOutput tool"
    assert output_outcome({"type": "json_schema", "schema": {}}, result(), log) == (None, None)
