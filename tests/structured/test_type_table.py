"""The type table: one output field of each supported type → its JSON Schema, checked with
values that must pass and values that must fail.

For every type ``T`` a dataclass ``Holder(value: T)`` is made; then for each row

* every good value passes the schema validator against ``json_schema_of(Holder)`` and
  decodes (``parse_output``) to the expected Python value;
* every bad value is refused: by the schema (what the CLI would refuse too) or, for what
  the schema cannot say, by the decoder — either way ``StructuredOutputError`` with a path.

The same rows run through a pydantic model ``PHolder(value: T)``: its ``json_schema_of``
schema must accept the good values (else the CLI would refuse answers the model likes),
pydantic's own validation (JSON mode) must accept them too, and whatever pydantic refuses
``parse_output`` refuses with a path (values pydantic's lax mode takes are taken).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import typing
import uuid
from typing import (
    Any,
    Dict,
    FrozenSet,
    List,
    Mapping,
    NamedTuple,
    NewType,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

import pytest
from helpers import require_package
from typing_extensions import Annotated, Literal, NotRequired, TypedDict

from claude_sync import StructuredOutputError, json_schema_of, parse_output
from claude_sync._mcp.schema_validation import validate

pydantic = require_package("pydantic")  # the test-integrations extra has it


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


UserId = NewType("UserId", int)


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Movie(TypedDict):
    title: str
    year: NotRequired[int]


UUID_TEXT = "123e4567-e89b-12d3-a456-426614174000"


class Row(NamedTuple):
    tp: Any
    fragment: Dict[str, Any]  # keys the field's schema must have (a subset check)
    good: List[Any]
    expected: Any  # good[0] decoded
    bad: List[Any]
    pydantic_ok: bool = True  # pydantic can hold this type


ROWS = [
    Row(str, {"type": "string"}, ["a", ""], "a", [1, None, True]),
    Row(int, {"type": "integer"}, [3, -1, 2.0], 3, ["3", 1.5, True, None]),
    Row(float, {"type": "number"}, [1.5, 2], 1.5, ["1.5", None, False]),
    Row(bool, {"type": "boolean"}, [True, False], True, [1, "true", None]),
    Row(Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}, [None, 4], None, ["x", 1.5]),
    Row(Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}, [1, "a"], 1, [None, 1.5, []]),
    Row(List[int], {"type": "array", "items": {"type": "integer"}}, [[1, 2], []], [1, 2], [[1, "a"], "1", None]),
    Row(List[List[str]], {"type": "array"}, [[["a"], []]], [["a"], []], [[["a", 1]], [[1]]]),
    Row(Sequence[int], {"type": "array"}, [[1]], (1,), [[None]]),  # dataclasses-json builds a tuple
    Row(Set[int], {"type": "array", "uniqueItems": True}, [[1, 2]], {1, 2}, [[1, 1], ["a"]]),
    Row(FrozenSet[str], {"type": "array", "uniqueItems": True}, [["a", "b"]], frozenset({"a", "b"}), [["a", "a"], [1]]),
    Row(Tuple[int, ...], {"type": "array", "items": {"type": "integer"}}, [[1, 2, 3], []], (1, 2, 3), [["a"]]),
    Row(Tuple[int, str], {"type": "array", "minItems": 2, "maxItems": 2}, [[1, "a"]], (1, "a"), [["a", 1], [1], [1, "a", "b"]]),
    Row(Tuple[int, str, bool], {"minItems": 3, "maxItems": 3}, [[1, "a", True]], (1, "a", True), [[1, True, "a"], [True, "a", 1]]),
    Row(Dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}, [{"a": 1}, {}], {"a": 1}, [{"a": "1"}, [], None]),
    Row(Dict[str, List[float]], {"type": "object"}, [{"a": [1.5]}], {"a": [1.5]}, [{"a": [None]}, {"a": 1}]),
    Row(Mapping[str, str], {"type": "object"}, [{"k": "v"}], {"k": "v"}, [{"k": 1}]),
    Row(Dict[str, Optional[int]], {"type": "object"}, [{"a": None, "b": 2}], {"a": None, "b": 2}, [{"a": "x"}]),
    Row(Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}, ["a", "b"], "a", ["c", 1, None]),
    Row(Literal[1, 2], {"type": "integer", "enum": [1, 2]}, [1, 2], 1, [3, "1", True]),
    Row(Literal[True], {"type": "boolean", "enum": [True]}, [True], True, [False, 1]),
    Row(Literal["x", 1], {"enum": ["x", 1]}, ["x", 1], "x", ["1", 2, True]),
    Row(Color, {"type": "string", "enum": ["red", "green"]}, ["red", "green"], Color.RED, ["RED", "blue", 1]),
    Row(Level, {"type": "integer", "enum": [1, 2]}, [1, 2], Level.LOW, [3, "1", True]),
    # pydantic writes {"enum": ["green"]} for this but refuses "green" (see the test below)
    Row(Literal[Color.GREEN], {"type": "string", "enum": ["green"]}, ["green"], Color.GREEN, ["red"], pydantic_ok=False),
    Row(
        datetime.datetime,
        {"type": "string", "pattern": str},
        ["2024-05-17T14:30:00+02:00", "2024-05-17T14:30:00Z", "2024-05-17T14:30:00.25", "2024-05-17 14:30"],
        datetime.datetime(2024, 5, 17, 14, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
        ["2024-05-17", "yesterday", "2024-02-30T10:00:00", 1700000000, None],
    ),
    Row(datetime.date, {"type": "string", "pattern": str}, ["2024-05-17"], datetime.date(2024, 5, 17), ["2024-13-01", "17.05.2024", 20240517, "2024-05-17T00:00:00"]),
    Row(datetime.time, {"type": "string", "pattern": str}, ["14:30:00", "14:30", "08:15:00.5+01:00"], datetime.time(14, 30), ["25:00:00", "2pm", 1430]),
    Row(uuid.UUID, {"type": "string", "pattern": str}, [UUID_TEXT, UUID_TEXT.upper()], uuid.UUID(UUID_TEXT), ["not-a-uuid", UUID_TEXT[:-1], 7]),
    Row(decimal.Decimal, {"type": "string", "pattern": str}, ["12.50", "-3", "0.000001"], decimal.Decimal("12.50"), ["12,50", "1e5", "NaN", 12.5]),
    Row(Point, {"type": "object", "additionalProperties": False, "required": ["x", "y"]}, [{"x": 1, "y": 2.5}], Point(1.0, 2.5), [{"x": 1}, {"x": 1, "y": 2, "z": 3}, {"x": "1", "y": 2}, []]),
    Row(Optional[Point], {"anyOf": list}, [None, {"x": 0, "y": 0}], None, [{"x": 0}, 1]),
    Row(List[Point], {"type": "array"}, [[{"x": 1, "y": 2}]], [Point(1.0, 2.0)], [[{"x": 1, "y": "2"}], [None]]),
    Row(Movie, {"type": "object", "required": ["title"], "additionalProperties": False}, [{"title": "Up"}, {"title": "Up", "year": 2009}], {"title": "Up"}, [{"year": 2009}, {"title": "Up", "rating": 5}, {"title": 1}]),
    Row(Dict[Color, int], {"type": "object"}, [{"red": 1}], {Color.RED: 1}, [{"blue": 1}, {"red": "1"}]),
    Row(UserId, {"type": "integer"}, [7], 7, ["7"]),
    Row(Annotated[int, "how many"], {"type": "integer", "description": "how many"}, [2], 2, ["2"]),
    Row(Any, {}, [1, "a", None, {"k": [1]}], 1, []),
    Row(Optional[datetime.date], {"anyOf": list}, [None, "2024-01-31"], None, ["2024-01-32", 3]),
    Row(List[Literal["lo", "hi"]], {"type": "array"}, [["lo", "hi"]], ["lo", "hi"], [["mid"]]),
]


def _holder(tp: Any) -> type:
    return dataclasses.make_dataclass("Holder", [("value", tp)])


def _row_id(row: Row) -> str:
    return getattr(row.tp, "__name__", None) or repr(row.tp).replace("typing.", "")


def _fits(fragment: Dict[str, Any], schema: Dict[str, Any]) -> bool:
    for key, want in fragment.items():
        if key not in schema:
            return False
        if want in (str, list):
            if not isinstance(schema[key], want):
                return False
        elif schema[key] != want:
            return False
    return True


def test_the_table_has_at_least_thirty_types() -> None:
    assert len(ROWS) >= 30


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_dataclass_field(row: Row) -> None:
    holder = _holder(row.tp)
    schema = json_schema_of(holder)
    json.dumps(schema)  # plain JSON
    assert schema["required"] == ["value"] and schema["additionalProperties"] is False
    assert _fits(row.fragment, schema["properties"]["value"]), schema["properties"]["value"]
    for value in row.good:
        assert validate(schema, {"value": value}) is None, value
        parse_output(holder, {"value": value})
    assert parse_output(holder, {"value": row.good[0]}).value == row.expected
    for value in row.bad:
        with pytest.raises(StructuredOutputError) as caught:
            parse_output(holder, {"value": value})
        assert caught.value.error_path is not None and caught.value.error_path.startswith("$"), value
        assert caught.value.raw_output == {"value": value}


@pytest.mark.parametrize("row", [r for r in ROWS if r.pydantic_ok], ids=[_row_id(r) for r in ROWS if r.pydantic_ok])
def test_pydantic_field(row: Row) -> None:
    model = pydantic.create_model("PHolder", value=(row.tp, ...))
    schema = json_schema_of(model)
    json.dumps(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    for value in row.good:
        assert validate(schema, {"value": value}) is None, (value, schema)
        model.model_validate_json(json.dumps({"value": value}))  # pydantic itself agrees
        parse_output(model, {"value": value})
    for value in row.bad:
        try:
            model.model_validate_json(json.dumps({"value": value}))
        except pydantic.ValidationError:
            with pytest.raises(StructuredOutputError) as caught:
                parse_output(model, {"value": value})
            assert caught.value.error_path is not None and caught.value.error_path.startswith("$.value")
        else:  # pydantic's lax mode takes it ("3" for an int): the model's rules are the rules
            parse_output(model, {"value": value})


def test_typeddict_output_is_a_checked_dict() -> None:
    class Order(TypedDict):
        id: int
        when: datetime.date
        items: List[Movie]

    value = {"id": 1, "when": "2024-05-17", "items": [{"title": "Up"}]}
    decoded = parse_output(Order, value)
    assert decoded == {"id": 1, "when": datetime.date(2024, 5, 17), "items": [{"title": "Up"}]}
    assert type(decoded) is dict


def test_typing_typeddict_works_like_typing_extensions() -> None:
    class Plain(typing.TypedDict):
        a: int

    assert json_schema_of(Plain)["required"] == ["a"]
    assert parse_output(Plain, {"a": 1}) == {"a": 1}


def test_a_value_pydantics_own_schema_allows_but_the_model_refuses() -> None:
    """pydantic writes ``{"enum": ["green"]}`` for ``Literal[Color.GREEN]`` yet refuses
    ``"green"``: the CLI would accept the value, the class does not — a typed error with the
    path, the raw value kept."""
    model = pydantic.create_model("Shade", value=(Literal[Color.GREEN], ...))
    schema = json_schema_of(model)
    assert validate(schema, {"value": "green"}) is None
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(model, {"value": "green"})
    assert caught.value.error_path == "$.value"
    assert caught.value.raw_output == {"value": "green"}
    assert caught.value.output_type is not None and caught.value.output_type.endswith("Shade")
