"""A throwaway PostgreSQL server for the tests: ``initdb`` + ``postgres`` in a temp dir.

* ``find_pg_bin()``: the directory holding ``initdb`` and ``postgres`` (env
  ``CLAUDE_SYNC_PG_BIN``, else the newest ``/usr/lib/postgresql/*/bin``, else ``PATH``).
* ``require_pg_bin()``: that directory, or a pytest *skip* — a *failure* under ``CI=true``
  (``.ci/run`` installs the server with ``.ci/install_postgres.sh``).
* ``running_server()``: what a fixture yields: psycopg checked first (``require_package``:
  the postgres extra), then the binaries, then a started ``PostgresServer``, cleaned up
  however the test — or the start itself — ends.
* ``PostgresServer(bin_dir)``: ``start()`` runs ``initdb`` then the ``postgres`` binary itself
  on a free 127.0.0.1 port, its unix socket in the temp dir too, through a launcher process
  that exits at once: the server is a daemon, not a child of the test process (tests that
  check this process has no children left keep working while it runs). ``stop()`` asks for
  a fast shutdown by the PID the launcher reported (checked to still be this server's
  postmaster) and waits until it is gone; ``restart()`` brings it back on the same port and
  data. PostgreSQL refuses to run as root: when the tests run as root, the server runs as
  the ``postgres`` user (the Debian package makes it) or, failing that, ``nobody``; the temp
  dir is given to that user.

Durability is traded for speed (``fsync=off``): the tests kill clients, never the machine.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest
from helpers import require_package

INSTALL_HINT = "bash .ci/install_postgres.sh  (then export CLAUDE_SYNC_PG_BIN=<the dir it prints>)"
SUPERUSER = "claude_sync"
LAUNCHER = r"""
import json, subprocess, sys
argv, log, cwd, user = json.loads(sys.argv[1])
with open(log, "ab") as out:
    server = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=cwd,
                              start_new_session=True, **({"user": user} if user else {}))
print(server.pid)
"""
"""Starts the server and exits, so the server is nobody's child here."""


def find_pg_bin() -> Optional[str]:
    """The bin dir with ``initdb`` and ``postgres``, or None."""
    candidates: List[str] = []
    if os.environ.get("CLAUDE_SYNC_PG_BIN"):
        candidates.append(os.environ["CLAUDE_SYNC_PG_BIN"])
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(versions, key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for directory in candidates:
        if all(os.access(os.path.join(directory, name), os.X_OK) for name in ("initdb", "postgres")):
            return directory
    return None


def require_pg_bin() -> str:
    """``find_pg_bin()``, else fail under ``CI=true`` and skip elsewhere (naming the installer)."""
    found = find_pg_bin()
    if found:
        return found
    reason = f"PostgreSQL server binaries (initdb, postgres) not found; install them: {INSTALL_HINT}"
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)
    raise AssertionError("unreachable")  # pragma: no cover


def running_server(**settings: str) -> Iterator[PostgresServer]:
    """For a fixture (``yield from running_server()``): a started server, stopped and its
    temp dir removed when the fixture ends, or when starting it fails. psycopg and the
    server binaries are required first (skipped, or failed under ``CI=true``), before
    anything is created or launched."""
    require_package("psycopg", import_it=False)
    server = PostgresServer(require_pg_bin(), settings=settings or None)
    try:
        server.start()
        yield server
    finally:
        server.cleanup()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_user() -> Optional[str]:
    """Who the server runs as: None (this user) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


class PostgresServer:
    """One PostgreSQL server in its own temp dir. ``start``/``stop``/``restart`` from the
    test's thread; every wait is bounded."""

    def __init__(self, bin_dir: str, *, settings: Optional[Dict[str, str]] = None) -> None:
        self.bin_dir = bin_dir
        self.user = server_user()
        self.base = Path(tempfile.mkdtemp(prefix="claude_sync-pg-"))
        self.data = self.base / "data"
        self.log_path = self.base / "server.log"
        self.port = 0
        self.server_pid: Optional[int] = None
        self.settings = {
            "listen_addresses": "127.0.0.1", "fsync": "off", "synchronous_commit": "off",
            "full_page_writes": "off", "max_connections": "200", "shared_buffers": "32MB",
            **(settings or {}),
        }  # fmt: skip
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)

    # ------------------------------------------------------------------ life cycle

    def _run_as(self) -> Dict[str, Any]:
        return {"user": self.user} if self.user is not None else {}

    def start(self, timeout: float = 60.0) -> PostgresServer:
        """initdb (first time), then start the server and wait until it accepts connections.
        Raises ``RuntimeError`` with the server log's tail when it does not come up, and
        ``ImportError`` (before launching anything) without psycopg; a server launched by a
        start that then fails is stopped before the error propagates."""
        import psycopg  # noqa: F401 - _wait_ready needs it: fail before a server runs

        if not self.data.exists():
            result = subprocess.run(
                [os.path.join(self.bin_dir, "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                 "-E", "UTF8", "--locale=C", "--no-sync"],
                capture_output=True, timeout=timeout, cwd=str(self.base), check=False, **self._run_as(),
            )  # fmt: skip
            if result.returncode != 0:
                raise RuntimeError(f"initdb failed ({result.returncode}): {result.stderr.decode(errors='replace')[-2000:]}")
        if not self.port:
            self.port = free_port()
        argv = [os.path.join(self.bin_dir, "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.base)]
        for name, value in self.settings.items():
            argv += ["-c", f"{name}={value}"]
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, json.dumps([argv, str(self.log_path), str(self.base), self.user])],
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        if launched.returncode != 0:
            raise RuntimeError(f"could not launch postgres: {launched.stderr[-2000:]}")
        self.server_pid = int(launched.stdout.strip())
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            if not self._running():
                raise RuntimeError(f"postgres exited: {self.log_tail()}")
            try:
                psycopg.connect(self.conninfo(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"postgres did not accept connections within {timeout}s: {self.log_tail()}") from None
                time.sleep(0.05)

    def _running(self) -> bool:
        """Whether ``server_pid`` is still this server's postmaster (not a zombie, not reused)."""
        if self.server_pid is None:
            return False
        try:
            stat = Path(f"/proc/{self.server_pid}/stat").read_text()
            cmdline = Path(f"/proc/{self.server_pid}/cmdline").read_bytes()
        except OSError:
            return False
        return stat[stat.rindex(")") + 2] != "Z" and str(self.data).encode() in cmdline

    def stop(self, timeout: float = 30.0) -> None:
        """Fast shutdown (SIGINT) by PID, SIGKILL after ``timeout``; waits until it is gone.
        Signals only while the PID is still this server's postmaster."""
        deadline = time.monotonic() + timeout
        for sig in (signal.SIGINT, signal.SIGKILL):
            if not self._running():
                break
            assert self.server_pid is not None
            os.kill(self.server_pid, sig)
            while self._running() and time.monotonic() < deadline:
                time.sleep(0.01)
            deadline = time.monotonic() + timeout
        self.server_pid = None

    def restart(self, timeout: float = 60.0) -> None:
        """Start again on the same port and data dir (after ``stop``)."""
        self.start(timeout)

    def cleanup(self) -> None:
        """Stop, then remove the temp dir."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    # ------------------------------------------------------------------ use

    def conninfo(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname={dbname}"

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""
