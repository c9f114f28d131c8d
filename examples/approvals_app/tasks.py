"""The Celery side: two tasks, each run by whichever worker takes it off its queue.

``start_run(run_id)``      runs the prompt with ``run_with_approvals``; ends with the answer, or
                           with a ``PendingApproval`` filed in ``app_approvals`` for a person.
``resume_run(approval_id)`` applies the person's decision with ``resume_approval`` and runs the
                           session on, from the session store: any worker, any machine with the
                           same ``AGENT_WORKDIR`` path; its HOME needs nothing.

Start a worker (see README.md)::

    celery -A approvals_app.tasks worker -Q start,resume --concurrency 1

Delivery: Celery's default, a task is acknowledged when a worker receives it, so it runs at most
once. A worker process that dies mid-task is reported by its parent (``WorkerLostError``), and
``on_task_failure`` marks the run failed; the task is not run again. Should a resume be
delivered twice anyway (a publisher retry, someone replaying it), the library's claim in the
session store lets exactly one delivery run the call; the other records that it ran nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from typing import Any, Optional, Union

from billiard.exceptions import WorkerLostError
from celery import Celery, Task, signals

from claude_sync import (
    ApprovalClaimedError,
    ApprovalDecision,
    ApprovalPolicy,
    ApprovalStaleError,
    ClaudeAgentOptions,
    PendingApproval,
    PostgresSessionStore,
    RunResult,
    resume_approval,
    run_with_approvals,
)

from .config import PASSWORD_ENV, Config
from .db import Database

logger = logging.getLogger("approvals_app")

CONFIG = Config.from_env()
WEB_ENV = {PASSWORD_ENV: os.environ.get(PASSWORD_ENV, "")}
"""What only the web app reads (``config.web_password``), kept before it leaves the environment."""
# The agent's tools (Bash) run with this process's environment: keep the credentials out of it.
for _name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", PASSWORD_ENV):
    os.environ.pop(_name, None)
POLICY = ApprovalPolicy(rules=list(CONFIG.rules))
START, RESUME = "approvals_app.start_run", "approvals_app.resume_run"

celery_app = Celery("approvals_app")
celery_app.conf.update(
    broker_url=CONFIG.redis_url,
    task_ignore_result=True,  # results go to PostgreSQL (app_runs), not to a result backend
    task_serializer="json",
    accept_content=["json"],
    task_routes={START: {"queue": "start"}, RESUME: {"queue": "resume"}},
    worker_prefetch_multiplier=1,  # an agent run is long: do not hoard messages
    broker_connection_timeout=3,
    broker_connection_retry_on_startup=True,
    # Publishing (the web app): a broker that does not answer fails the request within seconds.
    task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1},
    worker_hijack_root_logger=False,
)

_store: Optional[PostgresSessionStore] = None
_store_lock = threading.Lock()


def database() -> Database:
    return Database(CONFIG.database_url)


def session_store() -> PostgresSessionStore:
    """This worker process's store (opened on first use: after the fork, never before)."""
    global _store
    with _store_lock:
        if _store is None:
            _store = PostgresSessionStore(CONFIG.database_url)
        return _store


@signals.worker_process_shutdown.connect
def _close_store(**_: Any) -> None:
    global _store
    with _store_lock:
        if _store is not None:
            _store.close()
            _store = None


@signals.worker_init.connect
def _schema(**_: Any) -> None:
    database().create_schema()


def agent_options() -> ClaudeAgentOptions:
    # slash_commands=False: a prompt typed in the form goes to the model as text; "/config …"
    # would otherwise change this worker's settings for every later run.
    return ClaudeAgentOptions(cli_path=CONFIG.cli_path, cwd=CONFIG.workdir, session_store=session_store(),
                              slash_commands=False)  # fmt: skip


def who(task: Task) -> str:
    return f"{task.request.hostname} pid {os.getpid()}"


def delivery_claimant(worker: str, task: Task) -> str:
    """Who claims the approval: this one delivery. The worker and the task id are not enough:
    a thread or gevent pool runs two deliveries of one message (a publisher retry keeps its
    task id) in one process, and the library lets the same claimant claim again."""
    return f"{worker} task {task.request.id} delivery {uuid.uuid4().hex[:12]}"


