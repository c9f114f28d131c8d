"""What a hook callback receives for the tool and conversation events, and ``HookInput``.

``HookInput`` is any of the 34 hook inputs the CLI knows (CLI 2.1.332). The shapes are the CLI's
own input schemas (the union of per-event schemas in CLI 2.1.330; ``PreSkillShellCommand`` from
2.1.332), with the official SDK's names for the ten it types (``PreToolUseHookInput`` …) and the
same pattern for the other 24 (``PreModelSwitchHookInput``, ``DirectoryAddedHookInput`` …).
Keys the CLI always sends are required; the others are ``NotRequired``. These are type
hints only: the callback gets the plain dict the CLI sent, new keys included. The keys all
inputs share are in ``hook_input_base``; the events around the session's surroundings
(worktrees, files, settings, tasks, elicitations …) in ``hook_environment_inputs``.

Not imported by ``import claude_sync`` (``typing_extensions`` is not free); reach these through
``claude_sync.types`` or the lazy names of ``claude_sync``. Pure module.
"""


from typing import Any, Dict, List, Literal, Optional, Union

from typing_extensions import NotRequired, TypedDict

from .hook_environment_inputs import (
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
from .hook_input_base import BaseHookInput, HookMcpServer

__all__ = [
    "BackgroundTaskSummary", "NotificationHookInput", "PermissionDeniedHookInput",
    "PermissionRequestHookInput", "PostCompactHookInput", "PostModelSwitchHookInput",
    "PostToolBatchHookInput", "PostToolBatchToolCall", "PostToolUseFailureHookInput",
    "PostToolUseHookInput", "PreCompactHookInput", "PreModelSwitchHookInput",
    "PreSkillShellCommandHookInput", "PreToolUseHookInput", "SkillShellCommandInput", "SessionCronSummary", "SessionEndHookInput", "SessionStartHookInput",
    "SetupHookInput", "StopFailureHookInput", "StopHookInput", "SubagentStartHookInput",
    "SubagentStopHookInput", "UserPromptExpansionHookInput", "UserPromptSubmitHookInput",
    "HookInput",
]  # fmt: skip


class BackgroundTaskSummary(TypedDict):
    """A background task still running when the agent stops (``Stop``/``SubagentStop``).

    Keys:
        id: The task's id.
        type: The kind of task (a shell, a subagent, an MCP call …).
        status: Its status.
        description: What it does.
        command: The shell command, for a shell task.
        agent_type: The subagent's type, for a subagent task.
        server: The MCP server, for an MCP task.
        tool: The MCP tool, for an MCP task.
        name: The task's name, when it has one.
    """

    id: str
    type: str
    status: str
    description: str
    command: NotRequired[str]
    agent_type: NotRequired[str]
    server: NotRequired[str]
    tool: NotRequired[str]
    name: NotRequired[str]


class SessionCronSummary(TypedDict):
    """A scheduled prompt of the session (``Stop``/``SubagentStop``).

    Keys:
        id: The schedule's id.
        schedule: When it runs (a cron expression).
        recurring: Whether it repeats.
        prompt: The prompt it sends.
    """

    id: str
    schedule: str
    recurring: bool
    prompt: str


class _SubagentAware(BaseHookInput):
    """Tool events also say which subagent (if any) is running the tool."""

    agent_id: NotRequired[str]
    agent_type: NotRequired[str]


class PreToolUseHookInput(_SubagentAware):
    """What a ``PreToolUse`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"PreToolUse"``.
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        tool_use_id: The id of the tool call.
        mcp_server: For an ``mcp__*`` tool: the server's config key and where its definition came
            from.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PreToolUse"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    mcp_server: NotRequired[HookMcpServer]


class PostToolUseHookInput(_SubagentAware):
    """What a ``PostToolUse`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"PostToolUse"``.
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        tool_use_id: The id of the tool call.
        tool_response: What the tool returned.
        duration_ms: How long the tool ran, in milliseconds.
        mcp_server: For an ``mcp__*`` tool: the server's config key and where its definition came
            from.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PostToolUse"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_response: Any
    tool_use_id: str
    duration_ms: NotRequired[float]
    mcp_server: NotRequired[HookMcpServer]


class PostToolUseFailureHookInput(_SubagentAware):
    """What a ``PostToolUseFailure`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"PostToolUseFailure"``.
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        tool_use_id: The id of the tool call.
        error: What went wrong.
        is_interrupt: Whether the tool was interrupted.
        duration_ms: How long the tool ran, in milliseconds.
        mcp_server: For an ``mcp__*`` tool: the server's config key and where its definition came
            from.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PostToolUseFailure"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    error: str
    is_interrupt: NotRequired[bool]
    duration_ms: NotRequired[float]
    mcp_server: NotRequired[HookMcpServer]


class PostToolBatchToolCall(TypedDict):
    """One tool call of a ``PostToolBatch`` input.

    Keys:
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        tool_use_id: The id of the tool call.
        tool_response: What the tool returned.
    """

    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    tool_response: NotRequired[Any]


class PostToolBatchHookInput(_SubagentAware):
    """What a ``PostToolBatch`` hook receives: the tool calls of one batch, after they ran.

    Keys:
        hook_event_name: ``"PostToolBatch"``.
        tool_calls: The tool calls of the batch, in order.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PostToolBatch"]
    tool_calls: List[PostToolBatchToolCall]


class PermissionDeniedHookInput(_SubagentAware):
    """What a ``PermissionDenied`` hook receives: a tool call was denied.

    Keys:
        hook_event_name: ``"PermissionDenied"``.
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        tool_use_id: The id of the tool call.
        reason: Why the call was denied.
        mcp_server: For an ``mcp__*`` tool: the server's config key and where its definition came
            from.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PermissionDenied"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    reason: str
    mcp_server: NotRequired[HookMcpServer]


class PermissionRequestHookInput(_SubagentAware):
    """What a ``PermissionRequest`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"PermissionRequest"``.
        tool_name: The tool (``Bash``, ``Edit``, ``mcp__<server>__<tool>`` …).
        tool_input: The tool's input, as the model gave it.
        permission_suggestions: Permission updates the CLI suggests.
        mcp_server: For an ``mcp__*`` tool: the server's config key and where its definition came
            from.
        tool_kind: The kind of tool, when the CLI says.
        mcp_skill: The MCP skill involved, when any.
        agent_id: The subagent running the tool, when not the main agent.
        agent_type: That subagent's type.
    """

    hook_event_name: Literal["PermissionRequest"]
    tool_name: str
    tool_input: Dict[str, Any]
    permission_suggestions: NotRequired[List[Any]]
    mcp_server: NotRequired[HookMcpServer]
    tool_kind: NotRequired[str]
    mcp_skill: NotRequired[Dict[str, Any]]


class NotificationHookInput(BaseHookInput):
    """What a ``Notification`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"Notification"``.
        message: The notification's text.
        title: Its title.
        notification_type: Its kind (``permission_prompt``, ``idle_prompt`` …).
    """

    hook_event_name: Literal["Notification"]
    message: str
    title: NotRequired[str]
    notification_type: str


class UserPromptSubmitHookInput(BaseHookInput):
    """What a ``UserPromptSubmit`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"UserPromptSubmit"``.
        prompt: The prompt the user submitted.
        source: Where it came from, when the CLI says.
        session_title: The session's title, when it has one.
    """

    hook_event_name: Literal["UserPromptSubmit"]
    prompt: str
    source: NotRequired[str]
    session_title: NotRequired[str]


class UserPromptExpansionHookInput(BaseHookInput):
    """What a ``UserPromptExpansion`` hook receives: a slash command or MCP prompt is about to be
    expanded.

    Keys:
        hook_event_name: ``"UserPromptExpansion"``.
        expansion_type: ``"slash_command"`` or ``"mcp_prompt"``.
        command_name: The command or prompt being expanded.
        command_args: Its arguments, as typed.
        command_source: Where the command is defined.
        prompt: The prompt as typed.
    """

    hook_event_name: Literal["UserPromptExpansion"]
    expansion_type: Literal["slash_command", "mcp_prompt"]
    command_name: str
    command_args: str
    command_source: NotRequired[str]
    prompt: str


class SkillShellCommandInput(TypedDict):
    """The ``tool_input`` of a ``PreSkillShellCommand`` hook.

    Keys:
        command: The command as it would run, with the skill's arguments filled in.
    """

    command: str


class PreSkillShellCommandHookInput(BaseHookInput):
    """A skill's or slash command's shell line (``!`cmd```) is about to run (CLI 2.1.332+).

    Return ``hookSpecificOutput`` with ``permissionDecision`` ``"deny"`` (or ``"ask"`` /
    ``"defer"``, which a skill cannot wait for: they deny too) to keep it from running; the
    model then reads ``[not run: blocked by hook: <reason>]`` in its place. ``"allow"`` adds
    nothing (other checks still apply); an ``updatedInput`` is never applied and blocks it.

    Keys:
        hook_event_name: ``"PreSkillShellCommand"``.
        tool_name: The shell tool that runs the command: ``Bash`` or ``PowerShell`` (what a
            ``HookMatcher.matcher`` is matched against).
        tool_input: ``{"command": …}``: the command as it would run.
        tool_use_id: Identifies this command; it names no tool call in the transcript.
        command_name: The skill or command whose text holds the shell line.
        command_source: Where that skill or command is defined (``projectSettings`` …).
        invoked_by: ``"user"`` (typed, or sent by an SDK host), ``"claude"`` (the Skill tool,
            or a turn Claude scheduled) or ``"other"``.
    """

    hook_event_name: Literal["PreSkillShellCommand"]
    tool_name: str
    tool_input: SkillShellCommandInput
    tool_use_id: str
    command_name: str
    command_source: NotRequired[str]
    invoked_by: Literal["user", "claude", "other"]


class SessionStartHookInput(BaseHookInput):
    """What a ``SessionStart`` hook receives: a session started, resumed, was cleared, compacted or
    forked.

    Keys:
        hook_event_name: ``"SessionStart"``.
        source: ``"startup"``, ``"resume"``, ``"clear"``, ``"compact"`` or ``"fork"``.
        agent_type: The agent type the session runs as, if any.
        model: The model in use.
        session_title: The session's title, when it has one.
        seconds_since_last_response: Seconds since the last response, for a resumed session.
        context_tokens: The conversation's size in tokens.
        prompt_cache_likely_expired: Whether the prompt cache has probably expired.
        estimated_cache_write_usd: The estimated cost of re-writing the cache, in US dollars.
    """

    hook_event_name: Literal["SessionStart"]
    source: Literal["startup", "resume", "clear", "compact", "fork"]
    agent_type: NotRequired[str]
    model: NotRequired[str]
    session_title: NotRequired[str]
    seconds_since_last_response: NotRequired[float]
    context_tokens: NotRequired[int]
    prompt_cache_likely_expired: NotRequired[bool]
    estimated_cache_write_usd: NotRequired[float]


class SessionEndHookInput(BaseHookInput):
    """What a ``SessionEnd`` hook receives: the session ends.

    Keys:
        hook_event_name: ``"SessionEnd"``.
        reason: ``"clear"``, ``"resume"``, ``"logout"``, ``"prompt_input_exit"`` or ``"other"``.
    """

    hook_event_name: Literal["SessionEnd"]
    reason: Literal["clear", "resume", "logout", "prompt_input_exit", "other"]


class SetupHookInput(BaseHookInput):
    """What a ``Setup`` hook receives: the CLI's setup step runs.

    Keys:
        hook_event_name: ``"Setup"``.
        trigger: ``"init"`` or ``"maintenance"``.
    """

    hook_event_name: Literal["Setup"]
    trigger: Literal["init", "maintenance"]


class StopHookInput(BaseHookInput):
    """What a ``Stop`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"Stop"``.
        stop_hook_active: True when the agent is already continuing because of a Stop hook (guard
            against loops).
        last_assistant_message: The text of the agent's last message, when there is one.
        background_tasks: Background tasks still running.
        session_crons: The session's scheduled prompts.
    """

    hook_event_name: Literal["Stop"]
    stop_hook_active: bool
    last_assistant_message: NotRequired[str]
    background_tasks: NotRequired[List[BackgroundTaskSummary]]
    session_crons: NotRequired[List[SessionCronSummary]]


class StopFailureHookInput(BaseHookInput):
    """What a ``StopFailure`` hook receives: the turn ended with an error.

    Keys:
        hook_event_name: ``"StopFailure"``.
        error: What made the turn fail.
        error_details: More detail, when there is some.
        last_assistant_message: The text of the agent's last message, when there is one.
    """

    hook_event_name: Literal["StopFailure"]
    error: str
    error_details: NotRequired[str]
    last_assistant_message: NotRequired[str]


class SubagentStartHookInput(BaseHookInput):
    """What a ``SubagentStart`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"SubagentStart"``.
        agent_id: The subagent's id.
        agent_type: Its type.
    """

    hook_event_name: Literal["SubagentStart"]
    agent_id: str
    agent_type: str


class SubagentStopHookInput(BaseHookInput):
    """What a ``SubagentStop`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"SubagentStop"``.
        stop_hook_active: True when the subagent is already continuing because of a stop hook.
        agent_id: The subagent's id.
        agent_transcript_path: The path of the subagent's transcript.
        agent_type: Its type.
        last_assistant_message: The text of the agent's last message, when there is one.
        background_tasks: Background tasks still running.
        session_crons: The session's scheduled prompts.
    """

    hook_event_name: Literal["SubagentStop"]
    stop_hook_active: bool
    agent_id: str
    agent_transcript_path: str
    agent_type: str
    last_assistant_message: NotRequired[str]
    background_tasks: NotRequired[List[BackgroundTaskSummary]]
    session_crons: NotRequired[List[SessionCronSummary]]


class PreCompactHookInput(BaseHookInput):
    """What a ``PreCompact`` hook receives as ``hook_input`` (the CLI's field names).

    Keys:
        hook_event_name: ``"PreCompact"``.
        trigger: ``"manual"`` (``/compact``) or ``"auto"``.
        custom_instructions: The instructions given with ``/compact``, if any.
    """

    hook_event_name: Literal["PreCompact"]
    trigger: Literal["manual", "auto"]
    custom_instructions: Optional[str]


class PostCompactHookInput(BaseHookInput):
    """What a ``PostCompact`` hook receives: the history was compacted.

    Keys:
        hook_event_name: ``"PostCompact"``.
        trigger: ``"manual"`` or ``"auto"``.
        compact_summary: The summary that replaced the history.
    """

    hook_event_name: Literal["PostCompact"]
    trigger: Literal["manual", "auto"]
    compact_summary: str


class _ModelSwitch(BaseHookInput):
    """What the CLI says about a model switch (both ``PreModelSwitch`` and ``PostModelSwitch``)."""

    from_model: str
    to_model: str
    requested_model: Optional[str]
    source: str
    context_tokens: int
    prompt_cache_warm: bool
    cache_ttl: Literal["5m", "1h"]
    estimated_cache_write_usd: float
    pricing: Literal["configured", "catalog", "default"]


class PreModelSwitchHookInput(_ModelSwitch):
    """Before the model changes; ``source`` is ``command``, ``picker`` or ``sdk``.

    Keys:
        hook_event_name: ``"PreModelSwitch"``.
        from_model: The model in use before the switch.
        to_model: The model switched to.
        requested_model: The model name that was asked for (an alias before resolution), when any.
        source: What switches it (``command``, ``picker``, ``sdk``; after a switch also ``auto`` or
            ``resume``).
        context_tokens: The conversation's size in tokens.
        prompt_cache_warm: Whether the prompt cache is warm for the old model.
        cache_ttl: ``"5m"`` or ``"1h"``: the prompt cache lifetime.
        estimated_cache_write_usd: The estimated cost of writing the conversation to the new model's
            cache, in US dollars.
        pricing: ``"configured"``, ``"catalog"`` or ``"default"``: where the price estimate comes
            from.
    """

    hook_event_name: Literal["PreModelSwitch"]


class PostModelSwitchHookInput(_ModelSwitch):
    """After the model changed; ``source`` also ``auto`` (fallback) or ``resume``.

    Keys:
        hook_event_name: ``"PostModelSwitch"``.
        from_model: The model in use before the switch.
        to_model: The model switched to.
        requested_model: The model name that was asked for (an alias before resolution), when any.
        source: What switches it (``command``, ``picker``, ``sdk``; after a switch also ``auto`` or
            ``resume``).
        context_tokens: The conversation's size in tokens.
        prompt_cache_warm: Whether the prompt cache is warm for the old model.
        cache_ttl: ``"5m"`` or ``"1h"``: the prompt cache lifetime.
        estimated_cache_write_usd: The estimated cost of writing the conversation to the new model's
            cache, in US dollars.
        pricing: ``"configured"``, ``"catalog"`` or ``"default"``: where the price estimate comes
            from.
    """

    hook_event_name: Literal["PostModelSwitch"]


HookInput = Union[
    PreToolUseHookInput, PostToolUseHookInput, PostToolUseFailureHookInput,
    PostToolBatchHookInput, PermissionDeniedHookInput, PermissionRequestHookInput,
    NotificationHookInput, UserPromptSubmitHookInput, UserPromptExpansionHookInput,
    SessionStartHookInput, SessionEndHookInput, SetupHookInput, StopHookInput,
    StopFailureHookInput, SubagentStartHookInput, SubagentStopHookInput, PreCompactHookInput,
    PostCompactHookInput, PreModelSwitchHookInput, PostModelSwitchHookInput,
    TeammateIdleHookInput, TaskCreatedHookInput, TaskCompletedHookInput, ElicitationHookInput,
    ElicitationResultHookInput, ConfigChangeHookInput, InstructionsLoadedHookInput,
    WorktreeCreateHookInput, WorktreeRemoveHookInput, CwdChangedHookInput,
    FileChangedHookInput, DirectoryAddedHookInput, MessageDisplayHookInput,
    PreSkillShellCommandHookInput,
]  # fmt: skip
"""Any hook input (one member per event in ``KNOWN_HOOK_EVENTS``)."""
