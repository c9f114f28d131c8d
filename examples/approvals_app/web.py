"""The web side (Flask): start an agent, list the calls waiting for a person, approve or deny.

Run it (see README.md)::

    flask --app approvals_app.web run --port 5000

Pages: ``/`` (start a run, recent runs), ``/approvals`` (every pending approval, with the
buttons), ``/runs/<id>`` (one run: its approvals, the answer, which worker did what; it reloads
itself while a worker is busy) and ``/runs/<id>.json`` (the same, for scripts).

POSTs carry a CSRF token (kept in the signed session cookie) and are refused from another
origin; no page may be framed by another site (clickjacking an "Approve"). Deciding is one conditional UPDATE in PostgreSQL: of two racing clicks the first wins,
the second gets HTTP 409. Templates escape every value (Jinja's autoescape).
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from typing import Any, Dict, List, Optional, Tuple

from flask import (
    Flask,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from kombu.exceptions import OperationalError as BrokerError
from werkzeug.exceptions import HTTPException

from claude_sync import PostgresSessionStore, project_key_for_directory

from . import tasks
from .db import Database

_ID = re.compile(r"\A[0-9a-f]{32}\Z")
MAX_PROMPT = 20_000
MAX_REASON = 2_000


class Conflict(HTTPException):
    code = 409
    description = "This approval was already decided."


def create_app() -> Flask:
    """The Flask app, configured from the environment (``approvals_app.config``)."""
    config = tasks.CONFIG
    app = Flask(__name__)
    app.config.update(SECRET_KEY=config.secret_key, SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True,
                      MAX_CONTENT_LENGTH=256 * 1024)  # fmt: skip
    db = Database(config.database_url)
    db.create_schema()
    store = PostgresSessionStore(config.database_url)
    project_key = project_key_for_directory(config.workdir)

    def csrf_token() -> str:
        if "csrf" not in session:
            session["csrf"] = secrets.token_urlsafe(32)
        return str(session["csrf"])

    app.jinja_env.globals["csrf_token"] = csrf_token
    # Plain JSON for people (the template escapes it); a lone command is shown as it is.
    app.jinja_env.filters["call_text"] = lambda tool_input: (
        tool_input["command"] if set(tool_input) <= {"command", "description"} and isinstance(tool_input.get("command"), str)
        else json.dumps(tool_input, indent=2, ensure_ascii=False)
    )

    @app.before_request
    def same_origin_and_token() -> None:
        if request.method != "POST":
            return
        origin = request.headers.get("Origin")
        if origin is not None and origin != request.host_url.rstrip("/"):
            abort(403, f"a POST from another origin ({origin}) is refused")
        sent, kept = request.form.get("csrf_token", ""), session.get("csrf", "")
        if not sent or not kept or not hmac.compare_digest(sent, kept):
            abort(400, "the form's CSRF token is missing or wrong: reload the page and try again")

    @app.after_request
    def no_framing(response: Response) -> Response:
        # An "Approve" button inside someone else's frame could be clicked by trickery.
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.errorhandler(HTTPException)
    def error_page(exc: HTTPException) -> Tuple[str, int]:
        return render_template("error.html", code=exc.code, name=exc.name, message=exc.description), exc.code or 500

    def text_field(name: str, limit: int, what: str) -> str:
        """The form field ``name``, stripped: 400 unless it has 1 to ``limit`` characters and no
        NUL (PostgreSQL text cannot hold one)."""
        value = request.form.get(name, "").strip()
        if not value or len(value) > limit or "\x00" in value:
            abort(400, f"{what} must have 1 to {limit} characters (and no NUL)")
        return value

    def known(kind: str, item_id: str) -> Dict[str, Any]:
        row = (db.run if kind == "run" else db.approval)(item_id) if _ID.match(item_id) else None
        if row is None:
            abort(404, f"no {kind} {item_id!r}")
        return row

    def claims(approval: Dict[str, Any]) -> List[Dict[str, Any]]:
        """The claims on this approval's call in the session store (who resumed it, when)."""
        record = approval["record"]
        key = {"project_key": project_key, "session_id": record["session_id"],
               "subpath": f"approvals/claim-{record['tool_use_id']}"}  # fmt: skip
        return [dict(entry) for entry in store.load(key) or [] if entry.get("type") == "approval_claim"]

    def run_view(run_id: str) -> Dict[str, Any]:
        run = known("run", run_id)
        approvals = [dict(a, claims=claims(a)) for a in db.approvals_of(run_id)]
        return {"run": run, "approvals": approvals, "events": db.events_of(run_id)}

    @app.get("/")
    def index() -> str:
        return render_template("index.html", runs=db.recent_runs(), pending=len(db.pending_approvals()))

    @app.post("/runs")
    def start() -> Any:
        prompt = text_field("prompt", MAX_PROMPT, "the prompt")
        run_id = db.create_run(prompt)
        try:
            tasks.start_run.apply_async((run_id,))
        except BrokerError as exc:
            db.finish_run(run_id, status="failed", error=f"could not queue the run: the task queue is unreachable ({exc})")
            abort(503, "the task queue (redis) is unreachable: the run was not started; try again later")
        return redirect(url_for("show_run", run_id=run_id), 303)

    @app.get("/runs/<run_id>")
    def show_run(run_id: str) -> str:
        view = run_view(run_id)
        # Reload while a worker has something to do: the run itself, or a decision it has not
        # taken up yet (right after "Approve" the run still says "waiting").
        busy = view["run"]["status"] in ("queued", "running") or any(
            a["status"] != "pending" and a["resume_status"] in ("queued", "running") for a in view["approvals"]
        )
        return render_template("run.html", busy=busy, **view)

    @app.get("/runs/<run_id>.json")
    def run_json(run_id: str) -> Any:
        view = run_view(run_id)
        return jsonify({
            "id": view["run"]["id"], "prompt": view["run"]["prompt"], "status": view["run"]["status"], "answer": view["run"]["answer"],
            "error": view["run"]["error"], "session_id": view["run"]["session_id"], "started_by": view["run"]["started_by"],
            "approvals": [{key: a[key] for key in ("id", "status", "deny_message", "resume_status", "resumed_by", "resume_note")}
                          | {"tool_name": a["record"]["tool_name"], "tool_input": a["record"]["tool_input"],
                             "tool_use_id": a["record"]["tool_use_id"],
                             "claimants": [c.get("claimant") for c in a["claims"]]} for a in view["approvals"]],
            "events": [{"worker": e["worker"], "what": e["what"], "at": e["at"].isoformat()} for e in view["events"]],
        })  # fmt: skip

    @app.get("/approvals")
    def approvals() -> str:
        pending = [dict(a, claims=claims(a)) for a in db.pending_approvals()]
        return render_template("approvals.html", pending=pending)

    def decide(approval_id: str, status: str, message: Optional[str]) -> Any:
        approval = known("approval", approval_id)
        decided = db.decide(approval_id, status, message)
        if decided is None:
            current = db.approval(approval_id) or approval
            raise Conflict(f"This approval was already {current['status']} at {current['decided_at']:%Y-%m-%d %H:%M:%S %Z}; "
                           "nothing was changed.")  # fmt: skip
        try:
            tasks.resume_run.apply_async((approval_id,))
        except BrokerError:
            db.undecide(approval_id)
            abort(503, "the task queue (redis) is unreachable: your decision was not recorded; try again later")
        return redirect(url_for("show_run", run_id=decided["run_id"]), 303)

    @app.post("/approvals/<approval_id>/approve")
    def approve(approval_id: str) -> Any:
        return decide(approval_id, "allowed", None)

    @app.post("/approvals/<approval_id>/deny")
    def deny(approval_id: str) -> Any:
        reason = text_field("reason", MAX_REASON, "a denial needs a reason the agent is told: it")
        return decide(approval_id, "denied", reason)

    return app
