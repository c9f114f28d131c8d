"""``_engine.host_death``: children die with their host process (not with the thread that
spawned them), the spawner thread ends with its children, and SIGTERM closes the tracked
sessions or defers to the host's own handler. Hosts are separate Python processes; the
children are ``sleep``; the real CLI's case is ``tests/e2e/test_host_death_e2e.py``."""

from __future__ import annotations

import json
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


FORKED = r"""
import json, multiprocessing, os, signal, subprocess, sys, threading, time
from claude_sync._engine import host_death, process, tempfiles

def spawn_on_a_thread():
    box = {}
    def go():
        started = time.monotonic()
        try:
            box["proc"] = host_death.popen(["/bin/sleep", "60"], stdin=subprocess.DEVNULL)
        except BaseException as exc:
            box["error"] = repr(exc)
        box["seconds"] = round(time.monotonic() - started, 3)
    thread = threading.Thread(target=go, name="claude_sync-test-spawn")
    thread.start()
    thread.join(120)
    return box

warm = spawn_on_a_thread()  # the parent's spawner thread now runs (its sleep does)
assert host_death._spawner is not None and "proc" in warm, warm

class Holder:  # a session the parent tracks: the child must not close it on its SIGTERM
    closed = False
    def close(self):
        os.write(1, b"CLOSED-IN-%d\n" % os.getpid())
holder = Holder()
host_death._sessions.add(holder)
held = threading.Event()
def hold_the_locks():  # a parent thread inside the library's locks at the moment of the fork
    with host_death._state_lock, tempfiles._lock:
        held.set()
        time.sleep(1.0)
threading.Thread(target=hold_the_locks, name="claude_sync-test-hold").start()
held.wait(10)

def child(queue):
    host_death.SPAWN_HANDOFF_TIMEOUT = 5.0  # the old code waits this long, then raises
    box = spawn_on_a_thread()
    if "proc" in box:
        box["proc"].kill()
        box["proc"].wait()
        box["proc"] = "spawned"
    box["spawner_pid_ok"] = host_death._spawner is None or host_death._spawner.thread.is_alive()
    box["live_sessions_closed"] = host_death.close_live_sessions(1.0)
    box["transports"] = len(process._live)
    path = tempfiles.make_private_file("{}", ".json")  # the tempfiles lock is not held here
    tempfiles.remove_private_file(path)
    box["tempfile"] = "ok"
    queue.put(box)

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
worker = ctx.Process(target=child, args=(queue,), daemon=True)  # ended at exit if it hangs
worker.start()
print(json.dumps(queue.get(timeout=40)), flush=True)
worker.join(30)
warm["proc"].kill()
warm["proc"].wait()
"""


def test_a_forked_child_spawns_from_threads_at_once_and_owns_none_of_the_parent_state() -> None:
    """Issue 26 item 5: a child forked while the parent's spawner thread ran (multiprocessing
    fork, gunicorn/Celery prefork after a warm-up) handed every non-main-thread spawn to a
    spawner that does not exist in it, waited SPAWN_HANDOFF_TIMEOUT, then failed — for its
    whole life. Also: locks a parent thread held at the fork, the parent's live sessions
    (closed by the child's SIGTERM handling) and transports (stopped by the child's atexit)."""
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", FORKED], capture_output=True,
                          text=True, timeout=90, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    box = json.loads(done.stdout.splitlines()[-1])
    assert box == {"proc": "spawned", "seconds": box["seconds"], "spawner_pid_ok": True, "live_sessions_closed": 0,
                   "transports": 0, "tempfile": "ok"}, box  # fmt: skip
    assert box["seconds"] < 4.0, box  # not the 5 s handoff timeout
    assert "CLOSED-IN" not in done.stdout
