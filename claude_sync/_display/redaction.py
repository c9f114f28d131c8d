"""The one redactor: secrets out of everything claude_sync shows, logs or writes.

Applied to ``repr(options)``, the wire log (``claude_sync.wire``), every other record of the
``claude_sync`` loggers (``LOG_FILTER``: CLI noise, callback and store failures …), recordings
(``RecordingTransport`` and the frames a replay compares), the text of every
``ClaudeSDKError``, and message reprs / HTML / Markdown. A redacted
value becomes ``'<redacted>'``; keys stay, so a reader still sees what is set.

In structures (dicts, lists, tuples; ``redact``):

- every value of an ``env`` or ``headers`` mapping (MCP servers, settings, hooks …);
- the value of a key that names a secret (``is_secret_name``: ``api_key``, ``x-api-key``,
  ``apiKeyHelper``, ``*token``, ``*secret``, ``password``, ``authorization``, ``cookie``,
  ``credentials`` …, in any case and spelling; not ``input_tokens`` and not names ending in a
  word that says what kind of thing it is, such as ``apiKeySource`` or ``token_type``): a
  string, or every string inside a dict or list under it (numbers and booleans stay);
- in a list of arguments, the one after a flag that names a secret (``["--token", "x"]``).

In text (``redact_text``; every string inside a structure too):

- a JSON object or array (a ``settings`` or ``mcp_servers`` given as a JSON string) is
  parsed, redacted as a structure and written back; inside other text, the string values of
  a flat ``"env": {…}`` / ``"headers": {…}`` object;
- well-known key shapes (Anthropic ``sk-ant-…``, OpenAI ``sk-…``, GitHub ``ghp_…`` /
  ``github_pat_…``, GitLab ``glpat-…``, Slack ``xox?-…``, AWS ``AKIA…``, JWTs): the whole key;
- ``Bearer``/``Basic`` credentials, URL userinfo passwords (``https://user:<redacted>@host``);
- ``name=value``, ``name: value``, ``"name": "value"`` and ``--name value`` where the name
  names a secret (query strings, headers, env assignments, command lines).

``redact`` returns its argument itself when nothing needed redacting (no copy). Pure module;
its patterns are compiled on first use.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import fields
from typing import Any, Dict, List, Optional

__all__ = ["LOG_FILTER", "REDACTED", "is_secret_name", "redact", "redact_text", "redacted_logger", "redacted_repr"]

REDACTED = "<redacted>"

_ALL_VALUES = frozenset(("env", "headers"))
"""Mapping keys whose every value is redacted."""
_SECRET_WORDS = frozenset((
    "token", "secret", "secrets", "password", "passwd", "passphrase", "credential", "credentials",
    "cookie", "cookies", "authorization", "auth", "oauth", "bearer", "signature", "apikey", "privatekey",
))  # fmt: skip
_KEY_QUALIFIERS = frozenset(("api", "private", "access", "secret", "signing", "encryption", "client", "master"))
"""Words that make a following ``key`` a secret (``api_key``, ``private-key`` …)."""
_KIND_WORDS = frozenset((
    "source", "type", "kind", "count", "counts", "length", "limit", "budget", "usage", "expires", "expiry", "at",
    "url", "uri", "endpoint", "path", "file", "name", "id", "env", "var", "required", "enabled", "status",
    "mode", "method", "scheme", "header", "provider", "format",
))  # fmt: skip
"""A last word that says what kind of thing a name is about (``apiKeySource``), not a secret."""
_MAX_DEPTH = 40
_MAX_JSON_TEXT = 1 << 20
"""Longer JSON-looking strings are not parsed (only the text rules apply)."""

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"


class _Patterns:
    """The regular expressions, compiled on first use (``import claude_sync`` stays cheap)."""

    def __init__(self) -> None:
        self.words = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
        self.token_shapes = re.compile(
            r"\b(?:sk-ant-[\w\-]+|sk-(?:proj-|svcacct-)?[\w\-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
            r"|glpat-[\w\-]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}\b|eyJ[\w\-]{8,}\.eyJ[\w\-]{8,}\.[\w\-]+)"
        )
        self.auth_scheme = re.compile(
            r"\b((?i:bearer))(\s+)(?!<redacted>)[A-Za-z0-9._~+/=\-]+"
            r"|\b(Basic)(\s+)(?=[A-Za-z0-9+/]*[0-9+/=]|[A-Za-z][A-Za-z0-9+/]*[A-Z])[A-Za-z0-9+/]{8,}={0,2}"  # base64, not prose
        )
        self.url_password = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]*:)[^\s/@]+(@)")
        self.all_values_object = re.compile(r'"(?i:env|headers)"\s*:\s*\{[^{}]*\}')  # inside text that is not JSON
        self.json_string_value = re.compile(r'("(?:[^"\\]|\\.)*"\s*:\s*)"(?:[^"\\]|\\.)*"')
        self.json_pair = re.compile(r'"(' + _NAME + r')"(\s*:\s*)"(?:[^"\\]|\\.)*"')
        self.assignment = re.compile(
            r"(?<![\w\-])(-{0,2}" + _NAME + r")(=|:[ \t]*)(?![\s\"'<]|//|(?i:bearer|basic)\b)([^\s\"'&,;?#]+)"
        )
        self.flag_value = re.compile(r"(?<![\w\-])(--?" + _NAME + r")([ \t]+)(?![\-<])([^\s\"'&,;]+)")


_compiled: List[_Patterns] = []


def _patterns() -> _Patterns:
    if not _compiled:
        _compiled.append(_Patterns())
    return _compiled[0]


def is_secret_name(name: str) -> bool:
    """Whether a key, header, variable or flag named ``name`` holds a secret."""
    words = [w.lower() for w in _patterns().words.findall(name)]
    if not words or words[-1] in _KIND_WORDS:
        return False
    for index, word in enumerate(words):
        if word in _SECRET_WORDS:
            return True
        if word == "key" and index > 0 and words[index - 1] in _KEY_QUALIFIERS:
            return True
        if word.endswith("apikey") or word.endswith("token"):  # ANTHROPICAPIKEY, GHTOKEN
            return True
    return False


def redact(value: Any, depth: int = 0) -> Any:
    """``value`` (dicts, lists, tuples and strs, at any depth) with secrets replaced by
    ``REDACTED``: a new object, or ``value`` itself when nothing needed redacting."""
    if isinstance(value, str):
        return redact_text(value, depth)
    if depth > _MAX_DEPTH:
        return REDACTED if isinstance(value, (dict, list, tuple)) else value
    if isinstance(value, dict):
        return _redact_dict(value, depth)
    if isinstance(value, (list, tuple)):
        return _redact_sequence(value, depth)
    return value


def _redact_dict(value: Dict[Any, Any], depth: int) -> Dict[Any, Any]:
    out: Optional[Dict[Any, Any]] = None
    for key, item in value.items():
        if isinstance(key, str) and key.lower() in _ALL_VALUES and isinstance(item, dict):
            hidden = any(v is not None and v != REDACTED for v in item.values())
            new: Any = {k: (REDACTED if v is not None else v) for k, v in item.items()} if hidden else item
        elif isinstance(key, str) and is_secret_name(key):
            new = _redact_all(item, depth + 1)
        else:
            new = redact(item, depth + 1)
        if new is not item and out is None:
            out = dict(value)
        if out is not None:
            out[key] = new
    return value if out is None else out


def _redact_sequence(value: Any, depth: int) -> Any:
    items: List[Any] = list(value)
    changed = False
    secret_next = False
    for index, item in enumerate(items):
        if secret_next and isinstance(item, str) and item and not item.startswith("-"):
            new: Any = REDACTED
        else:
            new = redact(item, depth + 1)
        secret_next = isinstance(item, str) and item.startswith("-") and "=" not in item and is_secret_name(item)
        if new is not item:
            items[index] = new
            changed = True
    if not changed:
        return value
    return items if isinstance(value, list) else type(value)(items) if type(value) is tuple else tuple(items)


def _redact_all(value: Any, depth: int) -> Any:
    """Every string in ``value`` redacted (the value of a secret-named key)."""
    if isinstance(value, str):
        return REDACTED if value else value
    if depth > _MAX_DEPTH:
        return REDACTED
    if isinstance(value, dict):
        return {k: _redact_all(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact_all(v, depth + 1) for v in value) if type(value) in (list, tuple) else value
    return value


def redact_text(text: str, depth: int = 0) -> str:
    """``text`` with secrets replaced (the text rules of the module docstring)."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and len(stripped) <= _MAX_JSON_TEXT and depth <= _MAX_DEPTH:
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, (dict, list)):
            cleaned = redact(parsed, depth + 1)
            if cleaned is parsed:
                return text
            try:
                return json.dumps(cleaned, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError):
                pass
    return _redact_plain(text)


