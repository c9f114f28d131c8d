"""``parse_output`` / ``decode_output``: instances from JSON values, and the JSON path of
the first thing the class refuses."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import subprocess
import sys
from typing import Any, Dict, List, Optional, Union

import pytest
from typing_extensions import Literal, TypedDict

from claude_sync import StructuredOutputError, parse_output
from claude_sync._structured.decode import OutputMismatch, decode_as, json_path

UTC = datetime.timezone.utc


class Status(enum.Enum):
    OPEN = "open"
    DONE = "done"


@dataclasses.dataclass
class Item:
    name: str
    price: float
    tags: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Order:
    id: int
    status: Status
    items: List[Item]
    due: Optional[datetime.date] = None


@dataclasses.dataclass
class Positive:
    amount: int

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError("amount must be positive")


@dataclasses.dataclass
class Wallet:
    owner: str
    entries: List[Positive]


@dataclasses.dataclass
class Cat:
    kind: Literal["cat"]
    lives: int


@dataclasses.dataclass
class Dog:
    kind: Literal["dog"]
    good: bool


@dataclasses.dataclass
class Pets:
    pets: List[Union[Cat, Dog]]


def test_nested_dataclass() -> None:
    value = {"id": 7, "status": "open", "items": [{"name": "pen", "price": 2}], "due": "2024-05-17"}
    order = parse_output(Order, value)
    assert order == Order(7, Status.OPEN, [Item("pen", 2.0)], datetime.date(2024, 5, 17))
    assert isinstance(order.items[0].price, float) and order.items[0].tags == []


@pytest.mark.parametrize(
    ("value", "path", "problem"),
    [
        ({"id": 7, "status": "open", "items": [{"name": "pen", "price": "2"}]}, "$.items[0].price", "expected number, got string"),
        ({"id": 7, "status": "closed", "items": []}, "$.status", "expected one of"),
        ({"id": 7, "status": "open"}, "$", 'missing required property "items"'),
        ({"id": 7, "status": "open", "items": [], "extra": 1}, "$", 'unexpected property "extra"'),
        ({"id": 7, "status": "open", "items": [], "due": "2024-02-30"}, "$.due", "day is out of range"),
        ([], "$", "expected object, got array"),
    ],
    ids=["wrong type deep", "enum", "missing", "extra", "impossible date", "not an object"],
)
def test_the_first_mismatch_is_named_by_path(value: Any, path: str, problem: str) -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(Order, value)
    error = caught.value
    assert error.error_path == path
    assert problem in (error.problem or "")
    assert error.raw_output == value
    assert error.output_type == f"{__name__}.Order"
    assert error.schema is not None and error.schema["type"] == "object"
    assert path in str(error)


def test_post_init_refusal_is_a_mismatch_at_the_object() -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(Wallet, {"owner": "me", "entries": [{"amount": 3}, {"amount": -1}]})
    assert caught.value.error_path == "$.entries[1]"
    assert "amount must be positive" in (caught.value.problem or "")


def test_union_of_dataclasses_picks_the_fitting_one() -> None:
    pets = parse_output(Pets, {"pets": [{"kind": "dog", "good": True}, {"kind": "cat", "lives": 9}]})
    assert pets.pets == [Dog("dog", True), Cat("cat", 9)]
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(Pets, {"pets": [{"kind": "cat", "lives": "nine"}]})
    assert caught.value.error_path == "$.pets[0].lives"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-17T14:30:00Z", datetime.datetime(2024, 5, 17, 14, 30, tzinfo=UTC)),
        ("2024-05-17t14:30:00z", datetime.datetime(2024, 5, 17, 14, 30, tzinfo=UTC)),
        ("2024-05-17T14:30:00+0200", datetime.datetime(2024, 5, 17, 14, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))),
        ("2024-05-17T14:30:00-05", datetime.datetime(2024, 5, 17, 14, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-5)))),
        ("2024-05-17T14:30:00.5", datetime.datetime(2024, 5, 17, 14, 30, 0, 500000)),
        ("2024-05-17T14:30:00.1234567", datetime.datetime(2024, 5, 17, 14, 30, 0, 123456)),
        ("2024-05-17 14:30", datetime.datetime(2024, 5, 17, 14, 30)),
    ],
)
def test_iso_datetimes_parse_the_same_on_every_python(text: str, expected: datetime.datetime) -> None:
    assert decode_as(datetime.datetime, text, "") == expected


def test_typeddict_values_are_decoded_too() -> None:
    class Event(TypedDict):
        at: datetime.datetime
        status: Status

    decoded = parse_output(Event, {"at": "2024-05-17T10:00:00Z", "status": "done"})
    assert decoded == {"at": datetime.datetime(2024, 5, 17, 10, tzinfo=UTC), "status": Status.DONE}


def test_a_field_with_its_own_dataclasses_json_decoder_gets_the_raw_value() -> None:
    from dataclasses_json import config

    @dataclasses.dataclass
    class Reading:
        celsius: float = dataclasses.field(metadata=config(decoder=lambda text: float(text) / 10))

    assert parse_output(Reading, {"celsius": 215}).celsius == 21.5


def test_mapping_keys_and_values() -> None:
    @dataclasses.dataclass
    class Board:
        counts: Dict[Status, int]

    assert parse_output(Board, {"counts": {"open": 2, "done": 1}}).counts == {Status.OPEN: 2, Status.DONE: 1}
    with pytest.raises(StructuredOutputError) as caught:
        parse_output(Board, {"counts": {"open": 2, "later": 1}})
    assert caught.value.error_path == "$.counts.later"


def test_json_path() -> None:
    assert json_path("") == "$"
    assert json_path("a.b[2]") == "$.a.b[2]"
    assert json_path("[0].x") == "$[0].x"
    assert str(OutputMismatch("a[1]", "bad")) == "$.a[1]: bad"


def test_decoding_a_dataclass_imports_dataclasses_json_only_then() -> None:
    code = (
        "import dataclasses, sys\n"
        "import claude_sync\n"
        "@dataclasses.dataclass\n"
        "class A:\n"
        "    x: int\n"
        "claude_sync.json_schema_of(A)\n"
        "claude_sync.ClaudeAgentOptions(output_format=A)\n"
        "before = [m for m in ('dataclasses_json', 'marshmallow', 'pydantic') if m in sys.modules]\n"
        "assert claude_sync.parse_output(A, {'x': 1}) == A(1)\n"
        "print(before, 'dataclasses_json' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[] True"
