"""``examples/approvals_app`` end to end, through HTTP: the real CLI (``CLAUDE_SYNC_TEST_CLI``)
against the fake API, real PostgreSQL and redis servers, the app's Celery workers and its Flask
server as real processes, and once headless Chromium clicking "Approve".

The stack lives for the module: worker ``start@test`` takes runs (queue ``start``, one pool
process), worker ``resume@test`` takes decisions (queue ``resume``, two pool processes, so two
deliveries of one decision can race), worker ``threads@test`` takes decisions sent to queue
``resume-threads`` (a thread pool of two: two deliveries in one process), each with its own
fresh HOME: a resume finds the session in PostgreSQL only. Every request signs in first
(``APP_PASSWORD``), except those that check what happens without. The fake API plays a tiny agent: asked to ``note WORD``, it runs
``echo WORD >> ran-WORD.txt`` (the file's lines count the runs), then answers ``Done: WORD
noted.``, or, when the call was denied, repeats what it was told.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest
from helpers import clis_with_home, require_package, wait_until

from claude_sync.testing.fake_api import Answer, ApiRequest, FakeAnthropicAPI, text, tool_use

from .app_servers import (
    AppProcess,
    Browser,
    Http,
    RedisServer,
    form_token,
    require_chromium,
    require_redis_server,
)
from .harness import hermetic_env, require_test_cli, tool_results

# Each test waits on real runs; the first one also starts the stack (workers, web, servers).
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SECRET = "test-secret-key-never-shown-0123456789"
PASSWORD = "test-password-never-shown-9876543210"
RUN_DEADLINE = 180.0
FAKE_APIS: List[FakeAnthropicAPI] = []  # the module's fake API, for the failure messages  # a run or resume on a loaded machine (2.1.197 takes ~5 s alone)


# ----------------------------------------------------------------------------- the fake agent


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content or [])


class Agent:
    """The fake API's responder. A prompt holding ``stall`` has its first turn held until
    ``release`` is set (at most 120 s), one holding ``hold the answer`` its turn after the
    tool's result; ``stalled`` is set when the held turn arrives."""

    def __init__(self) -> None:
        self.stalled = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: ApiRequest) -> Optional[Answer]:
        messages = request.messages
        first = _texts(messages[0].get("content")) if messages else ""
        found = re.search(r"note (\w+)", first)
        word = found.group(1) if found else "nothing"
        # One call per conversation: once it has a result (the resumed turn may add a text
        # message after it), the model answers.
        results = [b for m in messages if isinstance(m.get("content"), list)
                   for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]  # fmt: skip
        if results:
            if "hold the answer" in first:
                self.stalled.set()
                self.release.wait(120)
            said = _texts(results[0].get("content"))
            return text(f"I did not run it. I was told: {said}") if results[0].get("is_error") else text(f"Done: {word} noted.")
        if "stall" in first:
            self.stalled.set()
            self.release.wait(120)
        return tool_use("Bash", {"command": f"echo {word} >> ran-{word}.txt && env > env-{word}.txt"})


# ----------------------------------------------------------------------------- the stack


