"""``ClaudeAgentOptions`` → what they mean, worked out once, and how to spawn the CLI (pure).

``interpret_options`` turns options into an ``OptionsPlan``: the argv after the binary, the
environment overlay, the working directory, the OS user, the whole body of our
``initialize`` control request, and what the shell serves (the SDK MCP servers, the hook
registry, the permission routing). ``OptionsPlan.spawn_plan(cli_path, environ=…)`` (or
``build_spawn_plan``) adds the binary and the inherited environment: a ``SpawnPlan``. It
starts nothing and looks at no clock; it reads a file only to merge ``sandbox`` into a
settings *path*. The argv pieces are built in ``argv``; finding the binary is ``discovery.find_cli``.

Where each option goes (checked against the real CLI 2.1.197)::

    option                     carried as
    -------------------------  ---------------------------------------------------------------
    system_prompt None         initialize.systemPrompt = [""]   (empty prompt, as the SDKs do)
    system_prompt str          initialize.systemPrompt = [str]
    system_prompt custom       initialize.systemPrompt = [prompt]
    system_prompt preset       initialize.appendSystemPrompt (``append``),
                               initialize.excludeDynamicSections (``exclude_dynamic_sections``)
    snapshot (preset/custom)   initialize.systemPromptSnapshot (when a bool)
    system_prompt file         --system-prompt-file PATH   (hidden flag; the CLI reads the file)
    agents                     initialize.agents = {name: AgentDefinition.to_wire()}
    output_format json_schema  initialize.jsonSchema = schema
    skills list                initialize.skills, "Skill(name)" in --allowedTools,
                               --setting-sources=user,project unless setting_sources is set
    skills "all"               "Skill" in --allowedTools, the same setting-sources default
    forward_subagent_text      initialize.forwardSubagentText = true
    TS-SDK extras              initialize.toolAliases, .planModeInstructions, .title, … (see
                               ``argv.INITIALIZE_ONLY_OPTIONS``)
    hooks                      initialize.hooks = {event: [{hookCallbackIds, matcher, timeout,
                               onFailure}]}
    mcp_servers dict           --mcp-config FILE {"mcpServers": {...}} for external servers;
                               in-process servers (``type == "sdk"``, the one rule of
                               ``partition_mcp_servers``) go to
                               initialize.sdkMcpServers only (see SDK_MCP_VIA_INITIALIZE)
    mcp_servers str / Path     --mcp-config VALUE   (a file path or a JSON string, as given)
    settings / sandbox         --settings FILE (JSON, sandbox merged in, a settings path read
                               and merged too) or --settings PATH
    tools                      --tools a,b | --tools "" | --tools default (preset)
    allowed_tools              --allowedTools a,b        disallowed_tools  --disallowedTools a,b
    permission_mode            --permission-mode M       model             --model M
    permission_prompt_tool_name --permission-prompt-tool NAME
    can_use_tool               --permission-prompt-tool stdio
    deny_all_permissions       --permission-prompt-tool stdio (the shell denies every request)
    continue_conversation      --continue                resume            --resume=ID
    session_id                 --session-id=ID           fork_session      --fork-session
    resume_session_at          --resume-session-at=ID    max_turns         --max-turns N (if > 0)
    resume_drops_turn          --resume-drops-turn=ID (sent even when empty)
    max_budget_usd             --max-budget-usd X        fallback_model    --fallback-model M
    betas                      --betas a,b               add_dirs          --add-dir D (each)
    include_partial_messages   --include-partial-messages
    include_hook_events        --include-hook-events     strict_mcp_config --strict-mcp-config
    plugins (type "local")     --plugin-dir PATH (each)  effort            --effort LEVEL
    thinking                   --thinking adaptive|disabled, or --max-thinking-tokens N
                               (type "enabled"); ``display`` → --thinking-display
    max_thinking_tokens        --max-thinking-tokens N   (ignored when ``thinking`` is set)
    task_budget                --task-budget TOTAL
    extra_args                 --flag VALUE, or --flag for None (last, so they can override)
    env                        overlaid on the child's environment (see ``environment``)
    client_app                 env CLAUDE_AGENT_SDK_CLIENT_APP
    max_retries                env CLAUDE_CODE_MAX_RETRIES (no CLI flag exists)
    enable_file_checkpointing  env CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true
    trace_cli                  env CLAUDE_CODE_ENABLE_TELEMETRY=1, CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1,
                               OTEL_TRACES_EXPORTER=otlp (see ``environment.cli_trace_env``)
    cwd                        SpawnPlan.cwd (and env PWD)
    user                       SpawnPlan.user (the shell's ``Popen(user=…)``)
    session_store              --session-mirror (the store bridge does the rest)

Empty ``resume``/``session_id``/``model``/``permission_mode``… are left out, as the official
SDK leaves them out.

Consumed by the shell, not here (``SHELL_CONSUMED_FIELDS``): ``cli_path``
(``discovery.find_cli``), ``stderr``, ``max_buffer_size``, ``callback_workers``,
``control_timeout``, ``initialize_timeout``, ``close_timeout``, ``raise_on_error_result``,
``verbatim_prompts``, ``slash_commands``, ``debug_stderr``, ``spawn_command``.
``can_use_tool``, ``deny_all_permissions`` and ``hooks`` are both: the flag / ``initialize``
field is set here, the answers come from the shell, which serves what the ``OptionsPlan``
carries (``permissions``, ``hooks``, ``sdk_mcp_servers``).

Big values never go raw on argv: Linux refuses any single argv string over 128 KiB
(``MAX_ARG_STRLEN``) with ``E2BIG``. Prompts, agents and schemas ride in the ``initialize``
request (one stdin line, no size limit); MCP config and JSON settings become ``FileArg``
placeholders that the shell writes to temp files. Anything else that is still too long
raises ``ValueError`` here, naming the option, instead of failing in ``Popen``.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import field, replace
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    FrozenSet,
    List,
    Mapping,
    Optional,
    Tuple,
    Union,
)

from .._callbacks.permission_types import CanUseToolShadowedWarning
from .._mcp.config import sdk_server_instance
from .._wire.record import FrozenRecord, frozen_record
from .argv import (
    MAX_ARG_BYTES,
    ArgvItem,
    FileArg,
    JsonDict,
    agents_fields,
    check_argv_sizes,
    check_initialize_delivery,
    context_args,
    extra_args_argv,
    flag_pair,
    initialize_delivery,
    initialize_only_fields,
    limits_args,
    model_args,
    output_args,
    output_format_fields,
    permission_args,
    session_args,
    settings_args,
    skills_fields,
    system_prompt_args,
    tools_args,
)
from .cli_settings import remember_run_secrets
from .discovery import find_cli  # re-exported: the shell imports it with build_spawn_plan
from .environment import (  # re-exported: the environment is part of the plan
    ENTRYPOINT,
    build_env,
    env_overlay,
    finish_env,
    initialize_timeout,
)
from .hook_registry import HookRegistry, check_fail_closed_answer, check_observes_only_answer
from .options import ClaudeAgentOptions
from .tool_rules import PermissionRouting, can_use_tool_shadowing, skills_defaults

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from typing_extensions import TypeIs

    from .._callbacks.dialogs import OnElicitation, OnUserDialog

__all__ = [
    "ENTRYPOINT",
    "FileArg",
    "MAX_ARG_BYTES",
    "OptionsPlan",
    "SDK_MCP_VIA_INITIALIZE",
    "SHELL_CONSUMED_FIELDS",
    "SpawnPlan",
    "build_env",
    "build_spawn_plan",
    "find_cli",
    "interpret_options",
    "partition_mcp_servers",
]

SDK_MCP_VIA_INITIALIZE = True
"""In-process MCP servers are announced in ``initialize.sdkMcpServers`` and *not* written into
``--mcp-config``. Both work with 2.1.197 (``tests/e2e/test_mcp_e2e.py`` runs both):

