"""The states of one live CLI connection and what each call may do in each (pure).

States. One explicit state per session; what each call does in each state (h11-style: the
table below is ``MOVES`` and ``REFUSED``; "UsageError (x)" raises with text x):

================  ==================  ===================  ===========================
state             ``connect``         ``send``/``request``  ``close``
================  ==================  ===================  ===========================
NEW               → CONNECTING        UsageError (a)        → CLOSING → CLOSED
CONNECTING        UsageError (b)      allowed               → CLOSING → CLOSED
OPEN              UsageError (b)      allowed               → CLOSING → CLOSED
CLOSING           UsageError (b)      UsageError (c)        waits for the closing thread,
                                                            or resumes a cut-short close
CLOSED            UsageError (b)      UsageError (c)        nothing to do
================  ==================  ===================  ===========================

(a) "the session is not connected"; (b) "this session was already connected; create a new
one"; (c) "the session is closed". A successful ``initialize`` moves CONNECTING → OPEN.
The reader ending (EOF, crash) changes no state: it records a sticky terminal error (None
for a clean end), fails every pending future and queues the end-of-stream sentinel once.
"""

from __future__ import annotations

import enum
from typing import Dict, Tuple

from .._wire.errors import UsageError

__all__ = ["MOVES", "REFUSED", "SessionState", "SessionStateMachine"]


class SessionState(enum.Enum):
    """Where one connection is in its life (see the module table)."""

    NEW = "new"
    CONNECTING = "connecting"
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


_S = SessionState
MOVES: Dict[Tuple[SessionState, str], SessionState] = {
    (_S.NEW, "connect"): _S.CONNECTING,
    (_S.CONNECTING, "connected"): _S.OPEN,
    (_S.NEW, "close"): _S.CLOSING,
    (_S.CONNECTING, "close"): _S.CLOSING,
    (_S.OPEN, "close"): _S.CLOSING,
    (_S.CLOSING, "closed"): _S.CLOSED,
}
"""``(state, call) -> next state`` for the calls that move it."""

_ALREADY = "this session was already connected; create a new one"
REFUSED: Dict[Tuple[SessionState, str], str] = {
    (_S.NEW, "send"): "the session is not connected",
    (_S.CLOSING, "send"): "the session is closed",
    (_S.CLOSED, "send"): "the session is closed",
    **{(state, "connect"): _ALREADY for state in (_S.CONNECTING, _S.OPEN, _S.CLOSING, _S.CLOSED)},
}
"""``(state, call) -> the UsageError's text`` for the calls refused there."""


class SessionStateMachine:
    """One connection's state. Not thread-safe: the connection moves it under its lock."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = SessionState.NEW

    def check(self, call: str) -> None:
        """Raises ``UsageError`` (with the table's text) if ``call`` is refused now."""
        refused = REFUSED.get((self.state, call))
        if refused is not None:
            raise UsageError(refused)

    def move(self, call: str) -> None:
        """Apply ``call``: check it, then take the table's next state. Raises ``UsageError``."""
        self.check(call)
        self.state = MOVES[(self.state, call)]

    @property
    def closed(self) -> bool:
        """True from the moment ``close`` started."""
        return self.state is SessionState.CLOSING or self.state is SessionState.CLOSED
