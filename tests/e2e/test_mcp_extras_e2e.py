"""The TS SDK's MCP extras against the real CLI: a tool's ``search_hint`` and ``always_load``, a
server's ``instructions``, ``always_load`` and ``timeout`` (in-process and external).

CLI 2.1.332 defers MCP tools behind ``ToolSearch``: ``always_load`` keeps them in the first
request's tool list, ``search_hint`` is what ``ToolSearch`` matches besides the name and
description, ``timeout`` turns a call that runs too long into an error result. 2.1.197 defers
nothing and ignores ``sdkMcpServerConfigs`` (the timeout); ``instructions`` reach the model on
both.
"""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import ClaudeSDKClient, ResultMessage, ToolContext, create_sdk_mcp_server, tool
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def run_turn(options: Any, prompt: str = "go") -> List[Any]:
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage), messages
    return messages


@tool("hinted", "Waits for a while", {"x": str}, search_hint="tortoise")
def hinted(args: Dict[str, Any]) -> str:
    return "hinted"


@tool("plain", "Answers at once", {"x": str})
def plain(args: Dict[str, Any]) -> str:
    return "plain"


@tool("pinned", "Answers at once", {"x": str}, always_load=True)
def pinned(args: Dict[str, Any]) -> str:
    return "pinned"


def listed_kit_tools(api: FakeAnthropicAPI, index: int = 0) -> List[str]:
    return sorted(t["name"] for t in api.turn_requests()[index].tools if t["name"].startswith("mcp__kit__"))


def test_always_load_and_instructions(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """A tool's ``always_load`` keeps it in the first request (the others are deferred on
    2.1.332); the server's ``instructions`` reach the model."""
    fake_api.add(text("ok"))
    server = create_sdk_mcp_server("kit", tools=[hinted, plain, pinned], instructions="KIT-NOTE: use pinned first.")
    run_turn(e2e_options(env=FAST_FAIL, mcp_servers={"kit": server}))
    request = fake_api.turn_requests()[0]
    assert "KIT-NOTE: use pinned first." in json.dumps(request.body)
    every = ["mcp__kit__hinted", "mcp__kit__pinned", "mcp__kit__plain"]
    assert listed_kit_tools(fake_api) == (["mcp__kit__pinned"] if cli_is_at_least(real_cli_path, "2.1.332") else every)


def test_a_server_that_always_loads_lists_every_tool(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    fake_api.add(text("ok"))
    server = create_sdk_mcp_server("kit", tools=[hinted, plain], always_load=True)
    run_turn(e2e_options(env=FAST_FAIL, mcp_servers={"kit": server}))
    assert listed_kit_tools(fake_api) == ["mcp__kit__hinted", "mcp__kit__plain"]


@pytest.mark.parametrize("query, found", [("tortoise", "mcp__kit__hinted"), ("zebra", None)])
def test_tool_search_finds_a_tool_by_its_search_hint(
    query: str, found: Any, e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """"tortoise" is only in ``hinted``'s search hint; "zebra" is nowhere (the control)."""
    if not cli_is_at_least(real_cli_path, "2.1.332"):
        pytest.skip("CLI 2.1.197 defers no tools and has no ToolSearch")
    fake_api.add(tool_use("ToolSearch", {"query": query}), text("ok"))
    server = create_sdk_mcp_server("kit", tools=[hinted, plain])
    run_turn(e2e_options(env=FAST_FAIL, mcp_servers={"kit": server}))
    (result,) = fake_api.turn_requests()[1].tool_results
    if found:
        assert result["content"] == [{"type": "tool_reference", "tool_name": found}]
    else:
        assert result["content"] == "No matching deferred tools found"


def test_a_server_timeout_ends_a_tool_call_that_runs_too_long(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """``timeout=1.5`` (sent as 1500 ms): 2.1.332 gives up on the call and the model reads an
    error; 2.1.197 ignores it and the call finishes when the tool does."""
    release = threading.Event()
    newer = cli_is_at_least(real_cli_path, "2.1.332")

    @tool("slow", "Waits", {"x": str})
    def slow(args: Dict[str, Any], context: ToolContext) -> str:
        release.wait(60)  # the test releases it once the turn is over (2.1.332) or at once
        return "slow done"

    if not newer:
        release.set()
    fake_api.add(tool_use("mcp__kit__slow", {"x": "1"}), text("ok"))
    server = create_sdk_mcp_server("kit", tools=[slow], always_load=True, timeout=1.5)
    try:
        run_turn(e2e_options(env=FAST_FAIL, mcp_servers={"kit": server}, allowed_tools=["mcp__kit__slow"]))
    finally:
        release.set()
    (result,) = fake_api.turn_requests()[1].tool_results
    if newer:
        assert result.get("is_error") is True and "timed out" in json.dumps(result["content"])
    else:
        assert result["content"] == [{"type": "text", "text": "slow done"}]


SLOW_STDIO_SERVER = textwrap.dedent(
    """
    import json, sys, threading
    never = threading.Event()
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"],
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "ext", "version": "0.1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "hang", "description": "Never answers",
                                 "inputSchema": {"type": "object", "properties": {}}}]}
        elif method == "tools/call":
            continue  # never answered: only the CLI's timeout ends the call
        else:
            result = {}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    """
)


def test_an_external_server_config_takes_always_load_and_timeout(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path
) -> None:
    """``{"alwaysLoad": True, "timeout": 1000}`` in a stdio server's config (the CLI's own keys,
    milliseconds) on 2.1.332: its tool is listed in the first request and a call that gets no
    answer ends as an error after a second."""
    if not cli_is_at_least(real_cli_path, "2.1.332"):
        pytest.skip("CLI 2.1.197 has neither key (and would wait for the call for ever)")
    script = tmp_path / "slow_server.py"
    script.write_text(SLOW_STDIO_SERVER)
    config = {"type": "stdio", "command": sys.executable, "args": [str(script)], "alwaysLoad": True, "timeout": 1000}
    fake_api.add(tool_use("mcp__ext__hang", {}), text("ok"))
    run_turn(e2e_options(env=FAST_FAIL, mcp_servers={"ext": config}, allowed_tools=["mcp__ext__hang"]))
    assert "mcp__ext__hang" in [t["name"] for t in fake_api.turn_requests()[0].tools]
    (result,) = fake_api.turn_requests()[1].tool_results
    assert result.get("is_error") is True and "timed out" in json.dumps(result["content"])
