"""The application's own tables in PostgreSQL (beside the session store's ``claude_sync_*``
tables in the same database), and every query the web app and the workers make.

``app_runs``       one agent run: its prompt, where it is (queued, running, waiting for a
                   person, done, failed), the session id, the final answer, which worker ran it.
``app_approvals``  one tool call waiting for (or decided by) a person: the ``PendingApproval``
                   record as JSON, the decision, which worker resumed it and how that went.
``app_events``     what each worker did, in order (a task delivered twice shows up twice).

Every state change is one conditional ``UPDATE … WHERE status = …``: PostgreSQL's row lock
makes the first of two racing requests win and the other see 0 rows (a second click on
"Approve" gets HTTP 409, a task delivered twice does nothing the second time).
"""

from __future__ import annotations

import uuid
from typing import Any, Dict, List, Optional

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

SCHEMA = """
CREATE TABLE IF NOT EXISTS app_runs (
    id          text PRIMARY KEY,
    prompt      text NOT NULL,
    status      text NOT NULL,
    session_id  text,
    answer      text,
    error       text,
    started_by  text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS app_approvals (
    id            text PRIMARY KEY,
    run_id        text NOT NULL REFERENCES app_runs (id),
    record        jsonb NOT NULL,
    status        text NOT NULL,
    deny_message  text,
    decided_at    timestamptz,
    resume_status text,
    resumed_by    text,
    resume_note   text,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS app_events (
    id           bigserial PRIMARY KEY,
    run_id       text NOT NULL REFERENCES app_runs (id),
    approval_id  text,
    worker       text NOT NULL,
    what         text NOT NULL,
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS app_approvals_pending ON app_approvals (created_at) WHERE status = 'pending';
"""

RUN_STATES = ("queued", "running", "waiting", "done", "failed")
APPROVAL_STATES = ("pending", "allowed", "denied")


