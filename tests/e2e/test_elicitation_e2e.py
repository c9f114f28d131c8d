"""MCP elicitation against the real CLI (the pinned one and the newest): an external MCP server
asks a question mid-tool-call and ``on_elicitation`` answers it, or the question is declined."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any, List

import pytest

from claude_sync import (
    ClaudeSDKClient,
    ElicitationRequest,
    ElicitationResult,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e

FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}

ELICITING_SERVER = textwrap.dedent(
    """
    import json, sys
    def send(obj):
        print(json.dumps(obj), flush=True)
    call_id = None
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if method is None and message.get("id") == "ask-1":  # the client's answer
            answer = message.get("result", message.get("error"))
            text = "elicited:" + json.dumps(answer, sort_keys=True)
            send({"jsonrpc": "2.0", "id": call_id, "result": {"content": [{"type": "text", "text": text}]}})
        elif "id" not in message:
            continue
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "forms", "version": "0.1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [
                {"name": "ask_name", "description": "Ask for a name", "inputSchema": {"type": "object"}}]}})
        elif method == "tools/call":
            call_id = message["id"]
            send({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
                "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": method}})
    """
)


def run_turn(client: ClaudeSDKClient, prompt: str) -> List[Any]:
    client.query(prompt)
    messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage), messages
    return messages


def tool_result_texts(messages: List[Any]) -> List[str]:
    return [
        part["text"] if isinstance(block.content, list) else str(block.content)
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
        for part in (block.content if isinstance(block.content, list) else [{"text": block.content}])
    ]


def eliciting_options(e2e_options: Any, tmp_path: Path, **fields: Any) -> Any:
    script = tmp_path / "eliciting_server.py"
    script.write_text(ELICITING_SERVER)
    server = {"type": "stdio", "command": sys.executable, "args": [str(script)]}
    return e2e_options(
        env=FAST_FAIL, mcp_servers={"forms": server}, allowed_tools=["mcp__forms__ask_name"], **fields
    )


# ----------------------------------------------------------------------------- elicitation


def test_on_elicitation_answers_an_mcp_servers_question(
    e2e_options: Any, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    asked: List[ElicitationRequest] = []

    def fill(request: ElicitationRequest) -> ElicitationResult:
        asked.append(request)
        return ElicitationResult("accept", {"name": "Ada"})

    fake_api.add(tool_use("mcp__forms__ask_name", {}, id="toolu_ask"), text("hello Ada"))
    with ClaudeSDKClient(eliciting_options(e2e_options, tmp_path, on_elicitation=fill)) as client:
        messages = run_turn(client, "ask me")

    [request] = asked
    assert (request.server_name, request.message, request.mode) == ("forms", "Your name?", "form")
    assert request.requested_schema == {"type": "object", "properties": {"name": {"type": "string"}}}
    answer = {"action": "accept", "content": {"name": "Ada"}}
    assert tool_result_texts(messages) == ["elicited:" + json.dumps(answer, sort_keys=True)]
    fake_api.assert_no_surprises()


def test_without_on_elicitation_the_question_is_declined(
    e2e_options: Any, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    fake_api.add(tool_use("mcp__forms__ask_name", {}, id="toolu_ask"), text("declined"))
    with ClaudeSDKClient(eliciting_options(e2e_options, tmp_path)) as client:
        messages = run_turn(client, "ask me")
    assert tool_result_texts(messages) == ['elicited:{"action": "decline"}']
