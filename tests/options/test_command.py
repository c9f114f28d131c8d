"""Tests for ``claude_sync._options.command``: options → SpawnPlan, and CLI discovery (no processes)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

import pytest

from claude_sync._callbacks.hook_types import HookMatcher
from claude_sync._options.argv import MAX_ARG_BYTES, FileArg
from claude_sync._options.command import (
    ENTRYPOINT,
    SHELL_CONSUMED_FIELDS,
    SpawnPlan,
    build_spawn_plan,
)
from claude_sync._options.discovery import CLI_INSTALL_HINT, PINNED_CLI_VERSION, find_cli, pinned_cli
from claude_sync._options.options import AgentDefinition, ClaudeAgentOptions
from claude_sync._sessions.stores.memory import InMemorySessionStore
from claude_sync._version import __version__
from claude_sync._wire.errors import CLIConnectionError, CLINotFoundError

CLI = "/opt/claude/bin/claude"
BASE = [CLI, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
MB3 = 3 * 1024 * 1024


def plan_for(environ: Optional[Dict[str, str]] = None, **kwargs: Any) -> SpawnPlan:
    return build_spawn_plan(ClaudeAgentOptions(**kwargs), CLI, environ=environ or {})


def tail(plan: SpawnPlan) -> List[Any]:
    assert plan.argv[: len(BASE)] == BASE
    return plan.argv[len(BASE) :]


class FakeSdkServer:
    """Stands in for ``SdkMcpServer``: in-process servers are duck-typed (``type == "sdk"`` and
    a ``handle`` method; see ``partition_mcp_servers``)."""

    type = "sdk"

    def __init__(self, name: str) -> None:
        self.name = name

    def handle(self, message: Any, server_name: Optional[str] = None) -> Any:
        raise AssertionError("never called while planning")


def no_permission_prompts(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
    raise AssertionError("never called while planning")


# ----------------------------------------------------------------------------- base plan


def test_default_plan_is_the_bare_stream_json_command() -> None:
    plan = plan_for()
    assert plan.argv == BASE
    assert plan.initialize_fields == {"systemPrompt": [""]}
    assert plan.cwd is None and plan.user is None and plan.sdk_mcp_servers == {}


def test_cli_path_may_be_a_path_object() -> None:
    plan = build_spawn_plan(ClaudeAgentOptions(), Path(CLI), environ={})
    assert plan.argv[0] == CLI


# ----------------------------------------------------------------------------- flags

FLAG_CASES = [
    ("tools list", dict(tools=["Read", "Bash"]), ["--tools", "Read,Bash"]),
    ("tools empty = no tools", dict(tools=[]), ["--tools", ""]),
    (
        "tools preset",
        dict(tools={"type": "preset", "preset": "claude_code"}),
        ["--tools", "default"],
    ),
    (
        "allowed",
        dict(allowed_tools=["Read", "Bash(git *)"]),
        ["--allowedTools", "Read,Bash(git *)"],
    ),
    ("disallowed", dict(disallowed_tools=["Write"]), ["--disallowedTools", "Write"]),
    ("permission mode", dict(permission_mode="acceptEdits"), ["--permission-mode", "acceptEdits"]),
    (
        "prompt tool",
        dict(permission_prompt_tool_name="mcp__p__ask"),
        ["--permission-prompt-tool", "mcp__p__ask"],
    ),
    (
        "can_use_tool",
        dict(can_use_tool=no_permission_prompts),
        ["--permission-prompt-tool", "stdio"],
    ),
    ("deny all", dict(deny_all_permissions=True), ["--permission-prompt-tool", "stdio"]),
    ("continue", dict(continue_conversation=True), ["--continue"]),
    ("resume", dict(resume="abc"), ["--resume=abc"]),
    ("resume dash", dict(resume="-x"), ["--resume=-x"]),
    ("session id", dict(session_id="0000-1"), ["--session-id=0000-1"]),
    ("fork", dict(resume="abc", fork_session=True), ["--resume=abc", "--fork-session"]),
    (
        "resume at",
        dict(resume="abc", resume_session_at="m1"),
        ["--resume=abc", "--resume-session-at=m1"],
    ),
    ("max turns", dict(max_turns=3), ["--max-turns", "3"]),
    ("max turns zero is left out (official)", dict(max_turns=0), []),
    ("budget", dict(max_budget_usd=1.5), ["--max-budget-usd", "1.5"]),
    ("task budget", dict(task_budget={"total": 5000}), ["--task-budget", "5000"]),
    ("model", dict(model="claude-sonnet-4-5"), ["--model", "claude-sonnet-4-5"]),
    ("fallback", dict(fallback_model="haiku"), ["--fallback-model", "haiku"]),
    ("betas", dict(betas=["a-1", "b-2"]), ["--betas", "a-1,b-2"]),
    ("effort", dict(effort="low"), ["--effort", "low"]),
    ("max thinking", dict(max_thinking_tokens=4096), ["--max-thinking-tokens", "4096"]),
    ("thinking adaptive", dict(thinking={"type": "adaptive"}), ["--thinking", "adaptive"]),
    (
        "thinking adaptive display",
        dict(thinking={"type": "adaptive", "display": "summarized"}),
        ["--thinking", "adaptive", "--thinking-display", "summarized"],
    ),
    (
        "thinking enabled",
        dict(thinking={"type": "enabled", "budget_tokens": 2048}),
        ["--max-thinking-tokens", "2048"],
    ),
    ("thinking enabled, no budget", dict(thinking={"type": "enabled"}), ["--thinking", "adaptive"]),
    (
        "thinking disabled",
        dict(thinking={"type": "disabled", "display": "omitted"}),
        ["--thinking", "disabled"],
    ),
    (
        "thinking wins",
        dict(thinking={"type": "disabled"}, max_thinking_tokens=9),
        ["--thinking", "disabled"],
    ),
    ("partial", dict(include_partial_messages=True), ["--include-partial-messages"]),
    ("hook events", dict(include_hook_events=True), ["--include-hook-events"]),
    ("strict mcp", dict(strict_mcp_config=True), ["--strict-mcp-config"]),
    ("add dirs", dict(add_dirs=["/a", Path("/b")]), ["--add-dir", "/a", "--add-dir", "/b"]),
    (
        "setting sources",
        dict(setting_sources=["user", "project"]),
        ["--setting-sources=user,project"],
    ),
    ("setting sources none", dict(setting_sources=[]), ["--setting-sources="]),
    (
        "plugins",
        dict(plugins=[{"type": "local", "path": "/p1"}, {"type": "local", "path": Path("/p2")}]),
        ["--plugin-dir", "/p1", "--plugin-dir", "/p2"],
    ),
    ("extra value", dict(extra_args={"name": "my run"}), ["--name", "my run"]),
    ("extra bool", dict(extra_args={"replay-user-messages": None}), ["--replay-user-messages"]),
    ("extra dash value", dict(extra_args={"agent": "-odd"}), ["--agent=-odd"]),
    ("extra leading dashes", dict(extra_args={"--bare": None}), ["--bare"]),
    ("model dash value", dict(model="-m"), ["--model=-m"]),
    ("settings path", dict(settings="/etc/claude.json"), ["--settings", "/etc/claude.json"]),
    ("mcp path", dict(mcp_servers=Path("/etc/mcp.json")), ["--mcp-config", "/etc/mcp.json"]),
    (
        "mcp json string",
        dict(mcp_servers='{"mcpServers": {}}'),
        ["--mcp-config", '{"mcpServers": {}}'],
    ),
    ("mcp empty string", dict(mcp_servers=""), []),
    (
        "system prompt file",
        dict(system_prompt={"type": "file", "path": "/sp.md"}),
        ["--system-prompt-file", "/sp.md"],
    ),
    (
        "skills list",
        dict(skills=["pdf"], allowed_tools=["Read"]),
        ["--allowedTools", "Read,Skill(pdf)", "--setting-sources=user,project"],
    ),
    (
        "skills all",
        dict(skills="all"),
        ["--allowedTools", "Skill", "--setting-sources=user,project"],
    ),
    (
        "skills keep sources",
        dict(skills="all", setting_sources=["local"]),
        ["--allowedTools", "Skill", "--setting-sources=local"],
    ),
    (
        "skills no duplicate",
        dict(skills=["pdf"], allowed_tools=["Skill(pdf)"]),
        ["--allowedTools", "Skill(pdf)", "--setting-sources=user,project"],
    ),
]


@pytest.mark.parametrize(
    "kwargs, expected", [c[1:] for c in FLAG_CASES], ids=[c[0] for c in FLAG_CASES]
)
def test_option_maps_to_flags(kwargs: Dict[str, Any], expected: List[str]) -> None:
    assert tail(plan_for(**kwargs)) == expected


def test_extra_args_come_last_so_they_can_override() -> None:
    plan = plan_for(model="a", extra_args={"model": "b"})
    assert tail(plan) == ["--model", "a", "--model", "b"]


def test_every_flag_used_exists_in_cli_2_1_197() -> None:
    """Every flag the builder can emit, checked against the CLI's parser (help + hidden)."""
    known = {
        "--output-format", "--verbose", "--input-format", "--tools", "--allowedTools",
        "--disallowedTools", "--permission-mode", "--permission-prompt-tool", "--continue",
        "--resume", "--session-id", "--fork-session", "--resume-session-at", "--max-turns",
        "--max-budget-usd", "--task-budget", "--model", "--fallback-model", "--betas",
        "--effort", "--max-thinking-tokens", "--thinking", "--thinking-display",
        "--include-partial-messages", "--include-hook-events", "--strict-mcp-config",
        "--add-dir", "--setting-sources", "--plugin-dir", "--settings", "--mcp-config",
        "--system-prompt-file",
    }  # fmt: skip
    used = set()
    for _, kwargs, _ in FLAG_CASES:
        if "extra_args" not in kwargs:
            for item in plan_for(**kwargs).argv[1:]:
                if isinstance(item, str) and item.startswith("--"):
                    used.add(item.split("=", 1)[0])
    assert used <= known, used - known


