"""Running session summaries for stores (pure): ``fold_session_summary`` and its reader.

A store calls ``fold_session_summary`` inside ``append`` to keep one small summary per
session, so listing a project costs one ``list_session_summaries`` call instead of a
``load`` per session. Every field folds incrementally (first-wins or last-wins), so a store
never re-reads old entries. ``data`` is ours: stores persist it verbatim.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .transcript import iso_to_ms, prompt_candidate
from .types import SDKSessionInfo, SessionKey, SessionStoreEntry, SessionSummaryEntry

__all__ = ["fold_session_summary", "summary_to_info"]

_LAST_WINS = (
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
)


def fold_session_summary(
    prev: Optional[SessionSummaryEntry], key: SessionKey, entries: List[SessionStoreEntry]
) -> SessionSummaryEntry:
    """``prev`` (None for a new session) with ``entries`` folded in; a new dict, ``prev`` is
    not changed. ``mtime`` is kept from ``prev`` (0 for a new session): the store stamps its
    own write time after persisting. Call it only for keys without a ``subpath``."""
    if prev is None:
        data: Dict[str, Any] = {}
        summary: SessionSummaryEntry = {"session_id": key["session_id"], "mtime": 0, "data": data}
    else:
        data = dict(prev["data"])
        summary = {"session_id": prev["session_id"], "mtime": prev["mtime"], "data": data}
    for raw in entries:
        entry: Dict[str, Any] = dict(raw)
        data.setdefault("is_sidechain", entry.get("isSidechain") is True)
        if "created_at" not in data:
            ms = iso_to_ms(entry.get("timestamp"))
            if ms is not None:
                data["created_at"] = ms
        if "cwd" not in data and isinstance(entry.get("cwd"), str) and entry["cwd"]:
            data["cwd"] = entry["cwd"]
        if not data.get("first_prompt_locked"):
            prompt, command = prompt_candidate(entry)
            if prompt:
                data["first_prompt"] = prompt
                data["first_prompt_locked"] = True
            elif command and not data.get("command_fallback"):
                data["command_fallback"] = command
        for source, target in _LAST_WINS:
            if isinstance(entry.get(source), str):
                data[target] = entry[source]
        if entry.get("type") == "tag":
            tag = entry.get("tag")
            if isinstance(tag, str) and tag:
                data["tag"] = tag
            else:
                data.pop("tag", None)
    return summary


def summary_to_info(summary: SessionSummaryEntry, project_path: Optional[str]) -> Optional[SDKSessionInfo]:
    """The listing row a summary gives, or None (sidechain, or nothing to show) — the same
    rule as listing from files."""
    data = summary["data"]
    if data.get("is_sidechain"):
        return None
    prompt = (data.get("first_prompt") if data.get("first_prompt_locked") else data.get("command_fallback")) or None
    title = data.get("custom_title") or data.get("ai_title") or None
    shown = title or data.get("last_prompt") or data.get("summary_hint") or prompt
    if not shown:
        return None
    return SDKSessionInfo(
        session_id=summary["session_id"],
        summary=shown,
        last_modified=summary["mtime"],
        file_size=None,
        custom_title=title,
        first_prompt=prompt,
        git_branch=data.get("git_branch") or None,
        cwd=data.get("cwd") or project_path or None,
        tag=data.get("tag") or None,
        created_at=data.get("created_at"),
    )
