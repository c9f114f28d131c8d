"""The secret values claude_sync knows, and removing them from text by value (pure).

The redactor does not guess: the secrets a run holds are *collected where they enter*
(``ClaudeAgentOptions`` construction and ``repr``, spawn planning, the control methods that
send config) into one process-wide registry, and ``scrub`` replaces every occurrence of a
known value — whatever text it sits in, model output included — by ``<redacted>``. Text
without a known value is never changed.

What is collected (``remember_options``, ``remember_env``, ``remember_config``):

- the value of an environment variable whose name names a secret (``is_secret_name``:
  ``ANTHROPIC_API_KEY``, ``PGPASSWORD``, ``GITHUB_TOKEN`` …): ``options.env``, an MCP
  server's ``env``, a settings ``env`` block, and at spawn the inherited environment;
- every value of an MCP server's (or any config's) ``headers`` but a few public ones
  (``Accept``, ``Content-Type``, ``User-Agent`` …); a header value ``Scheme credential``
  gives the credential alone too;
- every string under a key that names a secret (``apiKeyHelper``, ``password``, ``token`` …);
- in argument lists (MCP ``args``, ``extra_args``): the value after, or ``=``-joined to, a
  flag that names a secret (``is_secret_flag``: also ``--key``, ``--auth-header``, ``-H``
  carrying ``Authorization: …``), and ``NAME=value`` / ``Name: value`` items whose name
  names a secret;
- in any string of that config: URL userinfo (``https://user:PASS@h``; a lone
  ``https://TOKEN@h`` is the token) and secret query parameters (``?key=``, ``?token=`` …);
  what the pattern pass (``patterns``) finds in it (``sh -c 'PGPASSWORD="…" psql'``,
  ``Authorization: Digest …``); a string holding a JSON object or array is parsed and
  collected as config. Prose fields (an agent's ``prompt``, ``description``) are skipped.

Each value is stored with the forms it takes on the way out: JSON-escaped (once and twice,
ASCII and not) and URL-encoded (``quote`` and ``quote_plus``).

Limits, and why:

- ``MIN_SECRET_LENGTH`` (8): shorter values are not removed from free text — ``"x"``,
  ``"1"`` or ``"true"`` would eat letters out of every sentence. They stay hidden where
  structure says what they are (``repr(options)``: env values, secret-named keys, args after
  a secret flag; ``redactor.redact``).
- ``MAX_SECRET_LENGTH`` (64 KiB): longer strings are documents, not secrets.
- Lifetime: process-wide and add-only. A secret stays a secret after its options object is
  gone — a traceback, a late log record or a recording written after ``close()`` may still
  carry it, and those paths have no options object to ask. Memory is the values themselves
  (a few forms each); a process that builds options with a fresh token per request keeps
  every token (never dropped: dropping one would leak it).

Threads: any thread. Values live in a dict (a single ``__setitem__`` per form, atomic);
the matchers are extended from a snapshot when the count changed and swapped in whole. The
registry only grows, in insertion order, so matchers that cover ``n`` forms are current
while the count is ``n``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterable, List, Optional, Pattern, Tuple

from .patterns import REDACTED, SECRET_QUERY_NAMES, is_secret_flag, is_secret_name, redact_patterns

__all__ = [
    "MAX_SECRET_LENGTH",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "is_secret_flag",
    "is_secret_name",
    "known_count",
    "percent_encoded",
    "remember",
    "remember_config",
    "remember_env",
    "remember_options",
    "scrub",
    "scrub_value",
]

MIN_SECRET_LENGTH = 8
"""Known values shorter than this are not removed from free text (see the module docstring)."""
MAX_SECRET_LENGTH = 64 * 1024

_PUBLIC_HEADERS = frozenset((
    "accept", "accept-encoding", "accept-language", "content-type", "user-agent", "cache-control",
    "mcp-protocol-version", "connection", "host", "origin", "referer",
))  # fmt: skip
_PROSE_KEYS = frozenset(("prompt", "description", "system_prompt", "append", "instructions"))
_MAX_DEPTH = 40
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://[^\s\"'<>`]+")
_NAMED = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*(?:=|:)\s*(.+?)\s*$", re.S)
_AUTH_PARAM = re.compile(r"([A-Za-z][\w\-]*)=\"?([^\s\",]+)")
_SECRET_PARAMS = frozenset(("response", "cnonce", "nonce", "sig", "signature", "opaque"))
_SCHEME_VALUE = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_\-]*\s+(\S.*?)\s*$", re.S)

_known: Dict[str, None] = {}
_state: Tuple[int, Tuple[Tuple[List[str], Pattern[str]], ...]] = (0, ())
"""How many forms (in insertion order) the matchers cover, and the matchers (``_current``)."""


# ----------------------------------------------------------------------------- the registry


def remember(value: Any) -> None:
    """Add ``value`` (a str; anything else is ignored) and its escaped forms to the registry,
    unless it is shorter than ``MIN_SECRET_LENGTH`` or longer than ``MAX_SECRET_LENGTH``."""
    if not isinstance(value, str):
        return
    for candidate in {value, value.strip()}:
        if candidate in _known:  # its other forms were added with it
            continue
        if MIN_SECRET_LENGTH <= len(candidate) <= MAX_SECRET_LENGTH and candidate != REDACTED:
            for form in _forms(candidate):
                if form not in _known:
                    _known[form] = None


def _forms(value: str) -> Iterable[str]:
    yield value
    try:
        escaped = json.dumps(value)[1:-1]
        plain = json.dumps(value, ensure_ascii=False)[1:-1]
        yield from (escaped, plain, json.dumps(escaped)[1:-1], json.dumps(plain, ensure_ascii=False)[1:-1])
        yield percent_encoded(value)
        yield percent_encoded(value, plus=True)
        yield percent_encoded(value, safe="/")
    except (UnicodeEncodeError, ValueError):  # a lone surrogate: the value itself is stored
        return


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_PERCENT = tuple(chr(byte) if byte in _UNRESERVED else f"%{byte:02X}" for byte in range(256))


def percent_encoded(value: str, *, safe: str = "", plus: bool = False) -> str:
    """``value`` URL-encoded as ``urllib.parse.quote(value, safe)`` writes it (``plus``: as
    ``quote_plus(value, safe)``), without loading ``urllib.parse`` (it loads ``ipaddress``:
    every process that knows a secret would pay for it). Only the ASCII characters of
    ``safe`` are kept, as there. Pure; raises ``UnicodeEncodeError`` on a lone surrogate, as
    ``quote`` does."""
    kept = {ord(char): char for char in safe if char.isascii()}
    if plus:
        kept[0x20] = "+"
    return "".join(kept.get(byte) or _PERCENT[byte] for byte in value.encode("utf-8"))


def known_count() -> int:
    """How many forms of known values the registry holds."""
    return len(_known)


def _current() -> Tuple[Tuple[List[str], Pattern[str]], ...]:
    """The matchers of every known form: a few patterns, each over a contiguous run of the
    registry's insertion order, merged like a binary counter (a new value compiles a small
    pattern; sizes double as they merge), so adding values one by one costs O(n log n)
    compiling, not O(n²)."""
    global _state
    built, levels = _state
    if built == len(_known):
        return levels
    forms = list(_known)  # one C-level copy: atomic against a concurrent remember()
    runs: List[Tuple[List[str], Optional[Pattern[str]]]] = [*levels, (forms[built:], None)]
    while len(runs) >= 2 and len(runs[-2][0]) <= 2 * len(runs[-1][0]):
        newer, older = runs.pop(), runs.pop()
        runs.append((older[0] + newer[0], None))
    compiled = tuple(
        (run, pattern if pattern is not None else re.compile("|".join(map(re.escape, sorted(run, key=len, reverse=True)))))
        for run, pattern in runs
    )  # the longest form first within a pattern; across patterns the spans are merged
    _state = (len(forms), compiled)
    return compiled


def scrub(text: str) -> str:
    """``text`` with every known value replaced by ``REDACTED`` (where known values overlap,
    the union of their places); ``text`` itself when it holds none (nothing else is ever
    changed)."""
    if not _known or not text:
        return text
    spans: List[Tuple[int, int]] = []
    for _, pattern in _current():
        spans += [match.span() for match in pattern.finditer(text)]
    if not spans:
        return text
    spans.sort()
    out: List[str] = []
    position = 0
    start, end = spans[0]
    for next_start, next_end in spans[1:]:
        if next_start <= end:
            end = max(end, next_end)
            continue
        out += [text[position:start], REDACTED]
        position, (start, end) = end, (next_start, next_end)
    out += [text[position:start], REDACTED, text[end:]]
    return "".join(out)


def scrub_value(value: Any, depth: int = 0) -> Any:
    """``value`` (strs, and dicts / lists / tuples of them at any depth) with ``scrub`` applied
    to every string, keys too: a new object, or ``value`` itself when nothing changed."""
    if isinstance(value, str):
        return scrub(value)
    if not _known or depth > _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        out: Optional[Dict[Any, Any]] = None
        for key, item in value.items():
            new_key, new = scrub_value(key, depth + 1), scrub_value(item, depth + 1)
            if out is None and (new is not item or new_key is not key):
                out = {}
                for done_key, done in value.items():
                    if done_key is key:
                        break
                    out[done_key] = done
            if out is not None:
                out[new_key] = new
        return value if out is None else out
    if isinstance(value, (list, tuple)):
        items = [scrub_value(item, depth + 1) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value


# ----------------------------------------------------------------------------- collecting


def remember_env(env: Any) -> None:
    """The values of ``env`` (a mapping of variables) whose names name a secret; the URL
    secrets (userinfo, secret query parameters) of every other value."""
    if not env or not isinstance(env, Mapping):
        return
    for name, value in list(env.items()):
        if not isinstance(value, str):
            continue
        if isinstance(name, str) and is_secret_name(name):
            _remember_secret(value)
        elif isinstance(name, str) and name.upper().endswith("_HEADERS"):
            _remember_header_list(value)
        else:
            _remember_in_string(value, 0)


def _remember_header_list(value: str) -> None:
    """A variable that carries request headers (``ANTHROPIC_CUSTOM_HEADERS``: ``Name: value``
    lines; ``OTEL_EXPORTER_OTLP_HEADERS``: ``name=value,…``): every value but the public
    headers', as MCP ``headers`` are treated."""
    from urllib.parse import unquote

    for item in re.split(r"[\r\n,]+", value):
        colon = ":" in item.split("=", 1)[0]
        name, separator, header = item.partition(":") if colon else item.partition("=")
        header = header.strip() if colon else unquote(header.strip())  # OTLP's form is URL-encoded
        if separator and header and name.strip().lower() not in _PUBLIC_HEADERS:
            _remember_secret(header)


