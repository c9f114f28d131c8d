"""The TypeScript-SDK extras against the real CLI (2.1.197 and 2.1.330): MCP elicitation
through ``on_elicitation``, the initialize-only options, and the typed control methods."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any, List

import pytest

from claude_sync import (
    ClaudeSDKClient,
    ControlRequestError,
    ElicitationRequest,
    ElicitationResult,
    PromptSuggestionMessage,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
)

from .fake_api import FakeAnthropicAPI, text, tool_use
from .test_mcp_e2e import STDIO_SERVER

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


# ----------------------------------------------------------------------------- initialize options


def test_tool_aliases_redirect_a_tool_call_and_prompt_suggestions_arrive(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    fake_api.add(
        tool_use("Frobnicate", {"command": "touch aliased.txt", "description": "touch"}, id="toolu_alias"),
        text("first"),
        text("second"),
    )
    options = e2e_options(
        env=FAST_FAIL,
        tool_aliases={"Frobnicate": "Bash"},
        allowed_tools=["Bash"],
        title="claude_sync e2e",
        plan_mode_instructions="Plan in one line.",
        prompt_suggestions=True,
        agent_progress_summaries=True,
    )
    with ClaudeSDKClient(options) as client:
        run_turn(client, "one")
        run_turn(client, "two")
        # After a turn with two assistant messages the CLI predicts the next prompt, after
        # the result (the first turn's suggestion may still be queued: take the first one).
        stream = client.receive_messages(timeout=30)
        suggestion = next(m for m in stream if isinstance(m, PromptSuggestionMessage))
        stream.close()
    assert (e2e_workdir / "aliased.txt").exists()  # "Frobnicate" ran as Bash
    assert suggestion.suggestion == "run the tests"  # the fake API's canned suggestion
    assert {r.kind for r in fake_api.side_requests()} == {"side:prompt_suggestion"}


# ----------------------------------------------------------------------------- control methods


def test_typed_control_methods(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    (e2e_workdir / "hello.txt").write_text("hello file\n")
    stdio = tmp_path / "stdio_server.py"
    stdio.write_text(STDIO_SERVER)
    fake_api.add(text("answer"))
    calc = create_sdk_mcp_server("calc")
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc})) as client:
        client.apply_flag_settings({"model": "claude-sonnet-4-5"})

        read = client.read_file("hello.txt")
        assert (read.contents, read.truncated, read.encoding) == ("hello file\n", False, "utf-8")
        assert read.abs_path == str(e2e_workdir / "hello.txt")
        head = client.read_file("hello.txt", encoding="base64", max_bytes=3)
        assert (head.contents, head.truncated, head.encoding) == ("aGVs", True, "base64")
        with pytest.raises(ControlRequestError):
            client.read_file("missing.txt")

        ext = {"type": "stdio", "command": sys.executable, "args": [str(stdio)]}
        changed = client.set_mcp_servers({"ext": ext})
        assert (changed.added, changed.removed, changed.errors) == (["ext"], [], {})

        reloaded = client.reload_plugins()
        assert reloaded.error_count == 0 and isinstance(reloaded.commands, list)
        assert reloaded.commands and all("name" in command for command in reloaded.commands)

        assert client.background_tasks("toolu_none") is False  # no such foreground task
        usage = client.get_usage(skip_behaviors=True)
        assert usage.session["total_cost_usd"] == 0 and usage.rate_limits_available is False

        run_turn(client, "one")
        status = {s["name"]: s["status"] for s in client.get_mcp_status()["mcpServers"]}
    assert status == {"ext": "connected", "calc": "connected"}  # our in-process server stayed
    [turn] = fake_api.turn_requests()
    assert turn.model == "claude-sonnet-4-5"  # apply_flag_settings took effect
