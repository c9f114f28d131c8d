"""``_engine.host_death``: children die with their host process (not with the thread that
spawned them), the spawner thread ends with its children, and SIGTERM closes the tracked
sessions or defers to the host's own handler. Hosts are separate Python processes; the
children are ``sleep``; the real CLI's case is ``tests/e2e/test_host_death_e2e.py``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import List

import pytest
from helpers import alive, wait_until

from claude_sync._engine import host_death

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux's")

HOST = r"""
import os, sys, threading
from claude_sync._engine import host_death
if sys.argv[1] == "preexec":  # no setpriv: the fork + prctl path
    host_death._setpriv_checked, host_death._setpriv_path = True, None
children = []
def spawn():
    children.append(host_death.popen(["/bin/sleep", "60"]))
thread = threading.Thread(target=spawn)
thread.start()
thread.join()  # the spawning thread is gone
spawn()  # and one from the main thread
print(" ".join(str(c.pid) for c in children), flush=True)
sys.stdin.readline()
"""


def run_host(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip


def finish(host: subprocess.Popen[str]) -> None:
    if host.poll() is None:
        host.kill()
        host.wait(10)
    for pipe in (host.stdin, host.stdout):
        if pipe is not None:
            pipe.close()


@pytest.mark.parametrize("how", ["setpriv", "preexec"])
def test_children_outlive_their_spawning_thread_and_die_with_the_host(how: str) -> None:
    if how == "setpriv" and host_death._setpriv() is None:
        pytest.skip("no setpriv with --pdeathsig here")
    host = run_host(HOST, how)
    pids: List[int] = []
    try:
        assert host.stdout is not None
        pids = [int(p) for p in host.stdout.readline().split()]
        assert len(pids) == 2 and alive(pids) == set(pids)
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        assert wait_until(lambda: not alive(pids), 2.0, "the children to die with their host", fail=False)
    finally:
        finish(host)
        for pid in alive(pids):
            os.kill(pid, signal.SIGKILL)


def spawner_threads() -> List[str]:
    return [t.name for t in threading.enumerate() if t.name == "claude_sync-spawner"]


def test_the_spawner_thread_ends_once_its_children_are_reaped() -> None:
    box: List[subprocess.Popen[bytes]] = []
    thread = threading.Thread(target=lambda: box.append(host_death.popen(["/bin/sleep", "60"])), name="claude_sync-test-spawn")
    thread.start()
    thread.join(30)
    [child] = box
    try:
        assert spawner_threads() == ["claude_sync-spawner"]  # it holds the child's life
    finally:
        child.kill()
        child.wait(10)
    wait_until(lambda: not spawner_threads(), 5, "the spawner thread to end")


def test_a_missing_or_non_executable_cli_raises_as_popen_does(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        host_death.popen([str(tmp_path / "nope")])
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(PermissionError):
        host_death.popen([str(script)])


SIGTERM_HOST = r"""
import os, signal, sys
from claude_sync._engine import host_death
mode = sys.argv[1]
def say(text):
    os.write(1, (text + "\n").encode())
class Tracked:
    closed = False
    def close(self):
        self.closed = True
        say("closed")
if mode == "ignored":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode in ("returns", "exits"):
    def user_handler(signum, frame):
        say("user handler")
        if mode == "exits":
            sys.exit(3)
    signal.signal(signal.SIGTERM, user_handler)
session = Tracked()
host_death.track(session)
say("ready")
sys.stdin.readline()
say("still running")
"""


@pytest.mark.parametrize(
    "mode, expected, code",
    [
        ("default", ["ready", "closed"], -signal.SIGTERM),  # closed, then the default action
        ("returns", ["ready", "still running"], 0),  # (its "user handler" line is read first)  # the host's graceful shutdown: untouched
        ("exits", ["ready", "user handler", "closed"], 3),  # the host's handler exits: closed on the way out
        ("ignored", ["ready", "still running"], 0),  # an ignored SIGTERM stays ignored
    ],
)
def test_sigterm_closes_tracked_sessions_or_defers_to_the_host(mode: str, expected: List[str], code: int) -> None:
    host = run_host(SIGTERM_HOST, mode)
    try:
        assert host.stdout is not None and host.stdin is not None
        assert host.stdout.readline() == "ready\n"
        host.send_signal(signal.SIGTERM)
        if mode in ("returns", "ignored"):
            if mode == "returns":
                assert host.stdout.readline() == "user handler\n"
            host.stdin.write("go\n")
            host.stdin.flush()
        out, _ = host.communicate(timeout=30)
        assert ["ready", *out.splitlines()] == expected
        assert host.returncode == code
    finally:
        finish(host)
