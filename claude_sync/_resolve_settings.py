"""``resolve_settings()``: the settings a run with these options would see, as the CLI merges
them, before any prompt (the caller's thread; starts and closes one CLI).

The TS SDK's ``resolveSettings`` runs a copy of the CLI's settings-merge engine inside the
SDK; Python has no such copy, and the CLI offers its merge only to a running session (the
``get_settings`` control request, CLI 2.1.197 and 2.1.332). So this starts the CLI with the
options (``cwd``, ``setting_sources``, ``settings``, ``managed_settings``, ``env``,
``cli_path`` … exactly as a run would), answers ``initialize``, asks ``get_settings`` and
closes it: no prompt is sent and the model is never called. It never resumes a session: the
options' ``resume``, ``continue_conversation``, ``fork_session``, ``resume_session_at`` and
``session_store`` are left out of the CLI it starts (a resumed session may call the model and
run tools on its own — a session stopped at a deferred call runs that call again). The answer is the CLI's own
merge, not a re-implementation of it.

What the CLI's answer does not carry, so neither does this: the TS result's
``machinePolicy`` (``didNotLoad``, the ``registryPolicyDifferedFromFingerprint`` policy-drift
flag; the TS SDK computes them in its own process from macOS profiles, the Windows registry
through ``reg.exe`` and the managed-settings files, with a host's ``registryPolicyFingerprint``
function), the per-key ``path`` and ``policyOrigin`` of its provenance, and the
``serverManagedSettings`` input (no CLI flag takes a server-managed payload). What it does
carry that TS lacks: ``applied`` (the model and effort in force) and, on 2.1.332, the
settings files skipped as invalid (``errors``) and ``served_settings_state``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .client import ClaudeSDKClient
from ._options.options import ClaudeAgentOptions
from ._options.timeouts import optional_seconds
from ._wire.settings_result import ResolvedSettings

__all__ = ["resolve_settings"]


def resolve_settings(options: Optional[ClaudeAgentOptions] = None, *, timeout: Optional[float] = None) -> ResolvedSettings:
    """Start the CLI with ``options`` (no prompt), ask it for the settings it merged, close it.

    ``timeout`` bounds the ``get_settings`` request (default: ``options.control_timeout``);
    starting and closing are bounded by ``initialize_timeout`` and ``close_timeout``. Runs on
    the caller's thread. Raises ``TypeError`` for options that are not
    ``ClaudeAgentOptions`` or a timeout that is not a number, ``ValueError`` for one that is
    not > 0 (both before any CLI starts), and what ``ClaudeSDKClient.connect`` and ``get_settings`` raise
    (``CLINotFoundError``, ``CLIConnectionError``, ``ControlTimeoutError``,
    ``ControlRequestError`` naming a CLI too old to answer)."""
    if options is not None and not isinstance(options, ClaudeAgentOptions):
        raise TypeError(f"options must be ClaudeAgentOptions or None, not {type(options).__name__}")
    timeout = optional_seconds("resolve_settings() timeout", timeout)
    with ClaudeSDKClient(_without_session(options if options is not None else ClaudeAgentOptions())) as client:
        return client.get_settings(timeout=timeout)


def _without_session(options: ClaudeAgentOptions) -> ClaudeAgentOptions:
    """``options`` that start a fresh session: no ``resume`` / ``continue_conversation`` /
    ``fork_session`` / ``resume_session_at`` / ``resume_drops_turn`` and no session store (which would resume from the
    store and mirror into it). A resumed CLI may call the model and run tools before it answers
    anything (a session stopped at a deferred call runs that call again), and the settings do
    not depend on the session."""
    return replace(
        options, resume=None, continue_conversation=False, fork_session=False, resume_session_at=None,
        resume_drops_turn=None, session_store=None,
    )
