"""The pool process with a fake CLI: leases, resets, parking, spares, caps, waiters, the exit
notice, idle retirement, status and stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers import wait_until
from poolkit import ROOT, fake_plan, pid_alive, turn, wait_gone

from claude_sync._shared_pool.lease_client import PoolUnavailable, SharedPoolError, lease


def test_a_lease_given_back_reusable_is_reset_and_served_again(make_pool):
    pool = make_pool("--spares", "0")
    plan = fake_plan("a")
    first = lease(plan, path=pool.path, timeout=10)
    assert (first.state, first.runs, first.cost_before, first.usage_before) == ("cold", 0, 0.0, None)
    assert turn(first, "hello")["result"] == f"pid={first.pid} tag=a runs=1"
    first.give_back(True, "idle after its result")
    second = lease(plan, path=pool.path, timeout=10)  # waits for the give-back and reset, not a cold start
    try:
        assert second.pid == first.pid and second.state == "reset" and second.runs == 1
        assert second.cost_before == pytest.approx(0.01)  # the reset's running totals (as 2.1.197)
        assert second.usage_before == {"fake-model": {"costUSD": 0.01}}
        assert turn(second, "again")["result"] == f"pid={first.pid} tag=a runs=2"
    finally:
        second.give_back(False, "the test is done")
    wait_gone([first.pid])
    pool.wait_log("started CLI pid")
    pool.wait_log("given back not reusable: the test is done")


def test_a_lease_given_back_not_reusable_is_killed_and_never_served_again(make_pool):
    pool = make_pool("--spares", "0")
    plan = fake_plan("a")
    first = lease(plan, path=pool.path, timeout=10)
    turn(first, "hello")
    first.give_back(False, "a tool ran")
    wait_gone([first.pid])
    second = lease(plan, path=pool.path, timeout=10)
    assert second.pid != first.pid and second.state == "cold"
    second.give_back(False, "done")


def test_two_plans_differing_in_one_env_value_never_share_a_cli(make_pool):
    pool = make_pool("--spares", "0", "--max-clis", "4")
    one = lease(fake_plan("a", ANTHROPIC_API_KEY="key-1"), path=pool.path, timeout=10)
    assert turn(one, "x")["result"].endswith("tag=a runs=1")
    one.give_back(True, "idle")
    wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")
    two = lease(fake_plan("a", ANTHROPIC_API_KEY="key-2"), path=pool.path, timeout=10)
    try:
        assert two.pid != one.pid and two.state == "cold"
        assert turn(two, "y")["result"] == f"pid={two.pid} tag=a runs=1"
        plans = {cli["plan"] for cli in pool.status()["clis"]}
        assert len(plans) == 2
    finally:
        two.give_back(False, "done")


def test_a_spare_is_started_after_a_lease_and_leased_fresh(make_pool):
    pool = make_pool("--spares", "1")
    plan = fake_plan("a")
    first = lease(plan, path=pool.path, timeout=10)
    wait_until(lambda: sorted(c["state"] for c in pool.status()["clis"]) == ["fresh", "leased"], 10, "a spare")
    second = lease(plan, path=pool.path, timeout=10)
    assert second.state == "fresh" and second.pid != first.pid
    assert turn(second, "hi")["result"].startswith(f"pid={second.pid}")
    for held in (first, second):
        held.give_back(False, "done")


def test_the_cli_cap_makes_requests_wait_fifo_then_busy(make_pool):
    pool = make_pool("--spares", "0", "--max-clis", "1")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    with pytest.raises(SharedPoolError, match="busy") as caught:
        lease(fake_plan("a"), path=pool.path, timeout=0.3)
    assert caught.value.kind == "busy"
    waiter = subprocess.Popen(
        [sys.executable, "-c", WAITER, pool.path], cwd=str(ROOT), stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'tests'}:{ROOT / 'tests' / 'shared_pool'}"),
    )  # fmt: skip
    try:
        wait_until(lambda: pool.status()["waiting"] == 1, 20, "one waiter")
        turn(held, "x")
        held.give_back(True, "idle")
        out, _ = waiter.communicate(timeout=30)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    answer = json.loads(out)
    assert answer == {"pid": held.pid, "state": "reset", "result": f"pid={held.pid} tag=a runs=2"}


WAITER = r"""
import json, sys
from poolkit import fake_plan, turn
from claude_sync._shared_pool.lease_client import lease
held = lease(fake_plan("a"), path=sys.argv[1], timeout=30)
result = turn(held, "from the waiter")["result"]
held.give_back(False, "done")
print(json.dumps({"pid": held.pid, "state": held.state, "result": result}))
"""


def test_an_idle_parked_cli_of_another_plan_makes_room(make_pool):
    pool = make_pool("--spares", "0", "--max-clis", "1")
    one = lease(fake_plan("a"), path=pool.path, timeout=10)
    turn(one, "x")
    one.give_back(True, "idle")
    wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")
    two = lease(fake_plan("b"), path=pool.path, timeout=10)
    assert two.pid != one.pid
    wait_gone([one.pid])
    pool.wait_log("retired to make room under max_clis")
    two.give_back(False, "done")


def test_the_memory_cap_retires_idle_clis_first_then_waits(make_pool):
    pool = make_pool("--spares", "0", "--max-memory-mb", "1")  # any CLI is over it
    one = lease(fake_plan("a"), path=pool.path, timeout=10)  # none running: under the cap
    turn(one, "x")  # started for sure (not still in setpriv's exec): its RSS is several MiB
    try:
        extra = lease(fake_plan("b"), path=pool.path, timeout=0.5)  # over the cap, nothing idle: wait, then busy
    except SharedPoolError as exc:
        assert exc.kind == "busy"
    else:
        extra.give_back(False, "should not be")
        raise AssertionError(f"leased over the memory cap: {pool.status()} {pool.text()}")
    one.give_back(True, "idle")
    wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")
    two = lease(fake_plan("b"), path=pool.path, timeout=10)
    wait_gone([one.pid])
    pool.wait_log("retired to make room under max_memory_mb")
    two.give_back(False, "done")


def test_the_exit_notice_reports_the_clis_return_code(make_pool):
    pool = make_pool("--spares", "0")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    assert held.exit_notice(0.05) is None
    os.write(held.stdin_fd, b'{"type":"user","message":{"role":"user","content":"exit 5"}}\n')
    assert held.exit_notice(20) == 5
    assert held.exit_notice(0) == 5
    held.give_back(True, "it says reusable, but it exited")
    wait_until(lambda: pool.status()["clis"] == [], 10, "no CLI")
    pool.wait_log("it exited (5)")


def test_exit_notice_and_give_back_on_two_threads(make_pool):
    import threading

    pool = make_pool("--spares", "0")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    seen = []
    waiter = threading.Thread(target=lambda: seen.append(held.exit_notice(60)), name="test-exit-notice")
    waiter.start()
    held.give_back(False, "done")  # wakes the waiting exit_notice
    waiter.join(20)
    assert not waiter.is_alive() and seen == [None]
    wait_gone([held.pid])


def test_idle_clis_are_retired(make_pool):
    pool = make_pool("--spares", "0", "--idle-seconds", "0.5")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    turn(held, "x")
    held.give_back(True, "idle")
    wait_gone([held.pid])
    pool.wait_log("idle for 0.5s")


def test_max_runs_retires_a_cli(make_pool):
    pool = make_pool("--spares", "0", "--max-runs", "2")
    pids = []
    for _ in range(3):
        held = lease(fake_plan("a"), path=pool.path, timeout=10)
        pids.append(held.pid)
        turn(held, "x")
        held.give_back(True, "idle")
        wait_until(lambda: [c["state"] for c in pool.status()["clis"]] in ([], ["parked"]), 10, "given back")
    assert pids[0] == pids[1] != pids[2]
    pool.wait_log("served 2 leases (max_runs=2)")


@pytest.mark.parametrize("mode, why", [("control", "control_request during /clear"), ("drift", "after /clear the CLI reports"),
                                       ("turns", "clean zero-turn result"), ("exit", "closed its stdout")])
def test_a_failed_reset_kills_the_cli(make_pool, mode, why):
    pool = make_pool("--spares", "0")
    plan = fake_plan("a", FAKE_CLEAR=mode)
    held = lease(plan, path=pool.path, timeout=10)
    turn(held, "x")
    held.give_back(True, "idle")
    if mode == "drift":  # the first reset's init is the baseline: the second one drifts from it
        wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")
        held = lease(plan, path=pool.path, timeout=10)
        turn(held, "x", initialize=False)
        held.give_back(True, "idle")
    wait_gone([held.pid])
    pool.wait_log(why)
    again = lease(plan, path=pool.path, timeout=10)
    assert again.pid != held.pid
    again.give_back(False, "done")


def test_a_reset_that_hangs_is_bounded(make_pool):
    pool = make_pool("--spares", "0", "--reset-timeout", "1")
    held = lease(fake_plan("a", FAKE_CLEAR="hang"), path=pool.path, timeout=10)
    turn(held, "x")
    held.give_back(True, "idle")
    wait_gone([held.pid])
    pool.wait_log("did not answer /clear in time")


def test_bytes_past_the_reset_reach_the_next_leaseholder_as_prefix(make_pool):
    pool = make_pool("--spares", "0")
    plan = fake_plan("a", FAKE_CLEAR="extra")
    held = lease(plan, path=pool.path, timeout=10)
    turn(held, "x")
    held.give_back(True, "idle")
    wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")
    again = lease(plan, path=pool.path, timeout=10)
    try:
        assert again.pid == held.pid and again.prefix == b'{"type": "keep_alive"}\n'
    finally:
        again.give_back(False, "done")


def test_status_shows_no_secrets_and_stop_ends_everything(make_pool):
    pool = make_pool("--spares", "1")
    held = lease(fake_plan("a", SECRET_TOKEN="sk-do-not-show"), path=pool.path, timeout=10)
    wait_until(lambda: len(pool.status()["clis"]) == 2, 10, "a spare")
    status = subprocess.run([sys.executable, "-m", "claude_sync", "pool", "status", "--json", "--socket", pool.path],
                            capture_output=True, cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)  # fmt: skip
    assert status.returncode == 0, status.stderr
    answer = json.loads(status.stdout)
    assert {cli["state"] for cli in answer["clis"]} == {"leased", "fresh"}
    assert all(cli["rss_bytes"] > 0 and cli["cli"] == sys.executable for cli in answer["clis"])
    assert b"sk-do-not-show" not in status.stdout and "sk-do-not-show" not in pool.text()
    pids = [cli["pid"] for cli in answer["clis"]]
    text = subprocess.run([sys.executable, "-m", "claude_sync", "pool", "status", "--socket", pool.path],
                          capture_output=True, cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)  # fmt: skip
    assert b"2/4 CLIs" in text.stdout
    stop = subprocess.run([sys.executable, "-m", "claude_sync", "pool", "stop", "--socket", pool.path],
                          capture_output=True, cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)  # fmt: skip
    assert stop.returncode == 0
    assert pool.process.wait(30) == 0
    wait_gone(pids)
    assert not os.path.exists(pool.path) and not os.path.exists(os.path.join(pool.dir, "pool.lock"))
    assert held.exit_notice(5) is None
    held.give_back(True, "the pool is gone: never raises")
    with pytest.raises(PoolUnavailable, match="no pool"):
        lease(fake_plan("a"), path=pool.path, timeout=1)


def test_a_second_pool_on_the_same_socket_exits_1_naming_the_first(make_pool):
    pool = make_pool()
    second = make_pool(directory=pool.dir, ready=False)
    assert second.process.wait(30) == 1
    assert f"another pool (pid {pool.process.pid})" in second.text()
    assert pool.status()["ok"]


def test_serve_refuses_bad_flags():
    done = subprocess.run([sys.executable, "-m", "claude_sync", "serve", "--max-clis", "0", "--socket", "/tmp/x/p.sock"],
                          capture_output=True, cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)  # fmt: skip
    assert done.returncode == 2 and b"max_clis must be >= 1" in done.stderr
    done = subprocess.run([sys.executable, "-m", "claude_sync", "pool", "status", "--socket", "/nonexistent/p.sock"],
                          capture_output=True, cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)  # fmt: skip
    assert done.returncode == 1 and b"does not exist" in done.stderr


def test_file_arguments_are_materialized_and_their_temp_files_removed_at_retire(make_pool):
    from claude_sync._options.argv import FileArg
    from claude_sync._shared_pool.lease_client import LeasePlan

    pool = make_pool("--spares", "0")
    base = fake_plan("a")
    plan = LeasePlan(base.argv + ("--mcp-config", FileArg('{"m": 1}', ".json", by_fd=True),
                                  "--settings", FileArg('{"s": 2}', ".json")), base.env, base.cwd)  # fmt: skip
    held = lease(plan, path=pool.path, timeout=10)
    text = turn(held, "x")["result"]
    files = json.loads(text.split(" files=")[1].split(" paths=")[0])
    paths = json.loads(text.split(" paths=")[1])
    assert files == ['{"m": 1}', '{"s": 2}']
    assert paths[0].startswith("/dev/fd/") and paths[1].endswith(".json") and os.path.exists(paths[1])
    assert stat_mode(paths[1]) == 0o600
    held.give_back(False, "done")
    wait_gone([held.pid])
    wait_until(lambda: not os.path.exists(paths[1]), 10, "the temp file removed")
    other = lease(LeasePlan(base.argv + ("--settings", FileArg('{"s": 3}', ".json")), base.env, base.cwd),
                  path=pool.path, timeout=10)  # fmt: skip
    assert other.pid != held.pid  # another file content: another plan
    other.give_back(False, "done")


def stat_mode(path):
    import stat

    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_pool_in_process_stops_clean_and_reports_its_gauge(tmp_path):
    """No thread, child, fd or file left after ``stop`` (the leak check runs after this test)."""
    from poolkit import short_dir

    from claude_sync._shared_pool.server import Caps, SharedPool

    directory = short_dir()
    pool = SharedPool(os.path.join(directory, "pool.sock"), Caps(spares=1, handlers=2))
    pool.start()
    try:
        assert pool.metric_attributes == {"claude_sync.pool.kind": "shared"}
        held = lease(fake_plan("a"), path=pool.path, timeout=10)
        wait_until(lambda: pool.stats() == {"alive": 2, "parked": 1, "busy": 1, "queued": 0}, 10, "a spare")
        pids = [cli["pid"] for cli in pool.status()["clis"]]
        turn(held, "x")
        held.give_back(True, "idle")
        wait_until(lambda: pool.stats()["busy"] == 0, 10, "parked")
    finally:
        pool.stop()
    assert not any(pid_alive(pid) for pid in pids)
    assert os.listdir(directory) == []
    os.rmdir(directory)


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_serve_stops_clean_on_sigterm_and_sigint(make_pool, signum):
    import signal

    pool = make_pool("--spares", "1")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    wait_until(lambda: len(pool.status()["clis"]) == 2, 10, "a spare")
    pids = pool.cli_pids()
    pool.process.send_signal(getattr(signal, signum))
    assert pool.process.wait(30) == 0
    wait_gone(pids)
    assert not os.path.exists(pool.path) and not os.path.exists(os.path.join(pool.dir, "pool.lock"))
    pool.wait_log("stopped")
    held.give_back(True, "the pool is gone")


def test_a_plan_whose_cli_cannot_start_is_refused_clearly(make_pool, tmp_path):
    from claude_sync._shared_pool.lease_client import LeasePlan

    pool = make_pool("--spares", "0")
    missing = str(tmp_path / "no-such-claude")
    with pytest.raises(SharedPoolError, match="could not start the CLI") as caught:
        lease(LeasePlan((missing,), {"PATH": "/usr/bin"}, str(tmp_path)), path=pool.path, timeout=5)
    assert caught.value.kind == "refused"
    assert pool.status()["clis"] == [] and pool.status()["spawning"] == 0  # the reserved slot is given back


def test_a_plain_file_where_the_socket_should_be_is_replaced(make_pool):
    from poolkit import short_dir

    directory = short_dir()
    with open(os.path.join(directory, "pool.sock"), "w") as handle:
        handle.write("not a socket")
    with pytest.raises(PoolUnavailable, match="stale socket|cannot connect"):
        lease(fake_plan("a"), path=os.path.join(directory, "pool.sock"), timeout=2)
    pool = make_pool(directory=directory)
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    held.give_back(False, "done")
