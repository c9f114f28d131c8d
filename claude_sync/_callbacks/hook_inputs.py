"""What a hook callback receives: one TypedDict per hook event the CLI knows (33 in CLI 2.1.330).

The shapes are the CLI's own input schemas (the union of per-event schemas in CLI 2.1.330),
with the official SDK's names for the ten it types (``PreToolUseHookInput`` …) and the same
pattern for the other 23 (``PreModelSwitchHookInput``, ``DirectoryAddedHookInput`` …).
Keys the CLI always sends are required; the others are ``NotRequired``. These are type
hints only: the callback gets the plain dict the CLI sent, new keys included.

Not imported by ``import claude_sync`` (``typing_extensions`` is not free); reach these through
``claude_sync.types`` or the lazy names of ``claude_sync``. Pure module.
"""


from typing import Any, Dict, List, Literal, Optional, Union

from typing_extensions import NotRequired, TypedDict

__all__ = [
    "BackgroundTaskSummary", "BaseHookInput", "ConfigChangeHookInput", "CwdChangedHookInput",
    "DirectoryAddedHookInput", "ElicitationHookInput", "ElicitationResultHookInput",
    "FileChangedHookInput", "HookEffort", "HookInput", "HookMcpServer",
    "InstructionsLoadedHookInput", "MessageDisplayHookInput", "NotificationHookInput",
    "PermissionDeniedHookInput", "PermissionRequestHookInput", "PostCompactHookInput",
    "PostModelSwitchHookInput", "PostToolBatchHookInput", "PostToolBatchToolCall",
    "PostToolUseFailureHookInput", "PostToolUseHookInput", "PreCompactHookInput",
    "PreModelSwitchHookInput", "PreToolUseHookInput", "SessionCronSummary",
    "SessionEndHookInput", "SessionStartHookInput", "SetupHookInput", "StopFailureHookInput",
    "StopHookInput", "SubagentStartHookInput", "SubagentStopHookInput", "TaskCompletedHookInput",
    "TaskCreatedHookInput", "TeammateIdleHookInput", "UserPromptExpansionHookInput",
    "UserPromptSubmitHookInput", "WorktreeCreateHookInput", "WorktreeRemoveHookInput",
]  # fmt: skip


class HookEffort(TypedDict):
    """The session's effort level, on every hook input (``effort``)."""

    level: str


class HookMcpServer(TypedDict):
    """For ``mcp__*`` tools: the server's config key and where its definition came from."""

    name: str
    source: str


class BackgroundTaskSummary(TypedDict):
    """A background task still running when the agent stops (``Stop``/``SubagentStop``)."""

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
    """A scheduled prompt of the session (``Stop``/``SubagentStop``)."""

    id: str
    schedule: str
    recurring: bool
    prompt: str


