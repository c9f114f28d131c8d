"""``record`` / ``frozen_record`` behave like ``@dataclass`` / ``@dataclass(frozen=True)``.

Each check runs on a pair of classes with the same fields, one made by the standard library
and one by ``_record``, and compares what users can observe.
"""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, Dict, List, Type

import pytest

from claude_sync._wire.record import FrozenRecord, Record, frozen_record, record


def _standard(frozen: bool) -> Type[Any]:
    @dataclass(frozen=frozen)
    class Point:
        x: int
        y: int = 0
        tags: List[str] = field(default_factory=list)
        note: str = field(default="n", repr=False, compare=False)
        kind: str = field(default="point", init=False)

    return Point


def _ours(frozen: bool) -> Type[Any]:
    if frozen:

        @frozen_record
        class Point(FrozenRecord):
            x: int
            y: int = 0
            tags: List[str] = field(default_factory=list)
            note: str = field(default="n", repr=False, compare=False)
            kind: str = field(default="point", init=False)

        return Point

    @record
    class Point(Record):  # type: ignore[no-redef]
        x: int
        y: int = 0
        tags: List[str] = field(default_factory=list)
        note: str = field(default="n", repr=False, compare=False)
        kind: str = field(default="point", init=False)

    return Point


@pytest.fixture(params=[False, True], ids=["mutable", "frozen"])
def pair(request: Any) -> Dict[str, Any]:
    return {"frozen": request.param, "std": _standard(request.param), "ours": _ours(request.param)}


def _observe(cls: Type[Any], *args: Any, **kwargs: Any) -> Any:
    try:
        obj = cls(*args, **kwargs)
    except TypeError:
        return TypeError
    return (repr(obj).split("(", 1)[1], dataclasses.asdict(obj), obj.tags is not cls(1).tags)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((1,), {}),
        ((1, 2), {}),
        ((), {"x": 1, "y": 2, "tags": ["a"], "note": "hidden"}),
        ((1, 2, ["a"], "n", "extra"), {}),  # too many positional
        ((), {}),  # missing x
        ((1,), {"x": 2}),  # x twice
        ((1,), {"kind": "k"}),  # init=False field
        ((1,), {"nope": 1}),
    ],
)
def test_construction_and_errors_match(pair: Dict[str, Any], args: Any, kwargs: Any) -> None:
    assert _observe(pair["ours"], *args, **kwargs) == _observe(pair["std"], *args, **kwargs)


def test_equality_hash_and_assignment_match(pair: Dict[str, Any]) -> None:
    for cls in (pair["std"], pair["ours"]):
        a, b = cls(1, 2, note="a"), cls(1, 2, note="b")
        assert a == b and not (a != b)  # note is compare=False
        assert a != cls(1, 3)
        assert (a == object()) is False
        if pair["frozen"]:
            assert hash(cls(1, tags=(), note="a")) == hash(cls(1, tags=(), note="b"))
            with pytest.raises(FrozenInstanceError):
                a.x = 5
            with pytest.raises(FrozenInstanceError):
                del a.x
        else:
            with pytest.raises(TypeError):
                hash(a)
            a.x = 5
            assert a.x == 5 and a != b


def test_dataclass_tooling_works(pair: Dict[str, Any]) -> None:
    cls = pair["ours"]
    assert dataclasses.is_dataclass(cls)
    assert [f.name for f in dataclasses.fields(cls)] == ["x", "y", "tags", "note", "kind"]
    changed = dataclasses.replace(cls(1, tags=["t"]), y=9)
    assert (changed.x, changed.y, changed.tags, changed.kind) == (1, 9, ["t"], "point")


def test_equality_needs_the_same_class() -> None:
    std, ours = _standard(False), _ours(False)

    @record
    class Sub(ours):  # type: ignore[misc, valid-type]
        pass

    assert ours(1) != Sub(1)
    assert ours(1) != std(1)


def test_post_init_runs() -> None:
    @record
    class Checked(Record):
        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    assert Checked(1).value == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_the_decorators_check_the_base_class() -> None:
    class Plain:
        x: int

    class Frozen(FrozenRecord):
        x: int

    with pytest.raises(TypeError, match="FrozenRecord"):
        frozen_record(Plain)
    with pytest.raises(TypeError, match="Record"):
        record(Plain)
    with pytest.raises(TypeError, match="not FrozenRecord"):
        record(Frozen)
