"""Options, callback arguments and callback results (pure data, no I/O).

Everything here is a dataclass or a TypedDict. Classes built once per session
(``ClaudeAgentOptions``, ``AgentDefinition``, ``HookMatcher``) are records — mutable
dataclasses with generic methods, cheaper to define (see ``_record``); those built per callback
keep ``@dataclass``'s generated ``__init__``, cheaper to call. ``ClaudeAgentOptions`` uses the official
SDK's field names so code ports by dropping ``async``/``await``; the fields marked "ours"
are claude_sync additions (pool size and the timeouts of the threaded shell).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Literal,
    Mapping,
    Optional,
    Protocol,
    TypedDict,
    Union,
)

from .record import Record, record

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from .mcp import SdkMcpServer

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
SettingSource = Literal["user", "project", "local"]
EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]
PermissionUpdateDestination = Literal[
    "userSettings", "projectSettings", "localSettings", "session", "cliArg"
]
PermissionBehavior = Literal["allow", "deny", "ask"]


class CancellationSignal(Protocol):
    """What ``context.signal`` offers a callback: set once the CLI no longer wants the answer.

    The shell hands callbacks a ``threading.Event``; this protocol names the part callbacks
    may rely on.
    """

    def is_set(self) -> bool: ...

    def wait(self, timeout: Optional[float] = None) -> bool: ...


class SystemPromptPreset(TypedDict, total=False):
    type: Literal["preset"]
    preset: Literal["claude_code"]
    append: str
    exclude_dynamic_sections: bool


class SystemPromptFile(TypedDict):
    type: Literal["file"]
    path: str


class ToolsPreset(TypedDict):
    type: Literal["preset"]
    preset: Literal["claude_code"]


class TaskBudget(TypedDict):
    total: int


class McpStdioServerConfig(TypedDict, total=False):
    type: Literal["stdio"]
    command: str
    args: List[str]
    env: Dict[str, str]


class McpSSEServerConfig(TypedDict, total=False):
    type: Literal["sse"]
    url: str
    headers: Dict[str, str]


class McpHttpServerConfig(TypedDict, total=False):
    type: Literal["http"]
    url: str
    headers: Dict[str, str]


McpServerConfig = Union[
    McpStdioServerConfig, McpSSEServerConfig, McpHttpServerConfig, "SdkMcpServer", Dict[str, Any]
]


@record
class AgentDefinition(Record):
    """A programmatic subagent (``--agents`` / ``initialize.agents``); wire keys are camelCase."""

    description: str
    prompt: str
    tools: Optional[List[str]] = None
    disallowedTools: Optional[List[str]] = None  # noqa: N815 - wire name
    model: Optional[str] = None
    skills: Optional[List[str]] = None
    memory: Optional[Literal["user", "project", "local"]] = None
    mcpServers: Optional[List[Union[str, Dict[str, Any]]]] = None  # noqa: N815
    initialPrompt: Optional[str] = None  # noqa: N815
    maxTurns: Optional[int] = None  # noqa: N815
    background: Optional[bool] = None
    effort: Optional[Union[EffortLevel, int]] = None
    permissionMode: Optional[PermissionMode] = None  # noqa: N815

    def to_wire(self) -> Dict[str, Any]:
        """The CLI's JSON form: unset fields are left out."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


# --------------------------------------------------------------------------- permissions


@dataclass
class PermissionRuleValue:
    tool_name: str
    rule_content: Optional[str] = None


