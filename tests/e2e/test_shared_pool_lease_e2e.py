"""Issue 41, the leaseholder's side, against the real CLI: ``query()``, ``run()``,
``ClaudeSDKClient`` and ``AgentPool`` lease their CLI from a ``claude-sync serve`` pool (a
subprocess) and talk to it directly; a proven-idle CLI is reset and serves the next run (same
pid, each run's own cost and turns); a run with a tool use retires it; callbacks and SDK MCP
tools run in this process; a SIGKILLed leaseholder's CLI is killed; a SIGKILLed pool is a
clear error; no pool spawns as today with one log line; ``claude-sync "…"`` leases through
``CLAUDE_SYNC_SHARED_POOL``; a forked child leaves the parent's lease alone.

Run it once per CLI: ``CLAUDE_SYNC_TEST_CLI=<2.1.197 or 2.1.333 path>``.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from helpers import wait_until

from claude_sync import (
    AgentPool,
    ClaudeSDKClient,
    ProcessError,
    ResultMessage,
    create_sdk_mcp_server,
    query,
    run,
    tool,
)
from claude_sync.testing.fake_api import text, tool_use

from .harness import OptionsFactory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared_pool"))
from poolkit import PoolProcess, pid_alive, running_pool, short_dir, wait_gone  # noqa: E402

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pool() -> Iterator[PoolProcess]:
    with running_pool("--spares", "0", "--max-clis", "4") as process:
        yield process


def _clis(pool: PoolProcess, state: str) -> List[int]:
    return [cli["pid"] for cli in pool.status()["clis"] if cli["state"] == state]


def _parked(pool: PoolProcess, pid: int) -> bool:
    return pid in _clis(pool, "parked")


def _result(messages: List[Any]) -> ResultMessage:
    return [m for m in messages if isinstance(m, ResultMessage)][-1]


def test_each_entry_point_leases_and_a_proven_idle_cli_serves_the_next_run(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    options = e2e_options(shared_pool=pool.path)
    fake_api.add(text("one"), text("two"), text("three"), text("four"), text("five"))

    stream = query("first", options=options)
    first = _result(list(stream))
    pid = stream.session.pid
    assert first.result == "one" and pid in pool.cli_pids(), pool.text()
    wait_until(lambda: _parked(pool, pid), 30, "the CLI reset and parked")

    second = run("second", options=options)  # the same CLI, after the pool's /clear
    assert second.text == "two"
    wait_until(lambda: _parked(pool, pid), 30, "parked again")

    with ClaudeSDKClient(options) as client:
        assert client.session.pid == pid
        client.query("third")
        third = _result(list(client.receive_response()))
    assert third.result == "three"
    # each run's own figures, as a fresh CLI reports them (2.1.197 keeps running totals)
    assert first.total_cost_usd and second.total_cost_usd and third.total_cost_usd
    assert second.total_cost_usd == pytest.approx(first.total_cost_usd, rel=1e-6)
    assert third.total_cost_usd == pytest.approx(first.total_cost_usd, rel=1e-6)
    assert second.num_turns == third.num_turns == first.num_turns == 1
    wait_until(lambda: _parked(pool, pid), 30, "parked again")

    with AgentPool(options, max_workers=1, warm=1) as agents:
        results = [agents.submit(p).result(120) for p in ("fourth", "fifth")]
        assert agents.warm == 0  # the shared pool keeps them warm
    assert [r.text for r in results] == ["four", "five"]
    assert all(r.total_cost_usd == pytest.approx(first.total_cost_usd, rel=1e-6) for r in results)
    wait_until(lambda: _parked(pool, pid), 30, "parked after the AgentPool's runs")
    # the second AgentPool run may come before the first one's reset ends: a cold CLI then
    assert len(pool.cli_pids()) <= 2, pool.status()


def test_a_run_with_a_tool_use_retires_its_cli_and_callbacks_and_mcp_tools_run_here(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    calls: List[Dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    def add(args: Dict[str, Any]) -> Dict[str, Any]:
        calls.append({"pid": os.getpid(), "thread": threading.current_thread().name})
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    asked: List[str] = []

    def allow(name: str, data: Dict[str, Any], context: Any) -> Dict[str, Any]:
        asked.append(name)
        return {"behavior": "allow", "updatedInput": data}

    options = e2e_options(
        shared_pool=pool.path, mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])}, can_use_tool=allow
    )
    fake_api.add(tool_use("mcp__calc__add", {"a": 2, "b": 3}), text("five"))
    with ClaudeSDKClient(options) as client:
        pid = client.session.pid
        transport = client.session.transport
        assert pid in pool.cli_pids()
        client.query("add 2 and 3")
        assert _result(list(client.receive_response())).result == "five"
    assert calls and calls[0]["pid"] == os.getpid(), "the SDK MCP tool ran in the leasing process"
    assert asked == ["mcp__calc__add"], "can_use_tool ran in the leasing process"
    assert transport.last_rung == "retired" and "control request" in transport.reason, transport.reason
    wait_gone([pid])  # retired: the pool killed it rather than reset it


CHILD = r"""
import sys, time
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient
from claude_sync.testing import hermetic_env
options = ClaudeAgentOptions(cli_path=sys.argv[1], env=hermetic_env(sys.argv[2], sys.argv[3]),
                             cwd=sys.argv[2], shared_pool=sys.argv[4])
