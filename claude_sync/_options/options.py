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

import copy
import dataclasses
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
    Type,
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
from .._redaction.redactor import redacted_repr
from .._wire.record import Record, record

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from .._callbacks.dialogs import OnElicitation, OnUserDialog
    from .._mcp.server import SdkMcpServer
    from .._sessions.types import SessionStore, SessionStoreFlushMode
    from .._wire.process_exit import OnProcessExit
    from .config_types import SandboxSettings, SdkPluginConfig, ThinkingConfig

SettingSource = Literal["user", "project", "local"]
"""Where the CLI reads settings from (``setting_sources``): ``"user"``, ``"project"`` or ``"local"``."""
EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]
"""``ClaudeAgentOptions.effort``: ``"low"``, ``"medium"``, ``"high"``, ``"xhigh"`` or ``"max"``."""


class SystemPromptPreset(TypedDict, total=False):
    """Claude Code's own prompt; ``append`` adds to it. ``snapshot`` → ``initialize.systemPromptSnapshot``.

    Keys:
        type: ``"preset"``.
        preset: ``"claude_code"``: Claude Code's own system prompt.
        append: Text appended to it.
        exclude_dynamic_sections: Leave out the sections that change per run (environment, git
            status …).
        snapshot: Ask the CLI for a snapshot of the system prompt
            (``initialize.systemPromptSnapshot``).
    """

    type: Literal["preset"]
    preset: Literal["claude_code"]
    append: str
    exclude_dynamic_sections: bool
    snapshot: bool


class SystemPromptCustom(TypedDict, total=False):
    """A prompt of your own, in place of Claude Code's (same as passing the string).

    Keys:
        type: ``"custom"``.
        prompt: The system prompt.
        snapshot: Ask the CLI for a snapshot of the system prompt.
    """

    type: Literal["custom"]
    prompt: str
    snapshot: bool


class SystemPromptFile(TypedDict):
    """A system prompt read from a file by the CLI.

    Keys:
        type: ``"file"``.
        path: The file the CLI reads the system prompt from (``--system-prompt-file``).
    """

    type: Literal["file"]
    path: str


class ToolsPreset(TypedDict):
    """``ClaudeAgentOptions.tools``: Claude Code's default tool set.

    Keys:
        type: ``"preset"``.
        preset: ``"claude_code"``: Claude Code's default tools.
    """

    type: Literal["preset"]
    preset: Literal["claude_code"]


class TaskBudget(TypedDict):
    """``ClaudeAgentOptions.task_budget``: the ``total`` token budget of a task.

    Keys:
        total: The task's token budget.
    """

    total: int


McpServerConfig = Union[
    McpStdioServerConfig,
    McpSSEServerConfig,
    McpHttpServerConfig,
    McpSdkServerConfig,
    "SdkMcpServer",
    Dict[str, Any],
]
"""A value of ``ClaudeAgentOptions.mcp_servers``: a stdio, SSE or HTTP server config, an in-process
server (``create_sdk_mcp_server``), an ``mcp`` package server, or a plain dict."""


@record
class AgentDefinition(Record):
    """A programmatic subagent (``--agents`` / ``initialize.agents``); wire keys are camelCase.

    Attributes:
        description: When the model should use this agent.
        prompt: The agent's system prompt.
        tools: The tools it may use; None: all of the parent's.
        disallowedTools: Tools it may not use.
        model: Its model (``sonnet``, ``opus``, ``haiku``, ``inherit`` or a full name); None: the
            parent's.
        skills: The skills it may use.
        memory: Which memory it reads: ``"user"``, ``"project"`` or ``"local"``.
        mcpServers: MCP servers it may use: names of the session's servers, or configs.
        initialPrompt: A first prompt it starts with.
        maxTurns: The most turns it may take.
        background: Whether it runs as a background task.
        effort: Its effort level, or a thinking budget in tokens.
        permissionMode: Its permission mode.
    """

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
class SpawnCommand(Record):
    """How the CLI is to be started: what ``ClaudeAgentOptions.spawn_command`` gets and returns.

    Build the one to return with ``command.replace(argv=[...], env={...}, cwd=...)`` (or a new
    ``SpawnCommand``). ``argv`` may name memory files (``/dev/fd/N``, inherited) and private
    temp files (mode 0600) holding the MCP config and settings: a wrapper that isolates the
    file system must let the CLI read them.

    Attributes:
        argv: The command line: the CLI's path (absolute), then its flags.
        env: The CLI's whole environment.
        cwd: The CLI's working directory (None: this process's).
    """

    argv: List[str]
    env: Dict[str, str]
    cwd: Optional[str] = None

    def replace(self, **changes: Any) -> SpawnCommand:
        """A copy with ``changes`` (``argv=``, ``env=``, ``cwd=``)."""
        return dataclasses.replace(self, **changes)


