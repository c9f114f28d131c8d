"""In-process MCP servers end to end: the real CLI 2.1.197 calls our tools.

The fake API asks for ``mcp__<server>__<tool>``; the CLI sends the ``tools/call`` to us as an
``mcp_message``; the tool runs on our callback pool; the result travels back through the CLI
into the next API request and into the ``UserMessage`` we receive.

Wire facts these tests pin (CLI 2.1.197):

* With ``initialize.sdkMcpServers`` (the library's default) the CLI connects an SDK server
  lazily: one handshake (initialize → notifications/initialized → tools/list) after the first
  user message, and ``mcp_status`` lists the server only from then on.
* With ``--mcp-config`` entries of ``{"type": "sdk"}`` the handshake starts *before* the CLI
  answers our ``initialize`` (it does not wait for it); it runs a second time, ids restarting
  at 0, when the first user message arrives before the first handshake has finished.
* ``tools/call`` carries ``_meta: {"claudecode/toolUseId": <tool_use id>, "progressToken": N}``.
* An interrupt during a running ``tools/call`` becomes ``notifications/cancelled`` with the
  call's JSON-RPC id (never a ``control_cancel_request``).
"""

from __future__ import annotations

import base64
import json
import struct
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
from helpers import is_init, wait_until

import claude_sync._options.command as command
from claude_sync import (
    ClaudeSDKClient,
    ResultMessage,
    SdkMcpServer,
    ToolContext,
    ToolResultBlock,
    UserMessage,
    tool,
)
from claude_sync._mcp.server import McpAction
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import STDIO_SERVER, cli_is_at_least

pytestmark = pytest.mark.e2e

FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}