def record_outcome(db: Database, run_id: str, outcome: Union[RunResult[Any], PendingApproval], worker: str) -> None:
    """File a pending approval, or the run's answer."""
    if isinstance(outcome, PendingApproval):
        db.add_approval(run_id, outcome.to_dict(), outcome.session_id)
        db.event(run_id, worker, f"stopped before running {outcome.tool_name}: waiting for a person")
    elif outcome.is_error:
        db.finish_run(run_id, status="failed", session_id=outcome.session_id, answer=outcome.text,
                      error=f"the run ended with an error result ({outcome.result.subtype})")  # fmt: skip
        db.event(run_id, worker, "the run ended with an error result")
    else:
        db.finish_run(run_id, status="done", session_id=outcome.session_id, answer=outcome.text)
        db.event(run_id, worker, "finished")


@celery_app.task(name=START, bind=True)
def start_run(self: Task, run_id: str) -> None:
    """Run ``app_runs[run_id]``'s prompt until its answer or a call a person must approve."""
    db, worker = database(), who(self)
    prompt = db.start_run(run_id, worker)
    if prompt is None:
        logger.warning("run %s is not queued (unknown, or delivered again): nothing to do", run_id)
        return
    db.event(run_id, worker, "started the run")
    try:
        outcome = run_with_approvals(prompt, policy=POLICY, options=agent_options(), timeout=CONFIG.agent_timeout)
    except Exception as exc:
        db.finish_run(run_id, status="failed", error=f"{type(exc).__name__}: {exc}")
        db.event(run_id, worker, f"failed: {type(exc).__name__}")
        raise
    record_outcome(db, run_id, outcome, worker)


@celery_app.task(name=RESUME, bind=True)
def resume_run(self: Task, approval_id: str) -> None:
    """Apply the decision recorded for ``app_approvals[approval_id]`` and run the session on."""
    db, worker = database(), who(self)
    row = db.start_resume(approval_id)
    if row is None:
        logger.warning("approval %s is unknown or undecided: nothing to resume", approval_id)
        return
    run_id = row["run_id"]
    pending = PendingApproval.from_dict(row["record"])
    decision = ApprovalDecision.allow() if row["status"] == "allowed" else ApprovalDecision.deny(row["deny_message"])
    db.event(run_id, worker, f"resuming after the decision: {'approved' if row['status'] == 'allowed' else 'denied'}", approval_id)
    try:
        outcome = resume_approval(pending, decision, policy=POLICY, options=agent_options(),
                                  timeout=CONFIG.agent_timeout, claimant=delivery_claimant(worker, self))  # fmt: skip
    except ApprovalClaimedError as exc:  # another delivery runs it: leave its outcome alone
        db.event(run_id, worker, "this decision was delivered twice and the other delivery carries it out: ran nothing here", approval_id)
        logger.info("approval %s was claimed first by %r: ran nothing", approval_id, exc.claim.get("claimant"))
        return
    except ApprovalStaleError as exc:
        db.event(run_id, worker, f"the decision no longer applies, ran nothing: {exc}", approval_id)
        if row["resume_status"] == "queued":  # the first delivery: nobody else will finish the run
            db.finish_resume(approval_id, resume_status="refused", note=str(exc), worker=worker)
            db.fail_unfinished_run(run_id, f"the decision no longer applied: {exc}")
        return
    except Exception as exc:
        db.finish_resume(approval_id, resume_status="failed", note=f"{type(exc).__name__}: {exc}", worker=worker)
        db.fail_unfinished_run(run_id, f"the resume failed: {type(exc).__name__}: {exc}")
        db.event(run_id, worker, f"resume failed: {type(exc).__name__}", approval_id)
        raise
    db.finish_resume(approval_id, resume_status="done", note="carried out", worker=worker)
    record_outcome(db, run_id, outcome, worker)


@signals.task_failure.connect
def on_task_failure(sender: Any = None, exception: Any = None, args: Any = None, **_: Any) -> None:
    """A pool process that died mid-task (killed, out of memory): its parent reports it here.
    Mark what it was doing failed, so the page does not say "running" for ever. (Exceptions
    inside a task are recorded by the task itself.)"""
    if not isinstance(exception, WorkerLostError) or not args:
        return
    db, why = database(), f"the worker process running it was lost ({exception}); it is not retried"
    if getattr(sender, "name", None) == START:
        db.fail_unfinished_run(args[0], why)
    elif getattr(sender, "name", None) == RESUME:
        row = db.approval(args[0])
        if row is not None:
            db.finish_resume(args[0], resume_status="failed", note=why, worker="(lost)")
            db.fail_unfinished_run(row["run_id"], why)
