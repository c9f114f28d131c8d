"""``SQLiteSessionStore``: a ``SessionStore`` in one SQLite file (standard library only).

Safe from several threads and several processes at once:

- one connection per store object, used under a lock (``sqlite3`` connections must not be
  used by two threads at the same time); in a child forked after the store was made (a
  ``multiprocessing`` or gunicorn prefork worker) the store opens a connection of its own on
  its first call there — SQLite forbids carrying one across ``fork`` — and a fresh lock;
- the file is in WAL mode, so readers never block the writer and vice versa; writers in
  other processes wait up to ``busy_timeout`` seconds for the write lock, then the call
  raises ``sqlite3.OperationalError`` ("database is locked");
- ``append`` is one ``BEGIN IMMEDIATE`` transaction: its entries, the session's mtime and
  its running summary (``fold_session_summary``) change together or not at all, so a
  concurrent ``append`` can never interleave inside a batch or lose a summary update.

Entries carrying a ``uuid`` are idempotent per transcript (a retried batch adds nothing
twice); entries without one are always added. mtimes are epoch ms from the wall clock,
forced to increase per transcript.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

from ..._options.timeouts import checked_seconds
from ..summary import fold_session_summary
from ..transcript import json_line
from ..types import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)

__all__ = ["SQLiteSessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL,
    uuid TEXT, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_key ON entries (project_key, session_id, subpath, seq);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_uuid ON entries (project_key, session_id, subpath, uuid)
    WHERE uuid IS NOT NULL;
CREATE TABLE IF NOT EXISTS transcripts (
    project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL,
    mtime INTEGER NOT NULL, created INTEGER NOT NULL,
    PRIMARY KEY (project_key, session_id, subpath)
);
CREATE TABLE IF NOT EXISTS summaries (
    project_key TEXT NOT NULL, session_id TEXT NOT NULL, mtime INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (project_key, session_id)
);
"""


