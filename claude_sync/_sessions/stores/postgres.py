"""``PostgresSessionStore``: a ``SessionStore`` in PostgreSQL, shared by processes and hosts.

Needs the ``postgres`` extra (``pip install -e '.[postgres]'`` in a checkout: psycopg 3, sync,
and ``psycopg_pool``). psycopg is imported when a store is made, never by ``import claude_sync``.

The store talks to the server through one of three things, given at construction:

- a conninfo string (``"postgresql://user@host/db"`` or ``"host=... dbname=..."``): the store
  opens one connection of its own on first use, uses it under a lock (one call at a time per
  store object), reconnects after the server went away, and closes it in ``close()``;
- a ``psycopg.Connection``: used under the same lock, never closed by the store. Each call is
  a transaction of the store's own on it (``BEGIN`` … ``COMMIT``, in autocommit mode or not),
  so it needs the connection idle when it runs: a call that finds a transaction open on it
  (``INTRANS``, ``INERROR``, or one another thread opens at the same moment) raises
  ``UsageError`` and does nothing. Never a savepoint inside the application's transaction:
  that would return normally and read back, then vanish with the application's rollback, and
  hold the session's advisory lock (every other writer of the session waiting) until the
  application's transaction ends. Give the store a connection the application does not run
  transactions on (an autocommit connection of its own), or better a conninfo or a pool;
- a ``psycopg_pool.ConnectionPool``: a connection is borrowed for each call (many calls at
  once), waiting at most ``connect_timeout`` for one.

A conninfo store made before a fork (gunicorn ``--preload``, a ``multiprocessing`` pool after a
warm-up) opens a connection of its own in the child on its first call there; the parent's is
left untouched (closing it in the child would end the parent's session). A caller's
connection or pool cannot be shared across a fork (psycopg's rule): make those in the child.

Every call is one transaction, committed when the call returns. ``append`` first takes a
transaction-level advisory lock on the session (``pg_advisory_xact_lock``), so appends to one
session are serialized across every process and host: an entry's position (``seq``) is drawn
after the lock and committed before it is released, so what a ``load`` returned is never later
preceded by something new — the order is stable and each writer's own order is kept. Entries
with a ``uuid`` are idempotent per transcript (``ON CONFLICT DO NOTHING``): a retried batch
adds nothing twice. mtimes are epoch ms from the *server's* clock (hosts may disagree), forced
to increase per transcript. Entries are stored as JSON text, not ``jsonb``: lossless for every
entry Python's ``json`` accepts (key order, ``\\u0000``, lone surrogates, big integers).

When a call's connection turns out dead before any statement of the call reached the server
(server restarted, idle connection cut), the call is tried again on another connection, until
a live one answers: a restart leaves every idle connection of a pool dead, so up to the pool's
``max_size`` + 1 tries (2 for the store's own connection), none started later than
``connect_timeout`` after the first failure. A caller's connection is not replaced. Any other
failure raises ``psycopg.Error`` (``OperationalError`` — ``psycopg_pool.PoolTimeout`` for a
pool — when the server cannot be reached within ``connect_timeout``); the session's mirror
then reports it (``mirror_error``) as for any store.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Tuple, TypeVar, Union

from ..._options.timeouts import checked_seconds, longest_wait
from ..._wire.errors import UsageError
from ..summary import fold_session_summary
from ..types import (
    SessionKey,
    SessionListSubkeysKey,
    SessionStoreEntry,
    SessionStoreListEntry,
    SessionSummaryEntry,
)

if TYPE_CHECKING:  # pragma: no cover
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["PostgresSessionStore"]

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,40}\Z")
_T = TypeVar("_T")
_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
_SCHEMA_LOCK = 0x636C_7379_6E63  # advisory lock key of create_schema ("clsync")

MAX_STATEMENT_SECONDS = 2_147_483
"""PostgreSQL's ``statement_timeout`` and ``lock_timeout`` are ints of milliseconds (at most 2**31 - 1)."""


