"""``trace_cli``: the CLI's telemetry switches and the endpoint it needs (the spawn plan)."""

from __future__ import annotations

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync._options.command import build_spawn_plan
from claude_sync._options.environment import CLI_TRACE_ENV

CLI = "/usr/bin/claude"
ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}


def test_the_switches_are_set_and_the_inherited_endpoint_is_kept() -> None:
    env = build_spawn_plan(ClaudeAgentOptions(trace_cli=True), CLI, environ={"PATH": "/bin", **ENDPOINT}).env
    assert {key: env[key] for key in CLI_TRACE_ENV} == CLI_TRACE_ENV
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == ENDPOINT["OTEL_EXPORTER_OTLP_ENDPOINT"]


def test_an_endpoint_in_options_env_is_enough() -> None:
    options = ClaudeAgentOptions(trace_cli=True, env={"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"})
    assert build_spawn_plan(options, CLI, environ={"PATH": "/bin"}).env["CLAUDE_CODE_ENABLE_TELEMETRY"] == "1"


def test_no_endpoint_is_a_clear_error_before_anything_starts() -> None:
    with pytest.raises(ValueError, match="OTEL_EXPORTER_OTLP_ENDPOINT"):
        build_spawn_plan(ClaudeAgentOptions(trace_cli=True), CLI, environ={"PATH": "/bin"})


def test_options_env_that_turns_a_switch_off_contradicts_trace_cli() -> None:
    options = ClaudeAgentOptions(trace_cli=True, env={"OTEL_TRACES_EXPORTER": "none"})
    with pytest.raises(ValueError, match="OTEL_TRACES_EXPORTER"):
        build_spawn_plan(options, CLI, environ={"PATH": "/bin", **ENDPOINT})


def test_off_by_default_nothing_is_set() -> None:
    env = build_spawn_plan(ClaudeAgentOptions(), CLI, environ={"PATH": "/bin"}).env
    assert not set(CLI_TRACE_ENV) & set(env)


def test_a_non_bool_is_refused() -> None:
    with pytest.raises(TypeError, match="trace_cli"):
        ClaudeAgentOptions(trace_cli="yes")  # type: ignore[arg-type]
