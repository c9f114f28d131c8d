"""The lines a scripted CLI writes, shaped like what the real CLI 2.1.197 puts on the wire.

Pure functions from a few values to JSON-ready dicts (see ``docs/protocol/REAL_CLI_2.1.197.md``:
one ``assistant`` line per content block with ``stop_reason: null``, ``system/init`` after the
first user message, ``result`` with cost and usage, control requests with the fields the real
CLI sends).
Nothing here does I/O.
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Dict, List, Optional

__all__ = [
    "CLI_VERSION",
    "DEFAULT_TOOLS",
    "assistant_line",
    "control_error",
    "control_request",
    "control_success",
    "initialize_response",
    "result_line",
    "system_init_line",
    "user_line",
]

CLI_VERSION = "2.1.197"
"""The CLI version whose wire shapes these copy (reported in ``system/init``)."""

DEFAULT_TOOLS = [
    "Task", "Bash", "Edit", "ExitPlanMode", "Glob", "Grep", "LS", "NotebookEdit", "Read",
    "TodoWrite", "WebFetch", "WebSearch", "Write",
]

JsonDict = Dict[str, Any]


def new_uuid() -> str:
    return str(uuid.uuid4())


def initialize_response(request_id: str) -> JsonDict:
    """The success answer to ``initialize`` (a trimmed copy of the real 9.5 KB one)."""
    return control_success(
        request_id,
        {
            "commands": [
                {"name": "compact", "description": "Clear history but keep a summary", "argumentHint": ""},
                {"name": "cost", "description": "Show the cost of this session", "argumentHint": ""},
            ],
            "agents": [{"name": "general-purpose", "description": "General-purpose agent"}],
            "output_style": "default",
            "available_output_styles": ["default", "Explanatory", "Learning"],
            "models": [
                {
                    "value": "default",
                    "resolvedModel": "claude-scripted",
                    "displayName": "Default",
                    "description": "The scripted CLI's model",
                }
            ],
            "account": {"tokenSource": "none", "apiKeySource": "none", "apiProvider": "firstParty"},
            "pid": os.getpid(),
        },
    )


def control_success(request_id: str, response: Optional[JsonDict] = None) -> JsonDict:
    """``{"type":"control_response","response":{"subtype":"success",…}}``; without ``response``
    the key is absent (as in the real interrupt and set_model acks)."""
    body: JsonDict = {"subtype": "success", "request_id": request_id}
    if response is not None:
        body["response"] = response
    return {"type": "control_response", "response": body}


def control_error(request_id: str, error: str) -> JsonDict:
    return {"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": error}}


def control_request(request_id: str, request: JsonDict) -> JsonDict:
    return {"type": "control_request", "request_id": request_id, "request": request}


def system_init_line(
    session_id: str, model: str, cwd: str, tools: List[str], mcp_servers: List[str], permission_mode: str
) -> JsonDict:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": list(tools),
        "mcp_servers": [{"name": name, "status": "connected"} for name in mcp_servers],
        "model": model,
        "permissionMode": permission_mode,
        "slash_commands": ["compact", "cost"],
        "apiKeySource": "none",
        "claude_code_version": CLI_VERSION,
        "output_style": "default",
        "agents": ["general-purpose"],
        "skills": [],
        "plugins": [],
        "uuid": new_uuid(),
    }


def assistant_line(
    block: JsonDict,
    *,
    session_id: str,
    model: str,
    message_id: str,
    parent_tool_use_id: Optional[str] = None,
    error: Optional[str] = None,
) -> JsonDict:
    """One assistant line holding ONE content block (the real CLI writes one line per block,
    sharing ``message.id``, ``stop_reason`` null)."""
    line: JsonDict = {
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
            "context_management": None,
        },
        "parent_tool_use_id": parent_tool_use_id,
        "session_id": session_id,
        "uuid": new_uuid(),
    }
    if error is not None:
        line["error"] = error
    return line


def user_line(content: Any, *, session_id: str, tool_use_result: Any = None, **extra: Any) -> JsonDict:
    """A ``user`` line the CLI writes (tool results, synthetic and replayed user text)."""
    line: JsonDict = {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": new_uuid(),
    }
    if tool_use_result is not None:
        line["tool_use_result"] = tool_use_result
    line.update(extra)
    return line


def result_line(
    *,
    session_id: str,
    model: str,
    result: Optional[str],
    subtype: str = "success",
    is_error: bool = False,
    num_turns: int = 1,
    duration_ms: int = 12,
    total_cost_usd: float = 0.0,
    usage: Optional[JsonDict] = None,
    errors: Any = None,
    api_error_status: Optional[int] = None,
    stop_reason: Optional[str] = "end_turn",
    **extra: Any,
) -> JsonDict:
    """A ``result`` line. Error subtypes (anything but ``success``) carry ``errors`` and no
    ``result``/``api_error_status``, as on the real wire. ``errors`` is a list of strings on
    the real wire; any other JSON value is written as given (to test odd shapes)."""
    usage = dict(usage) if usage is not None else {"input_tokens": 10, "output_tokens": 5}
    usage.setdefault("cache_creation_input_tokens", 0)
    usage.setdefault("cache_read_input_tokens", 0)
    line: JsonDict = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": duration_ms,
        "duration_api_ms": max(0, duration_ms - 2),
        "num_turns": num_turns,
        "stop_reason": stop_reason,
        "session_id": session_id,
        "total_cost_usd": total_cost_usd,
        "usage": usage,
        "modelUsage": {
            model: {
                "inputTokens": usage.get("input_tokens", 0),
                "outputTokens": usage.get("output_tokens", 0),
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "webSearchRequests": 0,
                "costUSD": total_cost_usd,
                "contextWindow": 200000,
                "maxOutputTokens": 64000,
            }
        },
        "permission_denials": [],
        "terminal_reason": "completed",
        "uuid": new_uuid(),
    }
    if subtype == "success":
        line["api_error_status"] = api_error_status
        line["result"] = result if result is not None else ""
    else:
        line["errors"] = [] if errors is None else list(errors) if isinstance(errors, (list, tuple)) else errors
    line.update(extra)
    return line
