"""The one redactor: secrets out of everything claude_sync shows, logs or writes.

Redaction is by knowledge first (``secrets``): the secret values a run holds are collected
where they enter and removed *by value* from every outward path. A redacted value becomes
``'<redacted>'``; keys stay, so a reader still sees what is set. Three entry points, by what
the text is:

- ``redact(value)`` — *configuration* (``repr(options)``, the config parts of control
  frames, record fields): known values, and structure — every value of an ``env`` or
  ``headers`` mapping, every string under a key that names a secret (``is_secret_name``),
  the argument after a flag that names one (``is_secret_flag``), JSON text parsed and
  redacted the same way. Catches values shorter than ``MIN_SECRET_LENGTH`` too.
- ``redact_frame(frame)`` — a *wire frame* (the wire log, recordings, a replay's
  comparison): known values everywhere; ``redact``'s structure only inside the config of
  control frames (``env``, ``headers``, ``settings``, ``servers``, ``mcpServers``,
  ``config``), never inside what the model or the user wrote (messages, tool input, hook
  input, MCP messages, prompts).
- ``redact_text(text)`` — *text from the CLI or from failing code*, where no value can be
  known (``ClaudeSDKError`` text with the CLI's stderr tail, a non-JSON stdout line, a
  callback's exception): known values, JSON text as ``redact``, then the pattern pass
  (``_Patterns``: well-known key shapes, ``Authorization:`` headers, ``Bearer``/``Token``
  credentials, URL userinfo and secret query parameters, PEM private keys, and
  ``name=value`` / ``name: "value"`` / ``--flag value`` where the name names a secret and the
  value is not a literal such as ``None``, ``true`` or ``null``).

Model and user text (message reprs, HTML, Markdown, ``show()``; recordings; logs through
``LOG_FILTER``) is only ever ``scrub``-bed: changed where a known value stands, nowhere else.

``redact`` returns its argument itself when nothing needed redacting (no copy). Pure module;
its patterns are compiled on first use.
"""

from __future__ import annotations

import json
import logging
from dataclasses import fields
from typing import Any, Dict, List, Optional

REDACTED = "<redacted>"

__all__ = [
    "LOG_FILTER", "REDACTED", "is_secret_name", "redact", "redact_frame", "redact_text", "redacted_logger",
    "redacted_repr", "scrub", "scrub_value", "redacted_excerpt",
]  # fmt: skip

def is_secret_name(name: str) -> bool:
    """Whether a key, header, variable or flag named ``name`` holds a secret
    (``patterns.is_secret_name``)."""
    from .patterns import is_secret_name as check

    return check(name)


def scrub(text: str) -> str:
    """``text`` with every known secret value replaced (``secrets.scrub``)."""
    from .secrets import scrub as scrub_known

    return scrub_known(text)


def scrub_value(value: Any) -> Any:
    """``value`` with ``scrub`` applied to every string in it (``secrets.scrub_value``)."""
    from .secrets import scrub_value as scrub_known

    return scrub_known(value)


_ALL_VALUES = frozenset(("env", "headers"))
"""Mapping keys whose every value is redacted."""
_CONFIG_KEYS = frozenset(("env", "headers", "settings", "servers", "mcpservers", "mcp_servers", "config"))
"""Where a control frame carries config (``redact_frame``)."""
_WORDS_KEYS = frozenset((
    "message", "content", "input", "tool_input", "tool_response", "prompt", "text", "result", "updatedinput",
))  # fmt: skip
"""Where a frame carries what the model or the user wrote: known values only."""
_MAX_DEPTH = 40
_MAX_JSON_TEXT = 1 << 20
"""Longer JSON-looking strings are not parsed (only the text rules apply)."""

# ----------------------------------------------------------------------------- structures


def redact(value: Any, depth: int = 0) -> Any:
    """Config ``value`` (dicts, lists, tuples and strs, at any depth) with secrets replaced by
    ``REDACTED`` (known values and structure; see the module docstring): a new object, or
    ``value`` itself when nothing needed redacting."""
    if isinstance(value, str):
        return _redact_config_text(value, depth)
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
    from .patterns import is_secret_flag

    items: List[Any] = list(value)
    changed = False
    secret_next = False
    for index, item in enumerate(items):
        if secret_next and isinstance(item, str) and item and not item.startswith("-"):
            new: Any = REDACTED
        else:
            new = redact(item, depth + 1)
        secret_next = isinstance(item, str) and "=" not in item and is_secret_flag(item) and item != "-H"
        if isinstance(item, str) and item.startswith("-") and "=" in item:
            flag, _, joined = item.partition("=")
            if joined and is_secret_flag(flag) and joined != REDACTED:
                new = f"{flag}={REDACTED}"
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