@dataclass
class PermissionUpdate:
    """One permission change, as the CLI suggests it and as an allow result may apply it.

    ``type`` is one of ``addRules``, ``replaceRules``, ``removeRules`` (use ``rules`` and
    ``behavior``), ``setMode`` (``mode``), ``addDirectories``, ``removeDirectories``
    (``directories``). Any wire key not modelled is kept in ``extra`` and written back.
    """

    type: str
    rules: Optional[List[PermissionRuleValue]] = None
    behavior: Optional[PermissionBehavior] = None
    mode: Optional[PermissionMode] = None
    directories: Optional[List[str]] = None
    destination: Optional[PermissionUpdateDestination] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        """The wire form (camelCase keys, unset fields left out)."""
        out: Dict[str, Any] = {"type": self.type}
        if self.rules is not None:
            out["rules"] = [_rule_to_wire(rule) for rule in self.rules]
        for key in ("behavior", "mode", "directories", "destination"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "directories" else value
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PermissionUpdate:
        """Build from the wire form; unknown keys go to ``extra`` (nothing is dropped).

        One pass over the items (this runs for every suggestion of every permission
        request, so it avoids a lookup per field).
        """
        fields: Dict[str, Any] = {"type": "", "extra": {}}
        extra = fields["extra"]
        for key, value in data.items():
            if key == "rules":
                fields["rules"] = None if value is None else [_rule_from_wire(rule) for rule in value]
            elif key == "directories":
                fields["directories"] = None if value is None else list(value)
            elif key in _UPDATE_SCALARS:
                fields[key] = value
            else:
                extra[key] = value
        fields["type"] = str(fields["type"])
        return cls(**fields)


_UPDATE_SCALARS = frozenset(("type", "behavior", "mode", "destination"))


def _rule_to_wire(rule: PermissionRuleValue) -> Dict[str, Any]:
    out: Dict[str, Any] = {"toolName": rule.tool_name}
    if rule.rule_content is not None:
        out["ruleContent"] = rule.rule_content
    return out


def _rule_from_wire(data: Mapping[str, Any]) -> PermissionRuleValue:
    return PermissionRuleValue(tool_name=data.get("toolName", ""), rule_content=data.get("ruleContent"))


@dataclass
class ToolPermissionContext:
    """What a ``can_use_tool`` callback learns about the request besides name and input."""

    signal: Optional[CancellationSignal] = None
    suggestions: List[PermissionUpdate] = field(default_factory=list)
    tool_use_id: Optional[str] = None
    agent_id: Optional[str] = None
    blocked_path: Optional[str] = None
    decision_reason: Optional[str] = None
    decision_reason_type: Optional[str] = None
    title: Optional[str] = None
    display_name: Optional[str] = None
    description: Optional[str] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@dataclass
class PermissionResultAllow:
    """Allow the tool. ``updated_input=None`` sends the original input (the CLI needs one)."""

    updated_input: Optional[Dict[str, Any]] = None
    updated_permissions: Optional[List[PermissionUpdate]] = None
    behavior: Literal["allow"] = "allow"


@dataclass
class PermissionResultDeny:
    """Deny the tool; ``interrupt=True`` also aborts the turn (``error_during_execution``)."""

    message: str = ""
    interrupt: bool = False
    behavior: Literal["deny"] = "deny"


PermissionResult = Union[PermissionResultAllow, PermissionResultDeny]
CanUseTool = Callable[[str, Dict[str, Any], ToolPermissionContext], PermissionResult]


# --------------------------------------------------------------------------- hooks

HookEvent = str
"""Any hook event name the CLI knows (2.1.197 knows 30; see ``KNOWN_HOOK_EVENTS``)."""

KNOWN_HOOK_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
)  # fmt: skip


@dataclass
class HookContext:
    """Passed to every hook callback. ``signal`` is set when the CLI cancels the request."""

    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    callback_id: Optional[str] = None


HookCallback = Callable[[Dict[str, Any], Optional[str], HookContext], Optional[Dict[str, Any]]]


@record
class HookMatcher(Record):
    """Hooks for one event: ``matcher`` filters tool names (regex / ``|`` list; None = all).

    ``timeout`` is in seconds and is enforced by the CLI: on expiry it cancels the request
    and, for tool hooks, denies the tool. Without it the CLI waits 600 s.
    """

    matcher: Optional[str] = None
    hooks: List[HookCallback] = field(default_factory=list)
    timeout: Optional[float] = None


class BaseHookInput(TypedDict, total=False):
    session_id: str
    transcript_path: str
    cwd: str
    prompt_id: str
    hook_event_name: str
    permission_mode: str
    effort: Dict[str, Any]


class PreToolUseHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str


class PostToolUseHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    tool_response: Any
    tool_use_id: str
    duration_ms: float


class PostToolBatchHookInput(BaseHookInput, total=False):
    tool_calls: List[Dict[str, Any]]


class PermissionRequestHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    permission_suggestions: List[Dict[str, Any]]


class UserPromptSubmitHookInput(BaseHookInput, total=False):
    prompt: str


class StopHookInput(BaseHookInput, total=False):
    stop_hook_active: bool
    last_assistant_message: Any
    background_tasks: Any
    session_crons: Any


class SubagentStartHookInput(BaseHookInput, total=False):
    agent_id: str
    agent_type: str


class SubagentStopHookInput(SubagentStartHookInput, total=False):
    agent_transcript_path: str
    last_assistant_message: Any


