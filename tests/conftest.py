"""Shared fixtures: the leak check after every test; ``mode`` and ``scripted`` for tests that
run a kit ``ScriptedCLI`` in-process or as a subprocess (``helpers.Kit``)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional

import pytest
from helpers import Kit, child_pids, wait_until

from claude_sync.testing import ScriptedCLI

# ----------------------------------------------------------------------------- leak check


def _our_threads() -> List[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("claude_sync-") and t.is_alive())


def _fds() -> List[int]:
    try:
        return sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    except OSError:
        return []


RECURSION_LIMIT = sys.getrecursionlimit()
"""The interpreter's recursion limit before any test module was imported."""


@pytest.fixture(autouse=True)
def same_recursion_limit() -> Any:
    """Run each test at the interpreter's own recursion limit: a library may raise it for good
    when imported (jedi, with IPython, sets 3000 on Python 3.9 — at collection, when a test
    module imports IPython), and the tests of deep values measure what happens at the
    default limit."""
    sys.setrecursionlimit(RECURSION_LIMIT)
    yield
    sys.setrecursionlimit(RECURSION_LIMIT)


@pytest.fixture(autouse=True)
def no_leaks(request: pytest.FixtureRequest) -> Any:
    """Fail a test that leaves claude_sync threads, child processes or fds behind.

    Threads get a short grace period only for daemon threads that are already ending (a
    closed session joins its threads before close() returns, so this should never wait).
    """
    threads_before = set(_our_threads())
    children_before = set(child_pids())
    fds_before = set(_fds())
    yield
    if request.node.get_closest_marker("allow_leaks"):
        return
    wait_until(lambda: not (set(_our_threads()) - threads_before), 2.0, fail=False)
    leaked_threads = set(_our_threads()) - threads_before
    wait_until(lambda: not (set(child_pids()) - children_before), 2.0, fail=False)
    leaked_children = set(child_pids()) - children_before
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


# ----------------------------------------------------------------------------- the scripted CLI


@pytest.fixture
def mode(request: pytest.FixtureRequest) -> str:
    """``memory`` unless a test parametrizes it (indirect) with ``subprocess`` too
    (``helpers.BOTH``, ``helpers.SUBPROCESS``)."""
    return str(getattr(request, "param", "memory"))


@pytest.fixture
def scripted(mode: str, tmp_path: Path) -> Callable[[ScriptedCLI], Kit]:
    """``scripted(cli) -> Kit``: run ``cli`` the test's ``mode``."""
    return lambda cli: Kit(cli, mode, tmp_path)


# ----------------------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def postgres_server() -> Any:
    """A real PostgreSQL server for the whole test session (``tests/pg_server.py``): started
    on first use, stopped by PID at the end. Skipped without server binaries, except under
    ``CI=true``, where that fails."""
    from pg_server import running_server

    yield from running_server()


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
