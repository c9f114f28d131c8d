"""``output_format`` as a class through ``ClaudeSDKClient`` and ``query()`` (scripted CLI, no
process): results carry ``parsed_output``; ``query()`` raises ``StructuredOutputError`` after
the result; a Ctrl-C while a result is decoded loses nothing."""

from __future__ import annotations

import dataclasses
from typing import Any, List, Optional

import pytest
from helpers import Kit, require_package

from claude_sync import ResultMessage, StructuredOutputError, run
from claude_sync.testing import ScriptedCLI

VALUE = {"answer": "yes", "votes": 3}


@dataclasses.dataclass
class Verdict:
    answer: str
    votes: int


_INTERRUPTED: List[int] = []


@dataclasses.dataclass
class Touchy:
    """Raises KeyboardInterrupt the first time it is built: a Ctrl-C during decoding."""

    answer: str
    votes: int

    def __post_init__(self) -> None:
        if not _INTERRUPTED:
            _INTERRUPTED.append(1)
            raise KeyboardInterrupt


def typed_turn(value: Any = VALUE) -> Kit:
    """One turn answered as the real CLI does: the StructuredOutput call, then the result."""
    cli = ScriptedCLI(auto_answers={"interrupt": None}).expect_user()
    cli.tool_use("StructuredOutput", value).result('{"answer": "yes"}', structured_output=value)
    return Kit(cli)


@pytest.mark.parametrize("merge", [False, True], ids=["plain", "merged"])
def test_the_client_yields_results_with_the_instance(merge: bool) -> None:
    cli = typed_turn()
    with cli.client(output_format=Verdict) as client:
        client.query("vote")
        messages = list(client.receive_response(merge_assistant=merge))
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.parsed_output == Verdict("yes", 3)


def test_the_client_never_raises_for_a_value_that_does_not_fit() -> None:
    cli = typed_turn({"answer": "yes", "votes": "three"})
    with cli.client(output_format=Verdict) as client:
        client.query("vote")
        *_, result = client.receive_response()
    assert isinstance(result, ResultMessage) and result.parsed_output is None
    assert result.structured_output == {"answer": "yes", "votes": "three"}


def test_a_schema_dict_gets_no_parsed_output() -> None:
    cli = typed_turn()
    with cli.client(output_format={"type": "json_schema", "schema": {"type": "object"}}) as client:
        client.query("vote")
        *_, result = client.receive_response()
    assert isinstance(result, ResultMessage) and result.parsed_output is None


def test_query_yields_the_instance() -> None:
    messages = list(typed_turn().query("vote", output_format=Verdict))
    assert messages[-1].parsed_output == Verdict("yes", 3)


def test_query_raises_after_the_result_for_a_value_the_class_refuses() -> None:
    seen: List[Any] = []
    stream = typed_turn({"answer": "yes", "votes": 1.5}).query("vote", output_format=Verdict)
    with pytest.raises(StructuredOutputError) as caught:
        for message in stream:
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage)
    assert caught.value.error_path == "$.votes" and caught.value.raw_output == {"answer": "yes", "votes": 1.5}


def test_query_keeps_quiet_when_told() -> None:
    cli = typed_turn({"answer": "yes"})
    messages = list(cli.query("vote", output_format=Verdict, raise_on_error_result=False))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].parsed_output is None


def test_a_ctrl_c_while_decoding_requeues_the_result() -> None:
    _INTERRUPTED.clear()
    cli = typed_turn()
    with cli.client(output_format=Touchy) as client:
        client.query("vote")
        first: List[Any] = []
        with pytest.raises(KeyboardInterrupt):
            for message in client.receive_response():
                first.append(message)
        assert not any(isinstance(m, ResultMessage) for m in first)
        again = list(client.receive_response())
    assert len(again) == 1 and isinstance(again[0], ResultMessage)
    assert again[0].parsed_output == Touchy("yes", 3)


@dataclasses.dataclass
class Node:
    child: Optional[Node] = None


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"child": value}
    return value


def _strict_model() -> type:
    pydantic = require_package("pydantic")  # a pydantic validator is the case

    class Strict(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        answer: str

        @pydantic.field_validator("answer")
        @classmethod
        def _refuse(cls, value: str) -> str:
            raise TypeError("not this answer")

    return Strict


@pytest.mark.parametrize("case", ["pydantic-type-error", "dataclass-150-deep"])
def test_run_raises_structured_output_error_whatever_the_class_raised(case: str) -> None:
    """A validator's TypeError or a RecursionError used to escape run() bare, losing the run."""
    cls, value = (_strict_model(), {"answer": "yes"}) if case.startswith("pydantic") else (Node, nested(150))
    kit = typed_turn(value)
    with pytest.raises(StructuredOutputError) as caught:
        run("vote", options=kit.options(), output_format=cls, transport=kit.cli.transport())
    assert caught.value.raw_output == value and caught.value.error_path == "$"
    assert caught.value.session_id is not None and caught.value.data["structured_output"] == value


@pytest.mark.parametrize("case", ["pydantic-type-error", "dataclass-150-deep"])
def test_the_run_result_keeps_the_refusal_when_told_not_to_raise(case: str) -> None:
    cls, value = (_strict_model(), {"answer": "yes"}) if case.startswith("pydantic") else (Node, nested(150))
    kit = typed_turn(value)
    options = kit.options(raise_on_error_result=False)
    outcome = run("vote", options=options, output_format=cls, transport=kit.cli.transport())
    assert outcome.output is None and outcome.structured_output == value
    assert outcome.output_error is not None and outcome.output_error.raw_output == value


def test_query_and_the_client_survive_a_validator_raising_type_error() -> None:
    strict = _strict_model()
    seen: List[Any] = []
    with pytest.raises(StructuredOutputError, match="Strict refused the value: TypeError"):
        for message in typed_turn({"answer": "yes"}).query("vote", output_format=strict):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage) and seen[-1].parsed_output is None
    with typed_turn({"answer": "yes"}).client(output_format=strict) as client:
        client.query("vote")
        *_, result = client.receive_response()
    assert isinstance(result, ResultMessage) and result.parsed_output is None