class Database:
    """Short connections to ``url`` (one per call; the web app and each worker process make
    their own). Every call blocks for at most ``timeout`` seconds to connect."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url
        self.timeout = timeout

    def connect(self) -> psycopg.Connection[Dict[str, Any]]:
        return psycopg.connect(self.url, connect_timeout=max(1, int(self.timeout)), row_factory=dict_row)

    def create_schema(self) -> None:
        """Create the tables if missing (an advisory lock: the web app and the workers may start
        together, and two concurrent ``CREATE TABLE IF NOT EXISTS`` can collide)."""
        with self.connect() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('approvals_app schema'))")
            conn.execute(SCHEMA)

    # ------------------------------------------------------------------ runs

    def create_run(self, prompt: str) -> str:
        run_id = uuid.uuid4().hex
        with self.connect() as conn:
            conn.execute("INSERT INTO app_runs (id, prompt, status) VALUES (%s, %s, 'queued')", (run_id, prompt))
        return run_id

    def start_run(self, run_id: str, worker: str) -> Optional[str]:
        """queued -> running; the prompt, or None when the run is not queued (delivered twice)."""
        with self.connect() as conn:
            row = conn.execute(
                "UPDATE app_runs SET status = 'running', started_by = %s, updated_at = now() "
                "WHERE id = %s AND status = 'queued' RETURNING prompt",
                (worker, run_id),
            ).fetchone()
        return None if row is None else str(row["prompt"])

    def finish_run(self, run_id: str, *, status: str, session_id: Optional[str] = None,
                   answer: Optional[str] = None, error: Optional[str] = None) -> None:  # fmt: skip
        assert status in RUN_STATES, status
        with self.connect() as conn:
            conn.execute(
                "UPDATE app_runs SET status = %s, session_id = COALESCE(%s, session_id), "
                "answer = COALESCE(%s, answer), error = %s, updated_at = now() WHERE id = %s",
                (status, session_id, answer, error, run_id),
            )

    def fail_unfinished_run(self, run_id: str, error: str) -> None:
        """Mark a run failed unless it already ended or waits for a person."""
        with self.connect() as conn:
            conn.execute(
                "UPDATE app_runs SET status = 'failed', error = %s, updated_at = now() "
                "WHERE id = %s AND status IN ('queued', 'running')",
                (error, run_id),
            )

    def run(self, run_id: str) -> Optional[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute("SELECT * FROM app_runs WHERE id = %s", (run_id,)).fetchone()

    def recent_runs(self, limit: int = 50) -> List[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute(
                "SELECT r.*, EXISTS (SELECT 1 FROM app_approvals a WHERE a.run_id = r.id AND a.status = 'denied') AS denied "
                "FROM app_runs r ORDER BY r.created_at DESC LIMIT %s",
                (limit,),
            ).fetchall()

    # ------------------------------------------------------------------ approvals

    def add_approval(self, run_id: str, record: Dict[str, Any], session_id: str) -> str:
        """File a pending approval and mark its run waiting (one transaction)."""
        approval_id = uuid.uuid4().hex
        with self.connect() as conn:
            conn.execute(
                "INSERT INTO app_approvals (id, run_id, record, status) VALUES (%s, %s, %s, 'pending')",
                (approval_id, run_id, Jsonb(record)),
            )
            conn.execute(
                "UPDATE app_runs SET status = 'waiting', session_id = %s, updated_at = now() WHERE id = %s",
                (session_id, run_id),
            )
        return approval_id

    def approval(self, approval_id: str) -> Optional[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute("SELECT * FROM app_approvals WHERE id = %s", (approval_id,)).fetchone()

    def pending_approvals(self) -> List[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute(
                "SELECT a.*, r.prompt FROM app_approvals a JOIN app_runs r ON r.id = a.run_id "
                "WHERE a.status = 'pending' ORDER BY a.created_at"
            ).fetchall()

    def approvals_of(self, run_id: str) -> List[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute("SELECT * FROM app_approvals WHERE run_id = %s ORDER BY created_at", (run_id,)).fetchall()

    def decide(self, approval_id: str, status: str, deny_message: Optional[str]) -> Optional[Dict[str, Any]]:
        """pending -> allowed/denied: the row, or None when it was not pending (decided already,
        or unknown: the caller tells which). The first of two racing calls wins."""
        assert status in ("allowed", "denied"), status
        with self.connect() as conn:
            return conn.execute(
                "UPDATE app_approvals SET status = %s, deny_message = %s, decided_at = now(), "
                "resume_status = 'queued' WHERE id = %s AND status = 'pending' RETURNING *",
                (status, deny_message, approval_id),
            ).fetchone()

    def undecide(self, approval_id: str) -> None:
        """Back to pending: the decision could not be queued (the broker is down)."""
        with self.connect() as conn:
            conn.execute(
                "UPDATE app_approvals SET status = 'pending', deny_message = NULL, decided_at = NULL, "
                "resume_status = NULL WHERE id = %s AND resume_status = 'queued'",
                (approval_id,),
            )

    def start_resume(self, approval_id: str) -> Optional[Dict[str, Any]]:
        """The decided approval row (None when unknown or still pending); the first delivery
        moves it queued -> running. A second delivery gets the row too and goes on to
        ``resume_approval``: the library's claim in the session store, not this row, decides
        which delivery runs the call."""
        with self.connect() as conn:
            row = conn.execute("SELECT * FROM app_approvals WHERE id = %s AND status <> 'pending'", (approval_id,)).fetchone()
            if row is not None:
                moved = conn.execute(
                    "UPDATE app_approvals SET resume_status = 'running' WHERE id = %s AND resume_status = 'queued'",
                    (approval_id,),
                ).rowcount
                if moved:
                    conn.execute("UPDATE app_runs SET status = 'running', updated_at = now() WHERE id = %s", (row["run_id"],))
        return row

    def finish_resume(self, approval_id: str, *, resume_status: str, note: str, worker: str) -> None:
        """The outcome of the delivery that ran the resume (the claim's winner)."""
        with self.connect() as conn:
            conn.execute(
                "UPDATE app_approvals SET resume_status = %s, resume_note = %s, resumed_by = %s WHERE id = %s",
                (resume_status, note, worker, approval_id),
            )

    # ------------------------------------------------------------------ events

    def event(self, run_id: str, worker: str, what: str, approval_id: Optional[str] = None) -> None:
        with self.connect() as conn:
            conn.execute(
                "INSERT INTO app_events (run_id, approval_id, worker, what) VALUES (%s, %s, %s, %s)",
                (run_id, approval_id, worker, what),
            )

    def events_of(self, run_id: str) -> List[Dict[str, Any]]:
        with self.connect() as conn:
            return conn.execute("SELECT * FROM app_events WHERE run_id = %s ORDER BY id", (run_id,)).fetchall()
