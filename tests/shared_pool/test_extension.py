"""The leaseholder's switch and extension without a real CLI: the option and the environment,
the engine's transport hook, the fallbacks (not leasable, no pool: spawn, one log line), and
``SharedPoolError`` propagating."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from typing import Any, Iterator, List, Optional

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync._engine.connection import Session
from claude_sync._engine.extensions import ConnectionExtension, Extensions
from claude_sync._engine.memory import MemoryTransport
from claude_sync._options.command import SpawnPlan
from claude_sync._shared_pool import extension
from claude_sync._shared_pool.errors import SharedPoolError
from claude_sync._shared_pool.extension import SharedPoolLease
from claude_sync._shared_pool.switch import leasing_path
from claude_sync._wiring import connection_extensions


@pytest.fixture
def short_dir() -> Iterator[str]:
    directory = tempfile.mkdtemp(prefix="spl-", dir="/tmp")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(autouse=True)
def fresh_log() -> Iterator[None]:
    extension._logged.clear()
    yield
    extension._logged.clear()


@pytest.mark.parametrize("bad, error", [(3, TypeError), ("", ValueError), ("a\0b", ValueError), (["/x"], TypeError)])
def test_a_bad_shared_pool_option_is_a_typed_error_naming_it(bad: Any, error: type) -> None:
    with pytest.raises(error, match="ClaudeAgentOptions.shared_pool"):
        ClaudeAgentOptions(shared_pool=bad)


@pytest.mark.parametrize(
    "option, env, on",
    [(None, None, False), (None, "", False), (None, "0", False), (False, "1", False), (None, "/x/pool.sock", True),
     (True, None, True), ("/y/pool.sock", "0", True)],
)  # fmt: skip
def test_the_switch(option: Any, env: Optional[str], on: bool) -> None:
    environ = {} if env is None else {"CLAUDE_SYNC_SHARED_POOL": env}
    environ["XDG_RUNTIME_DIR"] = "/nonexistent-runtime"
    assert (leasing_path(ClaudeAgentOptions(shared_pool=option), environ) is not None) is on


def test_the_wiring_adds_the_lease_only_when_leasing_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_SYNC_SHARED_POOL", raising=False)
    off = Session(ClaudeAgentOptions())
    on = Session(ClaudeAgentOptions(shared_pool="/tmp/nowhere/pool.sock"))
    assert not any(isinstance(e, SharedPoolLease) for e in connection_extensions(off))
    assert [e.path for e in connection_extensions(on) if isinstance(e, SharedPoolLease)] == ["/tmp/nowhere/pool.sock"]
    monkeypatch.setenv("CLAUDE_SYNC_SHARED_POOL", "/tmp/env/pool.sock")
    assert [e.path for e in connection_extensions(off) if isinstance(e, SharedPoolLease)] == ["/tmp/env/pool.sock"]


def _plan() -> SpawnPlan:
    return SpawnPlan(argv=["/bin/true"], env={"A": "1"}, cwd="/")


def test_no_pool_and_a_plan_not_leasable_spawn_here_with_one_log_line_each(
    short_dir: str, caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = os.path.join(short_dir, "pool.sock")
    with caplog.at_level(logging.INFO, logger="claude_sync.shared_pool"):
        for _ in range(3):
            assert SharedPoolLease(nowhere).transport(ClaudeAgentOptions(), _plan()) is None
            assert SharedPoolLease(nowhere).transport(ClaudeAgentOptions(resume="s"), _plan()) is None
    records = [r for r in caplog.records if r.name == "claude_sync.shared_pool"]
    lines = [r.getMessage() for r in records]
    assert len(lines) == 2, lines
    assert "not used (no pool" in lines[0] and "resume" in lines[1]
    # asked for and not served: a warning Python shows without logging set up; a plan that is not leasable: INFO
    assert [r.levelno for r in records] == [logging.WARNING, logging.INFO]


def test_a_pool_that_refuses_raises_shared_pool_error(short_dir: str) -> None:
    """A listener that answers every lease with an error: the pool is there and said no."""
    import threading

    path = os.path.join(short_dir, "pool.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b'{"ok":false,"error":"busy","message":"all CLIs busy"}\n')

    thread = threading.Thread(target=answer, name="claude_sync-test-fake-pool")
    thread.start()
    try:
        with pytest.raises(SharedPoolError):
            SharedPoolLease(path).transport(ClaudeAgentOptions(initialize_timeout=5.0), _plan())
    finally:
        thread.join(10)
        server.close()


class _Supplies(ConnectionExtension):
    def __init__(self, transport: Any) -> None:
        self.supplied = transport
        self.asked: List[Any] = []

    def transport(self, options: ClaudeAgentOptions, plan: SpawnPlan) -> Any:
        self.asked.append(plan)
        return self.supplied


def test_the_engine_asks_the_hook_only_when_it_would_spawn() -> None:
    first, second = _Supplies(None), _Supplies("mine")
    assert Extensions([first, second]).transport(ClaudeAgentOptions(), _plan()) == "mine"
    assert len(first.asked) == len(second.asked) == 1
    given = _Supplies(None)
    session = Session(ClaudeAgentOptions(close_timeout=0.2), transport=MemoryTransport(), extensions=lambda s: [given])
    try:
        with pytest.raises(Exception):
            session.connect(timeout=0.2)  # the memory transport's peer never answers: no matter
    finally:
        session.close()
    assert given.asked == [], "a session given a transport never asks an extension for one"


def test_the_leased_plan_carries_a_digest_of_the_initialize_fields() -> None:
    from claude_sync._shared_pool.extension import INITIALIZE_DIGEST, lease_env

    def plan(fields: dict) -> SpawnPlan:
        return SpawnPlan(argv=["claude"], env={"A": "1"}, initialize_fields=fields)

    a, same, other = (lease_env(plan(f)) for f in ({"systemPrompt": "a"}, {"systemPrompt": "a"}, {"systemPrompt": "b"}))
    assert a == same and a[INITIALIZE_DIGEST] != other[INITIALIZE_DIGEST]
    assert a["A"] == "1" and len(a[INITIALIZE_DIGEST]) == 64  # a digest, not the fields
