"""Reading the CLI's JSONL session transcripts, sans I/O: text in, entries and metadata out.

The CLI writes one JSON object per line to ``<config>/projects/<project>/<session>.jsonl``:
messages (``user``, ``assistant``, ``system``, ``attachment``, ``progress``, each with a
``uuid`` and a ``parentUuid`` link) and metadata lines (``custom-title``, ``ai-title``,
``tag``, ``last-prompt``, ``summary``, ``content-replacement``, …). What is derived here
matches the official SDK:

- *Listing* never parses a whole file: the first and last 64 KiB (``head``/``tail``) are
  scanned for ``"key":"value"`` pairs. The title is the last ``customTitle`` (else
  ``aiTitle``); the summary is the title, else the last ``lastPrompt``, else the last
  ``summary``, else the first real user prompt. Sidechain files (a first line with
  ``"isSidechain":true``) and files with nothing to show are not listed.
- *Reading messages* (``transcript_messages``) parses every line, keeps the transcript
  types that carry a ``uuid``, and walks the ``parentUuid`` chain back from the newest leaf.

Lines of types this module does not know (a newer CLI) are skipped like metadata, never an
error. Everything here is pure; the file access is in ``claude_sync._sessions.transcript_files``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Dict, Iterable, List, Optional, Pattern, Tuple

from .types import SDKSessionInfo

__all__ = [
    "HEAD_TAIL_BYTES",
    "Lite",
    "entries_to_jsonl",
    "first_prompt",
    "is_message_entry",
    "json_line",
    "iso_to_ms",
    "lite_from_jsonl",
    "require_uuid",
    "sanitize_path",
    "session_info",
    "valid_uuid",
]

HEAD_TAIL_BYTES = 65536
"""How much of each end of a transcript listing reads (the official SDK's window)."""

MAX_SANITIZED_LENGTH = 200
TRANSCRIPT_TYPES = frozenset(("user", "assistant", "progress", "system", "attachment"))

_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>")
_NOT_A_PROMPT = re.compile(
    r"^(?:<local-command-stdout>|<session-start-hook>|<tick>|<goal>|"
    r"\[Request interrupted by user[^\]]*\]|"
    r"\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$|"
    r"\s*<ide_selection>[\s\S]*</ide_selection>\s*$)"
)
_PROMPT_LIMIT = 200


# ---------------------------------------------------------------------------- ids and paths


def valid_uuid(value: object) -> bool:
    return isinstance(value, str) and _UUID_RE.match(value) is not None


def require_uuid(value: object, what: str = "session_id") -> str:
    """``value`` if it is a UUID string; else ``ValueError`` naming ``what`` and the value."""
    if not valid_uuid(value):
        raise ValueError(f"{what} must be a UUID, got {value!r}")
    return str(value)


def _js_hash36(text: str) -> str:
    """The CLI's 32-bit string hash (``h = h*31 + c`` in int32), absolute, in base 36."""
    h = 0
    for ch in text:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    h = abs(h)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        h, rest = divmod(h, 36)
        out = digits[rest] + out
        if h == 0:
            return out


def sanitize_path(path: str) -> str:
    """The project folder name the CLI uses for ``path``: every non-alphanumeric character
    becomes ``-``; past 200 characters the name is cut and a hash of the full path appended."""
    name = _NOT_ALNUM.sub("-", path)
    if len(name) <= MAX_SANITIZED_LENGTH:
        return name
    return f"{name[:MAX_SANITIZED_LENGTH]}-{_js_hash36(path)}"


# ---------------------------------------------------------------------------- field scans

_FIELD_PATTERNS: Dict[str, Pattern[str]] = {}


def _field_pattern(key: str) -> Pattern[str]:
    pattern = _FIELD_PATTERNS.get(key)
    if pattern is None:
        pattern = re.compile('"' + re.escape(key) + r'": ?"((?:[^"\\]|\\.)*)"')
        _FIELD_PATTERNS[key] = pattern
    return pattern


def _unescape(raw: str) -> str:
    if "\\" not in raw:
        return raw
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return value if isinstance(value, str) else raw


def first_field(text: str, key: str) -> Optional[str]:
    """The first complete ``"key":"value"`` string in ``text`` (no JSON parse; works on a
    window cut mid-line), or None."""
    match = _field_pattern(key).search(text)
    return _unescape(match.group(1)) if match else None


def last_field(text: str, key: str) -> Optional[str]:
    """Like ``first_field`` but the last occurrence (searched backwards: listing calls this
    for several keys on every file, and keys like ``gitBranch`` occur on every line)."""
    tight, spaced = f'"{key}":"', f'"{key}": "'
    pattern = _field_pattern(key)
    end = len(text)
    while True:
        at = max(text.rfind(tight, 0, end), text.rfind(spaced, 0, end))
        if at < 0:
            return None
        match = pattern.match(text, at)
        if match:
            return _unescape(match.group(1))
        end = at  # a value cut off by the window: the one before it counts


# ---------------------------------------------------------------------------- first prompt


def _user_texts(entry: Dict[str, Any]) -> List[str]:
    message = entry.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]


def _has_tool_result(entry: Dict[str, Any]) -> bool:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def prompt_candidate(entry: Dict[str, Any]) -> Tuple[Optional[str], Optional[str]]:
    """``(prompt, command)`` a user entry offers as the session's first prompt: a real prompt
    (newlines flattened, cut to 200 characters), or the name of a slash command as fallback."""
    if entry.get("type") != "user" or entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
        return None, None
    if _has_tool_result(entry):
        return None, None
    command = None
    for raw in _user_texts(entry):
        text = raw.replace("\n", " ").strip()
        if not text:
            continue
        named = _COMMAND_NAME.search(text)
        if named:
            command = command or named.group(1)
            continue
        if _NOT_A_PROMPT.match(text):
            continue
        if len(text) > _PROMPT_LIMIT:
            text = text[:_PROMPT_LIMIT].rstrip() + "\u2026"
        return text, command
    return None, command


