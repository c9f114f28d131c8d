"""A tiny Flask service built on claude_sync: ``POST /ask {"question": ...}`` answers with
what Claude says, under a read-only permission policy, a hook that keeps ``.env`` files out
of reach, and one in-process MCP tool. Its tests (``tests/``) use only ``claude_sync.testing``:
no account, no network, no ``claude`` binary — the ``claude_cli`` fixture's switch makes the
app's own ``query()`` play the test's script, and refuses any run a test did not script.

    flask --app app run                 # serve it, with a logged-in claude CLI on PATH
    python -m pytest examples/testing   # test it: pip install flask pytest, and claude_sync
                                        # (pip install . from the repository root)
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from flask import Flask, jsonify, request

from claude_sync import (
    AgentPool,
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

READ_ONLY_TOOLS = {"Read", "Glob", "Grep", "LS", "mcp__text__word_count"}


def read_only_policy(tool_name: str, tool_input: Dict[str, Any], context: Any) -> Any:
    """The permission policy: reading is fine, anything that changes the world is not."""
    if tool_name in READ_ONLY_TOOLS:
        return PermissionResultAllow()
    return PermissionResultDeny(message=f"{tool_name} is not allowed: this service is read-only")


def keep_secrets(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
    """A PreToolUse hook: no tool may touch a ``.env`` file, whatever the policy says."""
    path = str((hook_input.get("tool_input") or {}).get("file_path", ""))
    if path.endswith(".env"):
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "secrets stay secret"}}
    return {}


@tool("word_count", "Count the words of a text", {"text": str})
def word_count(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(len(args["text"].split()))}]}


def make_options() -> ClaudeAgentOptions:
    return ClaudeAgentOptions(
        can_use_tool=read_only_policy,
        hooks={"PreToolUse": [HookMatcher(hooks=[keep_secrets], timeout=10)]},
        mcp_servers={"text": create_sdk_mcp_server("text", tools=[word_count])},
        max_turns=5,
    )


def triage(tickets: List[str]) -> List[str]:
    """One short label per support ticket, three agents at a time (``AgentPool``), in the
    tickets' order."""
    options = ClaudeAgentOptions(system_prompt="Answer with one word: bug, question or praise.", max_turns=1)
    with AgentPool(options, max_workers=3) as pool:
        return [result.text.strip().lower() for result in pool.map(tickets, timeout=120)]


def create_app() -> Flask:
    """The app. It runs whatever ``claude`` CLI discovery finds; its tests need no hook."""
    app = Flask(__name__)

    @app.post("/ask")
    def ask() -> Any:
        question = str((request.get_json(silent=True) or {}).get("question", "")).strip()
        if not question:
            return jsonify(error="question is required"), 400
        try:
            messages = list(query(question, options=make_options()))
        except ResultError as exc:
            return jsonify(error=f"Claude failed: {exc}"), 502
        result = [m for m in messages if isinstance(m, ResultMessage)][-1]
        return jsonify(answer=result.result, cost_usd=result.total_cost_usd)

    return app