class PreCompactHookInput(BaseHookInput, total=False):
    trigger: str
    custom_instructions: Optional[str]


class PostCompactHookInput(BaseHookInput, total=False):
    compact_summary: str


class MessageDisplayHookInput(BaseHookInput, total=False):
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str


# --------------------------------------------------------------------------- options


@record
class ClaudeAgentOptions(Record):
    """Everything that configures one CLI process. All fields are optional.

    Field names follow the official SDK. Ours: ``callback_workers`` (callback pool size),
    ``control_timeout`` (default for control requests), ``initialize_timeout`` (the
    handshake), ``close_timeout`` (each rung of the close ladder), ``deny_all_permissions``
    (answer every permission request with a deny, for batch jobs that must never prompt),
    ``raise_on_error_result`` (``query()`` raises ``ResultError`` after an error result).
    """

    tools: Optional[Union[List[str], ToolsPreset]] = None
    allowed_tools: List[str] = field(default_factory=list)
    disallowed_tools: List[str] = field(default_factory=list)
    system_prompt: Optional[Union[str, SystemPromptPreset, SystemPromptFile]] = None
    mcp_servers: Union[Dict[str, McpServerConfig], str, Path] = field(default_factory=dict)
    strict_mcp_config: bool = False
    permission_mode: Optional[PermissionMode] = None
    permission_prompt_tool_name: Optional[str] = None
    continue_conversation: bool = False
    resume: Optional[str] = None
    session_id: Optional[str] = None
    fork_session: bool = False
    resume_session_at: Optional[str] = None
    max_turns: Optional[int] = None
    max_budget_usd: Optional[float] = None
    model: Optional[str] = None
    fallback_model: Optional[str] = None
    betas: List[str] = field(default_factory=list)
    cwd: Optional[Union[str, Path]] = None
    cli_path: Optional[Union[str, Path]] = None
    settings: Optional[str] = None
    add_dirs: List[Union[str, Path]] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)
    extra_args: Dict[str, Optional[str]] = field(default_factory=dict)
    max_buffer_size: Optional[int] = None
    stderr: Optional[Callable[[str], None]] = None
    can_use_tool: Optional[CanUseTool] = None
    hooks: Optional[Dict[HookEvent, List[HookMatcher]]] = None
    user: Optional[str] = None
    include_partial_messages: bool = False
    include_hook_events: bool = False
    forward_subagent_text: bool = False
    agents: Optional[Dict[str, AgentDefinition]] = None
    setting_sources: Optional[List[SettingSource]] = None
    skills: Optional[Union[List[str], Literal["all"]]] = None
    sandbox: Optional[Dict[str, Any]] = None
    plugins: List[Dict[str, Any]] = field(default_factory=list)
    max_thinking_tokens: Optional[int] = None
    thinking: Optional[Dict[str, Any]] = None
    effort: Optional[EffortLevel] = None
    output_format: Optional[Dict[str, Any]] = None
    enable_file_checkpointing: bool = False
    task_budget: Optional[TaskBudget] = None
    # ours
    callback_workers: int = 4
    control_timeout: float = 60.0
    initialize_timeout: float = 60.0
    close_timeout: float = 5.0
    deny_all_permissions: bool = False
    raise_on_error_result: bool = True

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickling: ``TypeError`` naming a field that holds callables (see ``portable``)."""
        from .portable import check_picklable_options

        check_picklable_options(self)
        return super().__reduce_ex__(protocol)

    def __copy__(self) -> ClaudeAgentOptions:  # copy keeps callables (no pickling check)
        clone = object.__new__(type(self))
        object.__setattr__(clone, "__dict__", dict(self.__dict__))
        return clone

    def __deepcopy__(self, memo: Dict[int, Any]) -> ClaudeAgentOptions:
        import copy

        clone = object.__new__(type(self))
        memo[id(self)] = clone
        object.__setattr__(clone, "__dict__", copy.deepcopy(self.__dict__, memo))
        return clone


DEFAULT_MAX_BUFFER_SIZE = 64 * 1024 * 1024
"""Default cap, in bytes, of one stdout line (``max_buffer_size``)."""

__all__ = [
    "AgentDefinition",
    "CanUseTool",
    "CancellationSignal",
    "ClaudeAgentOptions",
    "DEFAULT_MAX_BUFFER_SIZE",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookMatcher",
    "KNOWN_HOOK_EVENTS",
    "McpServerConfig",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "SettingSource",
    "ToolPermissionContext",
]
