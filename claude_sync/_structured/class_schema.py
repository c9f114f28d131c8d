"""``json_schema_of(cls)``: the JSON Schema a class sends as ``output_format`` (pure).

Supported classes (``output_kind``): a dataclass, a TypedDict, a pydantic v2 model. Dataclasses
and TypedDicts go through the one schema generator (``claude_sync._mcp.schema``) with the
``STRUCTURED_OUTPUT`` profile; pydantic models through their own ``model_json_schema()``.
Either way the result is rewritten into the dialect both CLIs accept (``cli_dialect``) and
frozen (``readonly``). The agreed text forms:

==================  ========================================================
Python              JSON
==================  ========================================================
``datetime``        ISO 8601 string, e.g. ``2024-05-17T14:30:00+02:00``
``date``            ``2024-05-17``
``time``            ``14:30:00``
``UUID``            ``123e4567-e89b-12d3-a456-426614174000``
``Decimal``         a decimal number as a string, e.g. ``"12.50"``
``Enum``            its members' values
``tuple[X, Y]``     an array of exactly two items (positions checked when decoding)
``set[X]``          an array of unique items
==================  ========================================================

The schema of a class is computed once and cached (weakly: a class that goes away takes its
entry with it; a notebook cell that redefines a class gets a new entry).
"""

from __future__ import annotations

import weakref
from typing import Any, Dict, MutableMapping

import typing_extensions as te

from .._mcp.schema import SchemaProfile, to_json_schema
from .cli_dialect import to_cli_dialect
from .dataclasses_json_adapter import json_field_name
from .field_docs import describe_class
from .pydantic_adapter import is_pydantic_model, pydantic_schema
from .readonly import freeze

__all__ = ["STRUCTURED_OUTPUT", "json_schema_of", "output_kind"]

STRUCTURED_OUTPUT = SchemaProfile(
    closed_objects=True,
    describe=describe_class,
    json_name=json_field_name,
    text_scalars=True,
    recursive_refs=True,
)
"""The generator profile of output classes (see ``claude_sync._mcp.schema.SchemaProfile``)."""

_SCHEMAS: MutableMapping[type, Dict[str, Any]] = weakref.WeakKeyDictionary()


def output_kind(cls: Any) -> str:
    """``"dataclass"``, ``"typeddict"`` or ``"pydantic"``.

    Raises:
        TypeError: ``cls`` is none of them (an instance, a plain class, a pydantic v1 model).
    """
    if isinstance(cls, type):
        if is_pydantic_model(cls):
            return "pydantic"
        if te.is_typeddict(cls):
            return "typeddict"
        if "__dataclass_fields__" in cls.__dict__ or hasattr(cls, "__dataclass_fields__"):
            return "dataclass"
    what = f"the class {cls.__qualname__}" if isinstance(cls, type) else f"a {type(cls).__name__}"
    raise TypeError(
        "output_format takes a dataclass, a TypedDict or a pydantic v2 model class (or "
        f"{{'type': 'json_schema', 'schema': {{...}}}}), not {what}"
    )


def json_schema_of(cls: Any) -> Dict[str, Any]:
    """The JSON Schema that ``output_format=cls`` sends to the CLI.

    The same read-only dict is returned on every call (copy it with ``copy.deepcopy`` to
    change it); the second call for a class is a dictionary lookup.

    Raises:
        TypeError: ``cls`` is not a dataclass/TypedDict/pydantic v2 model, or a field has no
            JSON form (a callable, ``bytes``, a dict with non-``str`` keys, an unresolvable
            annotation…); the message names the field (``Invoice.lines.price: …``).
    """
    try:
        return _SCHEMAS[cls]
    except (KeyError, TypeError):
        pass
    kind = output_kind(cls)
    raw = pydantic_schema(cls) if kind == "pydantic" else to_json_schema(cls, STRUCTURED_OUTPUT)
    schema: Dict[str, Any] = freeze(_object_root(to_cli_dialect(raw)))
    _SCHEMAS[cls] = schema
    return schema


def _object_root(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A root that is a bare ``$ref`` into ``$defs`` (pydantic's form for a recursive model)
    replaced by the definition itself: the API wants ``"type": "object"`` at the root. The
    ``$defs`` stay, so references into them still resolve."""
    ref = schema.get("$ref")
    defs = schema.get("$defs")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/") or not isinstance(defs, dict):
        return schema
    target = defs.get(ref[len("#/$defs/"):])
    if not isinstance(target, dict):
        return schema
    root = {key: value for key, value in schema.items() if key != "$ref"}
    root.update(target)
    return root
