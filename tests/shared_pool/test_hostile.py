"""The shared pool tried as a hostile or unlucky user would (issue 41): another uid, a stale
socket, the pool SIGKILLed, a leaseholder SIGKILLed, 200 requests at once, a forked
leaseholder, unsafe socket directories, oversized and garbage messages."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

import pytest
from helpers import wait_until
from poolkit import fake_plan, pid_alive, read_until_result, run_script, short_dir, turn, wait_gone

from claude_sync._shared_pool import protocol
from claude_sync._shared_pool.lease_client import PoolUnavailable, SharedPoolError, lease

NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another uid needs root (setuid)")


def _in_child_as(uid: int, action) -> bytes:
    """Fork, become ``uid`` in the child, run ``action()`` there and return what it wrote."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no threads of ours, no return into pytest
        code = 0
        try:
            os.close(read_end)
            os.setgid(uid)
            os.setuid(uid)
            os.write(write_end, action())
        except BaseException as exc:  # noqa: BLE001
            os.write(write_end, f"child error: {exc!r}".encode())
            code = 1
        os._exit(code)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks)


@needs_root
def test_another_uid_is_refused(make_pool):
    pool = make_pool()

    def connect() -> bytes:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(10)
            sock.connect(pool.path)
            try:
                sock.sendall(protocol.encode({"v": 1, "op": "status"}))
            except BrokenPipeError:
                pass  # refused at once: the answer waits to be read
            return sock.recv(65536) or b"EOF"
        except OSError as exc:
            return f"{type(exc).__name__}".encode()
        finally:
            sock.close()

    assert _in_child_as(NOBODY, connect) == b"PermissionError"  # the 0700 directory stops it first
    os.chmod(pool.dir, 0o711)  # open the file system's door: the uid check must hold alone
    os.chmod(pool.path, 0o777)
    answer = json.loads(_in_child_as(NOBODY, connect))
    os.chmod(pool.dir, 0o700)
    assert answer == {"ok": False, "error": "refused", "message": "this pool serves its own uid only"}
    pool.wait_log(f"refused a connection from uid {NOBODY}")
    assert pool.status()["counts"]["refused_peers"] == 1


@needs_root
def test_the_client_refuses_a_pool_of_another_uid():
    directory = short_dir()
    path = os.path.join(directory, "pool.sock")
    listening, go = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(path)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            sock.listen(1)  # the peer's credentials are taken here: uid 65534
            os.write(go, b"1")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    try:
        assert os.read(listening, 1) == b"1"
        with pytest.raises(PoolUnavailable, match=f"runs as uid {NOBODY}"):
            lease(fake_plan("a"), path=path, timeout=5)
    finally:
        os.write(done_w, b"1")
        os.waitpid(pid, 0)
        for fd in (listening, go, done_r, done_w):
            os.close(fd)
        os.unlink(path)
        os.rmdir(directory)


def test_a_stale_socket_from_a_sigkilled_pool_is_detected_and_replaced(make_pool):
    pool = make_pool()
    pool.kill()
    assert os.path.exists(pool.path)  # left behind
    with pytest.raises(PoolUnavailable, match="stale socket"):
        lease(fake_plan("a"), path=pool.path, timeout=5)
    again = make_pool(directory=pool.dir)
    again.wait_log("replacing the stale socket")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    assert turn(held, "x")["result"].startswith(f"pid={held.pid}")
    held.give_back(False, "done")


def test_the_pool_sigkilled_takes_every_cli_along(make_pool):
    pool = make_pool("--spares", "1", "--max-clis", "4")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    other = lease(fake_plan("b"), path=pool.path, timeout=10)
    turn(held, "x")
    wait_until(lambda: len(pool.status()["clis"]) == 4, 10, "2 leased + 2 spares")
    pids = pool.cli_pids()
    pool.kill()
    wait_gone(pids)
    # the leaseholder: EOF on the CLI's stdout, no exit notice, a clear error on the next lease
    with pytest.raises(EOFError):
        read_until_result(held, b"", timeout=10)
    assert held.exit_notice(5) is None
    for gone in (held, other):
        gone.give_back(True, "never raises on a dead pool")
    with pytest.raises(PoolUnavailable, match="stale socket"):
        lease(fake_plan("a"), path=pool.path, timeout=5)