* ``sdkMcpServers`` (this default, as the TypeScript SDK does): the CLI connects the servers
  lazily, one handshake (initialize, notifications/initialized, tools/list) after the first
  user message; ``mcp_status`` lists them only from then on.
* ``--mcp-config`` entries ``{"type": "sdk", "name": KEY}``: the handshake starts before the
  CLI answers our ``initialize`` (the answer does not wait for it; the callback pool serves it
  while ``connect()`` waits), and runs a second time, ids restarting at 0, if the first user
  message arrives before the first handshake has finished.

Either way the CLI addresses a server by its key in ``mcp_servers`` (``mcp_message.server_name``,
tool names ``mcp__KEY__tool``), whatever name the server object was created with."""

SHELL_CONSUMED_FIELDS: FrozenSet[str] = frozenset(
    {
        "cli_path",  # find_cli(options.cli_path)
        "stderr",  # the transport's stderr drain calls it per line
        "max_buffer_size",  # the line framer's cap
        "callback_workers",  # the callback pool's size
        "control_timeout",
        "initialize_timeout",
        "close_timeout",
        "raise_on_error_result",  # query() raises ResultError after an error result
        "verbatim_prompts",  # the session stamps every user frame client_composed
        "slash_commands",  # False: the session puts a space before a leading "/" of a user frame
        "debug_stderr",  # the transport's stderr drain writes there when no callback is set
        "session_store_flush",  # the store bridge's batching (session_store itself: --session-mirror)
        "load_timeout_ms",  # bounds the store bridge's loads for a resume from the store
        "on_elicitation",  # the shell answers the CLI's elicitation requests with it
        "on_user_dialog",  # ... and its request_user_dialog requests
        "on_process_exit",  # build_session plugs in its watch (_engine.exit_watch)
        "spawn_command",  # spawn.start_transport turns the built command into the one it runs
        "shared_pool",  # the wiring plugs in a lease from the shared pool (_shared_pool.extension)
    }
)
"""``ClaudeAgentOptions`` fields ``interpret_options`` deliberately leaves to the I/O shell."""


@frozen_record
class OptionsPlan(FrozenRecord):
    """Everything a ``ClaudeAgentOptions`` means, worked out once (``interpret_options``).

    The session spawns from it (``spawn_plan``) and the request handlers serve from it, so no
    option is interpreted twice:

    * ``cli_args``: the argv after the binary path; ``env_overlay``: what goes on top of the
      inherited environment (ours, then ``options.env``); ``cwd`` and ``user`` for ``Popen``.
    * ``initialize_fields``: the whole body of our ``initialize`` request (``subtype`` not
      included): ``hooks``, ``sdkMcpServers``, ``agents``, the system prompt …
    * ``sdk_mcp_servers``: each in-process server by its key in ``mcp_servers`` (what the
      CLI's ``mcp_message.server_name`` says); exactly these are announced and served.
    * ``hooks``: the callback ids of ``initialize.hooks`` and the callbacks behind them.
    * ``permissions``: who answers the CLI's permission prompts.
    * ``on_elicitation`` / ``on_user_dialog``: the host dialogs' callbacks (TS-SDK extras).
    """

    cli_args: List[ArgvItem]
    env_overlay: Dict[str, str] = field(repr=False)  # holds options.env: keys may be secrets
    cwd: Optional[str]
    user: Optional[Union[str, int]]
    initialize_fields: JsonDict
    sdk_mcp_servers: Dict[str, Any]
    hooks: HookRegistry
    permissions: PermissionRouting
    explicit_env: FrozenSet[str] = frozenset()
    """The keys of ``options.env`` (they win over the trace context)."""
    trace_cli: bool = False
    """``options.trace_cli``: the environment must name an OTLP endpoint (``finish_env``)."""
    initialize_timeout: float = 60.0
    """``options.initialize_timeout`` (``CLAUDE_CODE_STREAM_CLOSE_TIMEOUT`` may raise it)."""
    on_elicitation: Optional[OnElicitation] = None
    on_user_dialog: Optional[OnUserDialog] = None
    trace_carrier: Optional[Dict[str, str]] = None
    """The caller's OpenTelemetry W3C context (``traceparent``/``tracestate``) for the CLI to
    parent its spans under; set at connect by the tracing extension's ``prepare``
    (``claude_sync._tracing.carrier``), None without OpenTelemetry."""

    @property
    def calls_back(self) -> bool:
        """True when the CLI may send requests this process must answer over stdin: hooks,
        the permission prompts (``can_use_tool`` / ``deny_all_permissions``), in-process MCP."""
        return self.permissions.prompt_tool == "stdio" or len(self.hooks) > 0 or bool(self.sdk_mcp_servers)

    def spawn_plan(
        self,
        cli_path: Union[str, os.PathLike[str]],
        *,
        environ: Optional[Mapping[str, str]] = None,
    ) -> SpawnPlan:
        """The ``SpawnPlan`` for the CLI at ``cli_path``, inheriting ``environ`` (default:
        ``os.environ``; see ``build_env`` for the layering), with ``trace_carrier`` in it. Raises ``ValueError`` for a malformed
        ``CLAUDE_CODE_STREAM_CLOSE_TIMEOUT``; the options were checked when this plan was made."""
        inherited = os.environ if environ is None else environ
        return SpawnPlan(
            argv=[os.fspath(cli_path), *self.cli_args],
            env=finish_env(self.env_overlay, inherited, self.explicit_env, self.trace_carrier, self.trace_cli),
            cwd=self.cwd,
            user=self.user,
            initialize_fields=self.initialize_fields,
            sdk_mcp_servers=self.sdk_mcp_servers,
            initialize_timeout=initialize_timeout(self.initialize_timeout, inherited),
            hooks_fail_closed=self.hooks.blocks_on_failure,
            hooks_observe_only=self.hooks.observes_only,
        )


@frozen_record
class SpawnPlan(FrozenRecord):
    """Everything needed to start one CLI process and open its session.

    ``argv[0]`` is the CLI path. ``env`` is the child's whole environment. ``cwd`` and
    ``user`` go to ``Popen``. ``initialize_fields`` are our ``initialize`` control request
    (``subtype`` not included). ``sdk_mcp_servers`` maps each in-process server's name (the
    key in ``mcp_servers``, which is what the CLI's ``mcp_message.server_name`` says) to the
    server object. Made by ``OptionsPlan.spawn_plan``.
    """

    argv: List[ArgvItem]
    env: Dict[str, str] = field(repr=False)  # the whole environment: API keys included
    cwd: Optional[str] = None
    user: Optional[Union[str, int]] = None
    initialize_fields: JsonDict = field(default_factory=dict)
    sdk_mcp_servers: Dict[str, Any] = field(default_factory=dict)
    initialize_timeout: float = 60.0
    hooks_fail_closed: bool = False
    """Some hook matcher has ``on_failure="block"`` (see ``check_initialize_answer``)."""
    hooks_observe_only: bool = False
    """Some ``Stop`` hook matcher has ``observes_only=True`` (see ``check_initialize_answer``)."""

    def check_initialize_answer(self, response: Mapping[str, Any]) -> None:
        """Raises ``CLIConnectionError`` when a fail-closed hook would not be (see
        ``hook_registry.check_fail_closed_answer``), or a launch-only ``initialize`` field was not
        taken (``argv.check_initialize_delivery``). Logs a warning when a CLI too old for a
        hook's ``observes_only`` got one (``hook_registry.check_observes_only_answer``)."""
        if self.hooks_fail_closed:
            check_fail_closed_answer(response)
        if self.hooks_observe_only:
            check_observes_only_answer(response)
        check_initialize_delivery(self.initialize_fields, response)

    def argv_strings(self) -> List[str]:
        """The argv with every ``FileArg`` shown as ``<file:suffix>`` (for logs and tests)."""
        return [a if isinstance(a, str) else f"<file{a.suffix}>" for a in self.argv]


# --------------------------------------------------------------------------- the plan


def _read_utf8(path: str) -> str:
    with open(path, encoding="utf-8-sig") as handle:
        return handle.read()


def interpret_options(
    options: ClaudeAgentOptions, read_text: Callable[[str], str] = _read_utf8
) -> OptionsPlan:
    """Work out everything ``options`` mean, once: see ``OptionsPlan``.

    ``read_text`` reads a settings file, only when ``sandbox`` must be merged into one
    (``CLIConnectionError`` if it cannot be read or parsed). Warns
    ``CanUseToolShadowedWarning`` when ``can_use_tool`` will not be asked about some calls.

    Raises ``ValueError`` for contradictory or unsupported options (two of ``can_use_tool``,
    ``permission_prompt_tool_name``, ``deny_all_permissions``; an unknown
    ``system_prompt``/``thinking``/``output_format``/plugin type, invalid JSON settings, a bad
    skill name, a ``"sdk"`` MCP entry without an ``instance``, an argv value over
    ``MAX_ARG_BYTES``, a hook timeout that is not > 0, ``supported_dialog_kinds`` without
    ``on_user_dialog``) and ``TypeError`` for values of the wrong type (an agent that is not an
    ``AgentDefinition``/dict, a non-string ``env`` value, an MCP server of type ``"sdk"``
    without ``handle`` or whose ``instance`` is not a server, a bad hook matcher, a TS-SDK extra
    option of the wrong type).
    """
    permissions = PermissionRouting.from_options(
        options.can_use_tool, options.permission_prompt_tool_name, options.deny_all_permissions
    )
    hooks = HookRegistry.from_options(options.hooks)
    allowed_tools, setting_sources = skills_defaults(options)
    shadowing = can_use_tool_shadowing(options, allowed_tools)
    if shadowing is not None:
        warnings.warn(shadowing, CanUseToolShadowedWarning, stacklevel=3)
    init: JsonDict = {}
    argv: List[ArgvItem] = [
        "--output-format", "stream-json",
        "--verbose",
        "--input-format", "stream-json",
    ]  # fmt: skip
    argv += system_prompt_args(options.system_prompt, init)
    argv += tools_args(options, allowed_tools)
    argv += permission_args(permissions.prompt_tool, options.permission_mode)
    argv += session_args(options)
    argv += limits_args(options)
    argv += model_args(options)
    argv += settings_args(options, read_text)
    mcp_argv, sdk_servers, external = _mcp_args(options)
    argv += mcp_argv
    argv += output_args(options)
    argv += context_args(options, setting_sources)
    argv += initialize_delivery(options, external, init)
    argv += extra_args_argv(options.extra_args)
    check_argv_sizes(argv)

    agents_fields(options.agents, init)
    skills_fields(options.skills, init)
    output_format_fields(options.output_format, init)
    if sdk_servers and SDK_MCP_VIA_INITIALIZE:
        init["sdkMcpServers"] = list(sdk_servers)
        configs = {name: _sdk_server_settings(server) for name, server in sdk_servers.items()}
        if any(configs.values()):
            init["sdkMcpServerConfigs"] = {name: entry for name, entry in configs.items() if entry}
    if options.forward_subagent_text:
        init["forwardSubagentText"] = True
    if len(hooks):
        init["hooks"] = hooks.initialize_hooks_field()
    init.update(initialize_only_fields(options))

    cwd = None if options.cwd is None else os.fspath(options.cwd)
    return OptionsPlan(
        cli_args=argv,
        env_overlay=env_overlay(options, cwd),
        cwd=cwd,
        user=options.user,
        initialize_fields=init,
        sdk_mcp_servers=sdk_servers,
        hooks=hooks,
        permissions=permissions,
        explicit_env=frozenset(options.env),
        trace_cli=options.trace_cli,
        initialize_timeout=options.initialize_timeout,
        on_elicitation=options.on_elicitation,
        on_user_dialog=options.on_user_dialog,
    )


def build_spawn_plan(
    options: ClaudeAgentOptions,
    cli_path: Union[str, os.PathLike[str]],
    *,
    environ: Optional[Mapping[str, str]] = None,
    interpreted: Optional[OptionsPlan] = None,
    trace_carrier: Optional[Mapping[str, str]] = None,
    read_text: Callable[[str], str] = _read_utf8,
) -> SpawnPlan:
    """Translate ``options`` into a ``SpawnPlan`` for the CLI at ``cli_path``.

    ``environ`` is the environment to inherit (default: ``os.environ``). ``interpreted`` is
    ``interpret_options(options)`` when the caller already has it (then nothing is worked out
    again). ``trace_carrier``, when given, replaces the plan's (``OptionsPlan.trace_carrier``);
    ``read_text``: see ``interpret_options``. Raises what those raise.
    """
    plan = interpret_options(options, read_text) if interpreted is None else interpreted
    if trace_carrier is not None:
        plan = replace(plan, trace_carrier=dict(trace_carrier))
    remember_run_secrets(options, os.environ if environ is None else environ)
    return plan.spawn_plan(cli_path, environ=environ)


def _is_path(value: Any) -> TypeIs[Path]:
    """``isinstance(value, pathlib.Path)`` without loading ``pathlib`` (~3 ms a short process
    need not pay): no ``Path`` can exist before the program has loaded it."""
    pathlib = sys.modules.get("pathlib")
    return pathlib is not None and isinstance(value, pathlib.Path)


def _mcp_args(options: ClaudeAgentOptions) -> Tuple[List[ArgvItem], Dict[str, Any], Dict[str, Any]]:
    """``--mcp-config``, the in-process servers (name → object), and the external servers
    ``mcp_servers_delivery="initialize"`` sends in ``initialize`` instead. Raises
    ``ValueError`` for that delivery with a config file path."""
    servers = options.mcp_servers
    if isinstance(servers, str) or _is_path(servers):
        if options.mcp_servers_delivery == "initialize":
            raise ValueError('mcp_servers_delivery="initialize" needs mcp_servers as a dict, not a config file path')
        text = os.fspath(servers)
        return (flag_pair("mcp-config", text) if text else []), {}, {}
    external, sdk = partition_mcp_servers(servers)
    if options.mcp_servers_delivery == "initialize":
        external, in_initialize = {}, external
    else:
        in_initialize = {}
    entries = dict(external)
    if not SDK_MCP_VIA_INITIALIZE:
        entries.update({name: {"type": "sdk", "name": name} for name in sdk})
    argv: List[ArgvItem] = []
    if entries:
        # by fd: both CLIs (2.1.197, 2.1.331) read --mcp-config /dev/fd/N
        argv = ["--mcp-config", FileArg(json.dumps({"mcpServers": entries}), ".json", by_fd=True)]
    return argv, dict(sdk), in_initialize


def _sdk_server_settings(server: Any) -> Dict[str, Any]:
    """An in-process server's ``initialize.sdkMcpServerConfigs`` entry (its ``timeout``);
    ``{}`` for a server without one (an ``mcp`` package server, a stand-in)."""
    settings = getattr(server, "wire_settings", None)
    return dict(settings()) if callable(settings) else {}


def partition_mcp_servers(
    mcp_servers: Mapping[Any, Any],
) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """``ClaudeAgentOptions.mcp_servers`` (a dict) → ``(external, in_process)``, keyed by ``str(key)``.

    The one rule for what counts as an in-process (SDK) server (``mcp_config.sdk_server_instance``):
    an ``SdkMcpServer`` (a value whose ``type`` is ``"sdk"`` with a callable ``handle``), or the
    official config ``{"type": "sdk", "name", "instance"}`` whose ``instance`` is one or a
    server built with the ``mcp`` package. ``in_process`` maps each key to that server object;
    everything announced to the CLI then has a handler behind it. Every other value is an
    external server config.

    Raises ``ValueError`` for a ``"sdk"`` dict without ``instance`` and ``TypeError`` for an
    object of type ``"sdk"`` without ``handle`` or an ``instance`` that is not a server:
    nothing in this process could answer for them.
    """
    external: Dict[str, Any] = {}
    in_process: Dict[str, Any] = {}
    for key, config in mcp_servers.items():
        name = str(key)
        if (
            not isinstance(config, Mapping)
            and getattr(config, "type", None) == "sdk"
            and not callable(getattr(config, "handle", None))
        ):
            raise TypeError(
                f"mcp_servers[{key!r}] has type 'sdk' but no handle() method, so nothing "
                f"could answer the CLI for it: use create_sdk_mcp_server(), "
                f"got {type(config).__name__}"
            )
        instance = sdk_server_instance(name, config)
        if instance is None:
            external[name] = config
        else:
            in_process[name] = instance
    return external, in_process
