"""A real Dask cluster: ``dask scheduler`` and two ``dask worker`` processes (no nanny) on
loopback, each worker with its own HOME and its own warm ``AgentPool``; the real CLI against the
fake API (in this process); conversations mirrored to a real PostgreSQL.

64 runs spread over both workers; then one worker is SIGKILLed while runs and a two-turn
conversation are in the middle of a turn on it: Dask reruns its tasks on the other worker,
the conversation resumes from the store (its second request carries turn 1), every result
arrives exactly once, and no CLI of the killed worker is left running (``/proc``)."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from helpers import (
    StallingResponder,
    alive,
    clis_under,
    clis_with_home,
    require_package,
    wait_until,
)
from pg_server import free_port

from claude_sync import ClaudeAgentOptions, PostgresSessionStore
from claude_sync.testing.fake_api import FakeAnthropicAPI, content_text

from .harness import hermetic_env

distributed = require_package("distributed")  # the dask extra; failed under CI=true when missing

from claude_sync.integrations.dask import (  # noqa: E402 - after require_package
    install,
    pool_stats,
    run_conversation_on_worker,
    submit_runs,
)

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
RUNS = 64


# ----------------------------------------------------------------------------- the cluster


class Cluster:
    """A scheduler and two workers as separate processes; stopped by PID (SIGTERM, then KILL)."""

    def __init__(self, tmp: Path, base_url: str) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.processes: Dict[str, subprocess.Popen[bytes]] = {}
        self.base_url = base_url

    def _spawn(self, name: str, argv: List[str], env: Dict[str, str]) -> None:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed right after the spawn
        try:
            self.processes[name] = subprocess.Popen(
                [sys.executable, "-m", *argv], env={**env, "PYTHONPATH": str(ROOT)}, cwd=str(self.tmp),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        finally:
            log.close()

    def start(self) -> Cluster:
        base = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
        self._spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                  "--no-dashboard"], base)  # fmt: skip
        for index in range(2):  # each worker host has a HOME of its own
            env = hermetic_env(self.tmp / f"worker{index}", self.base_url)
            self._spawn(f"worker{index}", ["distributed.cli.dask_worker", self.address, "--name", f"worker{index}",
                                           "--nthreads", "4", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                           "--local-directory", str(self.tmp / f"dask{index}")], env)  # fmt: skip
        return self

    def pid(self, name: str) -> int:
        return self.processes[name].pid

    def kill(self, name: str) -> None:
        process = self.processes[name]
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def stop(self) -> None:
        for name in sorted(self.processes, key=lambda n: n == "scheduler"):  # workers first
            process = self.processes[name]
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-3000:]


@pytest.fixture
def stalling_api() -> Iterator[Tuple[FakeAnthropicAPI, StallingResponder]]:
    behaviour = StallingResponder()
    api = FakeAnthropicAPI(responder=behaviour)
    api.start()
    try:
        yield api, behaviour
    finally:
        behaviour.release.set()
        api.stop()


def test_64_runs_then_a_worker_killed_mid_turn(
    stalling_api: Tuple[FakeAnthropicAPI, StallingResponder], real_cli_path: str, pg_conninfo: str,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    api, behaviour = stalling_api
    for name in list(os.environ):  # the scheduler and workers inherit nothing of ours
        if name.upper().startswith(("ANTHROPIC", "CLAUDE")) and not name.startswith("CLAUDE_SYNC"):
            monkeypatch.delenv(name, raising=False)
    app = tmp_path / "app"  # the same code directory on both workers
    app.mkdir()
    options = ClaudeAgentOptions(cli_path=real_cli_path, cwd=str(app), close_timeout=5, initialize_timeout=60, control_timeout=60)
    cluster = Cluster(tmp_path, api.base_url).start()
    figures: Dict[str, Any] = {}
    try:
        with distributed.Client(cluster.address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            install(client, options=options, max_workers=4, warm=2)

            # 1. 64 runs through both workers' warm pools
            started = time.monotonic()
            results = client.gather(submit_runs(client, [f"question q{i}" for i in range(RUNS)], timeout=120))
            figures["64 runs (s)"] = round(time.monotonic() - started, 2)
            assert [r.text for r in results] == [f"answer to q{i}" for i in range(RUNS)]
            stats: Dict[str, Dict[str, int]] = client.run(pool_stats)
            assert sorted(s["runs"] > 0 for s in stats.values()) == [True, True], stats  # both workers served
            assert sum(s["runs"] for s in stats.values()) == RUNS
            figures["runs per worker"] = sorted(s["runs"] for s in stats.values())
            figures["CLIs started / reused"] = (sum(s["started"] for s in stats.values()), sum(s["reused"] for s in stats.values()))

            # 2. a two-turn conversation and 6 runs, all stalled mid-turn; kill the conversation's worker
            store_factory = functools.partial(PostgresSessionStore, pg_conninfo)
            session_id = str(uuid.uuid4())
            prompts = ["remember the code word PLUM", "stall: what was the code word"]
            job = client.submit(run_conversation_on_worker, prompts, session_id=session_id,
                                store_factory=store_factory, timeout=120, pure=False)  # fmt: skip
            runs = submit_runs(client, [f"stall run r{i}" for i in range(6)], timeout=120)
            wait_until(lambda: prompts[1] in behaviour.stalled, 120, "the conversation's turn 2 stalled")
            processing = client.processing()
            workers = client.scheduler_info()["workers"]
            [victim_address] = [a for a, keys in processing.items() if job.key in keys]
            victim = workers[victim_address]["name"]
            survivor = "worker1" if victim == "worker0" else "worker0"
            # 8 task threads for 7 tasks: all should be in flight; a task Dask queued behind
            # another just runs after the kill (the checks below hold either way)
            wait_until(lambda: len(behaviour.stalled) == 7, 30, "every run in flight", fail=False)
            figures["tasks in flight on the killed worker"] = len(client.processing()[victim_address])
            orphans_to_be = clis_under(cluster.pid(victim), real_cli_path)
            assert orphans_to_be, "the victim worker runs CLIs"
            requests_before = len(api.requests())
            killed_at = time.monotonic()
            cluster.kill(victim)
            wait_until(lambda: not alive(orphans_to_be), 10, "the killed worker's CLIs to end", fail=False)
            figures["killed worker's CLIs gone after (s)"] = round(time.monotonic() - killed_at, 2)
            still = alive(orphans_to_be)
            behaviour.release.set()
            answers = job.result(timeout=180)
            run_results = client.gather(runs)
            figures["after the kill, all results in (s)"] = round(time.monotonic() - killed_at, 2)
            assert not still, f"CLIs of the killed worker still running 10 s after: {sorted(still)}"
            assert answers == ["answer to PLUM", "answer to word"]
            assert [r.text for r in run_results] == [f"answer to r{i}" for i in range(6)]
            [retried] = [r for r in api.turn_requests() if r.last_user_text == prompts[1]][-1:]
            sent = [content_text(m["content"]) for m in retried.messages if m.get("role") != "system"]
            assert sent[0].endswith(prompts[0]) and sent[1] == "answer to PLUM"  # turn 1 came from the store
            assert all(survivor == w["name"] for w in client.scheduler_info()["workers"].values())
            figures["requests after the kill"] = len(api.requests()) - requests_before
            sent_twice = [p for p in prompts[1:] + [f"stall run r{i}" for i in range(6)]
                          if sum(r.last_user_text.endswith(p) for r in api.turn_requests()) == 2]  # fmt: skip
            assert prompts[1] in sent_twice  # the killed worker's turn, sent again by the survivor
            figures["turns rerun on the survivor"] = len(sent_twice)
    finally:
        behaviour.release.set()
        cluster.stop()
    leftover = clis_with_home(tmp_path, real_cli_path)
    assert not leftover, f"CLIs left running: {sorted(leftover)}"
    print(f"\n[figures] dask cluster: {figures}")
