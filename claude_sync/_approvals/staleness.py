"""Whether a session's transcript still stops at a pending call (pure).

A decision applies only while the session's last turn ends at the deferred call: its
``tool_use`` is in the transcript with the recorded input, and nothing came after it — no
``tool_result`` for it (the call ran, was denied, or a further prompt to the CLI that deferred
made it "Tool result missing"), no later assistant message, no later prompt.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .._redaction.redactor import redacted_excerpt
from .records import PendingApproval

__all__ = ["why_stale"]


def why_stale(entries: List[Dict[str, Any]], pending: PendingApproval) -> Optional[str]:
    """Why ``pending`` no longer applies to the transcript ``entries`` (None: it applies)."""
    found: Optional[int] = None
    message_id: Any = None
    for index, entry in enumerate(entries):
        for block in _blocks(entry, "assistant"):
            if block.get("type") == "tool_use" and block.get("id") == pending.tool_use_id:
                if block.get("input") != pending.tool_input:
                    return "the call in the session has a different input than the pending approval"
                found, message_id = index, (entry.get("message") or {}).get("id")
    if found is None:
        return f"the session has no tool call {pending.tool_use_id}"
    for entry in entries[found + 1 :]:
        for block in _blocks(entry, "user"):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == pending.tool_use_id:
                return "the call already has a result: the session moved on"
        if entry.get("type") == "user" and not entry.get("isMeta") and _is_prompt(entry):
            return f"a later prompt was sent to the session ({_describe(entry)}): it moved on"
        if entry.get("type") == "assistant" and (entry.get("message") or {}).get("id") != message_id:
            return f"the model went on after the call ({_describe(entry)}): the session moved on"
    return None


def _blocks(entry: Dict[str, Any], role: str) -> List[Dict[str, Any]]:
    if not isinstance(entry, dict) or entry.get("type") != role:
        return []
    content = (entry.get("message") or {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _is_prompt(entry: Dict[str, Any]) -> bool:
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "text" for b in content)


def _describe(entry: Dict[str, Any]) -> str:
    """A short account of a transcript entry, for an error message."""
    message = entry.get("message") or {}
    content = message.get("content")
    if isinstance(content, list):
        content = [b.get("type") if isinstance(b, dict) else type(b).__name__ for b in content]
    return f"{entry.get('type')} entry {entry.get('uuid')}, message {message.get('id')}, model {message.get('model')}: {redacted_excerpt(str(content), 120)}"
