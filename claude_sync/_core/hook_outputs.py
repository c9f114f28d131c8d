"""What a hook callback may return: ``HookJSONOutput`` and the per-event ``hookSpecificOutput``.

Shapes follow the CLI's hook output schema (CLI 2.1.330); names follow the official SDK.
``continue_`` and ``async_`` stand for the wire keys ``continue`` / ``async`` (Python
keywords); the hook adapter (``hooks``) renames them. A callback may also return ``None``
(nothing to say) — claude_sync answers ``{}``.

Type hints only, not imported by ``import claude_sync``. Pure module.
"""


from typing import Any, Dict, List, Literal, Union

from typing_extensions import NotRequired, TypedDict

__all__ = [
    "AsyncHookJSONOutput", "CwdChangedHookSpecificOutput", "ElicitationHookSpecificOutput",
    "ElicitationResultHookSpecificOutput", "FileChangedHookSpecificOutput", "HookJSONOutput",
    "HookSpecificOutput", "MessageDisplayHookSpecificOutput", "NotificationHookSpecificOutput",
    "PermissionDeniedHookSpecificOutput", "PermissionRequestHookSpecificOutput",
    "PostModelSwitchHookSpecificOutput", "PostToolBatchHookSpecificOutput",
    "PostToolUseFailureHookSpecificOutput", "PostToolUseHookSpecificOutput",
    "PreModelSwitchHookSpecificOutput", "PreToolUseHookSpecificOutput",
    "SessionStartHookSpecificOutput", "SetupHookSpecificOutput", "StopHookSpecificOutput",
    "SubagentStartHookSpecificOutput", "SubagentStopHookSpecificOutput",
    "SyncHookJSONOutput", "UserPromptExpansionHookSpecificOutput",
    "UserPromptSubmitHookSpecificOutput", "WorktreeCreateHookSpecificOutput",
]  # fmt: skip


class PreToolUseHookSpecificOutput(TypedDict):
    """Decide the tool call: ``permissionDecision`` ``allow``/``deny``/``ask``/``defer``."""

    hookEventName: Literal["PreToolUse"]
    permissionDecision: NotRequired[Literal["allow", "deny", "ask", "defer"]]
    permissionDecisionReason: NotRequired[str]
    updatedInput: NotRequired[Dict[str, Any]]
    additionalContext: NotRequired[str]
    permissionDisplay: NotRequired[Dict[str, str]]


class PostToolUseHookSpecificOutput(TypedDict):
    hookEventName: Literal["PostToolUse"]
    additionalContext: NotRequired[str]
    classifierContext: NotRequired[str]
    updatedToolOutput: NotRequired[Any]
    updatedMCPToolOutput: NotRequired[Any]


class PostToolUseFailureHookSpecificOutput(TypedDict):
    hookEventName: Literal["PostToolUseFailure"]
    additionalContext: NotRequired[str]


class PostToolBatchHookSpecificOutput(TypedDict):
    hookEventName: Literal["PostToolBatch"]
    additionalContext: NotRequired[str]


class UserPromptSubmitHookSpecificOutput(TypedDict):
    hookEventName: Literal["UserPromptSubmit"]
    additionalContext: NotRequired[str]
    sessionTitle: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class UserPromptExpansionHookSpecificOutput(TypedDict):
    hookEventName: Literal["UserPromptExpansion"]
    additionalContext: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class SessionStartHookSpecificOutput(TypedDict):
    hookEventName: Literal["SessionStart"]
    additionalContext: NotRequired[str]
    initialUserMessage: NotRequired[str]
    sessionTitle: NotRequired[str]
    watchPaths: NotRequired[List[str]]
    reloadSkills: NotRequired[bool]


class SetupHookSpecificOutput(TypedDict):
    hookEventName: Literal["Setup"]
    additionalContext: NotRequired[str]


class PreModelSwitchHookSpecificOutput(TypedDict):
    """Allow, deny or ask about a model switch before it happens."""

    hookEventName: Literal["PreModelSwitch"]
    permissionDecision: NotRequired[Literal["allow", "deny", "ask"]]
    permissionDecisionReason: NotRequired[str]


