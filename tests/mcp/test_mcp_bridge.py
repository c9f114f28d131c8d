"""An ``mcp`` package server as the ``instance`` of an SDK server config.

``{"type": "sdk", "name": …, "instance": <mcp server>}`` (a low-level ``mcp.server.Server``,
or FastMCP / ``MCPServer``) is served by ``_mcp.bridge``: mcp itself answers everything the
server implements (tools, resources, prompts) over an in-memory connection on a
``claude_sync-mcp-<key>`` thread, joined when the session closes.

``mcp`` is optional (the ``test-integrations`` extra; it needs Python >= 3.10): the tests that
need it skip, saying so, when it is not installed, fail under ``CI=true`` on Python >= 3.10
(``.ci/run`` installs it), and skip on 3.9. The tests of the parts that must not need ``mcp``
always run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from helpers import Kit, require_package
from mcp_requests import handshake, mcp_answer, mcp_request, rpc, run_turn, turn, wait_response

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, create_sdk_mcp_server

ROOT = Path(__file__).resolve().parents[2]


def mcp_server(name: str = "demo") -> Any:
    """A FastMCP-style server (``MCPServer`` on mcp 2.x, ``FastMCP`` on 1.x) with one tool,
    one resource and one prompt."""
    require_package("mcp", since=(3, 10))
    try:
        from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
    except ImportError:  # pragma: no cover - mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    server = Server(name)

    @server.tool()
    def echo(text: str) -> str:
        """Echo text back."""
        return f"echo: {text}"

    @server.resource("demo://greeting")
    def greeting() -> str:
        return "hello resource"

    @server.prompt()
    def review(code: str) -> str:
        """Review code."""
        return f"Please review: {code}"

    return server


def call(bridge: Any, method: str, rpc_id: Optional[int] = None, params: Optional[Dict[str, Any]] = None) -> Any:
    return bridge.handle(rpc(method, rpc_id, params), threading.Event())


INIT_PARAMS = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "claude-code", "version": "2.1.330"},
}


# ----------------------------------------------------------------------------- no mcp needed


def test_our_own_servers_never_import_mcp() -> None:
    script = (
        "import sys\n"
        "from claude_sync import ClaudeAgentOptions, create_sdk_mcp_server\n"
        "from claude_sync._options.command import interpret_options\n"
        "from claude_sync._wiring import build_handlers\n"
        "opts = ClaudeAgentOptions(mcp_servers={'c': create_sdk_mcp_server('c')})\n"
        "handlers = build_handlers(interpret_options(opts))\n"
        "assert 'mcp_message' in handlers\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_foreign_instance_is_refused_with_its_type() -> None:
    options = ClaudeAgentOptions(mcp_servers={"x": {"type": "sdk", "name": "x", "instance": object()}})
    with pytest.raises(TypeError, match=r"mcp_servers\['x'\]\['instance'\].*not object"):
        ClaudeSDKClient(options).connect()


# ----------------------------------------------------------------------------- with mcp


def test_the_bridge_serves_tools_resources_and_prompts() -> None:
    from claude_sync._mcp.bridge import McpPackageBridge
    from claude_sync._mcp.config import is_mcp_package_server, mcp_package_lowlevel_server

    server = mcp_server()
    assert is_mcp_package_server(server)
    bridge = McpPackageBridge("demo", mcp_package_lowlevel_server(server))
    try:
        init = call(bridge, "initialize", 0, INIT_PARAMS)
        assert init["id"] == 0 and set(init["result"]["capabilities"]) >= {"tools", "resources", "prompts"}
        assert call(bridge, "notifications/initialized") is None
        [listed] = call(bridge, "tools/list", 1)["result"]["tools"]
        assert listed["name"] == "echo" and listed["inputSchema"]["required"] == ["text"]
        called = call(bridge, "tools/call", 2, {"name": "echo", "arguments": {"text": "hi"}})
        assert called["id"] == 2
        assert called["result"]["content"][0]["text"] == "echo: hi"
        [resource] = call(bridge, "resources/list", 3)["result"]["resources"]
        assert resource["uri"] == "demo://greeting"
        read = call(bridge, "resources/read", 4, {"uri": "demo://greeting"})
        assert read["result"]["contents"][0]["text"] == "hello resource"
        [prompt] = call(bridge, "prompts/list", 5)["result"]["prompts"]
        assert prompt["name"] == "review"
        got = call(bridge, "prompts/get", 6, {"name": "review", "arguments": {"code": "x = 1"}})
        assert got["result"]["messages"][0]["content"]["text"] == "Please review: x = 1"
        assert call(bridge, "no/such", 7)["error"]["code"] == -32601
        assert call(bridge, "tools/call", "a", {"name": "ghost", "arguments": {}})["id"] == "a"
    finally:
        bridge.close(5.0)
    assert not any(t.name == "claude_sync-mcp-demo" for t in threading.enumerate())
    closed = call(bridge, "ping", 8)
    assert closed["error"]["message"] == "SDK MCP server 'demo' is closed"


def test_a_low_level_server_is_accepted_too() -> None:
    from claude_sync._mcp.config import mcp_package_lowlevel_server

    low = mcp_package_lowlevel_server(mcp_server())
    assert low is not None and mcp_package_lowlevel_server(low) is low
    assert mcp_package_lowlevel_server(create_sdk_mcp_server("c")["instance"]) is None


def test_a_client_serves_an_mcp_package_server_and_joins_its_thread(tmp_path: Path) -> None:
    server = mcp_server()
    script = turn(
        handshake("hs", server="demo"),
        mcp_request("call", "demo", rpc("tools/call", 2, {"name": "echo", "arguments": {"text": "yo"}})),
        wait_response("call"),
        mcp_request("read", "demo", rpc("resources/read", 3, {"uri": "demo://greeting"})),
        wait_response("read"),
    )
    cli = Kit(script, "memory", tmp_path)
    config = {"type": "sdk", "name": "demo", "instance": server}
    with cli.client(mcp_servers={"demo": config}) as client:
        run_turn(client)
        assert any(t.name == "claude_sync-mcp-demo" for t in threading.enumerate())
    assert not any(t.name == "claude_sync-mcp-demo" for t in threading.enumerate())

    initialize = cli.stdin_frames()[0]["request"]
    assert initialize["sdkMcpServers"] == ["demo"]
    text = mcp_answer(cli, "call")["result"]["content"][0]["text"]
    assert text == "echo: yo"
    assert mcp_answer(cli, "read")["result"]["contents"][0]["text"] == "hello resource"
    tools: List[Dict[str, Any]] = mcp_answer(cli, "hs-list")["result"]["tools"]
    assert [t["name"] for t in tools] == ["echo"]
    json.dumps(tools)  # what we sent is JSON
