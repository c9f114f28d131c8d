"""``InMemorySessionStore``: the reference ``SessionStore``, in a dict (tests, development).

Thread-safe (one lock around every method); entries are copied in and out through JSON, so
a caller mutating what it appended or loaded never changes the store, and anything that is
not JSON is refused at ``append`` (``TypeError``) as a real backend would.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from ..summary import fold_session_summary
from ..types import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)

__all__ = ["InMemorySessionStore"]

_Slot = Tuple[str, str, str]  # project_key, session_id, subpath ("" for the main transcript)


def _slot(key: SessionKey) -> _Slot:
    return (key["project_key"], key["session_id"], key.get("subpath") or "")


class InMemorySessionStore:
    """A ``SessionStore`` kept in memory; lost when the process ends. Any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: Dict[_Slot, List[str]] = {}  # slot -> the JSON text of each entry
        self._mtimes: Dict[_Slot, int] = {}
        self._summaries: Dict[Tuple[str, str], SessionSummaryEntry] = {}
        self._last_mtime = 0

    def _tick(self) -> int:
        """Epoch ms, strictly increasing across calls (so back-to-back writes differ)."""
        now = max(int(time.time() * 1000), self._last_mtime + 1)
        self._last_mtime = now
        return now

    def append(self, key: SessionKey, entries: List[SessionStoreEntry]) -> None:
        """Add ``entries`` after those under ``key`` (copies of them) and update the session's summary.
        Any thread.
        """
        if not entries:
            return
        texts = [json.dumps(entry) for entry in entries]
        copied: List[SessionStoreEntry] = [json.loads(text) for text in texts]
        slot = _slot(key)
        with self._lock:
            self._entries.setdefault(slot, []).extend(texts)
            now = self._tick()
            self._mtimes[slot] = now
            if not slot[2]:
                folded = fold_session_summary(self._summaries.get(slot[:2]), key, copied)
                folded["mtime"] = now
                self._summaries[(slot[0], slot[1])] = folded

    def load(self, key: SessionKey) -> Optional[List[SessionStoreEntry]]:
        """Copies of every entry under ``key`` in append order, or None if nothing was stored there.
        """
        with self._lock:
            texts = self._entries.get(_slot(key))
            texts = None if texts is None else list(texts)
        if texts is None:
            return None
        return [json.loads(text) for text in texts]

    def list_sessions(self, project_key: str) -> List[SessionStoreListEntry]:
        """The main transcripts of ``project_key`` with their mtimes (epoch milliseconds)."""
        with self._lock:
            return [
                {"session_id": sid, "mtime": self._mtimes[(pk, sid, sub)]}
                for (pk, sid, sub) in self._entries
                if pk == project_key and not sub
            ]

    def list_session_summaries(self, project_key: str) -> List[SessionSummaryEntry]:
        """The running summaries of ``project_key``'s sessions (copies)."""
        with self._lock:
            return [json.loads(json.dumps(s)) for (pk, _), s in self._summaries.items() if pk == project_key]

    def delete(self, key: SessionKey) -> None:
        """Remove ``key``; without a ``subpath`` also the session's subagent transcripts and summary.
        """
        slot = _slot(key)
        with self._lock:
            doomed = [s for s in self._entries if s[:2] == slot[:2] and (not slot[2] or s[2] == slot[2])]
            for s in doomed:
                del self._entries[s]
                del self._mtimes[s]
            if not slot[2]:
                self._summaries.pop((slot[0], slot[1]), None)

    def list_subkeys(self, key: SessionListSubkeysKey) -> List[str]:
        """The subpaths stored under a session (never the main transcript)."""
        with self._lock:
            return [s[2] for s in self._entries if s[0] == key["project_key"] and s[1] == key["session_id"] and s[2]]

    # -- test helpers (the official store has them too)

    def get_entries(self, key: SessionKey) -> List[Any]:
        """Every entry under ``key`` ([] when none)."""
        return list(self.load(key) or [])

    @property
    def size(self) -> int:
        """How many main transcripts the store holds."""
        with self._lock:
            return sum(1 for s in self._entries if not s[2])

    def clear(self) -> None:
        """Remove everything (a test helper)."""
        with self._lock:
            self._entries.clear()
            self._mtimes.clear()
            self._summaries.clear()
