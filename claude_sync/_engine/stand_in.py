"""Which CLI a run may start while the testing kit's switch is on (pure: process-wide state
and the decision; the kit sets the state, the spawn path asks ``route``).

The switch is on while a *stand-in* is installed (``set_stand_in``: the kit's
``use_scripted_cli`` and its ``claude_cli`` fixture do it) or the environment says
``CLAUDE_SYNC_TESTING=block``. Then a run that was given no ``transport`` may only start

* a CLI the kit installed (``ScriptedCLI.install()``: ``allow_cli``), or
* a CLI pointed at the kit's ``FakeAnthropicAPI`` (its base URL, ``allow_base_url``);

anything else — ``claude`` on ``PATH``, the CLI bundled with an installed ``claude-agent-sdk``
(found first by discovery), an explicit ``cli_path`` — gets the stand-in's transport (or the
path of a scripted executable) instead, or, with none installed, ``UnscriptedRunError``
before anything starts. Runs given a ``transport`` are never touched.

Threads: ``route`` runs on the connecting thread; the state is swapped whole (one reference
assignment, or a set add/discard), so no lock is needed.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping, Optional, Set, Union

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


def _allowed(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> bool:
    if options.cli_path is not None and os.path.realpath(os.fspath(options.cli_path)) in _allowed_clis:
        return True
    base_url = options.env.get("ANTHROPIC_BASE_URL", environ.get("ANTHROPIC_BASE_URL"))
    return isinstance(base_url, str) and base_url.rstrip("/") in _allowed_base_urls


def blocks(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> bool:
    """Whether the switch keeps a run with ``options`` from spawning the CLI it names.
    Raises ``UsageError`` for a ``CLAUDE_SYNC_TESTING`` value it does not know."""
    return _switch_on(environ) and not _allowed(options, environ)


def route(options: ClaudeAgentOptions, environ: Mapping[str, str]) -> Optional[Routed]:
    """For a run with no transport of its own: None to spawn as usual, else the stand-in's
    transport or executable path. Raises ``UnscriptedRunError`` when the switch is on and
    nothing stands in, ``UsageError`` for a ``CLAUDE_SYNC_TESTING`` value it does not know."""
    if not blocks(options, environ):
        return None
    current = _stand_in
    if current is None:
        raise UnscriptedRunError(
            f"{ENV_VAR}=block: this run has no script, and the real claude CLI is blocked "
            "(nothing was started). Script it — the claude_cli fixture, "
            "claude_sync.testing.use_scripted_cli(…) — or pass transport= to "
            "query()/ClaudeSDKClient()/run() (AgentPool: transport_factory=)."
        )
    return current(options)
