"""``json_schema_of``: which classes, the CLI form, descriptions, key names, recursion, the
per-class cache, and the classes that have no JSON form (``TypeError`` naming the field)."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import gc
import json
import pickle
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest
from helpers import require_package
from typing_extensions import Annotated, TypedDict

from claude_sync import json_schema_of
from claude_sync._structured.class_schema import output_kind
from claude_sync._structured.readonly import ReadOnlyDict

pydantic = require_package("pydantic")  # the test-integrations extra has it


@dataclasses.dataclass
class Line:
    """One line of an invoice."""

    sku: str
    """Stock keeping unit."""
    quantity: int = 1
    note: Optional[str] = dataclasses.field(default=None, metadata={"description": "Free text."})


@dataclasses.dataclass
class Invoice:
    number: str
    lines: List[Line]
    total: Annotated[float, "Sum of the lines, in euros."]
    issued: datetime.date


@dataclasses.dataclass
class Node:
    value: int
    children: List[Node]


@dataclasses.dataclass
class Tree:
    root: Node
    spare: Optional[Node] = None


def test_a_nested_dataclass_in_the_cli_form() -> None:
    schema = json_schema_of(Invoice)
    assert schema["type"] == "object"
    assert schema["required"] == ["number", "lines", "total", "issued"]
    assert schema["additionalProperties"] is False
    assert "description" not in schema  # the text @dataclass makes up is not a description
    line = schema["properties"]["lines"]["items"]
    assert line["description"] == "One line of an invoice."
    assert line["additionalProperties"] is False and line["required"] == ["sku"]
    assert line["properties"]["sku"] == {"type": "string", "description": "Stock keeping unit."}
    assert line["properties"]["quantity"] == {"type": "integer", "default": 1}
    assert line["properties"]["note"]["description"] == "Free text."
    assert schema["properties"]["total"] == {"type": "number", "description": "Sum of the lines, in euros."}
    issued = schema["properties"]["issued"]
    assert issued["type"] == "string" and "format" not in issued and issued["pattern"].startswith("^")
    assert "ISO 8601 date" in issued["description"]


def test_no_keyword_the_cli_refuses_anywhere() -> None:
    from claude_sync._structured.cli_dialect import KEPT_KEYWORDS

    @dataclasses.dataclass
    class Everything:
        pair: Tuple[int, str]
        when: datetime.datetime
        tree: Tree

    def walk(schema: Any, where: str) -> None:
        if isinstance(schema, dict):
            for key, value in schema.items():
                if where.endswith(("properties", "$defs")):
                    walk(value, f"{where}.{key}")  # property names, not keywords
                    continue
                assert key in KEPT_KEYWORDS, f"{where}: {key}"
                if key not in ("enum", "const", "default", "examples", "required"):
                    walk(value, f"{where}.{key}")
        elif isinstance(schema, list):
            for item in schema:
                walk(item, where)

    walk(json_schema_of(Everything), "$")


def test_recursive_dataclasses_use_refs() -> None:
    node = json_schema_of(Node)
    assert node["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
    tree = json_schema_of(Tree)
    assert tree["properties"]["root"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert tree["properties"]["spare"]["anyOf"][0] == {"$ref": "#/$defs/Node"}
    assert tree["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_a_recursive_pydantic_model_gets_an_object_root() -> None:
    class Folder(pydantic.BaseModel):
        name: str
        sub: List[Folder] = []

    schema = json_schema_of(Folder)
    assert schema["type"] == "object" and "$ref" not in schema
    assert schema["properties"]["sub"]["items"] == {"$ref": "#/$defs/Folder"}
    assert schema["$defs"]["Folder"]["additionalProperties"] is False


def test_pydantic_descriptions_and_tuples() -> None:
    class Contact(pydantic.BaseModel):
        """Who wrote."""

        name: str = pydantic.Field(description="Full name")
        span: Tuple[int, int]

    schema = json_schema_of(Contact)
    assert schema["description"] == "Who wrote."
    assert schema["properties"]["name"]["description"] == "Full name"
    span = schema["properties"]["span"]
    assert "prefixItems" not in span and span["items"] == {"type": "integer"}
    assert span["minItems"] == span["maxItems"] == 2


def test_typeddict() -> None:
    class Movie(TypedDict, total=False):
        """A film."""

        title: str
        """Its title."""
        year: int

    schema = json_schema_of(Movie)
    assert schema == {
        "type": "object",
        "properties": {"title": {"type": "string", "description": "Its title."}, "year": {"type": "integer"}},
        "description": "A film.",
        "additionalProperties": False,
    }


def test_dataclasses_json_key_names() -> None:
    from dataclasses_json import LetterCase, config, dataclass_json

    @dataclass_json(letter_case=LetterCase.CAMEL)
    @dataclasses.dataclass
    class Person:
        first_name: str
        birth_year: int = dataclasses.field(metadata=config(field_name="born"))

    schema = json_schema_of(Person)
    assert list(schema["properties"]) == ["firstName", "born"]
    assert schema["required"] == ["firstName", "born"]


# ----------------------------------------------------------------------------- cache


def test_the_second_call_returns_the_cached_read_only_schema() -> None:
    first = json_schema_of(Invoice)
    assert json_schema_of(Invoice) is first
    assert isinstance(first, ReadOnlyDict)
    with pytest.raises(TypeError, match="read-only"):
        first["type"] = "array"
    with pytest.raises(TypeError, match="read-only"):
        first["required"].append("x")
    mutable = copy.deepcopy(first)
    mutable["properties"]["number"]["type"] = "integer"
    assert json_schema_of(Invoice)["properties"]["number"]["type"] == "string"
    assert type(pickle.loads(pickle.dumps(first))) is dict
    assert json.loads(json.dumps(first)) == first


def test_the_cache_does_not_keep_a_class_alive() -> None:
    cls = dataclasses.make_dataclass("Temporary", [("a", int)])
    json_schema_of(cls)
    gone = weakref.ref(cls)
    del cls
    gc.collect()
    assert gone() is None


def test_redefining_a_class_gets_its_own_schema() -> None:
    """A notebook cell run again defines a new class of the same name."""
    first = dataclasses.make_dataclass("Cell", [("value", int)])
    second = dataclasses.make_dataclass("Cell", [("value", str)])
    assert json_schema_of(first)["properties"]["value"] == {"type": "integer"}
    assert json_schema_of(second)["properties"]["value"] == {"type": "string"}


# ----------------------------------------------------------------------------- refusals


@dataclasses.dataclass
class WithCallback:
    name: str
    on_done: Callable[[str], None]


@dataclasses.dataclass
class WithIntKeys:
    counts: Dict[int, str]


@dataclasses.dataclass
class WithBytes:
    blob: bytes


class Plain:
    a: int


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (WithCallback, r"WithCallback\.on_done: .*Callable"),
        (WithIntKeys, r"WithIntKeys\.counts: .*key type must be str"),
        (WithBytes, r"WithBytes\.blob: bytes has no JSON Schema form"),
        (Plain, r"output_format takes a dataclass, a TypedDict or a pydantic v2 model class .*Plain"),
        (Invoice(number="1", lines=[], total=0.0, issued=datetime.date.today()), r"not a Invoice"),
        (dict, r"not the class dict"),
    ],
    ids=["callable", "int keys", "bytes", "plain class", "an instance", "dict"],
)
def test_classes_without_a_json_form_are_refused_by_field(cls: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        json_schema_of(cls)


def test_an_unresolvable_annotation_names_the_class() -> None:
    @dataclasses.dataclass
    class Local:
        inner: Missing  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="cannot resolve the annotations of .*Local"):
        json_schema_of(Local)


def test_a_pydantic_v1_model_is_refused() -> None:
    from pydantic import v1

    class Old(v1.BaseModel):
        a: int

    with pytest.raises(TypeError, match="pydantic v1 model"):
        json_schema_of(Old)


def test_a_pydantic_field_pydantic_cannot_write_is_refused() -> None:
    class WithCall(pydantic.BaseModel):
        hook: Callable[[], None]

    with pytest.raises(TypeError, match="WithCall: pydantic cannot write a JSON Schema"):
        json_schema_of(WithCall)


def test_output_kind() -> None:
    assert output_kind(Invoice) == "dataclass"

    class Movie(TypedDict):
        title: str

    class Model(pydantic.BaseModel):
        a: int

    assert output_kind(Movie) == "typeddict"
    assert output_kind(Model) == "pydantic"
