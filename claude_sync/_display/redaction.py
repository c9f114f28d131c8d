"""``repr`` of options without secrets: options end up in logs, tracebacks and notebooks.

Redacted (the value becomes ``'<redacted>'``, keys stay, so a reader still sees what is set):

- every value of ``env`` and of an MCP server's ``env`` and ``headers``;
- at any depth of a dict, the value of a key that names a secret (``api_key``, ``token``,
  ``Authorization``, ``password``, ``secret``, ``cookie``, ``credentials`` …);
- inside any string, what looks like an Anthropic key (``sk-ant-…``) or a bearer token.

Pure module; loaded on the first ``repr``.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any, Dict

__all__ = ["REDACTED", "redact", "redacted_repr"]

REDACTED = "<redacted>"

_SECRET_KEY = re.compile(r"key|token|secret|passw|auth|credential|cookie|signature|bearer", re.I)
_SECRET_TEXT = re.compile(r"sk-ant-[A-Za-z0-9_\-]+|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]+")
_ALL_VALUES = frozenset(("env", "headers"))
"""Dict keys whose value is a mapping with every value redacted."""
_MAX_DEPTH = 20


def redact(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` (dicts, lists, tuples, strs; anything else as is) with secrets
    replaced by ``REDACTED``."""
    if depth > _MAX_DEPTH:
        return REDACTED
    if isinstance(value, str):
        return _SECRET_TEXT.sub(REDACTED, value)
    if isinstance(value, dict):
        out: Dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and key in _ALL_VALUES and isinstance(item, dict):
                out[key] = {k: REDACTED for k in item}
            elif isinstance(key, str) and _SECRET_KEY.search(key) and item is not None:
                out[key] = REDACTED
            else:
                out[key] = redact(item, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(redact(item, depth + 1) for item in value)
    return value


def redacted_repr(options: Any) -> str:
    """``ClassName(field=value, …)`` like the dataclass repr, with ``redact`` applied and
    every ``env`` value hidden."""
    parts = []
    for spec in fields(options):
        if not spec.repr:
            continue
        value = getattr(options, spec.name)
        if spec.name == "env" and isinstance(value, dict):
            shown: Any = {key: REDACTED for key in value}
        else:
            shown = redact(value)
        parts.append(f"{spec.name}={shown!r}")
    return f"{type(options).__qualname__}({', '.join(parts)})"
