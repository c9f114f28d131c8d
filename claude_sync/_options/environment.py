"""The child's environment and the initialize timeout, layered as the official SDK does (pure).

``env_overlay`` is what the options put on top of the inherited environment (worked out once,
in ``command.interpret_options``); ``finish_env`` lays it over the environment actually
inherited at spawn time and adds what depends on that environment (the trace context, the
session-state request). ``build_env`` does both at once.
"""

from __future__ import annotations

import re
from typing import Any, Dict, FrozenSet, Mapping, Optional

from .._version import __version__
from .options import ClaudeAgentOptions

__all__ = [
    "CLIENT_APP_ENV", "DERIVED_CLIENT_APP_ENV", "ENTRYPOINT", "FILE_CHECKPOINTING_ENV", "MAX_RETRIES_ENV",
    "READS_SESSION_STATE_ENV", "SDK_VERSION_ENV", "STREAM_CLOSE_TIMEOUT_ENV", "STRIPPED_ENV",
    "TRACE_CONTEXT_ENV", "VERBATIM_PROMPTS_MIN_VERSION", "build_env", "env_overlay",
    "finish_env", "initialize_timeout", "verbatim_prompts_ignored",
]  # fmt: skip

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
CLIENT_APP_ENV = "CLAUDE_AGENT_SDK_CLIENT_APP"
MAX_RETRIES_ENV = "CLAUDE_CODE_MAX_RETRIES"
"""How often the CLI retries a failed API request (``max_retries``); N retries mean at most
N + 1 requests per turn (checked on 2.1.197 and 2.1.331; neither has a flag for it)."""
DERIVED_CLIENT_APP_ENV = "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"
"""Set by an outer SDK session for its own app; never inherited by ours."""
READS_SESSION_STATE_ENV = "CLAUDE_CODE_SDK_READS_SESSION_STATE"
STREAM_CLOSE_TIMEOUT_ENV = "CLAUDE_CODE_STREAM_CLOSE_TIMEOUT"
"""Milliseconds; the official SDK's initialize-timeout knob (it never shortens the timeout)."""
TRACE_CONTEXT_ENV = ("TRACEPARENT", "TRACESTATE")
CLI_TRACE_ENV = {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
    "CLAUDE_CODE_ENHANCED_TELEMETRY_BETA": "1",
    "OTEL_TRACES_EXPORTER": "otlp",
}
"""What ``trace_cli`` sets: the CLI's telemetry, its span tracing (still a beta switch in
2.1.332: without it the CLI exports no span), and the OTLP span exporter."""
TRACE_ENDPOINT_ENV = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
"""Where the CLI sends its spans; ``trace_cli`` needs one of them."""
STRIPPED_ENV = ("CLAUDECODE",)
"""Inherited variables never passed on: ``CLAUDECODE=1`` (set inside a Claude Code session)
would make the child believe it runs nested in one."""


def build_env(
    options: ClaudeAgentOptions,
    environ: Mapping[str, str],
    cwd: Optional[str] = None,
    trace_carrier: Optional[Mapping[str, str]] = None,
) -> Dict[str, str]:
    """The child's environment, layered as the official SDK layers it.

    ``environ`` minus ``STRIPPED_ENV`` and the derived app label; ``CLAUDE_CODE_ENTRYPOINT``;
    then ``options.env`` and ``max_retries``; then what the caller may not override: ``CLAUDE_AGENT_SDK_VERSION``,
    ``client_app``, file checkpointing and ``PWD``; then the trace context (unless
    ``options.env`` names it) and ``CLAUDE_CODE_SDK_READS_SESSION_STATE=1`` (unless set, in
    any letter case). Raises ``TypeError`` when an ``options.env`` key or value is not a ``str``,
    ``ValueError`` when ``max_retries`` and ``options.env`` set different retry counts.
    """
    explicit = frozenset(options.env)
    return finish_env(env_overlay(options, cwd), environ, explicit, trace_carrier, options.trace_cli)


def env_overlay(options: ClaudeAgentOptions, cwd: Optional[str]) -> Dict[str, str]:
    """What goes on top of the inherited environment, in order (see ``build_env``)."""
    env = {"CLAUDE_CODE_ENTRYPOINT": ENTRYPOINT}
    for key, value in options.env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"options.env must map str to str, got {key!r}: {value!r}")
        env[key] = value
    if options.max_retries is not None:
        given = options.env.get(MAX_RETRIES_ENV)
        if given is not None and given != str(options.max_retries):
            raise ValueError(
                f"max_retries={options.max_retries} and env[{MAX_RETRIES_ENV!r}]={given!r} disagree: set only one"
            )
        env[MAX_RETRIES_ENV] = str(options.max_retries)
    env[SDK_VERSION_ENV] = __version__
    if options.client_app is not None:
        env[CLIENT_APP_ENV] = options.client_app
    if options.enable_file_checkpointing:
        env[FILE_CHECKPOINTING_ENV] = "true"
    if cwd is not None:
        env["PWD"] = cwd
    if options.trace_cli:
        env.update(cli_trace_env(options.env))
    return env


