"""Lines as the real CLI 2.1.197 sends them, with the message each must parse into: ``CASES``
(``(name, wire dict, message class, expected fields)``), ``INIT`` and the builders they use.

The samples follow docs/protocol/REAL_CLI_2.1.197.md (trimmed, same keys). Shared by the
parse tests (tests/wire) and the render tests (tests/display).
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from claude_sync._wire.blocks import (
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolResultBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
)
from claude_sync._wire.messages import (
    AssistantMessage,
    AuthStatusMessage,
    ConversationResetMessage,
    PromptSuggestionMessage,
    RateLimitEvent,
    RateLimitInfo,
    ResultMessage,
    StreamEvent,
    ToolProgressMessage,
    UnknownMessage,
    UserMessage,
)
from claude_sync._wire.system_messages import (
    APIRetryMessage,
    CompactBoundaryMessage,
    HookEventMessage,
    InformationalMessage,
    StatusMessage,
    SystemMessage,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
    ThinkingTokensMessage,
)

SID = "9f0c6f3e-2b1a-4d7e-9a51-3c2f1e0d9b88"

USAGE = {
    "input_tokens": 3,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "output_tokens": 1,
    "service_tier": "standard",
}


def assistant_line(block: Dict[str, Any], msg_id: str = "msg_01", **top: Any) -> Dict[str, Any]:
    """One real-CLI assistant line: a single block, stop_reason null."""
    line: Dict[str, Any] = {
        "type": "assistant",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": dict(USAGE),
            "context_management": None,
        },
        "parent_tool_use_id": None,
        "session_id": SID,
        "uuid": "a-uuid-1",
        "request_id": "req_01",
    }
    line.update(top)
    return line


def user_line(content: Any, **top: Any) -> Dict[str, Any]:
    line: Dict[str, Any] = {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "session_id": SID,
        "uuid": "u-uuid-1",
    }
    line.update(top)
    return line


def system_line(subtype: str, **fields: Any) -> Dict[str, Any]:
    return {"type": "system", "subtype": subtype, **fields, "session_id": SID, "uuid": "s-uuid"}


RESULT_USAGE = {
    "input_tokens": 10,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "output_tokens": 5,
    "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
    "service_tier": "standard",
    "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
    "inference_geo": "",
    "iterations": [],
    "speed": "standard",
}
MODEL_USAGE = {
    "claude-opus-4-8[1m]": {
        "inputTokens": 10,
        "outputTokens": 5,
        "cacheReadInputTokens": 0,
        "cacheCreationInputTokens": 0,
        "webSearchRequests": 0,
        "costUSD": 0.000175,
        "contextWindow": 1000000,
        "maxOutputTokens": 64000,
    }
}

RESULT_SUCCESS = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "api_error_status": None,
    "duration_ms": 812,
    "duration_api_ms": 640,
    "ttft_ms": 210,
    "ttft_stream_ms": 190,
    "time_to_request_ms": 20,
    "num_turns": 1,
    "result": "4",
    "stop_reason": "end_turn",
    "session_id": SID,
    "total_cost_usd": 0.000175,
    "usage": RESULT_USAGE,
    "modelUsage": MODEL_USAGE,
    "permission_denials": [],
    "terminal_reason": "completed",
    "fast_mode_state": "off",
    "uuid": "r-uuid-1",
}

RESULT_API_ERROR = dict(
    RESULT_SUCCESS,
    is_error=True,
    api_error_status=401,
    result="Failed to authenticate. API Error: 401 Fake authentication_error",
    stop_reason="stop_sequence",
    total_cost_usd=0,
    num_turns=1,
)


def error_result(subtype: str, errors: List[str], terminal_reason: str) -> Dict[str, Any]:
    """An error-subtype result: no api_error_status, no result, no ttft fields; has errors."""
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": True,
        "duration_ms": 1500,
        "duration_api_ms": 900,
        "num_turns": 2,
        "stop_reason": "tool_use",
        "session_id": SID,
        "total_cost_usd": 0.01,
        "usage": dict(RESULT_USAGE, input_tokens=0, output_tokens=0),
        "modelUsage": {},
        "permission_denials": [],
        "errors": errors,
        "terminal_reason": terminal_reason,
        "fast_mode_state": "off",
        "uuid": "r-uuid-2",
    }


INIT = system_line(
    "init",
    cwd="/scratch/work",
    tools=["Task", "Bash", "Edit", "Read", "Write", "WebFetch", "WebSearch"],
    mcp_servers=[{"name": "calc", "status": "connected"}],
    model="claude-opus-4-8[1m]",
    permissionMode="default",
    slash_commands=["compact", "cost", "init"],
    apiKeySource="ANTHROPIC_API_KEY",
    claude_code_version="2.1.197",
    output_style="default",
    agents=["general-purpose", "statusline-setup"],
    skills=[],
    plugins=[],
    analytics_disabled=True,
    product_feedback_disabled=True,
    memory_paths={"auto": "/scratch/.claude/memory"},
    fast_mode_state="off",
)

WEB_SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [{"type": "web_search_result", "url": "https://example.com", "title": "Example"}],
}
SET_MODEL_ECHO = "<local-command-stdout>Set model to claude-sonnet-4-5</local-command-stdout>"
IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
}

# (case id, wire dict, expected class, expected attributes)
CASES: List[Tuple[str, Dict[str, Any], type, Dict[str, Any]]] = [
    (
        "assistant_text",
        assistant_line({"type": "text", "text": "4"}),
        AssistantMessage,
        {
            "content": [TextBlock("4")],
            "model": "claude-opus-4-8",
            "message_id": "msg_01",
            "stop_reason": None,
            "usage": USAGE,
            "error": None,
            "parent_tool_use_id": None,
            "session_id": SID,
            "uuid": "a-uuid-1",
        },
    ),
    (
        "assistant_thinking",
        assistant_line(
            {"type": "thinking", "thinking": "2 + 2 is 4.", "signature": "EqQBCkYIBxgCKkA="}
        ),
        AssistantMessage,
        {"content": [ThinkingBlock("2 + 2 is 4.", "EqQBCkYIBxgCKkA=")]},
    ),
    (
        "assistant_redacted_thinking",
        assistant_line({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}),
        AssistantMessage,
        {"content": [RedactedThinkingBlock("EmwKAhgBEgy3va3pzix/LafPsn4a")]},
    ),
    (
        "assistant_tool_use",
        assistant_line(
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "Bash",
                "input": {"command": "touch created_by_bash.txt", "description": "Create a file"},
            }
        ),
        AssistantMessage,
        {
            "content": [
                ToolUseBlock(
                    "toolu_01",
                    "Bash",
                    {"command": "touch created_by_bash.txt", "description": "Create a file"},
                )
            ]
        },
    ),
    (
        "assistant_synthetic_api_error",
        {
            "type": "assistant",
            "message": {
                "id": "5b1e0c52-8f5e-4bde-a2f0-0e5f4a2c1d11",
                "model": "<synthetic>",
                "role": "assistant",
                "stop_reason": "stop_sequence",
                "stop_sequence": "",
                "type": "message",
                "usage": {"input_tokens": 0, "output_tokens": 0},
                "content": [
                    {
                        "type": "text",
                        "text": "Failed to authenticate. API Error: 401 Fake authentication_error",
                    }
                ],
                "context_management": None,
            },
            "parent_tool_use_id": None,
            "session_id": SID,
            "uuid": "a-uuid-err",
            "error": "authentication_failed",
        },
        AssistantMessage,
        {
            "model": "<synthetic>",
            "error": "authentication_failed",
            "stop_reason": "stop_sequence",
            "message_id": "5b1e0c52-8f5e-4bde-a2f0-0e5f4a2c1d11",
        },
    ),
    (
        "assistant_subagent",
        assistant_line(
            {"type": "text", "text": "done"},
            parent_tool_use_id="toolu_agent",
            subagent_type="general-purpose",
            task_description="Count files",
        ),
        AssistantMessage,
        {"parent_tool_use_id": "toolu_agent"},
    ),
    (
        "assistant_server_tools",
        assistant_line(
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01",
                "name": "web_search",
                "input": {"query": "x"},
            }
        ),
        AssistantMessage,
        {"content": [ServerToolUseBlock("srvtoolu_01", "web_search", {"query": "x"})]},
    ),
    (
        "assistant_server_tool_result",
        assistant_line(WEB_SEARCH_RESULT),
        AssistantMessage,
        {
            "content": [
                ServerToolResultBlock(
                    "srvtoolu_01", WEB_SEARCH_RESULT["content"], "web_search_tool_result"
                )
            ]
        },
    ),
    (
        "assistant_unknown_block",
        assistant_line({"type": "container_upload", "file_id": "file_01"}),
        AssistantMessage,
        {
            "content": [
                UnknownBlock("container_upload", {"type": "container_upload", "file_id": "file_01"})
            ]
        },
    ),
    (
        "user_tool_result_bash",
        user_line(
            [
                {
                    "tool_use_id": "toolu_01",
                    "type": "tool_result",
                    "content": "(Bash completed with no output)",
                    "is_error": False,
                }
            ],
            tool_use_result={
                "stdout": "",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": True,
            },
        ),
        UserMessage,
        {
            "content": [ToolResultBlock("toolu_01", "(Bash completed with no output)", False)],
            "tool_use_result": {
                "stdout": "",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": True,
            },
            "uuid": "u-uuid-1",
            "session_id": SID,
            "parent_tool_use_id": None,
            "is_replay": False,
            "is_synthetic": False,
            "origin": None,
        },
    ),
    (
        "user_tool_result_denied",
        user_line(
            [
                {
                    "tool_use_id": "toolu_02",
                    "type": "tool_result",
                    "content": "Not allowed in tests",
                    "is_error": True,
                }
            ],
            tool_use_result="Error: Not allowed in tests",
        ),
        UserMessage,
        {
            "content": [ToolResultBlock("toolu_02", "Not allowed in tests", True)],
            "tool_use_result": "Error: Not allowed in tests",
        },
    ),
    (
        "user_tool_result_mcp",
        user_line(
            [
                {
                    "tool_use_id": "toolu_03",
                    "type": "tool_result",
                    "content": [{"type": "text", "text": "5"}],
                }
            ],
            tool_use_result=[{"type": "text", "text": "5"}],
        ),
        UserMessage,
        {
            "content": [ToolResultBlock("toolu_03", [{"type": "text", "text": "5"}], None)],
            "tool_use_result": [{"type": "text", "text": "5"}],
        },
    ),
    (
        "user_interrupted",
        user_line([{"type": "text", "text": "[Request interrupted by user]"}]),
        UserMessage,
        {"content": [TextBlock("[Request interrupted by user]")]},
    ),
    (
        "user_replay_string_content",
        user_line(SET_MODEL_ECHO, isReplay=True),
        UserMessage,
        {
            "content": SET_MODEL_ECHO,
            "is_replay": True,
            "is_synthetic": False,
        },
    ),
    (
        "user_synthetic_nudge",
        user_line(
            [
                {
                    "type": "text",
                    "text": "[structured-output-enforce] You MUST call the StructuredOutput tool",
                }
            ],
            isSynthetic=True,
        ),
        UserMessage,
        {"is_synthetic": True, "is_replay": False},
    ),
    (
        "user_image",
        user_line([{"type": "text", "text": "what is this?"}, IMAGE]),
        UserMessage,
        {"content": [TextBlock("what is this?"), ImageBlock(IMAGE["source"])]},
    ),
    (
        "result_success",
        RESULT_SUCCESS,
        ResultMessage,
        {
            "subtype": "success",
            "is_error": False,
            "duration_ms": 812,
            "duration_api_ms": 640,
            "num_turns": 1,
            "session_id": SID,
            "result": "4",
            "stop_reason": "end_turn",
            "total_cost_usd": 0.000175,
            "usage": RESULT_USAGE,
            "model_usage": MODEL_USAGE,
            "permission_denials": [],
            "errors": None,
            "api_error_status": None,
            "terminal_reason": "completed",
            "structured_output": None,
            "uuid": "r-uuid-1",
        },
    ),
    (
        "result_structured_output",
        dict(
            RESULT_SUCCESS,
            structured_output={"answer": "forty-two"},
            result='{"answer":"forty-two"}',
        ),
        ResultMessage,
        {"structured_output": {"answer": "forty-two"}, "stop_reason": "end_turn"},
    ),
    (
        "result_api_error",
        RESULT_API_ERROR,
        ResultMessage,
        {
            "subtype": "success",
            "is_error": True,
            "api_error_status": 401,
            "result": "Failed to authenticate. API Error: 401 Fake authentication_error",
            "errors": None,
            "terminal_reason": "completed",
        },
    ),
    (
        "result_error_during_execution",
        error_result(
            "error_during_execution",
            ["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"],
            "aborted_tools",
        ),
        ResultMessage,
        {
            "subtype": "error_during_execution",
            "is_error": True,
            "result": None,
            "api_error_status": None,
            "errors": [
                "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"
            ],
            "terminal_reason": "aborted_tools",
            "model_usage": {},
        },
    ),
    (
        "result_error_max_turns",
        error_result("error_max_turns", ["Reached maximum number of turns (1)"], "max_turns"),
        ResultMessage,
        {
            "subtype": "error_max_turns",
            "is_error": True,
            "errors": ["Reached maximum number of turns (1)"],
            "terminal_reason": "max_turns",
        },
    ),
    (
        "system_init",
        INIT,
        SystemMessage,  # plain, exactly as the official SDK: typed fields via .init (INIT_FIELDS)
        {"subtype": "init", "data": INIT},
    ),
    (
        "system_status_requesting",
        system_line("status", status="requesting"),
        StatusMessage,
        {"status": "requesting", "permission_mode": None, "compact_result": None},
    ),
    (
        "system_status_permission_mode",
        system_line("status", status=None, permissionMode="acceptEdits"),
        StatusMessage,
        {"status": None, "permission_mode": "acceptEdits"},
    ),
    (
        "system_status_compact_failed",
        system_line(
            "status",
            status=None,
            compact_result="failed",
            compact_error="Not enough messages to compact.",
        ),
        StatusMessage,
        {"compact_result": "failed", "compact_error": "Not enough messages to compact."},
    ),
    (
        "system_api_retry",
        system_line(
            "api_retry",
            attempt=1,
            max_retries=2,
            retry_delay_ms=623.7,
            error_status=401,
            error="authentication_failed",
        ),
        APIRetryMessage,
        {
            "attempt": 1,
            "max_retries": 2,
            "retry_delay_ms": 623.7,
            "error_status": 401,
            "error": "authentication_failed",
        },
    ),
    (
        "system_compact_boundary",
        system_line(
            "compact_boundary",
            compact_metadata={"trigger": "manual", "pre_tokens": 1200, "post_tokens": 300},
        ),
        CompactBoundaryMessage,
        {"compact_metadata": {"trigger": "manual", "pre_tokens": 1200, "post_tokens": 300}},
    ),
    (
        "system_task_started",
        system_line(
            "task_started",
            task_id="task_1",
            tool_use_id="toolu_agent",
            description="Count files",
            subagent_type="general-purpose",
            task_type="local_agent",
            prompt="Count the files in cwd",
        ),
        TaskStartedMessage,
        {
            "task_id": "task_1",
            "tool_use_id": "toolu_agent",
            "description": "Count files",
            "subagent_type": "general-purpose",
            "task_type": "local_agent",
            "prompt": "Count the files in cwd",
        },
    ),
    (
        "system_task_progress",
        system_line(
            "task_progress",
            task_id="task_1",
            description="Count files",
            usage={"total_tokens": 400, "tool_uses": 2, "duration_ms": 1800},
            last_tool_name="Bash",
        ),
        TaskProgressMessage,
        {
            "usage": {"total_tokens": 400, "tool_uses": 2, "duration_ms": 1800},
            "last_tool_name": "Bash",
        },
    ),
    (
        "system_task_updated",
        system_line(
            "task_updated",
            task_id="task_1",
            patch={"status": "completed", "end_time": 1780000000000},
        ),
        TaskUpdatedMessage,
        {
            "task_id": "task_1",
            "status": "completed",
            "patch": {"status": "completed", "end_time": 1780000000000},
        },
    ),
    (
        "system_task_updated_without_status",
        system_line("task_updated", task_id="task_1", patch={"end_time": 1}),
        TaskUpdatedMessage,
        {"status": None},
    ),
    (
        "system_task_notification",
        system_line(
            "task_notification",
            task_id="task_1",
            status="completed",
            summary="There are 3 files",
            usage={"total_tokens": 900, "tool_uses": 3, "duration_ms": 4000},
            output_file="/scratch/tasks/task_1.txt",
        ),
        TaskNotificationMessage,
        {
            "status": "completed",
            "summary": "There are 3 files",
            "output_file": "/scratch/tasks/task_1.txt",
        },
    ),
    (
        "system_hook_started",
        system_line(
            "hook_started", hook_id="h1", hook_name="PreToolUse:Bash", hook_event="PreToolUse"
        ),
        HookEventMessage,  # the official class (isinstance of HookStartedMessage too)
        {"hook_event_name": "PreToolUse", "hook_id": "h1", "hook_name": "PreToolUse:Bash"},
    ),
    (
        "system_hook_progress",
        system_line(
            "hook_progress",
            hook_id="h1",
            hook_name="PreToolUse:Bash",
            hook_event="PreToolUse",
            stdout="checking...",
            stderr="",
            output="checking...",
        ),
        SystemMessage,  # as in the official SDK (isinstance of HookProgressMessage too)
        {"subtype": "hook_progress"},
    ),
    (
        "system_hook_response",
        system_line(
            "hook_response",
            hook_id="h1",
            hook_name="PreToolUse:Bash",
            hook_event="PreToolUse",
            output="ok",
            stdout="ok",
            stderr="",
            exit_code=0,
            outcome="success",
        ),
        HookEventMessage,  # the official class (isinstance of HookResponseMessage too)
        {"hook_event_name": "PreToolUse", "exit_code": 0, "outcome": "success", "output": "ok"},
    ),
    (
        "system_informational",
        system_line(
            "informational",
            content="UserPromptSubmit operation blocked by hook:\nno prompts today",
            level="warning",
            prevent_continuation=True,
        ),
        InformationalMessage,
        {
            "content": "UserPromptSubmit operation blocked by hook:\nno prompts today",
            "level": "warning",
            "prevent_continuation": True,
        },
    ),
    (
        "system_thinking_tokens",
        system_line("thinking_tokens", estimated_tokens=1200, estimated_tokens_delta=96),
        ThinkingTokensMessage,
        {"estimated_tokens": 1200, "estimated_tokens_delta": 96},
    ),
    (
        "system_unknown_subtype",
        system_line("files_persisted", files=[], failed=[], processed_at="2026-07-19T04:00:00Z"),
        SystemMessage,
        {"subtype": "files_persisted"},
    ),
    (
        "stream_event_message_start",
        {
            "type": "stream_event",
            "event": {
                "type": "message_start",
                "message": {
                    "id": "msg_01",
                    "model": "claude-opus-4-8",
                    "content": [],
                    "usage": USAGE,
                },
                "ttft_ms": 210,
            },
            "session_id": SID,
            "parent_tool_use_id": None,
            "uuid": "e-uuid-1",
        },
        StreamEvent,
        {"uuid": "e-uuid-1", "session_id": SID, "parent_tool_use_id": None},
    ),
    (
        "stream_event_text_delta",
        {
            "type": "stream_event",
            "event": {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "4"},
            },
            "session_id": SID,
            "parent_tool_use_id": None,
            "uuid": "e-uuid-2",
        },
        StreamEvent,
        {
            "event": {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "4"},
            }
        },
    ),
    (
        "rate_limit_event",
        {
            "type": "rate_limit_event",
            "rate_limit_info": {
                "status": "allowed_warning",
                "resetsAt": 1780003600,
                "rateLimitType": "five_hour",
                "utilization": 0.86,
                "isUsingOverage": False,
            },
            "uuid": "rl-uuid",
            "session_id": SID,
        },
        RateLimitEvent,
        {
            "rate_limit_info": RateLimitInfo(
                status="allowed_warning",
                resets_at=1780003600,
                rate_limit_type="five_hour",
                utilization=0.86,
            ),
            "uuid": "rl-uuid",
            "session_id": SID,
        },
    ),
    (
        "prompt_suggestion",
        {
            "type": "prompt_suggestion",
            "suggestion": "run the tests",
            "uuid": "p-uuid",
            "session_id": SID,
        },
        PromptSuggestionMessage,
        {"suggestion": "run the tests", "uuid": "p-uuid", "session_id": SID},
    ),
    (
        "tool_progress",
        {
            "type": "tool_progress",
            "tool_use_id": "toolu_01",
            "tool_name": "Bash",
            "parent_tool_use_id": None,
            "elapsed_time_seconds": 2.4,
            "uuid": "tp-uuid",
            "session_id": SID,
        },
        ToolProgressMessage,
        {
            "tool_use_id": "toolu_01",
            "tool_name": "Bash",
            "elapsed_time_seconds": 2.4,
            "task_id": None,
        },
    ),
    (
        "auth_status",
        {
            "type": "auth_status",
            "isAuthenticating": True,
            "output": ["Opening browser..."],
            "uuid": "x",
            "session_id": SID,
        },
        AuthStatusMessage,
        {"is_authenticating": True, "output": ["Opening browser..."], "error": None},
    ),
    (
        "unknown_type",
        {"type": "tool_use_summary", "summary": "ran 2 tools", "session_id": SID},
        UnknownMessage,
        {"type": "tool_use_summary"},
    ),
    (
        "conversation_reset",  # CLI 2.1.330 after /clear (uuid == new_conversation_id there)
        {
            "type": "conversation_reset", "new_conversation_id": "conv-2", "uuid": "conv-2",
            "session_id": SID, "trigger": "clear", "timestamp": "2026-01-01T00:00:00Z",
        },
        ConversationResetMessage,
        {"new_conversation_id": "conv-2", "uuid": "conv-2", "session_id": SID, "trigger": "clear"},
    ),
]

INIT_FIELDS: Dict[str, Any] = {
    "subtype": "init",
    "data": INIT,
    "session_id": SID,
    "uuid": "s-uuid",
    "cwd": "/scratch/work",
    "model": "claude-opus-4-8[1m]",
    "tools": INIT["tools"],
    "mcp_servers": [{"name": "calc", "status": "connected"}],
    "permission_mode": "default",
    "api_key_source": "ANTHROPIC_API_KEY",
    "claude_code_version": "2.1.197",
    "slash_commands": ["compact", "cost", "init"],
    "output_style": "default",
    "agents": ["general-purpose", "statusline-setup"],
    "skills": [],
    "plugins": [],
    "fast_mode_state": "off",
}
"""What ``parse_message(INIT).init`` (the typed ``SystemInitMessage`` view) reads."""

CASE_IDS = [case[0] for case in CASES]
