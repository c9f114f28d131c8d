"""Comparing what the client sent with what a script expected. Pure functions.

* ``subset_mismatch(expected, actual)``: every key of ``expected`` must be in ``actual`` with
  an equal value (recursively for dicts; lists and scalars compare whole). None when it holds,
  else where it first differs.
* ``frame_mismatch(expected, actual, ids)``: for replays: the two frames after normalising what
  legitimately changes from run to run (the client's own request ids, uuids, timestamps,
  durations, process ids) and redacting both the way a recording was redacted (so a live
  secret matches its recorded ``<redacted>``); None when equal, else a unified diff.
* ``describe_frame(frame)``: a short human description for failure messages.
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Dict, List, Mapping, Optional

from ..._redaction.redactor import redact_frame

__all__ = ["describe_frame", "describe_step", "frame_mismatch", "normalise_frame", "subset_mismatch"]

VOLATILE_KEYS = frozenset({"uuid", "timestamp", "duration_ms", "duration_api_ms", "pid", "session_id"})
"""Keys whose values differ between runs of the same conversation; compared as ``<*>``."""

ANY = "<*>"


def subset_mismatch(expected: Any, actual: Any, path: str = "") -> Optional[str]:
    """None if ``expected`` is a (recursive) subset of ``actual``, else where they differ."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{path or 'the answer'}: expected an object, got {actual!r}"
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                return f"{where}: missing (expected {value!r})"
            problem = subset_mismatch(value, actual[key], where)
            if problem is not None:
                return problem
        return None
    if expected != actual:
        return f"{path or 'the answer'}: expected {expected!r}, got {actual!r}"
    return None


def normalise_frame(frame: Any, ids: Optional[Dict[str, str]] = None) -> Any:
    """``frame`` with volatile values replaced by ``<*>``; the client's own control request
    ids too (its ``request_id`` at top level of a ``control_request``)."""
    if isinstance(frame, dict):
        out = {key: (ANY if key in VOLATILE_KEYS else normalise_frame(value, ids)) for key, value in frame.items()}
        if frame.get("type") == "control_request" and "request_id" in frame:
            out["request_id"] = ANY
        return out
    if isinstance(frame, list):
        return [normalise_frame(item, ids) for item in frame]
    return frame


def frame_mismatch(expected: Any, actual: Any, ids: Optional[Dict[str, str]] = None) -> Optional[str]:
    """None when ``actual`` is equivalent to the recorded ``expected``; else a unified diff
    (``-`` recorded, ``+`` sent now), at most 60 lines."""
    left, right = normalise_frame(redact_frame(expected), ids), normalise_frame(redact_frame(actual), ids)
    if left == right:
        return None
    a = json.dumps(left, indent=1, sort_keys=True, default=str).splitlines()
    b = json.dumps(right, indent=1, sort_keys=True, default=str).splitlines()
    diff: List[str] = list(difflib.unified_diff(a, b, "recorded", "sent now", lineterm="", n=2))
    if len(diff) > 60:
        diff = diff[:60] + [f"... ({len(diff) - 60} more diff lines)"]
    return "\n".join(diff)


def describe_frame(frame: Any) -> str:
    """``user message 'hi'``, ``control_request 'interrupt'``, ``control_response to <id>`` …"""
    if not isinstance(frame, dict):
        return f"a non-object line {str(frame)[:80]!r}"
    kind = frame.get("type")
    if kind == "user":
        content = (frame.get("message") or {}).get("content")
        return f"user message {_short(content)}"
    if kind == "control_request":
        request = frame.get("request") or {}
        return f"control_request {request.get('subtype')!r} {_short(request)}"
    if kind == "control_response":
        response = frame.get("response") or {}
        return f"control_response to {response.get('request_id')!r} ({response.get('subtype')})"
    return f"{kind} line {_short(frame)}"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_step(step: Dict[str, Any]) -> str:
    """A step as a test author wrote it: ``ask_permission Bash``, ``expect_user 'hi'`` …"""
    op = str(step.get("op"))
    detail = step.get("tool_name") or step.get("event") or step.get("subtype") or step.get("tool")
    if op == "expect_user" and step.get("content") is not None:
        detail = repr(step["content"])[:60]
    if op == "text":
        detail = repr(step.get("text", ""))[:60]
    if op in ("expect_frame", "emit"):
        frame = step.get("frame") if op == "expect_frame" else step.get("line")
        number = f"#{step['index']} " if "index" in step else ""
        detail = number + describe_frame(frame)[:80]
    if op in ("stall", "crash", "exit"):
        detail = f"{step.get('seconds', '')}s" if op == "stall" else f"code {step.get('code')}"
    return f"{op} {detail}" if detail else op