# ----------------------------------------------------------------------------- initialize

INIT_CASES = [
    ("no prompt = empty prompt", dict(), {"systemPrompt": [""]}),
    ("string prompt", dict(system_prompt="Be brief."), {"systemPrompt": ["Be brief."]}),
    ("preset", dict(system_prompt={"type": "preset", "preset": "claude_code"}), {}),
    (
        "preset append",
        dict(system_prompt={"type": "preset", "preset": "claude_code", "append": "X"}),
        {"appendSystemPrompt": "X"},
    ),
    (
        "preset exclude",
        dict(
            system_prompt={
                "type": "preset",
                "preset": "claude_code",
                "exclude_dynamic_sections": True,
            }
        ),
        {"excludeDynamicSections": True},
    ),
    ("file prompt", dict(system_prompt={"type": "file", "path": "/sp"}), {}),
    (
        "agents",
        dict(agents={"rev": AgentDefinition(description="d", prompt="p", tools=["Read"])}),
        {
            "systemPrompt": [""],
            "agents": {"rev": {"description": "d", "prompt": "p", "tools": ["Read"]}},
        },
    ),
    (
        "agent dict",
        dict(agents={"rev": {"description": "d", "prompt": "p", "model": None}}),
        {"systemPrompt": [""], "agents": {"rev": {"description": "d", "prompt": "p"}}},
    ),
    (
        "schema",
        dict(output_format={"type": "json_schema", "schema": {"type": "object"}}),
        {"systemPrompt": [""], "jsonSchema": {"type": "object"}},
    ),
    (
        "skills list filters",
        dict(skills=["pdf", "docx"]),
        {"systemPrompt": [""], "skills": ["pdf", "docx"]},
    ),
    ("skills all does not", dict(skills="all"), {"systemPrompt": [""]}),
    (
        "subagent text",
        dict(forward_subagent_text=True),
        {"systemPrompt": [""], "forwardSubagentText": True},
    ),
    (
        "sdk mcp",
        dict(mcp_servers={"calc": FakeSdkServer("ignored")}),
        {"systemPrompt": [""], "sdkMcpServers": ["calc"]},
    ),
]