@record
class ClaudeAgentOptions(Record):
    """Everything that configures one CLI process. All fields are optional.

    Field names follow the official SDK. Ours: ``callback_workers`` (callback pool size),
    ``control_timeout`` (default for control requests), ``initialize_timeout`` (the
    handshake), ``close_timeout`` (each rung of the close ladder), ``deny_all_permissions``
    (answer every permission request with a deny, for batch jobs that must never prompt),
    ``raise_on_error_result`` (``query()`` raises ``ResultError`` after an error result),
    ``max_retries`` (how often the CLI retries a failed API request: env
    ``CLAUDE_CODE_MAX_RETRIES``, honoured by 2.1.197 and 2.1.331; 0 means one request; None
    leaves the CLI's default of 10).

    ``output_format`` takes, besides the official ``{"type": "json_schema", "schema": {…}}``,
    a dataclass, a TypedDict or a pydantic v2 model class: the schema is generated from it
    (``json_schema_of``) and the run's value comes back as an instance
    (``ResultMessage.parsed_output``, ``RunResult.output``; see ``claude_sync._structured``).

    ``verbatim_prompts`` marks every user message we send ``client_composed`` (no ``@path``
    expansion, no slash commands; CLI >= 2.1.248). ``slash_commands=False`` sends a prompt
    (or text block) that starts with ``/`` with one space in front, which CLI 2.1.197 and
    2.1.332 both take as text: the model gets it (with the space) and no command runs — for
    prompts typed by your users (``/config permissionMode=acceptEdits`` would otherwise write
    the user's ``settings.json``). ``resume_drops_turn`` →
    ``--resume-drops-turn=ID`` (sent even when empty, so the CLI rejects it). ``client_app``
    → env ``CLAUDE_AGENT_SDK_CLIENT_APP`` (the User-Agent app label). ``debug_stderr``: where
    the CLI's stderr lines go when no ``stderr`` callback is set (default: ``sys.stderr`` at
    the time of writing); the official SDK no longer reads it and lets the CLI write to the
    terminal directly.

    The last block holds TypeScript-SDK options neither Python SDK has (see ``argv.INITIALIZE_ONLY_OPTIONS`` and ``_callbacks.dialogs``).

    Attributes:
        tools: The built-in tools the model has: a list of names (``[]``: none) or the ``{"type":
            "preset", "preset": "claude_code"}`` preset; None: the CLI's default set.
        allowed_tools: Tools (and rules like ``Bash(npm test)``) that run without asking for
            permission (``--allowedTools``).
        disallowed_tools: Tools (and rules) the model may not use (``--disallowedTools``).
        system_prompt: A string (replaces the system prompt), a ``SystemPromptPreset`` (Claude
            Code's own, with ``append``), a ``SystemPromptCustom`` or a ``SystemPromptFile``; None:
            an empty system prompt, as the official SDKs send.
        mcp_servers: MCP servers by name (stdio, SSE, HTTP configs, in-process
            ``create_sdk_mcp_server`` servers, ``mcp`` package servers), or the path or JSON text of
            an MCP config file.
        strict_mcp_config: Use only the servers given here, none from the user's or project's
            settings.
        permission_mode: How permission requests are decided before ``can_use_tool`` is asked
            (``"default"``, ``"acceptEdits"``, ``"plan"``, ``"bypassPermissions"`` …).
        permission_prompt_tool_name: An MCP tool the CLI asks for permission decisions instead
            (``--permission-prompt-tool``); not together with ``can_use_tool`` (``ValueError``).
        continue_conversation: Continue the most recent session in ``cwd`` (``--continue``).
        resume: The id of a session to resume (from the local transcript, or from
            ``session_store``).
        session_id: The id a new session gets, instead of a generated one (a UUID).
        fork_session: With ``resume``: go on in a new session (new id) from the old one's history.
        resume_session_at: With ``resume``: resume from this message uuid, dropping what came after.
        max_turns: The most model turns a run may take (it then ends ``error_max_turns``).
        max_budget_usd: The most a run may cost, in US dollars (it then ends
            ``error_max_budget_usd``).
        model: The model (``claude-sonnet-4-5``, an alias like ``opus`` …); None: the CLI's default.
        fallback_model: The model to use when the main one is overloaded.
        betas: API beta names to enable (``--betas``).
        cwd: The CLI's working directory (the project it works on); None: this process's.
        cli_path: The ``claude`` binary to run; None: found on ``PATH`` and the usual install places
            (``CLINotFoundError`` when none).
        settings: Settings for the CLI (``--settings``): a dict (the settings object), a JSON
            text, or the path of a settings file.
        add_dirs: More directories the CLI may read and edit (``--add-dir``).
        env: Environment variables set for the CLI, on top of this process's (their values are
            hidden in ``repr()``).
        extra_args: More CLI flags: ``{"flag": "value"}`` gives ``--flag value``, ``{"flag": None}``
            gives ``--flag``.
        max_buffer_size: The longest stdout line read, in bytes (default 64 MiB); a longer one is
            skipped and reported as ``OversizedLineSkipped``.
        stderr: Called with each line the CLI writes to stderr, on the ``claude_sync-stderr-<pid>``
            thread.
        can_use_tool: Decides each tool call the CLI asks about: ``(tool_name, tool_input, context)
            -> PermissionResultAllow | PermissionResultDeny``, run on the callback pool.
        hooks: Hook functions by event name (``"PreToolUse"`` …): a list of ``HookMatcher`` each.
        user: The OS user to run the CLI as (``Popen(user=…)``).
        spawn_command: Start the CLI some other way (in a sandbox, a container, under another
            program), as the TS SDK's ``spawnClaudeCodeProcess``: called (connecting thread) with
            the ``SpawnCommand`` claude_sync built (argv, environment, cwd), it returns the one to
            run, e.g. ``lambda c: c.replace(argv=["unshare", "--net", "--", *c.argv])``. A bare
            program name is looked up on the returned environment's ``PATH``. claude_sync still
            starts the process: pipes, its own process group, the parent-death signal and the
            close ladder apply to the program it names, so a wrapper must ``exec`` the CLI or
            pass signals on (``bwrap --die-with-parent``). Not used with a custom ``transport``.
        include_partial_messages: Also yield ``StreamEvent`` messages as the model writes (token by
            token).
        include_hook_events: Also yield the hook lifecycle messages (``HookEventMessage`` …).
        forward_subagent_text: Forward the text subagents write as messages (``parent_tool_use_id``
            set).
        agents: Subagents by name, that the model can start with the ``Task``/``Agent`` tool.
        setting_sources: Which settings the CLI loads: ``"user"``, ``"project"``, ``"local"``; None:
            the CLI's default (``skills`` implies user and project).
        skills: The skills the model may use: a list of names, or ``"all"``.
        sandbox: Sandbox settings for the Bash tool (merged into ``--settings``).
        plugins: Plugins to load (``{"type": "local", "path": …}``).
        max_thinking_tokens: The thinking budget in tokens (the older spelling; ``thinking`` wins
            when both are set).
        thinking: Extended thinking: adaptive, enabled with a ``budget_tokens``, or disabled.
        effort: How hard the model works: ``"low"`` … ``"max"``.
        output_format: Structured output: ``{"type": "json_schema", "schema": {...}}``, or a
            dataclass, TypedDict or pydantic v2 model class (its schema is generated); the result's
            ``structured_output`` then holds the validated value, and for a class
            ``ResultMessage.parsed_output`` an instance of it.
        enable_file_checkpointing: Let the CLI keep file checkpoints, so
            ``ClaudeSDKClient.rewind_files`` can restore them.
        task_budget: A token budget for the task (``{"total": N}``; ``--task-budget``).
        debug_stderr: Where the CLI's stderr lines go when no ``stderr`` callback is set (default:
            ``sys.stderr`` at the time of writing).
        verbatim_prompts: Send user messages as written: no ``@path`` expansion, no slash commands
            (CLI >= 2.1.248).
        slash_commands: False: a prompt starting with ``/`` goes to the model as text (one space is
            put in front), on every CLI version; True (default): the CLI runs it as a command.
        resume_drops_turn: ``--resume-drops-turn=ID``: resume without the turn of that message (sent
            even when empty, so the CLI rejects it).
        client_app: The app label in the CLI's User-Agent (env ``CLAUDE_AGENT_SDK_CLIENT_APP``).
        session_store: A ``SessionStore`` the transcript is mirrored to; ``resume`` then also finds
            sessions only the store has.
        session_store_flush: ``"batched"`` (once per turn, before its result) or ``"eager"`` (after
            every transcript write).
        load_timeout_ms: Bounds each store call while loading a session to resume from the store, in
            milliseconds.
        callback_workers: The most threads the callback pool runs at once (callbacks, hooks, MCP
            tools). Ours.
        control_timeout: Seconds a control request (``set_model``, ``interrupt`` …) waits for the
            CLI's answer by default. Ours.
        initialize_timeout: Seconds the start-up handshake may take. Ours.
        close_timeout: Seconds each step of closing waits (stdin EOF, SIGTERM, SIGKILL, joining
            threads). Ours.
        deny_all_permissions: Deny every permission request without a callback, for batch jobs that
            must never prompt. Ours.
        raise_on_error_result: ``query()`` raises ``ResultError`` after yielding an error
            ``ResultMessage`` (False: data only). Ours.
        max_retries: How often the CLI retries a failed API request (env
            ``CLAUDE_CODE_MAX_RETRIES``); 0 means one request and no retry; None leaves the CLI's
            default (10). Ours.
        trace_cli: The CLI exports its own OpenTelemetry spans (model requests, tools, hooks) over
            OTLP into the caller's trace, under the run's span: the CLI's telemetry switches are
            set, and the endpoint is the ``OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`` of ``env`` or
            of this process (``ValueError`` at start-up without one). CLI 2.1.332 does; 2.1.197
            exports none. ``AgentPool`` gives such a CLI one run only. Ours.
        tool_aliases: Model's tool name → the tool to run instead (TypeScript SDK option, sent in
            ``initialize``).
        plan_mode_instructions: Text that replaces the plan-mode workflow instructions (TypeScript
            SDK option).
        title: The session's title, instead of a generated one (TypeScript SDK option).
        prompt_suggestions: Ask for a ``PromptSuggestionMessage`` after each result (TypeScript SDK
            option).
        agent_progress_summaries: Ask for summaries on subagents' task progress messages (TypeScript
            SDK option).
        supported_dialog_kinds: The dialog kinds ``on_user_dialog`` renders (TypeScript SDK option;
            newer CLIs).
        per_task_stop_affordance: Let an interrupt spare background tasks (TypeScript SDK option;
            newer CLIs).
        managed_settings: Policy-tier settings from this host (the TS SDK's ``managedSettings``):
            restrictive keys only (the CLI drops what would widen a policy), sent in
            ``initialize`` (``--await-initialize --managed-settings-in-initialize``); connecting
            raises ``CLIConnectionError`` unless the CLI confirms it stored them. CLI 2.1.332+
            (2.1.197 exits: unknown option).
        mcp_servers_delivery: How external ``mcp_servers`` reach the CLI: ``"argv"`` (an
            ``--mcp-config`` memory file: ``/dev/fd/N`` on the command line, never the servers'
            ``env`` or ``headers``) or ``"initialize"`` (in the ``initialize`` request, with
            ``--await-initialize``; connecting raises ``CLIConnectionError`` unless the CLI
            confirms it took them, ``mcp_servers_applied: true``: TS only warns, but a session
            without the servers its options name is not what was asked for). ``"initialize"``
            needs a dict ``mcp_servers`` and CLI 2.1.326+. ``"auto"`` (the default, as TS
            0.3.333's ``'initialize'`` default where the CLI can take it): ``"initialize"`` when
            ``claude --version`` reports 2.1.326 or newer (asked once per binary and process,
            only when there are external servers to send), else ``"argv"``; ``"argv"`` too with
            ``spawn_command`` (the command run is not the one to ask) or a custom transport.
        plugin_delivery: How ``plugins`` reach the CLI: ``"argv"`` (one ``--plugin-dir`` each) or
            ``"initialize"`` (in the ``initialize`` request; connecting raises
            ``CLIConnectionError`` unless the CLI reports every plugin loaded). CLI 2.1.332+.
        on_elicitation: Answers an MCP server's request for user input (``ElicitationRequest ->
            ElicitationResult``); without it, or when it raises, the answer is a decline.
        on_user_dialog: Answers the CLI's ``request_user_dialog`` (``UserDialogRequest ->
            UserDialogResult``); raising answers cancelled.
        on_process_exit: Called once with a ``ProcessExit`` (exit code or signal, whether
            ``close()`` ended it, the stderr tail) when the CLI process ends and has been
            reaped, on the ``claude_sync-process-exit-<pid>`` thread; ``close()`` joins it. Not
            called for a custom ``transport`` (see ``claude_sync._engine.exit_watch``).
        shared_pool: Lease the CLI from the machine-wide warm pool (``claude-sync serve``)
            instead of spawning it: ``True`` (the default socket), a socket path, ``False``
            (never), or None (the default: as the environment's ``CLAUDE_SYNC_SHARED_POOL``
            says — unset, ``""`` or ``"0"`` off, ``"1"`` the default socket, or a path). A
            plan that cannot be leased, or no pool at the socket, spawns as usual (logged
            once per process); a pool that does not lease within ``initialize_timeout``
            raises ``SharedPoolError``. See "Leasing the CLI" in ``docs/api/options.rst``.
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
    settings: Optional[Union[str, Path, Dict[str, Any]]] = None
    add_dirs: List[Union[str, Path]] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)
    extra_args: Dict[str, Optional[str]] = field(default_factory=dict)
    max_buffer_size: Optional[int] = None
    stderr: Optional[Callable[[str], None]] = None
    can_use_tool: Optional[CanUseTool] = None
    hooks: Optional[Dict[HookEvent, List[HookMatcher]]] = None
    user: Optional[str] = None
    spawn_command: Optional[Callable[[SpawnCommand], SpawnCommand]] = None
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
    output_format: Optional[Union[Dict[str, Any], Type[Any]]] = None
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
    max_retries: Optional[int] = None
    slash_commands: bool = True
    trace_cli: bool = False
    # TS-SDK extras: what the TypeScript SDK has and both Python SDKs lack (``argv.INITIALIZE_ONLY_OPTIONS``:
    # initialize-only options, the elicitation / user-dialog host callbacks)
    tool_aliases: Optional[Dict[str, str]] = None
    plan_mode_instructions: Optional[str] = None
    title: Optional[str] = None
    prompt_suggestions: bool = False
    agent_progress_summaries: bool = False
    supported_dialog_kinds: Optional[List[str]] = None
    per_task_stop_affordance: bool = False
    managed_settings: Optional[Dict[str, Any]] = None
    mcp_servers_delivery: Literal["auto", "argv", "initialize"] = "auto"
    plugin_delivery: Literal["argv", "initialize"] = "argv"
    on_elicitation: Optional[OnElicitation] = None
    on_user_dialog: Optional[OnUserDialog] = None
    on_process_exit: Optional[OnProcessExit] = None
    shared_pool: Union[None, bool, str] = None

    def __post_init__(self) -> None:
        """Raises ``TypeError``/``ValueError`` naming a bad option (see ``validation``)."""
        from .._redaction.secrets import remember_options
        from .validation import validate_options

        validate_options(self)
        remember_options(self)  # the redactor knows this run's secrets from now on

    def __repr__(self) -> str:
        """The fields, with ``env`` values and anything that looks like a secret redacted."""
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
    "SpawnCommand",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "TaskBudget",
    "ToolsPreset",
]
