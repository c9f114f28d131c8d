"""In-process MCP servers through the threaded shell, against a scripted CLI.

What the real CLI 2.1.197 does (docs/protocol/REAL_CLI_2.1.197.md §4 d, re-checked by ``tests/e2e/test_mcp_e2e.py``):
it sends each JSON-RPC message for an SDK server as an ``mcp_message`` control request; the
handshake (initialize → notifications/initialized → tools/list) can start *before* the CLI
answers our ``initialize`` and can run twice with ids restarting at 0; an interrupt cancels a
running ``tools/call`` with a ``notifications/cancelled`` message, not a
``control_cancel_request``. These tests script exactly that with ``claude_sync.testing``'s
``ScriptedCLI`` (in-process for most; as a real subprocess where the process matters: the
handshake while ``connect()`` waits, the ``--mcp-config`` file, close, a multi-megabyte line)
and check the wiring: the pool serves requests while ``connect()`` waits, tool handlers run on
``claude_sync-callback-*`` threads, concurrently, and cancellation reaches a running tool even
when every pool worker is busy.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import BOTH, SUBPROCESS
from mcp_requests import (
    PROTOCOL,
    cancelled,
    emit,
    handshake,
    mcp_answer,
    mcp_request,
    responses,
    rpc,
    run_turn,
    tools_call,
    turn,
    wait_file,
    wait_response,
)

from claude_sync import (
    ResultMessage,
    ToolContext,
    create_sdk_mcp_server,
    tool,
)
from claude_sync.testing import ScriptedCLI


@tool("add", "Add two numbers", {"a": float, "b": float})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


ADD_LISTING = {
    "name": "add",
    "description": "Add two numbers",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
}

INITIALIZE_RESULT = {
    "protocolVersion": PROTOCOL,
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "calc", "version": "1.0.0"},
}

NOTIFICATION_ACK = {"jsonrpc": "2.0", "result": {}}


# ----------------------------------------------------------------------------- handshake


@SUBPROCESS
def test_handshake_before_the_initialize_answer_then_again(scripted: Any) -> None:
    """The scripted CLI holds our ``initialize`` until our pool has served a whole MCP
    handshake, then runs the handshake a second time (ids restarting at 0), as the real CLI
    does with ``--mcp-config``."""
    script = ScriptedCLI(auto_initialize=False, initialize_response={"commands": [], "fake": True})
    script.expect_control("initialize", hold=True)
    for step in handshake("first"):
        step(script)
    script.answer_held("initialize")
    for step in handshake("second"):
        step(script)
    cli = scripted(turn(cli=script))
    calc = create_sdk_mcp_server("calc", tools=[add])
    with cli.client(mcp_servers={"calc": calc}) as client:
        assert client.get_server_info() == {"commands": [], "pid": client.session.pid, "fake": True}
        run_turn(client)
    cli.cli.verify()

    assert "<timeout>" not in responses(cli)
    for prefix in ("first", "second"):
        assert mcp_answer(cli, f"{prefix}-init") == {"jsonrpc": "2.0", "id": 0, "result": INITIALIZE_RESULT}
        assert mcp_answer(cli, f"{prefix}-initialized") == NOTIFICATION_ACK
        assert mcp_answer(cli, f"{prefix}-list") == {"jsonrpc": "2.0", "id": 1, "result": {"tools": [ADD_LISTING]}}
    frames = cli.stdin_frames()
    initialize = frames[0]
    assert initialize["type"] == "control_request"
    assert initialize["request"]["subtype"] == "initialize"
    assert initialize["request"]["sdkMcpServers"] == ["calc"]
    # The first handshake was answered while our initialize was still unanswered: its three
    # answers are the next frames we wrote, before any user message.
    first_answers = [f["response"]["request_id"] for f in frames[1:4]]
    assert first_answers == ["first-init", "first-initialized", "first-list"]


# ----------------------------------------------------------------------------- tool calls


def test_tool_call_runs_on_a_pool_thread_with_its_context(scripted: Any) -> None:
    seen: List[Any] = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    def add_with_context(args: Dict[str, Any], context: ToolContext) -> Dict[str, Any]:
        seen.append((threading.current_thread().name, context))
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    cli = scripted(turn(*handshake("hs"), tools_call("call", "calc", "add", {"a": 2, "b": 3}, 2, "toolu_01"), wait_response("call")))
    calc = create_sdk_mcp_server("calc", tools=[add_with_context])
    with cli.client(mcp_servers={"calc": calc}) as client:
        run_turn(client)

    assert mcp_answer(cli, "call") == {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}]}}
    [(thread_name, context)] = seen
    assert thread_name.startswith("claude_sync-callback")
    assert context.tool_use_id == "toolu_01"
    assert context.meta == {"claudecode/toolUseId": "toolu_01", "progressToken": 2}
    assert (context.server_name, context.request_id, context.tool_name) == ("calc", 2, "add")
    assert context.signal is not None and not context.signal.is_set()


@BOTH
def test_two_tool_calls_run_concurrently(scripted: Any) -> None:
    barrier = threading.Barrier(2, timeout=10)
    threads: List[str] = []

    @tool("meet", "Waits for the other call", {"n": int})
    def meet(args: Dict[str, Any]) -> str:
        threads.append(threading.current_thread().name)
        barrier.wait()  # raises BrokenBarrierError (an isError result) unless both run at once
        return f"met {args['n']}"

    cli = scripted(
        turn(
            tools_call("one", "calc", "meet", {"n": 1}, 2, "toolu_1"),
            tools_call("two", "calc", "meet", {"n": 2}, 3, "toolu_2"),
            wait_response("one"),
            wait_response("two"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[meet])
    with cli.client(mcp_servers={"calc": calc}, callback_workers=2) as client:
        run_turn(client)

    assert mcp_answer(cli, "one") == {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "met 1"}]}}
    assert mcp_answer(cli, "two") == {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "met 2"}]}}
    assert len(set(threads)) == 2


def test_cancelled_notification_reaches_a_running_tool_with_every_worker_busy(scripted: Any, tmp_path: Path) -> None:
    """``callback_workers=1``: the only worker runs the tool, so the cancel notification's own
    job waits in the queue; routing on the reader thread still sets the tool's signal."""
    gate = tmp_path / "tool-started"
    outcome: Dict[str, Any] = {}

    @tool("long", "Runs until cancelled", {})
    def long_running(args: Dict[str, Any], context: ToolContext) -> str:
        gate.touch()
        started = time.monotonic()
        outcome["cancelled"] = context.signal is not None and context.signal.wait(10)
        outcome["waited"] = time.monotonic() - started
        return "stopped early" if outcome["cancelled"] else "ran to the end"

    cli = scripted(
        turn(
            tools_call("call", "calc", "long", {}, 7, "toolu_long"),
            wait_file(gate),
            cancelled("cancel", "calc", 7),
            wait_response("call"),
            wait_response("cancel"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[long_running])
    with cli.client(mcp_servers={"calc": calc}, callback_workers=1) as client:
        run_turn(client)

    assert outcome["cancelled"] is True and outcome["waited"] < 5
    assert mcp_answer(cli, "call")["result"] == {"content": [{"type": "text", "text": "stopped early"}]}
    assert mcp_answer(cli, "cancel") == NOTIFICATION_ACK


def test_a_call_cancelled_while_queued_never_runs_its_handler(scripted: Any, tmp_path: Path) -> None:
    """Call 2 waits for the only worker; its cancel is routed (on the reader) before call 1's,
    so when the worker frees up call 2 is already cancelled: an isError result, no handler run."""
    gate = tmp_path / "first-started"
    ran: List[int] = []

    @tool("job", "Runs until cancelled", {"n": int})
    def job(args: Dict[str, Any], context: ToolContext) -> str:
        ran.append(args["n"])
        gate.touch()
        assert context.signal is not None and context.signal.wait(10)
        return f"job {args['n']} cancelled"

    cli = scripted(
        turn(
            tools_call("first", "calc", "job", {"n": 1}, 2, "toolu_1"),
            wait_file(gate),
            tools_call("second", "calc", "job", {"n": 2}, 3, "toolu_2"),
            cancelled("cancel-second", "calc", 3),
            cancelled("cancel-first", "calc", 2),
            wait_response("first"),
            wait_response("second"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[job])
    with cli.client(mcp_servers={"calc": calc}, callback_workers=1) as client:
        run_turn(client)

    assert ran == [1]
    assert mcp_answer(cli, "first")["result"] == {"content": [{"type": "text", "text": "job 1 cancelled"}]}
    assert mcp_answer(cli, "second")["result"] == {
        "content": [{"type": "text", "text": "Tool 'job' was cancelled before it started."}],
        "isError": True,
    }


def test_a_call_withdrawn_by_control_cancel_request_leaves_nothing_behind(scripted: Any, tmp_path: Path) -> None:
    """The CLI 2.1.197 cancels MCP calls with ``notifications/cancelled``, but a
    ``control_cancel_request`` for a queued ``mcp_message`` must work too: the session never
    serves it (no handler run, no answer) and the bridge keeps no entry for it (white-box)."""
    gate = tmp_path / "first-started"
    release = threading.Event()
    ran: List[int] = []

    @tool("job", "Blocks until released", {"n": int})
    def job(args: Dict[str, Any]) -> str:
        ran.append(args["n"])
        gate.touch()
        release.wait(10)
        return f"job {args['n']}"

    cli = scripted(
        turn(
            tools_call("first", "calc", "job", {"n": 1}, 2, "toolu_1"),
            wait_file(gate),
            tools_call("second", "calc", "job", {"n": 2}, 3, "toolu_2"),
            emit({"type": "control_cancel_request", "request_id": "second"}),
            wait_file(tmp_path / "released"),
            wait_response("first"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[job])
    with cli.client(mcp_servers={"calc": calc}, callback_workers=1) as client:
        bridge = inspect.unwrap(client.session.server.handlers["mcp_message"].serve).__self__  # type: ignore[union-attr,attr-defined]
        client.query("go")
        deadline = time.monotonic() + 10
        # "second" was routed (its call is registered) and then withdrawn (no longer in flight)
        while ("calc", 3) not in bridge._calls or client.session.server.in_flight("second"):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        release.set()
        (tmp_path / "released").touch()
        messages = list(client.receive_response(timeout=30))
    assert isinstance(messages[-1], ResultMessage)
    assert ran == [1]
    assert mcp_answer(cli, "first")["result"] == {"content": [{"type": "text", "text": "job 1"}]}
    answered = [f["response"]["request_id"] for f in cli.stdin_frames() if f["type"] == "control_response"]
    assert answered == ["first"]
    assert len(bridge._actions) == 0 and len(bridge._calls) == 0


@BOTH
def test_close_sets_the_signal_of_a_running_tool(scripted: Any, tmp_path: Path) -> None:
    gate = tmp_path / "tool-started"
    outcome: Dict[str, Any] = {}

    @tool("long", "Runs until cancelled", {})
    def long_running(args: Dict[str, Any], context: ToolContext) -> str:
        gate.touch()
        outcome["cancelled"] = context.signal is not None and context.signal.wait(10)
        return "stopped"

    cli = scripted(turn(tools_call("call", "calc", "long", {}, 2, "toolu_long"), wait_response("call")))
    calc = create_sdk_mcp_server("calc", tools=[long_running])
    client = cli.client(mcp_servers={"calc": calc})
    try:
        client.connect()
        client.query("go")
        deadline = time.monotonic() + 10
        while not gate.exists():
            assert time.monotonic() < deadline, "the tool never started"
            time.sleep(0.01)
    finally:
        started = time.monotonic()
        client.close()
    assert time.monotonic() - started < 5
    assert outcome == {"cancelled": True}


def test_raising_tool_is_an_error_result_and_the_session_goes_on(scripted: Any, caplog: Any) -> None:
    @tool("divide", "a / b", {"a": float, "b": float})
    def divide(args: Dict[str, Any]) -> str:
        return str(args["a"] / args["b"])

    cli = scripted(
        turn(
            tools_call("bad", "calc", "divide", {"a": 1, "b": 0}, 2, "toolu_1"),
            wait_response("bad"),
            tools_call("good", "calc", "divide", {"a": 6, "b": 3}, 3, "toolu_2"),
            wait_response("good"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[divide])
    with cli.client(mcp_servers={"calc": calc}) as client:
        run_turn(client)
    assert mcp_answer(cli, "bad")["result"] == {
        "content": [{"type": "text", "text": "Tool 'divide' raised ZeroDivisionError: division by zero"}],
        "isError": True,
    }
    assert mcp_answer(cli, "good")["result"] == {"content": [{"type": "text", "text": "2.0"}]}
    failures = [r for r in caplog.records if r.name == "claude_sync.callbacks" and "'divide' raised" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None  # logged once, with its traceback
    assert failures[0].exc_info[0] is ZeroDivisionError


@BOTH
def test_multi_megabyte_tool_result_goes_out_in_one_line(scripted: Any) -> None:
    size = 5 * 1024 * 1024

    @tool("dump", "A big text", {})
    def dump(args: Dict[str, Any]) -> str:
        return "x" * size

    cli = scripted(turn(tools_call("big", "calc", "dump", {}, 2, "toolu_1"), wait_response("big")))
    calc = create_sdk_mcp_server("calc", tools=[dump])
    with cli.client(mcp_servers={"calc": calc}) as client:
        run_turn(client)
    [block] = mcp_answer(cli, "big")["result"]["content"]
    assert block == {"type": "text", "text": "x" * size}


# ----------------------------------------------------------------------------- routing


def test_unknown_server_gets_a_jsonrpc_error_and_the_session_goes_on(scripted: Any) -> None:
    cli = scripted(
        turn(
            mcp_request("unknown-list", "nope", rpc("tools/list", 3)),
            wait_response("unknown-list"),
            mcp_request("unknown-note", "nope", rpc("notifications/initialized")),
            wait_response("unknown-note"),
            tools_call("call", "calc", "add", {"a": 1, "b": 1}, 4, "toolu_1"),
            wait_response("call"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[add])
    with cli.client(mcp_servers={"calc": calc}) as client:
        run_turn(client)
        assert not client.session.closed and client.session.terminal_error is None
    assert mcp_answer(cli, "unknown-list") == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32601, "message": "No SDK MCP server named 'nope' in this session"},
    }
    assert mcp_answer(cli, "unknown-note") == NOTIFICATION_ACK
    assert mcp_answer(cli, "call")["result"] == {"content": [{"type": "text", "text": "2"}]}


def test_mcp_message_without_sdk_servers_is_a_control_error(scripted: Any) -> None:
    cli = scripted(turn(mcp_request("stray", "calc", rpc("tools/list", 1), error=True), wait_response("stray")))
    with cli.client() as client:
        run_turn(client)
    response = responses(cli)["stray"]
    assert response is not None and response["subtype"] == "error"
    assert "mcp_message" in response["error"]


@SUBPROCESS
def test_several_sdk_servers_and_external_servers_coexist(scripted: Any) -> None:
    """SDK servers are addressed by their ``mcp_servers`` key (not their own name); external
    entries go to ``--mcp-config``; ``initialize.sdkMcpServers`` lists the SDK keys."""

    @tool("mul", "Multiply", {"a": float, "b": float})
    def mul(args: Dict[str, Any]) -> str:
        return str(args["a"] * args["b"])

    calc = create_sdk_mcp_server("calc", tools=[add])
    other = create_sdk_mcp_server("named-differently", version="2.0.0", tools=[mul])
    external = {"type": "stdio", "command": "/bin/true", "args": ["--flag"]}
    remote = {"type": "http", "url": "http://127.0.0.1:9/mcp"}
    cli = scripted(
        turn(
            *handshake("calc", "calc"),
            *handshake("math", "math"),
            tools_call("add", "calc", "add", {"a": 2, "b": 3}, 2, "toolu_1"),
            tools_call("mul", "math", "mul", {"a": 4, "b": 5}, 2, "toolu_2"),
            wait_response("add"),
            wait_response("mul"),
            tools_call("cross", "math", "add", {"a": 1, "b": 1}, 3, "toolu_3"),
            wait_response("cross"),
        )
    )
    servers = {"calc": calc, "ext": external, "math": other, "remote": remote}
    with cli.client(mcp_servers=servers) as client:
        run_turn(client)

    run = cli.cli.last_run  # the subprocess read its file arguments while they existed
    path = run.argv[run.argv.index("--mcp-config") + 1]
    file_arg = {"path": path, "content": run.argv_files[path]}
    assert json.loads(file_arg["content"]) == {"mcpServers": {"ext": external, "remote": remote}}
    assert not Path(file_arg["path"]).exists()  # the temp file is gone after close
    assert cli.stdin_frames()[0]["request"]["sdkMcpServers"] == ["calc", "math"]
    assert mcp_answer(cli, "math-init")["result"]["serverInfo"] == {"name": "named-differently", "version": "2.0.0"}
    assert mcp_answer(cli, "math-list")["result"]["tools"][0]["name"] == "mul"
    assert mcp_answer(cli, "add")["result"] == {"content": [{"type": "text", "text": "5"}]}
    assert mcp_answer(cli, "mul")["result"] == {"content": [{"type": "text", "text": "20"}]}
    assert mcp_answer(cli, "cross") == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32602, "message": "Unknown tool: add"},
    }


@pytest.mark.parametrize("bad", ["not an object", None, {"jsonrpc": "2.0", "id": 9}])
def test_malformed_messages_get_jsonrpc_errors_not_a_crash(scripted: Any, bad: Any) -> None:
    cli = scripted(
        turn(
            mcp_request("bad", "calc", bad),
            wait_response("bad"),
            tools_call("call", "calc", "add", {"a": 1, "b": 2}, 2, "toolu_1"),
            wait_response("call"),
        )
    )
    calc = create_sdk_mcp_server("calc", tools=[add])
    with cli.client(mcp_servers={"calc": calc}) as client:
        run_turn(client)
    answer = mcp_answer(cli, "bad")
    assert answer["error"]["code"] == -32600
    assert mcp_answer(cli, "call")["result"] == {"content": [{"type": "text", "text": "3"}]}
