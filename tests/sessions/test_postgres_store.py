"""``PostgresSessionStore`` against a real PostgreSQL server the tests start themselves.

The conformance suite through each way of reaching the server (conninfo, a connection, a
pool); 8 writer processes × 500 appends into one session while a reader checks that no load
ever reorders what an earlier load saw; writers SIGKILLed in the middle of a transaction; a
server restart under a store; entries PostgreSQL's ``jsonb`` could not keep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from helpers import require_package, run_together, wait_until
from pg_server import PostgresServer, running_server

from claude_sync import UsageError
from claude_sync._sessions.stores.postgres import PostgresSessionStore, schema_sql
from claude_sync.testing import run_session_store_conformance

psycopg = require_package("psycopg")  # skipped without it (the postgres extra), failed under CI=true
ConnectionPool = require_package("psycopg_pool").ConnectionPool

ROOT = Path(__file__).resolve().parents[2]
KEY: Any = {"project_key": "proj", "session_id": "sess"}
WRITERS = 8
APPENDS = 500


def child_env() -> Dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


# ----------------------------------------------------------------------------- conformance


@pytest.mark.parametrize("via", ["conninfo", "connection", "pool"])
def test_passes_conformance(pg_conninfo: str, via: str) -> None:
    counter = iter(range(1000))
    if via == "conninfo":
        run_session_store_conformance(lambda: PostgresSessionStore(pg_conninfo, table_prefix=f"c{next(counter)}"))
    elif via == "connection":
        with psycopg.connect(pg_conninfo, autocommit=True) as conn:
            run_session_store_conformance(lambda: PostgresSessionStore(conn, table_prefix=f"c{next(counter)}"))
    else:
        with ConnectionPool(pg_conninfo, min_size=2, max_size=8, open=True, name="conformance") as pool:
            run_session_store_conformance(lambda: PostgresSessionStore(pool, table_prefix=f"c{next(counter)}"))


def test_a_caller_connection_or_pool_stays_open_after_close(pg_conninfo: str) -> None:
    with psycopg.connect(pg_conninfo) as conn:  # not autocommit: the store still commits its calls
        store = PostgresSessionStore(conn)
        store.append(KEY, [{"type": "x", "uuid": "a"}])
        store.close()
        assert not conn.closed
        with pytest.raises(ValueError, match="closed"):
            store.load(KEY)
        assert PostgresSessionStore(conn).load(KEY) == [{"type": "x", "uuid": "a"}]
    with psycopg.connect(pg_conninfo, autocommit=True) as other:  # committed, seen elsewhere
        assert other.execute("SELECT count(*) FROM claude_sync_entries").fetchone() == (1,)


def committed_uuids(conninfo: str) -> List[str]:
    """The uuids stored under ``KEY``, as another connection sees them (what is committed)."""
    with psycopg.connect(conninfo, autocommit=True) as other:
        rows = other.execute(
            "SELECT uuid FROM claude_sync_entries WHERE project_key = 'proj' AND session_id = 'sess' ORDER BY seq"
        ).fetchall()
    return [u for (u,) in rows]


def test_a_caller_connection_inside_its_own_transaction_is_refused_not_rolled_back_later(pg_conninfo: str) -> None:
    """Issue 26 item 1: the store's call used to run as a SAVEPOINT inside the application's
    transaction, return normally, read back — and vanish with the application's rollback,
    while every other writer of that session waited on the advisory lock until then."""
    with PostgresSessionStore(pg_conninfo) as own:
        own.create_schema()
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        store = PostgresSessionStore(conn)
        with conn.transaction():  # the application's explicit transaction
            conn.execute("SELECT 1")
            with pytest.raises(UsageError, match=r"has a transaction open \(INTRANS\)"):
                store.append(KEY, [{"type": "x", "uuid": "inside"}])
            with pytest.raises(UsageError, match="transaction open"):
                store.load(KEY)
            with PostgresSessionStore(pg_conninfo, statement_timeout=5) as other:  # holds no lock of ours
                other.append(KEY, [{"type": "x", "uuid": "other-writer"}])
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        store.append(KEY, [{"type": "x", "uuid": "idle"}])  # no transaction open: its own, committed
    with psycopg.connect(pg_conninfo) as conn:  # not autocommit: any statement opens a transaction
        store = PostgresSessionStore(conn)
        conn.execute("SELECT 1")
        with pytest.raises(UsageError, match="INTRANS"):
            store.append(KEY, [{"type": "x", "uuid": "implicit"}])
        conn.rollback()
        store.append(KEY, [{"type": "x", "uuid": "after-rollback"}])
        conn.rollback()  # the application's next rollback cannot take it back: it was committed
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("SELECT 1/0")
        with pytest.raises(UsageError, match="INERROR"):  # a failed transaction is refused too
            store.append(KEY, [{"type": "x", "uuid": "failed"}])
        conn.rollback()
    assert committed_uuids(pg_conninfo) == ["other-writer", "idle", "after-rollback"]
    closed = psycopg.connect(pg_conninfo, autocommit=True)
    closed.close()
    with pytest.raises(psycopg.OperationalError, match="closed"):  # not replaced, not retried
        PostgresSessionStore(closed).append(KEY, [{"type": "x", "uuid": "closed"}])


def test_bad_arguments_are_refused(pg_conninfo: str) -> None:
    with pytest.raises(TypeError, match="conninfo string, a psycopg.Connection or a psycopg_pool.ConnectionPool, not dict"):
        PostgresSessionStore({"host": "x"})  # type: ignore[arg-type]
    for prefix in ("Bad", "x;drop", "", "a" * 60, 3):
        with pytest.raises(ValueError, match="table_prefix"):
            PostgresSessionStore(pg_conninfo, table_prefix=prefix)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="statement_timeout"):
        PostgresSessionStore(pg_conninfo, statement_timeout=0)
    with PostgresSessionStore(pg_conninfo) as store:
        with pytest.raises(ValueError, match="limit"):
            store.list_sessions("p", limit=-1)


def test_the_password_is_never_shown(pg_conninfo: str) -> None:
    store = PostgresSessionStore(pg_conninfo + " password=hunter2")
    assert "hunter2" not in repr(store) and "claude_sync_*" in repr(store)


def test_create_schema_false_needs_the_tables(pg_conninfo: str) -> None:
    with PostgresSessionStore(pg_conninfo, create_schema=False) as store:
        with pytest.raises(psycopg.errors.UndefinedTable):
            store.load(KEY)
        with psycopg.connect(pg_conninfo, autocommit=True) as conn:
            conn.execute(schema_sql("claude_sync").encode())
        assert store.load(KEY) is None


def test_entries_jsonb_would_change_come_back_equal(pg_conninfo: str) -> None:
    odd = {"type": "x", "uuid": "u", "z": 1, "a": "nul\u0000 and lone \udc80 surrogate", "dup": 2**70, "f": 1.0000000000000002}
    with PostgresSessionStore(pg_conninfo) as store:
        store.append(KEY, [odd])
        [back] = store.load(KEY) or []
    assert back == odd and list(back) == list(odd)  # key order too


def test_list_sessions_pages_newest_first(pg_conninfo: str) -> None:
    with PostgresSessionStore(pg_conninfo) as store:
        for i in range(25):
            store.append({"project_key": "p", "session_id": f"s{i:02d}"}, [{"type": "x"}])
        every = store.list_sessions("p")
        assert sorted(r["session_id"] for r in every) == [f"s{i:02d}" for i in range(25)]
        assert every == sorted(every, key=lambda r: (-r["mtime"], r["session_id"]))  # newest first
        pages = [store.list_sessions("p", limit=10, offset=o) for o in (0, 10, 20)]
        assert [len(p) for p in pages] == [10, 10, 5] and sum(pages, []) == every
        summaries = store.list_session_summaries("p")
        assert [s["session_id"] for s in store.list_session_summaries("p", limit=3, offset=2)] == [
            s["session_id"] for s in summaries[2:5]
        ]


def test_a_retried_batch_adds_nothing_twice(pg_conninfo: str) -> None:
    with PostgresSessionStore(pg_conninfo) as store:
        batch = [{"type": "x", "uuid": "a"}, {"type": "x", "uuid": "b"}, {"type": "x", "n": 1}]
        store.append(KEY, batch)
        store.append(KEY, batch[:2] + [{"type": "x", "uuid": "c"}])
        assert [e.get("uuid") for e in store.load(KEY) or []] == ["a", "b", None, "c"]


# ----------------------------------------------------------------------------- many writers

WRITER = r"""
import json, sys, time
from claude_sync._sessions.stores.postgres import PostgresSessionStore
conninfo, writer, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
key = {"project_key": "proj", "session_id": "sess"}
store = PostgresSessionStore(conninfo)
sys.stdin.readline()  # the go signal: every writer starts at once
started = time.monotonic()
for i in range(count):
    store.append(key, [{"type": "x", "uuid": f"w{writer}-{i}-{j}", "w": writer, "i": i, "j": j} for j in range(batch)])
    print(f"ok {i}", flush=True)
