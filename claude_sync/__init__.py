"""claude_sync: a synchronous, thread-based Python client for the Claude Code CLI.

No event loop anywhere: ``query()`` is a plain iterator, ``ClaudeSDKClient`` a plain
context manager, and callbacks are plain functions run on a thread pool. Public names
mirror the official ``claude-agent-sdk`` so code ports by dropping ``async``/``await``.

This module only re-exports; the code lives in the feature folders. ``_NAMES`` is the one
table of public names (module → names): ``__all__``, the names bound at import (the modules
in ``_AT_IMPORT``), the lazy loader (``__getattr__``, PEP 562) and the ``TYPE_CHECKING``
imports that type checkers read all come from it. The ``TYPE_CHECKING`` block is generated:
after changing the table run ``python tests/package/test_name_table.py --write`` (a test
fails while they differ). Adding a public name is one line in the table.
"""

from typing import TYPE_CHECKING, Dict, Tuple

from ._version import __version__ as __version__
from importlib import import_module

_NAMES: Dict[str, Tuple[str, ...]] = {
    # loaded by ``import claude_sync``: the everyday surface
    ".query": ("query", "QueryStream"),
    ".client": ("ClaudeSDKClient", "merge_assistant_messages"),
    "._options.options": (
        "ClaudeAgentOptions", "AgentDefinition", "EffortLevel", "McpSdkServerConfig",
        "McpServerConfig", "SettingSource", "SpawnCommand", "TaskBudget",
    ),
    "._engine.transport": ("Transport",),
    "._callbacks.permission_types": (
        "CanUseTool", "CancellationSignal", "PermissionMode", "PermissionResult",
        "PermissionResultAllow", "PermissionResultDeny", "PermissionRuleValue", "PermissionUpdate",
        "ToolPermissionContext", "CanUseToolShadowedWarning",
    ),
    "._callbacks.hook_types": ("HookCallback", "HookContext", "HookMatcher", "KNOWN_HOOK_EVENTS"),
    "._wire.messages": (
        "Message", "UserMessage", "AssistantMessage", "ResultMessage", "StreamEvent",
        "RateLimitEvent", "RateLimitInfo", "PromptSuggestionMessage", "ToolProgressMessage",
        "AuthStatusMessage", "UnknownMessage", "message_from_dict", "ConversationResetMessage",
        "DeferredToolUse",
    ),
    "._wire.system_messages": (
        "SystemMessage", "SystemInitMessage", "StatusMessage", "APIRetryMessage",
        "CompactBoundaryMessage", "TaskStartedMessage", "TaskProgressMessage", "TaskUpdatedMessage",
        "TaskNotificationMessage", "HookEventMessage", "HookStartedMessage", "HookProgressMessage",
        "HookResponseMessage", "InformationalMessage", "ThinkingTokensMessage",
        "MirrorErrorMessage", "OversizedLineSkipped", "CommandsChangedMessage",
    ),
    "._wire.blocks": (
        "ContentBlock", "TextBlock", "ThinkingBlock", "RedactedThinkingBlock", "ToolUseBlock",
        "ToolResultBlock", "ServerToolUseBlock", "ServerToolResultBlock", "ImageBlock",
        "UnknownBlock",
    ),
    "._wire.merge": ("AssistantMessageMerger",),
    "._wire.protocol": ("StreamItem",),
    "._wire.errors": (
        "ClaudeSDKError", "CLIConnectionError", "CLINotFoundError", "ProcessError", "ResultError",
        "CLIJSONDecodeError", "MessageParseError", "ControlRequestError", "ControlTimeoutError",
        "ReceiveTimeoutError", "UsageError", "SessionStoreError", "StructuredOutputError",
    ),
    # loaded on first use (PEP 562): the live view, many agents, typed output, MCP tools, host dialogs,
    # typed control answers, type-hint-only TypedDicts and Literals, sessions and stores
    "._show": ("show",),
    "._options.code_options": ("ClaudeCodeOptions",),
    "._agents.run": ("run",),
    "._result": ("RunResult",),
    "._wire.agent_usage": ("AgentUsage",),
    "._agents.pool": ("AgentPool",),
    "._approvals.flow": ("run_with_approvals", "resume_approval", "pending_approval"),
    "._approvals.records": (
        "PendingApproval", "ApprovalDecision", "ApprovalError", "ApprovalRecordError",
        "ApprovalStaleError", "ApprovalClaimedError", "ApprovalNotAppliedError", "ApprovalPendingError",
        "ApprovalDroppedError",
    ),
    "._approvals.policy": ("ApprovalPolicy",),
    "._approvals.gate": ("ApprovalGate",),
    "._structured.class_schema": ("json_schema_of",),
    "._structured.outcome": ("parse_output",),
    "._wire.wire_parse": ("parse_message",),
    "._mcp.tools": ("tool", "SdkMcpTool", "ToolContext", "ToolAnnotations"),
    "._mcp.server": ("create_sdk_mcp_server", "SdkMcpServer"),
    "._callbacks.dialogs": (
        "ElicitationRequest", "ElicitationResult", "UserDialogRequest", "UserDialogResult",
        "OnElicitation", "OnUserDialog",
    ),
    "._wire.control_results": (
        "McpSetServersResult", "ReadFileResult", "ReloadPluginsResult", "UsageResult",
        "AccountInfo", "SlashCommand", "ModelInfo", "AgentInfo", "McpResourceContent",
    ),
    "._wire.settings_result": ("ResolvedSettings", "ResolvedSettingsSource"),
    "._wire.process_exit": ("ProcessExit",),
    "._shared_pool.errors": ("SharedPoolError",),
    "._resolve_settings": ("resolve_settings",),
    "._options.config_types": (
        "ContextUsageCategory", "ContextUsageResponse", "McpServerConnectionStatus",
        "McpServerInfo", "McpServerStatus", "McpServerStatusConfig", "McpStatusResponse",
        "McpToolAnnotations", "McpToolInfo", "SandboxIgnoreViolations", "SandboxNetworkConfig",
        "SandboxSettings", "SdkBeta", "SdkPluginConfig", "ThinkingConfig", "ThinkingConfigAdaptive",
        "ThinkingConfigDisabled", "ThinkingConfigEnabled",
    ),
    "._callbacks.hook_input_base": ("BaseHookInput", "HookEffort"),
    "._callbacks.hook_inputs": (
        "BackgroundTaskSummary", "HookInput",
        "NotificationHookInput", "PermissionRequestHookInput", "PostToolUseFailureHookInput",
        "PostToolUseHookInput", "PreCompactHookInput", "PreToolUseHookInput", "SessionCronSummary",
        "StopHookInput", "SubagentStartHookInput", "SubagentStopHookInput",
        "UserPromptSubmitHookInput",
    ),
    "._callbacks.hook_outputs": (
        "CwdChangedHookSpecificOutput", "ElicitationHookSpecificOutput",
        "ElicitationResultHookSpecificOutput", "FileChangedHookSpecificOutput", "HookJSONOutput",
        "MessageDisplayHookSpecificOutput", "NotificationHookSpecificOutput",
        "PermissionDeniedHookSpecificOutput", "PermissionRequestHookSpecificOutput",
        "PostModelSwitchHookSpecificOutput", "PostToolBatchHookSpecificOutput",
        "PostToolUseFailureHookSpecificOutput", "PostToolUseHookSpecificOutput",
        "PreModelSwitchHookSpecificOutput", "PreSkillShellCommandHookSpecificOutput",
        "PreToolUseHookSpecificOutput", "SessionStartHookSpecificOutput", "SetupHookSpecificOutput", "StopHookSpecificOutput",
        "SubagentStartHookSpecificOutput", "SubagentStopHookSpecificOutput",
        "UserPromptExpansionHookSpecificOutput", "UserPromptSubmitHookSpecificOutput",
        "WorktreeCreateHookSpecificOutput",
    ),
    "._wire.shapes": (
        "FastModeDisabledReason", "FastModeState", "MessageOrigin", "MessageOriginKind",
        "ModelUsage", "RateLimitStatus", "RateLimitType", "ServerToolName", "SystemInitData",
        "SystemInitMcpServer", "SystemInitPlugin", "SystemInitPluginError",
        "TERMINAL_TASK_STATUSES", "TaskNotificationOriginSubkind", "TaskNotificationStatus",
        "TaskUpdatedStatus", "TaskUsage",
    ),
    "._sessions.types": (
        "SDKSessionInfo", "SessionMessage", "ForkSessionResult", "SessionKey",
        "SessionListSubkeysKey", "SessionStore", "SessionStoreEntry", "SessionStoreFlushMode",
        "SessionStoreListEntry", "SessionSummaryEntry",
    ),
    "._sessions.summary": ("fold_session_summary",),
    "._sessions.stores.memory": ("InMemorySessionStore",),
    "._sessions.stores.sqlite": ("SQLiteSessionStore",),
    "._sessions.stores.postgres": ("PostgresSessionStore",),
    "._sessions.transcript_files": (
        "list_sessions", "get_session_info", "get_session_messages", "list_subagents",
        "get_subagent_messages",
    ),
    "._sessions.transcript_edits": (
        "rename_session", "tag_session", "delete_session", "fork_session",
    ),
    "._sessions.archive_files": ("archive_session", "unarchive_session"),
    "._sessions.store_functions": (
        "project_key_for_directory", "import_session_to_store", "list_sessions_from_store",
        "get_session_info_from_store", "get_session_messages_from_store",
        "list_subagents_from_store", "get_subagent_messages_from_store", "rename_session_via_store",
        "tag_session_via_store", "delete_session_via_store", "fork_session_via_store",
    ),
}

