"""``run_session_store_conformance``: the behaviour every ``SessionStore`` must have.

Plain ``assert`` statements, no pytest: call it from any test runner. The official SDK's
14 contracts, exactly (as plain blocking calls), plus two that the mirror really needs:
entries survive a JSON round trip deep-equal (unicode, nesting, numbers: a resumed session
is written back from them), and appends from several threads at once all land (each session
mirrors from its own ``claude_sync-mirror`` thread, so sessions sharing a store append
concurrently, each to its own keys). Nothing else: a store that appends with
``setdefault(key, []).extend(entries)`` passes, as it does the official suite.
"""

from __future__ import annotations

import math
import threading
from typing import Any, Callable, Dict, FrozenSet, List

from .._sessions.summary import fold_session_summary
from .._sessions.types import SessionKey, SessionStore, store_implements

__all__ = ["run_session_store_conformance"]

OPTIONAL_METHODS = frozenset(("list_sessions", "list_session_summaries", "delete", "list_subkeys"))
_KEY: SessionKey = {"project_key": "proj", "session_id": "sess"}
_SUB1: SessionKey = {"project_key": "proj", "session_id": "sess", "subpath": "subagents/agent-1"}
_SUB2: SessionKey = {"project_key": "proj", "session_id": "sess", "subpath": "subagents/agent-2"}
THREADS = 8
APPENDS_PER_THREAD = 25


def _e(**fields: Any) -> Any:
    """A test entry (``type`` is required; its value does not matter to a store)."""
    return {"type": "x", **fields}


def run_session_store_conformance(
    make_store: Callable[[], SessionStore], *, skip_optional: FrozenSet[str] = frozenset()
) -> None:
    """Assert the ``SessionStore`` contracts, each on a fresh store from ``make_store()``.

    Contracts of an optional method run only when the store implements it and it is not
    named in ``skip_optional``. A store with a ``close()`` method is closed after each
    contract. Raises ``AssertionError`` naming the first broken contract.
    """
    unknown = set(skip_optional) - OPTIONAL_METHODS
    assert not unknown, f"unknown optional methods in skip_optional: {sorted(unknown)}"
    probe = make_store()
    has = {m: m not in skip_optional and store_implements(probe, m) for m in OPTIONAL_METHODS}
    _close(probe)
    for contract in _CONTRACTS:
        needs = getattr(contract, "needs", None)
        if needs is not None and not has[needs]:
            continue
        store = make_store()
        try:
            contract(store, has)
        except AssertionError as exc:
            raise AssertionError(f"{contract.__doc__}: {exc}") from exc
        finally:
            _close(store)


def _close(store: object) -> None:
    close = getattr(store, "close", None)
    if callable(close):
        close()


_CONTRACTS: List[Callable[[Any, Dict[str, bool]], None]] = []


def _contract(needs: Any = None) -> Callable[[Callable[[Any, Dict[str, bool]], None]], Callable[[Any, Dict[str, bool]], None]]:
    def register(fn: Callable[[Any, Dict[str, bool]], None]) -> Callable[[Any, Dict[str, bool]], None]:
        fn.needs = needs  # type: ignore[attr-defined]
        _CONTRACTS.append(fn)
        return fn

    return register


@_contract()
def _append_then_load(store: Any, has: Dict[str, bool]) -> None:
    """1. append then load returns the entries in order"""
    store.append(_KEY, [_e(uuid="b", n=1), _e(uuid="a", n=2)])
    assert store.load(_KEY) == [_e(uuid="b", n=1), _e(uuid="a", n=2)]


@_contract()
def _unknown_is_none(store: Any, has: Dict[str, bool]) -> None:
    """2. load of a key never written returns None"""
    assert store.load({"project_key": "proj", "session_id": "nope"}) is None
    store.append(_KEY, [_e(uuid="x", n=1)])
    assert store.load({**_KEY, "subpath": "nope"}) is None


@_contract()
def _call_order(store: Any, has: Dict[str, bool]) -> None:
    """3. several appends keep call order"""
    store.append(_KEY, [_e(uuid="z", n=1)])
    store.append(_KEY, [_e(uuid="a", n=2), _e(uuid="m", n=3)])
    store.append(_KEY, [_e(uuid="b", n=4)])
    assert store.load(_KEY) == [_e(uuid="z", n=1), _e(uuid="a", n=2), _e(uuid="m", n=3), _e(uuid="b", n=4)]


