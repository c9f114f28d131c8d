"""Package-level promises: the public names, import weight, errors (layering: test_layering)."""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import claude_sync
from claude_sync._wire import errors as _errors

PACKAGE = Path(claude_sync.__file__).parent


PINNED_ALL = sorted(claude_sync.__all__)


def test_all_is_pinned_and_every_name_resolves() -> None:
    expected = {
        "query", "QueryStream", "ClaudeSDKClient", "ClaudeAgentOptions", "AgentDefinition",
        "merge_assistant_messages", "show", "Transport", "CanUseTool", "CancellationSignal", "HookCallback",
        "HookContext", "HookMatcher", "KNOWN_HOOK_EVENTS", "PermissionMode", "PermissionResult",
        "PermissionResultAllow", "PermissionResultDeny", "PermissionRuleValue", "PermissionUpdate",
        "ToolPermissionContext", "tool", "create_sdk_mcp_server", "SdkMcpServer", "SdkMcpTool",
        "ToolContext", "ToolAnnotations", "McpSdkServerConfig", "ElicitationRequest",
        "ElicitationResult", "UserDialogRequest", "UserDialogResult", "OnElicitation",
        "OnUserDialog", "McpSetServersResult", "ReadFileResult", "ReloadPluginsResult",
        "UsageResult", "Message", "UserMessage", "AssistantMessage", "AssistantMessageMerger",
        "SystemMessage", "SystemInitMessage", "StatusMessage", "APIRetryMessage",
        "CompactBoundaryMessage", "TaskStartedMessage", "TaskProgressMessage",
        "TaskUpdatedMessage", "TaskNotificationMessage", "HookEventMessage", "HookStartedMessage",
        "HookProgressMessage", "HookResponseMessage", "InformationalMessage", "CommandsChangedMessage",
        "ThinkingTokensMessage", "ResultMessage", "StreamEvent", "RateLimitEvent",
        "RateLimitInfo", "PromptSuggestionMessage", "ToolProgressMessage", "AuthStatusMessage",
        "UnknownMessage", "OversizedLineSkipped", "StreamItem", "message_from_dict", "parse_message", "ContentBlock",
        "TextBlock", "ThinkingBlock", "RedactedThinkingBlock", "ToolUseBlock", "ToolResultBlock",
        "ServerToolUseBlock", "ServerToolResultBlock", "ImageBlock", "UnknownBlock",
        "ClaudeSDKError", "CLIConnectionError", "CLINotFoundError", "ProcessError", "ResultError",
        "CLIJSONDecodeError", "MessageParseError", "ControlRequestError", "ControlTimeoutError",
        "ReceiveTimeoutError", "UsageError", "__version__",
        "run", "RunResult", "AgentUsage", "AgentPool",
        # approvals that wait for a person
        "run_with_approvals", "resume_approval", "pending_approval", "PendingApproval",
        "ApprovalDecision", "ApprovalPolicy", "ApprovalGate", "ApprovalError", "ApprovalRecordError",
        "ApprovalStaleError", "ApprovalClaimedError", "ApprovalNotAppliedError", "ApprovalPendingError",
        "ApprovalDroppedError",
        # typed structured output
        "json_schema_of", "parse_output", "StructuredOutputError",
        # the rest of the official claude_agent_sdk 0.2.187 __all__ (tests/package/test_public_names.py)
        "BackgroundTaskSummary", "BaseHookInput", "CanUseToolShadowedWarning",
        "ContextUsageCategory", "ContextUsageResponse", "ConversationResetMessage",
        "CwdChangedHookSpecificOutput", "DeferredToolUse", "EffortLevel",
        "ElicitationHookSpecificOutput", "ElicitationResultHookSpecificOutput",
        "FastModeDisabledReason", "FastModeState", "FileChangedHookSpecificOutput",
        "HookEffort", "HookInput", "HookJSONOutput", "McpServerConfig",
        "McpServerConnectionStatus", "McpServerInfo", "McpServerStatus",
        "McpServerStatusConfig", "McpStatusResponse", "McpToolAnnotations", "McpToolInfo",
        "MessageDisplayHookSpecificOutput", "MessageOrigin", "MessageOriginKind",
        "MirrorErrorMessage", "ModelUsage", "NotificationHookInput",
        "NotificationHookSpecificOutput", "PermissionDeniedHookSpecificOutput",
        "PermissionRequestHookInput", "PermissionRequestHookSpecificOutput",
        "PostModelSwitchHookSpecificOutput", "PostToolBatchHookSpecificOutput",
        "PostToolUseFailureHookInput", "PostToolUseFailureHookSpecificOutput",
        "PostToolUseHookInput", "PostToolUseHookSpecificOutput", "PreCompactHookInput",
        "PreModelSwitchHookSpecificOutput", "PreSkillShellCommandHookSpecificOutput", "PreToolUseHookInput",
        "PreToolUseHookSpecificOutput", "RateLimitStatus", "RateLimitType",
        "SandboxIgnoreViolations", "SandboxNetworkConfig", "SandboxSettings", "SdkBeta",
        "SdkPluginConfig", "ServerToolName", "SessionCronSummary",
        "SessionStartHookSpecificOutput", "SettingSource", "SpawnCommand", "StopHookInput",
        "SetupHookSpecificOutput",  # in the HookSpecificOutput union, so importable from the top
        "ClaudeCodeOptions",  # the old claude_code_sdk name, with its defaults (deprecated)
        "AccountInfo", "SlashCommand", "ModelInfo", "AgentInfo", "McpResourceContent",  # typed control answers
        "ResolvedSettings", "ResolvedSettingsSource", "resolve_settings", "ProcessExit",
        "SharedPoolError",  # the shared pool is there and did not lease (issue 41)
        "StopHookSpecificOutput", "SubagentStartHookInput", "SubagentStartHookSpecificOutput",
        "SubagentStopHookInput", "SubagentStopHookSpecificOutput", "SystemInitData",
        "SystemInitMcpServer", "SystemInitPlugin", "SystemInitPluginError",
        "TERMINAL_TASK_STATUSES", "TaskBudget", "TaskNotificationOriginSubkind",
        "TaskNotificationStatus", "TaskUpdatedStatus", "TaskUsage", "ThinkingConfig",
        "ThinkingConfigAdaptive", "ThinkingConfigDisabled", "ThinkingConfigEnabled",
        "UserPromptExpansionHookSpecificOutput", "UserPromptSubmitHookInput",
        "UserPromptSubmitHookSpecificOutput", "WorktreeCreateHookSpecificOutput",
        # sessions and session stores
        "list_sessions", "get_session_info", "get_session_messages", "list_subagents",
        "get_subagent_messages", "rename_session", "tag_session", "delete_session", "fork_session",
        "archive_session", "unarchive_session",
        "SDKSessionInfo", "SessionMessage", "ForkSessionResult", "SessionKey", "SessionListSubkeysKey",
        "SessionStore", "SessionStoreEntry", "SessionStoreFlushMode", "SessionStoreListEntry",
        "SessionSummaryEntry", "InMemorySessionStore", "SQLiteSessionStore", "PostgresSessionStore",
        "fold_session_summary",
        "project_key_for_directory", "import_session_to_store", "list_sessions_from_store",
        "get_session_info_from_store", "get_session_messages_from_store", "list_subagents_from_store",
        "get_subagent_messages_from_store", "rename_session_via_store", "tag_session_via_store",
        "delete_session_via_store", "fork_session_via_store", "SessionStoreError",
    }  # fmt: skip
    assert set(claude_sync.__all__) == expected
    assert len(claude_sync.__all__) == len(expected)  # no duplicates
    for name in claude_sync.__all__:
        assert getattr(claude_sync, name) is not None