_AT_IMPORT = (
    ".query",
    ".client",
    "._options.options",
    "._engine.transport",
    "._callbacks.permission_types",
    "._callbacks.hook_types",
    "._wire.messages",
    "._wire.system_messages",
    "._wire.blocks",
    "._wire.merge",
    "._wire.protocol",
    "._wire.errors",
)
"""Modules ``import claude_sync`` loads; every other module of the table loads on first use."""

if TYPE_CHECKING:  # generated from _NAMES (python tests/package/test_name_table.py --write)
    from ._agents.pool import AgentPool as AgentPool
    from ._agents.run import run as run
    from ._approvals.flow import pending_approval as pending_approval
    from ._approvals.flow import resume_approval as resume_approval
    from ._approvals.flow import run_with_approvals as run_with_approvals
    from ._approvals.gate import ApprovalGate as ApprovalGate
    from ._approvals.policy import ApprovalPolicy as ApprovalPolicy
    from ._approvals.records import ApprovalClaimedError as ApprovalClaimedError
    from ._approvals.records import ApprovalDecision as ApprovalDecision
    from ._approvals.records import ApprovalDroppedError as ApprovalDroppedError
    from ._approvals.records import ApprovalError as ApprovalError
    from ._approvals.records import ApprovalNotAppliedError as ApprovalNotAppliedError
    from ._approvals.records import ApprovalPendingError as ApprovalPendingError
    from ._approvals.records import ApprovalRecordError as ApprovalRecordError
    from ._approvals.records import ApprovalStaleError as ApprovalStaleError
    from ._approvals.records import PendingApproval as PendingApproval
    from ._callbacks.dialogs import ElicitationRequest as ElicitationRequest
    from ._callbacks.dialogs import ElicitationResult as ElicitationResult
    from ._callbacks.dialogs import OnElicitation as OnElicitation
    from ._callbacks.dialogs import OnUserDialog as OnUserDialog
    from ._callbacks.dialogs import UserDialogRequest as UserDialogRequest
    from ._callbacks.dialogs import UserDialogResult as UserDialogResult
    from ._callbacks.hook_input_base import BaseHookInput as BaseHookInput
    from ._callbacks.hook_input_base import HookEffort as HookEffort
    from ._callbacks.hook_inputs import BackgroundTaskSummary as BackgroundTaskSummary
    from ._callbacks.hook_inputs import HookInput as HookInput
    from ._callbacks.hook_inputs import NotificationHookInput as NotificationHookInput
    from ._callbacks.hook_inputs import PermissionRequestHookInput as PermissionRequestHookInput
    from ._callbacks.hook_inputs import PostToolUseFailureHookInput as PostToolUseFailureHookInput
    from ._callbacks.hook_inputs import PostToolUseHookInput as PostToolUseHookInput
    from ._callbacks.hook_inputs import PreCompactHookInput as PreCompactHookInput
    from ._callbacks.hook_inputs import PreToolUseHookInput as PreToolUseHookInput
    from ._callbacks.hook_inputs import SessionCronSummary as SessionCronSummary
    from ._callbacks.hook_inputs import StopHookInput as StopHookInput
    from ._callbacks.hook_inputs import SubagentStartHookInput as SubagentStartHookInput
    from ._callbacks.hook_inputs import SubagentStopHookInput as SubagentStopHookInput
    from ._callbacks.hook_inputs import UserPromptSubmitHookInput as UserPromptSubmitHookInput
    from ._callbacks.hook_outputs import CwdChangedHookSpecificOutput as CwdChangedHookSpecificOutput
    from ._callbacks.hook_outputs import ElicitationHookSpecificOutput as ElicitationHookSpecificOutput
    from ._callbacks.hook_outputs import ElicitationResultHookSpecificOutput as ElicitationResultHookSpecificOutput
    from ._callbacks.hook_outputs import FileChangedHookSpecificOutput as FileChangedHookSpecificOutput
    from ._callbacks.hook_outputs import HookJSONOutput as HookJSONOutput
    from ._callbacks.hook_outputs import MessageDisplayHookSpecificOutput as MessageDisplayHookSpecificOutput
    from ._callbacks.hook_outputs import NotificationHookSpecificOutput as NotificationHookSpecificOutput
    from ._callbacks.hook_outputs import PermissionDeniedHookSpecificOutput as PermissionDeniedHookSpecificOutput
    from ._callbacks.hook_outputs import PermissionRequestHookSpecificOutput as PermissionRequestHookSpecificOutput
    from ._callbacks.hook_outputs import PostModelSwitchHookSpecificOutput as PostModelSwitchHookSpecificOutput
    from ._callbacks.hook_outputs import PostToolBatchHookSpecificOutput as PostToolBatchHookSpecificOutput
    from ._callbacks.hook_outputs import PostToolUseFailureHookSpecificOutput as PostToolUseFailureHookSpecificOutput
    from ._callbacks.hook_outputs import PostToolUseHookSpecificOutput as PostToolUseHookSpecificOutput
    from ._callbacks.hook_outputs import PreModelSwitchHookSpecificOutput as PreModelSwitchHookSpecificOutput
    from ._callbacks.hook_outputs import PreSkillShellCommandHookSpecificOutput as PreSkillShellCommandHookSpecificOutput
    from ._callbacks.hook_outputs import PreToolUseHookSpecificOutput as PreToolUseHookSpecificOutput
    from ._callbacks.hook_outputs import SessionStartHookSpecificOutput as SessionStartHookSpecificOutput
    from ._callbacks.hook_outputs import SetupHookSpecificOutput as SetupHookSpecificOutput
    from ._callbacks.hook_outputs import StopHookSpecificOutput as StopHookSpecificOutput
    from ._callbacks.hook_outputs import SubagentStartHookSpecificOutput as SubagentStartHookSpecificOutput
    from ._callbacks.hook_outputs import SubagentStopHookSpecificOutput as SubagentStopHookSpecificOutput
    from ._callbacks.hook_outputs import UserPromptExpansionHookSpecificOutput as UserPromptExpansionHookSpecificOutput
    from ._callbacks.hook_outputs import UserPromptSubmitHookSpecificOutput as UserPromptSubmitHookSpecificOutput
    from ._callbacks.hook_outputs import WorktreeCreateHookSpecificOutput as WorktreeCreateHookSpecificOutput
    from ._callbacks.hook_types import HookCallback as HookCallback
    from ._callbacks.hook_types import HookContext as HookContext
    from ._callbacks.hook_types import HookMatcher as HookMatcher
    from ._callbacks.hook_types import KNOWN_HOOK_EVENTS as KNOWN_HOOK_EVENTS
    from ._callbacks.permission_types import CanUseTool as CanUseTool
    from ._callbacks.permission_types import CanUseToolShadowedWarning as CanUseToolShadowedWarning
    from ._callbacks.permission_types import CancellationSignal as CancellationSignal
    from ._callbacks.permission_types import PermissionMode as PermissionMode
    from ._callbacks.permission_types import PermissionResult as PermissionResult
    from ._callbacks.permission_types import PermissionResultAllow as PermissionResultAllow
    from ._callbacks.permission_types import PermissionResultDeny as PermissionResultDeny
    from ._callbacks.permission_types import PermissionRuleValue as PermissionRuleValue
    from ._callbacks.permission_types import PermissionUpdate as PermissionUpdate
    from ._callbacks.permission_types import ToolPermissionContext as ToolPermissionContext
    from ._engine.transport import Transport as Transport
    from ._mcp.server import SdkMcpServer as SdkMcpServer
    from ._mcp.server import create_sdk_mcp_server as create_sdk_mcp_server
    from ._mcp.tools import SdkMcpTool as SdkMcpTool
    from ._mcp.tools import ToolAnnotations as ToolAnnotations
    from ._mcp.tools import ToolContext as ToolContext
    from ._mcp.tools import tool as tool
    from ._options.code_options import ClaudeCodeOptions as ClaudeCodeOptions
    from ._options.config_types import ContextUsageCategory as ContextUsageCategory
    from ._options.config_types import ContextUsageResponse as ContextUsageResponse
    from ._options.config_types import McpServerConnectionStatus as McpServerConnectionStatus
    from ._options.config_types import McpServerInfo as McpServerInfo
    from ._options.config_types import McpServerStatus as McpServerStatus
    from ._options.config_types import McpServerStatusConfig as McpServerStatusConfig
    from ._options.config_types import McpStatusResponse as McpStatusResponse
    from ._options.config_types import McpToolAnnotations as McpToolAnnotations
    from ._options.config_types import McpToolInfo as McpToolInfo
    from ._options.config_types import SandboxIgnoreViolations as SandboxIgnoreViolations
    from ._options.config_types import SandboxNetworkConfig as SandboxNetworkConfig
    from ._options.config_types import SandboxSettings as SandboxSettings
    from ._options.config_types import SdkBeta as SdkBeta
    from ._options.config_types import SdkPluginConfig as SdkPluginConfig
    from ._options.config_types import ThinkingConfig as ThinkingConfig
    from ._options.config_types import ThinkingConfigAdaptive as ThinkingConfigAdaptive
    from ._options.config_types import ThinkingConfigDisabled as ThinkingConfigDisabled
    from ._options.config_types import ThinkingConfigEnabled as ThinkingConfigEnabled
    from ._options.options import AgentDefinition as AgentDefinition
    from ._options.options import ClaudeAgentOptions as ClaudeAgentOptions
    from ._options.options import EffortLevel as EffortLevel
    from ._options.options import McpSdkServerConfig as McpSdkServerConfig
    from ._options.options import McpServerConfig as McpServerConfig
    from ._options.options import SettingSource as SettingSource
    from ._options.options import SpawnCommand as SpawnCommand
    from ._options.options import TaskBudget as TaskBudget
    from ._resolve_settings import resolve_settings as resolve_settings
    from ._result import RunResult as RunResult
    from ._sessions.archive_files import archive_session as archive_session
    from ._sessions.archive_files import unarchive_session as unarchive_session
    from ._sessions.store_functions import delete_session_via_store as delete_session_via_store
    from ._sessions.store_functions import fork_session_via_store as fork_session_via_store
    from ._sessions.store_functions import get_session_info_from_store as get_session_info_from_store
    from ._sessions.store_functions import get_session_messages_from_store as get_session_messages_from_store
    from ._sessions.store_functions import get_subagent_messages_from_store as get_subagent_messages_from_store
    from ._sessions.store_functions import import_session_to_store as import_session_to_store
    from ._sessions.store_functions import list_sessions_from_store as list_sessions_from_store
    from ._sessions.store_functions import list_subagents_from_store as list_subagents_from_store
    from ._sessions.store_functions import project_key_for_directory as project_key_for_directory
    from ._sessions.store_functions import rename_session_via_store as rename_session_via_store
    from ._sessions.store_functions import tag_session_via_store as tag_session_via_store
    from ._sessions.stores.memory import InMemorySessionStore as InMemorySessionStore
    from ._sessions.stores.postgres import PostgresSessionStore as PostgresSessionStore
    from ._sessions.stores.sqlite import SQLiteSessionStore as SQLiteSessionStore
    from ._sessions.summary import fold_session_summary as fold_session_summary
    from ._sessions.transcript_edits import delete_session as delete_session
    from ._sessions.transcript_edits import fork_session as fork_session
    from ._sessions.transcript_edits import rename_session as rename_session
    from ._sessions.transcript_edits import tag_session as tag_session
    from ._sessions.transcript_files import get_session_info as get_session_info
    from ._sessions.transcript_files import get_session_messages as get_session_messages
    from ._sessions.transcript_files import get_subagent_messages as get_subagent_messages
    from ._sessions.transcript_files import list_sessions as list_sessions
    from ._sessions.transcript_files import list_subagents as list_subagents
    from ._sessions.types import ForkSessionResult as ForkSessionResult
    from ._sessions.types import SDKSessionInfo as SDKSessionInfo
    from ._sessions.types import SessionKey as SessionKey
    from ._sessions.types import SessionListSubkeysKey as SessionListSubkeysKey
    from ._sessions.types import SessionMessage as SessionMessage
    from ._sessions.types import SessionStore as SessionStore
    from ._sessions.types import SessionStoreEntry as SessionStoreEntry
    from ._sessions.types import SessionStoreFlushMode as SessionStoreFlushMode
    from ._sessions.types import SessionStoreListEntry as SessionStoreListEntry
    from ._sessions.types import SessionSummaryEntry as SessionSummaryEntry
    from ._shared_pool.errors import SharedPoolError as SharedPoolError
    from ._show import show as show
    from ._structured.class_schema import json_schema_of as json_schema_of
    from ._structured.outcome import parse_output as parse_output
    from ._wire.agent_usage import AgentUsage as AgentUsage
    from ._wire.blocks import ContentBlock as ContentBlock
    from ._wire.blocks import ImageBlock as ImageBlock
    from ._wire.blocks import RedactedThinkingBlock as RedactedThinkingBlock
    from ._wire.blocks import ServerToolResultBlock as ServerToolResultBlock
    from ._wire.blocks import ServerToolUseBlock as ServerToolUseBlock
    from ._wire.blocks import TextBlock as TextBlock
    from ._wire.blocks import ThinkingBlock as ThinkingBlock
    from ._wire.blocks import ToolResultBlock as ToolResultBlock
    from ._wire.blocks import ToolUseBlock as ToolUseBlock
    from ._wire.blocks import UnknownBlock as UnknownBlock
    from ._wire.control_results import AccountInfo as AccountInfo
    from ._wire.control_results import AgentInfo as AgentInfo
    from ._wire.control_results import McpResourceContent as McpResourceContent
    from ._wire.control_results import McpSetServersResult as McpSetServersResult
    from ._wire.control_results import ModelInfo as ModelInfo
    from ._wire.control_results import ReadFileResult as ReadFileResult
    from ._wire.control_results import ReloadPluginsResult as ReloadPluginsResult
    from ._wire.control_results import SlashCommand as SlashCommand
    from ._wire.control_results import UsageResult as UsageResult
    from ._wire.errors import CLIConnectionError as CLIConnectionError
    from ._wire.errors import CLIJSONDecodeError as CLIJSONDecodeError
    from ._wire.errors import CLINotFoundError as CLINotFoundError
    from ._wire.errors import ClaudeSDKError as ClaudeSDKError
    from ._wire.errors import ControlRequestError as ControlRequestError
    from ._wire.errors import ControlTimeoutError as ControlTimeoutError
    from ._wire.errors import MessageParseError as MessageParseError
    from ._wire.errors import ProcessError as ProcessError
    from ._wire.errors import ReceiveTimeoutError as ReceiveTimeoutError
    from ._wire.errors import ResultError as ResultError
    from ._wire.errors import SessionStoreError as SessionStoreError
    from ._wire.errors import StructuredOutputError as StructuredOutputError
    from ._wire.errors import UsageError as UsageError
    from ._wire.merge import AssistantMessageMerger as AssistantMessageMerger
    from ._wire.messages import AssistantMessage as AssistantMessage
    from ._wire.messages import AuthStatusMessage as AuthStatusMessage
    from ._wire.messages import ConversationResetMessage as ConversationResetMessage
    from ._wire.messages import DeferredToolUse as DeferredToolUse
    from ._wire.messages import Message as Message
    from ._wire.messages import PromptSuggestionMessage as PromptSuggestionMessage
    from ._wire.messages import RateLimitEvent as RateLimitEvent
    from ._wire.messages import RateLimitInfo as RateLimitInfo
    from ._wire.messages import ResultMessage as ResultMessage
    from ._wire.messages import StreamEvent as StreamEvent
    from ._wire.messages import ToolProgressMessage as ToolProgressMessage
    from ._wire.messages import UnknownMessage as UnknownMessage
    from ._wire.messages import UserMessage as UserMessage
    from ._wire.messages import message_from_dict as message_from_dict
    from ._wire.process_exit import ProcessExit as ProcessExit
    from ._wire.protocol import StreamItem as StreamItem
    from ._wire.settings_result import ResolvedSettings as ResolvedSettings
    from ._wire.settings_result import ResolvedSettingsSource as ResolvedSettingsSource
    from ._wire.shapes import FastModeDisabledReason as FastModeDisabledReason
    from ._wire.shapes import FastModeState as FastModeState
    from ._wire.shapes import MessageOrigin as MessageOrigin
    from ._wire.shapes import MessageOriginKind as MessageOriginKind
    from ._wire.shapes import ModelUsage as ModelUsage
    from ._wire.shapes import RateLimitStatus as RateLimitStatus
    from ._wire.shapes import RateLimitType as RateLimitType
    from ._wire.shapes import ServerToolName as ServerToolName
    from ._wire.shapes import SystemInitData as SystemInitData
    from ._wire.shapes import SystemInitMcpServer as SystemInitMcpServer
    from ._wire.shapes import SystemInitPlugin as SystemInitPlugin
    from ._wire.shapes import SystemInitPluginError as SystemInitPluginError
    from ._wire.shapes import TERMINAL_TASK_STATUSES as TERMINAL_TASK_STATUSES
    from ._wire.shapes import TaskNotificationOriginSubkind as TaskNotificationOriginSubkind
    from ._wire.shapes import TaskNotificationStatus as TaskNotificationStatus
    from ._wire.shapes import TaskUpdatedStatus as TaskUpdatedStatus
    from ._wire.shapes import TaskUsage as TaskUsage
    from ._wire.system_messages import APIRetryMessage as APIRetryMessage
    from ._wire.system_messages import CommandsChangedMessage as CommandsChangedMessage
    from ._wire.system_messages import CompactBoundaryMessage as CompactBoundaryMessage
    from ._wire.system_messages import HookEventMessage as HookEventMessage
    from ._wire.system_messages import HookProgressMessage as HookProgressMessage
    from ._wire.system_messages import HookResponseMessage as HookResponseMessage
    from ._wire.system_messages import HookStartedMessage as HookStartedMessage
    from ._wire.system_messages import InformationalMessage as InformationalMessage
    from ._wire.system_messages import MirrorErrorMessage as MirrorErrorMessage
    from ._wire.system_messages import OversizedLineSkipped as OversizedLineSkipped
    from ._wire.system_messages import StatusMessage as StatusMessage
    from ._wire.system_messages import SystemInitMessage as SystemInitMessage
    from ._wire.system_messages import SystemMessage as SystemMessage
    from ._wire.system_messages import TaskNotificationMessage as TaskNotificationMessage
    from ._wire.system_messages import TaskProgressMessage as TaskProgressMessage
    from ._wire.system_messages import TaskStartedMessage as TaskStartedMessage
    from ._wire.system_messages import TaskUpdatedMessage as TaskUpdatedMessage
    from ._wire.system_messages import ThinkingTokensMessage as ThinkingTokensMessage
    from ._wire.wire_parse import parse_message as parse_message
    from .client import ClaudeSDKClient as ClaudeSDKClient
    from .client import merge_assistant_messages as merge_assistant_messages
    from .query import QueryStream as QueryStream
    from .query import query as query

__all__ = [name for names in _NAMES.values() for name in names] + ["__version__"]

_LAZY = {name: module for module, names in _NAMES.items() if module not in _AT_IMPORT for name in names}


def _bind(module: str) -> None:
    """Bind the table's names of ``module`` in this namespace (importing it)."""
    loaded = import_module(module, __name__)
    namespace = globals()
    for name in _NAMES[module]:
        namespace[name] = getattr(loaded, name)


for _module in _AT_IMPORT:
    _bind(_module)
del _module


def __getattr__(name: str) -> object:
    """Resolve the lazily loaded public names (PEP 562); anything else is an AttributeError."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'claude_sync' has no attribute {name!r}")
    _bind(module)
    return globals()[name]