@_contract()
def _empty_append(store: Any, has: Dict[str, bool]) -> None:
    """4. append([]) changes nothing"""
    store.append(_KEY, [_e(uuid="a", n=1)])
    store.append(_KEY, [])
    assert store.load(_KEY) == [_e(uuid="a", n=1)]


@_contract()
def _subpaths_apart(store: Any, has: Dict[str, bool]) -> None:
    """5. a subpath is stored apart from the main transcript"""
    store.append(_KEY, [_e(uuid="m", n=1)])
    store.append(_SUB1, [_e(uuid="s", n=1)])
    assert store.load(_KEY) == [_e(uuid="m", n=1)]
    assert store.load(_SUB1) == [_e(uuid="s", n=1)]


@_contract()
def _projects_apart(store: Any, has: Dict[str, bool]) -> None:
    """6. project keys are isolated"""
    store.append({"project_key": "A", "session_id": "s1"}, [_e(origin="A")])
    store.append({"project_key": "B", "session_id": "s1"}, [_e(origin="B")])
    assert store.load({"project_key": "A", "session_id": "s1"}) == [_e(origin="A")]
    assert store.load({"project_key": "B", "session_id": "s1"}) == [_e(origin="B")]
    if has["list_sessions"]:
        assert len(store.list_sessions("A")) == 1 and len(store.list_sessions("B")) == 1


@_contract("list_sessions")
def _lists_sessions(store: Any, has: Dict[str, bool]) -> None:
    """7. list_sessions returns the project's sessions with epoch-ms mtimes"""
    for pk, sid in (("proj", "a"), ("proj", "b"), ("other", "c")):
        store.append({"project_key": pk, "session_id": sid}, [_e(n=1)])
    rows = store.list_sessions("proj")
    assert sorted(r["session_id"] for r in rows) == ["a", "b"]
    assert all(math.isfinite(r["mtime"]) and r["mtime"] > 1e12 for r in rows), rows
    assert store.list_sessions("never-appended-project") == []


@_contract("list_sessions")
def _lists_no_subpaths(store: Any, has: Dict[str, bool]) -> None:
    """8. list_sessions leaves subagent transcripts out"""
    store.append({"project_key": "proj", "session_id": "main"}, [_e(n=1)])
    store.append({"project_key": "proj", "session_id": "main", "subpath": "subagents/agent-1"}, [_e(n=1)])
    assert [r["session_id"] for r in store.list_sessions("proj")] == ["main"]


@_contract("delete")
def _delete_main(store: Any, has: Dict[str, bool]) -> None:
    """9. delete of the main transcript, then load returns None"""
    store.delete({"project_key": "proj", "session_id": "never-written"})
    store.append(_KEY, [_e(n=1)])
    store.delete(_KEY)
    assert store.load(_KEY) is None


@_contract("delete")
def _delete_cascades(store: Any, has: Dict[str, bool]) -> None:
    """10. deleting the main transcript removes its subpaths, nothing else"""
    other: SessionKey = {"project_key": "proj", "session_id": "sess2"}
    other_project: SessionKey = {"project_key": "other-proj", "session_id": "sess"}
    for key in (_KEY, _SUB1, _SUB2, other, other_project):
        store.append(key, [_e(n=1)])
    store.delete(_KEY)
    assert store.load(_KEY) is None and store.load(_SUB1) is None and store.load(_SUB2) is None
    assert len(store.load(other) or []) == 1 and len(store.load(other_project) or []) == 1
    if has["list_subkeys"]:
        assert store.list_subkeys(_KEY) == []
    if has["list_sessions"]:
        assert "sess" not in [r["session_id"] for r in store.list_sessions("proj")]


@_contract("delete")
def _delete_one_subpath(store: Any, has: Dict[str, bool]) -> None:
    """11. deleting a subpath removes only that subpath"""
    for key in (_KEY, _SUB1, _SUB2):
        store.append(key, [_e(n=1)])
    store.delete(_SUB1)
    assert store.load(_SUB1) is None
    assert len(store.load(_SUB2) or []) == 1 and len(store.load(_KEY) or []) == 1
    if has["list_subkeys"]:
        assert store.list_subkeys(_KEY) == ["subagents/agent-2"]


