"""JSON Schema generation from Python types and the small validator (claude_sync._mcp.schema)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import sys
import typing
from typing import (
    Any,
    Dict,
    FrozenSet,
    List,
    Mapping,
    NewType,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

import pytest
import typing_extensions as te
from typing_extensions import Annotated, Literal, NotRequired, Required, TypedDict

from claude_sync._mcp.schema import SchemaProfile, is_json_schema, to_json_schema
from claude_sync._mcp.schema_validation import first_problem, validate

# ----------------------------------------------------------------------------- fixtures
# Module level on purpose: this file uses `from __future__ import annotations`, so the
# annotations below are strings that get_type_hints must resolve from this module.


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    ONE = 1
    TWO = "two"


UserId = NewType("UserId", int)


class Name(str):
    pass


class Point(TypedDict):
    x: float
    y: float


class Options(TypedDict, total=False):
    verbose: bool
    depth: Required[int]


class Query(TypedDict):
    text: str
    limit: NotRequired[int]
    point: Optional[Point]
    tags: List[str]
    note: Annotated[str, "free text"]


class StdlibTypedDict(typing.TypedDict):
    a: int
    b: NotRequired[str]


class Node(TypedDict):
    value: int
    children: List[Node]


@dataclasses.dataclass
class Box:
    width: float
    color: Color = Color.RED
    label: Optional[str] = None
    tags: List[str] = dataclasses.field(default_factory=list)
    computed: int = dataclasses.field(default=0, init=False)


@dataclasses.dataclass
class Shipment:
    box: Box
    count: int = 1


class NotJson:
    pass


# ----------------------------------------------------------------------------- generation

POINT = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
}

TYPE_CASES = [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (None, {"type": "null"}),
    (type(None), {"type": "null"}),
    (Any, {}),
    (object, {}),
    (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    (Union[int, Any], {}),
    (List[int], {"type": "array", "items": {"type": "integer"}}),
    (List[Any], {"type": "array"}),
    (list, {"type": "array"}),
    (List, {"type": "array"}),
    (Sequence[str], {"type": "array", "items": {"type": "string"}}),
    (Set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    (FrozenSet[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (Tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (
        Tuple[int, str],
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
    ),
    (tuple, {"type": "array"}),
    (Dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (Dict[str, Any], {"type": "object"}),
    (Mapping[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    (dict, {"type": "object"}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal[1, "a"], {"enum": [1, "a"]}),
    (typing.Literal[True], {"type": "boolean", "enum": [True]}),
    (Literal[Color.RED], {"type": "string", "enum": ["red"]}),
    (Color, {"type": "string", "enum": ["red", "green"]}),
    (Level, {"type": "integer", "enum": [1, 2]}),
    (Mixed, {"enum": [1, "two"]}),
    (Annotated[int, "how many"], {"type": "integer", "description": "how many"}),
    (
        Annotated[int, {"minimum": 0}, "count"],
        {"type": "integer", "minimum": 0, "description": "count"},
    ),
    (UserId, {"type": "integer"}),
    (Name, {"type": "string"}),
    (Point, POINT),
    (
        Options,
        {
            "type": "object",
            "properties": {"verbose": {"type": "boolean"}, "depth": {"type": "integer"}},
            "required": ["depth"],
        },
    ),
    (
        StdlibTypedDict,
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a"],
        },
    ),
]


@pytest.mark.parametrize(("tp", "expected"), TYPE_CASES, ids=[repr(c[0]) for c in TYPE_CASES])
def test_type_to_schema(tp: Any, expected: Dict[str, Any]) -> None:
    assert to_json_schema(tp) == expected


@pytest.mark.skipif(sys.version_info < (3, 10), reason="X | Y needs Python 3.10")
def test_pep604_union() -> None:
    spec = eval("int | None")
    assert to_json_schema(spec) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def test_typeddict_with_optional_nested_and_description() -> None:
    assert to_json_schema(Query) == {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "limit": {"type": "integer"},
            "point": {"anyOf": [POINT, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": "string", "description": "free text"},
        },
        "required": ["text", "point", "tags", "note"],
    }


def test_recursive_typeddict_is_cut_after_one_level() -> None:
    assert to_json_schema(Node) == {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["value", "children"],
    }


def test_dataclass_fields_with_defaults_are_optional() -> None:
    assert to_json_schema(Box) == {
        "type": "object",
        "properties": {
            "width": {"type": "number"},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
            "label": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["width"],
    }


def test_nested_dataclass() -> None:
    schema = to_json_schema(Shipment)
    assert schema["required"] == ["box"]
    assert schema["properties"]["box"] == to_json_schema(Box)
    assert schema["properties"]["count"] == {"type": "integer", "default": 1}


def test_shorthand_makes_every_key_required() -> None:
    assert to_json_schema(
        {"a": float, "b": Optional[str], "c": {"type": "integer", "minimum": 1}}
    ) == {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": "integer", "minimum": 1},
        },
        "required": ["a", "b", "c"],
    }


def test_empty_shorthand_is_an_object_without_properties() -> None:
    assert to_json_schema({}) == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"type": "object", "properties": {}}, True),
        ({"$schema": "https://json-schema.org/draft/2020-12/schema"}, True),
        ({"properties": {"a": {"type": "string"}}}, True),
        ({"type": ["object", "null"]}, True),
        ({"type": str}, False),  # a shorthand whose parameter is called "type"
        ({"properties": dict}, False),  # …or "properties"
        ({"a": int}, False),
        ({}, False),
        ([("a", int)], False),
    ],
)
def test_is_json_schema(spec: Any, expected: bool) -> None:
    assert is_json_schema(spec) is expected


def test_shorthand_parameter_named_type() -> None:
    assert to_json_schema({"type": str}) == {
        "type": "object",
        "properties": {"type": {"type": "string"}},
        "required": ["type"],
    }


def test_json_schema_is_used_as_is_but_copied() -> None:
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "format": "uri"}},
        "x-extra": 1,
    }
    result = to_json_schema(schema)
    assert result == schema
    assert result is not schema


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (bytes, "bytes has no JSON Schema form"),
        (datetime.datetime, "datetime has no JSON Schema form"),
        (NotJson, "NotJson has no JSON Schema form"),
        (Dict[int, str], "key type must be str"),
        ({"when": datetime.date}, "input_schema.when: date has no JSON Schema form"),
        ({"a": "int"}, "unresolved type annotation 'int'"),
        (typing.Callable[[int], int], "has no JSON Schema form"),
    ],
)
def test_unsupported_types_raise_type_error(spec: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message.replace(".", r"\.").replace("'", ".")):
        to_json_schema(spec)


def test_local_class_under_future_annotations_gives_a_clear_error() -> None:
    class Local(TypedDict):
        x: int

    class UsesLocal(TypedDict):
        inner: Local

    with pytest.raises(TypeError, match="cannot resolve the annotations of .*UsesLocal"):
        to_json_schema(UsesLocal)


def test_required_and_not_required_markers_win_over_totality() -> None:
    # With `from __future__ import annotations` Python 3.9's __required_keys__ is wrong for
    # these; the markers read from the resolved hints decide.
    schema = to_json_schema(Options)
    assert schema["required"] == ["depth"]
    assert to_json_schema(StdlibTypedDict)["required"] == ["a"]


def test_readonly_qualifier_is_unwrapped() -> None:
    if not hasattr(te, "ReadOnly"):
        pytest.skip("typing_extensions without ReadOnly")
    assert to_json_schema(te.ReadOnly[int]) == {"type": "integer"}


# ----------------------------------------------------------------------------- validation

NUMBERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}

VALIDATION_CASES = [
    # (schema, value, expected error or None)
    (NUMBERS, {"a": 1, "b": 2.5}, None),
    (NUMBERS, {"a": 1, "b": "2"}, "b: expected number, got string"),
    (NUMBERS, {"a": 1}, 'missing required property "b"'),
    (NUMBERS, {"a": True, "b": 1}, "a: expected number, got boolean"),
    (NUMBERS, [1, 2], "expected object, got array"),
    (NUMBERS, {"a": 1, "b": 2, "c": 3}, None),
    (
        {**NUMBERS, "additionalProperties": False},
        {"a": 1, "b": 2, "c": 3},
        'unexpected property "c"',
    ),
    (
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"k": "v"},
        "k: expected integer, got string",
    ),
    ({"type": "integer"}, 3, None),
    ({"type": "integer"}, 3.0, None),
    ({"type": "integer"}, 3.5, "expected integer, got number"),
    ({"type": "integer"}, False, "expected integer, got boolean"),
    ({"type": "number"}, 7, None),
    ({"type": "boolean"}, 1, "expected boolean, got integer"),
    ({"type": "null"}, None, None),
    ({"type": ["string", "null"]}, None, None),
    ({"type": ["string", "null"]}, 1, "expected string or null, got integer"),
    ({"type": "string"}, b"x", "expected string, got bytes"),
    ({"type": "mystery"}, 1, None),
    ({"enum": ["c", "f"]}, "c", None),
    ({"enum": ["c", "f"]}, "k", 'expected one of "c", "f", got "k"'),
    ({"enum": [1, 2]}, True, "expected one of 1, 2, got true"),
    ({"enum": [1]}, 1.0, None),
    ({"const": "x"}, "y", 'expected "x", got "y"'),
    (
        {"type": "array", "items": {"type": "integer"}},
        [1, 2, "3"],
        "[2]: expected integer, got string",
    ),
    ({"type": "array", "minItems": 2}, [1], "expected at least 2 items, got 1"),
    ({"type": "array", "maxItems": 1}, [1, 2], "expected at most 1 items, got 2"),
    ({"type": "array", "uniqueItems": True}, [1, 2, 1], "[2]: duplicate of an earlier item"),
    ({"type": "array", "uniqueItems": True}, [1, True], None),
    (
        {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
        [1, 2],
        "[1]: expected string, got integer",
    ),
    ({"type": "array", "items": [{"type": "integer"}]}, ["x"], "[0]: expected integer, got string"),
    ({"type": "string", "minLength": 2}, "a", "expected at least 2 characters, got 1"),
    ({"type": "string", "pattern": "^[a-z]+$"}, "abc", None),
    ({"type": "string", "pattern": "^[a-z]+$"}, "ab1", 'does not match pattern "^[a-z]+$"'),
    ({"type": "string", "pattern": "("}, "x", None),  # uncompilable: no constraint
    ({"type": "number", "minimum": 0}, -1, "expected a number at least 0, got -1"),
    ({"type": "number", "exclusiveMaximum": 10}, 10, "expected a number less than 10, got 10"),
    ({"type": "number", "multipleOf": 0.1}, 0.3, None),
    ({"type": "number", "multipleOf": 2}, 3, "expected a multiple of 2, got 3"),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, None, None),
    (
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "x",
        "expected integer or null, got string",
    ),
    (
        {"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string"}]},
        1,
        "expected a number at least 5, got 1",
    ),
    (
        {"anyOf": [{"minimum": 5}, {"maximum": 0}]},
        1,
        "matches none of the allowed alternatives (expected a number at least 5, got 1; "
        "expected a number at most 0, got 1)",
    ),
    (
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        1,
        "matches 2 alternatives where exactly one is allowed",
    ),
    ({"allOf": [{"type": "integer"}, {"minimum": 3}]}, 2, "expected a number at least 3, got 2"),
    (
        {
            "type": "object",
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False,
        },
        {"x-a": "ok"},
        None,
    ),
    (
        {
            "type": "object",
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False,
        },
        {"x-a": 1},
        "x-a: expected string, got integer",
    ),
    (
        {"type": "object", "maxProperties": 1},
        {"a": 1, "b": 2},
        "expected at most 1 properties, got 2",
    ),
    ({"$ref": "#/definitions/x"}, 1, None),  # unknown keywords constrain nothing
    ({}, object(), None),
    (True, 1, None),
    (False, 1, "no value is allowed here"),
]


@pytest.mark.parametrize(("schema", "value", "expected"), VALIDATION_CASES)
def test_validate(schema: Any, value: Any, expected: Optional[str]) -> None:
    assert validate(schema, value) == expected


def test_error_path_names_nested_location() -> None:
    schema = to_json_schema(Query)
    value = {"text": "t", "point": {"x": 1, "y": "2"}, "tags": [], "note": ""}
    assert validate(schema, value) == "point.y: expected number, got string"
    value = {"text": "t", "point": "here", "tags": [], "note": ""}
    assert validate(schema, value) == "point: expected object or null, got string"
    value = {"text": "t", "point": None, "tags": ["a", 2], "note": ""}
    assert validate(schema, value) == "tags[1]: expected string, got integer"


GENERATED_ROUND_TRIPS = [
    (Box, {"width": 2}, None),
    (Box, {"width": 2, "color": "blue"}, 'color: expected one of "red", "green", got "blue"'),
    (Box, {"color": "red"}, 'missing required property "width"'),
    (Options, {"depth": 1}, None),
    (Options, {"verbose": True}, 'missing required property "depth"'),
    (Dict[str, List[int]], {"a": [1], "b": [2, None]}, "b[1]: expected integer, got null"),
    (Tuple[int, str], [1, "a", 3], "expected at most 2 items, got 3"),
    (Literal["x"], "x", None),
]


@pytest.mark.parametrize(("tp", "value", "expected"), GENERATED_ROUND_TRIPS)
def test_validate_generated_schemas(tp: Any, value: Any, expected: Optional[str]) -> None:
    assert validate(to_json_schema(tp), value) == expected


def test_validate_handles_multi_megabyte_strings() -> None:
    big = "x" * (5 * 1024 * 1024)
    assert validate({"type": "object", "properties": {"s": {"type": "string"}}}, {"s": big}) is None


# ----------------------------------------------------------------------------- $ref, paths

RECURSIVE = {
    "type": "object",
    "properties": {"value": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
    "required": ["value", "next"],
    "$defs": {"Leaf": {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}},
}


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        (RECURSIVE, {"value": 1, "next": {"value": 2, "next": None}}, None),
        (RECURSIVE, {"value": 1, "next": {"value": "2", "next": None}}, ("next.value", "expected integer, got string")),
        ({**RECURSIVE, "properties": {"leaf": {"$ref": "#/$defs/Leaf"}}, "required": []}, {"leaf": {"v": 3}}, ("leaf.v", "expected string, got integer")),
        ({"definitions": {"N": {"type": "integer"}}, "items": {"$ref": "#/definitions/N"}}, [1, "x"], ("[1]", "expected integer, got string")),
        ({"$ref": "https://example.com/schema"}, 1, None),  # not local: constrains nothing
        ({"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}, 1, ("", "the schema's $ref chain is cyclic: {\"$ref\": \"#/$defs/A\"}")),
    ],
    ids=["recursive ok", "recursive deep", "defs", "definitions", "remote ref", "cyclic"],
)
def test_local_refs_are_followed(schema: Any, value: Any, expected: Any) -> None:
    problem = first_problem(schema, value)
    assert (None if problem is None else (problem.path, problem.text)) == expected


def test_the_alternative_that_got_deepest_names_the_problem() -> None:
    cat = {"type": "object", "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}}, "required": ["kind", "lives"]}
    dog = {"type": "object", "properties": {"kind": {"const": "dog"}, "good": {"type": "boolean"}}, "required": ["kind", "good"]}
    assert validate({"anyOf": [cat, dog]}, {"kind": "cat", "lives": "9"}) == "lives: expected integer, got string"


def test_structured_output_profile() -> None:
    profile = SchemaProfile(closed_objects=True, text_scalars=True, recursive_refs=True)
    assert to_json_schema(Node, profile) == {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["value", "children"],
        "additionalProperties": False,
    }
    assert to_json_schema(datetime.date, profile) == {"type": "string", "format": "date"}
    with pytest.raises(TypeError, match="date has no JSON Schema form"):
        to_json_schema(datetime.date)  # tool inputs keep refusing it
