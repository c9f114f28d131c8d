"""``ClaudeAgentOptions`` → how to spawn the CLI, and where the CLI is (pure, no I/O).

``build_spawn_plan`` turns options into a ``SpawnPlan``: the argv, the environment, the
working directory, the OS user, and the fields of our ``initialize`` control request. It reads
no file, starts nothing and looks at no clock; the caller passes the inherited environment
in. ``find_cli`` locates the ``claude`` binary through lookups the caller may replace.

Where each option goes (checked against the real CLI 2.1.197)::

    option                     carried as
    -------------------------  ---------------------------------------------------------------
    system_prompt None         initialize.systemPrompt = [""]   (empty prompt, as the SDKs do)
    system_prompt str          initialize.systemPrompt = [str]
    system_prompt preset       initialize.appendSystemPrompt (``append``),
                               initialize.excludeDynamicSections (``exclude_dynamic_sections``)
    system_prompt file         --system-prompt-file PATH   (hidden flag; the CLI reads the file)
    agents                     initialize.agents = {name: AgentDefinition.to_wire()}
    output_format json_schema  initialize.jsonSchema = schema
    skills list                initialize.skills, "Skill(name)" in --allowedTools,
                               --setting-sources=user,project unless setting_sources is set
    skills "all"               "Skill" in --allowedTools, the same setting-sources default
    forward_subagent_text      initialize.forwardSubagentText = true
    mcp_servers dict           --mcp-config FILE {"mcpServers": {...}} for external servers;
                               in-process servers (``type == "sdk"``) go to
                               initialize.sdkMcpServers only (see SDK_MCP_VIA_INITIALIZE)
    mcp_servers str / Path     --mcp-config VALUE   (a file path or a JSON string, as given)
    settings / sandbox         --settings FILE (JSON, sandbox merged in) or --settings PATH
    tools                      --tools a,b | --tools "" | --tools default (preset)
    allowed_tools              --allowedTools a,b        disallowed_tools  --disallowedTools a,b
    permission_mode            --permission-mode M       model             --model M
    permission_prompt_tool_name --permission-prompt-tool NAME
    can_use_tool               --permission-prompt-tool stdio
    deny_all_permissions       --permission-prompt-tool stdio (the shell denies every request)
    continue_conversation      --continue                resume            --resume=ID
    session_id                 --session-id=ID           fork_session      --fork-session
    resume_session_at          --resume-session-at=ID    max_turns         --max-turns N
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
    env                        overlaid last on the child's environment
    enable_file_checkpointing  env CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1
    cwd                        SpawnPlan.cwd (and env PWD)
    user                       SpawnPlan.user (the shell's ``Popen(user=…)``)
    session_store              --session-mirror (the store bridge does the rest)

Consumed by the shell, not here (``SHELL_CONSUMED_FIELDS``): ``cli_path`` (``find_cli``),
``stderr``, ``max_buffer_size``, ``callback_workers``, ``control_timeout``,
``initialize_timeout``, ``close_timeout``, ``raise_on_error_result``, and ``hooks`` (the
callbacks module builds ``initialize.hooks`` and the session merges it into
``initialize_fields``). ``can_use_tool`` and ``deny_all_permissions`` are both: the flag is
set here, the answers come from the shell.

Big values never go raw on argv: Linux refuses any single argv string over 128 KiB
(``MAX_ARG_STRLEN``) with ``E2BIG``. Prompts, agents and schemas ride in the ``initialize``
request (one stdin line, no size limit); MCP config and JSON settings become ``FileArg``
placeholders that the shell writes to temp files. Anything else that is still too long
raises ``ValueError`` here, naming the option, instead of failing in ``Popen``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from dataclasses import field
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Union

from .._version import __version__
from .errors import CLINotFoundError
from .options import AgentDefinition, ClaudeAgentOptions
from .record import FrozenRecord, frozen_record

__all__ = [
    "CLI_INSTALL_HINT",
    "ENTRYPOINT",
    "FileArg",
    "MAX_ARG_BYTES",
    "SDK_MCP_VIA_INITIALIZE",
    "SHELL_CONSUMED_FIELDS",
    "SpawnPlan",
    "build_env",
    "build_spawn_plan",
    "cli_candidates",
    "find_cli",
]

ENTRYPOINT = "sdk-py"
"""``CLAUDE_CODE_ENTRYPOINT`` for the child.

