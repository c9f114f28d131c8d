"""``to_cli_dialect``: the rewrite into the keywords both CLIs' Ajv (draft-07, strict) and the
API accept (what each rule is for: ``claude_sync._structured.cli_dialect``)."""

from __future__ import annotations

import re
from typing import Any, Dict

import pytest

from claude_sync._structured.cli_dialect import TEXT_FORMATS, to_cli_dialect


def test_formats_become_patterns_with_words() -> None:
    out = to_cli_dialect({"type": "string", "format": "date-time", "description": "When."})
    assert out == {
        "type": "string",
        "pattern": TEXT_FORMATS["date-time"][0],
        "description": "When. Format: an ISO 8601 date and time, e.g. 2024-05-17T14:30:00+02:00.",
    }


def test_an_unknown_format_becomes_words_only() -> None:
    assert to_cli_dialect({"type": "string", "format": "email"}) == {"type": "string", "description": "Format: email."}


def test_a_pattern_already_there_is_kept() -> None:
    assert to_cli_dialect({"type": "string", "format": "uuid", "pattern": "^x$"})["pattern"] == "^x$"


@pytest.mark.parametrize(
    ("text_format", "good", "bad"),
    [
        ("date-time", ["2024-05-17T14:30:00Z", "2024-05-17 14:30", "2024-05-17T14:30:00.123+02:00"], ["2024-05-17", "now"]),
        ("date", ["2024-05-17"], ["2024-5-17", "17.05.2024"]),
        ("time", ["14:30", "14:30:00.5Z"], ["2pm", "14"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"], ["123"]),
        ("decimal", ["12.50", "-3", "0"], ["1e5", "12,5", ".5"]),
        ("duration", ["P1DT2H", "PT30M", "P3W"], ["1 day"]),
    ],
)
def test_the_patterns(text_format: str, good: Any, bad: Any) -> None:
    pattern = re.compile(TEXT_FORMATS[text_format][0])
    assert all(pattern.search(text) for text in good)
    assert not any(pattern.search(text) for text in bad)


def test_a_2020_tuple_becomes_an_array_of_fixed_length() -> None:
    out = to_cli_dialect({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}, {"type": "integer"}]})
    assert out == {
        "type": "array",
        "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "minItems": 3,
        "maxItems": 3,
        "description": "Items in this order: [integer, string, integer].",
    }


def test_a_tuple_with_more_items_allowed() -> None:
    out = to_cli_dialect({"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}})
    assert out["items"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert out["minItems"] == 1 and "maxItems" not in out


def test_the_draft7_tuple_form_is_rewritten_too() -> None:
    out = to_cli_dialect({"type": "array", "items": [{"type": "integer"}, {"type": "integer"}]})
    assert out["items"] == {"type": "integer"} and out["minItems"] == out["maxItems"] == 2


def test_objects_are_closed_unless_they_say_otherwise() -> None:
    assert to_cli_dialect({"type": "object", "properties": {}})["additionalProperties"] is False
    kept: Dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}}
    assert to_cli_dialect(kept) == kept
    assert "additionalProperties" not in to_cli_dialect({"type": "object"})  # a free-form dict


def test_unknown_keywords_are_dropped_everywhere() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "x",
        "type": "object",
        "x-vendor": 1,
        "discriminator": {"propertyName": "kind"},
        "properties": {"a": {"type": "integer", "unevaluatedProperties": False, "examples": [1]}},
        "$defs": {"B": {"type": "string", "format": "date", "dependentRequired": {}}},
    }
    assert to_cli_dialect(schema) == {
        "type": "object",
        "properties": {"a": {"type": "integer", "examples": [1]}},
        "$defs": {"B": {"type": "string", "pattern": TEXT_FORMATS["date"][0], "description": "Format: an ISO 8601 date, e.g. 2024-05-17."}},
        "additionalProperties": False,
    }


def test_data_is_never_rewritten() -> None:
    """``default``/``enum``/``const``/``examples`` hold values, not schemas."""
    schema = {"type": "object", "properties": {}, "default": {"format": "date", "prefixItems": 1}, "enum": [{"format": 1}]}
    out = to_cli_dialect(schema)
    assert out["default"] == {"format": "date", "prefixItems": 1} and out["enum"] == [{"format": 1}]


def test_the_input_is_not_changed() -> None:
    schema = {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}
    to_cli_dialect(schema)
    assert schema == {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}
