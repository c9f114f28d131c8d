"""The argv pieces and ``initialize`` fields of a spawn plan, one function per option group (pure).

``command.build_spawn_plan`` calls these in order; each reads a few ``ClaudeAgentOptions``
fields and returns argv items (or fills the ``initialize`` fields it is given). The table of
where each option goes is in the ``command`` docstring. Big values become ``FileArg``
placeholders the shell writes to temp files; ``check_argv_sizes`` refuses a string argument
Linux would refuse.
"""

from __future__ import annotations

import json
import os
from dataclasses import field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._wire.errors import CLIConnectionError
from .._wire.record import FrozenRecord, frozen_record
from .options import AgentDefinition, ClaudeAgentOptions
from .validation import check_initialize_only_options

__all__ = ["ArgvItem", "FileArg", "JsonDict", "MAX_ARG_BYTES"]

MAX_ARG_BYTES = 128 * 1024 - 1
"""Longest argv string Linux accepts (``MAX_ARG_STRLEN`` = 32 pages, including the NUL)."""

JsonDict = Dict[str, Any]


@frozen_record
class FileArg(FrozenRecord):
    """An argv value to be passed as a file: the shell writes ``content`` (UTF-8) to a private
    temp file named ``*<suffix>``, puts its path on argv, and deletes it on close — or, with
    ``by_fd`` where the system allows, hands it over as an inherited memory file the CLI reads
    as ``/dev/fd/N`` (never on disk; see ``_engine.tempfiles``). ``content`` is left out of
    ``repr`` (an MCP config may hold headers that are secrets)."""

    content: str = field(repr=False)
    suffix: str = ".json"
    by_fd: bool = False


ArgvItem = Union[str, FileArg]


def flag_pair(name: str, value: ArgvItem) -> List[ArgvItem]:
    """``--name value``; ``--name=value`` when the value starts with ``-`` (else the CLI's
    parser would read it as a flag of its own)."""
    if isinstance(value, str) and value.startswith("-"):
        return [f"--{name}={value}"]
    return [f"--{name}", value]


