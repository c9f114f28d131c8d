"""Options fail early and by name, hide their secrets, refuse ``async`` callbacks; an odd error
result still becomes a ``ResultError``."""

from __future__ import annotations

import functools
import math
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    ResultError,
    query,
)
from claude_sync._options.validation import RULES, add_rule, is_async_callable
from claude_sync.testing import ScriptedCLI

# ----------------------------------------------------------------------------- item 15


@pytest.mark.parametrize(
    "fields, error, fragment",
    [
        ({"close_timeout": 0}, ValueError, r"close_timeout must be a finite number of seconds > 0, got 0"),
        ({"close_timeout": -1}, ValueError, r"close_timeout .* got -1"),
        ({"close_timeout": math.inf}, ValueError, r"close_timeout .* got inf"),
        ({"close_timeout": math.nan}, ValueError, r"close_timeout .* got nan"),
        ({"close_timeout": None}, TypeError, r"close_timeout must be a number of seconds, got None"),
        ({"control_timeout": None}, TypeError, r"control_timeout must be a number of seconds, got None"),
        ({"control_timeout": "30"}, TypeError, r"control_timeout must be a number of seconds, got str"),
        ({"initialize_timeout": "60"}, TypeError, r"initialize_timeout .* got str"),
        ({"initialize_timeout": True}, TypeError, r"initialize_timeout .* got True"),
        ({"callback_workers": 0}, ValueError, r"callback_workers must be an int >= 1, got 0"),
        ({"callback_workers": 2.0}, TypeError, r"callback_workers must be an int, got 2.0"),
        ({"max_buffer_size": 0}, ValueError, r"max_buffer_size must be an int >= 1"),
        ({"max_turns": "3"}, TypeError, r"max_turns must be an int, got str"),
        ({"max_turns": -1}, ValueError, r"max_turns must be an int >= 0, got -1"),
        ({"max_budget_usd": 0}, ValueError, r"max_budget_usd must be a finite number > 0, got 0"),
        ({"max_budget_usd": "5"}, TypeError, r"max_budget_usd must be a number, got str"),
        ({"max_thinking_tokens": 1.5}, TypeError, r"max_thinking_tokens must be an int, got 1.5"),
        ({"include_partial_messages": "yes"}, TypeError, r"include_partial_messages must be True or False"),
        ({"fork_session": 1}, TypeError, r"fork_session must be True or False, got 1"),
        ({"deny_all_permissions": "no"}, TypeError, r"deny_all_permissions must be True or False, got str"),
        ({"raise_on_error_result": 0}, TypeError, r"raise_on_error_result must be True or False, got 0"),
        ({"user": "no-such-user-claude-sync"}, ValueError, r"user: no such user on this machine: 'no-such-user-claude-sync'"),
        ({"user": -1}, ValueError, r"user must be a uid >= 0"),
        ({"user": 1.5}, TypeError, r"user must be a user name \(str\) or a uid \(int\)"),
        ({"can_use_tool": "allow"}, TypeError, r"can_use_tool must be a callable, got str"),
        ({"stderr": 3}, TypeError, r"stderr must be a callable, got 3"),
        ({"hooks": {"Stop": None}}, TypeError, r"ClaudeAgentOptions.hooks\['Stop'\] must be a list"),
    ],
)
def test_bad_options_are_refused_at_construction_by_name(fields: Dict[str, Any], error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        ClaudeAgentOptions(**fields)


def test_good_options_pass() -> None:
    import os
    import pwd

    options = ClaudeAgentOptions(
        close_timeout=0.5, control_timeout=5, initialize_timeout=1e3, callback_workers=1,
        max_buffer_size=1 << 20, user=pwd.getpwuid(os.getuid()).pw_name,
        can_use_tool=lambda name, data, ctx: PermissionResultAllow(), stderr=print,
        hooks={"Stop": [HookMatcher(hooks=[lambda data, tool_use_id, ctx: {}])]},
    )  # fmt: skip
    assert options.close_timeout == 0.5


def test_options_changed_after_construction_are_checked_before_spawning() -> None:
    options = ClaudeAgentOptions(cli_path="/nonexistent/claude")
    options.control_timeout = None  # type: ignore[assignment]
    with pytest.raises(TypeError, match="control_timeout must be a number of seconds, got None"):
        ClaudeSDKClient(options).connect()
    with pytest.raises(TypeError, match="control_timeout"):
        next(iter(query("hi", options=options)))


def test_rules_table_is_extensible() -> None:
    seen: List[Any] = []
    add_rule("model", lambda name, value: seen.append((name, value)))
    try:
        ClaudeAgentOptions(model="m")
    finally:
        RULES["model"] = RULES["model"][:-1]
        if not RULES["model"]:
            del RULES["model"]
    assert seen == [("model", "m")]


# ----------------------------------------------------------------------------- item 16


def test_repr_redacts_env_and_secret_looking_values() -> None:
    options = ClaudeAgentOptions(
        env={"ANTHROPIC_API_KEY": "sk-ant-api03-SECRETSECRET", "PLAIN": "visible-value"},
        mcp_servers={
            "remote": {"type": "http", "url": "https://mcp.example", "headers": {"X-Custom": "hdr-secret"}},
            "local": {"type": "stdio", "command": "srv", "env": {"DB": "db-password"}, "args": ["--token", "x"]},
        },
        extra_args={"api-key": "extra-secret", "verbose": None},
        system_prompt="use key sk-ant-oat01-INLINE and Bearer abc.def",
        sandbox={"auth": {"password": "pw-secret"}},
        model="claude-x",
    )
    text = repr(options)
    for secret in ("SECRETSECRET", "visible-value", "hdr-secret", "db-password", "extra-secret", "pw-secret"):
        assert secret not in text, secret
    assert "use key sk-ant-oat01-INLINE and Bearer abc.def" in text  # the user's words: no known value in them (issue 26.6)
    for kept in ("ANTHROPIC_API_KEY", "PLAIN", "X-Custom", "https://mcp.example", "claude-x", "'verbose': None", "<redacted>"):
        assert kept in text, kept
    assert options.env["PLAIN"] == "visible-value"  # the options themselves are untouched
    assert text.startswith("ClaudeAgentOptions(")


# ----------------------------------------------------------------------------- item 17


async def _async_permission(name: str, data: Dict[str, Any], ctx: Any) -> Any:  # pragma: no cover
    return PermissionResultAllow()


async def _async_hook(data: Dict[str, Any], tool_use_id: Optional[str], ctx: Any) -> Any:  # pragma: no cover
    return {"decision": "block"}


async def _async_stderr(line: str) -> None:  # pragma: no cover
    pass


class _AsyncCallable:
    async def __call__(self, line: str) -> None:  # pragma: no cover
        pass

    async def method(self, line: str) -> None:  # pragma: no cover
        pass


@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"can_use_tool": _async_permission}, "can_use_tool is an async function"),
        ({"stderr": _async_stderr}, "stderr is an async function"),
        ({"stderr": _AsyncCallable()}, "stderr is an async function"),
        ({"stderr": _AsyncCallable().method}, "stderr is an async function"),
        ({"stderr": functools.partial(_async_stderr)}, "stderr is an async function"),
        (
            {"hooks": {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[lambda *a: {}, _async_hook])]}},  # type: ignore[list-item]
            r"hooks\['PreToolUse'\]\[0\] hook _async_hook is an async function",
        ),
    ],
)
def test_async_callbacks_are_refused_at_construction(fields: Dict[str, Any], fragment: str) -> None:
    with pytest.raises(TypeError, match=fragment) as info:
        ClaudeAgentOptions(**fields)
    assert "drop `async`" in str(info.value)