def _redact_plain(text: str) -> str:
    if not text:
        return text
    p = _patterns()
    text = p.token_shapes.sub(REDACTED, text)
    text = p.auth_scheme.sub(lambda m: f"{m.group(1) or m.group(3)}{m.group(2) or m.group(4)}{REDACTED}", text)
    text = p.url_password.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", text)
    text = p.all_values_object.sub(lambda m: p.json_string_value.sub(rf'\1"{REDACTED}"', m.group(0)), text)
    text = p.json_pair.sub(_json_pair, text)
    text = p.assignment.sub(_named_value, text)
    return p.flag_value.sub(_named_value, text)


def _json_pair(match: re.Match[str]) -> str:
    if not is_secret_name(match.group(1)):
        return match.group(0)
    return f'"{match.group(1)}"{match.group(2)}"{REDACTED}"'


def _named_value(match: re.Match[str]) -> str:
    name = match.group(1).lstrip("-")
    if not is_secret_name(name) or match.group(3) == REDACTED:
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{REDACTED}"


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


class _RedactingFilter(logging.Filter):
    """Redacts every record of the ``claude_sync`` loggers before any handler sees it (the
    logging thread's, only for records that pass the level check). A record logged with
    ``extra={"claude_sync_redacted": True}`` (the wire log: already redacted) is left alone."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "claude_sync_redacted", False):
            return True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format is logging's to report
            return True
        cleaned = redact_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        record.claude_sync_redacted = True
        return True


LOG_FILTER = _RedactingFilter()


def redacted_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with ``LOG_FILTER`` on it: what every module of claude_sync
    logs through."""
    logger = logging.getLogger(name)
    logger.addFilter(LOG_FILTER)
    return logger
