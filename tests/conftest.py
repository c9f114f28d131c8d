"""Shared fixtures: the leak check after every test, and the scriptable fake CLI."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from helpers import wait_until

from claude_sync import ClaudeAgentOptions

FAKE_CLI = Path(__file__).with_name("fake_cli.py")


# ----------------------------------------------------------------------------- leak check


def _our_threads() -> List[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("claude_sync-") and t.is_alive())


def _children() -> List[int]:
    pids: List[int] = []
    task_dir = Path(f"/proc/{os.getpid()}/task")
    if not task_dir.exists():
        return pids
    for task in task_dir.iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return sorted(pids)


def _fds() -> List[int]:
    try:
        return sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    except OSError:
        return []


@pytest.fixture(autouse=True)
def no_leaks(request: pytest.FixtureRequest) -> Any:
    """Fail a test that leaves claude_sync threads, child processes or fds behind.

    Threads get a short grace period only for daemon threads that are already ending (a
    closed session joins its threads before close() returns, so this should never wait).
    """
    threads_before = set(_our_threads())
    children_before = set(_children())
    fds_before = set(_fds())
    yield
    if request.node.get_closest_marker("allow_leaks"):
        return
    wait_until(lambda: not (set(_our_threads()) - threads_before), 2.0, fail=False)
    leaked_threads = set(_our_threads()) - threads_before
    wait_until(lambda: not (set(_children()) - children_before), 2.0, fail=False)
    leaked_children = set(_children()) - children_before
    leaked_fds = set()
    if not wait_until(lambda: not (set(_fds()) - fds_before), 1.0, fail=False):
        leaked_fds = {fd for fd in set(_fds()) - fds_before if _describe_fd(fd) is not None}
    problems = []
    if leaked_threads:
        problems.append(f"threads: {sorted(leaked_threads)}")
    if leaked_children:
        problems.append(f"child processes: {sorted(leaked_children)}")
    if leaked_fds:
        problems.append(f"fds: {[(fd, _describe_fd(fd)) for fd in sorted(leaked_fds)]}")
    if problems:
        pytest.fail("leaked " + "; ".join(problems))


def _describe_fd(fd: int) -> Optional[str]:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "allow_leaks: skip the leak check (documented reason required)")
    # The kit's own plugin (claude_cli, claude_offline): already loaded through its pytest11
    # entry point when claude_sync is installed; import_plugin does nothing then.
    config.pluginmanager.import_plugin("claude_sync.testing.pytest_plugin")


# ----------------------------------------------------------------------------- fake CLI


@dataclass
class FakeCLI:
    """A prepared fake CLI: ``options`` points at it; ``log()`` reads what it saw."""

    path: Path
    script_path: Path
    log_path: Path
    tmp: Path

    def options(self, **kwargs: Any) -> ClaudeAgentOptions:
        env = dict(kwargs.pop("env", {}) or {})
        env.update(FAKE_CLI_SCRIPT=str(self.script_path), FAKE_CLI_LOG=str(self.log_path))
        kwargs.setdefault("close_timeout", 2.0)
        kwargs.setdefault("initialize_timeout", 10.0)
        kwargs.setdefault("control_timeout", 10.0)
        return ClaudeAgentOptions(cli_path=str(self.path), env=env, **kwargs)

    def log(self) -> List[Dict[str, Any]]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line]

    def stdin_frames(self) -> List[Dict[str, Any]]:
        return [entry["data"] for entry in self.log() if entry["kind"] == "stdin"]

    def gate(self, name: str) -> Path:
        """A path a script's ``wait_file`` step can wait for; the test creates it to release."""
        return self.tmp / f"gate-{name}"


@pytest.fixture
def fake_cli(tmp_path: Path) -> Any:
    """``fake_cli(steps, auto=None) -> FakeCLI``: write a script and a wrapper executable."""

    def make(steps: List[Dict[str, Any]], auto: Optional[Dict[str, Any]] = None) -> FakeCLI:
        script = tmp_path / "script.json"
        script.write_text(json.dumps({"steps": steps, "auto": auto or {}}))
        wrapper = tmp_path / "claude"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLI}" "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
        return FakeCLI(wrapper, script, tmp_path / "fake_cli.log", tmp_path)

    return make


# ----------------------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def postgres_server() -> Any:
    """A real PostgreSQL server for the whole test session (``tests/pg_server.py``): started
    on first use, stopped by PID at the end. Skipped without server binaries, except under
    ``CI=true``, where that fails."""
    from pg_server import PostgresServer, require_pg_bin

    server = PostgresServer(require_pg_bin()).start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def pg_conninfo(postgres_server: Any) -> Any:
    """The conninfo of a fresh database on ``postgres_server``, dropped after the test."""
    import uuid

    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server.conninfo(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield postgres_server.conninfo(name)
    finally:
        with psycopg.connect(postgres_server.conninfo(), autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