2.1.197 only recognises ``sdk-ts``, ``sdk-py`` and ``sdk-cli`` as SDK entrypoints (source):
any other value is treated as a non-SDK caller — the initialize answer then lists the extra
built-in ``claude-code-guide`` agent, and the sessions show up in the interactive ``/resume``
picker. claude_sync identifies itself through ``CLAUDE_AGENT_SDK_VERSION`` instead (it shows
up in the User-Agent as ``agent-sdk/<version>``).
"""

SDK_VERSION_ENV = "CLAUDE_AGENT_SDK_VERSION"
FILE_CHECKPOINTING_ENV = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"
STRIPPED_ENV = ("CLAUDECODE",)
"""Inherited variables never passed on: ``CLAUDECODE=1`` (set inside a Claude Code session)
would make the child believe it runs nested in one."""

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

MAX_ARG_BYTES = 128 * 1024 - 1
"""Longest argv string Linux accepts (``MAX_ARG_STRLEN`` = 32 pages, including the NUL)."""

CLI_INSTALL_HINT = (
    "Install it with:\n"
    "  npm install -g @anthropic-ai/claude-code\n"
    "If it is installed but not on PATH, add its folder, e.g.:\n"
    '  export PATH="$HOME/node_modules/.bin:$PATH"\n'
    "or name the binary explicitly:\n"
    "  ClaudeAgentOptions(cli_path='/path/to/claude')"
)

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
        "hooks",  # _callbacks builds initialize.hooks; the session merges it in
        "session_store_flush",  # the store bridge's batching (session_store itself: --session-mirror)
        "load_timeout_ms",  # bounds the store bridge's loads for a resume from the store
    }
)
"""``ClaudeAgentOptions`` fields ``build_spawn_plan`` deliberately leaves to the I/O shell."""

JsonDict = Dict[str, Any]


@frozen_record
class FileArg(FrozenRecord):
    """An argv value to be passed as a file: the shell writes ``content`` (UTF-8) to a private
    temp file named ``*<suffix>``, puts its path on argv, and deletes it on close."""

    content: str
    suffix: str = ".json"


ArgvItem = Union[str, FileArg]


@frozen_record
class SpawnPlan(FrozenRecord):
    """Everything needed to start one CLI process and open its session.

    ``argv[0]`` is the CLI path. ``env`` is the child's whole environment. ``cwd`` and
    ``user`` go to ``Popen``. ``initialize_fields`` are merged into our ``initialize``
    control request (``subtype`` not included); the session adds ``hooks``.
    ``sdk_mcp_servers`` maps each in-process server's name (the key in ``mcp_servers``,
    which is what the CLI's ``mcp_message.server_name`` says) to the server object.
    """

    argv: List[ArgvItem]
    env: Dict[str, str]
    cwd: Optional[str] = None
    user: Optional[Union[str, int]] = None
    initialize_fields: JsonDict = field(default_factory=dict)
    sdk_mcp_servers: Dict[str, Any] = field(default_factory=dict)

    def argv_strings(self) -> List[str]:
        """The argv with every ``FileArg`` shown as ``<file:suffix>`` (for logs and tests)."""
        return [a if isinstance(a, str) else f"<file{a.suffix}>" for a in self.argv]


# --------------------------------------------------------------------------- the plan


def build_spawn_plan(
    options: ClaudeAgentOptions,
    cli_path: Union[str, os.PathLike[str]],
    *,
    environ: Optional[Mapping[str, str]] = None,
) -> SpawnPlan:
    """Translate ``options`` into a ``SpawnPlan`` for the CLI at ``cli_path``.

    ``environ`` is the environment to inherit (default: ``os.environ``).

    Raises ``ValueError`` for contradictory or unsupported options (``can_use_tool`` together
    with ``permission_prompt_tool_name`` or ``deny_all_permissions``, an unknown
    ``system_prompt``/``thinking``/``output_format``/plugin type, ``sandbox`` with a settings
    *file*, invalid JSON settings, a bad skill name, a dict MCP entry of type ``"sdk"``, an
    argv value over ``MAX_ARG_BYTES``) and ``TypeError`` for values of the wrong type
    (an agent that is not an ``AgentDefinition``/dict, a non-string ``env`` value).
    """
    _check_permission_options(options)
    allowed_tools, setting_sources = _skills_defaults(options)
    init: JsonDict = {}
    argv: List[ArgvItem] = [
        os.fspath(cli_path),
        "--output-format", "stream-json",
        "--verbose",
        "--input-format", "stream-json",
    ]  # fmt: skip
    argv += _system_prompt_args(options.system_prompt, init)
    argv += _tools_args(options, allowed_tools)
    argv += _permission_args(options)
    argv += _session_args(options)
    argv += _limits_args(options)
    argv += _model_args(options)
    argv += _settings_args(options)
    mcp_argv, sdk_servers = _mcp_args(options)
    argv += mcp_argv
    argv += _output_args(options)
    argv += _context_args(options, setting_sources)
    argv += _extra_args(options.extra_args)
    _check_argv_sizes(argv)

    _agents_fields(options.agents, init)
    _skills_fields(options.skills, init)
    _output_format_fields(options.output_format, init)
    if sdk_servers and SDK_MCP_VIA_INITIALIZE:
        init["sdkMcpServers"] = list(sdk_servers)
    if options.forward_subagent_text:
        init["forwardSubagentText"] = True

    cwd = None if options.cwd is None else os.fspath(options.cwd)
    return SpawnPlan(
        argv=argv,
        env=build_env(options, os.environ if environ is None else environ, cwd),
        cwd=cwd,
        user=options.user,
        initialize_fields=init,
        sdk_mcp_servers=sdk_servers,
    )


def build_env(
    options: ClaudeAgentOptions, environ: Mapping[str, str], cwd: Optional[str] = None
) -> Dict[str, str]:
    """The child's environment: ``environ`` minus ``STRIPPED_ENV``, plus ours, then ``options.env``.

    Raises ``TypeError`` when an ``options.env`` key or value is not a ``str``.
    """
    env = {k: v for k, v in environ.items() if k not in STRIPPED_ENV}
    env["CLAUDE_CODE_ENTRYPOINT"] = ENTRYPOINT
    env[SDK_VERSION_ENV] = __version__
    if options.enable_file_checkpointing:
        env[FILE_CHECKPOINTING_ENV] = "1"
    if cwd is not None:
        env["PWD"] = cwd
    for key, value in options.env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"options.env must map str to str, got {key!r}: {value!r}")
        env[key] = value
    return env


# --------------------------------------------------------------------------- argv pieces


def _flag(name: str, value: ArgvItem) -> List[ArgvItem]:
    """``--name value``; ``--name=value`` when the value starts with ``-`` (else the CLI's
    parser would read it as a flag of its own)."""
    if isinstance(value, str) and value.startswith("-"):
        return [f"--{name}={value}"]
    return [f"--{name}", value]


def _str_list(option: str, value: Any) -> List[Any]:
    """``value`` as a list. Raises ``TypeError`` for a bare ``str`` (it would be taken apart
    into characters) or anything that is not a list/tuple."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{option} must be a list, not {type(value).__name__} {value!r}")
    return list(value)