@pytest.mark.parametrize(
    "kwargs, expected", [c[1:] for c in INIT_CASES], ids=[c[0] for c in INIT_CASES]
)
def test_option_maps_to_initialize_fields(kwargs: Dict[str, Any], expected: Dict[str, Any]) -> None:
    assert plan_for(**kwargs).initialize_fields == expected


def test_prompts_agents_and_schema_never_touch_argv() -> None:
    huge = "x" * MB3
    plan = plan_for(
        system_prompt=huge,
        agents={"big": AgentDefinition(description="d", prompt=huge)},
        output_format={"type": "json_schema", "schema": {"description": huge}},
    )
    assert plan.argv == BASE
    assert len(json.dumps(plan.initialize_fields)) > 3 * MB3


def test_preset_append_is_not_on_argv() -> None:
    plan = plan_for(system_prompt={"type": "preset", "preset": "claude_code", "append": "y" * MB3})
    assert plan.argv == BASE


# ----------------------------------------------------------------------------- MCP


def test_mcp_external_servers_go_to_a_config_file_and_sdk_servers_to_initialize() -> None:
    calc = FakeSdkServer("calc")
    external = {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Pad": "h" * MB3}}
    plan = plan_for(mcp_servers={"calc": calc, "remote": external})
    flag, arg = tail(plan)
    assert flag == "--mcp-config" and isinstance(arg, FileArg) and arg.suffix == ".json"
    assert json.loads(arg.content) == {"mcpServers": {"remote": external}}
    assert plan.sdk_mcp_servers == {"calc": calc}
    assert plan.initialize_fields["sdkMcpServers"] == ["calc"]


def test_sdk_servers_alone_need_no_mcp_config() -> None:
    plan = plan_for(mcp_servers={"a": FakeSdkServer("a"), "b": FakeSdkServer("b")})
    assert plan.argv == BASE
    assert list(plan.sdk_mcp_servers) == ["a", "b"]
    assert plan.initialize_fields["sdkMcpServers"] == ["a", "b"]


def test_sdk_server_is_addressed_by_its_key_not_its_name() -> None:
    plan = plan_for(mcp_servers={"key": FakeSdkServer("other")})
    assert plan.initialize_fields["sdkMcpServers"] == ["key"]


def test_the_official_sdk_config_dict_is_an_in_process_server() -> None:
    config = {"type": "sdk", "name": "calc", "instance": FakeSdkServer("calc")}
    plan = plan_for(mcp_servers={"key": config})
    assert plan.argv == BASE
    assert plan.sdk_mcp_servers == {"key": config["instance"]}  # the server behind the config
    assert plan.initialize_fields["sdkMcpServers"] == ["key"]


def test_a_dict_of_type_sdk_needs_a_server_instance() -> None:
    with pytest.raises(ValueError, match=r"mcp_servers\['calc'\].*has no 'instance'"):
        plan_for(mcp_servers={"calc": {"type": "sdk", "name": "calc"}})
    with pytest.raises(TypeError, match=r"\['instance'\] must be a server.*not str"):
        plan_for(mcp_servers={"calc": {"type": "sdk", "name": "calc", "instance": "x"}})


# ----------------------------------------------------------------------------- settings


def test_inline_settings_become_a_file() -> None:
    (flag, arg) = tail(plan_for(settings=' {"model": "x"} '))
    assert flag == "--settings" and isinstance(arg, FileArg)
    assert json.loads(arg.content) == {"model": "x"}


def test_sandbox_is_merged_into_inline_settings() -> None:
    (_, arg) = tail(
        plan_for(settings='{"model": "x", "sandbox": {"old": 1}}', sandbox={"enabled": True})
    )
    assert isinstance(arg, FileArg)
    assert json.loads(arg.content) == {"model": "x", "sandbox": {"enabled": True}}


def test_sandbox_alone_becomes_settings() -> None:
    (_, arg) = tail(plan_for(sandbox={"enabled": False}))
    assert isinstance(arg, FileArg) and json.loads(arg.content) == {"sandbox": {"enabled": False}}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(settings="{not json}"), "not valid JSON"),
        (dict(settings="{}", sandbox={}), None),
    ],
)
def test_settings_errors(kwargs: Dict[str, Any], message: Optional[str]) -> None:
    if message is None:
        plan_for(**kwargs)
        return
    with pytest.raises(ValueError, match=message):
        plan_for(**kwargs)