def schema_sql(prefix: str) -> str:
    """The DDL of the store's three tables named ``<prefix>_entries``, ``<prefix>_transcripts``
    and ``<prefix>_summaries`` (idempotent: ``IF NOT EXISTS``), for migrations."""
    _check_prefix(prefix)
    return f"""
CREATE TABLE IF NOT EXISTS {prefix}_entries (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_key text NOT NULL, session_id text NOT NULL, subpath text NOT NULL,
    uuid text, body text NOT NULL
);
CREATE INDEX IF NOT EXISTS {prefix}_entries_by_key ON {prefix}_entries (project_key, session_id, subpath, seq);
CREATE UNIQUE INDEX IF NOT EXISTS {prefix}_entries_by_uuid ON {prefix}_entries (project_key, session_id, subpath, uuid)
    WHERE uuid IS NOT NULL;
CREATE TABLE IF NOT EXISTS {prefix}_transcripts (
    project_key text NOT NULL, session_id text NOT NULL, subpath text NOT NULL,
    mtime bigint NOT NULL, created bigint NOT NULL,
    PRIMARY KEY (project_key, session_id, subpath)
);
CREATE INDEX IF NOT EXISTS {prefix}_transcripts_by_mtime ON {prefix}_transcripts (project_key, subpath, mtime DESC, session_id);
CREATE TABLE IF NOT EXISTS {prefix}_summaries (
    project_key text NOT NULL, session_id text NOT NULL, mtime bigint NOT NULL, data text NOT NULL,
    PRIMARY KEY (project_key, session_id)
);
"""


def _check_prefix(prefix: object) -> None:
    if not isinstance(prefix, str) or not _IDENTIFIER.match(prefix):
        raise ValueError(f"table_prefix must match [a-z_][a-z0-9_]{{0,40}} (it names SQL tables), not {prefix!r}")


