"""claude_sync: a synchronous, thread-based Python client for the Claude Code CLI.

No event loop anywhere: ``query()`` is a plain iterator, ``ClaudeSDKClient`` a plain
context manager, and callbacks are plain functions run on a thread pool. Public names
mirror the official ``claude-agent-sdk`` so code ports by dropping ``async``/``await``.

This module only re-exports; the code lives in the private modules.
"""

from typing import TYPE_CHECKING

from ._client import ClaudeSDKClient, merge_assistant_messages
from ._core.blocks import (
    ContentBlock,
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
from ._core.errors import (
    ClaudeSDKError,
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    ControlRequestError,
    ControlTimeoutError,
    MessageParseError,
    ProcessError,
    ReceiveTimeoutError,
    ResultError,
    SessionStoreError,
    UsageError,
)
from ._core.hook_types import KNOWN_HOOK_EVENTS, HookCallback, HookContext, HookMatcher
from ._core.merger import AssistantMessageMerger
from ._core.messages import (
    AssistantMessage,
    AuthStatusMessage,
    Message,
    PromptSuggestionMessage,
    RateLimitEvent,
    RateLimitInfo,
    ResultMessage,
    StreamEvent,
    ToolProgressMessage,
    UnknownMessage,
    UserMessage,
    message_from_dict,
)
from ._core.options import AgentDefinition, ClaudeAgentOptions
from ._core.permission_types import (
    CancellationSignal,
    CanUseTool,
    PermissionMode,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)
from ._core.protocol import OversizedLineSkipped
from ._core.system_messages import (
    APIRetryMessage,
    CompactBoundaryMessage,
    HookEventMessage,
    HookProgressMessage,
    HookResponseMessage,
    HookStartedMessage,
    InformationalMessage,
    StatusMessage,
    SystemInitMessage,
    SystemMessage,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
    ThinkingTokensMessage,
)
from ._io.transport import Transport
from ._query import QueryStream, query
from ._version import __version__

if TYPE_CHECKING:  # type checkers see the lazily loaded names as ordinary imports
    from ._core.mcp import SdkMcpServer, create_sdk_mcp_server
    from ._core.mcp_tools import SdkMcpTool, ToolContext, tool
    from ._core.session_summary import fold_session_summary
    from ._core.session_types import (
        ForkSessionResult,
        SDKSessionInfo,
        SessionKey,
        SessionListSubkeysKey,
        SessionMessage,
        SessionStore,
        SessionStoreEntry,
        SessionStoreFlushMode,
        SessionStoreListEntry,
        SessionSummaryEntry,
    )
    from ._display import show
    from ._io.memory_store import InMemorySessionStore
    from ._io.sqlite_store import SQLiteSessionStore
    from ._io.store_functions import (
        delete_session_via_store,
        fork_session_via_store,
        get_session_info_from_store,
        get_session_messages_from_store,
        get_subagent_messages_from_store,
        import_session_to_store,
        list_sessions_from_store,
        list_subagents_from_store,
        project_key_for_directory,
        rename_session_via_store,
        tag_session_via_store,
    )
    from ._io.transcript_edits import delete_session, fork_session, rename_session, tag_session
    from ._io.transcripts import (
        get_session_info,
        get_session_messages,
        get_subagent_messages,
        list_sessions,
        list_subagents,
    )

_LAZY = {
    # In-process MCP servers load on first use: most programs never define a tool.
    "tool": "._core.mcp_tools",
    "create_sdk_mcp_server": "._core.mcp",
    "SdkMcpServer": "._core.mcp",
    "SdkMcpTool": "._core.mcp_tools",
    "ToolContext": "._core.mcp_tools",
    "show": "._display",  # the live display loads on first use
    # Sessions and session stores load on first use too.
    **dict.fromkeys(
        ("SDKSessionInfo", "SessionMessage", "ForkSessionResult", "SessionKey", "SessionListSubkeysKey",
         "SessionStore", "SessionStoreEntry", "SessionStoreFlushMode", "SessionStoreListEntry",
         "SessionSummaryEntry"),
        "._core.session_types",
    ),
    "fold_session_summary": "._core.session_summary",
    "InMemorySessionStore": "._io.memory_store",
    "SQLiteSessionStore": "._io.sqlite_store",
    **dict.fromkeys(
        ("list_sessions", "get_session_info", "get_session_messages", "list_subagents", "get_subagent_messages"),
        "._io.transcripts",
    ),
    **dict.fromkeys(("rename_session", "tag_session", "delete_session", "fork_session"), "._io.transcript_edits"),
    **dict.fromkeys(
        ("project_key_for_directory", "import_session_to_store", "list_sessions_from_store",
         "get_session_info_from_store", "get_session_messages_from_store", "list_subagents_from_store",
         "get_subagent_messages_from_store", "rename_session_via_store", "tag_session_via_store",
         "delete_session_via_store", "fork_session_via_store"),
        "._io.store_functions",
    ),
}


def __getattr__(name: str) -> object:
    """Resolve the lazily loaded public names (PEP 562); anything else is an AttributeError."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'claude_sync' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value

__all__ = [
    # entry points
    "query",
    "QueryStream",
    "ClaudeSDKClient",
    "ClaudeAgentOptions",
    "AgentDefinition",
    "merge_assistant_messages",
    "show",
    "Transport",
    # callbacks
    "CanUseTool",
    "CancellationSignal",
    "HookCallback",
    "HookContext",
    "HookMatcher",
    "KNOWN_HOOK_EVENTS",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "ToolPermissionContext",
    # in-process MCP tools
    "tool",
    "create_sdk_mcp_server",
    "SdkMcpServer",
    "SdkMcpTool",
    "ToolContext",
    # messages
    "Message",
    "UserMessage",
    "AssistantMessage",
    "AssistantMessageMerger",
    "SystemMessage",
    "SystemInitMessage",
    "StatusMessage",
    "APIRetryMessage",
    "CompactBoundaryMessage",
    "TaskStartedMessage",
    "TaskProgressMessage",
    "TaskUpdatedMessage",
    "TaskNotificationMessage",
    "HookEventMessage",
    "HookStartedMessage",
    "HookProgressMessage",
    "HookResponseMessage",
    "InformationalMessage",
    "ThinkingTokensMessage",
    "ResultMessage",
    "StreamEvent",
    "RateLimitEvent",
    "RateLimitInfo",
    "PromptSuggestionMessage",
    "ToolProgressMessage",
    "AuthStatusMessage",
    "UnknownMessage",
    "OversizedLineSkipped",
    "message_from_dict",
    # content blocks
    "ContentBlock",
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ServerToolUseBlock",
    "ServerToolResultBlock",
    "ImageBlock",
    "UnknownBlock",
    # errors
    "ClaudeSDKError",
    "CLIConnectionError",
    "CLINotFoundError",
    "ProcessError",
    "ResultError",
    "CLIJSONDecodeError",
    "MessageParseError",
    "ControlRequestError",
    "ControlTimeoutError",
    "ReceiveTimeoutError",
    "UsageError",
    "SessionStoreError",
    # sessions (transcript files) and session stores
    "list_sessions",
    "get_session_info",
    "get_session_messages",
    "list_subagents",
    "get_subagent_messages",
    "rename_session",
    "tag_session",
    "delete_session",
    "fork_session",
    "SDKSessionInfo",
    "SessionMessage",
    "ForkSessionResult",
    "SessionKey",
    "SessionListSubkeysKey",
    "SessionStore",
    "SessionStoreEntry",
    "SessionStoreFlushMode",
    "SessionStoreListEntry",
    "SessionSummaryEntry",
    "InMemorySessionStore",
    "SQLiteSessionStore",
    "fold_session_summary",
    "project_key_for_directory",
    "import_session_to_store",
    "list_sessions_from_store",
    "get_session_info_from_store",
    "get_session_messages_from_store",
    "list_subagents_from_store",
    "get_subagent_messages_from_store",
    "rename_session_via_store",
    "tag_session_via_store",
    "delete_session_via_store",
    "fork_session_via_store",
    "__version__",
]
