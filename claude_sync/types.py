"""Every public name of the official ``claude_agent_sdk.types``, for ``from claude_sync.types import …``.

The classes are the ones ``claude_sync`` exports (``claude_sync.types.ResultMessage is
claude_sync.ResultMessage``); the TypedDicts and Literals are type hints for what the CLI
sends and accepts. Besides the official names this module has the typed inputs of all 34
hook events the CLI knows (``PreModelSwitchHookInput``, ``DirectoryAddedHookInput`` …, see
``KNOWN_HOOK_EVENTS``), ``SetupHookSpecificOutput`` and ``MirrorErrorMessage``.

Not imported by ``import claude_sync`` (its TypedDicts need ``typing_extensions``); importing
it costs a few milliseconds once. ``ToolAnnotations`` is resolved from ``claude_sync`` on first access (it lives with the MCP tools).
"""

from __future__ import annotations

from typing import Any

from ._callbacks.hook_environment_inputs import (
    ConfigChangeHookInput,
    CwdChangedHookInput,
    DirectoryAddedHookInput,
    ElicitationHookInput,
    ElicitationResultHookInput,
    FileChangedHookInput,
    InstructionsLoadedHookInput,
    MessageDisplayHookInput,
    TaskCompletedHookInput,
    TaskCreatedHookInput,
    TeammateIdleHookInput,
    WorktreeCreateHookInput,
    WorktreeRemoveHookInput,
)
from ._callbacks.hook_input_base import BaseHookInput, HookEffort, HookMcpServer
from ._callbacks.hook_inputs import (
    BackgroundTaskSummary,
    HookInput,
    NotificationHookInput,
    PermissionDeniedHookInput,
    PermissionRequestHookInput,
    PostCompactHookInput,
    PostModelSwitchHookInput,
    PostToolBatchHookInput,
    PostToolBatchToolCall,
    PostToolUseFailureHookInput,
    PostToolUseHookInput,
    PreCompactHookInput,
    PreModelSwitchHookInput,
    PreSkillShellCommandHookInput,
    PreToolUseHookInput,
    SessionCronSummary,
    SessionEndHookInput,
    SessionStartHookInput,
    SetupHookInput,
    SkillShellCommandInput,
    StopFailureHookInput,
    StopHookInput,
    SubagentStartHookInput,
    SubagentStopHookInput,
    UserPromptExpansionHookInput,
    UserPromptSubmitHookInput,
)
from ._callbacks.hook_outputs import (
    AsyncHookJSONOutput,
    CwdChangedHookSpecificOutput,
    ElicitationHookSpecificOutput,
    ElicitationResultHookSpecificOutput,
    FileChangedHookSpecificOutput,
    HookJSONOutput,
    HookSpecificOutput,
    MessageDisplayHookSpecificOutput,
    NotificationHookSpecificOutput,
    PermissionDeniedHookSpecificOutput,
    PermissionRequestHookSpecificOutput,
    PostModelSwitchHookSpecificOutput,
    PostToolBatchHookSpecificOutput,
    PostToolUseFailureHookSpecificOutput,
    PostToolUseHookSpecificOutput,
    PreModelSwitchHookSpecificOutput,
    PreSkillShellCommandHookSpecificOutput,
    PreToolUseHookSpecificOutput,
    SessionStartHookSpecificOutput,
    SetupHookSpecificOutput,
    StopHookSpecificOutput,
    SubagentStartHookSpecificOutput,
    SubagentStopHookSpecificOutput,
    SyncHookJSONOutput,
    UserPromptExpansionHookSpecificOutput,
    UserPromptSubmitHookSpecificOutput,
    WorktreeCreateHookSpecificOutput,
)
from ._callbacks.hook_types import (
    KNOWN_HOOK_EVENTS,
    HookCallback,
    HookContext,
    HookEvent,
    HookMatcher,
)
from ._callbacks.permission_types import (
    CanUseTool,
    CanUseToolShadowedWarning,
    PermissionBehavior,
    PermissionMode,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    PermissionUpdateDestination,
    ToolPermissionContext,
)
from ._options.config_types import (
    ContextUsageCategory,
    ContextUsageResponse,
    McpClaudeAIProxyServerConfig,
    McpSdkServerConfigStatus,
    McpServer,
    McpServerConnectionStatus,
    McpServerInfo,
    McpServerStatus,
    McpServerStatusConfig,
    McpStatusResponse,
    McpToolAnnotations,
    McpToolInfo,
    SandboxIgnoreViolations,
    SandboxNetworkConfig,
    SandboxSettings,
    SdkBeta,
    SdkPluginConfig,
    ThinkingConfig,
    ThinkingConfigAdaptive,
    ThinkingConfigDisabled,
    ThinkingConfigEnabled,
    ThinkingDisplay,
)
from ._options.options import (
    AgentDefinition,
    ClaudeAgentOptions,
    EffortLevel,
    McpHttpServerConfig,
    McpSdkServerConfig,
    McpServerConfig,
    McpSSEServerConfig,
    McpStdioServerConfig,
    SettingSource,
    SystemPromptCustom,
    SystemPromptFile,
    SystemPromptPreset,
    TaskBudget,
    ToolsPreset,
)
from ._sessions.types import (
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
from ._wire.blocks import (
    ContentBlock,
    ServerToolResultBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from ._wire.messages import (
    AssistantMessage,
    ConversationResetMessage,
    DeferredToolUse,
    Message,
    RateLimitEvent,
    RateLimitInfo,
    ResultMessage,
    StreamEvent,
    UserMessage,
)
from ._wire.shapes import (
    TERMINAL_TASK_STATUSES,
    AssistantMessageError,
    ControlErrorResponse,
    ControlResponse,
    FastModeDisabledReason,
    FastModeState,
    MessageOrigin,
    MessageOriginKind,
    ModelUsage,
    RateLimitStatus,
    RateLimitType,
    SDKControlInitializeRequest,
    SDKControlInterruptRequest,
    SDKControlMcpMessageRequest,
    SDKControlMcpReconnectRequest,
    SDKControlMcpToggleRequest,
    SDKControlPermissionRequest,
    SDKControlRequest,
    SDKControlResponse,
    SDKControlRewindFilesRequest,
    SDKControlSetPermissionModeRequest,
    SDKControlStopTaskRequest,
    SDKHookCallbackRequest,
    ServerToolName,
    SystemInitData,
    SystemInitMcpServer,
    SystemInitPlugin,
    SystemInitPluginError,
    TaskNotificationOriginSubkind,
    TaskNotificationStatus,
    TaskUpdatedStatus,
    TaskUsage,
)
from ._wire.system_messages import (
    HookEventMessage,
    MirrorErrorMessage,
    SessionStateChangedMessage,
    SystemMessage,
    TaskNotificationMessage,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
)

__all__ = [
    "AgentDefinition", "AssistantMessage", "AssistantMessageError", "AsyncHookJSONOutput",
    "BackgroundTaskSummary", "BaseHookInput", "CanUseTool", "CanUseToolShadowedWarning",
    "ClaudeAgentOptions", "ConfigChangeHookInput", "ContentBlock", "ContextUsageCategory",
    "ContextUsageResponse", "ControlErrorResponse", "ControlResponse",
    "ConversationResetMessage", "CwdChangedHookInput", "CwdChangedHookSpecificOutput",
    "DeferredToolUse", "DirectoryAddedHookInput", "EffortLevel", "ElicitationHookInput",
    "ElicitationHookSpecificOutput", "ElicitationResultHookInput",
    "ElicitationResultHookSpecificOutput", "FastModeDisabledReason", "FastModeState",
    "FileChangedHookInput", "FileChangedHookSpecificOutput", "ForkSessionResult",
    "HookCallback", "HookContext", "HookEffort", "HookEvent", "HookEventMessage", "HookInput",
    "HookJSONOutput", "HookMatcher", "HookMcpServer", "HookSpecificOutput",
    "InstructionsLoadedHookInput", "KNOWN_HOOK_EVENTS", "McpClaudeAIProxyServerConfig",
    "McpHttpServerConfig", "McpSSEServerConfig", "McpSdkServerConfig",
    "McpSdkServerConfigStatus", "McpServer", "McpServerConfig", "McpServerConnectionStatus",
    "McpServerInfo", "McpServerStatus", "McpServerStatusConfig", "McpStatusResponse",
    "McpStdioServerConfig", "McpToolAnnotations", "McpToolInfo", "Message",
    "MessageDisplayHookInput", "MessageDisplayHookSpecificOutput", "MessageOrigin",
    "MessageOriginKind", "MirrorErrorMessage", "ModelUsage", "NotificationHookInput",
    "NotificationHookSpecificOutput", "PermissionBehavior", "PermissionDeniedHookInput",
    "PermissionDeniedHookSpecificOutput", "PermissionMode", "PermissionRequestHookInput",
    "PermissionRequestHookSpecificOutput", "PermissionResult", "PermissionResultAllow",
    "PermissionResultDeny", "PermissionRuleValue", "PermissionUpdate",
    "PermissionUpdateDestination", "PostCompactHookInput", "PostModelSwitchHookInput",
    "PostModelSwitchHookSpecificOutput", "PostToolBatchHookInput",
    "PostToolBatchHookSpecificOutput", "PostToolBatchToolCall", "PostToolUseFailureHookInput",
    "PostToolUseFailureHookSpecificOutput", "PostToolUseHookInput",
    "PostToolUseHookSpecificOutput", "PreCompactHookInput", "PreModelSwitchHookInput",
    "PreModelSwitchHookSpecificOutput", "PreSkillShellCommandHookInput",
    "PreSkillShellCommandHookSpecificOutput", "PreToolUseHookInput", "PreToolUseHookSpecificOutput",
    "RateLimitEvent", "RateLimitInfo", "RateLimitStatus", "RateLimitType", "ResultMessage",
    "SDKControlInitializeRequest", "SDKControlInterruptRequest", "SDKControlMcpMessageRequest",
    "SDKControlMcpReconnectRequest", "SDKControlMcpToggleRequest",
    "SDKControlPermissionRequest", "SDKControlRequest", "SDKControlResponse",
    "SDKControlRewindFilesRequest", "SDKControlSetPermissionModeRequest",
    "SDKControlStopTaskRequest", "SDKHookCallbackRequest", "SDKSessionInfo",
    "SandboxIgnoreViolations", "SandboxNetworkConfig", "SandboxSettings", "SdkBeta",
    "SdkPluginConfig", "ServerToolName", "ServerToolResultBlock", "ServerToolUseBlock",
    "SessionCronSummary", "SessionEndHookInput", "SessionKey", "SessionListSubkeysKey",
    "SessionMessage", "SessionStartHookInput", "SessionStartHookSpecificOutput",
    "SessionStateChangedMessage", "SessionStore", "SessionStoreEntry", "SessionStoreFlushMode",
    "SessionStoreListEntry", "SessionSummaryEntry", "SettingSource", "SetupHookInput",
    "SetupHookSpecificOutput", "SkillShellCommandInput", "StopFailureHookInput", "StopHookInput",
    "StopHookSpecificOutput", "StreamEvent", "SubagentStartHookInput",
    "SubagentStartHookSpecificOutput", "SubagentStopHookInput",
    "SubagentStopHookSpecificOutput", "SyncHookJSONOutput", "SystemInitData",
    "SystemInitMcpServer", "SystemInitPlugin", "SystemInitPluginError", "SystemMessage",
    "SystemPromptCustom", "SystemPromptFile", "SystemPromptPreset", "TERMINAL_TASK_STATUSES",
    "TaskBudget", "TaskCompletedHookInput", "TaskCreatedHookInput", "TaskNotificationMessage",
    "TaskNotificationOriginSubkind", "TaskNotificationStatus", "TaskProgressMessage",
    "TaskStartedMessage", "TaskUpdatedMessage", "TaskUpdatedStatus", "TaskUsage",
    "TeammateIdleHookInput", "TextBlock", "ThinkingBlock", "ThinkingConfig",
    "ThinkingConfigAdaptive", "ThinkingConfigDisabled", "ThinkingConfigEnabled",
    "ThinkingDisplay", "ToolPermissionContext", "ToolResultBlock", "ToolUseBlock",
    "ToolsPreset", "UserMessage", "UserPromptExpansionHookInput",
    "UserPromptExpansionHookSpecificOutput", "UserPromptSubmitHookInput",
    "UserPromptSubmitHookSpecificOutput", "WorktreeCreateHookInput",
    "WorktreeCreateHookSpecificOutput", "WorktreeRemoveHookInput",
]  # fmt: skip
"""Everything imported above (the names of ``FROM_PACKAGE`` resolve on first access)."""

FROM_PACKAGE = frozenset({"ToolAnnotations"})
"""Official ``types`` names defined with their feature (the MCP tools), resolved on first
access so that importing this module does not load the MCP modules."""


def __getattr__(name: str) -> Any:
    """Resolve ``FROM_PACKAGE`` names from their feature module (PEP 562); others: AttributeError."""
    if name in FROM_PACKAGE:
        from ._mcp import tools

        value = getattr(tools, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'claude_sync.types' has no attribute {name!r}")


__all__ += sorted(FROM_PACKAGE)
