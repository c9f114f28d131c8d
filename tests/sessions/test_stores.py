"""Session stores: the conformance suite on both stores, SQLite under threads and processes,
and the ``*_from_store`` / ``*_via_store`` functions."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from transcript_lines import conversation, folder, write

from claude_sync import (
    InMemorySessionStore,
    SQLiteSessionStore,
    delete_session_via_store,
    fork_session_via_store,
    get_session_info_from_store,
    get_session_messages_from_store,
    get_subagent_messages_from_store,
    import_session_to_store,
    list_sessions_from_store,
    list_subagents_from_store,
    project_key_for_directory,
    rename_session_via_store,
    tag_session_via_store,
)
from claude_sync.testing import run_session_store_conformance

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


def test_in_memory_store_passes_conformance() -> None:
    run_session_store_conformance(InMemorySessionStore)


def test_sqlite_store_passes_conformance(tmp_path: Path) -> None:
    counter = iter(range(1000))
    run_session_store_conformance(lambda: SQLiteSessionStore(tmp_path / f"s{next(counter)}.db"))


def test_conformance_catches_a_broken_store() -> None:
    class ForgetsOrder(InMemorySessionStore):
        def load(self, key: Any) -> Any:
            loaded = super().load(key)
            return None if loaded is None else list(reversed(loaded))

    with pytest.raises(AssertionError, match="in order"):
        run_session_store_conformance(ForgetsOrder)


def test_conformance_skips_optional_methods_a_store_lacks() -> None:
    class Minimal:
        def __init__(self) -> None:
            self.inner = InMemorySessionStore()

        def append(self, key: Any, entries: Any) -> None:
            self.inner.append(key, entries)

        def load(self, key: Any) -> Any:
            return self.inner.load(key)

    run_session_store_conformance(Minimal)
    with pytest.raises(AssertionError, match="unknown optional"):
        run_session_store_conformance(Minimal, skip_optional=frozenset({"nope"}))


def test_a_store_appending_with_setdefault_extend_passes_as_it_does_the_official_suite() -> None:
    """The usual hand-written store: ``append([])`` to a new key makes it load as ``[]``
    (not None). The official suite accepts that and so must ours: the mirror never sends an
    empty batch."""

    class DictStore:
        def __init__(self) -> None:
            self.data: Dict[Tuple[str, str, str], List[Any]] = {}

        def append(self, key: Any, entries: Any) -> None:
            self.data.setdefault((key["project_key"], key["session_id"], key.get("subpath", "")), []).extend(entries)

        def load(self, key: Any) -> Any:
            got = self.data.get((key["project_key"], key["session_id"], key.get("subpath", "")))
            return None if got is None else list(got)

    run_session_store_conformance(DictStore)
    store = DictStore()
    store.append({"project_key": "p", "session_id": "s"}, [])
    assert store.load({"project_key": "p", "session_id": "s"}) == []  # what the old extra contract refused


def test_eight_threads_appending_to_one_sqlite_store_lose_nothing(sqlite_path: Path) -> None:
    key: Any = {"project_key": "p", "session_id": "s"}
    with SQLiteSessionStore(sqlite_path) as store:

        def writer(t: int) -> None:
            for i in range(100):
                store.append(key, [{"type": "x", "uuid": f"{t}-{i}", "t": t}])

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        loaded = store.load(key) or []
    assert len(loaded) == 800 and len({e["uuid"] for e in loaded}) == 800
    for t in range(8):
        assert [e["uuid"] for e in loaded if e["t"] == t] == [f"{t}-{i}" for i in range(100)]


WRITER = """
import sys
sys.path.insert(0, {root!r})
from claude_sync import SQLiteSessionStore
store = SQLiteSessionStore({path!r})
for i in range(100):
    store.append({{"project_key": "p", "session_id": "s"}}, [{{"type": "x", "uuid": sys.argv[1] + "-" + str(i)}}])