def test_settings_as_a_dict_become_a_file_like_inline_json() -> None:
    """The TS SDK's ``settings?: string | Settings``: a dict is the settings object itself
    (json.loads of a dict raised a raw TypeError before)."""
    settings = {"model": "x", "permissions": {"deny": ["Bash(rm:*)"]}, "sandbox": {"old": 1}}
    (flag, arg) = tail(plan_for(settings=settings))
    assert flag == "--settings" and isinstance(arg, FileArg)
    assert json.loads(arg.content) == settings
    (_, merged) = tail(plan_for(settings=settings, sandbox={"enabled": True}))
    assert json.loads(merged.content) == {**settings, "sandbox": {"enabled": True}}
    assert settings["sandbox"] == {"old": 1}  # the caller's dict is not changed
    (_, empty) = tail(plan_for(settings={}))
    assert json.loads(empty.content) == {}


def test_a_path_object_is_a_settings_path(tmp_path: Any) -> None:
    assert tail(plan_for(settings=tmp_path / "s.json")) == ["--settings", str(tmp_path / "s.json")]


def _circular() -> Dict[str, Any]:
    loop: Dict[str, Any] = {}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> Dict[str, Any]:
    value: Dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "settings, error, message",
    [
        ({"model": object()}, TypeError, r"settings\['model'\]|settings.*not JSON"),
        ({"budget": float("nan")}, ValueError, "settings.*not JSON"),
        (_circular(), ValueError, "settings.*not JSON"),
        (_deep(100_000), ValueError, "settings.*not JSON"),
        ({1: "x"}, TypeError, "settings keys must be str"),
        (["model"], TypeError, "settings must be a JSON text, a settings file path or a dict, not list"),
        (42, TypeError, "not int"),
        (b'{"model": "x"}', TypeError, "not bytes"),
    ],
    ids=["object", "nan", "circular", "deep", "int_key", "list", "int", "bytes"],
)
def test_bad_settings_values_are_named(settings: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        plan_for(settings=settings)


# ----------------------------------------------------------------------------- invalid options

ERROR_CASES = [
    (
        "callback and prompt tool",
        dict(can_use_tool=no_permission_prompts, permission_prompt_tool_name="x"),
        ValueError,
        "mutually exclusive",
    ),
    (
        "callback and deny all",
        dict(can_use_tool=no_permission_prompts, deny_all_permissions=True),
        ValueError,
        "mutually exclusive",
    ),
    (
        "deny all and prompt tool",
        dict(deny_all_permissions=True, permission_prompt_tool_name="x"),
        ValueError,
        "mutually exclusive",
    ),
    ("prompt type", dict(system_prompt={"type": "bogus", "prompt": "x"}), ValueError, "bogus"),
    ("prompt kind", dict(system_prompt=["a"]), TypeError, "system_prompt"),
    ("thinking type", dict(thinking={"type": "turbo"}), ValueError, "turbo"),
    ("output format", dict(output_format={"type": "text"}), ValueError, "json_schema"),
    ("plugin type", dict(plugins=[{"type": "git", "path": "x"}]), ValueError, "git"),
    ("skill comma", dict(skills=["a,b"]), ValueError, "a,b"),
    ("skill empty", dict(skills=[" "]), ValueError, "empty"),
    ("skills str", dict(skills="pdf"), TypeError, "Did you mean"),
    ("agent type", dict(agents={"a": "prompt"}), TypeError, "AgentDefinition"),
    ("env value", dict(env={"A": 1}), TypeError, "options.env"),
    ("tools str", dict(tools="Read,Bash"), TypeError, "tools"),
    ("allowed str", dict(allowed_tools="Read"), TypeError, "allowed_tools"),
    ("add_dirs str", dict(add_dirs="/a"), TypeError, "add_dirs"),
    ("huge allowed", dict(allowed_tools=["t" * 200_000]), ValueError, "--allowedTools"),
    (
        "huge extra",
        dict(extra_args={"append-system-prompt": "p" * 200_000}),
        ValueError,
        "--append-system-prompt",
    ),
    ("huge resume", dict(resume="r" * 200_000), ValueError, "--resume"),
]


@pytest.mark.parametrize(
    "kwargs, error, match", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_invalid_options_raise(kwargs: Dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        plan_for(**kwargs)


def test_argv_just_under_the_linux_limit_is_accepted() -> None:
    plan = plan_for(allowed_tools=["t" * MAX_ARG_BYTES])
    assert tail(plan) == ["--allowedTools", "t" * MAX_ARG_BYTES]
    with pytest.raises(ValueError):
        plan_for(allowed_tools=["t" * (MAX_ARG_BYTES + 1)])


# ----------------------------------------------------------------------------- env, cwd, user


def test_env_inherits_strips_claudecode_and_adds_ours() -> None:
    plan = plan_for(environ={"PATH": "/bin", "CLAUDECODE": "1", "CLAUDE_CODE_ENTRYPOINT": "cli"})
    assert plan.env == {
        "PATH": "/bin",
        "CLAUDE_CODE_ENTRYPOINT": ENTRYPOINT,
        "CLAUDE_AGENT_SDK_VERSION": __version__,
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
    }


def test_entrypoint_is_one_the_cli_treats_as_an_sdk() -> None:
    # 2.1.197 gives SDK behaviour only to these three (an unknown value adds agents etc.).
    assert ENTRYPOINT in {"sdk-ts", "sdk-py", "sdk-cli"}


def test_file_checkpointing_sets_its_variable() -> None:
    env = plan_for(enable_file_checkpointing=True).env
    assert env["CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"] == "true"
    assert "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING" not in plan_for().env


def test_options_env_is_overlaid_last() -> None:
    plan = plan_for(
        environ={"A": "inherited", "B": "kept"},
        env={"A": "mine", "CLAUDE_CODE_ENTRYPOINT": "sdk-ts", "CLAUDECODE": "on purpose"},
        enable_file_checkpointing=True,
    )
    assert plan.env["A"] == "mine" and plan.env["B"] == "kept"
    assert plan.env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-ts"
    assert plan.env["CLAUDECODE"] == "on purpose"


def test_environ_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_SYNC_TEST_MARKER", "here")
    monkeypatch.setenv("CLAUDECODE", "1")
    env = build_spawn_plan(ClaudeAgentOptions(), CLI).env
    assert env["CLAUDE_SYNC_TEST_MARKER"] == "here" and "CLAUDECODE" not in env


def test_environ_is_not_modified() -> None:
    environ = {"CLAUDECODE": "1"}
    plan_for(environ=environ, env={"X": "1"})
    assert environ == {"CLAUDECODE": "1"}


def test_cwd_is_a_string_and_sets_pwd() -> None:
    plan = plan_for(cwd=Path("/work/project"))
    assert plan.cwd == "/work/project" and plan.env["PWD"] == "/work/project"


def test_user_is_passed_to_the_shell() -> None:
    import pwd  # the user must exist: options check it at construction

    builder = pwd.getpwuid(os.getuid()).pw_name
    assert plan_for(user=builder).user == builder


def test_argv_strings_shows_file_placeholders() -> None:
    plan = plan_for(settings="{}")
    assert plan.argv_strings()[-2:] == ["--settings", "<file.json>"]


# ----------------------------------------------------------------------------- every field handled

NON_DEFAULT: Dict[str, Any] = {
    "tools": ["Read"],
    "allowed_tools": ["Read"],
    "disallowed_tools": ["Write"],
    "system_prompt": "custom",
    "mcp_servers": {"remote": {"type": "http", "url": "http://127.0.0.1:9"}},
    "strict_mcp_config": True,
    "permission_mode": "plan",
    "permission_prompt_tool_name": "mcp__p__ask",
    "continue_conversation": True,
    "resume": "sid",
    "session_id": "sid",
    "fork_session": True,
    "resume_session_at": "mid",
    "max_turns": 2,
    "max_budget_usd": 0.5,
    "model": "m",
    "fallback_model": "f",
    "betas": ["b"],
    "cwd": "/somewhere",
    "settings": "/s.json",
    "add_dirs": ["/d"],
    "env": {"K": "V"},
    "extra_args": {"bare": None},
    "can_use_tool": no_permission_prompts,
    "user": "root",  # must exist: options check it at construction
    "include_partial_messages": True,
    "include_hook_events": True,
    "forward_subagent_text": True,
    "agents": {"a": AgentDefinition(description="d", prompt="p")},
    "setting_sources": ["user"],
    "skills": ["pdf"],
    "sandbox": {"enabled": True},
    "plugins": [{"type": "local", "path": "/p"}],
    "max_thinking_tokens": 1000,
    "thinking": {"type": "adaptive"},
    "effort": "high",
    "output_format": {"type": "json_schema", "schema": {"type": "object"}},
    "enable_file_checkpointing": True,
    "task_budget": {"total": 100},
    "deny_all_permissions": True,
    "resume_drops_turn": "u2",
    "client_app": "my-app/1.0",
    "max_retries": 0,
    "trace_cli": True,
    "hooks": {"PreToolUse": [HookMatcher(hooks=[lambda *a: None])]},
    "session_store": InMemorySessionStore(),
    # initialize-only options
    "tool_aliases": {"Bash": "mcp__w__bash"},
    "plan_mode_instructions": "plan it",
    "title": "A title",
    "prompt_suggestions": True,
    "agent_progress_summaries": True,
    "supported_dialog_kinds": [],  # a non-empty list needs on_user_dialog
    "per_task_stop_affordance": True,
    "managed_settings": {"permissions": {"deny": ["Bash"]}},
    "mcp_servers_delivery": "initialize",
    "plugin_delivery": "initialize",
}
NEEDS = {
    "mcp_servers_delivery": {"mcp_servers": {"ext": {"type": "stdio", "command": "srv"}}},
    "plugin_delivery": {"plugins": [{"type": "local", "path": "/p"}]},
}
"""What a mapped field changes the plan only together with (both sides of the comparison get it)."""


def test_every_option_field_is_either_mapped_or_left_to_the_shell_on_purpose() -> None:
    names = {f.name for f in dataclasses.fields(ClaudeAgentOptions)}
    assert not (set(NON_DEFAULT) & SHELL_CONSUMED_FIELDS)
    assert set(NON_DEFAULT) | SHELL_CONSUMED_FIELDS == names, (
        "a ClaudeAgentOptions field is neither mapped by interpret_options nor listed in "
        "SHELL_CONSUMED_FIELDS: "
        f"{sorted(names - set(NON_DEFAULT) - SHELL_CONSUMED_FIELDS)}"
    )


def _observable(plan: SpawnPlan) -> Any:
    return (plan.argv_strings(), plan.initialize_fields, plan.env, plan.cwd, plan.user)


@pytest.mark.parametrize("name", sorted(NON_DEFAULT))
def test_each_mapped_field_changes_the_plan(name: str) -> None:
    default = ClaudeAgentOptions(**NEEDS.get(name, {}))
    assert getattr(default, name) != NON_DEFAULT[name]
    changed = dataclasses.replace(default, **{name: NON_DEFAULT[name]})
    environ = {"PATH": "/bin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}  # trace_cli needs one
    before = _observable(build_spawn_plan(default, CLI, environ=environ))
    after = _observable(build_spawn_plan(changed, CLI, environ=environ))
    assert after != before


@pytest.mark.parametrize("name", sorted(SHELL_CONSUMED_FIELDS))
def test_shell_consumed_fields_do_not_change_the_plan(name: str) -> None:
    values = {
        "cli_path": "/elsewhere/claude",
        "stderr": print,
        "max_buffer_size": 10,
        "callback_workers": 9,
        "control_timeout": 1.0,
        "initialize_timeout": 2.0,
        "close_timeout": 3.0,
        "raise_on_error_result": False,
        "verbatim_prompts": True,
        "slash_commands": False,
        "debug_stderr": sys.stderr,
        "session_store_flush": "eager",
        "load_timeout_ms": 5,
        "on_elicitation": lambda request: {"action": "decline"},
        "on_user_dialog": lambda request: {"behavior": "cancelled"},
        "spawn_command": lambda command: command,
        "on_process_exit": lambda report: None,
        "shared_pool": "/tmp/pool.sock",
    }
    changed = dataclasses.replace(ClaudeAgentOptions(), **{name: values[name]})
    environ = {"PATH": "/bin"}
    assert _observable(build_spawn_plan(changed, CLI, environ=environ)) == _observable(
        build_spawn_plan(ClaudeAgentOptions(), CLI, environ=environ)
    )


# ----------------------------------------------------------------------------- find_cli

HOME = Path("/home/u")


def fake_lookups(
    files: List[str], on_path: Optional[Dict[str, str]] = None, wheel_dir: Optional[str] = None
) -> Dict[str, Any]:
    existing = {Path(f) for f in files}
    path_map = on_path or {}

    def find_spec(name: str) -> Any:
        assert name == "claude_agent_sdk"
        if wheel_dir is None:
            return None
        return SimpleNamespace(submodule_search_locations=[wheel_dir])

    return dict(
        which=path_map.get,
        is_file=lambda p: Path(p) in existing,
        home=HOME,
        find_spec=find_spec,
        pinned=lambda home: None,
    )


FIND_CASES = [
    (
        "explicit file",
        "/x/claude",
        dict(files=["/x/claude"], on_path={"claude": "/bin/claude"}),
        "/x/claude",
    ),
    ("explicit path object", Path("/x/claude"), dict(files=["/x/claude"]), "/x/claude"),
    (
        "explicit bare name on PATH",
        "claude-beta",
        dict(files=[], on_path={"claude-beta": "/b/claude-beta"}),
        "/b/claude-beta",
    ),
    (
        "PATH first",
        None,
        dict(files=["/usr/local/bin/claude"], on_path={"claude": "/bin/claude"}),
        "/bin/claude",
    ),
    (
        "npm global",
        None,
        dict(files=["/home/u/.npm-global/bin/claude", "/usr/local/bin/claude"]),
        "/home/u/.npm-global/bin/claude",
    ),
    (
        "usr local",
        None,
        dict(files=["/usr/local/bin/claude", "/home/u/.local/bin/claude"]),
        "/usr/local/bin/claude",
    ),
    (
        "local bin",
        None,
        dict(files=["/home/u/.local/bin/claude", "/home/u/.yarn/bin/claude"]),
        "/home/u/.local/bin/claude",
    ),
    (
        "node_modules",
        None,
        dict(files=["/home/u/node_modules/.bin/claude"]),
        "/home/u/node_modules/.bin/claude",
    ),
    ("yarn", None, dict(files=["/home/u/.yarn/bin/claude"]), "/home/u/.yarn/bin/claude"),
    (
        "claude local",
        None,
        dict(files=["/home/u/.claude/local/claude"]),
        "/home/u/.claude/local/claude",
    ),
    (
        "wheel before install paths (official order)",
        None,
        dict(
            files=["/home/u/.claude/local/claude", "/site/claude_agent_sdk/_bundled/claude"],
            wheel_dir="/site/claude_agent_sdk",
        ),
        "/site/claude_agent_sdk/_bundled/claude",
    ),
    (
        "wheel before PATH (official order)",
        None,
        dict(
            files=["/site/claude_agent_sdk/_bundled/claude"],
            wheel_dir="/site/claude_agent_sdk",
            on_path={"claude": "/bin/claude"},
        ),
        "/site/claude_agent_sdk/_bundled/claude",
    ),
    (
        "bundled in wheel",
        None,
        dict(files=["/site/claude_agent_sdk/_bundled/claude"], wheel_dir="/site/claude_agent_sdk"),
        "/site/claude_agent_sdk/_bundled/claude",
    ),
]


@pytest.mark.parametrize(
    "cli_path, lookups, expected", [c[1:] for c in FIND_CASES], ids=[c[0] for c in FIND_CASES]
)
def test_find_cli(cli_path: Any, lookups: Dict[str, Any], expected: str) -> None:
    assert find_cli(cli_path, **fake_lookups(**lookups)) == expected


def test_explicit_cli_path_that_does_not_exist_names_it() -> None:
    with pytest.raises(CLINotFoundError) as info:
        find_cli("/nope/claude", **fake_lookups(files=[], on_path={"claude": "/bin/claude"}))
    assert info.value.cli_path == "/nope/claude"
    assert "/nope/claude" in str(info.value)


def test_explicit_path_with_a_slash_is_not_looked_up_on_path() -> None:
    with pytest.raises(CLINotFoundError):
        find_cli("bin/claude", **fake_lookups(files=[], on_path={"bin/claude": "/bin/claude"}))


def test_nothing_found_gives_install_steps() -> None:
    with pytest.raises(CLINotFoundError) as info:
        find_cli(**fake_lookups(files=[], wheel_dir="/site/claude_agent_sdk"))
    assert "npm install -g @anthropic-ai/claude-code" in str(info.value)
    assert CLI_INSTALL_HINT in str(info.value)
    assert info.value.cli_path is None


def test_no_home_still_searches_system_paths() -> None:
    lookups = fake_lookups(files=["/usr/local/bin/claude"])
    lookups["home"] = lambda: None
    assert find_cli(**lookups) == "/usr/local/bin/claude"


def test_find_spec_errors_mean_no_wheel() -> None:
    def broken(name: str) -> Any:
        raise ValueError("bad spec")

    lookups = fake_lookups(files=[])
    lookups["find_spec"] = broken
    with pytest.raises(CLINotFoundError):
        find_cli(**lookups)


def test_real_lookups_find_an_explicit_file(tmp_path: Path) -> None:
    binary = tmp_path / "claude"
    binary.write_text("#!/bin/sh\n")
    assert find_cli(binary) == str(binary)
    with pytest.raises(CLINotFoundError):
        find_cli(tmp_path / "missing")


def _pinned_install(cache: Path, version: str = PINNED_CLI_VERSION, manifest_version: Optional[str] = None) -> Path:
    """The layout ``.ci/install_cli.sh`` leaves: ``.bin/claude`` linked into the package."""
    modules = cache / version / "node_modules"
    package = modules / "@anthropic-ai" / "claude-code"
    (package / "bin").mkdir(parents=True)
    (package / "bin" / "claude.exe").write_text("#!/bin/sh\n")
    (package / "bin" / "claude.exe").chmod(0o755)
    (package / "package.json").write_text(json.dumps({"version": manifest_version or version}))
    (modules / ".bin").mkdir()
    (modules / ".bin" / "claude").symlink_to("../@anthropic-ai/claude-code/bin/claude.exe")
    return modules / ".bin" / "claude"


@pytest.fixture()
def cli_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("CLAUDE_SYNC_CLI_CACHE", str(cache))
    return cache


def test_the_pinned_cached_cli_is_found_last(cli_cache: Path) -> None:
    link = _pinned_install(cli_cache)
    lookups = fake_lookups(files=[])
    del lookups["pinned"]
    assert find_cli(**lookups) == str(link)
    assert pinned_cli(None) == str(link)  # the cache named by CLAUDE_SYNC_CLI_CACHE, no home needed
    lookups = fake_lookups(files=[], on_path={"claude": "/bin/claude"})
    del lookups["pinned"]
    assert find_cli(**lookups) == "/bin/claude"  # PATH (and everything else) comes first


def test_a_cached_cli_of_another_version_or_layout_is_not_taken(cli_cache: Path) -> None:
    _pinned_install(cli_cache, manifest_version="9.9.9")  # the package says another version
    assert pinned_cli(None) is None
    other = cli_cache / "elsewhere"
    other.mkdir()
    (other / "claude").write_text("#!/bin/sh\n")
    link = cli_cache / PINNED_CLI_VERSION / "node_modules" / ".bin" / "claude"
    link.unlink()
    link.symlink_to(other / "claude")  # the link leaves the package
    assert pinned_cli(None) is None


@pytest.mark.parametrize("writable", ["binary", "package folder", ".bin folder", "cache root"])
def test_a_cached_cli_others_can_change_is_not_taken(cli_cache: Path, writable: str) -> None:
    link = _pinned_install(cli_cache)
    assert pinned_cli(None) == str(link)
    package = cli_cache / PINNED_CLI_VERSION / "node_modules" / "@anthropic-ai" / "claude-code"
    target = {"binary": package / "bin" / "claude.exe", "package folder": package,
              ".bin folder": link.parent, "cache root": cli_cache}[writable]  # fmt: skip
    target.chmod(target.stat().st_mode | stat.S_IWOTH)
    assert pinned_cli(None) is None
    target.chmod(target.stat().st_mode & ~stat.S_IWOTH | stat.S_IWGRP)
    assert pinned_cli(None) is None
    target.chmod(target.stat().st_mode & ~stat.S_IWGRP)
    assert pinned_cli(None) == str(link)


def test_the_not_found_hint_names_the_pinned_version_and_the_installer() -> None:
    with pytest.raises(CLINotFoundError) as info:
        find_cli(**fake_lookups(files=[]))
    assert f"({PINNED_CLI_VERSION})" in str(info.value) and "bash .ci/install_cli.sh" in str(info.value)


# ----------------------------------------------------------------------------- purity


def test_module_is_pure() -> None:
    import claude_sync._options.command as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    forbidden = {"threading", "subprocess", "queue", "time", "asyncio", "concurrent", "socket",
                 "select", "signal"}  # fmt: skip
    assert not (imported & forbidden)


# ----------------------------------------------------------------------------- initialize-only options


def test_initialize_only_options_map_to_initialize_fields() -> None:
    def render(request: Any) -> Any:
        return {"behavior": "cancelled"}

    plan = plan_for(
        tool_aliases={"Bash": "mcp__w__bash"},
        plan_mode_instructions="Plan carefully.",
        title="Nightly run",
        prompt_suggestions=True,
        agent_progress_summaries=True,
        supported_dialog_kinds=["refusal_fallback_prompt"],
        on_user_dialog=render,
        per_task_stop_affordance=True,
    )
    assert plan.argv == BASE
    extras = {k: v for k, v in plan.initialize_fields.items() if k != "systemPrompt"}
    assert extras == {
        "toolAliases": {"Bash": "mcp__w__bash"},
        "planModeInstructions": "Plan carefully.",
        "title": "Nightly run",
        "promptSuggestions": True,
        "agentProgressSummaries": True,
        "supportedDialogKinds": ["refusal_fallback_prompt"],
        "perTaskStopAffordance": True,
    }
    default = build_spawn_plan(ClaudeAgentOptions(), CLI, environ={}).initialize_fields
    assert set(default) == {"systemPrompt"}  # unset extras send nothing


def test_initialize_only_option_errors() -> None:
    with pytest.raises(ValueError, match="supported_dialog_kinds needs on_user_dialog"):
        plan_for(supported_dialog_kinds=["refusal_fallback_prompt"])
    with pytest.raises(TypeError, match="tool_aliases must map"):
        plan_for(tool_aliases={"Bash": 1})
    with pytest.raises(TypeError, match="title must be a str"):
        plan_for(title=3)
    with pytest.raises(TypeError, match="supported_dialog_kinds must be a list of str"):
        plan_for(supported_dialog_kinds="refusal_fallback_prompt", on_user_dialog=print)
    with pytest.raises(TypeError, match="on_elicitation must be callable"):
        plan_for(on_elicitation="decline")


def test_an_sdk_server_timeout_goes_in_initialize_sdk_mcp_server_configs() -> None:
    from claude_sync import create_sdk_mcp_server

    slow = create_sdk_mcp_server("slow", timeout=3)
    plan = plan_for(mcp_servers={"slow": slow, "plain": create_sdk_mcp_server("plain"), "fake": FakeSdkServer("fake")})
    assert plan.initialize_fields["sdkMcpServers"] == ["slow", "plain", "fake"]
    assert plan.initialize_fields["sdkMcpServerConfigs"] == {"slow": {"timeout": 3000}}
    assert "sdkMcpServerConfigs" not in plan_for(mcp_servers={"plain": create_sdk_mcp_server("plain")}).initialize_fields


def test_launch_only_initialize_fields_wait_for_initialize() -> None:
    """``managed_settings`` and the ``"initialize"`` deliveries: the fields go in ``initialize``
    and the CLI is told to wait for it; nothing of them stays on argv."""
    stdio = {"type": "stdio", "command": "srv", "env": {"TOKEN": "s3cret"}}
    plan = plan_for(
        managed_settings={"permissions": {"deny": ["Bash"]}},
        mcp_servers={"ext": stdio}, mcp_servers_delivery="initialize",
        plugins=[{"type": "local", "path": "/p"}], plugin_delivery="initialize",
    )  # fmt: skip
    args = plan.argv_strings()
    assert {"--await-initialize", "--managed-settings-in-initialize"} <= set(args)
    assert "--mcp-config" not in args and "--plugin-dir" not in args
    fields = plan.initialize_fields
    assert fields["managedSettings"] == {"permissions": {"deny": ["Bash"]}}
    assert fields["mcpServers"] == {"ext": stdio} and fields["plugins"] == [{"type": "local", "path": "/p"}]
    plan.check_initialize_answer({"managed_settings_applied": True, "mcp_servers_applied": True, "plugins_applied": True})
    with pytest.raises(CLIConnectionError, match='plugin_delivery="initialize".*plugins_applied: False'):
        plan.check_initialize_answer({"managed_settings_applied": True, "mcp_servers_applied": True, "plugins_applied": False})
    with pytest.raises(CLIConnectionError, match="managed_settings .*managed_settings_applied: None"):
        plan.check_initialize_answer({})
    plain = plan_for(mcp_servers={"ext": stdio}, plugins=[{"type": "local", "path": "/p"}])
    assert "--await-initialize" not in plain.argv_strings() and "--plugin-dir" in plain.argv_strings()
    plain.check_initialize_answer({})


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(mcp_servers_delivery="stdin"), ValueError, "'argv' or 'initialize'"),
        (dict(plugin_delivery=None), ValueError, "'argv' or 'initialize'"),
        (dict(managed_settings="{}"), TypeError, "managed_settings must be a dict"),
        (dict(managed_settings={"x": float("nan")}), ValueError, "managed_settings is not JSON"),
        (dict(mcp_servers="/etc/mcp.json", mcp_servers_delivery="initialize"), ValueError, "needs mcp_servers as a dict"),
    ],
)
def test_bad_delivery_options_are_named(kwargs: Dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        plan_for(**kwargs)


def test_settings_layers_read_settings_given_as_a_dict(tmp_path: Any) -> None:
    """The layers the CLI will load (the kit's switch reads them for provider variables):
    a dict is the flag layer itself; one that is not JSON is a layer that says so."""
    from claude_sync._options.cli_settings import settings_layers

    env = {"HOME": str(tmp_path)}
    options = ClaudeAgentOptions(cwd=str(tmp_path), setting_sources=[], settings={"env": {"A": "1"}})
    flag = [layer for layer in settings_layers(options, env) if layer.source == "flag"]
    assert [(layer.origin, layer.settings) for layer in flag] == [("options.settings", {"env": {"A": "1"}})]
    options.settings = {"x": object()}  # options are mutable after construction
    (bad,) = [layer for layer in settings_layers(options, env) if layer.source == "flag"]
    assert bad.settings is None and "not JSON" in str(bad.problem)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_cached_cli_another_user_owns_is_not_taken(cli_cache: Path) -> None:
    link = _pinned_install(cli_cache)
    binary = cli_cache / PINNED_CLI_VERSION / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    os.chown(binary, 65534, 65534)  # nobody: could replace what we would run
    assert pinned_cli(None) is None
    os.chown(binary, 0, 0)
    assert pinned_cli(None) == str(link)
