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
    """The ``hookSpecificOutput`` a ``PostToolUse`` hook may return (``hookEventName`` ``"PostToolUse"``)."""

    hookEventName: Literal["PostToolUse"]
    additionalContext: NotRequired[str]
    classifierContext: NotRequired[str]
    updatedToolOutput: NotRequired[Any]
    updatedMCPToolOutput: NotRequired[Any]


class PostToolUseFailureHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostToolUseFailure`` hook may return (``hookEventName`` ``"PostToolUseFailure"``)."""

    hookEventName: Literal["PostToolUseFailure"]
    additionalContext: NotRequired[str]


class PostToolBatchHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostToolBatch`` hook may return (``hookEventName`` ``"PostToolBatch"``)."""

    hookEventName: Literal["PostToolBatch"]
    additionalContext: NotRequired[str]


class UserPromptSubmitHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``UserPromptSubmit`` hook may return (``hookEventName`` ``"UserPromptSubmit"``)."""

    hookEventName: Literal["UserPromptSubmit"]
    additionalContext: NotRequired[str]
    sessionTitle: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class UserPromptExpansionHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``UserPromptExpansion`` hook may return (``hookEventName`` ``"UserPromptExpansion"``)."""

    hookEventName: Literal["UserPromptExpansion"]
    additionalContext: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class SessionStartHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SessionStart`` hook may return (``hookEventName`` ``"SessionStart"``)."""

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
    """The ``hookSpecificOutput`` a ``PostModelSwitch`` hook may return (``hookEventName`` ``"PostModelSwitch"``)."""

    hookEventName: Literal["PostModelSwitch"]
    additionalContext: NotRequired[str]


class SubagentStartHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SubagentStart`` hook may return (``hookEventName`` ``"SubagentStart"``)."""

    hookEventName: Literal["SubagentStart"]
    additionalContext: NotRequired[str]


class StopHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Stop`` hook may return (``hookEventName`` ``"Stop"``)."""

    hookEventName: Literal["Stop"]
    additionalContext: NotRequired[str]


class SubagentStopHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SubagentStop`` hook may return (``hookEventName`` ``"SubagentStop"``)."""

    hookEventName: Literal["SubagentStop"]
    additionalContext: NotRequired[str]


class PermissionDeniedHookSpecificOutput(TypedDict):
    """``retry: True`` lets the model try the denied tool again."""

    hookEventName: Literal["PermissionDenied"]
    retry: NotRequired[bool]


class NotificationHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Notification`` hook may return (``hookEventName`` ``"Notification"``)."""

    hookEventName: Literal["Notification"]
    additionalContext: NotRequired[str]


class PermissionRequestHookSpecificOutput(TypedDict):
    """``decision`` is ``{"behavior": "allow", "updatedInput"?, "updatedPermissions"?}`` or
    ``{"behavior": "deny", "message"?, "interrupt"?}`` (permission updates as wire dicts)."""

    hookEventName: Literal["PermissionRequest"]
    decision: Dict[str, Any]


class ElicitationHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Elicitation`` hook may return (``hookEventName`` ``"Elicitation"``)."""

    hookEventName: Literal["Elicitation"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class ElicitationResultHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``ElicitationResult`` hook may return (``hookEventName`` ``"ElicitationResult"``)."""

    hookEventName: Literal["ElicitationResult"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class CwdChangedHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``CwdChanged`` hook may return (``hookEventName`` ``"CwdChanged"``)."""

    hookEventName: Literal["CwdChanged"]
    watchPaths: NotRequired[List[str]]


class FileChangedHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``FileChanged`` hook may return (``hookEventName`` ``"FileChanged"``)."""

    hookEventName: Literal["FileChanged"]
    watchPaths: NotRequired[List[str]]


class WorktreeCreateHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``WorktreeCreate`` hook may return (``hookEventName`` ``"WorktreeCreate"``)."""

    hookEventName: Literal["WorktreeCreate"]
    worktreePath: str


class MessageDisplayHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``MessageDisplay`` hook may return (``hookEventName`` ``"MessageDisplay"``)."""

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