print(f"done {time.monotonic() - started:.3f}", flush=True)
"""


def start_writer(conninfo: str, writer: int, count: int, batch: int = 1) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, conninfo, str(writer), str(count), str(batch)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env(),
    )  # fmt: skip


def test_eight_processes_append_500_each_into_one_session(pg_conninfo: str) -> None:
    writers = [start_writer(pg_conninfo, w, APPENDS) for w in range(WRITERS)]
    reader = PostgresSessionStore(pg_conninfo)
    loads: List[int] = []
    reorders: List[str] = []
    stop = threading.Event()

    def watch() -> None:  # every load must extend the previous one: order never changes
        seen: List[str] = []
        while not stop.is_set():
            now = [e["uuid"] for e in reader.load(KEY) or []]
            if now[: len(seen)] != seen:
                reorders.append(f"load of {len(now)} does not extend the earlier load of {len(seen)}")
            seen = now
            loads.append(len(now))

    try:
        for w in writers:  # all connected and schema'd: release them together
            assert w.stdin is not None
            w.stdin.write("go\n")
            w.stdin.flush()
        started = time.monotonic()
        watcher = threading.Thread(target=watch, name="claude_sync-test-watch")
        watcher.start()
        outputs = [w.communicate(timeout=300)[0] for w in writers]
        elapsed = time.monotonic() - started
        stop.set()
        watcher.join(30)
        assert [w.returncode for w in writers] == [0] * WRITERS, outputs
        stored = reader.load(KEY) or []
    finally:
        stop.set()
        for w in writers:
            if w.poll() is None:
                w.kill()
                w.wait(10)
        reader.close()
    uuids = [e["uuid"] for e in stored]
    assert len(uuids) == WRITERS * APPENDS and len(set(uuids)) == len(uuids)
    for w in range(WRITERS):
        assert [e["i"] for e in stored if e["w"] == w] == list(range(APPENDS))
    assert not reorders, reorders[:3]
    print(f"\n[figures] {WRITERS} processes x {APPENDS} appends: {len(uuids)} stored, 0 lost, 0 duplicates, "
          f"{elapsed:.2f} s ({len(uuids) / elapsed:.0f} appends/s); {len(loads)} concurrent loads, 0 reorders")  # fmt: skip


# ----------------------------------------------------------------------------- killed writers


def committed_batches(stored: List[Any], batch: int) -> List[int]:
    """The batch numbers in ``stored``; asserts every batch there is whole and in order."""
    numbers: List[int] = []
    for start in range(0, len(stored), batch):
        group = stored[start : start + batch]
        assert [e["j"] for e in group] == list(range(batch)) and len({e["i"] for e in group}) == 1, group
        numbers.append(group[0]["i"])
    return numbers


def test_a_writer_killed_inside_its_transaction_loses_only_that_batch(pg_conninfo: str) -> None:
    """Deterministic: the test holds an uncommitted row with the uuid of the 4th entry of the
    writer's 11th batch, so that INSERT (3 rows of it already written) waits inside the
    writer's transaction; the writer is SIGKILLed there."""
    batch = 10
    with PostgresSessionStore(pg_conninfo) as store:
        store.create_schema()
        with psycopg.connect(pg_conninfo) as blocker:  # a transaction left open
            blocker.execute(
                "INSERT INTO claude_sync_entries (project_key, session_id, subpath, uuid, body) VALUES (%s, %s, '', %s, '{}')",
                ("proj", "sess", "w0-10-3"),
            )
            writer = start_writer(pg_conninfo, 0, 50, batch)
            assert writer.stdin is not None and writer.stdout is not None
            writer.stdin.write("go\n")
            writer.stdin.flush()
            acknowledged = [writer.stdout.readline() for _ in range(10)]
            assert acknowledged[-1] == "ok 9\n"
            with psycopg.connect(pg_conninfo, autocommit=True) as watcher:  # the writer waits on our row
                wait_until(lambda: watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO claude_sync_entries%'"
                ).fetchone() == (1,), 30, "the writer blocked inside its transaction")  # fmt: skip
            writer.send_signal(signal.SIGKILL)
            writer.wait(10)
            writer.stdout.close()
            writer.stdin.close()
            blocker.rollback()
        stored = store.load(KEY) or []
        assert committed_batches(stored, batch) == list(range(10))
        started = time.monotonic()  # the killed writer's session lock is gone: others go on
        store.append(KEY, [{"type": "x", "uuid": "after", "w": 9, "i": 99, "j": 0}])
        assert time.monotonic() - started < 5
        assert (store.load(KEY) or [])[-1]["uuid"] == "after"