def remember_config(value: Any, depth: int = 0) -> None:
    """The secrets of a config structure (MCP servers, settings, agents …; see the module
    docstring). Strings that hold JSON are parsed; nothing is read from files."""
    if depth > _MAX_DEPTH or value is None or value == ():
        return
    if isinstance(value, str):
        _remember_in_string(value, depth)
    elif isinstance(value, Mapping):
        for key, item in list(value.items()):
            lowered = key.lower() if isinstance(key, str) else ""
            if lowered == "env":
                remember_env(item)
            elif lowered == "headers" and isinstance(item, Mapping):
                for name, header in list(item.items()):
                    if isinstance(header, str) and not (isinstance(name, str) and name.lower() in _PUBLIC_HEADERS):
                        _remember_secret(header)
            elif lowered and is_secret_name(key):
                _remember_all(item, depth + 1)
            elif lowered in _PROSE_KEYS:  # an agent's prompt: words, not config
                continue
            else:
                remember_config(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        _remember_args(value, depth)
    elif hasattr(value, "__dataclass_fields__"):  # AgentDefinition and other records
        remember_config({name: getattr(value, name, None) for name in value.__dataclass_fields__}, depth + 1)


def _remember_args(items: Any, depth: int) -> None:
    after: Optional[str] = None  # the secret flag the previous item was
    for item in list(items):
        if isinstance(item, str):
            if after is not None and not item.startswith("-") and not _is_header_flag(after):
                _remember_secret(item)
            flag, equals, joined = item.partition("=")
            if equals and flag.startswith("-") and is_secret_flag(flag) and not _is_header_flag(flag):
                _remember_secret(joined)
            after = item if not equals and is_secret_flag(item) else None
            _remember_named(joined if equals and flag.startswith("-") else item)
        else:
            after = None
        remember_config(item, depth + 1)


def _is_header_flag(flag: str) -> bool:
    """``-H`` / ``--header``: the value is a header line, a secret only when its name is one."""
    return flag == "-H" or flag.lstrip("-").lower() == "header"


def _remember_named(item: str) -> None:
    """``NAME=value`` / ``Name: value`` (an env assignment, a header line) whose name names a
    secret: the value."""
    match = _NAMED.match(item)
    if match and is_secret_name(match.group(1)):
        _remember_secret(match.group(2).strip("\"'"))


def _remember_secret(value: str) -> None:
    """A value known to be a secret: itself, its credential part (``Scheme credential``), and
    its URL secrets."""
    remember(value)
    match = _SCHEME_VALUE.match(value)
    if match:
        remember(match.group(1))
        for name, param in _AUTH_PARAM.findall(match.group(1)):  # Digest response="…", Signature sig=…
            if name.lower() in _SECRET_PARAMS or is_secret_name(name):
                remember(param)
    _remember_in_string(value, 0)


def _remember_all(value: Any, depth: int) -> None:
    if isinstance(value, str):
        _remember_secret(value)
    elif depth <= _MAX_DEPTH and isinstance(value, Mapping):
        for item in list(value.values()):
            _remember_all(item, depth + 1)
    elif depth <= _MAX_DEPTH and isinstance(value, (list, tuple)):
        for item in list(value):
            _remember_all(item, depth + 1)


def _remember_in_string(text: str, depth: int) -> None:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and len(stripped) <= MAX_SECRET_LENGTH * 16:
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, (dict, list)):
            remember_config(parsed, depth + 1)
            return
    if "://" in text:
        for url in _URL.findall(text):
            _remember_url(url)
    if len(text) < MIN_SECRET_LENGTH + 2:  # no room for a name or scheme and a secret
        return
    found: List[str] = []
    redact_patterns(text, found)  # a secret the user wrote into config text by its shape
    for value in found:
        remember(value)


