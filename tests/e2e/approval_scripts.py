"""Fake-API scripts the approval e2e tests share (a responder decides from what the CLI sent)."""

from __future__ import annotations

from typing import Any

from claude_sync.testing.fake_api import text, tool_use


def subagent_asks_for_a_held_call(request: Any) -> Any:
    """The parent starts a (foreground) subagent; the subagent asks for a held Bash call."""
    first = request.messages[0]["content"]
    prompt = [b.get("text") for b in first if isinstance(b, dict) and b.get("type") == "text"][-1] if isinstance(first, list) else first
    answered = any(isinstance(b, dict) and b.get("type") == "tool_result"
                   for m in request.messages if isinstance(m.get("content"), list) for b in m["content"])  # fmt: skip
    if prompt == "run echo":
        return text("sub done") if answered else tool_use("Bash", {"command": "echo sub >> ran.txt"}, id="toolu_sub")
    if answered:
        return text("parent done")
    return tool_use("Agent", {"description": "tidy", "prompt": "run echo", "subagent_type": "general-purpose",
                              "run_in_background": False}, id="toolu_agent")  # fmt: skip
