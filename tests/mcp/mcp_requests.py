"""The CLI's side of in-process MCP servers, as scripted-CLI steps: ``mcp_message`` control
requests shaped like the real CLI 2.1.197's (``rpc``, ``handshake``, ``tools_call``,
``cancelled``), a turn around them, and reading our answers (``responses``, ``mcp_answer``).
Shared by the MCP tests of this folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

from helpers import Kit, Step

from claude_sync import ClaudeSDKClient, ResultMessage
from claude_sync.testing import ScriptedCLI

PROTOCOL = "2025-11-25"


def mcp_request(request_id: str, server: str, message: Any, *, error: bool = False) -> Step:
    """A step sending one ``mcp_message`` control request (``wait_response`` collects the
    answer; ``error``: a control error answer is what the test expects)."""
    request = {"subtype": "mcp_message", "server_name": server, "message": message}
    return lambda cli: cli.ask_control(request, request_id=request_id, wait=False, expect_error=error or None)


def wait_response(request_id: str) -> Step:
    return lambda cli: cli.expect_answer(request_id, timeout=10)


def wait_file(path: Path) -> Step:
    return lambda cli: cli.wait_for_file(path, timeout=30)


def emit(line: Dict[str, Any]) -> Step:
    return lambda cli: cli.emit(line)


def rpc(method: str, rpc_id: Optional[int] = None, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A JSON-RPC message shaped like the CLI's (``method`` first, ``id`` last)."""
    message: Dict[str, Any] = {"method": method}
    if params is not None:
        message["params"] = params
    message["jsonrpc"] = "2.0"
    if rpc_id is not None:
        message["id"] = rpc_id
    return message


def handshake(prefix: str, server: str = "calc") -> List[Step]:
    """The CLI's three-message handshake, each message waiting for our answer."""
    init_params = {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.197"},
    }
    return [
        mcp_request(f"{prefix}-init", server, rpc("initialize", 0, init_params)),
        wait_response(f"{prefix}-init"),
        mcp_request(f"{prefix}-initialized", server, rpc("notifications/initialized")),
        wait_response(f"{prefix}-initialized"),
        mcp_request(f"{prefix}-list", server, rpc("tools/list", 1)),
        wait_response(f"{prefix}-list"),
    ]


def tools_call(
    request_id: str, server: str, name: str, arguments: Dict[str, Any], rpc_id: int, tool_use_id: str
) -> Step:
    params = {
        "name": name,
        "arguments": arguments,
        "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": rpc_id},
    }
    return mcp_request(request_id, server, rpc("tools/call", rpc_id, params))


def cancelled(request_id: str, server: str, rpc_id: int) -> Step:
    params = {"requestId": rpc_id, "reason": "AbortError: remote-cancel"}
    return mcp_request(request_id, server, rpc("notifications/cancelled", None, params))


def turn(*steps: Any, cli: Optional[ScriptedCLI] = None) -> ScriptedCLI:
    """Steps run inside one turn: after the user message, before the text and result (lists
    of steps are flattened; ``cli`` continues a script already begun)."""
    script = (cli or ScriptedCLI()).expect_user()
    for step in steps:
        for one in step if isinstance(step, list) else [step]:
            one(script)
    return script.text("done").result()


def responses(cli: Kit) -> Dict[str, Optional[Dict[str, Any]]]:
    """Our control_responses as the scripted CLI received them, by request id (a request
    never answered in time fails the script instead: ``"<timeout>"`` stays absent)."""
    found: Dict[str, Optional[Dict[str, Any]]] = {}
    for frame in cli.stdin_frames():
        if frame.get("type") == "control_response":
            found[frame["response"]["request_id"]] = frame["response"]
    return found


def mcp_answer(cli: Kit, request_id: str) -> Dict[str, Any]:
    """The JSON-RPC message we answered ``request_id`` with (asserting the control envelope)."""
    response = responses(cli)[request_id]
    assert response is not None
    assert response["subtype"] == "success", response
    assert set(response["response"]) == {"mcp_response"}, response
    return response["response"]["mcp_response"]


def run_turn(client: ClaudeSDKClient, prompt: str = "go") -> List[Any]:
    client.query(prompt)
    messages = list(client.receive_response(timeout=30))
    assert isinstance(messages[-1], ResultMessage)
    return messages