@_contract("list_subkeys")
def _lists_subkeys(store: Any, has: Dict[str, bool]) -> None:
    """12. list_subkeys returns the session's subpaths only"""
    store.append(_KEY, [_e(n=1)])
    store.append(_SUB1, [_e(n=1)])
    store.append(_SUB2, [_e(n=1)])
    store.append({"project_key": "proj", "session_id": "other-sess", "subpath": "subagents/agent-x"}, [_e(n=1)])
    assert sorted(store.list_subkeys(_KEY)) == ["subagents/agent-1", "subagents/agent-2"]


@_contract("list_subkeys")
def _subkeys_exclude_main(store: Any, has: Dict[str, bool]) -> None:
    """13. list_subkeys never lists the main transcript"""
    store.append(_KEY, [_e(n=1)])
    assert store.list_subkeys(_KEY) == []
    assert store.list_subkeys({"project_key": "proj", "session_id": "never-appended"}) == []


@_contract("list_session_summaries")
def _summaries(store: Any, has: Dict[str, bool]) -> None:
    """14. list_session_summaries returns the folded summaries, stamped with the store's clock"""
    key: SessionKey = {"project_key": "proj", "session_id": "summ-sess"}
    store.append(key, [_e(timestamp="2024-01-01T00:00:00.000Z", customTitle="first"), _e(timestamp="2024-01-01T00:00:01.000Z")])
    store.append(key, [_e(timestamp="2024-01-01T00:00:02.000Z", customTitle="second")])
    store.append({"project_key": "other", "session_id": "elsewhere"}, [_e(timestamp="2024-01-01T00:00:00.000Z")])
    by_id = {s["session_id"]: s for s in store.list_session_summaries("proj")}
    assert set(by_id) == {"summ-sess"}, by_id
    summary = by_id["summ-sess"]
    assert math.isfinite(summary["mtime"]) and summary["mtime"] > 1e12
    assert summary["data"].get("custom_title") == "second", summary
    if has["list_sessions"]:
        listed = {r["session_id"]: r["mtime"] for r in store.list_sessions("proj")}
        assert summary["mtime"] >= listed["summ-sess"], (summary["mtime"], listed)
    again = fold_session_summary(summary, key, [_e(timestamp="2024-01-01T00:00:03.000Z")])
    assert again["session_id"] == "summ-sess" and again["mtime"] == summary["mtime"]
    store.append({**key, "subpath": "subagents/agent-1"}, [_e(timestamp="2024-01-01T00:00:09.000Z", customTitle="subagent")])
    after = {s["session_id"]: s for s in store.list_session_summaries("proj")}
    assert after["summ-sess"]["data"] == summary["data"]
    assert store.list_session_summaries("never-appended-project") == []
    if has["delete"]:
        store.delete(key)
        assert store.list_session_summaries("proj") == []


@_contract()
def _json_round_trip(store: Any, has: Dict[str, bool]) -> None:
    """15 (ours). entries come back deep-equal: unicode, nesting, numbers, null"""
    entry = _e(uuid="u", text="héllo \u2603 \U0001f600 \"quoted\"\n", nested={"a": [1, 2.5, None, True, {"b": []}]}, big=2**53)
    store.append(_KEY, [entry])
    assert store.load(_KEY) == [entry]


@_contract()
def _threads(store: Any, has: Dict[str, bool]) -> None:
    """16 (ours). appends from several threads at once, each to its own session, all land in order"""
    errors: List[BaseException] = []

    def key(t: int) -> SessionKey:
        return {"project_key": "proj", "session_id": f"sess-{t}"}

    def writer(t: int) -> None:
        try:
            for i in range(APPENDS_PER_THREAD):
                store.append(key(t), [_e(uuid=f"t{t}-{i}-a", t=t, i=i), _e(uuid=f"t{t}-{i}-b", t=t, i=i)])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,), name=f"claude_sync-conformance-{t}") for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    for t in range(THREADS):
        mine = [e["uuid"] for e in store.load(key(t)) or []]
        assert mine == [f"t{t}-{i}-{half}" for i in range(APPENDS_PER_THREAD) for half in "ab"], mine[:6]