LEASEHOLDER = r"""
import json, os, sys, time
from poolkit import fake_plan
from claude_sync._shared_pool.lease_client import lease
held = lease(fake_plan("a"), path=sys.argv[1], timeout=30)
os.write(held.stdin_fd, b'{"type":"user","message":{"role":"user","content":"mid-run"}}\n')
if sys.argv[2] == "fork":
    child = os.fork()
    if child == 0:
        time.sleep(120)  # outlives its parent, holding nothing of the lease
        os._exit(0)
else:
    child = 0
print(json.dumps({"cli": held.pid, "child": child}), flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("fork", [False, True], ids=["plain", "with-a-forked-child"])
def test_a_leaseholder_sigkilled_mid_lease_loses_its_cli(make_pool, fork):
    pool = make_pool("--spares", "0")
    holder = run_script(LEASEHOLDER, pool.path, "fork" if fork else "no", stdout=subprocess.PIPE)
    try:
        info = json.loads(holder.stdout.readline())
        wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["leased"], 10, "leased")
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        wait_gone([info["cli"]])  # killed, though a forked child of the leaseholder still runs
        if fork:
            assert pid_alive(info["child"])
        pool.wait_log("disconnected without giving it back")
        wait_until(lambda: pool.status()["clis"] == [], 10, "nothing left")
        nxt = lease(fake_plan("a"), path=pool.path, timeout=10)
        assert nxt.pid != info["cli"] and nxt.state == "cold"
        assert turn(nxt, "after")["result"] == f"pid={nxt.pid} tag=a runs=1"
        nxt.give_back(False, "done")
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
        holder.stdout.close()
        if fork and pid_alive(info["child"]):
            os.kill(info["child"], signal.SIGKILL)  # our grandchild, started by this test


def test_a_forked_child_closes_its_copies_and_the_parent_keeps_its_lease(make_pool):
    pool = make_pool("--spares", "0")
    held = lease(fake_plan("a"), path=pool.path, timeout=10)
    fds = [held.stdin_fd, held.stdout_fd, held.stderr_fd]
    pid = os.fork()
    if pid == 0:
        still_open = []
        for fd in fds:
            try:
                os.fstat(fd)
                still_open.append(fd)
            except OSError:
                pass
        os._exit(0 if not still_open and held.given_back else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert turn(held, "in the parent")["result"] == f"pid={held.pid} tag=a runs=1"
    held.give_back(True, "idle")
    wait_until(lambda: [c["state"] for c in pool.status()["clis"]] == ["parked"], 10, "parked")


def _flood(path: str, count: int, timeout: float):
    outcomes = []
    lock = threading.Lock()

    def one(index: int) -> None:
        try:
            held = lease(fake_plan("a"), path=path, timeout=timeout)
        except SharedPoolError as exc:
            with lock:
                outcomes.append(("busy" if exc.kind == "busy" else repr(exc), None))
            return
        except BaseException as exc:  # noqa: BLE001 - counted: the test fails naming it
            with lock:
                outcomes.append((repr(exc), None))
            return
        try:
            result = turn(held, f"request {index}")["result"]
            held.give_back(True, "idle")
            with lock:
                outcomes.append(("ok", (held.pid, result)))
        except BaseException as exc:  # noqa: BLE001
            held.give_back(False, "failed")
            with lock:
                outcomes.append((repr(exc), None))

    threads = [threading.Thread(target=one, args=(index,), name=f"flood-{index}") for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads), "a request hung"
    return outcomes


def test_200_concurrent_lease_requests_are_bounded_and_all_served(make_pool):
    pool = make_pool("--spares", "0", "--max-clis", "4", "--max-runs", "1000")
    outcomes = _flood(pool.path, 200, timeout=100)
    assert len(outcomes) == 200  # none lost
    assert [kind for kind, _ in outcomes if kind != "ok"] == []
    pids = {pid for _, (pid, _) in outcomes}
    assert 1 <= len(pids) <= 4  # never more CLIs than the cap
    status = pool.status()
    assert status["counts"]["leases"] == 200 and status["counts"]["started"] == len(pids)
    assert status["waiting"] == 0 and len(status["clis"]) <= 4


def test_200_concurrent_requests_over_max_waiting_get_a_clear_busy(make_pool):
    pool = make_pool("--spares", "0", "--max-clis", "2", "--max-waiting", "5")
    outcomes = _flood(pool.path, 200, timeout=100)
    kinds = [kind for kind, _ in outcomes]
    assert len(kinds) == 200 and set(kinds) <= {"ok", "busy"}, set(kinds)
    assert kinds.count("ok") >= 2 and kinds.count("busy") >= 1
    assert len({pid for kind, value in outcomes if kind == "ok" for pid in [value[0]]}) <= 2


@pytest.mark.parametrize("how", ["group-writable", "symlink", "foreign-owned"])
def test_an_unsafe_socket_dir_is_refused_by_serve_and_lease(make_pool, how):
    base = short_dir()
    directory = os.path.join(base, "d")
    os.mkdir(directory, 0o700)
    if how == "group-writable":
        os.chmod(directory, 0o770)
        target = directory
    elif how == "symlink":
        target = os.path.join(base, "link")
        os.symlink(directory, target)
    else:
        if os.geteuid() != 0:
            pytest.skip("chown to another uid needs root")
        os.chown(directory, NOBODY, NOBODY)
        target = directory
    expected = {"group-writable": "open to group/other", "symlink": "is a symlink", "foreign-owned": "owned by uid"}[how]
    try:
        with pytest.raises(PoolUnavailable, match=expected):
            lease(fake_plan("a"), path=os.path.join(target, "pool.sock"), timeout=2)
        serve = make_pool(directory=target, ready=False)
        assert serve.process.wait(30) == 1
        assert expected in serve.text()
        assert not os.path.exists(os.path.join(directory, "pool.sock"))
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def _raw(path: str, data: bytes, timeout: float = 10.0) -> bytes:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    try:
        try:
            sock.sendall(data)
            if not data:
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the pool stopped reading: its answer is still there
        out = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        sock.close()


def test_oversized_and_garbage_messages_are_refused_and_the_pool_lives_on(make_pool):
    pool = make_pool("--spares", "0")
    big = json.loads(_raw(pool.path, b"x" * (protocol.MAX_MESSAGE_BYTES + 100)))
    assert big["error"] == "bad_request" and "over the limit" in big["message"]
    for garbage, word in [(b"hello\n", "not valid UTF-8 JSON"), (b"[1]\n", "JSON object"), (b"\xff\n", "UTF-8"),
                          (b'{"v": 1, "op": "dance"}\n', "unknown op"),
                          (b'{"v": 1, "op": "lease", "plan": {"argv": ["sh"], "env": {}, "cwd": null}, "timeout": 1}\n',
                           "absolute path"),
                          (b'{"v": 1, "op": "return", "reusable": true}\n', "only valid during a lease")]:  # fmt: skip
        answer = json.loads(_raw(pool.path, garbage))
        assert answer["ok"] is False and word in answer["message"], (garbage, answer)
    version = json.loads(_raw(pool.path, b'{"v": 99, "op": "status"}\n'))
    assert version["error"] == "version" and "99" in version["message"] and "version 1" in version["message"]
    assert _raw(pool.path, b"") == b""  # a connection that says nothing and closes
    silent = json.loads(_raw(pool.path, b'{"v": 1, '))  # half a request, then silence: bounded
    assert silent["error"] == "bad_request" and "no request within" in silent["message"]
    assert pool.status()["ok"]


def test_garbage_during_a_lease_kills_its_cli(make_pool):
    pool = make_pool("--spares", "0")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(pool.path)
    plan = protocol.plan_to_wire(list(fake_plan("a").argv), fake_plan("a").env, fake_plan("a").cwd)
    sock.sendall(protocol.encode({"v": 1, "op": "lease", "plan": plan, "timeout": 5, "pid": os.getpid()}))
    data, fds, _, _ = socket.recv_fds(sock, 65536, 3)
    try:
        answer = json.loads(data)
        assert answer["ok"] and len(fds) == 3
        sock.sendall(b"garbage\n")
        wait_gone([answer["pid"]])
        pool.wait_log("disconnected without giving it back")
    finally:
        for fd in fds:
            os.close(fd)
        sock.close()


def test_a_version_mismatch_is_pool_unavailable_for_the_client(make_pool, monkeypatch):
    pool = make_pool()
    monkeypatch.setattr(protocol, "VERSION", 2)
    with pytest.raises(PoolUnavailable, match="version"):
        lease(fake_plan("a"), path=pool.path, timeout=5)
