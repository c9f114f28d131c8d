"""``ClaudeAgentOptions`` and the config shapes its fields take (pure data, no I/O).

Everything here is a record or a TypedDict. ``ClaudeAgentOptions`` and ``AgentDefinition`` are
built once per session and users may change them (``options.raise_on_error_result = False``),
so they are records — mutable dataclasses with generic methods, cheaper to define (see
``record``). ``ClaudeAgentOptions`` uses the official SDK's field names so code ports by
dropping ``async``/``await``; the fields marked "ours" are claude_sync additions (pool size and
the timeouts of the threaded shell). The permission and hook types its fields hold are in
``permission_types`` and ``hook_types``.
"""

from __future__ import annotations

from dataclasses import field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Literal,
    Optional,
    TextIO,
    TypedDict,
    Union,
)

from .._callbacks.hook_types import HookEvent, HookMatcher
from .._callbacks.permission_types import CanUseTool, PermissionMode
from .._mcp.config import (  # the MCP config shapes live with the MCP feature
    McpHttpServerConfig,
    McpSdkServerConfig,
    McpSSEServerConfig,
    McpStdioServerConfig,
)
from .._wire.record import Record, record

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from .._callbacks.dialogs import OnElicitation, OnUserDialog
    from .._mcp.server import SdkMcpServer
    from .._sessions.types import SessionStore, SessionStoreFlushMode
    from .config_types import SandboxSettings, SdkPluginConfig, ThinkingConfig

SettingSource = Literal["user", "project", "local"]
EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]


class SystemPromptPreset(TypedDict, total=False):
    """Claude Code's own prompt; ``append`` adds to it. ``snapshot`` → ``initialize.systemPromptSnapshot``."""

    type: Literal["preset"]
    preset: Literal["claude_code"]
    append: str
    exclude_dynamic_sections: bool
    snapshot: bool


class SystemPromptCustom(TypedDict, total=False):
    """A prompt of your own, in place of Claude Code's (same as passing the string)."""

    type: Literal["custom"]
    prompt: str
    snapshot: bool


class SystemPromptFile(TypedDict):
    type: Literal["file"]
    path: str


class ToolsPreset(TypedDict):
    type: Literal["preset"]
    preset: Literal["claude_code"]


class TaskBudget(TypedDict):
    """``ClaudeAgentOptions.task_budget``: the ``total`` token budget of a task."""

    total: int


McpServerConfig = Union[
    McpStdioServerConfig,
    McpSSEServerConfig,
    McpHttpServerConfig,
    McpSdkServerConfig,
    "SdkMcpServer",
    Dict[str, Any],
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


# --------------------------------------------------------------------------- options


@record
class ClaudeAgentOptions(Record):
    """Everything that configures one CLI process. All fields are optional.

    Field names follow the official SDK. Ours: ``callback_workers`` (callback pool size),
    ``control_timeout`` (default for control requests), ``initialize_timeout`` (the
    handshake), ``close_timeout`` (each rung of the close ladder), ``deny_all_permissions``
    (answer every permission request with a deny, for batch jobs that must never prompt),
    ``raise_on_error_result`` (``query()`` raises ``ResultError`` after an error result).

    ``verbatim_prompts`` marks every user message we send ``client_composed`` (no ``@path``
    expansion, no slash commands; CLI >= 2.1.248). ``resume_drops_turn`` →
    ``--resume-drops-turn=ID`` (sent even when empty, so the CLI rejects it). ``client_app``
    → env ``CLAUDE_AGENT_SDK_CLIENT_APP`` (the User-Agent app label). ``debug_stderr``: where
    the CLI's stderr lines go when no ``stderr`` callback is set (default: ``sys.stderr`` at
    the time of writing); the official SDK no longer reads it and lets the CLI write to the
    terminal directly.

    The last block holds TypeScript-SDK options neither Python SDK has (see ``argv.INITIALIZE_ONLY_OPTIONS`` and ``_callbacks.dialogs``).
    """

    tools: Optional[Union[List[str], ToolsPreset]] = None
    allowed_tools: List[str] = field(default_factory=list)
    disallowed_tools: List[str] = field(default_factory=list)
    system_prompt: Optional[Union[str, SystemPromptPreset, SystemPromptCustom, SystemPromptFile]] = None
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
    sandbox: Optional[SandboxSettings] = None
    plugins: List[SdkPluginConfig] = field(default_factory=list)
    max_thinking_tokens: Optional[int] = None
    thinking: Optional[ThinkingConfig] = None
    effort: Optional[EffortLevel] = None
    output_format: Optional[Dict[str, Any]] = None
    enable_file_checkpointing: bool = False
    task_budget: Optional[TaskBudget] = None
    debug_stderr: Optional[TextIO] = None
    verbatim_prompts: bool = False
    resume_drops_turn: Optional[str] = None
    client_app: Optional[str] = None
    session_store: Optional[SessionStore] = None  # mirror transcripts to it; resume from it
    session_store_flush: SessionStoreFlushMode = "batched"
    load_timeout_ms: int = 60_000  # bounds each store call of a resume from the store
    # ours
    callback_workers: int = 4
    control_timeout: float = 60.0
    initialize_timeout: float = 60.0
    close_timeout: float = 5.0
    deny_all_permissions: bool = False
    raise_on_error_result: bool = True
    # TS-SDK extras: what the TypeScript SDK has and both Python SDKs lack (``argv.INITIALIZE_ONLY_OPTIONS``:
    # initialize-only options, the elicitation / user-dialog host callbacks)
    tool_aliases: Optional[Dict[str, str]] = None
    plan_mode_instructions: Optional[str] = None
    title: Optional[str] = None
    prompt_suggestions: bool = False
    agent_progress_summaries: bool = False
    supported_dialog_kinds: Optional[List[str]] = None
    per_task_stop_affordance: bool = False
    on_elicitation: Optional[OnElicitation] = None
    on_user_dialog: Optional[OnUserDialog] = None

    def __post_init__(self) -> None:
        """Raises ``TypeError``/``ValueError`` naming a bad option (see ``validation``)."""
        from .validation import validate_options

        validate_options(self)

    def __repr__(self) -> str:
        """The fields, with ``env`` values and anything that looks like a secret redacted."""
        from .._display.redaction import redacted_repr

        return redacted_repr(self)

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
    "ClaudeAgentOptions",
    "DEFAULT_MAX_BUFFER_SIZE",
    "EffortLevel",
    "McpHttpServerConfig",
    "McpSSEServerConfig",
    "McpSdkServerConfig",
    "McpServerConfig",
    "McpStdioServerConfig",
    "SettingSource",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "TaskBudget",
    "ToolsPreset",
]
