"""A server built with the ``mcp`` package as an SDK server, against the real CLI: the CLI
lists and calls its tools and reads its resources through our ``mcp_message`` bridge.

Needs the optional ``mcp`` package (``test-integrations``): see ``tests/mcp/test_mcp_bridge.py``
for when the tests that need it skip."""

from __future__ import annotations

import threading
from typing import Any, List

import pytest
from helpers import require_package

from claude_sync import ClaudeSDKClient, ResultMessage, ToolResultBlock, UserMessage
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e


def notes_server() -> Any:
    require_package("mcp", since=(3, 10))
    try:
        from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
    except ImportError:  # pragma: no cover - mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    server = Server("notes")

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    @server.resource("notes://today")
    def today() -> str:
        return "buy milk"

    return server


def tool_results(messages: List[Any]) -> List[ToolResultBlock]:
    return [
        block
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]


def test_an_mcp_package_server_serves_tools_and_resources(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    config = {"type": "sdk", "name": "notes", "instance": notes_server()}
    fake_api.add(
        tool_use("mcp__notes__shout", {"text": "hi"}, id="toolu_shout"),
        tool_use("ReadMcpResourceTool", {"server": "notes", "uri": "notes://today"}, id="toolu_read"),
        text("done"),
    )
    options = e2e_options(
        env={"CLAUDE_CODE_MAX_RETRIES": "0"},
        mcp_servers={"notes": config},
        allowed_tools=["mcp__notes__shout", "ReadMcpResourceTool"],
    )
    with ClaudeSDKClient(options) as client:
        client.query("go")
        messages = list(client.receive_response(timeout=60))
        status = {s["name"]: s["status"] for s in client.get_mcp_status()["mcpServers"]}
        assert any(t.name == "claude_sync-mcp-notes" for t in threading.enumerate())
    assert not any(t.name == "claude_sync-mcp-notes" for t in threading.enumerate())

    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "done"
    assert status == {"notes": "connected"}
    shout, read = tool_results(messages)
    assert not shout.is_error and "HI" in str(shout.content)
    assert not read.is_error and "buy milk" in str(read.content)
    fake_api.assert_no_surprises()