def _parsed_json(text: str, depth: int) -> Any:
    """``text`` parsed when it is a JSON object or array (else None)."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "[") or len(stripped) > _MAX_JSON_TEXT or depth > _MAX_DEPTH:
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def _redact_json_text(text: str, depth: int) -> Optional[str]:
    """``text`` redacted as a structure when it is JSON (written back only if anything
    changed), else None."""
    parsed = _parsed_json(text, depth)
    if parsed is None:
        return None
    cleaned = redact(parsed, depth + 1)
    if cleaned is parsed:
        return text
    try:
        return json.dumps(cleaned, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _redact_config_text(text: str, depth: int) -> str:
    structured = _redact_json_text(text, depth)
    text = structured if structured is not None else text
    from .patterns import redact_urls

    text = scrub(text)
    return redact_urls(text) if structured is None else text  # a URL of config: userinfo, secret query


def redact_frame(frame: Any, depth: int = 0, config: bool = False) -> Any:
    """A wire frame (a parsed stdout/stdin line) with known values replaced everywhere, and
    ``redact``'s structure applied inside the config of control frames only (see the
    module docstring): a new object, or ``frame`` itself when nothing changed."""
    if depth == 0 and isinstance(frame, dict):
        config = str(frame.get("type", "")).startswith("control_")
    if not config or depth > _MAX_DEPTH:
        return scrub_value(frame)
    if isinstance(frame, dict):
        out: Optional[Dict[Any, Any]] = None
        for key, item in frame.items():
            lowered = key.lower() if isinstance(key, str) else ""
            if lowered in _WORDS_KEYS:
                new = scrub_value(item)
            elif lowered in _CONFIG_KEYS:
                new = redact({key: item}, depth)[key]
            else:
                new = redact_frame(item, depth + 1, True)
            if new is not item and out is None:
                out = dict(frame)
            if out is not None:
                out[key] = new
        return frame if out is None else out
    if isinstance(frame, list):
        items = [redact_frame(item, depth + 1, True) for item in frame]
        return frame if all(a is b for a, b in zip(items, frame)) else items
    return scrub_value(frame)


# ----------------------------------------------------------------------------- text


def redact_text(text: str, depth: int = 0) -> str:
    """Text from the CLI or from failing code with secrets replaced: known values, JSON text
    as a structure, then the pattern pass (see the module docstring)."""
    structured = _redact_json_text(text, depth)
    if structured is not None:
        return structured
    from .patterns import redact_patterns

    return redact_patterns(scrub(text))


def redacted_excerpt(text: str, limit: int, from_end: bool = False) -> str:
    """At most ``limit`` characters of ``text`` (its start, or its end with ``from_end``), ``…``
    marking the cut, with secrets removed **before** the cut: a cut through a secret would
    leave a part of it that no longer matches its value. Any thread; raises nothing."""
    clean = redact_text(text)
    if len(clean) <= limit:
        return clean
    return "…" + clean[len(clean) - limit + 1 :] if from_end else clean[: limit - 1] + "…"


# ----------------------------------------------------------------------------- reprs and logs


def redacted_repr(options: Any) -> str:
    """``ClassName(field=value, …)`` like the dataclass repr, with ``redact`` applied and
    every ``env`` value hidden. Collects the secrets ``options`` holds first
    (``secrets.remember_options``), so they are known to every other path from now on."""
    from .patterns import is_secret_flag
    from .secrets import remember_options

    remember_options(options)
    parts = []
    for spec in fields(options):
        if not spec.repr:
            continue
        value = getattr(options, spec.name)
        if spec.name == "env" and isinstance(value, dict):
            shown: Any = {key: REDACTED for key in value}
        elif spec.name == "extra_args" and isinstance(value, dict):
            shown = {k: (REDACTED if v is not None and is_secret_flag(f"--{str(k).lstrip('-')}") else redact(v))
                     for k, v in value.items()}  # fmt: skip
        else:
            shown = redact(value)
        parts.append(f"{spec.name}={shown!r}")
    return f"{type(options).__qualname__}({', '.join(parts)})"


class _FailureText:
    """An exception as a log argument: its ``str``/``repr`` through ``redact_text`` (text of
    failing code, where no value can be known)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __str__(self) -> str:
        return redact_text(str(self.error))

    def __repr__(self) -> str:
        return redact_text(repr(self.error))


class _RedactingFilter(logging.Filter):
    """Redacts every record of the ``claude_sync`` loggers before any handler sees it (the
    logging thread's, only for records that pass the level check): the known secret values
    (``scrub``) out of the message; exceptions among its arguments and its traceback
    (``exc_info``) are failure text and get ``redact_text``. A record logged with
    ``extra={"claude_sync_redacted": True}`` (the wire log: already redacted) is left alone.
    Call sites that log other text from the CLI apply ``redact_text`` themselves."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "claude_sync_redacted", False):
            return True
        try:
            if isinstance(record.args, tuple) and any(isinstance(a, BaseException) for a in record.args):
                record.args = tuple(_FailureText(a) if isinstance(a, BaseException) else a for a in record.args)
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format is logging's to report
            return True
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        record.claude_sync_redacted = True
        return True


LOG_FILTER = _RedactingFilter()


def redacted_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with ``LOG_FILTER`` on it: what every module of claude_sync
    logs through."""
    logger = logging.getLogger(name)
    logger.addFilter(LOG_FILTER)
    return logger