store.close()
"""


def test_several_processes_share_one_sqlite_store(sqlite_path: Path) -> None:
    SQLiteSessionStore(sqlite_path).close()  # create the schema once
    code = WRITER.format(root=str(ROOT), path=str(sqlite_path))
    procs = [subprocess.Popen([sys.executable, "-c", code, f"p{n}"]) for n in range(3)]
    try:
        assert [p.wait(120) for p in procs] == [0, 0, 0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
    with SQLiteSessionStore(sqlite_path) as store:
        loaded = store.load({"project_key": "p", "session_id": "s"}) or []
        assert len(loaded) == 300
        assert len(store.list_sessions("p")) == 1


def test_sqlite_store_is_idempotent_per_uuid_and_survives_reopen(sqlite_path: Path) -> None:
    key: Any = {"project_key": "p", "session_id": "s"}
    with SQLiteSessionStore(sqlite_path) as store:
        store.append(key, [{"type": "user", "uuid": "u1"}, {"type": "tag", "tag": "x"}])
        store.append(key, [{"type": "user", "uuid": "u1"}, {"type": "tag", "tag": "x"}])  # a retried batch
    with SQLiteSessionStore(sqlite_path) as again:
        assert again.load(key) == [{"type": "user", "uuid": "u1"}, {"type": "tag", "tag": "x"}, {"type": "tag", "tag": "x"}]
    with pytest.raises(ValueError, match="closed"):
        again.load(key)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "memory":
        yield InMemorySessionStore()
    else:
        with SQLiteSessionStore(tmp_path / "fn.db") as s:
            yield s


def test_store_functions_round_trip(store: Any, tmp_path: Path) -> None:
    directory = str(tmp_path)
    sid = str(uuid.uuid4())
    key: Any = {"project_key": project_key_for_directory(directory), "session_id": sid}
    lines = conversation(sid, 2)
    store.append(key, lines)
    [info] = list_sessions_from_store(store, directory)
    assert (info.session_id, info.summary, info.file_size) == (sid, "question 0", None)
    rename_session_via_store(store, sid, "Stored", directory)
    tag_session_via_store(store, sid, "t1", directory)
    [info] = list_sessions_from_store(store, directory)
    assert (info.summary, info.tag) == ("Stored", "t1")
    single = get_session_info_from_store(store, sid, directory)
    assert single is not None and single.custom_title == "Stored"
    texts = [m.message["content"][0]["text"] for m in get_session_messages_from_store(store, sid, directory)]
    assert texts == ["question 0", "answer 0", "question 1", "answer 1"]
    fork = fork_session_via_store(store, sid, directory, up_to_message_id=lines[1]["uuid"])
    assert [m.message["content"][0]["text"] for m in get_session_messages_from_store(store, fork.session_id, directory)] == [
        "question 0", "answer 0"
    ]  # fmt: skip
    forked = get_session_info_from_store(store, fork.session_id, directory)
    assert forked is not None and forked.custom_title == "Stored (fork)"
    store.append({**key, "subpath": "subagents/agent-a1"}, [{"type": "agent_metadata", "toolUseId": "toolu_9"}, *conversation(sid, 1)])
    assert list_subagents_from_store(store, sid, directory) == ["a1"]
    sub = get_subagent_messages_from_store(store, sid, "a1", directory)
    assert [m.parent_tool_use_id for m in sub] == ["toolu_9", "toolu_9"]
    delete_session_via_store(store, sid, directory)
    assert get_session_messages_from_store(store, sid, directory) == []
    assert [s.session_id for s in list_sessions_from_store(store, directory)] == [fork.session_id]
    with pytest.raises(ValueError, match="not-a-uuid"):
        rename_session_via_store(store, "not-a-uuid", "t", directory)


def test_store_readers_given_a_non_uuid_id_return_nothing_without_calling_the_store() -> None:
    class Untouchable(InMemorySessionStore):
        def load(self, key: Any) -> Any:
            raise AssertionError(f"load({key}) for a non-UUID id")

        def list_subkeys(self, key: Any) -> Any:
            raise AssertionError(f"list_subkeys({key}) for a non-UUID id")

    store = Untouchable()
    assert get_session_info_from_store(store, "not-a-uuid") is None
    assert get_session_messages_from_store(store, "../x") == []
    assert list_subagents_from_store(store, "nope") == []
    assert get_subagent_messages_from_store(store, "nope", "a1") == []


def test_listing_degrades_a_failing_load_to_an_empty_row() -> None:
    class Flaky(InMemorySessionStore):
        list_session_summaries = None  # type: ignore[assignment]  # force the load path

        def load(self, key: Any) -> Any:
            raise RuntimeError("backend down")

    flaky = Flaky()
    flaky.append({"project_key": project_key_for_directory("."), "session_id": "abc"}, [{"type": "x"}])
    [row] = list_sessions_from_store(flaky)
    assert (row.session_id, row.summary) == ("abc", "")


def test_import_session_to_store(config: Path, project: Path) -> None:  # noqa: F811
    here = folder(config, project)
    sid = str(uuid.uuid4())
    write(here / f"{sid}.jsonl", [*conversation(sid, 3), "{corrupt"])
    sub = here / sid / "subagents"
    sub.mkdir(parents=True)
    write(sub / "agent-x.jsonl", conversation(sid, 1))
    (sub / "agent-x.meta.json").write_text(json.dumps({"toolUseId": "toolu_x"}))
    store = InMemorySessionStore()
    import_session_to_store(sid, store, directory=str(project), batch_size=2)
    key: Any = {"project_key": here.name, "session_id": sid}
    assert len(store.get_entries(key)) == 6
    assert store.list_subkeys(key) == ["subagents/agent-x"]
    msgs = get_subagent_messages_from_store(store, sid, "x", str(project))
    assert [m.parent_tool_use_id for m in msgs] == ["toolu_x", "toolu_x"]
    with pytest.raises(FileNotFoundError):
        import_session_to_store(str(uuid.uuid4()), store)
    assert here.name == project_key_for_directory(str(project))


def test_store_helpers_refuse_stores_without_the_needed_method() -> None:
    class AppendOnly:
        def append(self, key: Any, entries: List[Any]) -> None:
            pass

        def load(self, key: Any) -> Any:
            return None

    with pytest.raises(ValueError, match="list_sessions"):
        list_sessions_from_store(AppendOnly())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="list_subkeys"):
        list_subagents_from_store(AppendOnly(), str(uuid.uuid4()))  # type: ignore[arg-type]
    delete_session_via_store(AppendOnly(), str(uuid.uuid4()))  # type: ignore[arg-type]  # no delete: a no-op


FORKED_SQLITE = r"""
import json, multiprocessing, sys, threading
from claude_sync import SQLiteSessionStore
store = SQLiteSessionStore(sys.argv[1])
store.append({"project_key": "proj", "session_id": "parent"}, [{"type": "x", "uuid": "warm"}])
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
        queue.put(len(store.load({"project_key": "proj", "session_id": "child"}) or []))
        store.close()
    except BaseException as exc:
        queue.put(repr(exc))

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
worker = ctx.Process(target=child, args=(queue,), daemon=True)
worker.start()
for i in range(200):  # at the same time as the child
    store.append({"project_key": "proj", "session_id": "parent"}, [{"type": "x", "uuid": f"p{i}"}])
got = queue.get(timeout=60)
worker.join(30)
print(json.dumps({"child": got, "parent": len(store.load({"project_key": "proj", "session_id": "parent"}) or [])}))
store.close()
"""


def test_a_sqlite_store_made_before_a_fork_opens_its_own_connection_in_the_child(tmp_path: Path) -> None:
    """SQLite forbids using a connection across fork (its locks are per process), and a lock a
    parent thread held at the fork stayed held in the child (its first call hung). The child
    now opens its own connection and lock; the parent's connection is left to the parent."""
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", FORKED_SQLITE, str(tmp_path / "s.db")],
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"child": 200, "parent": 201}
