"""The shared pool's two errors (pure): the pool is not there, or it is there and did not lease."""

from __future__ import annotations

from typing import Any, Dict

from .._wire.errors import CLIConnectionError

__all__ = ["PoolUnavailable", "SharedPoolError"]


class PoolUnavailable(Exception):
    """No usable pool at the socket's path: no socket, a stale socket (nobody listens), a
    refused directory (a symlink, group/other bits, another owner), a pool of another uid, a
    protocol version mismatch. The caller spawns its CLI as usual and logs ``reason`` once.

    Attributes:
        reason: What was wrong, in words (no secrets).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SharedPoolError(CLIConnectionError):
    """The pool is there but did not lease a CLI: busy past the timeout (its caps are the
    memory budget; no silent local spawn), the plan refused, the pool died mid-handshake.

    Attributes:
        kind: The pool's error word (``"busy"``, ``"refused"``, ``"bad_request"``,
            ``"stopping"``) or ``"broken"`` (the connection ended or went wrong).
    """

    def __init__(self, message: str = "", kind: str = "broken") -> None:
        super().__init__(message)
        self.kind = kind

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "kind": self.kind}
