"""The host dies, its CLIs die with it (issue 22 item 1).

A host process (a separate Python) holds 4 real CLIs against the fake API in this process: two
spawned from its main thread, two from threads that ended long before (the parent-death signal
follows the *thread* that forked: those must neither die early nor outlive the host), 3 idle
and 1 in the middle of a turn whose API request is stalled. The host is then SIGKILLed or
SIGTERMed: 2 s later no CLI of it runs, and the fake API saw no request after the signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from helpers import StallingResponder, alive, wait_until

from claude_sync.testing.fake_api import FakeAnthropicAPI

from .harness import hermetic_env

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]

HOST = r"""
import json, logging, sys, threading
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
args = json.loads(sys.argv[1])
clients = []

def connect():
    client = ClaudeSDKClient(ClaudeAgentOptions(cli_path=args["cli"], env=args["env"], cwd=args["cwd"],
                                                close_timeout=5, initialize_timeout=60, control_timeout=60))
    client.connect()
    clients.append(client)

for _ in range(2):  # from threads that end: their CLIs must live on
    thread = threading.Thread(target=connect, name="spawner-that-ends")
    thread.start()
    thread.join()
connect()
connect()
clients[0].query("stall: a long turn")  # spawned by an ended thread, and busy
print(json.dumps([c.session.pid for c in clients]), flush=True)
sys.stdin.readline()  # the test checked the CLIs outlived their threads; now wait to be killed
print("waiting", flush=True)
threading.Event().wait()
"""


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


def start_host(tmp_path: Path, api: FakeAnthropicAPI, cli: str) -> subprocess.Popen[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = hermetic_env(tmp_path, api.base_url)
    args = {"cli": cli, "env": env, "cwd": str(work)}
    host_env = {**env, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", HOST, json.dumps(args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=host_env)  # fmt: skip


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_every_cli_dies_with_its_host(
    sig: int, stalling_api: Tuple[FakeAnthropicAPI, StallingResponder], real_cli_path: str, tmp_path: Path
) -> None:
    api, behaviour = stalling_api
    host = start_host(tmp_path, api, real_cli_path)
    figures: Dict[str, Any] = {}
    try:
        assert host.stdout is not None and host.stdin is not None and host.stderr is not None
        line = host.stdout.readline()
        assert line, host.stderr.read()[-3000:]
        pids: List[int] = json.loads(line)
        wait_until(lambda: behaviour.stalled == ["stall: a long turn"], 60, "the busy CLI's request to stall")
        assert alive(pids) == set(pids)  # the CLIs of the ended threads are alive
        host.stdin.write("go\n")
        host.stdin.flush()
        assert host.stdout.readline() == "waiting\n"
        requests_before = len(api.requests())
        signalled_at = time.monotonic()
        host.send_signal(sig)
        host.wait(10)
        wait_until(lambda: not alive(pids), 2.0, "the CLIs to die with their host", fail=False)
        figures["CLIs gone after (s)"] = round(time.monotonic() - signalled_at, 3)
        left = alive(pids)
        behaviour.release.set()  # a CLI still alive would now go on with its turn
        wait_until(lambda: len(api.requests()) > requests_before, 0.5, "a late request", fail=False)  # must not come
        late = api.requests()[requests_before:]
        stderr = host.stderr.read()
    finally:
        behaviour.release.set()
        if host.poll() is None:
            host.kill()
            host.wait(10)
        for pipe in (host.stdin, host.stdout, host.stderr):
            if pipe is not None:
                pipe.close()
        for pid in alive(pids if "pids" in locals() else []):  # never leave a CLI behind
            os.kill(pid, signal.SIGKILL)
    assert not left, f"CLIs alive 2 s after the host got {signal.Signals(sig).name}: {sorted(left)}"
    assert late == [], [(r.kind, r.last_user_text) for r in late]
    assert host.returncode == -sig  # SIGTERM: our close ran, then the default action
    if sig == signal.SIGTERM:
        assert "SIGTERM: closing 4 live Claude Code sessions" in stderr, stderr[-3000:]
    print(f"\n[figures] host {signal.Signals(sig).name}: {figures}")