def _check_permission_options(options: ClaudeAgentOptions) -> None:
    if options.can_use_tool is not None and options.permission_prompt_tool_name is not None:
        raise ValueError(
            "can_use_tool and permission_prompt_tool_name are mutually exclusive: "
            "can_use_tool already routes permission prompts to this process"
        )
    if options.deny_all_permissions and options.can_use_tool is not None:
        raise ValueError("deny_all_permissions and can_use_tool are mutually exclusive")
    if options.deny_all_permissions and options.permission_prompt_tool_name is not None:
        raise ValueError(
            "deny_all_permissions and permission_prompt_tool_name are mutually exclusive: "
            "deny_all_permissions needs the prompts routed to this process"
        )


def _system_prompt_args(system_prompt: Any, init: JsonDict) -> List[ArgvItem]:
    """Fill ``init`` for a string/preset/None prompt; return the argv for a file prompt."""
    if system_prompt is None:
        init["systemPrompt"] = [""]
        return []
    if isinstance(system_prompt, str):
        init["systemPrompt"] = [system_prompt]
        return []
    if not isinstance(system_prompt, Mapping):
        raise TypeError(
            f"system_prompt must be a str or a dict, not {type(system_prompt).__name__}"
        )
    kind = system_prompt.get("type")
    if kind == "file":
        return _flag("system-prompt-file", os.fspath(system_prompt["path"]))
    if kind == "preset":
        if system_prompt.get("append") is not None:
            init["appendSystemPrompt"] = system_prompt["append"]
        if system_prompt.get("exclude_dynamic_sections") is not None:
            init["excludeDynamicSections"] = bool(system_prompt["exclude_dynamic_sections"])
        return []
    raise ValueError(f"unknown system_prompt type {kind!r} (expected 'preset' or 'file')")