def _json_text(value: Any) -> str:
    """``value`` as compact JSON text that PostgreSQL's ``text`` accepts (UTF-8, no NUL):
    non-ASCII kept as is, unless it holds a lone surrogate, which only escaping can carry."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, separators=(",", ":"))
    return text


def _uuid_of(entry: Any) -> Optional[str]:
    value = entry.get("uuid") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise ImportError(
            "PostgresSessionStore needs psycopg 3 and psycopg_pool (the postgres extra): "
            "pip install 'psycopg[binary]>=3.1' 'psycopg_pool>=3.1'"
        ) from exc
    return psycopg


class PostgresSessionStore:
    """A ``SessionStore`` in a PostgreSQL database. Any thread; any number of processes.

    ``target``: a conninfo string, a ``psycopg.Connection`` or a
    ``psycopg_pool.ConnectionPool`` (the module docstring says who owns what).
    ``table_prefix`` names the tables (``<prefix>_entries`` …). With ``create_schema=True``
    the tables are created on the first call if missing (needs the CREATE privilege; call
    ``create_schema()`` or run ``schema_sql()`` yourself otherwise). ``connect_timeout``
    (seconds) bounds connecting and waiting for a pooled connection; ``statement_timeout``
    bounds every statement on the server, lock waits included.

    Raises ``TypeError`` for a ``target`` of another kind, ``ValueError`` for a bad prefix
    or timeout, ``ImportError`` when psycopg is not installed. Each call raises
    ``psycopg.Error``, ``ValueError`` after ``close()``, and — given a ``psycopg.Connection``
    — ``UsageError`` when it finds a transaction open on it (the call is committed on its own
    or not made; see the module docstring).

    Attributes:
        table_prefix: The prefix of the store's table names (``<prefix>_entries`` …).
        connect_timeout: Seconds connecting, or waiting for a pooled connection, may take.
        statement_timeout: Seconds any statement may take on the server, lock waits included.
    """

    def __init__(
        self,
        target: Union[str, psycopg.Connection[Any], ConnectionPool[Any]],
        *,
        table_prefix: str = "claude_sync",
        create_schema: bool = True,
        connect_timeout: float = 10.0,
        statement_timeout: float = 30.0,
    ) -> None:
        psycopg = _import_psycopg()
        _check_prefix(table_prefix)
        self.connect_timeout = checked_seconds("PostgresSessionStore connect_timeout", connect_timeout)
        self.statement_timeout = checked_seconds("PostgresSessionStore statement_timeout", statement_timeout)
        if self.statement_timeout > MAX_STATEMENT_SECONDS:  # the server's setting is an int of milliseconds
            raise ValueError(f"PostgresSessionStore statement_timeout must be at most {MAX_STATEMENT_SECONDS} seconds "
                             f"(PostgreSQL's statement_timeout limit), got {statement_timeout!r}")  # fmt: skip
        self.table_prefix = table_prefix
        self._pool: Optional[Any] = None
        self._conninfo: Optional[str] = None
        self._shared: Optional[Any] = None  # the caller's connection
        if isinstance(target, str):
            self._conninfo = target
        elif isinstance(target, psycopg.Connection):
            self._shared = target
        elif _is_pool(target):
            self._pool = target
        else:
            raise TypeError(
                "PostgresSessionStore needs a conninfo string, a psycopg.Connection or a "
                f"psycopg_pool.ConnectionPool, not {type(target).__name__}"
            )
        self._lock = threading.Lock()  # one call at a time on a single connection
        self._schema_lock = threading.Lock()  # one create_schema at a time in this process
        self._own: Optional[Any] = None  # the connection opened from the conninfo
        self._own_pid = 0  # the process that opened it
        self._inherited: List[Any] = []  # a parent's connections, kept from being finalized here
        self._closed = False
        self._schema_ready = not create_schema
        self._psycopg = psycopg
        t = table_prefix
        self._entries, self._transcripts, self._summaries = f"{t}_entries", f"{t}_transcripts", f"{t}_summaries"
        _stores.add(self)

    def __repr__(self) -> str:
        if self._pool is not None:
            via = f"pool {getattr(self._pool, 'name', '?')!r}"
        elif self._shared is not None:
            via = "a caller's connection"
        else:
            via = "its own connection"  # the conninfo may hold a password: never shown
        return f"<PostgresSessionStore {self.table_prefix}_* via {via}>"

    def __enter__(self) -> PostgresSessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store's own connection (idempotent). A caller's connection or pool is
        left open. The store is unusable afterwards (``ValueError``)."""
        with self._lock:
            self._closed = True
            own, self._own = self._own, None
        if own is not None and self._own_pid == os.getpid():  # a parent's is the parent's to close
            own.close()

    # ------------------------------------------------------------------ connections

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection for one call (the caller's thread). Raises ``ValueError`` when closed,
        ``psycopg.OperationalError`` when none can be had within ``connect_timeout``."""
        if self._closed:
            raise ValueError(f"{self!r} is closed")
        if self._pool is not None:
            with self._pool.connection(timeout=self.connect_timeout) as conn:
                yield conn
            return
        if not self._lock.acquire(timeout=longest_wait(self.connect_timeout + self.statement_timeout * 4)):
            raise TimeoutError(f"{self!r}: another thread held the connection too long")
        try:
            if self._closed:
                raise ValueError(f"{self!r} is closed")
            yield self._single_connection()
        finally:
            self._lock.release()

    def _single_connection(self) -> Any:
        if self._shared is not None:
            return self._shared
        if self._own is not None and self._own_pid != os.getpid():
            # Made before a fork: the socket is the parent's. Closing it here would send the
            # server a Terminate for the parent's session; it is kept, unused, unclosed.
            self._inherited.append(self._own)
            self._own = None
        if self._own is not None and (self._own.closed or self._own.broken):
            self._own.close()
            self._own = None
        if self._own is None:
            self._own = self._psycopg.Connection.connect(
                self._conninfo, autocommit=True, connect_timeout=max(1, min(round(self.connect_timeout), 2**31 - 1)),  # libpq: an int
                application_name="claude_sync session store",
            )
            self._own_pid = os.getpid()
        return self._own

    def _after_fork_in_child(self) -> None:
        """In a forked child: fresh locks (a parent thread may have held one at the fork)."""
        self._lock = threading.Lock()
        self._schema_lock = threading.Lock()

    def _call(self, body: Callable[[Any], _T], *, lock_key: Optional[Tuple[str, str]] = None) -> _T:
        """Run ``body(cursor)`` in one committed transaction, creating the schema first if
        needed (the caller's thread). See ``_run`` for the retries."""
        if not self._schema_ready:
            self.create_schema()
        return self._run(body, lock_key)

    def _run(self, body: Callable[[Any], _T], lock_key: Optional[Tuple[str, str]]) -> _T:
        """``body(cursor)`` in one transaction, committed when this returns. A connection found
        dead before any statement of the call reached the server (a restart, an idle
        connection cut) is replaced and the call tried again, until a live connection answers:
        at most ``_max_attempts()`` tries, and none started once ``connect_timeout`` has passed
        since the first failure. Raises ``psycopg.Error``, ``UsageError`` (a caller's
        connection with a transaction open), ``ValueError`` (closed)."""
        attempt, first_failure = 0, 0.0
        while True:
            attempt += 1
            conn: Any = None
            started = False
            try:
                with self._connection() as conn, self._transaction(conn), conn.cursor() as cur:
                    cur.execute(self._limits_sql())
                    started = True
                    if lock_key is not None:
                        cur.execute(
                            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (lock_key[0] + "\x1f" + lock_key[1],)
                        )
                    return body(cur)
            except self._psycopg.OperationalError:
                if started or not self._replaceable_and_dead(conn):
                    raise
                now = time.monotonic()
                first_failure = first_failure or now
                if attempt >= self._max_attempts() or now - first_failure > self.connect_timeout:
                    raise

    @contextmanager
    def _transaction(self, conn: Any) -> Iterator[None]:
        """A transaction of the store's own on ``conn``, committed at the end of the block.
        Raises ``UsageError`` for a caller's connection with a transaction open: the call
        would be a savepoint in it, undone by the application's rollback and holding the
        session's advisory lock until the application's transaction ends."""
        shared = self._shared is not None and conn is self._shared
        if shared:
            status = conn.info.transaction_status
            if status in (self._psycopg.pq.TransactionStatus.INTRANS, self._psycopg.pq.TransactionStatus.INERROR):
                raise self._refusal(status.name)
        with conn.transaction() as tx:
            if shared and tx.savepoint_name:  # another thread opened a transaction since the check
                raise self._refusal("opened by another thread")
            yield

    def _refusal(self, state: str) -> UsageError:
        return UsageError(
            f"{self!r}: the caller's psycopg connection has a transaction open ({state}). The store "
            "commits each call in a transaction of its own; inside the application's it would be "
            "undone by the application's rollback and would hold the session's lock until that "
            "transaction ends. Call the store when the connection is idle (an autocommit "
            "connection used for nothing else), or give it a conninfo string or a ConnectionPool."
        )

    def _limits_sql(self) -> str:
        ms = max(1, int(self.statement_timeout * 1000))
        return f"SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {ms}"

    def _replaceable_and_dead(self, conn: Any) -> bool:
        """After an OperationalError: whether ``conn`` is dead and the next try gets another
        one (the pool drops broken connections when they come back; the own connection is
        reopened; a caller's connection cannot be replaced). False when no connection was had
        at all (the server cannot be reached: the error stands)."""
        if conn is None or conn is self._shared:
            return False
        return bool(conn.closed or conn.broken)

    def _max_attempts(self) -> int:
        """Tries of one call: every idle connection of a pool may be dead (a restart cuts them
        all), then one fresh one; the own connection is reopened once."""
        if self._pool is not None:
            return int(getattr(self._pool, "max_size", 1)) + 1
        return 2

    def create_schema(self) -> None:
        """Create the tables and indexes if missing (idempotent; safe when many processes
        race: serialized by an advisory lock). The caller's thread. Raises ``psycopg.Error``
        (e.g. no privilege) and ``UsageError`` like any call."""

        def body(cur: Any) -> None:
            if not self._tables_exist(cur):
                # Checked again under the lock: DDL that found the tables there would still
                # take table locks, and deadlock with appends already running.
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                if not self._tables_exist(cur):
                    cur.execute(schema_sql(self.table_prefix))

        with self._schema_lock:
            self._run(body, None)
        self._schema_ready = True

    def _tables_exist(self, cur: Any) -> bool:
        """Whether the three tables are in the schema unqualified names create them in. A
        query of ``pg_class`` under this statement's snapshot, not ``to_regclass``: that one
        reads the session's catalog cache, which still says "missing" after waiting for the
        advisory lock while another process created them (an advisory lock processes no
        catalog invalidations). The DDL then ran beside running appends and deadlocked with
        them (``CREATE INDEX`` takes a share lock on a table an append writes)."""
        cur.execute(
            "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY(%s)",
            ([self._entries, self._transcripts, self._summaries],),
        )
        row = cur.fetchone()
        return row is not None and row[0] == 3

    # ------------------------------------------------------------------ writes

    def append(self, key: SessionKey, entries: List[SessionStoreEntry]) -> None:
        """Add ``entries`` after the ones stored under ``key`` (one transaction). Any thread.
        Raises ``psycopg.Error`` (nothing added then) and ``TypeError`` for non-JSON entries."""
        if not entries:
            return
        pk, sid, sub = key["project_key"], key["session_id"], key.get("subpath") or ""
        uuids = [_uuid_of(e) for e in entries]
        bodies = [_json_text(e) for e in entries]

        def body(cur: Any) -> None:
            cur.execute(
                f"INSERT INTO {self._transcripts} (project_key, session_id, subpath, mtime, created) "
                f"VALUES (%s, %s, %s, {_NOW_MS}, {_NOW_MS}) "
                f"ON CONFLICT (project_key, session_id, subpath) DO UPDATE "
                f"SET mtime = GREATEST(EXCLUDED.mtime, {self._transcripts}.mtime + 1) RETURNING mtime",
                (pk, sid, sub),
            )
            mtime = int(cur.fetchone()[0])
            cur.execute(
                f"INSERT INTO {self._entries} (project_key, session_id, subpath, uuid, body) "
                f"SELECT %s, %s, %s, u, b FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS t(u, b, n) ORDER BY n "
                f"ON CONFLICT (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL DO NOTHING",
                (pk, sid, sub, uuids, bodies),
            )
            if not sub:
                self._fold(cur, key, entries, mtime)

        self._call(body, lock_key=(pk, sid))

    def _fold(self, cur: Any, key: SessionKey, entries: List[SessionStoreEntry], mtime: int) -> None:
        pk, sid = key["project_key"], key["session_id"]
        cur.execute(f"SELECT mtime, data FROM {self._summaries} WHERE project_key = %s AND session_id = %s", (pk, sid))
        row = cur.fetchone()
        prev: Optional[SessionSummaryEntry] = None
        if row is not None:
            prev = {"session_id": sid, "mtime": int(row[0]), "data": json.loads(row[1])}
        folded = fold_session_summary(prev, key, entries)
        cur.execute(
            f"INSERT INTO {self._summaries} (project_key, session_id, mtime, data) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = EXCLUDED.mtime, data = EXCLUDED.data",
            (pk, sid, mtime, _json_text(folded["data"])),
        )

    def delete(self, key: SessionKey) -> None:
        """Remove one transcript; without a ``subpath`` the whole session (its subagent
        transcripts and summary too). Any thread. Raises ``psycopg.Error``."""
        pk, sid, sub = key["project_key"], key["session_id"], key.get("subpath") or ""
        where = "project_key = %s AND session_id = %s" + (" AND subpath = %s" if sub else "")
        args = (pk, sid, sub) if sub else (pk, sid)

        def body(cur: Any) -> None:
            cur.execute(f"DELETE FROM {self._entries} WHERE {where}", args)
            cur.execute(f"DELETE FROM {self._transcripts} WHERE {where}", args)
            if not sub:
                cur.execute(f"DELETE FROM {self._summaries} WHERE project_key = %s AND session_id = %s", (pk, sid))

        self._call(body, lock_key=(pk, sid))

    # ------------------------------------------------------------------ reads

    def _rows(self, sql: str, args: Tuple[Any, ...]) -> List[Any]:
        def body(cur: Any) -> List[Any]:
            cur.execute(sql, args)
            return list(cur.fetchall())

        return self._call(body)

    def load(self, key: SessionKey) -> Optional[List[SessionStoreEntry]]:
        """Every entry under ``key`` in append order, or None. Any thread. Raises ``psycopg.Error``."""
        rows = self._rows(
            f"SELECT body FROM {self._entries} WHERE project_key = %s AND session_id = %s AND subpath = %s ORDER BY seq",
            (key["project_key"], key["session_id"], key.get("subpath") or ""),
        )
        if not rows:
            return None
        return [json.loads(body) for (body,) in rows]

    def list_sessions(
        self, project_key: str, *, limit: Optional[int] = None, offset: int = 0
    ) -> List[SessionStoreListEntry]:
        """The main transcripts of ``project_key``, newest first; ``limit``/``offset`` read one
        page (an index range, however many sessions there are). Any thread."""
        page = self._page_sql(limit, offset)
        rows = self._rows(
            f"SELECT session_id, mtime FROM {self._transcripts} WHERE project_key = %s AND subpath = '' "
            f"ORDER BY mtime DESC, session_id{page}",
            (project_key,),
        )
        return [{"session_id": sid, "mtime": int(mtime)} for sid, mtime in rows]

    def list_session_summaries(
        self, project_key: str, *, limit: Optional[int] = None, offset: int = 0
    ) -> List[SessionSummaryEntry]:
        """The running summaries of ``project_key``'s sessions, newest first, paged like
        ``list_sessions``. Any thread."""
        page = self._page_sql(limit, offset)
        rows = self._rows(
            f"SELECT session_id, mtime, data FROM {self._summaries} WHERE project_key = %s "
            f"ORDER BY mtime DESC, session_id{page}",
            (project_key,),
        )
        return [{"session_id": sid, "mtime": int(mtime), "data": json.loads(data)} for sid, mtime, data in rows]

    @staticmethod
    def _page_sql(limit: Optional[int], offset: int) -> str:
        for name, value in (("limit", limit), ("offset", offset)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be an int >= 0, not {value!r}")
        return (f" LIMIT {limit}" if limit is not None else "") + (f" OFFSET {offset}" if offset else "")

    def list_subkeys(self, key: SessionListSubkeysKey) -> List[str]:
        """The subpaths stored under a session, oldest first. Any thread."""
        rows = self._rows(
            f"SELECT subpath FROM {self._transcripts} WHERE project_key = %s AND session_id = %s AND subpath <> '' "
            "ORDER BY created, subpath",
            (key["project_key"], key["session_id"]),
        )
        return [sub for (sub,) in rows]


_stores: weakref.WeakSet[PostgresSessionStore] = weakref.WeakSet()


def _reset_stores_in_child() -> None:
    for store in list(_stores):
        store._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_stores_in_child)


def _is_pool(target: object) -> bool:
    """Whether ``target`` is a ``psycopg_pool.ConnectionPool`` (imported only when needed)."""
    if type(target).__module__.split(".")[0] != "psycopg_pool":
        return False
    from psycopg_pool import ConnectionPool

    return isinstance(target, ConnectionPool)

