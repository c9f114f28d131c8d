"""The transcript edits, sans I/O: fork, and the metadata lines rename and tag append.

A fork copies the main chain's entries (sidechains dropped, ``progress`` entries used only to
link parents and then dropped) up to and including ``up_to_message_id``, under fresh UUIDs
and a fresh session id, each marked ``forkedFrom`` its original; only the last entry gets a
new timestamp (the CLI's resume picks the newest leaf). ``content-replacement`` records of
the source are carried over, and a ``custom-title`` line names the fork: the given title, or
the source's title (else first prompt) + " (fork)". The new ids and the clock come from the
caller, so everything here is deterministic under test.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Callable, Dict, List, Optional, Tuple

from .transcript import first_prompt, is_message_entry, last_field

__all__ = ["custom_title_entry", "fork_entries", "fork_source", "sanitize_tag", "source_title", "tag_entry", "title_from_entries"]

Entry = Dict[str, Any]
_LEAKY_FIELDS = ("teamName", "agentName", "slug", "sourceToolAssistantUUID")


def fork_source(entries: List[Any], session_id: str) -> Tuple[List[Entry], List[Any]]:
    """The message entries of a transcript, and the replacements its ``content-replacement``
    records (for ``session_id``) hold."""
    messages: List[Entry] = []
    replacements: List[Any] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if is_message_entry(entry):
            messages.append(entry)
        elif kind == "content-replacement" and entry.get("sessionId") == session_id and isinstance(entry.get("replacements"), list):
            replacements.extend(entry["replacements"])
    return messages, replacements


def source_title(head: str, tail: str) -> Optional[str]:
    """The title a fork derives from (custom title, AI title, first prompt), from the ends of
    the source file."""
    return (
        last_field(tail, "customTitle") or last_field(head, "customTitle")
        or last_field(tail, "aiTitle") or last_field(head, "aiTitle") or first_prompt(head) or None
    )  # fmt: skip


def title_from_entries(entries: List[Any]) -> Optional[str]:
    """``source_title`` for a store's entries (last custom title, last AI title, first prompt)."""
    custom = ai = None
    for entry in entries:
        if isinstance(entry, dict):
            custom = entry.get("customTitle") if isinstance(entry.get("customTitle"), str) and entry["customTitle"] else custom
            ai = entry.get("aiTitle") if isinstance(entry.get("aiTitle"), str) and entry["aiTitle"] else ai
    if custom or ai:
        return str(custom or ai)
    jsonl = "\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
    return first_prompt(jsonl) or None


def fork_entries(
    messages: List[Entry],
    replacements: List[Any],
    session_id: str,
    *,
    up_to_message_id: Optional[str],
    title: Optional[str],
    derive_title: Callable[[], Optional[str]],
    new_id: Callable[[], str],
    now: str,
) -> Tuple[str, List[Entry]]:
    """``(fork_session_id, entries of the fork)``. Raises ``ValueError`` when there is nothing
    to fork or ``up_to_message_id`` is not in the transcript."""
    messages = [e for e in messages if not e.get("isSidechain")]
    if up_to_message_id:
        cut = next((i for i, e in enumerate(messages) if e.get("uuid") == up_to_message_id), None)
        if cut is None:
            raise ValueError(f"message {up_to_message_id} not found in session {session_id}")
        messages = messages[: cut + 1]
    kept = [e for e in messages if e.get("type") != "progress"]
    if not kept:
        raise ValueError(f"session {session_id} has no messages to fork")
    new_uuid = {e["uuid"]: new_id() for e in messages}
    by_uuid = {e["uuid"]: e for e in messages}
    fork_id = new_id()
    out: List[Entry] = []
    for i, original in enumerate(kept):
        logical = original.get("logicalParentUuid")
        entry = {
            **original,
            "uuid": new_uuid[original["uuid"]],
            "parentUuid": _new_parent(original, by_uuid, new_uuid),
            "logicalParentUuid": new_uuid.get(logical) if logical else logical,
            "sessionId": fork_id,
            "timestamp": now if i == len(kept) - 1 else original.get("timestamp", now),
            "isSidechain": False,
            "forkedFrom": {"sessionId": session_id, "messageUuid": original["uuid"]},
        }
        for name in _LEAKY_FIELDS:
            entry.pop(name, None)
        out.append(entry)
    if replacements:
        out.append({"type": "content-replacement", "sessionId": fork_id, "replacements": replacements, "uuid": new_id(), "timestamp": now})
    name = title.strip() if title else ""
    if not name:
        name = f"{derive_title() or 'Forked session'} (fork)"
    out.append({"type": "custom-title", "sessionId": fork_id, "customTitle": name, "uuid": new_id(), "timestamp": now})
    return fork_id, out


def _new_parent(entry: Entry, by_uuid: Dict[str, Entry], new_uuid: Dict[str, str]) -> Optional[str]:
    """The new id of the nearest non-progress ancestor (progress entries are not copied)."""
    parent_id = entry.get("parentUuid")
    while parent_id:
        parent = by_uuid.get(parent_id)
        if parent is None:
            return None
        if parent.get("type") != "progress":
            return new_uuid.get(parent_id)
        parent_id = parent.get("parentUuid")
    return None


def custom_title_entry(session_id: str, title: str) -> Entry:
    """The ``custom-title`` line ``rename_session`` appends. Raises ``ValueError`` for a blank title."""
    stripped = title.strip() if isinstance(title, str) else ""
    if not stripped:
        raise ValueError("title must be a non-empty string")
    return {"type": "custom-title", "customTitle": stripped, "sessionId": session_id}


def tag_entry(session_id: str, tag: Optional[str]) -> Entry:
    """The ``tag`` line ``tag_session`` appends (``""`` clears). Raises ``ValueError`` for a
    tag that is blank once sanitized."""
    if tag is not None:
        tag = sanitize_tag(tag)
        if not tag:
            raise ValueError("tag must be non-empty after sanitizing (use None to clear it)")
    return {"type": "tag", "tag": tag if tag is not None else "", "sessionId": session_id}


_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ue000-\uf8ff]")
_DROPPED_CATEGORIES = frozenset(("Cf", "Co", "Cn"))


def sanitize_tag(value: str) -> str:
    """NFKC-normalize and drop format, private-use and unassigned characters until stable
    (at most 10 rounds), then strip whitespace — what the CLI's tag filter expects."""
    current = value
    for _ in range(10):
        before = current
        current = unicodedata.normalize("NFKC", current)
        current = "".join(c for c in current if unicodedata.category(c) not in _DROPPED_CATEGORIES)
        current = _INVISIBLE.sub("", current)
        if current == before:
            break
    return current.strip()
