"""The archived mark of a session: its file format and when it still holds (pure, no I/O).

The mark is ``<project folder>/<session_id>/archived.json`` beside the transcript (the TS SDK's
``archiveSession`` / ``unarchiveSession`` write it; CLI 2.1.332 reads it), one JSON object::

    {"archived":true,"at":"2026-11-27T13:50:49.396Z","by":"sdk"}

``at`` is when it was set (ISO 8601 with ``Z`` or an offset), ``by`` who set it (``"sdk"``,
or ``"cli"`` when the CLI cleared it). A file over 4096 bytes, not JSON, or without a boolean
``archived`` and a valid ``at`` counts as no mark at all (as the TS SDK reads it).

When a mark no longer holds: a session marked archived reads as not archived once its
transcript (the head or tail window that a listing reads) has a prompt typed later than
``at``: a ``user`` line that is not a tool result, meta, compact summary, sidechain or
virtual line, whose ``origin`` (if any) is ``human`` and whose text is a real prompt (not a
slash command's output or a caveat), or a ``queued_command`` attachment likewise. CLI 2.1.332
also rewrites the mark itself to ``{"archived":false,…,"by":"cli"}`` when such a prompt
arrives; older CLIs (2.1.197) leave the file alone, and this rule still reads the session as
unarchived.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple

from .transcript import iso_to_ms, prompt_candidate

__all__ = [
    "ARCHIVE_FILE", "RECORD_LIMIT", "archived_state", "iso_with_offset_ms", "parse_record", "prompt_time_ms", "record_text",
]  # fmt: skip

ARCHIVE_FILE = "archived.json"
RECORD_LIMIT = 4096
"""A mark file larger than this many bytes is not read (the TS SDK's limit)."""

_ISO_WITH_OFFSET = re.compile(
    r"^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d)"
    r"(?::([0-5]\d)(?:\.(\d+))?)?(Z|([+-])(\d{2}):?(\d{2}))$"
)
_TURN_ORIGINS = ("human", "sdk", "unknown")
_FALSE_OR_ABSENT = (
    "isCompactSummary", "isSidechain", "isVirtual", "isVisibleInTranscriptOnly", "isMeta", "textNotTyped",
    "handedOff", "queueSkipAttachments",
)  # fmt: skip


def record_text(archived: bool, at: str, by: str = "sdk") -> str:
    """The mark file's text, compact as the TS SDK writes it."""
    return json.dumps({"archived": archived, "at": at, "by": by}, separators=(",", ":"))


def parse_record(data: bytes) -> Optional[Tuple[bool, int]]:
    """``(archived, at in epoch ms)`` from a mark file's bytes, or None when it is no mark
    (too large, not JSON, ``archived`` not a boolean, ``at`` not an ISO time with offset)."""
    if len(data) > RECORD_LIMIT:
        return None
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    archived, at = value.get("archived"), value.get("at")
    at_ms = iso_with_offset_ms(at)
    if not isinstance(archived, bool) or at_ms is None:
        return None
    return archived, at_ms


def iso_with_offset_ms(value: object) -> Optional[int]:
    """An ISO 8601 date-time with ``Z`` or an offset (any fraction of a second) as epoch
    milliseconds, or None (Python 3.9's ``fromisoformat`` takes neither ``+0530`` nor a
    fraction of other than 3 or 6 digits, so the parts are taken apart here)."""
    match = _ISO_WITH_OFFSET.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    minute, second, fraction, zone, sign, hours, minutes = match.groups()
    offset = "+00:00" if zone == "Z" else f"{sign}{hours}:{minutes}"
    micro = (fraction or "0")[:6].ljust(6, "0")
    try:
        moment = datetime.fromisoformat(f"{minute}:{second or '00'}{offset}")  # whole seconds: exact
    except ValueError:  # a day the month lacks, an offset beyond 23:59
        return None
    return (int(moment.timestamp()) * 1000) + int(micro) // 1000


def _false_or_absent(entry: Dict[str, Any], *keys: str) -> bool:
    return all(entry.get(key, False) is False for key in keys)


def _blocks(content: Any) -> List[Dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in content):
        return content
    return []


def _prompt_parts(entry: Dict[str, Any]) -> Optional[Tuple[Any, Any]]:
    """``(content, origin)`` of a line shaped like a prompt, else None."""
    if not isinstance(entry.get("timestamp"), str):
        return None
    if entry.get("type") == "user":
        message = entry.get("message")
        turn_origin = entry.get("turnOrigin")
        if (
            not isinstance(message, dict) or "content" not in message
            or not _false_or_absent(entry, *_FALSE_OR_ABSENT)
            or entry.get("persist") is not None or entry.get("toolUseResult") is not None
            or entry.get("wakeupSource") is not None or entry.get("scheduledTaskId") is not None
            or (turn_origin is not None and turn_origin not in _TURN_ORIGINS)
            or ("promptSource" in entry and not isinstance(entry["promptSource"], str))
        ):  # fmt: skip
            return None
        return message["content"], entry.get("origin")
    if entry.get("type") == "attachment" and _false_or_absent(entry, "isSidechain"):
        attachment = entry.get("attachment")
        if (
            not isinstance(attachment, dict) or attachment.get("type") != "queued_command"
            or not _false_or_absent(attachment, "isMeta")
            or attachment.get("commandMode", "prompt") not in ("prompt", "bash")
        ):  # fmt: skip
            return None
        return attachment.get("prompt"), attachment.get("origin")
    return None


def prompt_time_ms(entry: Dict[str, Any]) -> Optional[int]:
    """When ``entry`` (one transcript line) is a prompt typed into the session, its time in
    epoch ms; else None."""
    parts = _prompt_parts(entry)
    if parts is None:
        return None
    content, origin = parts
    if origin is not None and (not isinstance(origin, dict) or not isinstance(origin.get("kind"), str)):
        return None
    if origin is not None and origin["kind"] != "human":
        return None
    blocks = _blocks(content)
    if any(b["type"] == "tool_result" for b in blocks):
        return None
    texts = [b["text"].lstrip() if isinstance(b.get("text"), str) else "" for b in blocks]
    if origin is not None:
        typed = any(texts) and not any(t.startswith("<command-name>") for t in texts)
    else:
        prompt, _ = prompt_candidate({"type": "user", "message": {"content": content}})
        typed = prompt is not None or any(t.startswith("<command-message>") for t in texts)
    if not (typed or any(b["type"] in ("image", "document") for b in blocks)):
        return None
    stamp = entry["timestamp"]
    exact = iso_with_offset_ms(stamp)
    return exact if exact is not None else iso_to_ms(stamp)


def _prompted_after(text: str, at_ms: int) -> bool:
    for line in text.split("\n"):
        if ('"user"' not in line and '"queued_command"' not in line) or '"tool_result"' in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            when = prompt_time_ms(entry)
            if when is not None and when > at_ms:
                return True
    return False


def archived_state(record: Optional[Tuple[bool, int]], head: str, tail: str) -> Optional[bool]:
    """What a listing says of a session: None (never marked), False (unarchived, or a prompt
    typed after the mark), True (archived)."""
    if record is None:
        return None
    archived, at_ms = record
    if not archived:
        return False
    return not (_prompted_after(tail, at_ms) or (head is not tail and head != tail and _prompted_after(head, at_ms)))