class SQLiteSessionStore:
    """A ``SessionStore`` in the SQLite file ``path`` (created if missing). Any thread.

    ``busy_timeout`` (seconds) bounds the wait for another process's write lock. Call
    ``close()`` (or use ``with``) when done; the store is unusable afterwards.

    Attributes:
        path: The database file.
    """

    def __init__(self, path: Union[str, Path], *, busy_timeout: float = 30.0) -> None:
        self.path = str(path)
        self._busy_timeout = checked_seconds("SQLiteSessionStore busy_timeout", busy_timeout)
        self._lock = threading.Lock()
        self._inherited: List[sqlite3.Connection] = []  # a parent's connections, never used or closed here
        self._db: Optional[sqlite3.Connection] = self._open()
        self._pid = os.getpid()
        _stores.add(self)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)  # idempotent (IF NOT EXISTS), safe to race
        except BaseException:
            db.close()
            raise
        return db

    def __enter__(self) -> SQLiteSessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (idempotent). A connection inherited from a parent process is
        left alone."""
        with self._lock:
            if self._db is not None and self._pid == os.getpid():
                self._db.close()
            self._db = None

    def _conn(self) -> sqlite3.Connection:
        """The connection (``_lock`` held). In a child forked after the store was made, a new
        one: SQLite forbids using a connection across ``fork`` (its locks are per process)."""
        if self._db is None:
            raise ValueError(f"SQLiteSessionStore({self.path!r}) is closed")
        if self._pid != os.getpid():
            self._inherited.append(self._db)
            self._db = self._open()
            self._pid = os.getpid()
        return self._db

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()  # a parent thread may have held it at the fork

    # ---------------------------------------------------------------- writes

    def append(self, key: SessionKey, entries: List[SessionStoreEntry]) -> None:
        """Add ``entries`` after those under ``key`` in one transaction (an entry whose ``uuid`` is
        already stored is skipped, so a retry is harmless) and update the session's summary. Raises
        ``ValueError`` once the store is closed, ``sqlite3.Error`` when the database fails.
        """
        if not entries:
            return
        pk, sid, sub = key["project_key"], key["session_id"], key.get("subpath") or ""
        rows = [(pk, sid, sub, _uuid_of(e), json_line(e)) for e in entries]
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT OR IGNORE INTO entries (project_key, session_id, subpath, uuid, body) VALUES (?, ?, ?, ?, ?)", rows
                )
                mtime = self._stamp(db, pk, sid, sub)
                if not sub:
                    self._fold(db, key, entries, mtime)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    @staticmethod
    def _stamp(db: sqlite3.Connection, pk: str, sid: str, sub: str) -> int:
        row = db.execute(
            "SELECT mtime FROM transcripts WHERE project_key=? AND session_id=? AND subpath=?", (pk, sid, sub)
        ).fetchone()
        now = int(time.time() * 1000)
        if row is not None:
            now = max(now, int(row[0]) + 1)
        db.execute(
            "INSERT INTO transcripts (project_key, session_id, subpath, mtime, created) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime=excluded.mtime",
            (pk, sid, sub, now, now),
        )
        return now

    @staticmethod
    def _fold(db: sqlite3.Connection, key: SessionKey, entries: List[SessionStoreEntry], mtime: int) -> None:
        pk, sid = key["project_key"], key["session_id"]
        row = db.execute("SELECT mtime, data FROM summaries WHERE project_key=? AND session_id=?", (pk, sid)).fetchone()
        prev: Optional[SessionSummaryEntry] = None
        if row is not None:
            prev = {"session_id": sid, "mtime": int(row[0]), "data": json.loads(row[1])}
        folded = fold_session_summary(prev, key, entries)
        db.execute(
            "INSERT OR REPLACE INTO summaries (project_key, session_id, mtime, data) VALUES (?, ?, ?, ?)",
            (pk, sid, mtime, json_line(folded["data"])),
        )

    def delete(self, key: SessionKey) -> None:
        """Remove ``key``; without a ``subpath`` also the session's subagent transcripts and summary.
        Raises ``ValueError`` once the store is closed, ``sqlite3.Error`` when the database fails.
        """
        pk, sid, sub = key["project_key"], key["session_id"], key.get("subpath") or ""
        where = "project_key=? AND session_id=?" + (" AND subpath=?" if sub else "")
        args = (pk, sid, sub) if sub else (pk, sid)
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(f"DELETE FROM entries WHERE {where}", args)
                db.execute(f"DELETE FROM transcripts WHERE {where}", args)
                if not sub:
                    db.execute("DELETE FROM summaries WHERE project_key=? AND session_id=?", (pk, sid))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    # ---------------------------------------------------------------- reads

    def _query(self, sql: str, args: Tuple[Any, ...]) -> List[Any]:
        with self._lock:
            return self._conn().execute(sql, args).fetchall()

    def load(self, key: SessionKey) -> Optional[List[SessionStoreEntry]]:
        """Every entry under ``key`` in append order, or None if nothing was stored there. Raises
        ``ValueError`` once the store is closed, ``sqlite3.Error`` when the database fails.
        """
        rows = self._query(
            "SELECT body FROM entries WHERE project_key=? AND session_id=? AND subpath=? ORDER BY seq",
            (key["project_key"], key["session_id"], key.get("subpath") or ""),
        )
        if not rows:
            return None
        return [json.loads(body) for (body,) in rows]

    def list_sessions(self, project_key: str) -> List[SessionStoreListEntry]:
        """The main transcripts of ``project_key`` with their mtimes (epoch milliseconds). Raises
        ``ValueError`` once the store is closed, ``sqlite3.Error`` when the database fails.
        """
        rows = self._query("SELECT session_id, mtime FROM transcripts WHERE project_key=? AND subpath=''", (project_key,))
        return [{"session_id": sid, "mtime": int(mtime)} for sid, mtime in rows]

    def list_session_summaries(self, project_key: str) -> List[SessionSummaryEntry]:
        """The running summaries of ``project_key``'s sessions. Raises ``ValueError`` once the store is
        closed, ``sqlite3.Error`` when the database fails.
        """
        rows = self._query("SELECT session_id, mtime, data FROM summaries WHERE project_key=?", (project_key,))
        return [{"session_id": sid, "mtime": int(mtime), "data": json.loads(data)} for sid, mtime, data in rows]

    def list_subkeys(self, key: SessionListSubkeysKey) -> List[str]:
        """The subpaths stored under a session, oldest first (never the main transcript). Raises
        ``ValueError`` once the store is closed, ``sqlite3.Error`` when the database fails.
        """
        rows = self._query(
            "SELECT subpath FROM transcripts WHERE project_key=? AND session_id=? AND subpath!='' ORDER BY created, subpath",
            (key["project_key"], key["session_id"]),
        )
        return [sub for (sub,) in rows]


def _uuid_of(entry: Any) -> Optional[str]:
    value = entry.get("uuid") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None


_stores: weakref.WeakSet[SQLiteSessionStore] = weakref.WeakSet()


def _reset_stores_in_child() -> None:
    for store in list(_stores):
        store._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_stores_in_child)