class BaseHookInput(TypedDict):
    """Keys common to every hook input."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: NotRequired[str]
    prompt_id: NotRequired[str]
    effort: NotRequired[HookEffort]


class _SubagentAware(BaseHookInput):
    """Tool events also say which subagent (if any) is running the tool."""

    agent_id: NotRequired[str]
    agent_type: NotRequired[str]


class PreToolUseHookInput(_SubagentAware):
    """What a ``PreToolUse`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["PreToolUse"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    mcp_server: NotRequired[HookMcpServer]


class PostToolUseHookInput(_SubagentAware):
    """What a ``PostToolUse`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["PostToolUse"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_response: Any
    tool_use_id: str
    duration_ms: NotRequired[float]
    mcp_server: NotRequired[HookMcpServer]


class PostToolUseFailureHookInput(_SubagentAware):
    """What a ``PostToolUseFailure`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["PostToolUseFailure"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    error: str
    is_interrupt: NotRequired[bool]
    duration_ms: NotRequired[float]
    mcp_server: NotRequired[HookMcpServer]


class PostToolBatchToolCall(TypedDict):
    """One tool call of a ``PostToolBatch`` input."""

    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    tool_response: NotRequired[Any]


class PostToolBatchHookInput(_SubagentAware):
    hook_event_name: Literal["PostToolBatch"]
    tool_calls: List[PostToolBatchToolCall]


class PermissionDeniedHookInput(_SubagentAware):
    hook_event_name: Literal["PermissionDenied"]
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str
    reason: str
    mcp_server: NotRequired[HookMcpServer]


class PermissionRequestHookInput(_SubagentAware):
    """What a ``PermissionRequest`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["PermissionRequest"]
    tool_name: str
    tool_input: Dict[str, Any]
    permission_suggestions: NotRequired[List[Any]]
    mcp_server: NotRequired[HookMcpServer]
    tool_kind: NotRequired[str]
    mcp_skill: NotRequired[Dict[str, Any]]


class NotificationHookInput(BaseHookInput):
    """What a ``Notification`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["Notification"]
    message: str
    title: NotRequired[str]
    notification_type: str


class UserPromptSubmitHookInput(BaseHookInput):
    """What a ``UserPromptSubmit`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["UserPromptSubmit"]
    prompt: str
    source: NotRequired[str]
    session_title: NotRequired[str]


class UserPromptExpansionHookInput(BaseHookInput):
    hook_event_name: Literal["UserPromptExpansion"]
    expansion_type: Literal["slash_command", "mcp_prompt"]
    command_name: str
    command_args: str
    command_source: NotRequired[str]
    prompt: str


class SessionStartHookInput(BaseHookInput):
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
    hook_event_name: Literal["SessionEnd"]
    reason: Literal["clear", "resume", "logout", "prompt_input_exit", "other"]


class SetupHookInput(BaseHookInput):
    hook_event_name: Literal["Setup"]
    trigger: Literal["init", "maintenance"]


class StopHookInput(BaseHookInput):
    """What a ``Stop`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["Stop"]
    stop_hook_active: bool
    last_assistant_message: NotRequired[str]
    background_tasks: NotRequired[List[BackgroundTaskSummary]]
    session_crons: NotRequired[List[SessionCronSummary]]


class StopFailureHookInput(BaseHookInput):
    hook_event_name: Literal["StopFailure"]
    error: str
    error_details: NotRequired[str]
    last_assistant_message: NotRequired[str]


class SubagentStartHookInput(BaseHookInput):
    """What a ``SubagentStart`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["SubagentStart"]
    agent_id: str
    agent_type: str


class SubagentStopHookInput(BaseHookInput):
    """What a ``SubagentStop`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["SubagentStop"]
    stop_hook_active: bool
    agent_id: str
    agent_transcript_path: str
    agent_type: str
    last_assistant_message: NotRequired[str]
    background_tasks: NotRequired[List[BackgroundTaskSummary]]
    session_crons: NotRequired[List[SessionCronSummary]]


class PreCompactHookInput(BaseHookInput):
    """What a ``PreCompact`` hook receives as ``hook_input`` (the CLI's field names)."""

    hook_event_name: Literal["PreCompact"]
    trigger: Literal["manual", "auto"]
    custom_instructions: Optional[str]


class PostCompactHookInput(BaseHookInput):
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
    """Before the model changes; ``source`` is ``command``, ``picker`` or ``sdk``."""

    hook_event_name: Literal["PreModelSwitch"]


class PostModelSwitchHookInput(_ModelSwitch):
    """After the model changed; ``source`` also ``auto`` (fallback) or ``resume``."""

    hook_event_name: Literal["PostModelSwitch"]


class TeammateIdleHookInput(BaseHookInput):
    hook_event_name: Literal["TeammateIdle"]
    teammate_name: str
    team_name: str


class TaskCreatedHookInput(BaseHookInput):
    hook_event_name: Literal["TaskCreated"]
    task_id: str
    task_subject: str
    task_description: NotRequired[str]
    teammate_name: NotRequired[str]
    team_name: NotRequired[str]


class TaskCompletedHookInput(BaseHookInput):
    hook_event_name: Literal["TaskCompleted"]
    task_id: str
    task_subject: str
    task_description: NotRequired[str]
    teammate_name: NotRequired[str]
    team_name: NotRequired[str]


class ElicitationHookInput(BaseHookInput):
    hook_event_name: Literal["Elicitation"]
    mcp_server_name: str
    message: str
    mode: NotRequired[Literal["form", "url"]]
    url: NotRequired[str]
    elicitation_id: NotRequired[str]
    requested_schema: NotRequired[Dict[str, Any]]


class ElicitationResultHookInput(BaseHookInput):
    hook_event_name: Literal["ElicitationResult"]
    mcp_server_name: str
    elicitation_id: NotRequired[str]
    mode: NotRequired[Literal["form", "url"]]
    action: Literal["accept", "decline", "cancel"]
    content: NotRequired[Dict[str, Any]]


class ConfigChangeHookInput(BaseHookInput):
    hook_event_name: Literal["ConfigChange"]
    source: Literal["user_settings", "project_settings", "local_settings", "policy_settings", "skills"]
    file_path: NotRequired[str]


class InstructionsLoadedHookInput(BaseHookInput):
    hook_event_name: Literal["InstructionsLoaded"]
    file_path: str
    memory_type: Literal["User", "Project", "Local", "Managed"]
    load_reason: Literal["session_start", "nested_traversal", "path_glob_match", "include", "compact"]
    globs: NotRequired[List[str]]
    trigger_file_path: NotRequired[str]
    parent_file_path: NotRequired[str]


class WorktreeCreateHookInput(BaseHookInput):
    hook_event_name: Literal["WorktreeCreate"]
    name: str


class WorktreeRemoveHookInput(BaseHookInput):
    hook_event_name: Literal["WorktreeRemove"]
    worktree_path: str


class CwdChangedHookInput(BaseHookInput):
    hook_event_name: Literal["CwdChanged"]
    old_cwd: str
    new_cwd: str


class FileChangedHookInput(BaseHookInput):
    hook_event_name: Literal["FileChanged"]
    file_path: str
    event: Literal["change", "add", "unlink"]


class DirectoryAddedHookInput(BaseHookInput):
    """A directory joined the session: ``/add-dir`` or the SDK's ``register_repo_root``."""

    hook_event_name: Literal["DirectoryAdded"]
    directory: str
    source: Literal["slash_command", "register_repo_root"]


class MessageDisplayHookInput(BaseHookInput):
    """Newly completed lines of a streaming assistant message (display only)."""

    hook_event_name: Literal["MessageDisplay"]
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str


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
]  # fmt: skip
"""Any hook input (one member per event in ``KNOWN_HOOK_EVENTS``)."""
