"""JSON Schema from Python types, for tool inputs and typed structured output (pure).

``to_json_schema(spec)`` turns what ``@tool`` accepts as ``input_schema`` into JSON Schema:

* a JSON Schema dict (it has ``"$schema"``, a string/list ``"type"`` or a dict
  ``"properties"``) is returned as a shallow copy, unchanged;
* a ``{name: type}`` shorthand becomes an object schema in which every key is required
  (a value may also be a JSON Schema dict, used as is);
* a TypedDict becomes an object schema that respects ``total=False``, ``Required`` and
  ``NotRequired``; a dataclass one in which fields with defaults are optional;
* any other supported type becomes its own schema (see ``_Converter.convert``).

``to_json_schema(spec, profile)`` takes a ``SchemaProfile``: the default (``TOOL_INPUT``) is
what tool inputs have always had; typed structured output (``claude_sync._structured``)
passes its own, which closes class objects (``additionalProperties: false``), describes
fields from their docs, writes ``datetime``/``date``/``time``/``UUID``/``Decimal`` as strings
with a ``format``, names dataclass fields as dataclasses-json would, and expresses recursive
classes with ``$defs``/``$ref`` instead of cutting them one level down.

The validator for such schemas is in ``schema_validation``.

Type introspection happens when a tool is decorated, never at import time.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import sys
import types
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import typing_extensions as te

from .schema_validation import json_type_name

JsonSchema = Dict[str, Any]

__all__ = [
    "TEXT_SCALAR_FORMATS",
    "TOOL_INPUT",
    "ClassDocs",
    "JsonSchema",
    "SchemaProfile",
    "is_json_schema",
    "required_marker",
    "resolved_hints",
    "text_scalar_format",
    "to_json_schema",
]

ClassDocs = Tuple[Optional[str], Dict[str, str]]
"""What a ``describe`` hook returns for a class: its description and one per field name."""

TEXT_SCALAR_FORMATS: Tuple[Tuple[str, str, str], ...] = (
    ("datetime", "datetime", "date-time"),
    ("datetime", "date", "date"),
    ("datetime", "time", "time"),
    ("uuid", "UUID", "uuid"),
    ("decimal", "Decimal", "decimal"),
)
"""``(module, class, format)`` of the scalars a profile with ``text_scalars`` writes as
strings, most specific first (a ``datetime`` is a ``date``). ``"decimal"`` is ours: a
number written as a string, so no digit is lost to a float."""


class SchemaProfile:
    """How ``to_json_schema`` writes classes and the types JSON has no native form for.

    * ``closed_objects``: TypedDict and dataclass objects get ``additionalProperties: false``.
    * ``describe(cls) -> (class description, {field: description})``: descriptions for a
      TypedDict/dataclass and its fields (``Annotated[X, "text"]`` wins over it).
    * ``json_name(cls, field) -> str``: the JSON key of a dataclass field.
    * ``text_scalars``: ``TEXT_SCALAR_FORMATS`` become ``{"type": "string", "format": …}``
      (without it they have no JSON form: ``TypeError``).
    * ``recursive_refs``: a class that contains itself is written once under ``$defs``
      and referred to with ``$ref`` (``"#"`` for the class being converted); without it,
      the inner occurrence is cut to ``{"type": "object"}``.
    """

    __slots__ = ("closed_objects", "describe", "json_name", "text_scalars", "recursive_refs")

    def __init__(
        self,
        *,
        closed_objects: bool = False,
        describe: Optional[Callable[[type], ClassDocs]] = None,
        json_name: Optional[Callable[[type, dataclasses.Field[Any]], str]] = None,
        text_scalars: bool = False,
        recursive_refs: bool = False,
    ) -> None:
        self.closed_objects = closed_objects
        self.describe = describe
        self.json_name = json_name
        self.text_scalars = text_scalars
        self.recursive_refs = recursive_refs


TOOL_INPUT = SchemaProfile()
"""The profile of tool input schemas (``@tool``): open objects, no text scalars, recursion
cut one level down."""


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


def to_json_schema(spec: Any, profile: SchemaProfile = TOOL_INPUT) -> JsonSchema:
    """The JSON Schema for a tool's ``input_schema`` or for any supported type.

    Raises:
        TypeError: a type has no JSON form (``bytes``, ``datetime`` without
            ``profile.text_scalars``, a callable, a class that is neither a TypedDict, a
            dataclass nor an Enum, a dict with non-string keys…; the message names the field),
            or the annotations of a TypedDict/dataclass cannot be resolved.
    """
    converter = _Converter(profile)
    if isinstance(spec, Mapping):
        if is_json_schema(spec):
            return dict(spec)
        fields = [(str(name), tp, True) for name, tp in spec.items()]
        return converter.object_schema(fields, where="input_schema")
    return converter.convert_root(spec)


class _Converter:
    """One conversion; remembers the classes being expanded to handle recursive types."""

    def __init__(self, profile: SchemaProfile) -> None:
        self.profile = profile
        self._expanding: List[Any] = []
        self._root: Any = None
        self._def_names: Dict[Any, str] = {}  # recursive class -> its name under $defs

    def convert_root(self, tp: Any) -> JsonSchema:
        """``convert`` plus, with ``recursive_refs``, the ``$defs`` of recursive classes."""
        self._root = tp
        schema = self.convert(tp)
        if not self._def_names:
            return schema
        defs: JsonSchema = {}
        while len(defs) < len(self._def_names):  # a definition can reveal another recursive class
            for cls, name in list(self._def_names.items()):
                if name not in defs:
                    defs[name] = self._guarded(cls, self._class_builder(cls), as_definition=True)
        schema["$defs"] = defs
        return schema

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
        if te.is_typeddict(tp) or dataclasses.is_dataclass(tp):
            return self._guarded(tp, self._class_builder(tp))
        if self.profile.text_scalars:
            text_format = text_scalar_format(tp)
            if text_format is not None:
                return {"type": "string", "format": text_format}
        for base in (bool, str, int, float):  # str/int subclasses keep their JSON type
            if issubclass(tp, base):
                return dict(_SCALARS[base])
        raise TypeError(
            f"{tp.__qualname__} has no JSON Schema form: use a TypedDict, a dataclass, an Enum "
            "or a JSON Schema dict"
        )

    def _class_builder(self, cls: type) -> Callable[[type], JsonSchema]:
        return self._typeddict_schema if te.is_typeddict(cls) else self._dataclass_schema

    def _guarded(
        self, cls: type, build: Callable[[type], JsonSchema], as_definition: bool = False
    ) -> JsonSchema:
        if cls in self._expanding:  # a recursive type
            if not self.profile.recursive_refs:
                return {"type": "object"}  # one level of structure is enough for a tool input
            return {"$ref": self._ref(cls)}
        if not as_definition and cls in self._def_names:
            return {"$ref": self._ref(cls)}
        self._expanding.append(cls)
        try:
            return build(cls)
        finally:
            self._expanding.pop()

    def _ref(self, cls: type) -> str:
        if cls is self._root:
            return "#"
        name = self._def_names.get(cls)
        if name is None:
            taken = set(self._def_names.values())
            name = cls.__name__
            counter = 2
            while name in taken:
                name = f"{cls.__name__}{counter}"
                counter += 1
            self._def_names[cls] = name
        return f"#/$defs/{name}"

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
        hints = resolved_hints(cls)
        declared_required = getattr(cls, "__required_keys__", None)
        total = getattr(cls, "__total__", True)
        fields = []
        for name, hint in hints.items():
            marker = required_marker(hint)
            if marker is not None:
                required = marker
            elif declared_required is not None:
                required = name in declared_required
            else:
                required = bool(total)
            fields.append((name, hint, required))
        return self._class_object(cls, fields, {})

    def _dataclass_schema(self, cls: type) -> JsonSchema:
        hints = resolved_hints(cls)
        json_name = self.profile.json_name
        fields = []
        defaults: Dict[str, Any] = {}
        for fld in dataclasses.fields(cls):
            if not fld.init:
                continue
            name = fld.name if json_name is None else json_name(cls, fld)
            has_default = fld.default is not dataclasses.MISSING
            has_factory = fld.default_factory is not dataclasses.MISSING
            fields.append((name, hints.get(fld.name, Any), not (has_default or has_factory)))
            if has_default:
                defaults[name] = fld.default
        return self._class_object(cls, fields, defaults)

    def _class_object(
        self, cls: type, fields: List[Tuple[str, Any, bool]], defaults: Dict[str, Any]
    ) -> JsonSchema:
        """The object schema of a TypedDict/dataclass: fields, defaults, the profile's
        descriptions and closing."""
        schema = self.object_schema(fields, where=cls.__qualname__)
        properties = schema["properties"]
        for name, default in defaults.items():
            value = self._default_value(default)
            if value is None or isinstance(value, (str, int, float, bool)):
                properties[name].setdefault("default", value)
        if self.profile.describe is not None:
            class_doc, field_docs = self.profile.describe(cls)
            for name, text in field_docs.items():
                if name in properties:
                    properties[name].setdefault("description", text)
            if class_doc:
                schema["description"] = class_doc
        if self.profile.closed_objects:
            schema["additionalProperties"] = False
        return schema

    def _default_value(self, default: Any) -> Any:
        value = _plain_value(default)
        if self.profile.text_scalars and text_scalar_format(type(value)) is not None:
            return value.isoformat() if hasattr(value, "isoformat") else str(value)
        return value

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


def text_scalar_format(tp: Any) -> Optional[str]:
    """The ``format`` of a scalar written as a string (``TEXT_SCALAR_FORMATS``), else None.

    Looks only at modules already imported: a type of a module nobody imported cannot be
    the type asked about.
    """
    if not isinstance(tp, type):
        return None
    for module_name, class_name, text_format in TEXT_SCALAR_FORMATS:
        module = sys.modules.get(module_name)
        base = getattr(module, class_name, None) if module is not None else None
        if base is not None and issubclass(tp, base):
            return text_format
    return None


def resolved_hints(cls: type) -> Dict[str, Any]:
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
            "`from __future__ import annotations` the types a schema uses must be "
            "importable from the class's module (not local to a function)"
        ) from exc
    except TypeError as exc:
        raise TypeError(
            f"cannot evaluate the annotations of {cls.__qualname__}: {exc} "
            "(on Python 3.9 write Optional[X]/Union[X, Y] instead of X | Y)"
        ) from exc


def required_marker(hint: Any) -> Optional[bool]:
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