client = ClaudeSDKClient(options)
client.connect()
client.query("hold on")
print(client.session.pid, flush=True)
time.sleep(600)
"""


def test_a_leaseholder_sigkilled_mid_run_loses_its_cli_and_the_next_lease_is_fine(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any, real_cli_path: str, tmp_path: Path
) -> None:
    fake_api.add(text("never read", delay=30.0), text("after"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("CLAUDE_SYNC_SHARED_POOL", None)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, real_cli_path, str(tmp_path), fake_api.base_url, pool.path],
        stdout=subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        cli_pid = int(child.stdout.readline())
        assert pid_alive(cli_pid) and cli_pid in pool.cli_pids()
        wait_until(lambda: len(fake_api.turn_requests()) == 1, 30, "the child's turn reached the API")
    finally:
        child.kill()
        child.wait(10)
        if child.stdout is not None:
            child.stdout.close()
    wait_gone([cli_pid])  # never handed to anyone: killed
    options = e2e_options(shared_pool=pool.path)
    stream = query("next", options=options)
    assert _result(list(stream)).result == "after"
    assert stream.session.pid != cli_pid


def test_a_pool_sigkilled_mid_lease_is_a_clear_error(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    fake_api.add(text("late", delay=30.0))
    options = e2e_options(shared_pool=pool.path)
    client = ClaudeSDKClient(options)
    client.connect()
    pid = client.session.pid
    try:
        client.query("hello")
        pool.kill()
        wait_gone([pid])  # the pool's CLIs die with it
        with pytest.raises(ProcessError) as caught:
            list(client.receive_response(timeout=60))
    finally:
        client.close()
    assert "shared pool" in str(caught.value.stderr), caught.value


def test_no_pool_spawns_as_today_with_one_log_line(
    e2e_options: OptionsFactory, fake_api: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from claude_sync._shared_pool import extension

    extension._logged.clear()
    directory = short_dir()
    try:
        stale = os.path.join(directory, "pool.sock")
        dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        dead.bind(stale)  # a socket file nobody listens on (a crashed pool's)
        dead.close()
        fake_api.add(text("one"), text("two"))
        options = e2e_options(shared_pool=stale)
        with caplog.at_level(logging.INFO, logger="claude_sync.shared_pool"):
            first = run("one", options=options)
            second = run("two", options=options)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    assert (first.text, second.text) == ("one", "two")
    lines = [r.getMessage() for r in caplog.records if r.name == "claude_sync.shared_pool"]
    assert len(lines) == 1 and "this process spawns its CLIs" in lines[0], lines


def test_the_command_line_leases_through_the_environment_and_the_next_process_reuses_the_cli(
    pool: PoolProcess, fake_api: Any, real_cli_path: str, tmp_path: Path
) -> None:
    from claude_sync.testing import hermetic_env

    fake_api.add(text("one"), text("two"))
    env = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES=0)
    env.update(PYTHONPATH=str(ROOT), CLAUDE_SYNC_SHARED_POOL=pool.path)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    outputs = []
    for prompt in ("first", "second"):
        done = subprocess.run(
            [sys.executable, "-m", "claude_sync", "--cli-path", real_cli_path, "--cwd", str(work), prompt],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
        wait_until(lambda: _clis(pool, "parked"), 30, "the CLI parked")
    assert outputs == ["one\n", "two\n"]
    clis = pool.status()["clis"]
    assert len(clis) == 1 and clis[0]["runs"] >= 1, clis  # the second process got the first one's CLI


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_leaseholder_child_leaves_the_parents_lease_alone(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    fake_api.add(text("one"), text("two"))
    options = e2e_options(shared_pool=pool.path)
    with ClaudeSDKClient(options) as client:
        pid = client.session.pid
        client.query("one")
        assert _result(list(client.receive_response())).result == "one"
        child = os.fork()
        if child == 0:  # the child: closes its copies of the lease, touches nothing else
            os._exit(0 if not client.session.transport.is_ready() else 1)
        _, status = os.waitpid(child, 0)
        assert os.WEXITSTATUS(status) == 0
        assert pid_alive(pid) and pid in _clis(pool, "leased"), pool.status()
        client.query("two")  # the parent's lease still works after the child is gone
        assert _result(list(client.receive_response())).result == "two"
    wait_until(lambda: _parked(pool, pid), 30, "given back and parked by the parent")


def test_a_cli_serves_only_leaseholders_with_its_first_initialize(
    pool: PoolProcess, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    """Measured: a CLI answers a second ``initialize`` but keeps the first one's system prompt
    and agents. So the plan leased carries a digest of the ``initialize`` fields: another
    system prompt gets another CLI, and each run's API request carries its own prompt."""
    import json

    fake_api.add(text("one"), text("two"), text("three"))
    pids = []
    for prompt in ("SYSTEM-AAA", "SYSTEM-BBB", "SYSTEM-AAA"):
        stream = query("hi", options=e2e_options(shared_pool=pool.path, system_prompt=prompt))
        list(stream)
        pids.append(stream.session.pid)
        wait_until(lambda: stream.session.pid in _clis(pool, "parked"), 30, "parked")
    bodies = [json.dumps(r.body) for r in fake_api.turn_requests()]
    assert ["AAA" in b and "BBB" not in b for b in bodies] == [True, False, True]
    assert ["BBB" in b for b in bodies] == [False, True, False]
    assert pids[0] == pids[2] != pids[1]
