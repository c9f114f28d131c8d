"""A JSON value → an instance of an output class, or the JSON path of the first mismatch (pure).

``decode_output(cls, value)``:

* a pydantic model: ``model_validate`` (pydantic's own rules; its first error's location
  becomes the path);
* a dataclass or a TypedDict: the value is checked against ``json_schema_of(cls)`` with the
  schema validator, then walked along the class's types, which checks what the schema
  could not say (tuple positions, real dates, UUIDs and decimals, ``Literal`` values the
  schema could not type) and turns text forms into objects (``"2024-05-17"`` →
  ``date(2024, 5, 17)``, ``"red"`` → ``Color.RED``). TypedDicts come back as dicts;
  dataclasses are built by dataclasses-json (first use imports it) from the decoded fields,
  so the class's dataclasses-json configuration (key names, a field's own ``decoder``) is
  honoured. A field with its own decoder gets its JSON value as is.

Anything the class refuses — including its ``__post_init__`` raising — is an
``OutputMismatch`` whose ``path`` names where (``lines[2].price``, ``""`` for the whole
value); ``json_path(path)`` writes it as ``$.lines[2].price``. So is any other ``Exception``
while decoding — a pydantic validator raising ``TypeError``, a value nested deeper than the
walk can go (``RecursionError``), a number too large for a ``float`` field — at the path where
it was raised when known, else ``""``: the caller's error then keeps the value and the
run. Only what is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``, a class's own
``BaseException``) passes through: it is a signal to stop, not a refusal of the value.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import types
import typing
import weakref
from typing import Any, Callable, Dict, List, MutableMapping, NamedTuple, Tuple, Type

import typing_extensions as te

from .._mcp.schema import required_marker, resolved_hints, text_scalar_format
from .._mcp.schema_validation import first_problem, json_type_name
from .class_schema import json_schema_of, output_kind
from .dataclasses_json_adapter import custom_decoder, dataclass_builder, json_field_name
from .pydantic_adapter import PydanticMismatch, is_pydantic_model, validate_pydantic
from .text_scalars import FORMAT_WORDS, parse_text

__all__ = ["OutputMismatch", "decode_output", "exception_text", "json_path", "child_path", "index_path"]


class OutputMismatch(Exception):
    """The value does not fit the class: ``path`` (``lines[2].price``; ``""`` = the whole
    value) and ``problem`` (``expected integer, got string``)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{json_path(path)}: {problem}")
        self.path = path
        self.problem = problem


def json_path(path: str) -> str:
    """``lines[2].price`` → ``$.lines[2].price``; ``""`` → ``$``."""
    if not path:
        return "$"
    return "$" + (path if path.startswith("[") else "." + path)


