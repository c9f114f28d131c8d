"""A reused CLI gets no second ``initialize``: the leaseholder gives its answer back with a
reusable CLI, the pool keeps it with that CLI once its reset passed and hands it over with the
next lease; the session then writes no ``initialize`` (``ConnectionExtension.handshake_answer``).
Fail closed: any value that is not an answer is dropped and ``initialize`` is sent."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any, Dict, Iterator, List, Optional

import pytest
from helpers import wait_until
from lease_harness import FakeLease
from poolkit import fake_plan, turn, wait_gone

from claude_sync import ClaudeAgentOptions, ResultMessage
from claude_sync._engine.connection import Session
from claude_sync._engine.extensions import ConnectionExtension, Extensions
from claude_sync._engine.memory import MemoryTransport
from claude_sync._options.command import SpawnPlan
from claude_sync._shared_pool import protocol
from claude_sync._shared_pool.extension import SharedPoolLease
from claude_sync._shared_pool.lease_client import Lease, lease
from claude_sync._shared_pool.leased_transport import LeasedTransport

ANSWER = {"commands": [{"name": "help"}], "models": [], "account": {"tokenSource": "none"}, "pid": 1234}


@pytest.fixture
def fake() -> Iterator[Any]:
    made: List[FakeLease] = []

    def make(**kwargs: Any) -> FakeLease:
        made.append(FakeLease(**kwargs))
        return made[-1]

    yield make
    for one in made:
        one.close()


# ---------------------------------------------------------------------- the protocol field


@pytest.mark.parametrize(
    "value, answer, problem",
    [
        (None, None, None),
        ({"a": 1}, {"a": 1}, None),
        ("yes", None, "a str, not an object"),
        ([{"a": 1}], None, "a list, not an object"),
        (7, None, "a int, not an object"),
        ({}, None, "empty"),
    ],
)
def test_the_initialize_field_is_an_object_or_dropped_with_a_reason(value: Any, answer: Any, problem: Any) -> None:
    got, why = protocol.initialize_answer(value)
    assert got == answer
    assert (why is None) == (problem is None) and (problem is None or problem in why), why


def _lease_answer(**fields: Any) -> Lease:
    a, b = socket.socketpair()
    b.close()
    fds = []
    for _ in range(3):
        r, w = os.pipe()
        os.close(w)
        fds.append(r)
    answer = {"ok": True, "lease": "L", "pid": 1, "state": "reset", "runs": 1, "prefix": "", **fields}
    return Lease(a, protocol.LineReader(), answer, fds)


@pytest.mark.parametrize(
    "fields, kept, problem",
    [
        ({"initialize": ANSWER}, ANSWER, None),
        ({}, None, None),
        ({"initialize": None}, None, None),
        ({"initialize": "not an object"}, None, "not an object"),
        ({"initialize": [1, 2]}, None, "not an object"),
        ({"initialize": ANSWER, "state": "fresh"}, None, "'fresh' CLI"),
        ({"initialize": ANSWER, "state": "cold"}, None, "'cold' CLI"),
    ],
)
def test_a_lease_takes_the_pools_answer_only_when_it_is_one_for_a_reset_cli(
    fields: Dict[str, Any], kept: Any, problem: Optional[str]
) -> None:
    held = _lease_answer(**fields)
    try:
        assert held.initialize_answer == kept
        assert (held.initialize_problem is None) == (problem is None), held.initialize_problem
        assert problem is None or problem in held.initialize_problem
    finally:
        held.give_back(False, "test")


def test_the_give_back_carries_the_answer_only_when_reusable(fake: Any) -> None:
    one, two, three = fake(), fake(), fake()
    one.lease.give_back(True, "idle", initialize=ANSWER)
    assert one.returned()["initialize"] == ANSWER
    two.lease.give_back(False, "a tool ran", initialize=ANSWER)
    assert "initialize" not in two.returned()
    three.lease.give_back(True, "idle", initialize={"bad": object()})  # JSON cannot carry it: left out
    returned = three.returned()
    assert returned["reusable"] is True and "initialize" not in returned


# ---------------------------------------------------------------------- the engine's hook


class _Knows(ConnectionExtension):
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.used: List[Any] = []

    def handshake_answer(self) -> Any:
        return self.answer

    def handshaken(self, answer: Dict[str, Any], reused: bool) -> None:
        self.used.append((answer, reused))


def test_an_extensions_answer_replaces_the_initialize_request() -> None:
    knows = _Knows(dict(ANSWER))
    transport = MemoryTransport()
    session = Session(ClaudeAgentOptions(close_timeout=1.0), transport=transport, extensions=lambda s: [knows])
    try:
        assert session.connect(timeout=5) == ANSWER
        assert knows.used == [(ANSWER, True)]
        assert transport.peer.read_bytes(0.2) is None, "nothing was written: no initialize"
    finally:
        session.close()


@pytest.mark.parametrize("answer", [None, "not a dict", ["x"]])
def test_no_answer_or_a_bad_one_sends_initialize(answer: Any) -> None:
    knows = _Knows(answer)
    assert Extensions([knows]).handshake_answer() is None
    transport = MemoryTransport()
    session = Session(ClaudeAgentOptions(close_timeout=1.0), transport=transport, extensions=lambda s: [knows])
    try:
        peer = transport.peer
        import threading

        def answer_initialize() -> None:
            frame = peer.read_frame(5.0)
            assert frame["request"]["subtype"] == "initialize"
            peer.send({"type": "control_response", "response": {"subtype": "success", "request_id": frame["request_id"],
                                                                "response": {"fresh": True}}})  # fmt: skip

        thread = threading.Thread(target=answer_initialize, name="claude_sync-test-peer")
        thread.start()
        assert session.connect(timeout=5) == {"fresh": True}
        thread.join(10)
        assert knows.used == [({"fresh": True}, False)]
    finally:
        session.close()


# ---------------------------------------------------------------------- the leaseholder's side


class _Leased(SharedPoolLease):
    """The lease extension over a ``FakeLease`` instead of a pool."""

    def __init__(self, held: FakeLease) -> None:
        super().__init__("/nonexistent/pool.sock")
        self.held = held

    def transport(self, options: ClaudeAgentOptions, plan: SpawnPlan) -> Any:
        self.leased = LeasedTransport(self.held.lease, options=options, close_timeout=5.0)
        return self.leased


def _run(held: FakeLease, prompt: str) -> Session:
    extension = _Leased(held)
    options = ClaudeAgentOptions(cli_path=sys.executable, close_timeout=5.0)
    session = Session(options, extensions=lambda s: [extension])
    try:
        session.connect(timeout=10)
        session.send_user_message({"type": "user", "message": {"role": "user", "content": prompt},
                                   "parent_tool_use_id": None, "session_id": "default"})  # fmt: skip
        session.close_stdin()
        results = [m for m in session.messages(timeout=20) if isinstance(m, ResultMessage)]
        assert results and results[-1].result == f"ok: {prompt}"
    finally:
        session.close()
    return session


def test_a_reset_cli_with_an_answer_gets_no_initialize_and_the_answer_goes_back(fake: Any) -> None:
    held = fake()
    held.lease.state, held.lease.initialize_answer = "reset", dict(ANSWER)
    session = _run(held, "hi")
    assert session.server_info == ANSWER
    returned = held.returned()
    assert returned["reusable"] is True and returned["initialize"] == ANSWER


def test_a_fresh_cli_gets_initialize_and_its_answer_goes_back(fake: Any) -> None:
    held = fake()
    assert held.lease.initialize_answer is None
    session = _run(held, "hi")
    returned = held.returned()
    assert returned["reusable"] is True and returned["initialize"] == session.server_info
    assert session.server_info  # the fake CLI's own answer


# ---------------------------------------------------------------------- the pool keeps it


def _parked(pool: Any) -> bool:
    return [c["state"] for c in pool.status()["clis"]] == ["parked"]


def test_the_pool_keeps_the_answer_with_a_reset_cli_and_drops_it_when_asked_to(make_pool: Any) -> None:
    pool = make_pool("--spares", "0")
    plan = fake_plan("a")
    first = lease(plan, path=pool.path, timeout=10)
    assert first.initialize_answer is None and first.state == "cold"
    turn(first, "hello")
    first.give_back(True, "idle", initialize=ANSWER)
    wait_until(lambda: _parked(pool), 10, "parked")
    second = lease(plan, path=pool.path, timeout=10)
    assert second.pid == first.pid and second.initialize_answer == ANSWER
    turn(second, "again", initialize=False)
    second.give_back(True, "idle")  # no answer given back: none is kept
    wait_until(lambda: _parked(pool), 10, "parked")
    third = lease(plan, path=pool.path, timeout=10)
    assert third.pid == first.pid and third.initialize_answer is None
    turn(third, "third")
    third.give_back(False, "retired")
    wait_gone([first.pid])
    fourth = lease(plan, path=pool.path, timeout=10)  # a new CLI never has one
    try:
        assert fourth.state == "cold" and fourth.initialize_answer is None
    finally:
        fourth.give_back(False, "done")


def test_the_pool_drops_a_give_backs_bad_answer_with_a_reason(make_pool: Any) -> None:
    pool = make_pool("--spares", "0")
    plan = fake_plan("a")
    first = lease(plan, path=pool.path, timeout=10)
    turn(first, "hello")
    # a give-back as another (buggy) client would send it
    message = {"v": protocol.VERSION, "op": "return", "reusable": True, "reason": "idle", "leftover": "",
               "initialize": ["not", "an", "object"]}  # fmt: skip
    first._sock.sendall(protocol.encode(message))  # type: ignore[union-attr]
    first.give_back(True, "idle")  # closes (its own return is ignored: the first one counts)
    pool.wait_log("its initialize answer is not kept (the initialize answer is a list, not an object)")
    wait_until(lambda: _parked(pool), 10, "parked")
    second = lease(plan, path=pool.path, timeout=10)
    try:
        assert second.pid == first.pid and second.initialize_answer is None
    finally:
        second.give_back(False, "done")


def test_the_answer_given_back_is_a_copy_taken_at_the_handshake(fake: Any) -> None:
    held = fake()
    extension = _Leased(held)
    extension.transport(ClaudeAgentOptions(), SpawnPlan(argv=["claude"], env={}))
    answer = {"commands": [{"name": "help"}]}
    extension.handshaken(answer, reused=False)
    answer["commands"].append({"name": "changed by the caller"})
    assert extension.leased is not None and extension.leased.initialize_answer == {"commands": [{"name": "help"}]}
    extension.handshaken({"bad": object()}, reused=False)
    assert extension.leased.initialize_answer is None
    extension.leased.close()