def test_writers_killed_at_random_keep_every_acknowledged_batch_whole(pg_conninfo: str) -> None:
    batch, rounds = 20, 4
    lost_in_flight = 0
    with PostgresSessionStore(pg_conninfo) as store:
        store.create_schema()
        for r in range(rounds):
            key: Any = {"project_key": "proj", "session_id": f"kill-{r}"}
            script = WRITER.replace('"session_id": "sess"', f'"session_id": "kill-{r}"')
            writer = subprocess.Popen([sys.executable, "-c", script, pg_conninfo, "0", "100000", str(batch)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env())  # fmt: skip
            assert writer.stdin is not None and writer.stdout is not None
            writer.stdin.write("go\n")
            writer.stdin.flush()
            acked = 0
            for _ in range(30 + 17 * r):  # kill after a varying number of acknowledged batches
                assert writer.stdout.readline().startswith("ok ")
                acked += 1
            writer.send_signal(signal.SIGKILL)
            writer.wait(10)
            tail = writer.stdout.read()
            writer.stdout.close()
            writer.stdin.close()
            acked += tail.count("ok ")
            numbers = committed_batches(store.load(key) or [], batch)
            assert numbers == list(range(len(numbers)))
            assert acked <= len(numbers) <= acked + 1, (acked, len(numbers))  # the +1: committed, not yet acknowledged
            lost_in_flight += 1 if len(numbers) == acked else 0
    print(f"\n[figures] {rounds} writers SIGKILLed at random: every acknowledged batch kept, "
          f"no partial batch; {lost_in_flight} in-flight batches rolled back")


# ----------------------------------------------------------------------------- server restart


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own (it is stopped and started again)."""
    yield from running_server()


def test_a_store_reconnects_after_the_server_restarted(own_server: PostgresServer) -> None:
    with PostgresSessionStore(own_server.conninfo(), connect_timeout=2) as store, \
            ConnectionPool(own_server.conninfo(), min_size=1, max_size=2, check=ConnectionPool.check_connection,
                           name="restart") as pool:  # fmt: skip
        pooled = PostgresSessionStore(pool)
        store.append(KEY, [{"type": "x", "uuid": "before"}])
        assert pooled.load(KEY) == [{"type": "x", "uuid": "before"}]
        own_server.stop()
        with pytest.raises(psycopg.OperationalError):
            store.append(KEY, [{"type": "x", "uuid": "while-down"}])
        own_server.restart()
        store.append(KEY, [{"type": "x", "uuid": "after"}])  # a fresh connection, no error
        assert [e["uuid"] for e in pooled.load(KEY) or []] == ["before", "after"]


def test_every_call_after_a_restart_gets_a_live_pooled_connection(own_server: PostgresServer) -> None:
    """Issue 26 item 13: a pool of 4 idle connections, all cut by a restart, no ``check=``. The
    single retry used to take another dead one (2 of 4 calls failed with AdminShutdown although
    the server was back); a call now retries until a live connection answers."""
    with ConnectionPool(own_server.conninfo(), min_size=4, max_size=4, name="dead4", open=True) as pool:
        pool.wait(30)
        store = PostgresSessionStore(pool, connect_timeout=10)
        store.append(KEY, [{"type": "x", "uuid": "before"}])
        assert pool.get_stats()["pool_available"] == 4
        own_server.stop()
        own_server.restart()
        for i in range(4):
            store.append(KEY, [{"type": "x", "uuid": f"after-{i}"}])
        assert [e["uuid"] for e in store.load(KEY) or []] == ["before"] + [f"after-{i}" for i in range(4)]
        own_server.stop()  # again, now with 4 callers at once
        own_server.restart()

        def call(i: int) -> None:
            store.append(KEY, [{"type": "x", "uuid": f"again-{i}"}])

        assert run_together(call, 4) == []
        assert len(store.load(KEY) or []) == 9


def test_a_call_while_the_server_is_down_fails_within_its_bounds(own_server: PostgresServer) -> None:
    """The retries of a dead pooled connection end: with the server down, a call raises once
    the pool cannot hand out a live connection within ``connect_timeout``."""
    with ConnectionPool(own_server.conninfo(), min_size=2, max_size=2, name="down", open=True) as pool:
        pool.wait(30)
        store = PostgresSessionStore(pool, connect_timeout=1)
        store.append(KEY, [{"type": "x", "uuid": "before"}])
        own_server.stop()
        started = time.monotonic()
        with pytest.raises(psycopg.OperationalError):
            store.append(KEY, [{"type": "x", "uuid": "while-down"}])
        assert time.monotonic() - started < 30  # bounded (the figure is connect_timeout + a pool wait)
        own_server.restart()
        patient = PostgresSessionStore(pool, connect_timeout=30)  # the pool reconnects with a backoff
        patient.append(KEY, [{"type": "x", "uuid": "after"}])
        assert [e["uuid"] for e in patient.load(KEY) or []] == ["before", "after"]


FORKED_STORE = r"""
import json, multiprocessing, os, sys, threading
from claude_sync._sessions.stores.postgres import PostgresSessionStore
store = PostgresSessionStore(sys.argv[1])
store.append({"project_key": "proj", "session_id": "parent"}, [{"type": "x", "uuid": "warm"}])  # connected
parent_backend = store._own.info.backend_pid
held = threading.Event()
def hold():  # a parent thread inside a store call at the moment of the fork
    with store._lock:
        held.set()
        threading.Event().wait(1.0)
threading.Thread(target=hold, name="claude_sync-test-hold").start()
held.wait(10)

def child(queue):
    try:
        for i in range(200):
            store.append({"project_key": "proj", "session_id": "child"}, [{"type": "x", "uuid": f"c{i}"}])
        queue.put({"backend": store._own.info.backend_pid, "loaded": len(store.load({"project_key": "proj", "session_id": "child"}) or [])})
    except BaseException as exc:
        queue.put({"error": repr(exc)})

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
worker = ctx.Process(target=child, args=(queue,), daemon=True)
worker.start()
errors = []
try:
    for i in range(200):  # at the same time as the child
        store.append({"project_key": "proj", "session_id": "parent"}, [{"type": "x", "uuid": f"p{i}"}])
except BaseException as exc:
    errors.append(repr(exc))
got = queue.get(timeout=60)
worker.join(30)
store.close()
print(json.dumps({"child": got, "parent_backend": parent_backend, "errors": errors}), flush=True)
"""


def test_a_store_made_before_a_fork_connects_again_in_the_child(pg_conninfo: str) -> None:
    """A store made and used before a fork (gunicorn ``--preload``, a multiprocessing pool
    after a warm-up): the child used the parent's connection — one socket, two processes
    writing to it — and a lock a parent thread held at the fork. It now opens its own in the
    child, and leaves the parent's alone (closing it there would end the parent's session)."""
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", FORKED_STORE, pg_conninfo],
                          capture_output=True, text=True, timeout=120, env=child_env())  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["errors"] == [] and "error" not in out["child"], out
    assert out["child"]["loaded"] == 200 and out["child"]["backend"] != out["parent_backend"], out
    with PostgresSessionStore(pg_conninfo) as store:
        assert [e["uuid"] for e in store.load({"project_key": "proj", "session_id": "parent"}) or []] == ["warm"] + [
            f"p{i}" for i in range(200)
        ]


def test_import_claude_sync_does_not_import_psycopg() -> None:
    code = (
        "import sys, claude_sync, claude_sync._sessions.stores.postgres\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_pool'))))"
    )
    out = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True,
                         env=child_env(), timeout=60, check=True).stdout  # fmt: skip
    assert json.loads(out) == []


def test_the_schema_check_sees_tables_another_process_created_during_its_transaction(pg_conninfo: str) -> None:
    """``create_schema`` checks again after waiting for the schema lock, in the same
    transaction. ``to_regclass`` answered from the session's catalog cache there ("missing",
    though another writer had just created the tables), so the DDL ran beside that writer's
    appends and deadlocked with them (seen in CI: 1 of 8 writers, ``DeadlockDetected``)."""
    checker = PostgresSessionStore(pg_conninfo, table_prefix="late", create_schema=False)
    creator = PostgresSessionStore(pg_conninfo, table_prefix="late")
    try:
        with psycopg.connect(pg_conninfo) as conn, conn.transaction(), conn.cursor() as cur:
            assert not checker._tables_exist(cur)
            cur.execute("SELECT to_regclass('late_entries')")  # the old check, cached "missing"
            creator.create_schema()  # another session creates and commits them meanwhile
            assert checker._tables_exist(cur)
    finally:
        checker.close()
        creator.close()