def str_list(option: str, value: Any) -> List[Any]:
    """``value`` as a list. Raises ``TypeError`` for a bare ``str`` (it would be taken apart
    into characters) or anything that is not a list/tuple."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{option} must be a list, not {type(value).__name__} {value!r}")
    return list(value)

def system_prompt_args(system_prompt: Any, init: JsonDict) -> List[ArgvItem]:
    """Fill ``init`` for a string/custom/preset/None prompt; return the argv for a file prompt.

    ``snapshot`` (preset or custom) → ``initialize.systemPromptSnapshot`` when it is a bool.
    Raises ``TypeError`` for a prompt that is neither str nor dict (or a custom prompt that is
    not a str), ``ValueError`` for an unknown ``type``.
    """
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
    if kind in ("preset", "custom") and isinstance(system_prompt.get("snapshot"), bool):
        init["systemPromptSnapshot"] = system_prompt["snapshot"]
    if kind == "file":
        return flag_pair("system-prompt-file", os.fspath(system_prompt["path"]))
    if kind == "custom":
        prompt = system_prompt.get("prompt")
        if not isinstance(prompt, str):
            raise TypeError(f"a custom system_prompt needs a str 'prompt', got {prompt!r}")
        init["systemPrompt"] = [prompt]
        return []
    if kind == "preset":
        if system_prompt.get("append") is not None:
            init["appendSystemPrompt"] = system_prompt["append"]
        if isinstance(system_prompt.get("exclude_dynamic_sections"), bool):
            init["excludeDynamicSections"] = system_prompt["exclude_dynamic_sections"]
        return []
    raise ValueError(
        f"unknown system_prompt type {kind!r} (expected 'preset', 'custom' or 'file')"
    )


def tools_args(options: ClaudeAgentOptions, allowed_tools: List[str]) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    tools = options.tools
    if isinstance(tools, Mapping):
        argv += ["--tools", "default"]  # the claude_code preset
    elif tools is not None:
        argv += ["--tools", ",".join(str_list("tools", tools))]  # [] → "": no built-in tools
    if allowed_tools:
        argv += flag_pair("allowedTools", ",".join(allowed_tools))
    disallowed = str_list("disallowed_tools", options.disallowed_tools)
    if disallowed:
        argv += flag_pair("disallowedTools", ",".join(disallowed))
    return argv


def permission_args(prompt_tool: Optional[str], permission_mode: Optional[str]) -> List[ArgvItem]:
    """``prompt_tool`` is ``PermissionRouting.prompt_tool`` (the options' one reading)."""
    argv: List[ArgvItem] = []
    if prompt_tool:  # an empty name or mode is left out, as the official SDK does
        argv += flag_pair("permission-prompt-tool", prompt_tool)
    if permission_mode:
        argv += flag_pair("permission-mode", permission_mode)
    return argv


def session_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    """Session selection. IDs use ``--flag=value``: ``--resume`` takes an optional value, so a
    separate dash-leading token would be parsed as another flag. Empty IDs are left out, as
    the official SDK does, except ``resume_drops_turn``: an empty one is sent so the CLI
    rejects it rather than the guard the caller asked for silently vanishing."""
    argv: List[ArgvItem] = []
    if options.continue_conversation:
        argv.append("--continue")
    if options.resume:
        argv.append(f"--resume={options.resume}")
    if options.session_id:
        argv.append(f"--session-id={options.session_id}")
    if options.fork_session:
        argv.append("--fork-session")
    if options.resume_session_at:
        argv.append(f"--resume-session-at={options.resume_session_at}")
    if options.resume_drops_turn is not None:
        argv.append(f"--resume-drops-turn={options.resume_drops_turn}")
    if options.session_store is not None:
        argv.append("--session-mirror")  # the CLI then echoes each transcript write on stdout
    return argv


def limits_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.max_turns:  # 0 means "no limit" in the official SDK: left out
        argv += flag_pair("max-turns", str(options.max_turns))
    if options.max_budget_usd is not None:
        argv += flag_pair("max-budget-usd", str(options.max_budget_usd))
    if options.task_budget is not None:
        argv += flag_pair("task-budget", str(options.task_budget["total"]))
    return argv


def model_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.model:
        argv += flag_pair("model", options.model)
    if options.fallback_model:
        argv += flag_pair("fallback-model", options.fallback_model)
    betas = str_list("betas", options.betas)
    if betas:
        argv += flag_pair("betas", ",".join(betas))
    argv += _thinking_args(options.thinking, options.max_thinking_tokens)
    if options.effort:
        argv += flag_pair("effort", options.effort)
    return argv


def _thinking_args(
    thinking: Optional[Mapping[str, Any]], max_tokens: Optional[int]
) -> List[ArgvItem]:
    """``thinking`` wins over the older ``max_thinking_tokens``."""
    if thinking is None:
        return [] if max_tokens is None else flag_pair("max-thinking-tokens", str(max_tokens))
    kind = thinking.get("type")
    if kind == "adaptive":
        argv: List[ArgvItem] = ["--thinking", "adaptive"]
    elif kind == "enabled":
        budget = thinking.get("budget_tokens")
        argv = (
            ["--thinking", "adaptive"]
            if budget is None
            else flag_pair("max-thinking-tokens", str(budget))
        )
    elif kind == "disabled":
        return ["--thinking", "disabled"]
    else:
        raise ValueError(f"unknown thinking type {kind!r} (expected adaptive, enabled, disabled)")
    if thinking.get("display") is not None:
        argv += flag_pair("thinking-display", thinking["display"])
    return argv


def settings_args(
    options: ClaudeAgentOptions, read_text: Callable[[str], str]
) -> List[ArgvItem]:
    """``--settings``: inline JSON (with ``sandbox`` merged in) as a file, a path as given.

    With ``sandbox`` and a settings *path*, the file is read (``read_text``, relative to
    ``cwd``, BOM tolerated) and merged like inline JSON. Raises ``CLIConnectionError`` when
    that file cannot be read or parsed (starting without it would drop its rules),
    ``ValueError`` for invalid inline JSON, ``TypeError`` for another type. A dict is the
    settings object itself: ``TypeError`` when it holds a value JSON cannot write or a non-str
    key, ``ValueError`` for NaN/infinity, a cycle or nesting too deep to write.
    """
    settings, sandbox = options.settings, options.sandbox
    if settings is None and sandbox is None:
        return []
    if isinstance(settings, Mapping):
        merged = _settings_object(settings)
    else:
        if settings is not None and not isinstance(settings, (str, os.PathLike)):
            raise TypeError(
                f"settings must be a JSON text, a settings file path or a dict, "
                f"not {type(settings).__name__}"
            )
        text = settings if isinstance(settings, str) and _looks_like_json_object(settings) else None
        if settings is not None and text is None:  # a path (a Path object always is one)
            if sandbox is None:
                return flag_pair("settings", os.fspath(settings))
            text = _read_settings_file(options, read_text)
        merged = {} if text is None else _parse_settings_json(text)
    if sandbox is not None:
        merged["sandbox"] = sandbox
    return ["--settings", FileArg(json.dumps(merged), ".json")]


def _read_settings_file(options: ClaudeAgentOptions, read_text: Callable[[str], str]) -> str:
    path = os.path.join(os.fspath(options.cwd or ""), os.fspath(str(options.settings).strip()))
    try:
        text = read_text(path).lstrip("\ufeff")
        json.loads(text)
    except (OSError, ValueError) as exc:
        raise CLIConnectionError(
            f"cannot merge sandbox into the settings file {path!r}: {exc}"
        ) from exc
    return text


def _settings_object(settings: Mapping[Any, Any], name: str = "settings") -> JsonDict:
    """A settings dict, checked to write as JSON, as a fresh dict (the caller's is not changed)."""
    try:
        text = json.dumps(settings, allow_nan=False)
    except TypeError as exc:
        raise TypeError(f"{name} is not JSON: {exc}") from exc
    except RecursionError:
        raise ValueError(f"{name} is not JSON: nested too deeply to write") from None
    except ValueError as exc:
        raise ValueError(f"{name} is not JSON: {exc}") from exc
    pending: List[Any] = [settings]
    while pending:  # json.dumps writes 1 and True as the keys "1" and "true": refuse them
        value = pending.pop()
        if isinstance(value, Mapping):
            if not all(isinstance(key, str) for key in value):
                raise TypeError(f"{name} keys must be str (JSON object keys are strings)")
            pending.extend(value.values())
        elif isinstance(value, (list, tuple)):
            pending.extend(value)
    parsed: JsonDict = json.loads(text)
    return parsed


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

def output_args(options: ClaudeAgentOptions) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    if options.include_partial_messages:
        argv.append("--include-partial-messages")
    if options.include_hook_events:
        argv.append("--include-hook-events")
    if options.strict_mcp_config:
        argv.append("--strict-mcp-config")
    return argv


def context_args(
    options: ClaudeAgentOptions, setting_sources: Optional[List[str]]
) -> List[ArgvItem]:
    argv: List[ArgvItem] = []
    for directory in str_list("add_dirs", options.add_dirs):
        argv += flag_pair("add-dir", os.fspath(directory))
    if setting_sources is not None:
        argv.append(f"--setting-sources={','.join(setting_sources)}")
    for plugin in str_list("plugins", options.plugins):
        if plugin.get("type") != "local":
            raise ValueError(f"unsupported plugin type {plugin.get('type')!r} (only 'local')")
        if options.plugin_delivery == "argv":
            argv += flag_pair("plugin-dir", os.fspath(plugin["path"]))
    return argv


MCP_VIA_INITIALIZE_CLI = (2, 1, 326)
"""The first CLI that takes external MCP servers in ``initialize`` (checked: 2.1.325 knows
``--await-initialize``, for managed settings, but neither reads ``mcpServers`` there nor
answers ``mcp_servers_applied``; 2.1.326 does both). TS 0.3.333 names the same version."""


def resolved_mcp_delivery(options: ClaudeAgentOptions, cli_version: Optional[Tuple[int, ...]]) -> str:
    """``options.mcp_servers_delivery`` with ``"auto"`` decided for a CLI of ``cli_version``
    (None: not known): ``"initialize"`` from 2.1.326, else ``"argv"``; ``"argv"`` too when
    ``mcp_servers`` is a config file path (only argv can name it)."""
    chosen = options.mcp_servers_delivery
    if chosen != "auto":
        return chosen
    if not isinstance(options.mcp_servers, Mapping) or cli_version is None:
        return "argv"
    return "initialize" if cli_version >= MCP_VIA_INITIALIZE_CLI else "argv"


INITIALIZE_DELIVERY = {
    "managedSettings": ("managed_settings_applied", "managed_settings"),
    "mcpServers": ("mcp_servers_applied", 'mcp_servers_delivery="initialize"'),
    "plugins": ("plugins_applied", 'plugin_delivery="initialize"'),
}
"""``initialize`` fields the CLI reads only at launch under ``--await-initialize``: the answer's
flag that confirms it took them, and the option that sent them."""


def initialize_delivery(options: ClaudeAgentOptions, external_mcp: Mapping[str, Any], init: JsonDict) -> List[ArgvItem]:
    """``managed_settings``, and with ``"initialize"`` delivery the external MCP servers and the
    plugins, into ``init``; the flags that make the CLI wait for them. Raises ``TypeError`` /
    ``ValueError`` for managed settings that do not write as JSON."""
    argv: List[ArgvItem] = []
    if options.managed_settings is not None:
        init["managedSettings"] = _settings_object(options.managed_settings, "managed_settings")
        argv.append("--managed-settings-in-initialize")
    if options.mcp_servers_delivery == "initialize" and external_mcp:
        init["mcpServers"] = dict(external_mcp)
    if options.plugin_delivery == "initialize" and options.plugins:
        init["plugins"] = [{"type": "local", "path": os.fspath(p["path"])} for p in options.plugins]
    if any(name in init for name in INITIALIZE_DELIVERY):
        argv.insert(0, "--await-initialize")
    return argv


def check_initialize_delivery(init: Mapping[str, Any], answer: Mapping[str, Any]) -> None:
    """Raises ``CLIConnectionError`` when ``init`` carried a launch-only field (see
    ``INITIALIZE_DELIVERY``) and the CLI's answer does not confirm it took it."""
    for name, (flag, option) in INITIALIZE_DELIVERY.items():
        if name in init and answer.get(flag) is not True:
            too_old = " (CLI 2.1.326+; mcp_servers_delivery='argv' works with any)" if name == "mcpServers" else ""
            raise CLIConnectionError(
                f"the CLI did not confirm the {option} sent in initialize ({flag}: "
                f"{answer.get(flag)!r}), so the session was ended: a wrapper may have dropped "
                f"--await-initialize, or the CLI is too old for it{too_old}"
            )


def extra_args_argv(extra_args: Mapping[str, Optional[str]]) -> List[ArgvItem]:
    """``{"flag": "v"}`` → ``--flag v`` (``--flag=v`` if ``v`` starts with ``-``);
    ``{"flag": None}`` → ``--flag``."""
    argv: List[ArgvItem] = []
    for name, value in extra_args.items():
        flag = str(name).lstrip("-")
        argv += [f"--{flag}"] if value is None else flag_pair(flag, str(value))
    return argv


def check_argv_sizes(argv: Sequence[ArgvItem]) -> None:
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


def agents_fields(agents: Optional[Mapping[str, Any]], init: JsonDict) -> None:
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


def skills_fields(skills: Any, init: JsonDict) -> None:
    """Only an explicit list filters; ``"all"`` and ``None`` mean no filter on the wire."""
    if isinstance(skills, (list, tuple)):
        init["skills"] = list(skills)


def output_format_fields(output_format: Any, init: JsonDict) -> None:
    """``initialize.jsonSchema``: the dict's schema, or the schema of an output class."""
    if output_format is None:
        return
    if isinstance(output_format, type):
        from .._structured.class_schema import json_schema_of  # typed output: first use only

        init["jsonSchema"] = json_schema_of(output_format)
        return
    if output_format.get("type") != "json_schema" or not isinstance(
        output_format.get("schema"), Mapping
    ):
        raise ValueError(
            "output_format must be {'type': 'json_schema', 'schema': {...}}, "
            f"not {output_format!r}"
        )
    init["jsonSchema"] = dict(output_format["schema"])


INITIALIZE_ONLY_OPTIONS = """Options the CLI takes in ``initialize`` only (the TypeScript SDK has them)::

    tool_aliases              toolAliases            {model's tool name: tool to run instead}
    plan_mode_instructions    planModeInstructions   replaces the plan-mode workflow body
    title                     title                  the session's title (no generated one)
    prompt_suggestions        promptSuggestions      a ``prompt_suggestion`` after each result
    agent_progress_summaries  agentProgressSummaries ``summary`` on subagents' task_progress
    supported_dialog_kinds    supportedDialogKinds   dialog kinds ``on_user_dialog`` renders
    per_task_stop_affordance  perTaskStopAffordance  an interrupt spares background tasks

Unset (None / False) options send nothing, so the CLI's defaults apply. CLI 2.1.197 and 2.1.330
accept the first five; ``supportedDialogKinds`` and ``perTaskStopAffordance`` are newer.
"""


def initialize_only_fields(options: ClaudeAgentOptions) -> Dict[str, Any]:
    """The ``initialize`` fields of the TS-SDK options that are set (``INITIALIZE_ONLY_OPTIONS``).

    Raises ``TypeError`` / ``ValueError`` as ``validation.check_initialize_only_options``.
    """
    check_initialize_only_options(options)
    fields: Dict[str, Any] = {}
    if options.tool_aliases:
        fields["toolAliases"] = dict(options.tool_aliases)
    if options.plan_mode_instructions is not None:
        fields["planModeInstructions"] = options.plan_mode_instructions
    if options.title is not None:
        fields["title"] = options.title
    if options.prompt_suggestions:
        fields["promptSuggestions"] = True
    if options.agent_progress_summaries:
        fields["agentProgressSummaries"] = True
    if options.supported_dialog_kinds is not None:
        fields["supportedDialogKinds"] = list(options.supported_dialog_kinds)
    if options.per_task_stop_affordance:
        fields["perTaskStopAffordance"] = True
    return fields
