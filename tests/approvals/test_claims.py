"""Approval claims: of N resumes racing for one pending approval exactly one wins, per store
(memory, SQLite, PostgreSQL with one connection per racer) and without a store (a local file)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, List

import pytest

from claude_sync import (
    ApprovalClaimedError,
    ApprovalDecision,
    ApprovalStaleError,
    ClaudeAgentOptions,
    InMemorySessionStore,
    PendingApproval,
    SQLiteSessionStore,
    get_session_messages_from_store,
    list_sessions_from_store,
    list_subagents_from_store,
    project_key_for_directory,
)
from claude_sync._approvals.claims import claim, load_transcript

RACERS = 8
SESSION = "0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01"


def pending(cwd: Path) -> PendingApproval:
    return PendingApproval(
        session_id=SESSION, tool_use_id="toolu_01", tool_name="Bash", tool_input={"command": "rm x"},
        cwd=str(cwd), permission_mode=None, reason="r", asked_at="2026-11-27T10:00:00.000+00:00",
    )  # fmt: skip


def race(options_for: Callable[[int], ClaudeAgentOptions], record: PendingApproval) -> List[Any]:
    """``RACERS`` threads claim at once (released together); each one's outcome, in order."""
    start = threading.Barrier(RACERS, timeout=30)
    outcomes: List[Any] = [None] * RACERS

    def one(index: int) -> None:
        options = options_for(index)
        start.wait()
        try:
            claim(record, ApprovalDecision.allow(), options, f"racer-{index}", "now")
            outcomes[index] = "won"
        except ApprovalClaimedError as exc:
            outcomes[index] = exc

    threads = [threading.Thread(target=one, args=(i,), name=f"claude_sync-test-racer-{i}") for i in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


def check_one_winner(outcomes: List[Any]) -> None:
    winners = [i for i, outcome in enumerate(outcomes) if outcome == "won"]
    assert len(winners) == 1, outcomes
    losers = [o for o in outcomes if o != "won"]
    assert all(isinstance(o, ApprovalClaimedError) and o.claim.get("claimant") == f"racer-{winners[0]}" for o in losers)
    assert all("nothing ran" in str(o) and o.tool_use_id == "toolu_01" for o in losers)


def seed(store: Any, cwd: Path) -> None:
    key = {"project_key": project_key_for_directory(str(cwd)), "session_id": SESSION}
    store.append(key, [{"type": "user", "uuid": "u1", "sessionId": SESSION, "message": {"role": "user", "content": "go"}}])


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_one_claim_wins_in_a_store(kind: str, tmp_path: Path) -> None:
    store: Any = InMemorySessionStore() if kind == "memory" else SQLiteSessionStore(tmp_path / "s.db")
    try:
        seed(store, tmp_path)
        check_one_winner(race(lambda i: ClaudeAgentOptions(session_store=store), pending(tmp_path)))
        # the claim lives beside the session, invisible to the session functions
        [row] = list_sessions_from_store(store, str(tmp_path))
        assert row.session_id == SESSION and list_subagents_from_store(store, SESSION, str(tmp_path)) == []
        assert len(get_session_messages_from_store(store, SESSION, str(tmp_path))) == 1
    finally:
        if kind == "sqlite":
            store.close()


def test_one_claim_wins_across_postgres_connections(pg_conninfo: str, tmp_path: Path) -> None:
    from claude_sync import PostgresSessionStore

    stores = [PostgresSessionStore(pg_conninfo) for _ in range(RACERS)]
    try:
        seed(stores[0], tmp_path)
        check_one_winner(race(lambda i: ClaudeAgentOptions(session_store=stores[i]), pending(tmp_path)))
    finally:
        for store in stores:
            store.close()


def test_one_claim_wins_without_a_store(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    check_one_winner(race(lambda i: ClaudeAgentOptions(env=env), pending(tmp_path)))
    [claim_file] = (tmp_path / "home" / ".claude" / "projects").glob(f"*/{SESSION}/approvals/claim-toolu_01.json")
    assert claim_file.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in claim_file.parent.iterdir()] == [claim_file.name]  # no drafts left


def test_the_same_claimant_may_retry_and_nobody_else() -> None:
    store = InMemorySessionStore()
    options = ClaudeAgentOptions(session_store=store)
    record = pending(Path("/srv/app"))
    claim(record, ApprovalDecision.allow(), options, "job-1", "t1")
    claim(record, ApprovalDecision.allow(), options, "job-1", "t2")  # a deliberate retry
    with pytest.raises(ApprovalClaimedError, match="job-1"):
        claim(record, ApprovalDecision.deny("no"), options, "job-2", "t3")


def test_a_session_in_neither_place_is_stale(tmp_path: Path) -> None:
    with pytest.raises(ApprovalStaleError, match="not in the session store"):
        load_transcript(pending(tmp_path), ClaudeAgentOptions(session_store=InMemorySessionStore()))
    with pytest.raises(ApprovalStaleError, match="no transcript"):
        load_transcript(pending(tmp_path), ClaudeAgentOptions(env={"HOME": str(tmp_path)}))


def test_a_store_that_fails_loses_nothing_and_claims_nothing(tmp_path: Path) -> None:
    class Broken(InMemorySessionStore):
        def append(self, key: Any, entries: Any) -> None:
            raise ConnectionError("store unreachable")

    with pytest.raises(ConnectionError):
        claim(pending(tmp_path), ApprovalDecision.allow(), ClaudeAgentOptions(session_store=Broken()), "a", "t")


