"""What a hook callback may return: ``HookJSONOutput`` and the per-event ``hookSpecificOutput``.

Shapes follow the CLI's hook output schema (CLI 2.1.330; ``PreSkillShellCommand`` 2.1.332); names follow the official SDK.
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
    "PreModelSwitchHookSpecificOutput", "PreSkillShellCommandHookSpecificOutput",
    "PreToolUseHookSpecificOutput", "SessionStartHookSpecificOutput", "SetupHookSpecificOutput", "StopHookSpecificOutput",
    "SubagentStartHookSpecificOutput", "SubagentStopHookSpecificOutput",
    "SyncHookJSONOutput", "UserPromptExpansionHookSpecificOutput",
    "UserPromptSubmitHookSpecificOutput", "WorktreeCreateHookSpecificOutput",
]  # fmt: skip


class PreToolUseHookSpecificOutput(TypedDict):
    """Decide the tool call: ``permissionDecision`` ``allow``/``deny``/``ask``/``defer``.

    Keys:
        hookEventName: ``"PreToolUse"``: the event this output answers.
        permissionDecision: ``"allow"``, ``"deny"``, ``"ask"`` (the user or ``can_use_tool``
            decides) or ``"defer"`` (stop the run before the call; see ``DeferredToolUse``).
        permissionDecisionReason: Why; the model sees it for a deny.
        updatedInput: The input the tool runs with instead.
        additionalContext: Text added to what the model sees.
        permissionDisplay: How a permission prompt shows the call (title, description …).
        permissionDecisionReasonCode: A code naming the ask, read only beside
            ``permissionDecision: "ask"`` from a hook the host registered (CLI 2.1.333+, marked
            internal there: Claude Desktop's ``"workflow_first_run"``); the CLI passes it on as
            ``decision_reason_code`` and drops a value it does not know. Older CLIs ignore it.
    """

    hookEventName: Literal["PreToolUse"]
    permissionDecision: NotRequired[Literal["allow", "deny", "ask", "defer"]]
    permissionDecisionReason: NotRequired[str]
    updatedInput: NotRequired[Dict[str, Any]]
    additionalContext: NotRequired[str]
    permissionDisplay: NotRequired[Dict[str, str]]
    permissionDecisionReasonCode: NotRequired[str]


class PostToolUseHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostToolUse`` hook may return (``hookEventName`` ``"PostToolUse"``).

    Keys:
        hookEventName: ``"PostToolUse"``: the event this output answers.
        additionalContext: Text added to what the model sees.
        classifierContext: Context for the CLI's safety classifier.
        updatedToolOutput: The tool output the model sees instead.
        updatedMCPToolOutput: The MCP tool output the model sees instead.
    """

    hookEventName: Literal["PostToolUse"]
    additionalContext: NotRequired[str]
    classifierContext: NotRequired[str]
    updatedToolOutput: NotRequired[Any]
    updatedMCPToolOutput: NotRequired[Any]


class PostToolUseFailureHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostToolUseFailure`` hook may return (``hookEventName`` ``"PostToolUseFailure"``).

    Keys:
        hookEventName: ``"PostToolUseFailure"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["PostToolUseFailure"]
    additionalContext: NotRequired[str]


class PostToolBatchHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostToolBatch`` hook may return (``hookEventName`` ``"PostToolBatch"``).

    Keys:
        hookEventName: ``"PostToolBatch"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["PostToolBatch"]
    additionalContext: NotRequired[str]


class UserPromptSubmitHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``UserPromptSubmit`` hook may return (``hookEventName`` ``"UserPromptSubmit"``).

    Keys:
        hookEventName: ``"UserPromptSubmit"``: the event this output answers.
        additionalContext: Text added to what the model sees.
        sessionTitle: A title for the session.
        suppressOriginalPrompt: Leave the prompt itself out of the conversation.
    """

    hookEventName: Literal["UserPromptSubmit"]
    additionalContext: NotRequired[str]
    sessionTitle: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class UserPromptExpansionHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``UserPromptExpansion`` hook may return (``hookEventName`` ``"UserPromptExpansion"``).

    Keys:
        hookEventName: ``"UserPromptExpansion"``: the event this output answers.
        additionalContext: Text added to what the model sees.
        suppressOriginalPrompt: Leave the typed command out of the conversation.
    """

    hookEventName: Literal["UserPromptExpansion"]
    additionalContext: NotRequired[str]
    suppressOriginalPrompt: NotRequired[bool]


class SessionStartHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SessionStart`` hook may return (``hookEventName`` ``"SessionStart"``).

    Keys:
        hookEventName: ``"SessionStart"``: the event this output answers.
        additionalContext: Text added to what the model sees.
        initialUserMessage: A first user message to start with.
        sessionTitle: A title for the session.
        watchPaths: Files the CLI should watch from now on (they raise ``FileChanged``).
        reloadSkills: Reload the skills.
    """

    hookEventName: Literal["SessionStart"]
    additionalContext: NotRequired[str]
    initialUserMessage: NotRequired[str]
    sessionTitle: NotRequired[str]
    watchPaths: NotRequired[List[str]]
    reloadSkills: NotRequired[bool]


class SetupHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Setup`` hook may return (``hookEventName`` ``"Setup"``).

    Keys:
        hookEventName: ``"Setup"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["Setup"]
    additionalContext: NotRequired[str]


class PreModelSwitchHookSpecificOutput(TypedDict):
    """Allow, deny or ask about a model switch before it happens.

    Keys:
        hookEventName: ``"PreModelSwitch"``: the event this output answers.
        permissionDecision: ``"allow"``, ``"deny"`` or ``"ask"``.
        permissionDecisionReason: Why.
    """

    hookEventName: Literal["PreModelSwitch"]
    permissionDecision: NotRequired[Literal["allow", "deny", "ask"]]
    permissionDecisionReason: NotRequired[str]


class PreSkillShellCommandHookSpecificOutput(TypedDict):
    """Keep a skill's shell line from running: ``permissionDecision`` ``"deny"``.

    ``"allow"`` adds nothing (the line runs unless another check refuses it); ``"deny"``,
    ``"ask"`` and ``"defer"`` all keep it from running (a skill cannot wait for approval).
    The CLI also takes a ``PreToolUse``-shaped answer here.

    Keys:
        hookEventName: ``"PreSkillShellCommand"``: the event this output answers.
        permissionDecision: ``"allow"``, ``"deny"``, ``"ask"`` or ``"defer"``.
        permissionDecisionReason: Why; shown to the model in place of the output
            (``[not run: blocked by hook: <reason>]``).
        updatedInput: Never applied: any value keeps the command from running.
    """

    hookEventName: Literal["PreSkillShellCommand"]
    permissionDecision: NotRequired[Literal["allow", "deny", "ask", "defer"]]
    permissionDecisionReason: NotRequired[str]
    updatedInput: NotRequired[Dict[str, Any]]


class PostModelSwitchHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``PostModelSwitch`` hook may return (``hookEventName`` ``"PostModelSwitch"``).

    Keys:
        hookEventName: ``"PostModelSwitch"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["PostModelSwitch"]
    additionalContext: NotRequired[str]


class SubagentStartHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SubagentStart`` hook may return (``hookEventName`` ``"SubagentStart"``).

    Keys:
        hookEventName: ``"SubagentStart"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["SubagentStart"]
    additionalContext: NotRequired[str]


class StopHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Stop`` hook may return (``hookEventName`` ``"Stop"``).

    Keys:
        hookEventName: ``"Stop"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["Stop"]
    additionalContext: NotRequired[str]


class SubagentStopHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``SubagentStop`` hook may return (``hookEventName`` ``"SubagentStop"``).

    Keys:
        hookEventName: ``"SubagentStop"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["SubagentStop"]
    additionalContext: NotRequired[str]


class PermissionDeniedHookSpecificOutput(TypedDict):
    """``retry: True`` lets the model try the denied tool again.

    Keys:
        hookEventName: ``"PermissionDenied"``: the event this output answers.
        retry: Let the model try the denied tool again.
    """

    hookEventName: Literal["PermissionDenied"]
    retry: NotRequired[bool]


class NotificationHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Notification`` hook may return (``hookEventName`` ``"Notification"``).

    Keys:
        hookEventName: ``"Notification"``: the event this output answers.
        additionalContext: Text added to what the model sees.
    """

    hookEventName: Literal["Notification"]
    additionalContext: NotRequired[str]


class PermissionRequestHookSpecificOutput(TypedDict):
    """``decision`` is ``{"behavior": "allow", "updatedInput"?, "updatedPermissions"?}`` or
    ``{"behavior": "deny", "message"?, "interrupt"?}`` (permission updates as wire dicts).

    Keys:
        hookEventName: ``"PermissionRequest"``: the event this output answers.
        decision: The decision: ``{"behavior": "allow", "updatedInput"?, "updatedPermissions"?}`` or
            ``{"behavior": "deny", "message"?, "interrupt"?}``.
    """

    hookEventName: Literal["PermissionRequest"]
    decision: Dict[str, Any]


class ElicitationHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``Elicitation`` hook may return (``hookEventName`` ``"Elicitation"``).

    Keys:
        hookEventName: ``"Elicitation"``: the event this output answers.
        action: ``"accept"``, ``"decline"`` or ``"cancel"``: the answer, instead of asking the user.
        content: The form's values, with ``accept``.
    """

    hookEventName: Literal["Elicitation"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class ElicitationResultHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``ElicitationResult`` hook may return (``hookEventName`` ``"ElicitationResult"``).

    Keys:
        hookEventName: ``"ElicitationResult"``: the event this output answers.
        action: ``"accept"``, ``"decline"`` or ``"cancel"``: the answer, instead of asking the user.
        content: The form's values, with ``accept``.
    """

    hookEventName: Literal["ElicitationResult"]
    action: NotRequired[Literal["accept", "decline", "cancel"]]
    content: NotRequired[Dict[str, Any]]


class CwdChangedHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``CwdChanged`` hook may return (``hookEventName`` ``"CwdChanged"``).

    Keys:
        hookEventName: ``"CwdChanged"``: the event this output answers.
        watchPaths: Files the CLI should watch from now on (they raise ``FileChanged``).
    """

    hookEventName: Literal["CwdChanged"]
    watchPaths: NotRequired[List[str]]


class FileChangedHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``FileChanged`` hook may return (``hookEventName`` ``"FileChanged"``).

    Keys:
        hookEventName: ``"FileChanged"``: the event this output answers.
        watchPaths: Files the CLI should watch from now on (they raise ``FileChanged``).
    """

    hookEventName: Literal["FileChanged"]
    watchPaths: NotRequired[List[str]]


class WorktreeCreateHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``WorktreeCreate`` hook may return (``hookEventName`` ``"WorktreeCreate"``).

    Keys:
        hookEventName: ``"WorktreeCreate"``: the event this output answers.
        worktreePath: The path of the worktree the hook created.
    """

    hookEventName: Literal["WorktreeCreate"]
    worktreePath: str


class MessageDisplayHookSpecificOutput(TypedDict):
    """The ``hookSpecificOutput`` a ``MessageDisplay`` hook may return (``hookEventName`` ``"MessageDisplay"``).

    Keys:
        hookEventName: ``"MessageDisplay"``: the event this output answers.
        displayContent: What to display instead of the lines.
    """

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
    PreSkillShellCommandHookSpecificOutput,
]  # fmt: skip
"""The ``hookSpecificOutput`` of a hook answer: one of the ``*HookSpecificOutput`` shapes, by event."""


class AsyncHookJSONOutput(TypedDict):
    """Run the hook in the background: the CLI does not wait (``asyncTimeout`` in ms).

    Keys:
        async_: ``True`` (``async`` on the wire).
        asyncTimeout: How long the background hook may run, in milliseconds.
    """

    async_: Literal[True]
    asyncTimeout: NotRequired[int]


class SyncHookJSONOutput(TypedDict):
    """The ordinary hook answer; every key is optional.

    ``continue_: False`` stops the agent (``stopReason`` says why); ``decision: "block"``
    with ``reason`` blocks the event; ``systemMessage`` is shown to the user.

    Keys:
        continue_: ``False`` stops the agent (``continue`` on the wire).
        suppressOutput: Hide the hook's output from the transcript.
        stopReason: Why the agent stops, with ``continue_: False``.
        decision: ``"block"`` blocks the event (with ``reason``); ``"approve"`` is the old spelling
            of allow.
        systemMessage: A message shown to the user.
        terminalSequence: A terminal escape sequence the CLI writes (terminal UI only).
        reason: Why, with ``decision``.
        hookSpecificOutput: The event's own output (one of the ``*HookSpecificOutput`` shapes).
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
"""What a hook returns: the synchronous output (``continue_``, ``decision``, ``hookSpecificOutput`` …)
or the asynchronous one (``async_``, ``asyncTimeout``)."""
