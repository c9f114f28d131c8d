"""The one check of a timeout a caller gives the library (pure): a number of seconds that this
platform's waits can take.

Every public timeout goes through ``checked_seconds`` before anything is sent or started: the
options' ``close_timeout``/``control_timeout``/``initialize_timeout``, ``query()``'s and
``run()``'s ``timeout``/``idle_timeout``, the client's receive, write and control-method
timeouts, ``resolve_settings``, ``AgentPool.submit``/``map``. A value above
``threading.TIMEOUT_MAX`` would otherwise pass, then raise ``OverflowError`` inside a wait —
on the reader thread, after a request went out. ``longest_wait`` caps a wait the library
derives from one (``5 * close_timeout``).
"""

from __future__ import annotations

import threading
from typing import Any, Optional

__all__ = ["CLI_MAX_WAIT", "MAX_WAIT", "checked_seconds", "longest_wait", "optional_seconds"]

MAX_WAIT: float = threading.TIMEOUT_MAX
"""The longest wait this platform's locks, events and joins take (about 292 years on 64-bit
Linux; less elsewhere)."""


CLI_MAX_WAIT = 2_147_483.647
"""The longest hook timeout the CLI keeps, in seconds: its timer is Node's ``setTimeout``
(2**31 - 1 ms). Measured: CLI 2.1.197 ends a PreToolUse hook with ``timeout=3_000_000`` at once
(the call refused with "The user doesn't want to take this action right now", the hook's own
answer lost); 2.1.333 waits for it."""


def checked_seconds(what: str, value: Any, *, optional: bool = False) -> float:
    """``value`` as a float: a number of seconds (an int or a float, not a bool) > 0 and at
    most ``MAX_WAIT``. ``what`` names it in the error (``"ClaudeAgentOptions.close_timeout"``);
    ``optional``: the message says None is allowed too (the caller handles None). Raises
    ``TypeError`` for a value that is not a number, ``ValueError`` for NaN, infinities, zero,
    negatives and values above ``MAX_WAIT``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        got = repr(value) if isinstance(value, bool) or value is None else type(value).__name__
        raise TypeError(f"{what} must be a number of seconds{' or None' if optional else ''}, got {got}")
    if not 0 < value < float("inf"):  # NaN compares false: refused too
        raise ValueError(f"{what} must be a finite number of seconds > 0, got {value!r}")
    if value > MAX_WAIT:
        raise ValueError(
            f"{what} must be at most {MAX_WAIT:.0f} seconds (threading.TIMEOUT_MAX: the longest wait of this platform), got {value!r}"
        )
    return float(value)


def optional_seconds(what: str, value: Any) -> Optional[float]:
    """None for None (no bound), else ``checked_seconds(what, value, optional=True)``."""
    return None if value is None else checked_seconds(what, value, optional=True)


def longest_wait(seconds: float) -> float:
    """``seconds``, or ``MAX_WAIT`` when it is longer (a wait derived from a checked timeout)."""
    return seconds if seconds <= MAX_WAIT else MAX_WAIT