def _remember_url(url: str) -> None:
    if "@" not in url and "?" not in url:  # no user info, no query: nothing to look at
        return
    from urllib.parse import parse_qsl, urlsplit  # loads ipaddress: only for a URL that may hold one

    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, colon, password = userinfo.partition(":")
        remember(password if colon else user)
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if is_secret_name(name) or name.lower() in SECRET_QUERY_NAMES:
            remember(value)


def remember_options(options: Any, read_text: Optional[Callable[[str], str]] = None) -> None:
    """The secrets ``options`` (a ``ClaudeAgentOptions``) holds: ``env``, ``mcp_servers``
    (dict, JSON text, or with ``read_text`` a file), ``settings`` (same), ``extra_args``,
    ``agents``, ``plugins``, ``sandbox``. ``read_text(path)`` reads a file (spawn planning
    passes one; construction does not read files); a file it cannot read is skipped."""
    remember_env(getattr(options, "env", None))
    for name in ("mcp_servers", "settings"):
        value = getattr(options, name, None)
        if value is None or (isinstance(value, dict) and not value):
            continue
        text = value if isinstance(value, str) else None
        if text is None and hasattr(value, "__fspath__"):
            text = str(value.__fspath__())
        if text is not None and text.strip()[:1] not in ("{", "[") and read_text is not None:
            text = _read(read_text, text.strip(), getattr(options, "cwd", None))
        remember_config(text if text is not None else value)
    extra = getattr(options, "extra_args", None)
    if extra and isinstance(extra, Mapping):
        flags: List[Any] = []
        for flag, value in list(extra.items()):
            flags += [f"--{str(flag).lstrip('-')}", value]
        remember_config(flags)
    for name in ("agents", "plugins", "sandbox"):
        value = getattr(options, name, None)
        if value:
            remember_config(value)


def _read(read_text: Callable[[str], str], path: str, cwd: Any) -> Optional[str]:
    try:
        return read_text(os.path.join(os.fspath(cwd or ""), path))
    except (OSError, ValueError, TypeError):
        return None
