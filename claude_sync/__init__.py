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
    from ._display import show

_LAZY = {
    # In-process MCP servers load on first use: most programs never define a tool.
    "tool": "._core.mcp_tools",
    "create_sdk_mcp_server": "._core.mcp",
    "SdkMcpServer": "._core.mcp",
    "SdkMcpTool": "._core.mcp_tools",
    "ToolContext": "._core.mcp_tools",
    "show": "._display",  # the live display loads on first use
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
    "__version__",
]
