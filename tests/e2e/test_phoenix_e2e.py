"""One traced run in a real backend: Arize Phoenix, started by the test on loopback.

The run (``otel_cli_child.py background``): a ``Bash`` call by a background subagent, the turn
its end wakes, ``trace_cli=True``. The application's spans and the CLI's go to Phoenix over
OTLP/HTTP; the test then asks Phoenix (its REST span list and its GraphQL token counts) for the
tree and the totals. Phoenix is found as ``CLAUDE_SYNC_PHOENIX_PYTHON`` (a Python with
``arize-phoenix``: it pins many packages, so CI gives it a venv of its own, ``.ci/run``) or
in this interpreter; without it the test is skipped, saying so. Phoenix needs Python 3.11-3.14
and ~800 MB; it starts in 20-80 s.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from helpers import require_distribution

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("otel_cli_child.py")
RUN = "invoke_agent claude_code"

PHOENIX_ENV = "CLAUDE_SYNC_PHOENIX_PYTHON"
START_TIMEOUT = 300.0


def phoenix_python() -> str:
    """A Python that runs Phoenix, or skip (saying how to get one)."""
    configured = os.environ.get(PHOENIX_ENV)
    if configured:
        if not Path(configured).is_file():
            pytest.fail(f"{PHOENIX_ENV}={configured!r} is not a file")
        return configured
    try:
        metadata.version("arize-phoenix")
    except metadata.PackageNotFoundError:
        pytest.skip(f"Arize Phoenix is not installed: pip install arize-phoenix (Python 3.11-3.14), or set {PHOENIX_ENV} to a Python that has it")
    return sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_json(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - loopback only
        return json.loads(answer.read())


@pytest.fixture
def phoenix(tmp_path: Path) -> Iterator[str]:
    """Phoenix serving on a free loopback port (its database in ``tmp_path``); its base URL."""
    python = phoenix_python()
    port, grpc_port = free_port(), free_port()
    env = dict(os.environ, PHOENIX_HOST="127.0.0.1", PHOENIX_PORT=str(port), PHOENIX_GRPC_PORT=str(grpc_port),
               PHOENIX_WORKING_DIR=str(tmp_path / "phoenix"), PHOENIX_TELEMETRY_ENABLED="false")  # fmt: skip
    log = (tmp_path / "phoenix.log").open("wb")
    server = subprocess.Popen([python, "-m", "phoenix.server.main", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _healthy(base):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Phoenix did not start (exit {server.poll()}): {(tmp_path / 'phoenix.log').read_text()[-3000:]}")
            time.sleep(0.5)  # polling a server's start-up: there is no event to wait on
        yield base
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
        log.close()


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=2) as answer:  # noqa: S310
            return answer.status == 200
    except (urllib.error.URLError, OSError):
        return False


def spans_in(base: str, expected: int) -> List[Dict[str, Any]]:
    """Phoenix's spans of the default project once it holds ``expected`` (the CLI exports
    when it exits; Phoenix inserts in batches)."""
    deadline = time.monotonic() + 60
    while True:
        spans: List[Dict[str, Any]] = get_json(base + "/v1/projects/default/spans?limit=1000")["data"]
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def test_phoenix_holds_one_tree_with_the_whole_runs_totals(phoenix: str, real_cli_path: str, e2e_workdir: Path) -> None:
    for distribution in ("opentelemetry-sdk", "opentelemetry-proto"):  # the child's, checked without importing them
        require_distribution(distribution)
    if not cli_is_at_least(real_cli_path, "2.1.332"):
        pytest.skip("this CLI exports no span of its own (2.1.197): the test checks the CLI's spans in Phoenix")
    done = subprocess.run(
        [sys.executable, str(CHILD), "background", real_cli_path, str(e2e_workdir), "no-cli-spans", phoenix],
        capture_output=True, text=True, timeout=400, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    usage = json.loads(done.stdout.splitlines()[-1])["api_usage"]
    assert len(usage) == 5  # three requests of the main agent, two of the subagent
    spans = spans_in(phoenix, expected=18)
    by_name: Dict[str, List[Dict[str, Any]]] = {}
    for span in spans:
        by_name.setdefault(span["name"], []).append(span)
    by_id = {span["context"]["span_id"]: span for span in spans}
    parent = lambda span: by_id.get(span["parent_id"], {}).get("name")  # noqa: E731
    (app,), (run,) = by_name["app-query"], by_name[RUN]
    assert {span["context"]["trace_id"] for span in spans} == {app["context"]["trace_id"]}
    assert parent(run) == "app-query"
    (agent,), (bash,) = by_name["execute_tool Agent"], by_name["execute_tool Bash"]
    assert parent(agent) == RUN and parent(bash) == "execute_tool Agent"
    interactions = by_name["claude_code.interaction"]
    assert len(interactions) == 2 and {parent(span) for span in interactions} == {RUN}  # the turn and the woken one
    ours = {s["attributes"]["gen_ai.tool.call.id"] for s in spans if s["name"].startswith("execute_tool ")}
    theirs = {s["attributes"]["gen_ai.tool.call.id"] for s in by_name["claude_code.tool"]}
    assert ours == theirs and len(ours) == 2  # one call each side, joined on the call id
    figures = run["attributes"]
    tokens_in, tokens_out = sum(u["input_tokens"] for u in usage), sum(u["output_tokens"] for u in usage)
    assert (figures["gen_ai.usage.input_tokens"], figures["gen_ai.usage.output_tokens"]) == (tokens_in, tokens_out)
    assert figures["claude_sync.results"] == 2 and figures["claude_sync.num_turns"] == 3
    # Phoenix's own count (its LLM spans: the CLI's requests) is the run span's: nothing counted twice.
    project = get_json(phoenix + "/graphql", {"query": "{ projects { edges { node { name tokenCountTotal } } } }"})
    (node,) = [edge["node"] for edge in project["data"]["projects"]["edges"] if edge["node"]["name"] == "default"]
    assert node["tokenCountTotal"] == tokens_in + tokens_out
