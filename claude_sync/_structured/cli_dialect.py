"""JSON Schema in the dialect both CLIs (2.1.197, 2.1.331) and the Messages API accept (pure).

What the real CLIs do with ``--json-schema`` / ``initialize.jsonSchema`` (checked against
both): they compile the schema with Ajv (draft-07, strict mode) and, if that fails, **drop
the ``StructuredOutput`` tool without a word** — the model then has no way to answer, and
the run ends ``success`` with no ``structured_output``. Ajv's strict mode refuses
keywords it does not know: ``prefixItems`` (a 2020-12 tuple), ``discriminator``,
``unevaluatedProperties``, ``x-…`` extensions; CLI 2.1.197 also refuses every ``format``
(no formats are registered there), while 2.1.331 ignores them. ``$ref`` into ``$defs``
(recursion included), ``pattern``, ``anyOf``/``oneOf``, ``const``, ``default`` and the
metadata keywords work on both. The API validates the same schema as the tool's
``input_schema`` (JSON Schema 2020-12), so the draft-07 tuple form (``items: [...]``) is no
way out either.

``to_cli_dialect(schema)`` rewrites any schema (ours or pydantic's) into that common ground:

* ``format`` becomes a ``pattern`` (``TEXT_FORMATS``) or, for formats without one, a note in
  the ``description``; the decoder still checks the real format;
* a tuple (``prefixItems``) becomes ``items: {"anyOf": [...]}`` with its length fixed by
  ``minItems``/``maxItems`` and the order written in the ``description``; the decoder
  checks each position;
* objects with ``properties`` and no ``additionalProperties`` are closed
  (``additionalProperties: false``, which the API asks for);
* ``$schema``, ``$id`` and every keyword outside ``KEPT_KEYWORDS`` are dropped.

Dropping or loosening is safe here because the class has the last word: the decoder
rejects what the looser schema let through, naming the JSON path.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

__all__ = ["KEPT_KEYWORDS", "TEXT_FORMATS", "to_cli_dialect"]

TEXT_FORMATS: Dict[str, Tuple[str, str]] = {
    "date-time": (
        r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?$",
        "an ISO 8601 date and time, e.g. 2024-05-17T14:30:00+02:00",
    ),
    "date": (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "an ISO 8601 date, e.g. 2024-05-17"),
    "time": (
        r"^[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?$",
        "an ISO 8601 time, e.g. 14:30:00",
    ),
    "uuid": (
        r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$",
        "a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000",
    ),
    "decimal": (r"^-?[0-9]+(\.[0-9]+)?$", "a decimal number written as a string, e.g. 12.50"),
    "duration": (
        r"^-?P([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+([.,][0-9]+)?S)?)?$",
        "an ISO 8601 duration, e.g. P1DT2H30M",
    ),
}
"""``format`` → (the ``pattern`` that replaces it, the words added to the description)."""

KEPT_KEYWORDS = frozenset(
    [
        "$ref", "$defs", "definitions", "$comment",
        "type", "enum", "const",
        "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
        "minProperties", "maxProperties",
        "items", "minItems", "maxItems", "uniqueItems", "contains",
        "minLength", "maxLength", "pattern",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
        "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    ]
)  # fmt: skip
"""Keywords known to Ajv's draft-07 strict mode and to JSON Schema 2020-12 alike."""

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")
_SCHEMA_VALUES = ("additionalProperties", "items", "propertyNames", "contains", "not", "if", "then", "else")


def to_cli_dialect(schema: Any) -> Any:
    """A rewritten copy of ``schema`` (see the module docstring); the input is not changed.
    Values that are not dicts (``true``/``false`` schemas) come back as they are."""
    if not isinstance(schema, Mapping):
        return schema
    out: Dict[str, Any] = {}
    notes: List[str] = []
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: to_cli_dialect(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [to_cli_dialect(sub) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = to_cli_dialect(value)
        elif key in KEPT_KEYWORDS:
            out[key] = value
    _format_as_pattern(schema.get("format"), out, notes)
    _tuple_as_items(schema, out, notes)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if isinstance(out.get("items"), list):  # the draft-07 tuple form: the API refuses it
        _tuple_as_items({"prefixItems": schema["items"]}, out, notes)
    if notes:
        described = out.get("description")
        out["description"] = " ".join(([described] if isinstance(described, str) else []) + notes)
    return out


def _format_as_pattern(text_format: Any, out: Dict[str, Any], notes: List[str]) -> None:
    if not isinstance(text_format, str):
        return
    known = TEXT_FORMATS.get(text_format)
    if known is None:
        notes.append(f"Format: {text_format}.")
        return
    pattern, words = known
    out.setdefault("pattern", pattern)
    notes.append(f"Format: {words}.")


def _tuple_as_items(schema: Mapping[str, Any], out: Dict[str, Any], notes: List[str]) -> None:
    positions = schema.get("prefixItems")
    if not isinstance(positions, list):
        return
    converted = [to_cli_dialect(sub) for sub in positions]
    rest = schema.get("items")
    if isinstance(rest, Mapping):
        converted.append(to_cli_dialect(rest))
    else:
        out.setdefault("maxItems", len(positions))
    out.setdefault("minItems", len(positions))
    out["items"] = _any_of(converted)
    names = ", ".join(_describe_item(sub) for sub in converted[: len(positions)])
    notes.append(f"Items in this order: [{names}]" + (", then more." if isinstance(rest, Mapping) else "."))


def _any_of(schemas: List[Any]) -> Any:
    unique: List[Any] = []
    for sub in schemas:
        if sub not in unique:
            unique.append(sub)
    if not unique:
        return {}
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _describe_item(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    for key in ("title", "type"):
        value: Optional[Any] = schema.get(key)
        if isinstance(value, str):
            return value
    if "$ref" in schema:
        return str(schema["$ref"]).rpartition("/")[2] or "any"
    if "enum" in schema or "const" in schema:
        return "one of the listed values"
    return "any"
