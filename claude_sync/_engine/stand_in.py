"""Which CLI a run may start while the testing kit's switch is on (pure: process-wide state
and the decision; the kit sets the state, the spawn path asks ``route``).

The switch is on while a *stand-in* is installed (``set_stand_in``: the kit's
``use_scripted_cli`` and its ``claude_cli`` fixture do it) or the environment says
``CLAUDE_SYNC_TESTING=block``. Then a run that was given no ``transport`` may only start

* a CLI the kit installed (``ScriptedCLI.install()``: ``allow_cli``), or
* a CLI that will send its requests to the kit's ``FakeAnthropicAPI`` (its base URL,
  ``allow_base_url``). Judged where the CLI will really send them (``endpoint``): the
  ``ANTHROPIC_BASE_URL`` of the inherited environment, under ``options.env``, under the
  ``env`` block of every settings layer the CLI will load (user / project / local files as
  ``setting_sources`` says, ``options.settings`` as JSON text or a file, managed settings:
  ``_options.cli_settings``). A provider switch (``CLAUDE_CODE_USE_BEDROCK`` …) or a
  settings file that exists but cannot be read or parsed counts as "not the fake";

anything else — ``claude`` on ``PATH``, the CLI bundled with an installed ``claude-agent-sdk``
(found first by discovery), an explicit ``cli_path`` — gets the stand-in's transport (or the
path of a scripted executable) instead, or, with none installed, ``UnscriptedRunError``
before anything starts. Runs given a ``transport`` are never touched.

Threads: ``route`` runs on the connecting thread; the state is swapped whole (one reference
assignment, or a set add/discard), so no lock is needed.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping, Optional, Set, Tuple, Union

from .._options.cli_settings import PROVIDER_SWITCHES, cli_environment, settings_layers
from .._options.options import ClaudeAgentOptions
from .._wire.errors import UnscriptedRunError, UsageError
from .transport import Transport

__all__ = [
    "ENV_VAR",
    "Routed",
    "StandIn",
    "allow_base_url",
    "allow_cli",
    "blocks",
    "disallow_base_url",
    "endpoint",
    "route",
    "set_stand_in",
    "stand_in",
]

ENV_VAR = "CLAUDE_SYNC_TESTING"
"""``block``: the switch is on for the whole process (unset or empty: off)."""

Routed = Union[Transport, str]
"""What a stand-in gives a run: a transport, or the path of a CLI executable to spawn."""

StandIn = Callable[[ClaudeAgentOptions], Routed]
"""Called on the connecting thread for each run that has no transport of its own; raises
``UnscriptedRunError`` when it has nothing for this run."""

_stand_in: Optional[StandIn] = None
_allowed_clis: Set[str] = set()
_allowed_base_urls: Set[str] = set()


def set_stand_in(new: Optional[StandIn]) -> Optional[StandIn]:
    """Install ``new`` (None: none) for every run in the process; returns the previous one
    so a nested user can put it back."""
    global _stand_in
    previous, _stand_in = _stand_in, new
    return previous


def stand_in() -> Optional[StandIn]:
    """The stand-in installed now, if any."""
    return _stand_in


def allow_cli(path: str) -> None:
    """Let runs start the executable at ``path`` while the switch is on (a scripted CLI)."""
    _allowed_clis.add(os.path.realpath(path))


def allow_base_url(url: str) -> None:
    """Let runs start a real CLI whose ``ANTHROPIC_BASE_URL`` is ``url`` (the kit's fake API)."""
    _allowed_base_urls.add(url.rstrip("/"))


def disallow_base_url(url: str) -> None:
    _allowed_base_urls.discard(url.rstrip("/"))


def _switch_on(environ: Mapping[str, str]) -> bool:
    mode = environ.get(ENV_VAR, "").strip()
    if mode not in ("", "block"):
        raise UsageError(f"{ENV_VAR} must be 'block' or unset, not {mode!r}")
    return _stand_in is not None or mode == "block"


def endpoint(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> Tuple[Optional[str], str]:
    """Where a real CLI started with ``options`` in ``environ`` will send its requests:
    ``(base URL, why)`` — the URL is None when it is not one base URL (the default API, a
    cloud provider, a settings file that cannot be read); ``why`` says it in words."""
    env = dict(environ)
    env.update((k, v) for k, v in options.env.items() if isinstance(k, str) and isinstance(v, str))
    for layer in settings_layers(options, env):
        if layer.problem is not None:
            return None, f"the {layer.source} settings {layer.origin} {layer.problem}"
    env = cli_environment(options, environ)
    for name in PROVIDER_SWITCHES:
        if env.get(name, "").strip().lower() not in ("", "0", "false", "no"):
            return None, f"{name}={env[name]} sends its turns to a cloud provider"
    base_url = env.get("ANTHROPIC_BASE_URL", "").strip()
    if not base_url:
        return None, "no ANTHROPIC_BASE_URL: it would call the Anthropic API"
    return base_url.rstrip("/"), f"ANTHROPIC_BASE_URL={base_url}"


def _allowed(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> Tuple[bool, str]:
    if options.cli_path is not None and os.path.realpath(os.fspath(options.cli_path)) in _allowed_clis:
        return True, "a CLI the kit installed"
    base_url, why = endpoint(options, environ)
    if base_url is not None and base_url in _allowed_base_urls:
        return True, why
    return False, why if base_url is None else f"{why} is not a running FakeAnthropicAPI"


def blocks(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> bool:
    """Whether the switch keeps a run with ``options`` from spawning the CLI it names.
    Raises ``UsageError`` for a ``CLAUDE_SYNC_TESTING`` value it does not know."""
    return _switch_on(environ) and not _allowed(options, environ)[0]


def route(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> Optional[Routed]:
    """For a run with no transport of its own: None to spawn as usual, else the stand-in's
    transport or executable path. Raises ``UnscriptedRunError`` when the switch is on and
    nothing stands in, ``UsageError`` for a ``CLAUDE_SYNC_TESTING`` value it does not know."""
    if not _switch_on(environ):
        return None
    allowed, why = _allowed(options, environ)
    if allowed:
        return None
    current = _stand_in
    if current is None:
        raise UnscriptedRunError(
            f"{ENV_VAR}=block: this run has no script, and the real claude CLI is blocked "
            f"(nothing was started; the CLI would call: {why}). Script it — the claude_cli fixture, "
            "claude_sync.testing.use_scripted_cli(…) — or pass transport= to "
            "query()/ClaudeSDKClient()/run() (AgentPool: transport_factory=)."
        )
    return current(options)