def test_init_only_re_exports() -> None:
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    kinds = {type(node).__name__ for node in tree.body}
    assert kinds <= {"Expr", "ImportFrom", "Assign", "AnnAssign", "FunctionDef", "If", "For", "Delete"}, kinds
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert functions == ["_bind", "__getattr__"]  # binding the table's names, now or lazily


def test_import_loads_no_event_loop_and_nothing_heavy() -> None:
    code = (
        "import sys, claude_sync\n"
        "bad = [m for m in ('asyncio', 'anyio', 'trio', 'mcp', 'pydantic', 'dataclasses_json', 'marshmallow', 'distributed', 'dask', 'psycopg', 'psycopg_pool', 'claude_sync.integrations', 'claude_sync._agents.pool', 'claude_sync._structured.class_schema', 'claude_sync._structured.decode', 'claude_sync._mcp.schema', 'markdown_it') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_version_is_a_string() -> None:
    assert isinstance(claude_sync.__version__, str) and claude_sync.__version__.count(".") == 2


ERRORS = [
    _errors.ClaudeSDKError("base"),
    _errors.CLIConnectionError("lost"),
    _errors.CLINotFoundError("nope", cli_path="/x/claude"),
    _errors.ProcessError("died", exit_code=3, stderr="tail"),
    _errors.ResultError("bad run", {"subtype": "success", "errors": ["e"], "result": "r", "api_error_status": 401, "terminal_reason": "api_error", "session_id": "s1"}, 1, stderr="s"),
    _errors.CLIJSONDecodeError("{oops", ValueError("Expecting value")),
    _errors.MessageParseError("bad shape", data={"type": "assistant"}),
    _errors.ControlRequestError("Unsupported", subtype="frobnicate", request_id="req_1"),
    _errors.ControlTimeoutError("slow", subtype="mcp_status", request_id="req_2", timeout=1.5),
    _errors.ReceiveTimeoutError("quiet", kind="idle", timeout=2.0),
    _errors.UsageError("closed"),
    _errors.SessionStoreError("store down"),
    _errors.StructuredOutputError(
        "no fit", {"subtype": "error_max_structured_output_retries", "errors": ["e"], "session_id": "s1"}, 1,
        raw_output={"a": "x"}, schema={"type": "object"}, error_path="$.a", problem="must be integer",
        output_type="m.Answer",
    ),
    _errors.UnscriptedRunError("not scripted"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_errors_pickle_with_their_attributes(error: Exception) -> None:
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is type(error)
    assert str(clone) == str(error)

    def comparable(attrs: dict) -> dict:  # nested exceptions compare by identity: use repr
        return {k: repr(v) if isinstance(v, BaseException) else v for k, v in attrs.items()}

    assert comparable(vars(clone)) == comparable(vars(error))


def test_error_tree() -> None:
    assert issubclass(_errors.CLINotFoundError, _errors.CLIConnectionError)
    assert issubclass(_errors.ResultError, _errors.ProcessError)
    assert issubclass(_errors.StructuredOutputError, _errors.ResultError)
    assert issubclass(_errors.ControlTimeoutError, TimeoutError)
    assert issubclass(_errors.ReceiveTimeoutError, TimeoutError)
    assert issubclass(_errors.UsageError, RuntimeError)
    for error in ERRORS:
        assert isinstance(error, _errors.ClaudeSDKError)