class RecordingServer(SdkMcpServer):
    """An ``SdkMcpServer`` that records every JSON-RPC message the CLI sends it, with
    whether ``connect()`` had returned by then."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self._seen: List[Tuple[Dict[str, Any], bool]] = []

    def handle(self, message: Any, server_name: Optional[str] = None) -> McpAction:
        with self._lock:
            self._seen.append((message, self.connected.is_set()))
        return super().handle(message, server_name)

    def seen(self) -> List[Tuple[Dict[str, Any], bool]]:
        with self._lock:
            return list(self._seen)

    def methods(self) -> List[str]:
        return [message.get("method", "") for message, _ in self.seen()]


@tool("add", "Add two numbers", {"a": float, "b": float})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


def newer_cli(cli_path: str) -> bool:
    """CLI 2.1.330 differs here from the pinned 2.1.197 (the library handles both): it starts
    an SDK server's handshake while answering our ``initialize`` (2.1.197: after the first user
    message), defers MCP tools behind ToolSearch (the tool is not in the first request's tool
    list; the model may still call it), and ``mcp_status`` / ``system/init`` entries carry
    ``serverInfo``, ``transport`` and ``source``."""
    return cli_is_at_least(cli_path, "2.1.330")


def status_entry(cli_path: str, name: str, server_name: str, tools: List[str]) -> Dict[str, Any]:
    """One ``mcp_status`` entry of a connected SDK server, as this CLI version writes it."""
    entry: Dict[str, Any] = {"name": name, "status": "connected"}
    if newer_cli(cli_path):
        entry["serverInfo"] = {"name": server_name, "version": "1.0.0"}
        entry["transport"] = "sdk"
    entry["scope"] = "dynamic"
    if newer_cli(cli_path):
        entry["source"] = "sdk"
    entry["tools"] = [{"name": tool_name, "annotations": {}} for tool_name in tools]
    return entry


def run_turn(client: ClaudeSDKClient, prompt: str) -> List[Any]:
    client.query(prompt)
    messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage), messages
    return messages


def tool_results(messages: List[Any]) -> List[Tuple[UserMessage, ToolResultBlock]]:
    return [
        (message, block)
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


# ----------------------------------------------------------------------------- round trip


def test_the_cli_calls_our_tool_and_the_result_reaches_the_api(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    contexts: List[Tuple[str, ToolContext]] = []

    @tool("add", "Add two numbers", {"a": float, "b": float})
    def add_with_context(args: Dict[str, Any], context: ToolContext) -> str:
        contexts.append((threading.current_thread().name, context))
        return str(args["a"] + args["b"])

    calc = RecordingServer("calc", tools=[add_with_context])
    fake_api.add(tool_use("mcp__calc__add", {"a": 2, "b": 3}, id="toolu_e2e_add"), text("2 + 3 = 5"))
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    with ClaudeSDKClient(options) as client:
        calc.connected.set()
        before = client.get_mcp_status()
        messages = run_turn(client, "What is 2 + 3? Use the calculator.")
        status = client.get_mcp_status()

    assert calc.methods() == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    if newer_cli(real_cli_path):
        # Eager: the handshake starts while the CLI answers our initialize, so connect() waits
        # for nothing; the server is listed once its handshake is through.
        assert calc.seen()[0][1] is False
        assert before["mcpServers"] in ([], [status_entry(real_cli_path, "calc", "calc", ["add"])])
    else:
        # Lazy connection: nothing before the first turn, one handshake after the user message.
        assert before == {"mcpServers": []}
        assert all(after_connect for _, after_connect in calc.seen())
    initialize = calc.seen()[0][0]
    assert initialize["id"] == 0 and initialize["params"]["protocolVersion"] == "2025-11-25"
    assert initialize["params"]["clientInfo"]["name"] == "claude-code"

    [(thread_name, context)] = contexts
    assert thread_name.startswith("claude_sync-callback")
    assert context.tool_use_id == "toolu_e2e_add"
    assert context.meta["claudecode/toolUseId"] == "toolu_e2e_add"
    assert isinstance(context.meta.get("progressToken"), int)
    assert (context.server_name, context.tool_name) == ("calc", "add")

    init = next(m.init for m in messages if is_init(m))
    assert [(e["name"], e["status"]) for e in init.mcp_servers or []] == [("calc", "connected")]
    assert "mcp__calc__add" in (init.tools or [])
    [(user, block)] = tool_results(messages)
    assert block.tool_use_id == "toolu_e2e_add" and not block.is_error
    assert block.content == [{"type": "text", "text": "5"}]
    assert user.tool_use_result == [{"type": "text", "text": "5"}]
    assert messages[-1].subtype == "success" and messages[-1].result == "2 + 3 = 5"

    first, second = fake_api.turn_requests()
    listed = [t for t in first.tools if t.get("name") == "mcp__calc__add"]
    if newer_cli(real_cli_path):
        assert listed == [] and "ToolSearch" in first.tool_names  # deferred
    else:
        assert listed[0]["description"] == "Add two numbers"
        assert listed[0]["input_schema"] == ADD_SCHEMA
    [result] = second.tool_results
    assert result["tool_use_id"] == "toolu_e2e_add"
    assert result["content"] == [{"type": "text", "text": "5"}]
    assert not result.get("is_error")

    assert status == {"mcpServers": [status_entry(real_cli_path, "calc", "calc", ["add"])]}
    fake_api.assert_no_surprises()


def test_with_mcp_config_the_handshake_runs_while_connect_waits(
    e2e_options: Any, fake_api: FakeAnthropicAPI, monkeypatch: pytest.MonkeyPatch, real_cli_path: str
) -> None:
    """The other way to announce SDK servers (``SDK_MCP_VIA_INITIALIZE = False``): the CLI
    sends the MCP ``initialize`` before it answers ours, so our pool serves it while
    ``connect()`` waits; the tool call works the same."""
    monkeypatch.setattr(command, "SDK_MCP_VIA_INITIALIZE", False)
    calc = RecordingServer("calc", tools=[add])
    fake_api.add(tool_use("mcp__calc__add", {"a": 2, "b": 3}, id="toolu_cfg"), text("five"))
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    with ClaudeSDKClient(options) as client:
        calc.connected.set()
        assert "sdkMcpServers" not in command.build_spawn_plan(options, "claude").initialize_fields
        # Give the first handshake time to finish: then there is exactly one and the server is
        # listed before any turn (a user message during the handshake makes the CLI redo it).
        wait_until(lambda: "tools/list" in calc.methods(), timeout=30)
        wait_until(lambda: client.get_mcp_status()["mcpServers"] != [], timeout=10)
        listed = client.get_mcp_status()["mcpServers"]
        messages = run_turn(client, "add")

    seen = calc.seen()
    assert seen[0][0]["method"] == "initialize" and seen[0][1] is False  # before connect() returned
    assert calc.methods() == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert listed == [status_entry(real_cli_path, "calc", "calc", ["add"])]
    [(_, block)] = tool_results(messages)
    assert block.content == [{"type": "text", "text": "5"}]
    fake_api.assert_no_surprises()


def test_a_deferred_tool_is_found_with_tool_search_then_called(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """How a real model reaches our tool on CLI 2.1.330, which defers MCP tools: it calls
    ``ToolSearch`` ("select:<name>"), the CLI answers with a tool reference and sends our
    ``tools/list`` schema from then on; the model then calls the tool. On 2.1.197 the tool is
    listed from the first request and called directly."""
    deferred = newer_cli(real_cli_path)
    replies = [tool_use("mcp__calc__add", {"a": 2, "b": 3}, id="toolu_add"), text("5")]
    if deferred:
        search = {"query": "select:mcp__calc__add", "max_results": 5}
        replies.insert(0, tool_use("ToolSearch", search, id="toolu_search"))
    fake_api.add(*replies)
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": SdkMcpServer("calc", tools=[add])}, allowed_tools=["mcp__calc__add"])
    with ClaudeSDKClient(options) as client:
        messages = run_turn(client, "add 2 and 3")

    requests = fake_api.turn_requests()
    listed = [[t for t in r.tools if t.get("name") == "mcp__calc__add"] for r in requests]
    if deferred:
        assert listed[0] == [] and listed[1][0]["input_schema"] == ADD_SCHEMA
        assert requests[1].tool_results[0]["content"] == [
            {"type": "tool_reference", "tool_name": "mcp__calc__add"}
        ]
    else:
        assert listed[0][0]["input_schema"] == ADD_SCHEMA
    [(_, block)] = [(m, b) for m, b in tool_results(messages) if b.tool_use_id == "toolu_add"]
    assert block.content == [{"type": "text", "text": "5"}] and not block.is_error
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- failures


def test_a_raising_tool_is_an_error_result_and_the_turn_finishes(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    @tool("divide", "Divide a by b", {"a": float, "b": float})
    def divide(args: Dict[str, Any]) -> str:
        return str(args["a"] / args["b"])

    calc = SdkMcpServer("calc", tools=[divide])
    fake_api.add(
        tool_use("mcp__calc__divide", {"a": 1, "b": 0}, id="toolu_div0"),
        text("Division by zero is undefined."),
    )
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__divide"])
    with ClaudeSDKClient(options) as client:
        messages = run_turn(client, "1 / 0?")
        # The session is still usable after the failed tool.
        fake_api.add(tool_use("mcp__calc__divide", {"a": 6, "b": 3}, id="toolu_div2"), text("2"))
        again = run_turn(client, "6 / 3?")

    expected_text = "Tool 'divide' raised ZeroDivisionError: division by zero"
    [(_, block)] = tool_results(messages)
    assert block.tool_use_id == "toolu_div0" and block.is_error is True
    assert expected_text in json.dumps(block.content)
    assert messages[-1].subtype == "success" and messages[-1].result == "Division by zero is undefined."
    [result] = fake_api.turn_requests()[1].tool_results
    assert result["is_error"] is True and expected_text in json.dumps(result["content"])
    [(_, ok)] = tool_results(again)
    assert ok.content == [{"type": "text", "text": "2.0"}] and not ok.is_error
    fake_api.assert_no_surprises()


def test_interrupt_during_a_slow_tool_cancels_it(e2e_options: Any, fake_api: FakeAnthropicAPI) -> None:
    started = threading.Event()
    outcome: Dict[str, Any] = {}

    @tool("slow", "Takes a long time", {})
    def slow(args: Dict[str, Any], context: ToolContext) -> str:
        started.set()
        began = time.monotonic()
        assert context.signal is not None
        outcome["cancelled"] = context.signal.wait(30)
        outcome["after"] = time.monotonic() - began
        outcome["request_id"] = context.request_id
        return "stopped"

    calc = RecordingServer("calc", tools=[slow])
    fake_api.add(tool_use("mcp__calc__slow", {}, id="toolu_slow"))
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__slow"])
    with ClaudeSDKClient(options) as client:
        client.query("run the slow tool")
        assert started.wait(30), "the CLI never called the tool"
        aborted = client.interrupt(drain=True, timeout=30)
        wait_until(lambda: "cancelled" in outcome, timeout=10)
        fake_api.add(text("still here"))
        after = run_turn(client, "are you there?")

    assert outcome["cancelled"] is True and outcome["after"] < 10
    cancel = [m for m, _ in calc.seen() if m.get("method") == "notifications/cancelled"]
    assert len(cancel) == 1
    assert cancel[0]["params"]["requestId"] == outcome["request_id"]
    assert isinstance(aborted[-1], ResultMessage)
    assert aborted[-1].subtype == "error_during_execution"
    assert after[-1].subtype == "success" and after[-1].result == "still here"
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- big and binary


def test_a_multi_megabyte_tool_output_passes(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """3 MB out in one control_response line, and back in the CLI's ``tool_use_result``.
    ``maxResultSizeChars`` lifts the CLI's cap (without it the CLI saves the output to a file
    and tells the model "exceeds maximum allowed tokens"); the model still gets a preview.
    CLI 2.1.330 keeps at most 500,000 characters of it in ``tool_use_result`` whatever
    ``maxResultSizeChars`` says (the whole 3 MB did reach it: it persisted the output)."""
    size = 3 * 1024 * 1024
    payload = "0123456789abcdef" * (size // 16)

    @tool("dump", "A lot of text", {}, annotations={"maxResultSizeChars": 10 * size})
    def dump(args: Dict[str, Any]) -> str:
        return payload

    calc = SdkMcpServer("calc", tools=[dump])
    fake_api.add(tool_use("mcp__calc__dump", {}, id="toolu_dump"), text("got it"))
    options = e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__dump"])
    with ClaudeSDKClient(options) as client:
        messages = run_turn(client, "dump")

    [(user, block)] = tool_results(messages)
    assert not block.is_error
    if newer_cli(real_cli_path):
        cut = len(payload) - 500_000
        assert user.tool_use_result == [
            {"type": "text", "text": payload[:500_000]},
            {"type": "text", "text": f"[{cut} more characters are not kept on this copy of the result]"},
        ]
    else:
        assert user.tool_use_result == [{"type": "text", "text": payload}]
    assert messages[-1].subtype == "success" and messages[-1].result == "got it"
    [result] = fake_api.turn_requests()[1].tool_results
    assert result["tool_use_id"] == "toolu_dump"
    fake_api.assert_no_surprises()


def one_pixel_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte + one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def test_an_image_result_reaches_the_api(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """CLI 2.1.330 also saves the image to a file and adds a text block naming it."""
    png = one_pixel_png()

    @tool("snapshot", "A picture", {})
    def snapshot(args: Dict[str, Any]) -> Dict[str, Any]:
        # bytes are base64-encoded by the library
        return {"content": [{"type": "image", "data": png, "mimeType": "image/png"}, {"type": "text", "text": "a red pixel"}]}

    calc = SdkMcpServer("cam", tools=[snapshot])
    fake_api.add(tool_use("mcp__cam__snapshot", {}, id="toolu_img"), text("I see red."))
    options = e2e_options(env=FAST_FAIL, mcp_servers={"cam": calc}, allowed_tools=["mcp__cam__snapshot"])
    with ClaudeSDKClient(options) as client:
        messages = run_turn(client, "look")

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}}
    [(_, block)] = tool_results(messages)
    expected = [image, {"type": "text", "text": "a red pixel"}]
    assert isinstance(block.content, list) and not block.is_error
    if newer_cli(real_cli_path):
        saved = block.content.pop(1)
        assert saved["type"] == "text" and saved["text"].startswith("[Image: source: ")
    assert block.content == expected
    [result] = fake_api.turn_requests()[1].tool_results
    assert [c for c in result["content"] if not c.get("text", "").startswith("[Image")] == expected
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- several servers

def test_several_sdk_servers_and_an_external_stdio_server(
    e2e_options: Any, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    @tool("mul", "Multiply", {"a": float, "b": float})
    def mul(args: Dict[str, Any]) -> str:
        return str(args["a"] * args["b"])

    script = tmp_path / "stdio_server.py"
    script.write_text(STDIO_SERVER)
    calc = SdkMcpServer("calc", tools=[add])
    other = SdkMcpServer("named-differently", tools=[mul])  # addressed by its key, "math"
    servers = {
        "calc": calc,
        "ext": {"type": "stdio", "command": sys.executable, "args": [str(script)]},
        "math": other,
    }
    tools = ["mcp__calc__add", "mcp__math__mul", "mcp__ext__echo"]
    fake_api.add(
        tool_use("mcp__calc__add", {"a": 2, "b": 3}, id="toolu_add"),
        tool_use("mcp__math__mul", {"a": 4, "b": 5}, id="toolu_mul"),
        tool_use("mcp__ext__echo", {"s": "hi"}, id="toolu_echo"),
        text("done"),
    )
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL, mcp_servers=servers, allowed_tools=tools)) as client:
        messages = run_turn(client, "use every tool")
        status = client.get_mcp_status()

    init = next(m.init for m in messages if is_init(m))
    assert sorted((s["name"], s["status"]) for s in init.mcp_servers or []) == [
        ("calc", "connected"), ("ext", "connected"), ("math", "connected")
    ]
    assert set(tools) <= set(init.tools or [])
    results = {block.tool_use_id: block.content for _, block in tool_results(messages)}
    assert results == {
        "toolu_add": [{"type": "text", "text": "5"}],
        "toolu_mul": [{"type": "text", "text": "20"}],
        "toolu_echo": [{"type": "text", "text": "ext:hi"}],
    }
    by_name = {entry["name"]: entry for entry in status["mcpServers"]}
    assert set(by_name) == {"calc", "ext", "math"}
    assert all(entry["status"] == "connected" for entry in by_name.values())
    assert by_name["math"]["tools"] == [{"name": "mul", "annotations": {}}]
    assert by_name["ext"]["tools"] == [{"name": "echo", "annotations": {}}]
    assert by_name["ext"]["serverInfo"] == {"name": "ext", "version": "0.1"}
    fake_api.assert_no_surprises()
