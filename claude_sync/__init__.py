"""claude_sync: a synchronous, thread-based Python client for the Claude Code CLI.

No event loop anywhere: ``query()`` is a plain iterator, ``ClaudeSDKClient`` a plain
context manager, and callbacks are plain functions run on a thread pool. Public names
mirror the official ``claude-agent-sdk`` so code ports by dropping ``async``/``await``.

This module only re-exports; the code lives in the private modules.
"""

from typing import TYPE_CHECKING

from ._client import ClaudeSDKClient, merge_assistant_messages
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
    UsageError,
)
from ._core.messages import (
    APIRetryMessage,
    AssistantMessage,
    AssistantMessageMerger,
    AuthStatusMessage,
    CompactBoundaryMessage,
    ContentBlock,
    HookEventMessage,
    HookProgressMessage,
    HookResponseMessage,
    HookStartedMessage,
    ImageBlock,
    InformationalMessage,
    Message,
    PromptSuggestionMessage,
    RateLimitEvent,
    RateLimitInfo,
    RedactedThinkingBlock,
    ResultMessage,
    ServerToolResultBlock,
    ServerToolUseBlock,
    StatusMessage,
    StreamEvent,
    SystemInitMessage,
    SystemMessage,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
    TextBlock,
    ThinkingBlock,
    ThinkingTokensMessage,
    ToolProgressMessage,
    ToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
    UnknownMessage,
    UserMessage,
    message_from_dict,
)
from ._core.options import (
    KNOWN_HOOK_EVENTS,
    AgentDefinition,
    CancellationSignal,
    CanUseTool,
    ClaudeAgentOptions,
    HookCallback,
    HookContext,
    HookMatcher,
    PermissionMode,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)
from ._core.protocol import OversizedLineSkipped
from ._io.transport import Transport
from ._query import QueryStream, query
from ._version import __version__

if TYPE_CHECKING:  # type checkers see the lazily loaded names as ordinary imports
    from ._agents import AgentPool
    from ._core.mcp import SdkMcpServer, SdkMcpTool, ToolContext, create_sdk_mcp_server, tool
    from ._run import RunResult, run

_LAZY = {
    # In-process MCP servers load on first use: most programs never define a tool.
    "tool": "._core.mcp",
    "create_sdk_mcp_server": "._core.mcp",
    "SdkMcpServer": "._core.mcp",
    "SdkMcpTool": "._core.mcp",
    "ToolContext": "._core.mcp",
    # Many agents: loaded on first use.
    "run": "._run",
    "RunResult": "._run",
    "AgentPool": "._agents",
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
    "Transport",
    # many agents
    "run",
    "RunResult",
    "AgentPool",
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
    "__version__",
]
