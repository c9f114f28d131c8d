"""The web side (Flask): start an agent, list the calls waiting for a person, approve or deny.

Run it (see README.md)::

    APP_PASSWORD=… flask --app approvals_app.web run --port 5000
    python -m approvals_app.web --loopback-demo        # no password: this machine only

Nobody sees or decides anything before signing in with the shared password ``APP_PASSWORD``
(compared in constant time; the session cookie then carries a mark derived from it and
``SECRET_KEY``, so changing the password signs everyone out). Without ``APP_PASSWORD`` the app
refuses to start, unless started as a loopback-only demo: then it listens on 127.0.0.1 only
and answers only requests from this machine addressed to a loopback name (a page elsewhere
cannot reach it through DNS rebinding).

Pages: ``/`` (start a run, recent runs), ``/approvals`` (every pending approval, with the
buttons), ``/runs/<id>`` (one run: its approvals, the answer, which worker did what; it reloads
itself while a worker is busy) and ``/runs/<id>.json`` (the same, for scripts).

POSTs carry a CSRF token (kept in the signed session cookie) and are refused from another
origin; no page may be framed by another site (clickjacking an "Approve"). Deciding is one
conditional UPDATE in PostgreSQL: of two racing clicks the first wins, the second gets HTTP
409. Templates escape every value (Jinja's autoescape).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import sys
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

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
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from claude_sync import PostgresSessionStore, project_key_for_directory

from . import tasks
from .config import ConfigError, web_password
from .db import Database

logger = logging.getLogger("approvals_app.web")

_ID = re.compile(r"\A[0-9a-f]{32}\Z")
_LOCAL_PATH = re.compile(r"\A/(?![/\\])[^\s\\]*\Z")  # where to go after signing in: this site only
MAX_PROMPT = 20_000
MAX_REASON = 2_000
MAX_PASSWORD = 1_000
OPEN_ENDPOINTS = ("sign_in", "static")
"""What answers before signing in (the sign-in form itself)."""


class Conflict(HTTPException):
    code = 409
    description = "This approval was already decided."


def _moment(value: Any) -> Optional[datetime]:
    """A ``datetime``, or one parsed from ISO 8601 text (the library's records); else None."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return value if isinstance(value, datetime) else None


def when(value: Any) -> str:
    """A moment as the server's local time to the second (``2026-12-02 14:03:07 CET``);
    anything that is not a moment as it is."""
    moment = _moment(value)
    if moment is None:
        return "" if value is None else str(value)
    local = moment.astimezone() if moment.tzinfo is not None else moment
    return local.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def time_tag(value: Any) -> Markup:
    """``<time datetime=…>`` around ``when(value)`` (the page's script shows it in the
    reader's own time zone); escaped."""
    moment = _moment(value)
    if moment is None:
        return Markup.escape(when(value))
    return Markup('<time datetime="{}">{}</time>').format(moment.isoformat(timespec="seconds"), when(moment))


RUN_STATUS_WORDS = {"waiting": "waiting for a person"}


def status_words(run: Dict[str, Any], denied: bool) -> str:
    """A run's status for people: a finished run whose call a person denied says "denied"."""
    if run["status"] == "done" and denied:
        return "denied"
    return RUN_STATUS_WORDS.get(run["status"], run["status"])


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


def _is_loopback(host: Optional[str]) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def create_app(*, loopback_demo: bool = False) -> Flask:
    """The Flask app, configured from the environment (``approvals_app.config``). Raises
    ``ConfigError`` without ``APP_PASSWORD``, unless ``loopback_demo`` (then every request
    not from this machine to a loopback name gets 403)."""
    config = tasks.CONFIG
    password = web_password(tasks.WEB_ENV, loopback_demo=loopback_demo)
    # What a signed-in session carries: derived from the password (never the password itself).
    signed_in_mark = None if password is None else hmac.new(
        config.secret_key.encode("utf-8", "surrogateescape"), b"approvals_app sign-in\0" + _digest(password), "sha256"
    ).hexdigest()  # fmt: skip
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

    def signed_in() -> bool:
        if signed_in_mark is None:
            return True
        return hmac.compare_digest(str(session.get("signed_in", "")), signed_in_mark)

    app.jinja_env.globals.update(csrf_token=csrf_token, signed_in=signed_in, loopback_demo=loopback_demo)
    app.jinja_env.filters.update(when=time_tag, status_words=status_words)
    # Plain JSON for people (the template escapes it); a lone command is shown as it is.
    app.jinja_env.filters["call_text"] = lambda tool_input: (
        tool_input["command"] if set(tool_input) <= {"command", "description"} and isinstance(tool_input.get("command"), str)
        else json.dumps(tool_input, indent=2, ensure_ascii=False)
    )

    def sign_in_page(status: int, message: Optional[str] = None) -> Tuple[str, int]:
        wanted = request.full_path.rstrip("?") if request.method == "GET" else url_for("approvals")
        return render_template("sign_in.html", next=wanted, message=message), status

    def demo_may_answer() -> bool:
        """A request from this machine, to a loopback name (not a rebound DNS name), not
        relayed by a proxy (a proxy on this machine would bring the world in)."""
        relayed = any(name in request.headers for name in ("Forwarded", "X-Forwarded-For", "X-Real-Ip", "Via"))
        return not relayed and _is_loopback(request.remote_addr) and _is_loopback(urlsplit("//" + request.host).hostname)

    @app.before_request
    def guard() -> Any:
        """This machine only (a demo); POSTs from this site; nothing before signing in; a
        form's CSRF token."""
        if loopback_demo and not demo_may_answer():
            abort(403, "this demo answers this machine only (it was started with --loopback-demo)")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin != request.host_url.rstrip("/"):
                abort(403, f"a POST from another origin ({origin}) is refused")
        if not signed_in() and request.endpoint not in OPEN_ENDPOINTS:
            return sign_in_page(401, "Sign in to see and decide the agents' tool calls.")
        if request.method == "POST":
            sent, kept = request.form.get("csrf_token", ""), session.get("csrf", "")
            if not sent or not kept or not hmac.compare_digest(_digest(sent), _digest(str(kept))):  # any characters
                abort(400, "the form's CSRF token is missing or wrong: reload the page and try again")
        return None

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

    @app.route("/sign-in", methods=["GET", "POST"])
    def sign_in() -> Any:
        if request.method == "GET":
            return sign_in_page(200) if not signed_in() or signed_in_mark is None else redirect(url_for("approvals"), 303)
        if signed_in_mark is None or password is None:
            return redirect(url_for("approvals"), 303)
        sent = request.form.get("password", "")
        # Constant time, whatever the lengths: the digests are compared, not the texts.
        if len(sent) > MAX_PASSWORD or not hmac.compare_digest(_digest(sent), _digest(password)):
            logger.warning("a sign-in with a wrong password from %s", request.remote_addr)
            return sign_in_page(401, "That password is not the one this app was started with.")
        session.clear()  # a fresh session (and CSRF token) for the signed-in person
        session["signed_in"] = signed_in_mark
        wanted = request.form.get("next", "")
        return redirect(wanted if _LOCAL_PATH.match(wanted) else url_for("approvals"), 303)

    @app.post("/sign-out")
    def sign_out() -> Any:
        session.clear()
        return redirect(url_for("sign_in"), 303)

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
            raise Conflict(f"This approval was already {current['status']} at {when(current['decided_at'])}; "
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


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m approvals_app.web [--loopback-demo] [--port N]``: Flask's own server on
    127.0.0.1 (for trying the app; in production use a WSGI server)."""
    parser = argparse.ArgumentParser(prog="python -m approvals_app.web", description=main.__doc__)
    parser.add_argument("--loopback-demo", action="store_true",
                        help="no password: listen on 127.0.0.1 and answer this machine only")  # fmt: skip
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args(argv)
    try:
        app = create_app(loopback_demo=args.loopback_demo)
    except ConfigError as exc:
        print(f"approvals_app: {exc}", file=sys.stderr)
        return 2
    app.run(host="127.0.0.1", port=args.port, debug=False, use_reloader=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
