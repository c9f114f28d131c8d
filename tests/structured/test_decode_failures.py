"""Whatever goes wrong while the user's class decodes a value is a ``StructuredOutputError``
keeping the value (``parse_output``), never a bare ``TypeError``/``RecursionError``: a
validator raising the "wrong" exception, values nested deeper than the walk can go, numbers
too large for a field, a ``__post_init__`` raising anything, an exception that cannot even
be printed. What is not an ``Exception`` (Ctrl-C, ``SystemExit``, a class's own
``BaseException``) passes through untouched."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Dict, Generic, List, Optional, TypeVar, Union

import pytest
from helpers import require_package
from typing_extensions import TypedDict

from claude_sync import StructuredOutputError, parse_output

pydantic = require_package("pydantic")  # pydantic validators are one of the cases (test-integrations)


@dataclasses.dataclass
class Node:
    child: Optional[Node] = None


class TreeDict(TypedDict, total=False):
    child: TreeDict


class PydanticNode(pydantic.BaseModel):
    child: Optional[PydanticNode] = None


class Strict(pydantic.BaseModel):
    a: int

    @pydantic.field_validator("a")
    @classmethod
    def _refuse(cls, value: int) -> int:
        raise TypeError(f"cannot take {value}")


def nested(depth: int) -> Dict[str, Any]:
    value: Dict[str, Any] = {}
    for _ in range(depth):
        value = {"child": value}
    return value


def refusal(cls: Any, value: Any) -> StructuredOutputError:
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(cls, value)
    assert caught.value.raw_output is value
    assert caught.value.output_type is not None and caught.value.output_type.endswith(cls.__qualname__)
    return caught.value


def test_a_pydantic_validator_raising_type_error_is_a_refusal() -> None:
    error = refusal(Strict, {"a": 1})
    assert error.error_path == "$"
    assert error.problem == "Strict refused the value: TypeError('cannot take 1')"


@pytest.mark.parametrize(
    "cls, depth",
    [(Node, 150), (Node, 10_000), (TreeDict, 10_000), (PydanticNode, 10_000)],
    ids=["dataclass-150", "dataclass-10000", "typeddict-10000", "pydantic-10000"],
)
def test_a_value_nested_too_deeply_is_a_refusal(cls: Any, depth: int) -> None:
    error = refusal(cls, nested(depth))
    assert error.error_path == "$" and error.problem is not None
    assert "nested too deeply" in error.problem or "RecursionError" in error.problem


@pytest.mark.parametrize("cls", [TreeDict, PydanticNode], ids=["typeddict", "pydantic"])
@pytest.mark.parametrize("depth", [150, 300, 600])
def test_a_deep_value_decodes_or_is_refused(cls: Any, depth: int) -> None:
    """How deep a walk reaches depends on the kind of class (frames per level): either
    answer is fine, a bare error is not."""
    try:
        parse_output(cls, nested(depth))
    except StructuredOutputError as exc:
        assert exc.raw_output == nested(depth)


def test_a_value_nested_deeply_but_within_reach_decodes() -> None:
    node = parse_output(Node, nested(40))
    depth = 0
    while node.child is not None:
        node, depth = node.child, depth + 1
    assert depth == 40


@dataclasses.dataclass
class Reading:
    value: float
    count: int = 0


def test_an_integer_too_large_for_a_float_is_a_refusal() -> None:
    error = refusal(Reading, {"value": 10**400})
    assert error.error_path == "$" and "OverflowError" in (error.problem or "")


def test_a_huge_integer_for_an_int_field_is_kept_exactly() -> None:
    assert parse_output(Reading, {"value": 1.0, "count": 10**5000}).count == 10**5000


def test_a_huge_integer_for_a_pydantic_model_is_a_refusal_not_a_value_error() -> None:
    class Count(pydantic.BaseModel):
        n: int

    value = {"n": 10**5000}  # more digits than int→str allows (json.dumps raises ValueError)
    error = refusal(Count, value)
    assert error.raw_output == value


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_decode_as_floats_or_are_refused(number: float) -> None:
    """NaN and the infinities are not JSON; a value handed over by hand may hold them: they
    decode as the float they are, or are refused — never a bare error."""
    try:
        got = parse_output(Reading, {"value": number}).value
    except StructuredOutputError as exc:
        assert exc.raw_output == {"value": number} or math.isnan(number)
    else:
        assert got == number or (math.isnan(got) and math.isnan(number))


@dataclasses.dataclass
class Line:
    qty: int
    raises = None  # what __post_init__ raises (set by the test)

    def __post_init__(self) -> None:
        if self.raises is not None:
            raise self.raises


@dataclasses.dataclass
class Order:
    lines: List[Line]


class Odd(Exception):
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


@pytest.mark.parametrize(
    "raised, words",
    [
        (TypeError("t"), "TypeError('t')"),
        (RecursionError("r"), "RecursionError('r')"),
        (LookupError("l"), "LookupError('l')"),
        (StopIteration(), "StopIteration()"),
        (ImportError("i"), "ImportError('i')"),
        (Odd(), "Odd(<unprintable>)"),
    ],
    ids=lambda x: type(x).__name__ if isinstance(x, BaseException) else "",
)
def test_a_post_init_raising_any_exception_is_a_refusal_at_the_object(
    raised: Exception, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Line, "raises", raised)
    error = refusal(Order, {"lines": [{"qty": 1}]})
    assert error.error_path == "$.lines[0]"
    assert error.problem == f"Line refused the value: {words}"


class Stop(BaseException):
    """A class's own BaseException: by Python's convention a signal to stop, not an error."""


@pytest.mark.parametrize("raised", [KeyboardInterrupt, SystemExit, Stop])
def test_what_is_not_an_exception_passes_through(raised: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Line, "raises", raised())
    with pytest.raises(raised):
        parse_output(Order, {"lines": [{"qty": 1}]})


T = TypeVar("T")


@dataclasses.dataclass
class Box(Generic[T]):
    item: T


@dataclasses.dataclass
class Holder:
    lines: Dict[str, List[Line]]
    either: Union[int, Node, List[Optional[Line]]]


def test_generic_and_union_fields_decode_and_refuse_with_a_path(monkeypatch: pytest.MonkeyPatch) -> None:
    held = parse_output(Holder, {"lines": {"a": [{"qty": 3}]}, "either": [None, {"qty": 2}]})
    assert held.lines == {"a": [Line(3)]} and held.either == [None, Line(2)]
    monkeypatch.setattr(Line, "raises", ValueError("no"))
    error = refusal(Holder, {"lines": {}, "either": [None, {"qty": 2}]})
    assert error.error_path == "$.either[1]" and error.problem == "Line refused the value: ValueError('no')"


def test_a_generic_dataclass_is_refused_up_front_naming_the_field() -> None:
    @dataclasses.dataclass
    class Boxes:
        boxes: List[Box[int]]

    with pytest.raises(TypeError, match=r"Boxes\.boxes: .*Box\[int\] has no JSON Schema form"):
        parse_output(Boxes, {"boxes": []})


def test_a_class_that_is_no_output_class_is_still_a_type_error() -> None:
    class Plain:
        pass

    with pytest.raises(TypeError, match="output_format takes"):
        parse_output(Plain, {})
