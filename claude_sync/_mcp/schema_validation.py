"""A small JSON Schema validator for tool arguments and structured output (pure).

``validate(schema, value)`` checks a value against the schemas ``schema.to_json_schema``
generates plus the common keywords of hand-written ones and returns the first problem as
text such as ``"b: expected number, got string"``, or ``None``; ``first_problem`` returns
the same as ``(path, problem)``. Local references (``"#"``, ``"#/$defs/Name"``,
``"#/definitions/Name"``, what recursive types generate) are followed. Keywords it does not
know (other ``$ref``s, ``format``, ``if``/``then``…) constrain nothing: a value is never
refused on a keyword we cannot judge.
"""

from __future__ import annotations

import json
import operator
import re
from typing import Any, List, Mapping, NamedTuple, Optional, Tuple

__all__ = ["Problem", "first_problem", "json_type_name", "validate"]

MAX_REF_HOPS = 32
"""``$ref`` hops followed at one place in the value before the schema counts as cyclic."""


class Problem(NamedTuple):
    """Where a value breaks a schema (``path`` like ``items[2].price``, ``""`` for the whole
    value) and how (``text``); ``str()`` gives ``"path: text"``."""

    path: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}: {self.text}" if self.path else self.text


def validate(schema: Any, value: Any) -> Optional[str]:
    """The first way ``value`` breaks ``schema``, as ``"path: problem"``; None if it conforms.

    Never raises for a schema it does not understand: unknown keywords are skipped.
    """
    problem = first_problem(schema, value)
    return None if problem is None else str(problem)


def first_problem(schema: Any, value: Any) -> Optional[Problem]:
    """``validate`` with the path and the problem apart; None if ``value`` conforms."""
    return _check(schema, value, "", schema)


def _at(path: str, problem: str) -> Problem:
    return Problem(path, problem)


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_type(value: Any, json_type: Any) -> bool:
    kind = json_type_name(value)
    if json_type == kind:
        return True
    if json_type == "number":
        return kind == "integer"
    if json_type == "integer":
        return kind == "number" and float(value).is_integer()
    return json_type not in _KNOWN_TYPES  # an unknown type name constrains nothing


_KNOWN_TYPES = frozenset(["null", "boolean", "integer", "number", "string", "array", "object"])


def _show(value: Any) -> str:
    """A short JSON-looking rendering of a value for error messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``."""
    kind_a, kind_b = json_type_name(a), json_type_name(b)
    numbers = ("integer", "number")
    if kind_a in numbers and kind_b in numbers:
        return bool(a == b)
    if kind_a != kind_b:
        return False
    if kind_a == "array":
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if kind_a == "object":
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _check(schema: Any, value: Any, path: str, root: Any) -> Optional[Problem]:
    schema, cyclic = _resolve(schema, root)
    if cyclic:
        return _at(path, f"the schema's $ref chain is cyclic: {_show(schema)}")
    if schema is False:
        return _at(path, "no value is allowed here")
    if not isinstance(schema, Mapping):
        return None  # ``true`` or something that is not a schema: no constraint
    for check in _CHECKS:
        problem = check(schema, value, path, root)
        if problem is not None:
            return problem
    return None


def _resolve(schema: Any, root: Any) -> Tuple[Any, bool]:
    """``schema`` with its local ``$ref`` followed (``"#"``, ``"#/$defs/N"``,
    ``"#/definitions/N"``), and whether the chain was cyclic. A ``$ref`` that is not local
    or names nothing constrains nothing (the schema is returned as it is)."""
    for _ in range(MAX_REF_HOPS):
        if not isinstance(schema, Mapping):
            return schema, False
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema, False
        target = _local_target(ref, root)
        if target is None:
            return schema, False
        schema = target
    return schema, True


def _local_target(ref: str, root: Any) -> Any:
    if ref == "#":
        return root
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix) and isinstance(root, Mapping):
            table = root.get(prefix[2:-1])
            name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            if isinstance(table, Mapping) and name in table:
                return table[name]
    return None