def first_prompt(head: str) -> str:
    """The first real user prompt in a transcript's head ('' if none; a slash command's name
    if that is all there is)."""
    command = ""
    start = 0
    while True:
        at = head.find('"user"', start)
        if at < 0:
            return command
        line_start = head.rfind("\n", 0, at) + 1
        line_end = head.find("\n", at)
        line = head[line_start : line_end if line_end >= 0 else len(head)]
        start = line_end + 1 if line_end >= 0 else len(head)
        if '"tool_result"' in line:
            continue
        if '"type":"user"' not in line and '"type": "user"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # the window's cut-off last line, or a corrupt one
        if not isinstance(entry, dict):
            continue
        prompt, named = prompt_candidate(entry)
        if prompt:
            return prompt
        command = command or (named or "")


# ---------------------------------------------------------------------------- listing


class Lite:
    """The cheap view of one transcript listing works from: both ends, size, mtime (ms)."""

    __slots__ = ("head", "tail", "size", "mtime")

    def __init__(self, head: str, tail: str, size: int, mtime: int) -> None:
        self.head = head
        self.tail = tail
        self.size = size
        self.mtime = mtime


def iso_to_ms(value: object) -> Optional[int]:
    """An ISO-8601 timestamp (``Z`` allowed) as epoch milliseconds, or None."""
    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value).timestamp() * 1000)
    except ValueError:
        return None


def _tag(tail: str) -> Optional[str]:
    """The tag of the last ``{"type":"tag"…`` line (a bare ``"tag"`` scan would also match
    tool inputs such as ``git tag``)."""
    start = tail.rfind('\n{"type":"tag"') + 1
    if start == 0 and not tail.startswith('{"type":"tag"'):
        return None
    end = tail.find("\n", start)
    return last_field(tail[start : end if end >= 0 else len(tail)], "tag") or None


def session_info(session_id: str, lite: Lite, project_path: Optional[str] = None) -> Optional[SDKSessionInfo]:
    """The listing row of one transcript, or None for a sidechain or a file with nothing to
    show (no title, prompt or summary)."""
    head, tail = lite.head, lite.tail
    first_line = head.split("\n", 1)[0]
    if '"isSidechain":true' in first_line or '"isSidechain": true' in first_line:
        return None
    both = tail is not head  # a small file: one window serves as both
    title = (
        last_field(tail, "customTitle") or (both and last_field(head, "customTitle"))
        or last_field(tail, "aiTitle") or (both and last_field(head, "aiTitle")) or None
    )  # fmt: skip
    prompt = first_prompt(head) or None
    summary = title or last_field(tail, "lastPrompt") or last_field(tail, "summary") or prompt
    if not summary:
        return None
    return SDKSessionInfo(
        session_id=session_id,
        summary=summary,
        last_modified=lite.mtime,
        file_size=lite.size,
        custom_title=title,
        first_prompt=prompt,
        git_branch=last_field(tail, "gitBranch") or first_field(head, "gitBranch") or None,
        cwd=first_field(head, "cwd") or project_path or None,
        tag=_tag(tail),
        created_at=iso_to_ms(first_field(head, "timestamp")),
    )


def lite_from_jsonl(jsonl: str, mtime: int) -> Lite:
    """The listing view of an in-memory transcript (a store's), byte for byte as from disk."""
    data = jsonl.encode("utf-8")
    head = data[:HEAD_TAIL_BYTES].decode("utf-8", "replace")
    tail = data[-HEAD_TAIL_BYTES:].decode("utf-8", "replace") if len(data) > HEAD_TAIL_BYTES else head
    return Lite(head, tail, len(data), mtime)


def entries_to_jsonl(entries: Iterable[Any]) -> str:
    """Entries as the JSONL the CLI would write: compact, ``type`` first (stores may reorder
    keys, and the tag scan looks for lines starting ``{"type":"tag"``)."""
    lines = []
    for entry in entries:
        if isinstance(entry, dict) and "type" in entry:
            entry = {"type": entry["type"], **entry}
        lines.append(json.dumps(entry, separators=(",", ":")))  # ASCII, as the official store path
    return "\n".join(lines) + "\n"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_line(value: Any) -> str:
    """``value`` as compact JSON text that UTF-8 can carry: non-ASCII stays as it is, a lone
    surrogate (a transcript may hold one, written by the CLI as ``\\ud83d``) is written as
    its ``\\uXXXX`` escape again, so the text encodes and reads back to the same value.
    Raises what ``json.dumps`` raises."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_message_entry(entry: Any) -> bool:
    """A message line: a dict of a known transcript type with a string ``uuid``, and a
    ``parentUuid`` and ``logicalParentUuid`` that are each a string, null or absent. Anything
    else (a hand edit, a broken writer) is not part of the conversation and is skipped."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("type"), str)
        and entry["type"] in TRANSCRIPT_TYPES
        and isinstance(entry.get("uuid"), str)
        and (entry.get("parentUuid") is None or isinstance(entry.get("parentUuid"), str))
        and (entry.get("logicalParentUuid") is None or isinstance(entry.get("logicalParentUuid"), str))
    )


def last_timestamp_ms(entries: List[Any]) -> Optional[int]:
    """The last entry's ``timestamp`` in epoch ms (a store session's mtime), or None."""
    last = entries[-1] if entries else None
    return iso_to_ms(last.get("timestamp")) if isinstance(last, dict) else None
