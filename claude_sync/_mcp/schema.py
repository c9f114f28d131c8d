"""JSON Schema for tool inputs: generation from Python types (pure).

``to_json_schema(spec)`` turns what ``@tool`` accepts as ``input_schema`` into JSON Schema:

* a JSON Schema dict (it has ``"$schema"``, a string/list ``"type"`` or a dict
  ``"properties"``) is returned as a shallow copy, unchanged;
* a ``{name: type}`` shorthand becomes an object schema in which every key is required
  (a value may also be a JSON Schema dict, used as is);
* a TypedDict becomes an object schema that respects ``total=False``, ``Required`` and
  ``NotRequired``; a dataclass one in which fields with defaults are optional;
* any other supported type becomes its own schema (see ``_Converter.convert``).

The validator for such schemas is in ``schema_validation``.

Type introspection happens when a tool is decorated, never at import time.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import types
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import typing_extensions as te

from .schema_validation import json_type_name

JsonSchema = Dict[str, Any]

__all__ = ["JsonSchema", "is_json_schema", "to_json_schema"]


def _forms(name: str) -> Tuple[Any, ...]:
    """The ``typing`` and ``typing_extensions`` objects called ``name`` (they can differ)."""
    found = [getattr(module, name, None) for module in (typing, te)]
    return tuple({id(obj): obj for obj in found if obj is not None}.values())


_LITERAL = _forms("Literal")
_ANNOTATED = _forms("Annotated")
_REQUIRED = _forms("Required")
_NOT_REQUIRED = _forms("NotRequired")
_READ_ONLY = _forms("ReadOnly")
_UNION_ORIGINS: Tuple[Any, ...] = (typing.Union,) + (
    (types.UnionType,) if hasattr(types, "UnionType") else ()  # ``int | None`` on 3.10+
)
_ARRAY_ORIGINS = (
    list,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Iterable,
    collections.abc.Collection,
)
_SET_ORIGINS = (set, frozenset, collections.abc.Set, collections.abc.MutableSet)
_MAPPING_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_SCALARS: Dict[Any, JsonSchema] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
}




def is_json_schema(spec: Any) -> bool:
    """Whether a dict already is JSON Schema rather than a ``{name: type}`` shorthand.

    A shorthand may name a parameter ``type`` or ``properties``: its value is then a Python
    type, not a string or a dict, which is how the two are told apart.
    """
    if not isinstance(spec, Mapping):
        return False
    if "$schema" in spec:
        return True
    if isinstance(spec.get("type"), (str, list)):
        return True
    return isinstance(spec.get("properties"), Mapping)


def to_json_schema(spec: Any) -> JsonSchema:
    """The JSON Schema for a tool's ``input_schema`` or for any supported type.

    Raises:
        TypeError: a type has no JSON form (``bytes``, ``datetime``, a class that is neither a
            TypedDict, a dataclass nor an Enum, a dict with non-string keys…), or the
            annotations of a TypedDict/dataclass cannot be resolved.
    """
    if isinstance(spec, Mapping):
        if is_json_schema(spec):
            return dict(spec)
        converter = _Converter()
        fields = [(str(name), tp, True) for name, tp in spec.items()]
        return converter.object_schema(fields, where="input_schema")
    return _Converter().convert(spec)


class _Converter:
    """One conversion; remembers the classes being expanded to cut recursive types short."""

    def __init__(self) -> None:
        self._expanding: List[Any] = []

    def convert(self, tp: Any) -> JsonSchema:
        """Raises TypeError for a type with no JSON form."""
        if isinstance(tp, Mapping):
            return dict(tp)  # a JSON Schema fragment given in place of a type
        if tp is Any or tp is object:
            return {}
        if tp is None:
            return {"type": "null"}
        if isinstance(tp, type) and tp in _SCALARS:  # not a dict lookup for unhashable forms
            return dict(_SCALARS[tp])
        origin = te.get_origin(tp)
        if origin is not None:
            return self._generic(tp, origin, te.get_args(tp))
        return self._plain(tp)

    def _generic(self, tp: Any, origin: Any, args: Tuple[Any, ...]) -> JsonSchema:
        if origin in _ANNOTATED:
            return _annotate(self.convert(args[0]), args[1:])
        if origin in _REQUIRED or origin in _NOT_REQUIRED or origin in _READ_ONLY:
            return self.convert(args[0])
        if origin in _LITERAL:
            return _enum_schema([_plain_value(v) for v in args])
        if origin in _UNION_ORIGINS:
            return self._union(args)
        if origin is tuple:
            return self._tuple(args)
        if origin in _ARRAY_ORIGINS:
            return self._array(args)
        if origin in _SET_ORIGINS:
            schema = self._array(args)
            schema["uniqueItems"] = True
            return schema
        if origin in _MAPPING_ORIGINS:
            return self._mapping(tp, args)
        raise TypeError(f"{tp!r} has no JSON Schema form supported by claude_sync")

    def _plain(self, tp: Any) -> JsonSchema:
        if isinstance(tp, (str, typing.ForwardRef)):
            raise TypeError(
                f"unresolved type annotation {tp!r}: pass real types, or make sure "
                "typing.get_type_hints can resolve the name at module level"
            )
        supertype = getattr(tp, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.convert(supertype)
        if tp in (list, tuple):
            return {"type": "array"}
        if tp in (set, frozenset):
            return {"type": "array", "uniqueItems": True}
        if tp is dict:
            return {"type": "object"}
        if not isinstance(tp, type):
            raise TypeError(f"{tp!r} has no JSON Schema form supported by claude_sync")
        if issubclass(tp, enum.Enum):
            return _enum_schema([member.value for member in tp])
        if te.is_typeddict(tp):
            return self._guarded(tp, self._typeddict_schema)
        if dataclasses.is_dataclass(tp):
            return self._guarded(tp, self._dataclass_schema)
        for base in (bool, str, int, float):  # str/int subclasses keep their JSON type
            if issubclass(tp, base):
                return dict(_SCALARS[base])
        raise TypeError(
            f"{tp.__qualname__} has no JSON Schema form: use a TypedDict, a dataclass, an Enum "
            "or a JSON Schema dict"
        )

    def _guarded(self, cls: type, build: Callable[[type], JsonSchema]) -> JsonSchema:
        if cls in self._expanding:
            return {"type": "object"}  # a recursive type: one level of structure is enough
        self._expanding.append(cls)
        try:
            return build(cls)
        finally:
            self._expanding.pop()

    def _union(self, args: Tuple[Any, ...]) -> JsonSchema:
        branches = [self.convert(arg) for arg in args]
        if any(branch == {} for branch in branches):
            return {}  # Union[..., Any] allows everything
        return {"anyOf": branches}

    def _tuple(self, args: Tuple[Any, ...]) -> JsonSchema:
        if not args:
            return {"type": "array"}
        if len(args) == 2 and args[1] is Ellipsis:
            return self._array(args[:1])
        if args == ((),):  # Tuple[()] on 3.9
            return {"type": "array", "maxItems": 0}
        items = [self.convert(arg) for arg in args]
        return {
            "type": "array",
            "prefixItems": items,
            "minItems": len(items),
            "maxItems": len(items),
        }

    def _array(self, args: Tuple[Any, ...]) -> JsonSchema:
        schema: JsonSchema = {"type": "array"}
        if args:
            items = self.convert(args[0])
            if items:
                schema["items"] = items
        return schema

    def _mapping(self, tp: Any, args: Tuple[Any, ...]) -> JsonSchema:
        schema: JsonSchema = {"type": "object"}
        if not args:
            return schema
        key_schema = self.convert(args[0])
        if key_schema and key_schema.get("type") != "string":
            raise TypeError(f"{tp!r}: JSON object keys are strings, so the key type must be str")
        values = self.convert(args[1])
        if values:
            schema["additionalProperties"] = values
        return schema

    def _typeddict_schema(self, cls: type) -> JsonSchema:
        hints = _type_hints(cls)
        declared_required = getattr(cls, "__required_keys__", None)
        total = getattr(cls, "__total__", True)
        fields = []
        for name, hint in hints.items():
            marker = _required_marker(hint)
            if marker is not None:
                required = marker
            elif declared_required is not None:
                required = name in declared_required
            else:
                required = bool(total)
            fields.append((name, hint, required))
        return self.object_schema(fields, where=cls.__qualname__)

    def _dataclass_schema(self, cls: type) -> JsonSchema:
        hints = _type_hints(cls)
        fields = []
        defaults: Dict[str, Any] = {}
        for fld in dataclasses.fields(cls):
            if not fld.init:
                continue
            has_default = fld.default is not dataclasses.MISSING
            has_factory = fld.default_factory is not dataclasses.MISSING
            fields.append((fld.name, hints.get(fld.name, Any), not (has_default or has_factory)))
            if has_default:
                defaults[fld.name] = fld.default
        schema = self.object_schema(fields, where=cls.__qualname__)
        for name, default in defaults.items():
            value = _plain_value(default)
            if value is None or isinstance(value, (str, int, float, bool)):
                schema["properties"][name].setdefault("default", value)
        return schema

    def object_schema(self, fields: List[Tuple[str, Any, bool]], where: str) -> JsonSchema:
        """``{"type": "object", "properties": …, "required": […]}`` for (name, type, required).

        Raises:
            TypeError: a field's type has no JSON form (the message names the field).
        """
        properties: JsonSchema = {}
        required: List[str] = []
        for name, tp, is_required in fields:
            try:
                properties[name] = self.convert(tp)
            except TypeError as exc:
                raise TypeError(f"{where}.{name}: {exc}") from None
            if is_required:
                required.append(name)
        schema: JsonSchema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema


def _type_hints(cls: type) -> Dict[str, Any]:
    """Resolved annotations of a TypedDict/dataclass, ``Annotated``/``NotRequired`` kept.

    Raises:
        TypeError: a name cannot be resolved (a class defined inside a function in a module
            using ``from __future__ import annotations``) or ``X | Y`` on Python 3.9.
    """
    try:
        return te.get_type_hints(cls, include_extras=True)
    except NameError as exc:
        raise TypeError(
            f"cannot resolve the annotations of {cls.__qualname__}: {exc}. Under "
            "`from __future__ import annotations` the types a tool schema uses must be "
            "importable from the class's module (not local to a function)"
        ) from exc
    except TypeError as exc:
        raise TypeError(
            f"cannot evaluate the annotations of {cls.__qualname__}: {exc} "
            "(on Python 3.9 write Optional[X]/Union[X, Y] instead of X | Y)"
        ) from exc


def _required_marker(hint: Any) -> Optional[bool]:
    """True for ``Required[...]``, False for ``NotRequired[...]``, None when unmarked."""
    while True:
        origin = te.get_origin(hint)
        if origin in _REQUIRED:
            return True
        if origin in _NOT_REQUIRED:
            return False
        if origin in _READ_ONLY or origin in _ANNOTATED:
            hint = te.get_args(hint)[0]
            continue
        return None


def _annotate(schema: JsonSchema, metadata: Tuple[Any, ...]) -> JsonSchema:
    """``Annotated[X, "text"]`` adds a description; a dict in the metadata is merged in."""
    for item in metadata:
        if isinstance(item, str):
            schema["description"] = item
        elif isinstance(item, Mapping):
            schema.update(item)
    return schema


def _plain_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _enum_schema(values: List[Any]) -> JsonSchema:
    schema: JsonSchema = {"enum": values}
    kinds = {json_type_name(v) for v in values}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), "enum": values}
    return schema

