"""Helpers for the shared pool's tests: a pool process on a short socket path, fake-CLI plans,
and one turn over a lease's pipes."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from helpers import wait_until

from claude_sync._shared_pool.lease_client import Lease, LeasePlan, request

ROOT = Path(__file__).resolve().parents[2]
FAKE_CLI = str(Path(__file__).with_name("fake_cli.py"))


def short_dir() -> str:
    """A fresh 0700 directory with a short path (a socket address holds 107 bytes)."""
    return tempfile.mkdtemp(prefix="sp-", dir="/tmp")


def fake_plan(tag: str = "a", **env: str) -> LeasePlan:
    environ = {"PATH": os.environ.get("PATH", os.defpath), "FAKE_TAG": tag, **env}
    return LeasePlan(argv=(sys.executable, FAKE_CLI), env=environ, cwd=str(ROOT))


class PoolProcess:
    """``python -m claude_sync serve`` as a child of the test, its stderr collected in a file."""

    def __init__(self, directory: str, *flags: str) -> None:
        self.dir = directory
        self.path = os.path.join(directory, "pool.sock")
        self.log_path = os.path.join(directory, "serve.log")
        self.log = open(self.log_path, "wb")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.pop("CLAUDE_SYNC_SHARED_POOL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "claude_sync", "serve", "--socket", self.path, *flags],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env, cwd=str(ROOT),
        )  # fmt: skip

    def wait_ready(self, timeout: float = 30.0) -> "PoolProcess":
        wait_until(lambda: self.process.poll() is not None or self._answers(), timeout, "the pool answering")
        assert self.process.poll() is None, self.text()
        return self

    def _answers(self) -> bool:
        try:
            return bool(self.status())
        except Exception:  # noqa: BLE001
            return False

    def status(self) -> Dict[str, Any]:
        return request(self.path, {"v": 1, "op": "status"}, 10.0)

    def cli_pids(self) -> List[int]:
        return [cli["pid"] for cli in self.status()["clis"]]

    def text(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return Path(self.log_path).read_text(errors="replace")

    def wait_log(self, text: str, timeout: float = 10.0) -> None:
        """Wait for ``text`` in the pool's log (lines come after the event they report)."""
        wait_until(lambda: text in self.text(), timeout, f"{text!r} in the pool's log")

    def stop(self) -> int:
        if self.process.poll() is None:
            try:
                request(self.path, {"v": 1, "op": "stop"}, 10.0)
            except Exception:  # noqa: BLE001
                self.process.kill()
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(10)
        self.log.close()
        return code

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


def pool_process(*flags: str) -> Iterator[PoolProcess]:
    """A ``claude-sync serve`` subprocess with ``flags`` in a fresh short directory, answering;
    stopped (by its pid) and its directory removed at the end (a generator: ``yield from`` it in
    a fixture, or ``running_pool`` as a context manager)."""
    directory = short_dir()
    pool = PoolProcess(directory, *flags)
    try:
        yield pool.wait_ready()
    finally:
        pool.stop()
        shutil.rmtree(directory, ignore_errors=True)


running_pool = contextlib.contextmanager(pool_process)
"""``pool_process`` as a context manager."""


def pid_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def read_until_result(lease: Lease, pending: bytes, timeout: float = 20.0) -> Tuple[List[Dict[str, Any]], bytes]:
    """Lines from the lease's stdout (``pending`` first) up to a ``result`` line."""
    deadline = time.monotonic() + timeout
    buffer = bytearray(pending)
    out: List[Dict[str, Any]] = []
    while True:
        while b"\n" in buffer:
            line, _, rest = bytes(buffer).partition(b"\n")
            buffer = bytearray(rest)
            if line.strip():
                obj = json.loads(line)
                out.append(obj)
                if obj.get("type") == "result":
                    return out, bytes(buffer)
        left = deadline - time.monotonic()
        ready, _, _ = select.select([lease.stdout_fd], [], [], max(0.0, left))
        if not ready:
            raise AssertionError(f"no result within {timeout}s: {out}")
        chunk = os.read(lease.stdout_fd, 65536)
        if not chunk:
            raise EOFError(f"the CLI's stdout ended: {out}")
        buffer += chunk


def turn(lease: Lease, prompt: str, initialize: bool = True) -> Dict[str, Any]:
    """``initialize`` (as every leaseholder does) and one user turn; the result line."""
    lines = []
    if initialize:
        lines.append({"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize"}})
    lines.append({"type": "user", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": None,
                  "session_id": "default"})  # fmt: skip
    os.write(lease.stdin_fd, b"".join((json.dumps(line) + "\n").encode() for line in lines))
    pending = lease.prefix
    if initialize:
        answers, pending = read_until_control(lease, pending)
    out, rest = read_until_result(lease, pending)
    assert rest == b"", rest
    return out[-1]


def read_until_control(lease: Lease, pending: bytes, timeout: float = 20.0) -> Tuple[Dict[str, Any], bytes]:
    deadline = time.monotonic() + timeout
    buffer = bytearray(pending)
    while True:
        if b"\n" in buffer:
            line, _, rest = bytes(buffer).partition(b"\n")
            buffer = bytearray(rest)
            obj = json.loads(line)
            if obj.get("type") == "control_response":
                return obj, bytes(buffer)
            continue
        ready, _, _ = select.select([lease.stdout_fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError("no control_response")
        chunk = os.read(lease.stdout_fd, 65536)
        if not chunk:
            raise EOFError("the CLI's stdout ended")
        buffer += chunk


def run_script(code: str, *args: str, timeout: float = 60.0, **popen: Any) -> "subprocess.Popen[bytes]":
    """A Python child running ``code`` (this checkout on its path)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in (ROOT, ROOT / "tests", ROOT / "tests" / "shared_pool")))
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=str(ROOT), **popen)


def wait_gone(pids: List[int], timeout: float = 15.0) -> None:
    wait_until(lambda: not any(pid_alive(pid) for pid in pids), timeout, f"pids {pids} gone")


def tail(pool: PoolProcess) -> Optional[str]:
    return pool.text()[-3000:]