def _skills_defaults(options: ClaudeAgentOptions) -> Tuple[List[str], Optional[List[str]]]:
    """``allowed_tools`` and ``setting_sources`` with what ``skills`` implies added."""
    allowed = _str_list("allowed_tools", options.allowed_tools)
    sources = None
    if options.setting_sources is not None:
        sources = _str_list("setting_sources", options.setting_sources)
    skills = options.skills
    if skills is None:
        return allowed, sources
    if skills == "all":
        wanted = ["Skill"]
    elif isinstance(skills, (list, tuple)):
        wanted = [f"Skill({_checked_skill_name(name)})" for name in skills]
    else:
        raise ValueError(f'skills must be a list of names or "all", not {skills!r}')
    allowed += [rule for rule in wanted if rule not in allowed]
    return allowed, (["user", "project"] if sources is None else sources)


def _checked_skill_name(name: Any) -> str:
    """Raises ``ValueError`` for names that cannot ride in a ``Skill(name)`` rule."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a skill name must be a non-empty string, not {name!r}")
    if any(ch in name for ch in ",()") or any(ch.isspace() for ch in name):
        raise ValueError(f"skill name {name!r} contains a comma, parenthesis or whitespace")
    return name


def _tools_args(options: ClaudeAgentOptions, allowed_tools: List[str]) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    tools = options.tools
    if isinstance(tools, Mapping):
        argv += ["--tools", "default"]  # the claude_code preset
    elif tools is not None:
        argv += ["--tools", ",".join(_str_list("tools", tools))]  # [] → "": no built-in tools
    if allowed_tools:
        argv += _flag("allowedTools", ",".join(allowed_tools))
    disallowed = _str_list("disallowed_tools", options.disallowed_tools)
    if disallowed:
        argv += _flag("disallowedTools", ",".join(disallowed))
    return argv


def _permission_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.can_use_tool is not None or options.deny_all_permissions:
        argv += ["--permission-prompt-tool", "stdio"]
    elif options.permission_prompt_tool_name is not None:
        argv += _flag("permission-prompt-tool", options.permission_prompt_tool_name)
    if options.permission_mode is not None:
        argv += _flag("permission-mode", options.permission_mode)
    return argv


def _session_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    """Session selection. IDs use ``--flag=value``: ``--resume`` takes an optional value, so a
    separate dash-leading token would be parsed as another flag."""
    argv: List[ArgvItem] = []
    if options.continue_conversation:
        argv.append("--continue")
    if options.resume is not None:
        argv.append(f"--resume={options.resume}")
    if options.session_id is not None:
        argv.append(f"--session-id={options.session_id}")
    if options.fork_session:
        argv.append("--fork-session")
    if options.resume_session_at is not None:
        argv.append(f"--resume-session-at={options.resume_session_at}")
    if options.session_store is not None:
        argv.append("--session-mirror")  # the CLI then echoes each transcript write on stdout
    return argv


def _limits_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.max_turns is not None:
        argv += _flag("max-turns", str(options.max_turns))
    if options.max_budget_usd is not None:
        argv += _flag("max-budget-usd", str(options.max_budget_usd))
    if options.task_budget is not None:
        argv += _flag("task-budget", str(options.task_budget["total"]))
    return argv


def _model_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.model is not None:
        argv += _flag("model", options.model)
    if options.fallback_model is not None:
        argv += _flag("fallback-model", options.fallback_model)
    betas = _str_list("betas", options.betas)
    if betas:
        argv += _flag("betas", ",".join(betas))
    argv += _thinking_args(options.thinking, options.max_thinking_tokens)
    if options.effort is not None:
        argv += _flag("effort", options.effort)
    return argv


def _thinking_args(
    thinking: Optional[Mapping[str, Any]], max_tokens: Optional[int]
) -> List[ArgvItem]:
    """``thinking`` wins over the older ``max_thinking_tokens``."""
    if thinking is None:
        return [] if max_tokens is None else _flag("max-thinking-tokens", str(max_tokens))
    kind = thinking.get("type")
    if kind == "adaptive":
        argv: List[ArgvItem] = ["--thinking", "adaptive"]
    elif kind == "enabled":
        budget = thinking.get("budget_tokens")
        argv = (
            ["--thinking", "adaptive"]
            if budget is None
            else _flag("max-thinking-tokens", str(budget))
        )
    elif kind == "disabled":
        return ["--thinking", "disabled"]
    else:
        raise ValueError(f"unknown thinking type {kind!r} (expected adaptive, enabled, disabled)")
    if thinking.get("display") is not None:
        argv += _flag("thinking-display", thinking["display"])
    return argv


def _settings_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    """``--settings``: inline JSON (with ``sandbox`` merged in) as a file, a path as given."""
    settings, sandbox = options.settings, options.sandbox
    if settings is None and sandbox is None:
        return []
    if settings is not None and not _looks_like_json_object(settings):
        if sandbox is not None:
            raise ValueError(
                "sandbox cannot be combined with a settings file path (claude_sync does not read "
                "files while planning): put the sandbox into that file, or pass settings as JSON"
            )
        return _flag("settings", os.fspath(settings))
    merged: JsonDict = {} if settings is None else _parse_settings_json(settings)
    if sandbox is not None:
        merged["sandbox"] = sandbox
    return ["--settings", FileArg(json.dumps(merged), ".json")]


def _looks_like_json_object(text: str) -> bool:
    stripped = str(text).strip()
    return stripped.startswith("{") and stripped.endswith("}")


def _parse_settings_json(text: str) -> JsonDict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"settings is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ValueError("settings JSON must be an object")
    return value


def _mcp_args(options: ClaudeAgentOptions) -> Tuple[List[ArgvItem], Dict[str, Any]]:
    """``--mcp-config`` and the in-process servers (name → object)."""
    servers = options.mcp_servers
    if isinstance(servers, (str, Path)):
        text = os.fspath(servers)
        return (_flag("mcp-config", text) if text else []), {}
    external: JsonDict = {}
    sdk: Dict[str, Any] = {}
    for name, config in servers.items():
        if _is_sdk_server(config):
            sdk[str(name)] = config
        else:
            external[str(name)] = config
    entries = dict(external)
    if not SDK_MCP_VIA_INITIALIZE:
        entries.update({name: {"type": "sdk", "name": name} for name in sdk})
    argv: List[ArgvItem] = []
    if entries:
        argv = ["--mcp-config", FileArg(json.dumps({"mcpServers": entries}), ".json")]
    return argv, sdk


def _is_sdk_server(config: Any) -> bool:
    """In-process server objects are told apart by ``type == "sdk"`` (duck-typed).

    Raises ``ValueError`` for a *dict* of type ``"sdk"``: nothing in this process could
    answer the CLI's MCP traffic for it.
    """
    if isinstance(config, Mapping):
        if config.get("type") == "sdk":
            raise ValueError(
                "an mcp_servers entry of type 'sdk' must be a server made with "
                "create_sdk_mcp_server(), not a dict"
            )
        return False
    return getattr(config, "type", None) == "sdk"


def _output_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.include_partial_messages:
        argv.append("--include-partial-messages")
    if options.include_hook_events:
        argv.append("--include-hook-events")
    if options.strict_mcp_config:
        argv.append("--strict-mcp-config")
    return argv


def _context_args(
    options: ClaudeAgentOptions, setting_sources: Optional[List[str]]
) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    for directory in _str_list("add_dirs", options.add_dirs):
        argv += _flag("add-dir", os.fspath(directory))
    if setting_sources is not None:
        argv.append(f"--setting-sources={','.join(setting_sources)}")
    for plugin in _str_list("plugins", options.plugins):
        if plugin.get("type") != "local":
            raise ValueError(f"unsupported plugin type {plugin.get('type')!r} (only 'local')")
        argv += _flag("plugin-dir", os.fspath(plugin["path"]))
    return argv


def _extra_args(extra_args: Mapping[str, Optional[str]]) -> List[ArgvItem]:
    """``{"flag": "v"}`` → ``--flag v`` (``--flag=v`` if ``v`` starts with ``-``);
    ``{"flag": None}`` → ``--flag``."""
    argv: List[ArgvItem] = []
    for name, value in extra_args.items():
        flag = str(name).lstrip("-")
        argv += [f"--{flag}"] if value is None else _flag(flag, str(value))
    return argv


def _check_argv_sizes(argv: Sequence[ArgvItem]) -> None:
    """Raises ``ValueError`` for a string argument Linux would refuse (``E2BIG``)."""
    previous = ""
    for item in argv:
        if isinstance(item, str):
            size = len(item.encode("utf-8", "surrogateescape"))
            if size > MAX_ARG_BYTES:
                where = previous if previous.startswith("--") else item.split("=", 1)[0][:40]
                raise ValueError(
                    f"the value for {where} is {size} bytes; one argument may be at most "
                    f"{MAX_ARG_BYTES} bytes"
                )
            previous = item


# --------------------------------------------------------------------------- initialize


def _agents_fields(agents: Optional[Mapping[str, Any]], init: JsonDict) -> None:
    if not agents:
        return
    wire: JsonDict = {}
    for name, agent in agents.items():
        if isinstance(agent, AgentDefinition):
            wire[str(name)] = agent.to_wire()
        elif isinstance(agent, Mapping):
            wire[str(name)] = {k: v for k, v in agent.items() if v is not None}
        else:
            raise TypeError(f"agent {name!r} must be an AgentDefinition or a dict, not {agent!r}")
    init["agents"] = wire


def _skills_fields(skills: Any, init: JsonDict) -> None:
    """Only an explicit list filters; ``"all"`` and ``None`` mean no filter on the wire."""
    if isinstance(skills, (list, tuple)):
        init["skills"] = list(skills)


def _output_format_fields(output_format: Optional[Mapping[str, Any]], init: JsonDict) -> None:
    if output_format is None:
        return
    if output_format.get("type") != "json_schema" or not isinstance(
        output_format.get("schema"), Mapping
    ):
        raise ValueError(
            "output_format must be {'type': 'json_schema', 'schema': {...}}, "
            f"not {output_format!r}"
        )
    init["jsonSchema"] = dict(output_format["schema"])


# --------------------------------------------------------------------------- CLI discovery


def cli_candidates(home: Optional[Path]) -> List[Path]:
    """Where npm, yarn and the native installer usually put ``claude``, in search order."""
    candidates = [Path("/usr/local/bin/claude")]
    if home is not None:
        candidates = [
            home / ".npm-global/bin/claude",
            Path("/usr/local/bin/claude"),
            home / ".local/bin/claude",
            home / "node_modules/.bin/claude",
            home / ".yarn/bin/claude",
            home / ".claude/local/claude",
        ]
    candidates.append(Path("/opt/homebrew/bin/claude"))
    return candidates


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that answers False instead of raising (e.g. an unreadable folder)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _default_home() -> Optional[Path]:
    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry
        return None


def _bundled_cli(find_spec: Callable[[str], Any], is_file: Callable[[Path], bool]) -> Optional[str]:
    """The binary shipped in an installed ``claude_agent_sdk`` wheel, found without importing
    the package (``find_spec`` of a top-level name runs none of its code)."""
    try:
        spec = find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        return None
    locations = getattr(spec, "submodule_search_locations", None) or []
    for location in locations:
        for name in ("claude", "claude.exe"):
            path = Path(location) / "_bundled" / name
            if is_file(path):
                return str(path)
    return None


def find_cli(
    cli_path: Optional[Union[str, os.PathLike[str]]] = None,
    *,
    which: Callable[[str], Optional[str]] = shutil.which,
    is_file: Callable[[Path], bool] = _is_file,
    home: Union[Optional[Path], Callable[[], Optional[Path]]] = _default_home,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
) -> str:
    """Path of the ``claude`` binary to run.

    Order: ``cli_path`` if given (a file; a bare name is also looked up on ``PATH``); then
    ``claude`` on ``PATH``; then the usual install folders (``cli_candidates``); then the
    binary bundled in an installed ``claude_agent_sdk`` wheel. The lookups are parameters
    so tests can fake them.

    Raises ``CLINotFoundError``: naming ``cli_path`` when it was given and does not exist,
    else with install instructions.
    """
    if cli_path is not None:
        return _explicit_cli(os.fspath(cli_path), which, is_file)
    found = which("claude")
    if found:
        return found
    home_dir = home() if callable(home) else home
    for candidate in cli_candidates(home_dir):
        if is_file(candidate):
            return str(candidate)
    bundled = _bundled_cli(find_spec, is_file)
    if bundled is not None:
        return bundled
    raise CLINotFoundError(f"Claude Code CLI not found. {CLI_INSTALL_HINT}")


def _explicit_cli(
    path: str, which: Callable[[str], Optional[str]], is_file: Callable[[Path], bool]
) -> str:
    if is_file(Path(path)):
        return path
    if os.sep not in path and (os.altsep is None or os.altsep not in path):
        found = which(path)
        if found:
            return found
    raise CLINotFoundError(f"Claude Code CLI not found at cli_path={path!r}", cli_path=path)