def test_plain_callables_are_not_async() -> None:
    assert not is_async_callable(print)
    assert not is_async_callable(lambda: None)
    assert not is_async_callable(functools.partial(print, "x"))
    assert not is_async_callable(dict)
    assert is_async_callable(_async_hook)


# ----------------------------------------------------------------------------- item 13


@pytest.mark.parametrize(
    "errors, expected, shown",
    [
        ([{"code": "overloaded"}, 3, " kept "], ["kept"], "kept"),
        ("one string", ["one string"], "one string"),
        ({"nested": ["x"]}, [], '{"nested": ["x"]}'),
        (42, [], "42"),
    ],
)
def test_error_result_with_odd_errors_raises_result_error(errors: Any, expected: List[str], shown: str) -> None:
    """``errors`` keeps the str entries only, as the official SDK (issue 19); the message
    still shows what the CLI sent."""
    cli = ScriptedCLI().expect_user().result(None, is_error=True, subtype="error_during_execution", errors=errors).crash(1)
    seen = []
    with pytest.raises(ResultError) as info:
        for message in query("hi", transport=cli.transport()):
            seen.append(message)
    assert info.value.errors == expected
    assert shown in str(info.value)
    assert len(seen) >= 1


def test_plans_built_from_options_do_not_print_secrets() -> None:
    from claude_sync._options.command import interpret_options

    options = ClaudeAgentOptions(
        env={"ANTHROPIC_API_KEY": "sk-ant-api03-PLANSECRET"},
        mcp_servers={"remote": {"type": "http", "url": "https://mcp.example", "headers": {"X-Key": "plan-header-secret"}}},
    )
    plan = interpret_options(options)
    spawn = plan.spawn_plan("/bin/claude", environ={"OTHER_TOKEN": "inherited-secret"})
    for text in (repr(plan), repr(spawn)):
        for secret in ("PLANSECRET", "plan-header-secret", "inherited-secret"):
            assert secret not in text
    assert "--mcp-config" in repr(spawn)


@pytest.mark.parametrize(
    "field,value,error,fragment",
    [
        ("verbatim_prompts", "yes", TypeError, "verbatim_prompts"),
        ("slash_commands", "no", TypeError, "slash_commands"),
        ("resume_drops_turn", 42, TypeError, "resume_drops_turn"),
        ("client_app", ["app"], TypeError, "client_app"),
        ("debug_stderr", "stderr", TypeError, "debug_stderr"),
    ],
)
def test_the_flag_and_sink_options_are_type_checked(field: str, value: object, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        ClaudeAgentOptions(**{field: value})