def child_path(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def index_path(path: str, index: int) -> str:
    return f"{path}[{index}]"


def decode_output(cls: Any, value: Any) -> Any:
    """An instance of ``cls`` (dataclass, pydantic model) or a checked dict (TypedDict).

    Raises:
        OutputMismatch: the value does not fit (see the module docstring).
        TypeError: ``cls`` is not an output class (``output_kind``) or has no JSON form.
    """
    kind = output_kind(cls)
    schema = None if kind == "pydantic" else json_schema_of(cls)  # TypeError: no JSON form
    try:
        if schema is None:
            return _pydantic(cls, value, "")
        problem = first_problem(schema, value)
        if problem is not None:
            raise OutputMismatch(problem.path, problem.text)
        return decode_as(cls, value, "")
    except OutputMismatch:
        raise
    except RecursionError:
        raise OutputMismatch("", "the value is nested too deeply to decode (RecursionError)") from None
    except Exception as exc:  # noqa: BLE001 - a user's class and its validators may raise anything
        raise OutputMismatch("", f"{cls.__qualname__} refused the value: {exception_text(exc)}") from None


def exception_text(exc: BaseException) -> str:
    """``TypeError('nope')`` for an error message; never raises (an exception's ``__repr__``
    is the user's code too)."""
    try:
        return repr(exc)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the refusal
        return f"{type(exc).__name__}(<unprintable>)"


def decode_as(tp: Any, value: Any, path: str) -> Any:
    """``value`` decoded as type ``tp`` at ``path`` (no schema check first).

    Raises:
        OutputMismatch: where and how it does not fit.
    """
    if tp is Any or tp is object:
        return value
    origin = te.get_origin(tp)
    if origin is not None:
        return _generic(tp, origin, te.get_args(tp), value, path)
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return decode_as(supertype, value, path)
    if tp is None or tp is type(None):
        if value is not None:
            raise OutputMismatch(path, f"expected null, got {json_type_name(value)}")
        return None
    if not isinstance(tp, type):
        raise OutputMismatch(path, f"cannot decode a value as {tp!r}")
    return _plain_class(tp, value, path)


# ----------------------------------------------------------------------------- generics

_ANNOTATED = {typing_form for typing_form in (getattr(typing, "Annotated", None), te.Annotated) if typing_form}
_WRAPPERS = {
    form
    for name in ("Required", "NotRequired", "ReadOnly")
    for form in (getattr(typing, name, None), getattr(te, name, None))
    if form is not None
}
_LITERAL = {form for form in (getattr(typing, "Literal", None), te.Literal) if form is not None}
_UNIONS: Tuple[Any, ...] = (typing.Union,) + ((types.UnionType,) if hasattr(types, "UnionType") else ())
_SEQUENCES = (
    list,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Iterable,
    collections.abc.Collection,
)
_SETS = {set: set, frozenset: frozenset, collections.abc.Set: frozenset, collections.abc.MutableSet: set}
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def _generic(tp: Any, origin: Any, args: Tuple[Any, ...], value: Any, path: str) -> Any:
    if origin in _ANNOTATED or origin in _WRAPPERS:
        return decode_as(args[0], value, path)
    if origin in _LITERAL:
        return _literal(args, value, path)
    if origin in _UNIONS:
        return _union(args, value, path)
    if origin is tuple:
        return _tuple(args, value, path)
    if origin in _SEQUENCES:
        items = _expect(list, "array", value, path)
        item_type = args[0] if args else Any
        return [decode_as(item_type, item, index_path(path, i)) for i, item in enumerate(items)]
    if origin in _SETS:
        return _set(_SETS[origin], args[0] if args else Any, value, path)
    if origin in _MAPPINGS:
        return _mapping(args, value, path)
    raise OutputMismatch(path, f"cannot decode a value as {tp!r}")


def _expect(kind: type, name: str, value: Any, path: str) -> Any:
    if not isinstance(value, kind):
        raise OutputMismatch(path, f"expected {name}, got {json_type_name(value)}")
    return value


def _json_equal(a: Any, b: Any) -> bool:
    return json_type_name(a) == json_type_name(b) and bool(a == b)


def _literal(args: Tuple[Any, ...], value: Any, path: str) -> Any:
    for arg in args:
        plain = arg.value if isinstance(arg, enum.Enum) else arg
        if _json_equal(plain, value):
            return arg
    allowed = ", ".join(repr(arg.value if isinstance(arg, enum.Enum) else arg) for arg in args)
    raise OutputMismatch(path, f"expected one of {allowed}, got {value!r}")


def _union(args: Tuple[Any, ...], value: Any, path: str) -> Any:
    if value is None and type(None) in args:
        return None
    mismatches: List[OutputMismatch] = []
    plausible: List[OutputMismatch] = []
    for arg in args:
        if arg is type(None):
            continue
        try:
            return decode_as(arg, value, path)
        except OutputMismatch as exc:
            mismatches.append(exc)
            if _takes_json_kind(arg, value):
                plausible.append(exc)
    if len(plausible) == 1:
        raise plausible[0]  # the one alternative of the value's JSON kind: its problem is the answer
    deepest = max(mismatches, key=lambda exc: len(exc.path), default=None)
    if deepest is not None and deepest.path != path:
        raise deepest  # one alternative got further into the value: its problem is the useful one
    kinds = " or ".join(_type_name(arg) for arg in args)
    raise OutputMismatch(path, f"expected {kinds}, got {json_type_name(value)}")


def _takes_json_kind(tp: Any, value: Any) -> bool:
    """Whether values of ``tp`` are written as JSON of the same kind as ``value`` (a
    ``date`` and ``"2024-02-30"`` both strings); True when it cannot tell."""
    kind = json_type_name(value)
    origin = te.get_origin(tp)
    if origin in _ANNOTATED or origin in _WRAPPERS:
        return _takes_json_kind(te.get_args(tp)[0], value)
    if origin is not None:
        if origin is tuple or origin in _SEQUENCES or origin in _SETS:
            return kind == "array"
        if origin in _MAPPINGS:
            return kind == "object"
        return True
    if not isinstance(tp, type) or tp is object:
        return True
    if te.is_typeddict(tp) or dataclasses.is_dataclass(tp) or is_pydantic_model(tp) or issubclass(tp, dict):
        return kind == "object"
    if issubclass(tp, (list, tuple, set, frozenset)):
        return kind == "array"
    if issubclass(tp, bool):
        return kind == "boolean"
    if issubclass(tp, str) or text_scalar_format(tp) is not None:
        return kind == "string"
    if issubclass(tp, (int, float)) and not issubclass(tp, enum.Enum):
        return kind in ("integer", "number")
    return True


def _type_name(tp: Any) -> str:
    if tp is type(None):
        return "null"
    return getattr(tp, "__qualname__", None) or repr(tp)


def _tuple(args: Tuple[Any, ...], value: Any, path: str) -> Any:
    items = _expect(list, "array", value, path)
    if not args:
        return tuple(items)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(decode_as(args[0], item, index_path(path, i)) for i, item in enumerate(items))
    if args == ((),):  # Tuple[()] on 3.9
        args = ()
    if len(items) != len(args):
        raise OutputMismatch(path, f"expected {len(args)} items, got {len(items)}")
    return tuple(decode_as(arg, item, index_path(path, i)) for i, (arg, item) in enumerate(zip(args, items)))


def _set(make: Callable[[List[Any]], Any], item_type: Any, value: Any, path: str) -> Any:
    items = _expect(list, "array", value, path)
    decoded = [decode_as(item_type, item, index_path(path, i)) for i, item in enumerate(items)]
    try:
        return make(decoded)
    except TypeError as exc:
        raise OutputMismatch(path, f"the items cannot form a set: {exc}") from None


def _mapping(args: Tuple[Any, ...], value: Any, path: str) -> Any:
    mapping = _expect(dict, "object", value, path)
    key_type, value_type = (args[0], args[1]) if len(args) == 2 else (Any, Any)
    out = {}
    for key, item in mapping.items():
        where = child_path(path, key)
        out[decode_as(key_type, key, where)] = decode_as(value_type, item, where)
    return out


# ----------------------------------------------------------------------------- classes


def _plain_class(tp: type, value: Any, path: str) -> Any:
    if issubclass(tp, enum.Enum):
        return _enum_member(tp, value, path)
    if te.is_typeddict(tp):
        return _typeddict(tp, value, path)
    if dataclasses.is_dataclass(tp):
        return _dataclass(tp, value, path)
    if is_pydantic_model(tp):
        return _pydantic(tp, value, path)
    text_format = text_scalar_format(tp)
    if text_format is not None:
        return _text_scalar(tp, text_format, value, path)
    return _scalar(tp, value, path)


def _enum_member(tp: Type[enum.Enum], value: Any, path: str) -> Any:
    for member in tp:
        if _json_equal(member.value, value):
            return member
    allowed = ", ".join(repr(member.value) for member in tp)
    raise OutputMismatch(path, f"expected one of {allowed} ({tp.__qualname__}), got {value!r}")


def _scalar(tp: type, value: Any, path: str) -> Any:
    if issubclass(tp, bool):
        return _expect(bool, "boolean", value, path)
    if issubclass(tp, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise OutputMismatch(path, f"expected integer, got {json_type_name(value)}")
        return value if tp is int else tp(value)
    if issubclass(tp, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OutputMismatch(path, f"expected number, got {json_type_name(value)}")
        return float(value) if tp is float else tp(value)
    if issubclass(tp, str):
        text = _expect(str, "string", value, path)
        return text if tp is str else tp(text)
    if tp is list or tp is dict:
        return _expect(tp, "array" if tp is list else "object", value, path)
    if tp in (tuple, set, frozenset):
        return tp(_expect(list, "array", value, path))
    raise OutputMismatch(path, f"cannot decode a value as {tp.__qualname__}")


# ----------------------------------------------------------------------------- text scalars


def _text_scalar(tp: Any, text_format: str, value: Any, path: str) -> Any:
    words = FORMAT_WORDS[text_format]
    if not isinstance(value, str):
        raise OutputMismatch(path, f"expected {words}, got {json_type_name(value)}")
    try:
        return parse_text(tp, text_format, value)
    except (ValueError, ArithmeticError) as exc:  # decimal.InvalidOperation is an ArithmeticError
        detail = f" ({exc})" if str(exc) else ""
        raise OutputMismatch(path, f"expected {words}, got {value!r}{detail}") from None


# ----------------------------------------------------------------------------- records


class _Field(NamedTuple):
    key: str  # the JSON key
    hint: Any
    required: bool
    raw: bool  # the field has its own dataclasses-json decoder: its JSON value goes in as is


_FIELDS: MutableMapping[type, Tuple[_Field, ...]] = weakref.WeakKeyDictionary()


def _fields_of(cls: type) -> Tuple[_Field, ...]:
    """The fields of a dataclass/TypedDict (computed once per class)."""
    try:
        return _FIELDS[cls]
    except KeyError:
        pass
    hints = resolved_hints(cls)
    if dataclasses.is_dataclass(cls):
        found = tuple(
            _Field(
                json_field_name(cls, fld),
                hints.get(fld.name, Any),
                fld.default is dataclasses.MISSING and fld.default_factory is dataclasses.MISSING,
                custom_decoder(fld) is not None,
            )
            for fld in dataclasses.fields(cls)
            if fld.init
        )
    else:
        declared = getattr(cls, "__required_keys__", None)
        total = bool(getattr(cls, "__total__", True))
        fields = []
        for name, hint in hints.items():
            marker = required_marker(hint)
            if marker is None:
                marker = name in declared if declared is not None else total
            fields.append(_Field(name, hint, marker, False))
        found = tuple(fields)
    _FIELDS[cls] = found
    return found


def _record_values(cls: type, value: Any, path: str) -> Dict[str, Any]:
    """The decoded values of a dataclass/TypedDict's fields present in ``value``, by JSON key."""
    data = _expect(dict, "object", value, path)
    fields = _fields_of(cls)
    known = {fld.key for fld in fields}
    for key in data:
        if key not in known:
            raise OutputMismatch(path, f"unexpected property {key!r} ({cls.__qualname__} has no such field)")
    out: Dict[str, Any] = {}
    for fld in fields:
        if fld.key not in data:
            if fld.required:
                raise OutputMismatch(path, f"missing required property {fld.key!r}")
            continue
        item = data[fld.key]
        out[fld.key] = item if fld.raw else decode_as(fld.hint, item, child_path(path, fld.key))
    return out


def _typeddict(cls: type, value: Any, path: str) -> Dict[str, Any]:
    return _record_values(cls, value, path)


def _dataclass(cls: type, value: Any, path: str) -> Any:
    values = _record_values(cls, value, path)
    build = dataclass_builder()  # imports dataclasses-json: a broken install is no refusal
    try:
        return build(cls, values)
    except Exception as exc:  # noqa: BLE001 - __post_init__ and decoders may raise anything
        raise OutputMismatch(path, f"{cls.__qualname__} refused the value: {exception_text(exc)}") from None


def _pydantic(cls: type, value: Any, path: str) -> Any:
    try:
        return validate_pydantic(cls, value)
    except PydanticMismatch as exc:
        where = path
        for part in exc.location:
            where = index_path(where, part) if isinstance(part, int) else child_path(where, part)
        raise OutputMismatch(where, exc.message) from None

