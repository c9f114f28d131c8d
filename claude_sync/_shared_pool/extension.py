"""The leaseholder's switch: a connection extension that carries a session over a CLI leased
from the shared pool instead of spawning one.

``switch.leasing_path(options)`` says whether leasing is on. The wiring (``_wiring.py``) adds a
``SharedPoolLease`` to a connection when it is; ``AgentPool`` asks it too (each of its runs
then leases a CLI, see ``_agents.pool``).

``SharedPoolLease.transport`` (the connecting thread, once the spawn plan is made) takes a
lease for the plan and returns a ``LeasedTransport``, or None to spawn as usual:

- **not leasable** (the plan must be spawned here): ``lease_refusal`` (``verdict.py``) names
  why — ``spawn_command``, ``user``, a ``SESSION_BOUND_OPTIONS`` option, a resume through
  ``extra_args``, a system without Unix sockets; a custom transport or the testing kit's
  stand-in never get here (the engine asks only when it would spawn the CLI it found);
- **no pool** (``PoolUnavailable``: no socket, a stale one, a refused directory …);

each logged at INFO **once per process** per reason (``claude_sync.shared_pool``). A pool
that is there but does not lease (busy past ``initialize_timeout``, refused the plan, died
in the handshake) raises ``SharedPoolError``: the pool's caps are the memory budget, so there
is no silent local spawn.

The plan leased is the spawn plan's argv, cwd and environment plus a digest of its
``initialize`` fields (``lease_env``): a CLI keeps its first ``initialize``'s system prompt
and agents, so it may only serve leaseholders that would send the same one.

``handshake_answer`` hands the session the ``initialize`` answer the pool kept with a reset
CLI (the session then writes no second ``initialize``: same digest, same fields), and
``handshaken`` keeps the answer used, given back with a reusable CLI.

``tap`` makes a reused 2.1.197 CLI's results this lease's own (``figures.own_figures``);
``close`` gives back a lease whose transport the session never took (a failed connect).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Set

from .._engine.extensions import ConnectionExtension
from .._engine.process import stderr_sink
from .._options.options import ClaudeAgentOptions
from .._redaction.redactor import redacted_logger
from .figures import own_figures
from .lease_client import LeasePlan, PoolUnavailable, lease
from .protocol import sha256_hex
from .leased_transport import LeasedTransport
from .verdict import lease_refusal

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import SpawnPlan
    from .._engine.transport import Transport

__all__ = ["INITIALIZE_DIGEST", "SharedPoolLease", "lease_env", "log_once"]

logger = redacted_logger("claude_sync.shared_pool")

_logged: Set[str] = set()
_logged_lock = threading.Lock()
_LOGGED_MAX = 64


INITIALIZE_DIGEST = "CLAUDE_SYNC_LEASE_INITIALIZE"
"""The environment variable a leased CLI's plan carries: a digest of its first ``initialize``."""


def lease_env(plan: SpawnPlan) -> Dict[str, str]:
    """The plan's environment plus ``INITIALIZE_DIGEST``: the sha256 of its ``initialize``
    fields (canonical JSON). Measured on 2.1.197 and 2.1.333: a CLI answers a second
    ``initialize`` but keeps the first one's system prompt and agents, so a CLI may only serve
    leaseholders whose ``initialize`` is the one it was first given — the pool compares plans
    by their whole environment, so this makes it compare those fields too. A field that is not
    JSON (a bug) goes in by ``repr``: such plans then never match, and never share a CLI."""
    fields = json.dumps(plan.initialize_fields, sort_keys=True, separators=(",", ":"), default=repr)
    return {**plan.env, INITIALIZE_DIGEST: sha256_hex(fields.encode("utf-8"))}


def log_once(message: str, level: int = logging.INFO) -> None:
    """Log ``message`` at ``level`` the first time this process sees it (at most
    ``_LOGGED_MAX`` different ones)."""
    with _logged_lock:
        if message in _logged or len(_logged) >= _LOGGED_MAX:
            return
        _logged.add(message)
    logger.log(level, "%s", message)


class SharedPoolLease(ConnectionExtension):
    """One connection's lease (see the module docstring). ``path``: the pool's socket."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.leased: Optional[LeasedTransport] = None

    def transport(self, options: ClaudeAgentOptions, plan: SpawnPlan) -> Optional[Transport]:
        """Lease a CLI for ``plan`` (connecting thread): a ``LeasedTransport``, or None to
        spawn here (logged once). Raises ``SharedPoolError``."""
        refusal = lease_refusal(options, plan, posix=os.name == "posix")
        if refusal is not None:
            log_once(f"Shared pool: this CLI is spawned here, not leased: {refusal}")
            return None
        try:
            held = lease(
                LeasePlan(argv=tuple(plan.argv), env=lease_env(plan), cwd=plan.cwd),
                path=self.path,
                timeout=options.initialize_timeout,
            )
        except PoolUnavailable as exc:
            # leasing was asked for and is not served: a WARNING (Python shows it with no logging set up)
            log_once(f"Shared pool at {self.path} not used ({exc.reason}): this process spawns its CLIs", logging.WARNING)
            return None
        self.leased = LeasedTransport(
            held, options=options, stderr_callback=stderr_sink(options), close_timeout=options.close_timeout
        )
        logger.debug("Leased CLI pid %s (%s, %s runs before)", held.pid, held.state, held.runs)
        return self.leased

    def handshake_answer(self) -> Optional[Dict[str, Any]]:
        """The leased CLI's ``initialize`` answer, when the pool kept one (a reset CLI: its
        plan's ``INITIALIZE_DIGEST`` says it had these very fields): the session then writes
        no second ``initialize``. None: send it (a fresh or cold CLI, no lease)."""
        leased = self.leased
        answer = getattr(leased.lease, "initialize_answer", None) if leased is not None else None
        return answer if isinstance(answer, dict) else None

    def handshaken(self, answer: Dict[str, Any], reused: bool) -> None:
        """Keep a copy of the answer the session used (the caller may change its
        ``server_info``): a reusable give-back hands it to the next leaseholder. An answer JSON
        cannot carry is not kept (the next leaseholder then sends ``initialize``)."""
        if self.leased is not None:
            try:
                self.leased.initialize_answer = json.loads(json.dumps(answer))
            except (TypeError, ValueError):
                self.leased.initialize_answer = None

    def tap(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        leased = self.leased
        if leased is None:
            return chunks
        return own_figures(chunks, leased.lease.cost_before or 0.0, leased.lease.usage_before)

    def close(self, timeout: float) -> None:
        """Give the lease back if the session never stopped its transport (idempotent)."""
        leased = self.leased
        if leased is not None and leased.last_rung is None:
            leased.close()
