"""``LeasedTransport`` over a real ``Lease`` of a fake CLI subprocess (``lease_harness``): a
session talks to the leased pipes, the reader stops without consuming, the verdict goes back
to the "pool" end, exits come from the pool's notice, a fork never touches the parent's lease."""

from __future__ import annotations

import os
import threading
from typing import Iterator, List

import pytest
from helpers import wait_until
from lease_harness import FakeLease

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ProcessError, ResultMessage, query
from claude_sync._shared_pool.leased_transport import LeasedTransport
from claude_sync._wire.errors import CLIConnectionError


@pytest.fixture
def fake() -> Iterator[FakeLease]:
    made: List[FakeLease] = []

    def make(**kwargs: object) -> FakeLease:
        made.append(FakeLease(**kwargs))  # type: ignore[arg-type]
        return made[-1]

    yield make  # type: ignore[misc]
    for one in made:
        one.close()


def _options(**fields: object) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(close_timeout=5.0, **fields)  # type: ignore[arg-type]


def _transport(held: FakeLease, options: ClaudeAgentOptions, lines: List[str]) -> LeasedTransport:
    return LeasedTransport(held.lease, options=options, stderr_callback=lines.append, close_timeout=5.0)


@pytest.mark.parametrize("state", [False, True], ids=["2.1.197-like", "2.1.33x-like (idle after the result)"])
def test_a_client_turn_through_a_lease_gives_the_cli_back_reusable_and_alive(fake, state: bool) -> None:
    held = fake(state=state)
    stderr: List[str] = []
    options = _options()
    transport = _transport(held, options, stderr)
    with ClaudeSDKClient(options, transport=transport) as client:
        client.query("hi")
        messages = list(client.receive_response())
        assert messages[-1].result == "ok: hi"
        assert client.session.pid == held.proc.pid
        assert f"claude_sync-stderr-{held.proc.pid}" in {t.name for t in threading.enumerate()}
    answer = held.returned()
    assert answer["op"] == "return" and answer["reusable"] is True, answer
    assert transport.last_rung == "returned"
    assert held.proc.poll() is None, "a leased CLI is never signalled or ended by the leaseholder"
    wait_until(lambda: "fake-cli: started" in stderr, what="the stderr line reached the callback")
    # nothing of the CLI's stream was consumed past the lease: the pool's next turn is whole
    lines = held.turn("next")
    assert [line["type"] for line in lines if line["type"] != "system"] == ["assistant", "result"]


def test_a_one_shot_query_ends_when_the_cli_is_idle_although_it_never_exits(fake) -> None:
    held = fake(state=True)
    options = _options()
    messages = list(query("hi", options=options, transport=_transport(held, options, [])))
    assert [m.result for m in messages if isinstance(m, ResultMessage)] == ["ok: hi"]
    assert held.returned()["reusable"] is True
    assert held.proc.poll() is None


@pytest.mark.parametrize(
    "prompt, reason",
    [("tool", "the run used a tool"), ("ask", "the CLI sent a control request"), ("/compact", "slash command")],
)
def test_a_run_that_may_have_changed_the_cli_retires_it(fake, prompt: str, reason: str) -> None:
    held = fake()
    options = _options(can_use_tool=lambda name, data, ctx: {"behavior": "allow", "updatedInput": data})
    with ClaudeSDKClient(options, transport=_transport(held, options, [])) as client:
        client.query(prompt)
        assert list(client.receive_response())[-1].result == f"ok: {prompt}"
    answer = held.returned()
    assert answer["reusable"] is False and reason in answer["reason"], answer


def test_a_lease_closed_mid_turn_is_retired(fake) -> None:
    held = fake()
    options = _options()
    client = ClaudeSDKClient(options, transport=_transport(held, options, []))
    client.connect()
    client.query("silent")
    client.close()
    answer = held.returned()
    assert answer["reusable"] is False, answer


def test_hooks_in_the_options_retire_the_cli_whatever_the_run(fake) -> None:
    from claude_sync import HookMatcher

    held = fake()
    options = _options(hooks={"Stop": [HookMatcher(hooks=[lambda data, tool_use_id, ctx: {}])]})
    with ClaudeSDKClient(options, transport=_transport(held, options, [])) as client:
        client.query("hi")
        list(client.receive_response())
    answer = held.returned()
    assert answer["reusable"] is False and "hooks" in answer["reason"]


def test_the_cli_exiting_mid_lease_is_a_process_error_with_the_pools_exit_status(fake) -> None:
    held = fake()
    options = _options()
    client = ClaudeSDKClient(options, transport=_transport(held, options, []))
    client.connect()
    client.query("crash")
    held.proc.wait(10)
    held.exited(3)
    with pytest.raises(ProcessError) as caught:
        list(client.receive_response())
    client.close()
    assert caught.value.exit_code == 3
    assert "fake-cli: crashing" in (caught.value.stderr or "")
    assert held.returned()["reusable"] is False


def test_a_pool_gone_mid_lease_is_named_in_the_error(fake) -> None:
    held = fake()
    options = _options()
    client = ClaudeSDKClient(options, transport=_transport(held, options, []))
    client.connect()
    held.pool_end.close()  # the pool died: its CLIs die with it
    client.query("crash")
    with pytest.raises(ProcessError) as caught:
        list(client.receive_response())
    client.close()
    assert "the shared pool sent no exit status" in (caught.value.stderr or "")


def test_the_prefix_comes_first_and_counts_for_the_verdict(fake) -> None:
    held = fake(prefix=b'{"type":"system","subtype":"note"}\n')
    options = _options()
    with ClaudeSDKClient(options, transport=_transport(held, options, [])) as client:
        client.query("hi")
        list(client.receive_response())
    assert held.returned()["reusable"] is True  # a line before the run's prompt is no evidence against it


def test_writes_after_end_input_and_after_stop_raise(fake) -> None:
    held = fake()
    transport = _transport(held, _options(), [])
    transport.connect()
    transport.end_input()
    with pytest.raises(CLIConnectionError):
        transport.write_bytes(b'{"type":"user"}\n', 1.0)
    assert transport.stop(1.0) == "retired"
    transport.close()
    assert held.returned()["reusable"] is False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_never_uses_nor_gives_back_the_parents_lease(fake) -> None:
    held = fake()
    options = _options()
    transport = _transport(held, options, [])
    with ClaudeSDKClient(options, transport=transport) as client:
        client.query("hi")
        list(client.receive_response())
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the lease is the parent's
            code = 0
            try:
                transport.write_bytes(b'{"type":"user"}\n', 1.0)
                code = 1
            except CLIConnectionError:
                pass
            if transport.is_ready() or transport.stop(0.1) != "parent's" or held.lease.given_back is False:
                code = 2
            os.write(write, bytes([code]))
            os._exit(0)
        os.close(write)
        status = os.read(read, 1)
        os.close(read)
        os.waitpid(pid, 0)
        assert status == b"\x00"
        client.query("again")  # the parent's lease is untouched
        assert list(client.receive_response())[-1].result == "ok: again"
    assert held.returned()["reusable"] is True