class PostModelSwitchHookSpecificOutput(TypedDict):
    hookEventName: Literal["PostModelSwitch"]
    additionalContext: NotRequired[str]


class SubagentStartHookSpecificOutput(TypedDict):
    hookEventName: Literal["SubagentStart"]
    additionalContext: NotRequired[str]


class StopHookSpecificOutput(TypedDict):
    hookEventName: Literal["Stop"]
    additionalContext: NotRequired[str]


class SubagentStopHookSpecificOutput(TypedDict):
    hookEventName: Literal["SubagentStop"]
    additionalContext: NotRequired[str]


class PermissionDeniedHookSpecificOutput(TypedDict):
    """``retry: True`` lets the model try the denied tool again."""

    hookEventName: Literal["PermissionDenied"]
    retry: NotRequired[bool]


class NotificationHookSpecificOutput(TypedDict):
    hookEventName: Literal["Notification"]
    additionalContext: NotRequired[str]


class PermissionRequestHookSpecificOutput(TypedDict):
    """``decision`` is ``{"behavior": "allow", "updatedInput"?, "updatedPermissions"?}`` or
    ``{"behavior": "deny", "message"?, "interrupt"?}`` (permission updates as wire dicts)."""

    hookEventName: Literal["PermissionRequest"]
    decision: Dict[str, Any]


class ElicitationHookSpecificOutput(TypedDict):
    hookEventName: Literal["Elicitation"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class ElicitationResultHookSpecificOutput(TypedDict):
    hookEventName: Literal["ElicitationResult"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class CwdChangedHookSpecificOutput(TypedDict):
    hookEventName: Literal["CwdChanged"]
    watchPaths: NotRequired[List[str]]


class FileChangedHookSpecificOutput(TypedDict):
    hookEventName: Literal["FileChanged"]
    watchPaths: NotRequired[List[str]]


class WorktreeCreateHookSpecificOutput(TypedDict):
    hookEventName: Literal["WorktreeCreate"]
    worktreePath: str


class MessageDisplayHookSpecificOutput(TypedDict):
    hookEventName: Literal["MessageDisplay"]
    displayContent: NotRequired[str]


HookSpecificOutput = Union[
    PreToolUseHookSpecificOutput, PostToolUseHookSpecificOutput,
    PostToolUseFailureHookSpecificOutput, UserPromptSubmitHookSpecificOutput,
    SessionStartHookSpecificOutput, NotificationHookSpecificOutput,
    SubagentStartHookSpecificOutput, PermissionRequestHookSpecificOutput,
    UserPromptExpansionHookSpecificOutput, PostToolBatchHookSpecificOutput,
    StopHookSpecificOutput, SubagentStopHookSpecificOutput, PermissionDeniedHookSpecificOutput,
    PreModelSwitchHookSpecificOutput, PostModelSwitchHookSpecificOutput,
    ElicitationHookSpecificOutput, ElicitationResultHookSpecificOutput,
    CwdChangedHookSpecificOutput, FileChangedHookSpecificOutput,
    WorktreeCreateHookSpecificOutput, MessageDisplayHookSpecificOutput, SetupHookSpecificOutput,
]  # fmt: skip


class AsyncHookJSONOutput(TypedDict):
    """Run the hook in the background: the CLI does not wait (``asyncTimeout`` in ms)."""

    async_: Literal[True]
    asyncTimeout: NotRequired[int]


class SyncHookJSONOutput(TypedDict):
    """The ordinary hook answer; every key is optional.

    ``continue_: False`` stops the agent (``stopReason`` says why); ``decision: "block"``
    with ``reason`` blocks the event; ``systemMessage`` is shown to the user.
    """

    continue_: NotRequired[bool]
    suppressOutput: NotRequired[bool]
    stopReason: NotRequired[str]
    decision: NotRequired[Literal["approve", "block"]]
    systemMessage: NotRequired[str]
    terminalSequence: NotRequired[str]
    reason: NotRequired[str]
    hookSpecificOutput: NotRequired[HookSpecificOutput]


HookJSONOutput = Union[AsyncHookJSONOutput, SyncHookJSONOutput]
