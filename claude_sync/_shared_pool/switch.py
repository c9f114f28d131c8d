"""Whether runs lease their CLI from the shared pool: ``options.shared_pool``, else the
environment's ``CLAUDE_SYNC_SHARED_POOL`` (``lease_client.socket_path`` reads both).

Asked by the wiring for every connection and by ``AgentPool`` for every run, so it answers
"off" without loading the lease client when neither says anything (the common case).
"""

from __future__ import annotations

import os
from typing import Mapping, Optional

from .._options.options import ClaudeAgentOptions

__all__ = ["ENV_VAR", "leasing_path"]

ENV_VAR = "CLAUDE_SYNC_SHARED_POOL"


def leasing_path(options: ClaudeAgentOptions, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The pool's socket path when runs with ``options`` lease their CLI, else None (any
    thread; ``environ`` defaults to ``os.environ``). Raises ``ValueError`` for a
    ``CLAUDE_SYNC_SHARED_POOL`` value that means nothing (``socket_path``); a refused
    directory is found when leasing (``PoolUnavailable``)."""
    environ = os.environ if environ is None else environ
    option = options.shared_pool
    if option is False or (option is None and environ.get(ENV_VAR, "") in ("", "0")):
        return None  # off: the lease client is not even loaded
    from .lease_client import socket_path

    return socket_path(environ, option)