def cli_trace_env(explicit: Mapping[str, str]) -> Dict[str, str]:
    """``CLI_TRACE_ENV``. Raises ``ValueError`` when ``options.env`` (``explicit``) sets one
    of its variables otherwise: ``trace_cli`` would be on and not work."""
    for key, value in CLI_TRACE_ENV.items():
        if key in explicit and explicit[key] != value:
            raise ValueError(f"trace_cli=True sets env[{key!r}]={value!r}, but options.env sets it to {explicit[key]!r}")
    return dict(CLI_TRACE_ENV)


def finish_env(
    overlay: Mapping[str, str],
    environ: Mapping[str, str],
    explicit: FrozenSet[str],
    trace_carrier: Optional[Mapping[str, str]],
    trace_cli: bool = False,
) -> Dict[str, str]:
    """``environ`` (minus ``STRIPPED_ENV`` and the derived app label) + ``overlay``, then the
    trace context and the session-state request (see ``build_env``). Raises ``ValueError``
    when ``trace_cli`` (the overlay turned the CLI's span export on) and no
    ``TRACE_ENDPOINT_ENV`` variable says where to."""
    env = {k: v for k, v in environ.items() if k not in STRIPPED_ENV}
    env.update(overlay)
    if trace_cli and not any(env.get(key) for key in TRACE_ENDPOINT_ENV):
        raise ValueError(
            "trace_cli=True: the CLI needs OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), "
            "in options.env or this process's environment, to send its spans to"
        )
    env.pop(DERIVED_CLIENT_APP_ENV, None)
    _apply_trace_context(env, explicit, trace_carrier)
    if not any(key.upper() == READS_SESSION_STATE_ENV for key in env):
        env[READS_SESSION_STATE_ENV] = "1"
    return env


def _apply_trace_context(
    env: Dict[str, str], explicit: FrozenSet[str], carrier: Optional[Mapping[str, str]]
) -> None:
    """Put the caller's W3C trace context on the child (upper-cased keys), replacing stale
    inherited values; ``options.env`` wins. A carrier without ``traceparent`` changes nothing."""
    if not carrier or "traceparent" not in carrier:
        return
    for key in TRACE_CONTEXT_ENV:
        if key not in explicit:
            env.pop(key, None)
    for key, value in carrier.items():
        if key.upper() not in explicit:
            env[key.upper()] = str(value)


def initialize_timeout(configured: float, environ: Mapping[str, str]) -> float:
    """``configured`` (``options.initialize_timeout``), raised (never lowered) by
    ``CLAUDE_CODE_STREAM_CLOSE_TIMEOUT`` (milliseconds) as the official SDK honours it.
    Raises ``ValueError`` for a value that is not a whole number of milliseconds."""
    raw = environ.get(STREAM_CLOSE_TIMEOUT_ENV)
    if raw is None:
        return configured
    try:
        from_env = int(raw) / 1000.0
    except ValueError:
        raise ValueError(f"{STREAM_CLOSE_TIMEOUT_ENV} must be milliseconds, got {raw!r}") from None
    return max(configured, from_env)


VERBATIM_PROMPTS_MIN_VERSION = (2, 1, 248)
"""The first CLI that honours ``client_composed`` (``verbatim_prompts``)."""


def verbatim_prompts_ignored(version: Any) -> Optional[str]:
    """A warning when a CLI of ``version`` (e.g. ``get_binary_version``'s answer) would ignore
    ``verbatim_prompts`` (older, or no readable version), else None."""
    match = re.match(r"(\d{1,9})\.(\d{1,9})\.(\d{1,9})", str(version))
    if match and tuple(int(part) for part in match.groups()) >= VERBATIM_PROMPTS_MIN_VERSION:
        return None
    minimum = ".".join(map(str, VERBATIM_PROMPTS_MIN_VERSION))
    return (
        f"verbatim_prompts is set, but Claude Code {version or '(unknown version)'} ignores it: "
        f"@path mentions are still expanded and slash commands run (needs {minimum} or later)"
    )
