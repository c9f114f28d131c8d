"""``run``/``RunResult``/``AgentPool`` without the real CLI: results, pickling, bad input,
the futures' cancel semantics, and the pool against the scripted fake CLI."""

from __future__ import annotations

import copy
import pickle
import threading
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    InvalidStateError,
    ProcessPoolExecutor,
    as_completed,
    wait,
)
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit, wait_until

from claude_sync import (
    AgentPool,
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    RunResult,
    create_sdk_mcp_server,
    run,
)
from claude_sync._agents.futures import RunFuture
from claude_sync._agents.run import check_picklable_options
from claude_sync._wire.parse import parse_message
from claude_sync.testing import ScriptedCLI as KitCLI

WIRE_MESSAGES: List[Dict[str, Any]] = [
    {"type": "system", "subtype": "init", "session_id": "s1", "cwd": "/w", "model": "m", "tools": ["Bash"],
     "mcp_servers": [{"name": "x", "status": "connected"}], "permissionMode": "default"},
    {"type": "assistant", "session_id": "s1", "parent_tool_use_id": None, "message": {
        "id": "msg1", "model": "m", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "partial "},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            {"type": "redacted_thinking", "data": "xx"},
            {"type": "brand_new_block", "x": 1},
        ]}},
    {"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a b", "is_error": False}]}},
    {"type": "stream_event", "uuid": "u", "session_id": "s1", "event": {"type": "message_stop"}},
    {"type": "system", "subtype": "task_started", "task_id": "k", "session_id": "s1"},
    {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "uuid": "u2", "session_id": "s1"},
    {"type": "conversation_reset", "new_conversation_id": "c2", "uuid": "c2", "trigger": "clear",
     "user_message_uuid": "u3", "timestamp": "2026-11-22T19:23:51.789Z", "session_id": "s0"},  # as 2.1.330 sends it
    {"type": "assistant", "session_id": "s1", "message": {
        "id": "msg2", "model": "m", "role": "assistant", "content": [{"type": "text", "text": "final words"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 12, "duration_api_ms": 10,
     "num_turns": 2, "session_id": "s1", "total_cost_usd": 0.5, "usage": {"input_tokens": 3},
     "result": "", "structured_output": {"answer": 4}},
]  # fmt: skip


def wire_messages() -> List[Any]:
    return [parse_message(dict(m)) for m in WIRE_MESSAGES]


# ----------------------------------------------------------------------------- RunResult


def test_every_message_kind_pickles() -> None:
    for message in wire_messages():
        copy = pickle.loads(pickle.dumps(message))
        assert copy == message and type(copy) is type(message)
        assert copy.raw == message.raw


def test_run_result_fields_and_pickling() -> None:
    result = RunResult.from_messages(wire_messages())
    assert result.text == "final words"  # the result text is empty: the last assistant text
    assert result.structured_output == {"answer": 4}
    assert (result.session_id, result.num_turns, result.duration_ms, result.is_error) == ("s1", 2, 12, False)
    assert result.total_cost_usd == 0.5 and result.usage == {"input_tokens": 3, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert isinstance(result.result, ResultMessage) and result.messages[-1] is result.result
    copy = pickle.loads(pickle.dumps(result))
    assert copy == result and copy.messages == result.messages
    assert "final words" in repr(result)


def test_run_result_cost_is_this_runs_share_of_a_running_total() -> None:
    assert RunResult.from_messages(wire_messages(), cost_before=0.2).total_cost_usd == pytest.approx(0.3)


def test_run_result_needs_a_result_message() -> None:
    with pytest.raises(ValueError, match="without a ResultMessage"):
        RunResult.from_messages(wire_messages()[:-1])


# ----------------------------------------------------------------------------- scale-out input


def test_plain_options_pickle() -> None:
    options = ClaudeAgentOptions(model="m", env={"A": "b"}, allowed_tools=["Read"], max_turns=3)
    check_picklable_options(options)
    assert pickle.loads(pickle.dumps(options)) == options


@pytest.mark.parametrize(
    "field,value",
    [
        ("can_use_tool", lambda *a: PermissionResultAllow()),
        ("hooks", {"PreToolUse": [HookMatcher(hooks=[lambda *a: {}])]}),
        ("stderr", print),
    ],
)
def test_options_with_callables_are_refused_by_name(field: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"ClaudeAgentOptions\.{field} .*worker"):
        check_picklable_options(ClaudeAgentOptions(**{field: value}))


def test_in_process_mcp_servers_are_refused_by_name() -> None:
    options = ClaudeAgentOptions(mcp_servers={"calc": create_sdk_mcp_server("calc")})
    with pytest.raises(TypeError, match=r"mcp_servers\['calc'\]"):
        check_picklable_options(options)


def test_pickling_options_with_callables_names_the_field_and_copying_still_works() -> None:
    def allow(*args: Any) -> Any:
        return PermissionResultAllow()

    options = ClaudeAgentOptions(can_use_tool=allow, env={"A": "b"})
    with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.can_use_tool .*Build the options inside the worker"):
        pickle.dumps(options)
    shallow, deep = copy.copy(options), copy.deepcopy(options)
    assert shallow == options and deep == options
    assert shallow.can_use_tool is allow and deep.can_use_tool is allow
    assert deep.env is not options.env and shallow.env is options.env


def test_a_process_executor_fails_the_future_with_the_field_name() -> None:
    options = ClaudeAgentOptions(stderr=lambda line: None)
    with ProcessPoolExecutor(max_workers=1) as executor:
        future = executor.submit(run, "hello", options=options)
        with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.stderr"):
            future.result(60)


def test_run_goes_through_a_process_executor(tmp_path: Path) -> None:
    cli = KitCLI(directory=tmp_path).expect_user().text("from a process").result()
    with ProcessPoolExecutor(max_workers=1) as executor:
        result = executor.submit(run, "hello", options=cli.options(), timeout=30).result(60)
    assert isinstance(result, RunResult) and result.text == "from a process"


# ----------------------------------------------------------------------------- the pool


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"max_workers": 0}, "max_workers must be at least 1"),
        ({"warm": -1}, "warm must be 0 or more"),
        ({"max_workers": 2, "warm": 3}, "cannot exceed"),
        ({"max_runs_per_cli": 0}, "max_runs_per_cli"),
    ],
)
def test_bad_pool_arguments(kwargs: Dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        AgentPool(**kwargs)


def test_a_pending_future_cancelled_is_seen_by_waiters_at_once() -> None:
    future = RunFuture()
    assert future.cancel() is True
    done, _ = wait([future], timeout=0)
    assert done == {future}
    assert list(as_completed([future], timeout=0)) == [future]
    assert future.start() is False  # a worker skips it


def test_cancelling_a_running_future_stops_it_and_wakes_waiters() -> None:
    future = RunFuture()
    stopped = threading.Event()

    class Slot:
        def close(self) -> None:
            stopped.set()

    assert future.start() is True
    assert future.attach(Slot())  # type: ignore[arg-type]
    woke: List[Any] = []
    waiter = threading.Thread(target=lambda: woke.append(wait([future], timeout=10, return_when=FIRST_COMPLETED)))
    waiter.start()
    assert future.cancel() is True
    waiter.join(10)
    assert stopped.is_set() and future.cancelled()
    assert woke and woke[0].done == {future}
    with pytest.raises(CancelledError):
        future.result(0)
    with pytest.raises(InvalidStateError):  # the worker's late _settle swallows this
        future.set_result(None)  # type: ignore[arg-type]
    assert future.cancelled()


def test_a_finished_future_does_not_cancel() -> None:
    future = RunFuture()
    future.start()
    future.set_result(None)  # type: ignore[arg-type]
    assert future.cancel() is False


def test_pool_runs_on_the_scripted_cli_and_retires_a_cli_whose_reset_looks_wrong(tmp_path: Path) -> None:
    # The scripted CLI answers "/clear" like any prompt (a one-turn result, the same session
    # id): not a proven reset, so each run gets a fresh CLI.
    cli = Kit(KitCLI().echo_turns(), "subprocess", tmp_path)
    with AgentPool(cli.options(), max_workers=2) as pool:
        results = list(pool.map(["a", "b", "c"], timeout=60))
        # each run's reset (after its result) fails its check; had shutdown begun first, the
        # last one would be closed unreset, uncounted
        wait_until(lambda: pool.stats()["retired"] == 3, 30, "every CLI retired after its reset")
    stats = pool.stats()
    assert [r.text for r in results] == ["echo: a", "echo: b", "echo: c"]
    assert stats["reused"] == 0 and stats["started"] == 3 and stats["retired"] == 3


def test_submit_after_shutdown_is_a_usage_error() -> None:
    from claude_sync import UsageError

    pool = AgentPool(max_workers=1)
    pool.shutdown()
    with pytest.raises(UsageError):
        pool.submit("x")
    with AgentPool(max_workers=1) as other, pytest.raises(TypeError, match="str prompt"):
        other.submit(["x"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "field,value",
    [("resume", "abc"), ("session_id", "11111111-1111-1111-1111-111111111111"), ("continue_conversation", True),
     ("max_budget_usd", 1.0), ("enable_file_checkpointing", True)],
)  # fmt: skip
def test_session_bound_options_are_never_reset(field: str, value: Any) -> None:
    from claude_sync._agents.reuse import CliSlot, retire_reason

    messages = wire_messages()[:1] + wire_messages()[-1:]  # init + result, no tools
    plain = CliSlot(client=None, options=ClaudeAgentOptions())
    assert retire_reason(plain, messages, max_runs=10) is None
    bound = CliSlot(client=None, options=ClaudeAgentOptions(**{field: value}))
    reason = retire_reason(bound, messages, max_runs=10)
    assert reason is not None and field in reason


def test_no_slash_commands_retires_instead_of_a_reset() -> None:
    """With ``slash_commands=False`` the pool's ``/clear`` would reach the model as text (a
    paid request that resets nothing): the CLI is retired instead."""
    from claude_sync._agents.reuse import CliSlot, retire_reason

    slot = CliSlot(client=None, options=ClaudeAgentOptions(slash_commands=False))
    reason = retire_reason(slot, wire_messages()[:1] + wire_messages()[-1:], max_runs=10)
    assert reason is not None and "slash_commands=False" in reason


def test_session_stores_do_not_travel() -> None:
    from claude_sync import InMemorySessionStore

    with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.session_store"):
        pickle.dumps(ClaudeAgentOptions(session_store=InMemorySessionStore()))


class ScriptedClient:
    """Stands in for a ClaudeSDKClient in the reset tests: answers ``/clear`` with ``answer``."""

    def __init__(self, answer: List[Dict[str, Any]]) -> None:
        self.answer = [parse_message(dict(m)) for m in answer]
        self.sent: List[str] = []

    def query(self, prompt: str, timeout: Any = None) -> None:
        self.sent.append(prompt)

    def receive_response(self, timeout: Any = None) -> Any:
        return iter(self.answer)


def clear_answer(session_id: str = "s2", mode: str = "default", cost: float = 0.5, turns: int = 0) -> List[Dict[str, Any]]:
    init = dict(WIRE_MESSAGES[0], session_id=session_id, permissionMode=mode)
    result = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 0,
              "num_turns": turns, "session_id": session_id, "total_cost_usd": cost, "result": ""}  # fmt: skip
    return [init, result]


def reset_slot(answer: List[Dict[str, Any]]) -> Any:
    from claude_sync._agents.reuse import CliSlot, retire_reason

    slot = CliSlot(client=ScriptedClient(answer), options=ClaudeAgentOptions())
    assert retire_reason(slot, wire_messages()[:1] + wire_messages()[-1:], max_runs=10) is None
    slot.session_ids.append("s1")
    return slot


def test_a_proven_reset_sets_the_cost_baseline() -> None:
    from claude_sync._agents.reuse import reset_conversation

    slot = reset_slot(clear_answer(cost=0.5))
    assert reset_conversation(slot, timeout=5) is None
    assert slot.client.sent == ["/clear"] and slot.cost_before == 0.5


@pytest.mark.parametrize(
    "answer,why",
    [
        (clear_answer(mode="acceptEdits"), "permission_mode"),  # set_permission_mode survives /clear
        (clear_answer(session_id="s1"), "kept the session id"),
        (clear_answer(turns=1), "zero-turn"),
        (clear_answer()[1:], "no system/init"),
    ],
)
def test_a_reset_that_is_not_proven_retires_the_cli(answer: List[Dict[str, Any]], why: str) -> None:
    from claude_sync._agents.reuse import reset_conversation

    reason = reset_conversation(reset_slot(answer), timeout=5)
    assert reason is not None and why in reason


def test_state_drift_between_runs_retires_the_cli() -> None:
    from claude_sync._agents.reuse import CliSlot, retire_reason

    slot = CliSlot(client=None, options=ClaudeAgentOptions())
    assert retire_reason(slot, wire_messages()[:1] + wire_messages()[-1:], max_runs=10) is None
    drifted = [parse_message(dict(WIRE_MESSAGES[0], model="other")), wire_messages()[-1]]
    reason = retire_reason(slot, drifted, max_runs=10)
    assert reason is not None and "model" in reason


def test_tool_use_retires_but_read_only_tools_do_not() -> None:
    from claude_sync._agents.reuse import CliSlot, retire_reason

    def run_with(tool: str, **options: Any) -> Any:
        assistant = {"type": "assistant", "session_id": "s1", "message": {"id": "m", "model": "m", "role": "assistant",
                     "content": [{"type": "tool_use", "id": "t", "name": tool, "input": {}}]}}  # fmt: skip
        slot = CliSlot(client=None, options=ClaudeAgentOptions(**options))
        return retire_reason(slot, [wire_messages()[0], parse_message(assistant), wire_messages()[-1]], max_runs=10)

    assert run_with("Read") is None and run_with("Grep") is None
    assert "Bash" in run_with("Bash")
    assert "mcp__x__y" in run_with("mcp__x__y")
    assert "permission callback" in run_with("Read", can_use_tool=lambda *a: PermissionResultAllow())