class Stack:
    def __init__(self, base: Path, cli: str, fake_api: FakeAnthropicAPI, agent: Agent, database_url: str, redis: RedisServer) -> None:
        self.base, self.cli, self.fake_api, self.agent, self.redis = base, cli, fake_api, agent, redis
        self.workdir = base / "agent-workdir"
        self.workdir.mkdir()
        self.logs = base / "logs"
        self.logs.mkdir()
        self.app_env = {"DATABASE_URL": database_url, "REDIS_URL": redis.url, "SECRET_KEY": SECRET,
                        "AGENT_WORKDIR": str(self.workdir), "CLAUDE_CLI_PATH": cli, "AGENT_TIMEOUT": "150",
                        "PYTHONPATH": os.pathsep.join([str(ROOT), str(EXAMPLES)]), "PYTHONFAULTHANDLER": "1",
                        "APP_PASSWORD": PASSWORD}  # fmt: skip
        self.processes: List[AppProcess] = []
        self.homes: Dict[str, Path] = {}
        self.web_url = ""

    def env(self, name: str, **overrides: str) -> Dict[str, str]:
        self.homes[name] = self.base / name / "home"
        return {**hermetic_env(self.base / name, self.fake_api.base_url), **self.app_env, **overrides}

    def worker(self, name: str, queue: str, concurrency: int, pool: str = "prefork") -> AppProcess:
        argv = [sys.executable, "-m", "celery", "-A", "approvals_app.tasks", "worker", "-Q", queue, "-n", f"{name}@test",
                "--pool", pool, "--concurrency", str(concurrency), "--loglevel", "INFO", "--without-gossip",
                "--without-mingle", "--without-heartbeat"]  # fmt: skip
        process = AppProcess(name, argv, cwd=EXAMPLES, env=self.env(name), log_dir=self.logs)
        self.processes.append(process)
        return process

    def web(self, name: str, *, demo: bool = False, **overrides: str) -> Tuple[AppProcess, str]:
        """A web process (``flask run``; ``demo``: ``python -m approvals_app.web --loopback-demo``)
        serving; its URL. ``overrides``: environment variables (an empty one is removed)."""
        from pg_server import free_port

        port = free_port()
        argv = [sys.executable, "-m", "flask", "--app", "approvals_app.web", "run", "--host", "127.0.0.1",
                "--port", str(port), "--no-reload", "--no-debugger"]  # fmt: skip
        if demo:
            argv = [sys.executable, "-m", "approvals_app.web", "--loopback-demo", "--port", str(port)]
        env = {key: value for key, value in self.env(name, **overrides).items() if value}
        process = AppProcess(name, argv, cwd=EXAMPLES, env=env, log_dir=self.logs)
        self.processes.append(process)
        url = f"http://127.0.0.1:{port}"
        if not wait_until(lambda: _answers(url) or process.process.poll() is not None, 60, fail=False) or not _answers(url):
            raise AssertionError(f"{name} did not serve within 60 s:\n{process.log()[-4000:]}")
        return process, url

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()

    def pool_children(self, worker: AppProcess) -> List[int]:
        pids: List[int] = []
        for task in Path(f"/proc/{worker.pid}/task").iterdir():
            try:
                pids += [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                continue
        return pids


def _answers(url: str) -> bool:
    try:
        return Http(url).get("/sign-in")[0] in (200, 303)  # 303: nothing to sign in to (a demo)
    except OSError:
        return False


def signed_in(http: Http) -> Http:
    """``http`` after signing in with the app's password (its session cookie)."""
    status, headers, body = http.post("/sign-in", {"password": PASSWORD, "next": "/",
                                                   "csrf_token": form_token(http.get("/sign-in")[2])})  # fmt: skip
    assert status == 303 and headers["Location"].endswith("/"), (status, body[:2000])
    return http


@pytest.fixture(scope="module")
def stack(postgres_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    import uuid

    import psycopg

    for name in ("celery", "redis", "flask"):
        require_package(name, import_it=False)
    cli = require_test_cli()
    redis = RedisServer(require_redis_server())
    agent = Agent()
    fake_api = FakeAnthropicAPI(responder=agent)
    name = f"t_app_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server.conninfo(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    database_url = f"postgresql://claude_sync@127.0.0.1:{postgres_server.port}/{name}"
    app: Optional[Stack] = None
    try:
        redis.start()
        fake_api.start()
        FAKE_APIS.append(fake_api)
        app = Stack(tmp_path_factory.mktemp("approvals_app"), cli, fake_api, agent, database_url, redis)
        starter = app.worker("start", "start", 1)
        resumer = app.worker("resume", "resume", 2)
        threaded = app.worker("threads", "resume-threads", 2, pool="threads")
        _, app.web_url = app.web("web")
        for worker in (starter, resumer, threaded):
            worker.wait_for_log(r"ready\.", 90)
        yield app
    finally:
        agent.release.set()
        if app is not None:
            app.stop()
        fake_api.stop()
        FAKE_APIS.clear()
        redis.cleanup()
        with psycopg.connect(postgres_server.conninfo(), autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def http(stack: Stack) -> Http:
    return signed_in(Http(stack.web_url))


# ----------------------------------------------------------------------------- steps


def start_run(http: Http, prompt: str) -> str:
    """POST the form on ``/``; the run's id (from the 303 to its page)."""
    status, headers, body = http.post("/runs", {"prompt": prompt, "csrf_token": form_token(http.get("/")[2])})
    assert status == 303, (status, body[:2000])
    found = re.fullmatch(r".*/runs/([0-9a-f]{32})", headers["Location"])
    assert found, headers["Location"]
    return found.group(1)


def conversation(fake_api: FakeAnthropicAPI, word: str) -> List[str]:
    """What the fake API was asked and answered for the prompt about ``word`` (for failures)."""
    lines = []
    for request in fake_api.requests():
        first = _texts(request.messages[0].get("content")) if request.messages else ""
        if f"note {word}" in first:
            shapes = [f"{m.get('role')}:{[b.get('type') for b in m['content']] if isinstance(m.get('content'), list) else 'text'}"
                      for m in request.messages]  # fmt: skip
            lines.append(f"#{request.index} {request.kind} {request.answer}: {shapes}")
    return lines


def wait_status(http: Http, run_id: str, wanted: str, timeout: float = RUN_DEADLINE) -> Dict[str, Any]:
    """Poll ``/runs/<id>.json`` until the run's status is ``wanted``; that JSON. Fails at
    once when the run reached another final status."""
    seen: Dict[str, Any] = {}

    def reached() -> bool:
        nonlocal seen
        time.sleep(0.05)  # a poll every 50 ms, not every 2: the page is a real request
        seen = http.json(f"/runs/{run_id}.json")
        if seen["status"] in ("done", "failed") and seen["status"] != wanted:
            raise AssertionError(f"run {run_id} ended {seen['status']}, not {wanted}: {seen}\n" + explain())
        return bool(seen["status"] == wanted)

    def explain() -> str:
        found = re.search(r"note (\w+)", seen.get("prompt", ""))
        return "\n".join(conversation(FAKE_APIS[-1], found.group(1))) if found and FAKE_APIS else ""

    if not wait_until(reached, timeout, fail=False):
        raise AssertionError(f"run {run_id} not {wanted} within {timeout} s; last seen: {seen}\n" + explain())
    return seen


def decide(http: Http, approval_id: str, action: str, reason: Optional[str] = None, token: Optional[str] = None) -> Tuple[int, str]:
    token = token or form_token(http.get("/")[2])
    form = {"csrf_token": token, **({"reason": reason} if reason is not None else {})}
    status, _, body = http.post(f"/approvals/{approval_id}/{action}", form)
    return status, body


def pid_of(worker: str) -> int:
    return int(worker.rsplit(" pid ", 1)[1])


def ran_lines(stack: Stack, word: str) -> List[str]:
    path = stack.workdir / f"ran-{word}.txt"
    return path.read_text().splitlines() if path.exists() else []


# ----------------------------------------------------------------------------- the flows


def test_approve_on_the_page_runs_the_tool_once_in_another_worker_and_shows_the_answer(stack: Stack, http: Http) -> None:
    started = time.monotonic()
    run_id = start_run(http, "Please note alpha.")
    waiting = wait_status(http, run_id, "waiting")
    deferred_at = time.monotonic()
    [approval] = waiting["approvals"]
    assert approval["status"] == "pending" and approval["tool_input"]["command"].startswith("echo alpha >> ran-alpha.txt")
    assert ran_lines(stack, "alpha") == []  # stopped before the call
    status, _, listing = http.get("/approvals")
    assert status == 200 and f'id="approval-{approval["id"]}"' in listing and "echo alpha &gt;&gt; ran-alpha.txt" in listing

    status, body = decide(http, approval["id"], "approve")
    assert status == 303, body[:2000]
    approved_at = time.monotonic()
    done = wait_status(http, run_id, "done")
    finished = time.monotonic()
    print(f"\n[figures] form -> pending on the page: {deferred_at - started:.2f} s; "
          f"approve -> final answer on the page: {finished - approved_at:.2f} s")  # fmt: skip
    assert done["answer"] == "Done: alpha noted."
    assert ran_lines(stack, "alpha") == ["alpha"]
    [result] = tool_results(stack.fake_api, approval["tool_use_id"])
    assert result.get("is_error") is False
    [decided] = done["approvals"]
    assert decided["status"] == "allowed" and decided["resume_status"] == "done"
    assert decided["resumed_by"].startswith("resume@test") and done["started_by"].startswith("start@test")
    assert pid_of(decided["resumed_by"]) != pid_of(done["started_by"])  # another worker process
    [claimant] = decided["claimants"]
    assert claimant.startswith(f"{decided['resumed_by']} task ") and " delivery " in claimant
    status, _, page = http.get(f"/runs/{run_id}")
    assert status == 200 and '<pre id="answer">Done: alpha noted.</pre>' in page
    # The agent's tools never see the app's credentials.
    seen_env = (stack.workdir / "env-alpha.txt").read_text()
    assert SECRET not in seen_env and stack.app_env["DATABASE_URL"] not in seen_env and "REDIS_URL" not in seen_env

    # Deciding again: a clear 409, nothing runs; an unknown id: 404.
    for action, reason in (("approve", None), ("deny", "too late")):
        status, body = decide(http, approval["id"], action, reason)
        assert status == 409 and "already allowed" in body, body[:2000]
    for bad in ("0" * 32, "not-an-id", "../runs"):
        assert decide(http, bad, "approve")[0] == 404
    assert ran_lines(stack, "alpha") == ["alpha"] and len(tool_results(stack.fake_api, approval["tool_use_id"])) == 1


def test_deny_with_a_reason_reaches_the_model_and_the_page_escapes_it(stack: Stack, http: Http) -> None:
    run_id = start_run(http, "Please note beta.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    status, body = decide(http, approval["id"], "deny", "   ")
    assert status == 400 and "needs a reason" in body
    assert decide(http, approval["id"], "deny", "a\x00b")[0] == 400
    reason = "Not on a Friday <b>evening</b> & not in prod"
    status, body = decide(http, approval["id"], "deny", reason)
    assert status == 303, body[:2000]
    done = wait_status(http, run_id, "done")
    assert reason in done["answer"] and done["answer"].startswith("I did not run it. I was told:")
    assert ran_lines(stack, "beta") == []
    [result] = tool_results(stack.fake_api, approval["tool_use_id"])
    assert result["is_error"] is True and reason in json.dumps(result["content"], ensure_ascii=False)
    page = http.get(f"/runs/{run_id}")[2]
    assert "&lt;b&gt;evening&lt;/b&gt; &amp; not in prod" in page and "<b>evening</b>" not in page


def test_two_simultaneous_approves_run_the_tool_once(stack: Stack, http: Http) -> None:
    run_id = start_run(http, "Please note gamma.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    token = form_token(http.get("/approvals")[2])
    barrier = threading.Barrier(2)
    statuses: List[int] = []

    def click() -> None:
        barrier.wait(10)
        statuses.append(decide(http, approval["id"], "approve", token=token)[0])

    clickers = [threading.Thread(target=click, name=f"test-click-{n}") for n in range(2)]
    for clicker in clickers:
        clicker.start()
    for clicker in clickers:
        clicker.join(60)
    assert sorted(statuses) == [303, 409]
    done = wait_status(http, run_id, "done")
    assert done["answer"] == "Done: gamma noted." and ran_lines(stack, "gamma") == ["gamma"]
    assert len(tool_results(stack.fake_api, approval["tool_use_id"])) == 1


DECIDE_AND_DELIVER_TWICE = r"""
import sys
from approvals_app import tasks
print("ready", flush=True)
approval_id = sys.stdin.readline().strip()
assert tasks.database().decide(approval_id, "allowed", None) is not None
for _ in range(2):  # a publisher retry: the same message, the same task id
    tasks.resume_run.apply_async((approval_id,), task_id="resume-" + approval_id, queue="resume-threads")
print("sent", flush=True)
"""


def publish(stack: Stack, script: str, approval_id: str) -> None:
    """Run ``script`` in a process of its own (the app's environment); it reads the approval's id."""
    publisher = subprocess.Popen([sys.executable, "-c", script], cwd=str(EXAMPLES), env=stack.env("publisher"),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        out, err = publisher.communicate(approval_id + "\n", timeout=60)
        assert publisher.returncode == 0 and out.split() == ["ready", "sent"], err[-3000:]
    finally:
        if publisher.poll() is None:
            publisher.kill()
            publisher.communicate(timeout=10)


def test_a_decision_delivered_twice_to_one_worker_process_runs_the_tool_once(stack: Stack, http: Http) -> None:
    """The same message twice (same task id) to a thread-pool worker: both deliveries run in one
    process at once, and still one runs the call; the other ran nothing."""
    run_id = start_run(http, "Please note omicron.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    publish(stack, DECIDE_AND_DELIVER_TWICE, approval["id"])
    done = wait_status(http, run_id, "done")
    wait_until(lambda: len([e for e in http.json(f"/runs/{run_id}.json")["events"] if e["what"].startswith("resuming")]) == 2,
               60, "both deliveries")  # fmt: skip
    events = http.json(f"/runs/{run_id}.json")["events"]
    resumed_by = {e["worker"] for e in events if e["what"].startswith("resuming")}
    assert len(resumed_by) == 1 and next(iter(resumed_by)).startswith("threads@test"), events  # one process
    assert done["answer"] == "Done: omicron noted."

    def ended() -> int:  # deliveries that ended: ran the call to the end, ran nothing, or failed
        whats = [e["what"] for e in http.json(f"/runs/{run_id}.json")["events"]]
        return len([w for w in whats if w == "finished" or "ran nothing" in w or w.startswith("resume failed")])

    wait_until(lambda: ended() >= 2, 60, fail=False)
    assert ran_lines(stack, "omicron") == ["omicron"], events  # the approved command ran once (twice with a shared claimant)
    assert len(tool_results(stack.fake_api, approval["tool_use_id"])) == 1
    wait_until(lambda: any("ran nothing" in e["what"] for e in http.json(f"/runs/{run_id}.json")["events"]), 60, "the loser")
    events = http.json(f"/runs/{run_id}.json")["events"]
    assert len([e for e in events if "ran nothing" in e["what"]]) == 1, events


def test_a_slash_command_in_the_form_goes_to_the_model_as_text(stack: Stack, http: Http) -> None:
    """``/config permissionMode=acceptEdits`` typed in the form changes no worker setting: the
    model gets it as text (and asks for its Bash call, which waits for a person)."""
    run_id = start_run(http, "/config permissionMode=acceptEdits")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]  # main: "done", the CLI ran the command
    asked = [r for r in stack.fake_api.requests() if r.messages and "/config permissionMode" in _texts(r.messages[0].get("content"))]
    assert asked, "the model never got the prompt"
    settings = list((stack.homes["start"]).rglob("settings*.json"))
    assert not any("acceptEdits" in path.read_text(errors="replace") for path in settings), settings
    assert decide(http, approval["id"], "deny", "not now")[0] == 303
    wait_status(http, run_id, "done")


def test_without_signing_in_nothing_is_shown_or_decided(stack: Stack, http: Http) -> None:
    run_id = start_run(http, "Please note rho.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    command = approval["tool_input"]["command"]
    stranger = Http(stack.web_url)
    for path in ("/", "/approvals", f"/runs/{run_id}", f"/runs/{run_id}.json"):
        status, _, page = stranger.get(path)
        assert status == 401 and 'name="password"' in page, (path, status)
        assert approval["id"] not in page and "ran-rho" not in page and "note rho" not in page, path
    # With a CSRF token of its own session (the sign-in form hands one out): still 401.
    token = form_token(stranger.get("/sign-in")[2])
    for action, reason in (("approve", None), ("deny", "no")):
        status, body = decide(stranger, approval["id"], action, reason, token=token)
        assert status == 401, (status, body[:500])
    assert stranger.post("/runs", {"prompt": "note rho2", "csrf_token": token})[0] == 401
    # Wrong passwords (near misses, longer, empty, huge, odd characters) are refused.
    for wrong in ("", PASSWORD[:-1], PASSWORD + "x", PASSWORD.upper(), " " + PASSWORD, "x" * 5000, "é" + PASSWORD, "\x00"):
        status, _, page = stranger.post("/sign-in", {"password": wrong, "csrf_token": token, "next": "/"})
        assert status in (400, 401) and 'name="password"' in page, (wrong[:20], status)
        assert stranger.get("/approvals")[0] == 401
    # A forged session cookie (signed with another key) and a cookie from a session that never signed in.
    forged = Http(stack.web_url)
    assert forged.request("GET", "/approvals", headers={"Cookie": "session=eyJzaWduZWRfaW4iOiJ4In0.Zz.forged"})[0] == 401
    # The right password without the form's token, or from another site's form: refused.
    assert stranger.post("/sign-in", {"password": PASSWORD})[0] == 400 and stranger.get("/approvals")[0] == 401
    for odd in ("é" * 40, token + "\u2028", "\x00" * 43):  # not ASCII, not the token: 400, never a 500
        assert stranger.post("/sign-in", {"password": PASSWORD, "csrf_token": odd})[0] == 400
    status, _, _ = stranger.post("/sign-in", {"password": PASSWORD, "csrf_token": token}, {"Origin": "http://evil.example"})
    assert status == 403 and stranger.get("/approvals")[0] == 401
    assert http.json(f"/runs/{run_id}.json")["approvals"][0]["status"] == "pending" and ran_lines(stack, "rho") == []
    assert "note rho2" not in http.get("/")[2]
    # Signing in works, and signing out ends it.
    signed_in(stranger)
    assert command.split(" >>")[0] in stranger.get("/approvals")[2]
    status, _, _ = stranger.post("/sign-out", {"csrf_token": form_token(stranger.get("/")[2])})
    assert status == 303 and stranger.get("/approvals")[0] == 401
    web = next(p for p in stack.processes if p.name == "web")
    assert PASSWORD not in web.log() and SECRET not in web.log() and "wrong password" in web.log()
    assert decide(http, approval["id"], "deny", "not now")[0] == 303
    wait_status(http, run_id, "done")


def test_a_denied_run_is_shown_denied_with_times_to_the_second(stack: Stack, http: Http) -> None:
    run_id = start_run(http, "Please note tau.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    listing = http.get("/approvals")[2]
    assert re.search(r'<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^<]*</time>', listing), listing[:3000]
    assert decide(http, approval["id"], "deny", "not today")[0] == 303
    wait_status(http, run_id, "done")
    page = http.get(f"/runs/{run_id}")[2]
    assert '<span class="status" id="status">denied</span>' in page
    assert re.search(r"<tr><td><a [^>]*>" + run_id[:8] + r"</a></td>\s*<td>[^<]*</td><td class=\"status\">denied</td>", http.get("/")[2])
    # The page's own words (the answer is the model's: its words are its own; 2.1.333's tool
    # result for a denial reads "PreToolUse:Bash hook error: …").
    shown = re.sub(r"<[^>]+>", " ", re.sub(r'<pre id="answer">.*?</pre>', "", page, flags=re.S))
    for jargon in ("claim", "tool_use", "resume:", "session store", "PreToolUse", "T0", "T1", "T2", "+00:00"):
        assert jargon not in shown, jargon
    assert not re.search(r"\d\d:\d\d:\d\d\.\d", shown)  # no milliseconds


def test_the_web_app_refuses_to_start_without_a_password_unless_a_loopback_demo(stack: Stack) -> None:
    for name, value, wanted in (("no-password", "", "set APP_PASSWORD"), ("short-password", "pw-7q3x", "APP_PASSWORD is too short")):
        env = {key: v for key, v in stack.env(name, APP_PASSWORD=value).items() if v}
        out = subprocess.run([sys.executable, "-c", "from approvals_app.web import create_app; create_app()"], cwd=str(EXAMPLES),
                             env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
        assert out.returncode != 0 and wanted in out.stderr, out.stderr[-2000:]
        assert value == "" or value not in out.stderr
    demo, url = stack.web("web-demo", demo=True, APP_PASSWORD="")
    try:
        listening = [line.split()[1] for line in Path("/proc/net/tcp").read_text().splitlines()[1:] if line.split()[3] == "0A"]
        port = int(url.rsplit(":", 1)[1])
        mine = [address for address in listening if int(address.split(":")[1], 16) == port]
        assert mine == ["0100007F:" + f"{port:04X}"], mine  # 127.0.0.1 only
        local = Http(url)
        assert local.get("/approvals")[0] == 200  # no password in the demo
        status, _, body = local.request("GET", "/approvals", headers={"Host": "attacker.example"})  # DNS rebinding
        assert status == 403 and "this machine only" in body
        for relayed in ({"X-Forwarded-For": "203.0.113.9"}, {"Forwarded": "for=203.0.113.9"}, {"Via": "1.1 proxy"}):
            assert local.request("GET", "/approvals", headers=relayed)[0] == 403  # a proxy on this machine
        token = form_token(local.get("/")[2])
        assert local.post("/runs", {"prompt": "note upsilon", "csrf_token": token}, {"Origin": "http://evil.example"})[0] == 403
    finally:
        demo.stop()
        stack.processes.remove(demo)
    # A password set and --loopback-demo asked: refused (which one was meant?).
    out = subprocess.run([sys.executable, "-m", "approvals_app.web", "--loopback-demo", "--port", "1"], cwd=str(EXAMPLES),
                         env=stack.env("both"), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode == 2 and "APP_PASSWORD is set" in out.stderr and PASSWORD not in out.stderr


PUBLISH_TWICE = r"""
import sys
from approvals_app import tasks
print("ready", flush=True)
approval_id = sys.stdin.readline().strip()
tasks.resume_run.apply_async((approval_id,))
print("sent", flush=True)
"""


def test_a_decision_delivered_twice_runs_the_tool_once_through_the_claim(stack: Stack, http: Http) -> None:
    """The decision's task arrives twice at the same moment (a publisher retry, a replay): the
    two pool processes of the resume worker race, and the library's claim in PostgreSQL lets
    one run the call; the other records that it ran nothing."""
    run_id = start_run(http, "Please note delta.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    publisher = subprocess.Popen([sys.executable, "-c", PUBLISH_TWICE], cwd=str(EXAMPLES), env=stack.env("publisher"),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert publisher.stdout is not None and publisher.stdin is not None
        assert publisher.stdout.readline().strip() == "ready"
        token = form_token(http.get("/approvals")[2])
        publisher.stdin.write(approval["id"] + "\n")
        publisher.stdin.flush()
        assert decide(http, approval["id"], "approve", token=token)[0] == 303
        out, err = publisher.communicate(timeout=60)
        assert publisher.returncode == 0 and out.strip() == "sent", err[-3000:]
    finally:
        if publisher.poll() is None:
            publisher.kill()
            publisher.communicate(timeout=10)
    done = wait_status(http, run_id, "done")
    assert done["answer"] == "Done: delta noted." and ran_lines(stack, "delta") == ["delta"]
    assert len(tool_results(stack.fake_api, approval["tool_use_id"])) == 1
    wait_until(lambda: len([e for e in http.json(f"/runs/{run_id}.json")["events"] if e["what"].startswith("resuming")]) == 2,
               60, "both deliveries")  # fmt: skip
    events = http.json(f"/runs/{run_id}.json")["events"]
    nothing = [e["what"] for e in events if "ran nothing" in e["what"]]
    print(f"\n[figures] the second delivery: {nothing}")
    assert len(nothing) == 1, events
    [decided] = done["approvals"]
    assert len(decided["claimants"]) == 1  # the store holds the winner's claim only


def test_a_browser_clicks_approve(stack: Stack, http: Http) -> None:
    chromium = require_chromium()
    run_id = start_run(http, "Please note epsilon.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    started = time.monotonic()
    browser = Browser(chromium)
    try:
        browser.goto(f"{stack.web_url}/approvals")  # not signed in: the sign-in form, which comes back here
        browser.wait_for("document.getElementById('password') !== null")
        browser.evaluate(f"document.getElementById('password').value = {json.dumps(PASSWORD)}")
        browser.click("#sign-in")
        browser.wait_for("location.pathname === '/approvals'", 30)
        button = f'button.approve[data-approval="{approval["id"]}"]'
        browser.wait_for(f"document.querySelector({json.dumps(button)}) !== null")
        browser.click(button)
        # The POST answers 303 to the run's page, which reloads itself until the answer is there.
        browser.wait_for(f"location.pathname === '/runs/{run_id}'", 30)
        browser.wait_for("document.getElementById('answer') !== null && "
                         "document.getElementById('answer').innerText === 'Done: epsilon noted.'", RUN_DEADLINE)  # fmt: skip
        status_text = browser.evaluate("document.getElementById('status').innerText")
    finally:
        browser.close()
    print(f"\n[figures] browser: open, click Approve, see the answer: {time.monotonic() - started:.2f} s")
    assert status_text == "done" and ran_lines(stack, "epsilon") == ["epsilon"]
    assert len(tool_results(stack.fake_api, approval["tool_use_id"])) == 1


# ----------------------------------------------------------------------------- hostile use


def test_posts_need_the_token_and_the_same_origin(stack: Stack, http: Http) -> None:
    token = form_token(http.get("/")[2])
    assert http.post("/runs", {"prompt": "note zeta"})[0] == 400  # no token
    assert http.post("/runs", {"prompt": "note zeta", "csrf_token": "x" + token})[0] == 400
    assert signed_in(Http(stack.web_url)).post("/runs", {"prompt": "note zeta", "csrf_token": token})[0] == 400  # another session
    status, _, body = http.post("/runs", {"prompt": "note zeta", "csrf_token": token}, {"Origin": "http://evil.example"})
    assert status == 403 and "another origin" in body
    for bad in ("", "   ", "a\x00b", "x" * 20_001):
        status, _, body = http.post("/runs", {"prompt": bad, "csrf_token": token})
        assert status == 400 and "must have 1 to 20000 characters" in body, (status, body[:500])
    assert http.post("/runs", {"prompt": "y" * 300_000, "csrf_token": token})[0] == 413
    assert http.get("/approvals/" + "a" * 32 + "/approve")[0] == 405
    assert not any("zeta" in run for run in [http.get("/")[2]])
    assert http.get("/runs/" + "f" * 32)[0] == 404 and http.get("/runs/x.json")[0] == 404
    for path in ("/", "/approvals"):
        status, headers, page = http.get(path)
        assert SECRET not in page and PASSWORD not in page and "postgresql://" not in page
        assert headers["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in headers["Content-Security-Policy"]


def test_a_worker_killed_mid_run_fails_the_run_and_leaves_no_cli(stack: Stack, http: Http) -> None:
    """The pool process running the agent is SIGKILLed while the model "thinks": the worker's
    parent reports the lost process, the app marks the run failed (Celery acknowledged the task
    on receipt, so it is not run again), the CLI it ran ends with it, and the worker goes on
    with a new pool process."""
    starter = next(p for p in stack.processes if p.name == "start")
    stack.agent.stalled.clear()
    run_id = start_run(http, "Please note eta, then stall.")
    assert stack.agent.stalled.wait(RUN_DEADLINE), "the stalled turn did not arrive"
    clis = clis_with_home(stack.homes["start"], stack.cli)
    assert clis, "no CLI of the start worker while its turn is held"
    [child] = stack.pool_children(starter)
    os.kill(child, signal.SIGKILL)
    failed = wait_status(http, run_id, "failed", 60)
    stack.agent.release.set()
    assert "worker process running it was lost" in failed["error"]
    assert wait_until(lambda: not (clis_with_home(stack.homes["start"], stack.cli) & clis), 30, "the dead worker's CLI gone")
    assert ran_lines(stack, "eta") == []
    # The worker goes on with a new pool process.
    run_id = start_run(http, "Please note theta.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    assert decide(http, approval["id"], "deny", "no need")[0] == 303
    assert "no need" in wait_status(http, run_id, "done")["answer"]


def test_a_worker_killed_mid_resume_fails_the_run_and_the_decision_is_not_made_twice(stack: Stack, http: Http) -> None:
    """Killed after the approved call ran, before the model's answer: the run is marked failed,
    the tool ran once, the approval cannot be decided again (409), and the store keeps the
    claim of the dead resume."""
    stack.agent.stalled.clear()
    stack.agent.release.clear()
    run_id = start_run(http, "Please note lambda, and hold the answer.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    assert decide(http, approval["id"], "approve")[0] == 303
    assert stack.agent.stalled.wait(RUN_DEADLINE), "the held turn did not arrive"
    [cli] = clis_with_home(stack.homes["resume"], stack.cli)
    resumer = next(p for p in stack.processes if p.name == "resume")
    [child] = [pid for pid in stack.pool_children(resumer) if f"PPid:\t{pid}\n" in Path(f"/proc/{cli}/status").read_text()]
    os.kill(child, signal.SIGKILL)
    failed = wait_status(http, run_id, "failed", 60)
    stack.agent.release.set()
    assert "worker process running it was lost" in failed["error"]
    [decided] = failed["approvals"]
    assert decided["resume_status"] == "failed" and len(decided["claimants"]) == 1
    assert ran_lines(stack, "lambda") == ["lambda"]  # it ran before the kill, once
    assert wait_until(lambda: cli not in clis_with_home(stack.homes["resume"], stack.cli), 30, "the dead worker's CLI gone")
    assert decide(http, approval["id"], "approve")[0] == 409


def test_with_redis_down_nothing_is_half_done(stack: Stack, http: Http) -> None:
    """A web server whose broker is unreachable answers 503 and leaves no half-made state: the
    run is marked failed, a decision is put back to pending (and can be made again later)."""
    from pg_server import free_port

    run_id = start_run(http, "Please note iota.")
    [approval] = wait_status(http, run_id, "waiting")["approvals"]
    dead_web, dead_url = stack.web("web-no-redis", REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    try:
        cut_off = signed_in(Http(dead_url))
        started = time.monotonic()
        status, _, body = cut_off.post("/runs", {"prompt": "note kappa", "csrf_token": form_token(cut_off.get("/")[2])})
        print(f"\n[figures] redis down: the form answered {status} in {time.monotonic() - started:.2f} s")
        assert status == 503 and "the run was not started" in body
        assert "failed" in cut_off.get("/")[2]
        status, body = decide(cut_off, approval["id"], "approve")
        assert status == 503 and "your decision was not recorded" in body
        assert http.json(f"/runs/{run_id}.json")["approvals"][0]["status"] == "pending"
    finally:
        dead_web.stop()
        stack.processes.remove(dead_web)
    assert decide(http, approval["id"], "approve")[0] == 303
    assert wait_status(http, run_id, "done")["answer"] == "Done: iota noted." and ran_lines(stack, "iota") == ["iota"]


def test_a_missing_setting_is_named() -> None:
    require_package("celery", import_it=False)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "AGENT_WORKDIR")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(EXAMPLES)])
    out = subprocess.run([sys.executable, "-c", "import approvals_app.web"], cwd=str(EXAMPLES), env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode != 0 and "ConfigError: set AGENT_WORKDIR" in out.stderr, out.stderr[-2000:]