def _check_type(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    expected = schema.get("type")
    if expected is None:
        return None
    allowed = expected if isinstance(expected, list) else [expected]
    if any(_is_type(value, t) for t in allowed):
        return None
    return _at(path, f"expected {' or '.join(map(str, allowed))}, got {json_type_name(value)}")


def _check_enum(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    if "const" in schema and not _json_equal(value, schema["const"]):
        return _at(path, f"expected {_show(schema['const'])}, got {_show(value)}")
    options = schema.get("enum")
    if isinstance(options, list) and not any(_json_equal(value, o) for o in options):
        listed = ", ".join(_show(o) for o in options[:10]) + (", ..." if len(options) > 10 else "")
        return _at(path, f"expected one of {listed}, got {_show(value)}")
    return None


def _check_combinators(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    for sub in schema.get("allOf") or ():
        problem = _check(sub, value, path, root)
        if problem is not None:
            return problem
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if not isinstance(branches, list) or not branches:
            continue
        problems = [_check(branch, value, path, root) for branch in branches]
        matches = problems.count(None)
        if matches == 0:
            resolved = [_resolve(branch, root)[0] for branch in branches]
            return _no_branch_matched(resolved, value, path, problems)
        if keyword == "oneOf" and matches > 1:
            return _at(path, f"matches {matches} alternatives where exactly one is allowed")
    return None


def _no_branch_matched(
    branches: List[Any], value: Any, path: str, problems: List[Optional[Problem]]
) -> Problem:
    """The most useful message when no alternative fits.

    Only the alternatives whose ``type`` accepts the value are worth talking about: with one,
    its own problem is the answer (``Optional[Point]`` given a broken point names the broken
    field); with several, the one that got deepest into the value, if one did (``Cat | Dog``
    given a cat with a broken field names that field, not the dog's missing ones); with none,
    the allowed types are listed.
    """
    plausible = [p for b, p in zip(branches, problems) if _type_fits(b, value) and p is not None]
    if len(plausible) == 1:
        return plausible[0]
    deepest = max((len(p.path) for p in plausible), default=0)
    furthest = [p for p in plausible if len(p.path) == deepest]
    if len(furthest) == 1 and deepest > len(path):
        return furthest[0]
    if not plausible:
        kinds: List[str] = []
        for branch in branches:
            kind = branch.get("type") if isinstance(branch, Mapping) else None
            for name in kind if isinstance(kind, list) else [kind]:
                if isinstance(name, str) and name not in kinds:
                    kinds.append(name)
        return _at(path, f"expected {' or '.join(kinds)}, got {json_type_name(value)}")
    return _at(path, f"matches none of the allowed alternatives ({'; '.join(map(str, plausible))})")


def _type_fits(branch: Any, value: Any) -> bool:
    """Whether a branch's ``type`` (if any) accepts the value's JSON type."""
    if not isinstance(branch, Mapping) or "type" not in branch:
        return True
    kinds = branch["type"] if isinstance(branch["type"], list) else [branch["type"]]
    return any(_is_type(value, kind) for kind in kinds)


def _check_object(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    if not isinstance(value, dict):
        return None
    for name in schema.get("required") or ():
        if name not in value:
            return _at(path, f"missing required property {_show(name)}")
    properties = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        key_path = _child(path, str(key))
        matched = False
        if key in properties:
            matched = True
            problem = _check(properties[key], item, key_path, root)
            if problem is not None:
                return problem
        for pattern, sub in patterns.items():
            if _search(pattern, str(key)):
                matched = True
                problem = _check(sub, item, key_path, root)
                if problem is not None:
                    return problem
        if matched:
            continue
        if extra is False:
            return _at(path, f"unexpected property {_show(key)}")
        problem = _check(extra, item, key_path, root)
        if problem is not None:
            return problem
    return _check_size(schema, len(value), path, "minProperties", "maxProperties", "properties")


def _check_array(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    if not isinstance(value, (list, tuple)):
        return None
    problem = _check_size(schema, len(value), path, "minItems", "maxItems", "items")
    if problem is not None:
        return problem
    items = schema.get("items")
    prefix = schema.get("prefixItems")
    if isinstance(items, list):  # the draft-4 tuple form
        prefix, items = items, schema.get("additionalItems")
    prefix = prefix if isinstance(prefix, list) else []
    for index, item in enumerate(value):
        sub = prefix[index] if index < len(prefix) else items
        if sub is None:
            continue
        problem = _check(sub, item, f"{path}[{index}]", root)
        if problem is not None:
            return problem
    if schema.get("uniqueItems") is True:
        for index, item in enumerate(value):
            if any(_json_equal(item, earlier) for earlier in value[:index]):
                return _at(f"{path}[{index}]", "duplicate of an earlier item")
    return None


def _check_string(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    if not isinstance(value, str):
        return None
    problem = _check_size(schema, len(value), path, "minLength", "maxLength", "characters")
    if problem is not None:
        return problem
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not _search(pattern, value):
        return _at(path, f"does not match pattern {_show(pattern)}")
    return None


def _check_number(schema: Mapping[str, Any], value: Any, path: str, root: Any) -> Optional[Problem]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    limits = (
        ("minimum", operator.ge, "at least"),
        ("maximum", operator.le, "at most"),
        ("exclusiveMinimum", operator.gt, "greater than"),
        ("exclusiveMaximum", operator.lt, "less than"),
    )
    for keyword, ok, words in limits:
        limit = schema.get(keyword)
        if isinstance(limit, (int, float)) and not isinstance(limit, bool) and not ok(value, limit):
            return _at(path, f"expected a number {words} {_show(limit)}, got {_show(value)}")
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and step > 0 and not _is_multiple(value, step):
        return _at(path, f"expected a multiple of {_show(step)}, got {_show(value)}")
    return None


def _is_multiple(value: float, step: float) -> bool:
    quotient = value / step
    return abs(quotient - round(quotient)) <= 1e-9 * max(1.0, abs(quotient))


def _check_size(
    schema: Mapping[str, Any], size: int, path: str, low_key: str, high_key: str, unit: str
) -> Optional[Problem]:
    low, high = schema.get(low_key), schema.get(high_key)
    if isinstance(low, int) and size < low:
        return _at(path, f"expected at least {low} {unit}, got {size}")
    if isinstance(high, int) and size > high:
        return _at(path, f"expected at most {high} {unit}, got {size}")
    return None


def _search(pattern: str, text: str) -> bool:
    """``re.search``; a pattern Python cannot compile constrains nothing."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


_CHECKS = (
    _check_type,
    _check_enum,
    _check_combinators,
    _check_object,
    _check_array,
    _check_string,
    _check_number,
)
