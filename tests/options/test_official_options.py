"""Every ``ClaudeAgentOptions`` field of the official SDK 0.2.187 reaches the CLI as it sends it.

The expected values were read from the official source (``_internal/transport/subprocess_cli.py``
``_build_command`` and ``connect``, ``client.py`` / ``_internal/query.py`` ``initialize``) and
checked once against its ``_build_command`` output; the test does not import it. Where
claude_sync deliberately uses another channel the row says so (``ours``):

* the system prompt rides in ``initialize.systemPrompt`` / ``appendSystemPrompt`` (the
  TypeScript SDK's channel, accepted by CLI 2.1.197 and 2.1.330) instead of
  ``--system-prompt`` / ``--append-system-prompt``;
* the ``--mcp-config`` / ``--settings`` JSON goes through a temp file (argv size limits);
* ``output_format`` rides in ``initialize.jsonSchema`` instead of ``--json-schema``;
* ``thinking={"type": "enabled"}`` without a budget is ``--thinking adaptive`` (official:
  ``KeyError``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

import pytest

from claude_sync import AgentDefinition, ClaudeAgentOptions, HookMatcher
from claude_sync._options.command import FileArg, SpawnPlan, build_spawn_plan
from claude_sync._version import __version__
from claude_sync._wire.errors import CLIConnectionError

CLI = "/opt/claude"


def plan(environ: Optional[Dict[str, str]] = None, **kwargs: Any) -> SpawnPlan:
    return build_spawn_plan(ClaudeAgentOptions(**kwargs), CLI, environ=environ or {})


def contains(argv: Sequence[Any], fragment: Sequence[Any]) -> bool:
    n = len(fragment)
    return any(list(argv[i : i + n]) == list(fragment) for i in range(len(argv) - n + 1))


def file_json(argv: Sequence[Any], flag: str) -> Any:
    value = argv[list(argv).index(flag) + 1]
    assert isinstance(value, FileArg)
    return json.loads(value.content)


# (id, kwargs, argv fragment the official SDK emits, flags it leaves out)
ARGV_ROWS: List[Any] = [
    ("tools list", dict(tools=["Read", "Bash"]), ["--tools", "Read,Bash"], []),
    ("tools empty", dict(tools=[]), ["--tools", ""], []),
    ("tools preset", dict(tools={"type": "preset", "preset": "claude_code"}), ["--tools", "default"], []),
    ("allowed_tools", dict(allowed_tools=["Read", "Glob"]), ["--allowedTools", "Read,Glob"], []),
    ("disallowed_tools", dict(disallowed_tools=["Write"]), ["--disallowedTools", "Write"], []),
    ("system_prompt file", dict(system_prompt={"type": "file", "path": "/p.md"}), ["--system-prompt-file", "/p.md"], []),
    ("strict_mcp_config", dict(strict_mcp_config=True), ["--strict-mcp-config"], []),
    ("mcp_servers path", dict(mcp_servers="/m.json"), ["--mcp-config", "/m.json"], []),
    ("permission_mode", dict(permission_mode="acceptEdits"), ["--permission-mode", "acceptEdits"], []),
    ("permission_mode empty", dict(permission_mode=""), None, ["--permission-mode"]),
    ("permission_prompt_tool_name", dict(permission_prompt_tool_name="mcp__a__b"), ["--permission-prompt-tool", "mcp__a__b"], []),
    ("can_use_tool", dict(can_use_tool=lambda n, i, c: None), ["--permission-prompt-tool", "stdio"], []),
    ("continue_conversation", dict(continue_conversation=True), ["--continue"], []),
    ("resume", dict(resume="abc"), ["--resume=abc"], []),
    ("resume empty", dict(resume=""), None, ["--resume="]),
    ("session_id", dict(session_id="0000"), ["--session-id=0000"], []),
    ("session_id empty", dict(session_id=""), None, ["--session-id="]),
    ("max_turns", dict(max_turns=3), ["--max-turns", "3"], []),
    ("max_turns zero", dict(max_turns=0), None, ["--max-turns"]),
    ("max_budget_usd", dict(max_budget_usd=0.25), ["--max-budget-usd", "0.25"], []),
    ("model", dict(model="claude-x"), ["--model", "claude-x"], []),
    ("model empty", dict(model=""), None, ["--model"]),
    ("fallback_model", dict(fallback_model="haiku"), ["--fallback-model", "haiku"], []),
    ("fallback_model empty", dict(fallback_model=""), None, ["--fallback-model"]),
    ("betas", dict(betas=["context-1m-2025-08-07"]), ["--betas", "context-1m-2025-08-07"], []),
    ("settings path", dict(settings="/s.json"), ["--settings", "/s.json"], []),
    ("add_dirs", dict(add_dirs=["/a", "/b"]), ["--add-dir", "/a", "--add-dir", "/b"], []),
    ("extra_args", dict(extra_args={"replay-user-messages": None, "foo": "-bar", "x": "y"}), ["--replay-user-messages", "--foo=-bar", "--x", "y"], []),
    ("include_partial_messages", dict(include_partial_messages=True), ["--include-partial-messages"], []),
    ("include_hook_events", dict(include_hook_events=True), ["--include-hook-events"], []),
    ("fork_session", dict(resume="a", fork_session=True), ["--fork-session"], []),
    ("resume_session_at", dict(resume="a", resume_session_at="u1"), ["--resume-session-at=u1"], []),
    ("resume_drops_turn", dict(resume="a", resume_drops_turn="u2"), ["--resume-drops-turn=u2"], []),
    ("resume_drops_turn empty is sent", dict(resume="a", resume_drops_turn=""), ["--resume-drops-turn="], []),
    ("setting_sources", dict(setting_sources=["user", "local"]), ["--setting-sources=user,local"], []),
    ("skills all", dict(skills="all"), ["--allowedTools", "Skill"], []),
    ("skills all sources", dict(skills="all"), ["--setting-sources=user,project"], []),
    ("skills list", dict(skills=["pdf", "my skill"]), ["--allowedTools", "Skill(pdf),Skill(my skill)"], []),
    ("skills keep sources", dict(skills=["pdf"], setting_sources=["local"]), ["--setting-sources=local"], []),
    ("plugins", dict(plugins=[{"type": "local", "path": "/p"}]), ["--plugin-dir", "/p"], []),
    ("max_thinking_tokens", dict(max_thinking_tokens=2048), ["--max-thinking-tokens", "2048"], []),
    ("thinking adaptive", dict(thinking={"type": "adaptive", "display": "omitted"}), ["--thinking", "adaptive", "--thinking-display", "omitted"], []),
    ("thinking enabled", dict(thinking={"type": "enabled", "budget_tokens": 900}), ["--max-thinking-tokens", "900"], ["--thinking"]),
    ("thinking disabled", dict(thinking={"type": "disabled"}), ["--thinking", "disabled"], []),
    ("thinking over max_thinking_tokens", dict(thinking={"type": "disabled"}, max_thinking_tokens=5), ["--thinking", "disabled"], ["--max-thinking-tokens"]),
    ("effort", dict(effort="xhigh"), ["--effort", "xhigh"], []),
    ("task_budget", dict(task_budget={"total": 5000}), ["--task-budget", "5000"], []),
    ("defaults", dict(), ["--output-format", "stream-json", "--verbose"], ["--max-turns", "--model", "--resume=", "--settings"]),
]  # fmt: skip


@pytest.mark.parametrize("kwargs, fragment, absent", [r[1:] for r in ARGV_ROWS], ids=[r[0] for r in ARGV_ROWS])
def test_argv_as_official(kwargs: Dict[str, Any], fragment: Optional[List[str]], absent: List[str]) -> None:
    argv = plan(**kwargs).argv
    assert argv[:5] == [CLI, "--output-format", "stream-json", "--verbose", "--input-format"]
    if fragment is not None:
        assert contains(argv, fragment), argv
    for flag in absent:
        assert not any(isinstance(a, str) and (a == flag or a.startswith(flag + "=")) for a in argv), argv
        assert flag not in [a for a in argv if isinstance(a, str)], argv


# (id, kwargs, initialize fields — official ones plus, marked ours, the TypeScript channel)
INIT_ROWS: List[Any] = [
    ("system_prompt None (ours: official --system-prompt '')", dict(), {"systemPrompt": [""]}),
    ("system_prompt str (ours: official --system-prompt)", dict(system_prompt="Be brief"), {"systemPrompt": ["Be brief"]}),
    ("system_prompt custom (ours: official --system-prompt)", dict(system_prompt={"type": "custom", "prompt": "bot"}), {"systemPrompt": ["bot"]}),
    ("system_prompt custom snapshot", dict(system_prompt={"type": "custom", "prompt": "bot", "snapshot": False}), {"systemPrompt": ["bot"], "systemPromptSnapshot": False}),
    ("system_prompt preset append (ours: official --append-system-prompt)", dict(system_prompt={"type": "preset", "preset": "claude_code", "append": "x"}), {"appendSystemPrompt": "x"}),
    ("system_prompt preset snapshot", dict(system_prompt={"type": "preset", "preset": "claude_code", "snapshot": True}), {"systemPromptSnapshot": True}),
    ("exclude_dynamic_sections", dict(system_prompt={"type": "preset", "preset": "claude_code", "exclude_dynamic_sections": True}), {"excludeDynamicSections": True}),
    ("agents", dict(agents={"r": AgentDefinition(description="d", prompt="p", tools=["Read"])}), {"agents": {"r": {"description": "d", "prompt": "p", "tools": ["Read"]}}}),
    ("skills list", dict(skills=["pdf"]), {"skills": ["pdf"]}),
    ("forward_subagent_text", dict(forward_subagent_text=True), {"forwardSubagentText": True}),
    ("output_format (ours: official --json-schema)", dict(output_format={"type": "json_schema", "schema": {"type": "object"}}), {"jsonSchema": {"type": "object"}}),
]  # fmt: skip


@pytest.mark.parametrize("kwargs, fields", [r[1:] for r in INIT_ROWS], ids=[r[0] for r in INIT_ROWS])
def test_initialize_as_official(kwargs: Dict[str, Any], fields: Dict[str, Any]) -> None:
    init = plan(**kwargs).initialize_fields
    for key, value in fields.items():
        assert init[key] == value, init


@pytest.mark.parametrize(
    "kwargs, absent",
    [
        (dict(skills="all"), "skills"),  # "all" and None mean no filter on the wire
        (dict(system_prompt={"type": "preset", "preset": "claude_code", "snapshot": "yes"}), "systemPromptSnapshot"),
        (dict(system_prompt={"type": "file", "path": "/p", "snapshot": True}), "systemPromptSnapshot"),
        (dict(forward_subagent_text=False), "forwardSubagentText"),
    ],
)
def test_initialize_fields_left_out_as_official(kwargs: Dict[str, Any], absent: str) -> None:
    assert absent not in plan(**kwargs).initialize_fields


def test_hook_on_failure_goes_to_the_matcher() -> None:
    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[lambda i, t, c: {}], timeout=5, on_failure="block")]}
    init = plan(hooks=hooks).initialize_fields
    assert init["hooks"] == {"PreToolUse": [{"hookCallbackIds": ["hook_0"], "matcher": "Bash", "timeout": 5, "onFailure": "block"}]}
    assert plan(hooks=hooks).hooks_fail_closed
    assert not plan(hooks={"Stop": [HookMatcher(hooks=[lambda i, t, c: {}], on_failure="continue")]}).hooks_fail_closed


@pytest.mark.parametrize(
    "answer, error",
    [
        ({"hook_on_failure_supported": True}, None),
        ({"hook_on_failure_supported": True, "hooks_applied": True}, None),
        ({}, "does not honour on_failure"),
        ({"hook_on_failure_supported": True, "hooks_applied": False}, "did not register"),
    ],
)
def test_fail_closed_hooks_need_a_cli_that_honours_them(answer: Dict[str, Any], error: Optional[str]) -> None:
    spawn = plan(hooks={"PreToolUse": [HookMatcher(hooks=[lambda i, t, c: {}], on_failure="block")]})
    if error is None:
        spawn.check_initialize_answer(answer)
    else:
        with pytest.raises(CLIConnectionError, match=error):
            spawn.check_initialize_answer(answer)
    plan().check_initialize_answer({})  # nothing fail-closed: nothing to check


def test_bad_on_failure_value_is_refused() -> None:
    with pytest.raises(ValueError, match="on_failure"):
        plan(hooks={"Stop": [HookMatcher(hooks=[lambda i, t, c: {}], on_failure="explode")]})  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- environment


def test_env_layers_as_official() -> None:
    env = plan(
        environ={"PATH": "/bin", "CLAUDECODE": "1", "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP": "outer/1"},
        env={"CLAUDE_AGENT_SDK_VERSION": "mine", "CLAUDE_CODE_ENTRYPOINT": "sdk-ts", "K": "V"},
        client_app="my-app/2.0",
        enable_file_checkpointing=True,
        cwd="/work",
    ).env
    assert env == {
        "PATH": "/bin",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-ts",  # options.env may override it
        "K": "V",
        "CLAUDE_AGENT_SDK_VERSION": __version__,  # never overridable
        "CLAUDE_AGENT_SDK_CLIENT_APP": "my-app/2.0",
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
        "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING": "true",
        "PWD": "/work",
    }


def test_client_app_empty_is_sent_and_inherited_one_is_kept() -> None:
    assert plan(client_app="").env["CLAUDE_AGENT_SDK_CLIENT_APP"] == ""
    assert plan(environ={"CLAUDE_AGENT_SDK_CLIENT_APP": "x/1"}).env["CLAUDE_AGENT_SDK_CLIENT_APP"] == "x/1"


@pytest.mark.parametrize("key", ["CLAUDE_CODE_SDK_READS_SESSION_STATE", "claude_code_sdk_reads_session_state"])
def test_session_state_variable_left_to_the_caller_in_any_case(key: str) -> None:
    env = plan(environ={key: "0"}).env
    assert env[key] == "0"
    assert [k for k in env if k.upper() == "CLAUDE_CODE_SDK_READS_SESSION_STATE"] == [key]


def test_trace_context_replaces_inherited_but_not_explicit_values() -> None:
    carrier = {"traceparent": "00-abc-def-01", "tracestate": "k=v"}
    inherited = {"TRACEPARENT": "stale", "TRACESTATE": "stale"}
    env = build_spawn_plan(ClaudeAgentOptions(), CLI, environ=inherited, trace_carrier=carrier).env
    assert env["TRACEPARENT"] == "00-abc-def-01" and env["TRACESTATE"] == "k=v"
    mine = ClaudeAgentOptions(env={"TRACEPARENT": "pinned"})
    env = build_spawn_plan(mine, CLI, environ=inherited, trace_carrier=carrier).env
    assert env["TRACEPARENT"] == "pinned" and env["TRACESTATE"] == "k=v"
    env = build_spawn_plan(ClaudeAgentOptions(), CLI, environ=inherited, trace_carrier={"baggage": "b"}).env
    assert env["TRACEPARENT"] == "stale"  # no traceparent: nothing replaced


@pytest.mark.parametrize(
    "environ, option, expected",
    [({}, 60.0, 60.0), ({"CLAUDE_CODE_STREAM_CLOSE_TIMEOUT": "120000"}, 60.0, 120.0), ({"CLAUDE_CODE_STREAM_CLOSE_TIMEOUT": "1000"}, 90.0, 90.0)],
)
def test_stream_close_timeout_raises_the_initialize_timeout(environ: Dict[str, str], option: float, expected: float) -> None:
    assert plan(environ=environ, initialize_timeout=option).initialize_timeout == expected


def test_malformed_stream_close_timeout_is_named() -> None:
    with pytest.raises(ValueError, match="CLAUDE_CODE_STREAM_CLOSE_TIMEOUT"):
        plan(environ={"CLAUDE_CODE_STREAM_CLOSE_TIMEOUT": "soon"})


# ----------------------------------------------------------------------------- edge cases


def test_sandbox_is_merged_into_a_settings_file(tmp_path: Any) -> None:
    (tmp_path / "s.json").write_text('\ufeff{"permissions": {"allow": ["Read"]}}', encoding="utf-8")
    argv = plan(settings="s.json", cwd=str(tmp_path), sandbox={"enabled": True}).argv
    assert file_json(argv, "--settings") == {"permissions": {"allow": ["Read"]}, "sandbox": {"enabled": True}}


@pytest.mark.parametrize("content", [None, "{not json"])
def test_sandbox_with_an_unreadable_settings_file_refuses_to_start(tmp_path: Any, content: Optional[str]) -> None:
    if content is not None:
        (tmp_path / "s.json").write_text(content)
    with pytest.raises(CLIConnectionError, match="s.json"):
        plan(settings=str(tmp_path / "s.json"), sandbox={"enabled": True})


@pytest.mark.parametrize(
    "skills, error",
    [
        ("pdf", TypeError),
        (["/pdf"], ValueError),
        (["*"], ValueError),
        (["a:*"], ValueError),
        ([" pdf"], ValueError),
        (["a,b"], ValueError),
        (["a(b)"], ValueError),
        (["a\\\\b"], ValueError),
        (["a\\"], ValueError),
        (["a\x85b"], ValueError),
        ([""], ValueError),
        ([3], TypeError),
    ],
)
def test_skill_names_are_checked_as_official(skills: Any, error: type) -> None:
    with pytest.raises(error):
        plan(skills=skills)


def test_thinking_enabled_without_budget_is_adaptive() -> None:  # ours; official: KeyError
    assert contains(plan(thinking={"type": "enabled"}).argv, ["--thinking", "adaptive"])


def test_mcp_servers_external_config_is_the_official_json() -> None:
    servers = {"remote": {"type": "http", "url": "http://127.0.0.1:9"}}
    assert file_json(plan(mcp_servers=servers).argv, "--mcp-config") == {"mcpServers": servers}


def test_can_use_tool_shadowing_warns_as_official() -> None:
    from claude_sync import CanUseToolShadowedWarning

    allow = lambda n, i, c: None  # noqa: E731
    with pytest.warns(CanUseToolShadowedWarning, match="Read"):
        plan(can_use_tool=allow, allowed_tools=["Read", "Bash(ls:*)"])
    with pytest.warns(CanUseToolShadowedWarning, match="bypassPermissions"):
        plan(can_use_tool=allow, permission_mode="bypassPermissions")
    with pytest.warns(CanUseToolShadowedWarning, match="Skill"):
        plan(can_use_tool=allow, skills="all")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan(can_use_tool=allow, allowed_tools=["Bash(ls:*)"], skills=["pdf"])
        plan(allowed_tools=["Read"])
