"""What ``claude-sync`` prints for the messages of a run (pure: text in, text out).

``--json`` prints ``json_line(message)`` for each message: the dict the CLI sent (``raw``),
so the lines read like ``claude -p --output-format stream-json``; a skipped oversized line
prints as ``{"type": "system", "subtype": "oversized_line_skipped", …}``. ``--output-format`` prints
``structured_line(result)``; ``--verbose`` adds ``summary_line(result)`` on stderr.
"""

from __future__ import annotations

import json

from .._wire.messages import ResultMessage
from .._wire.protocol import StreamItem

__all__ = ["json_line", "structured_line", "summary_line"]


def json_line(item: StreamItem) -> str:
    """One JSON line (no newline) for a message of the stream."""
    return json.dumps(item.raw, ensure_ascii=False, default=repr)


def structured_line(result: ResultMessage) -> str:
    """The run's structured output as one JSON line (no newline)."""
    return json.dumps(result.structured_output, ensure_ascii=False)


def summary_line(result: ResultMessage) -> str:
    """``session <id> · <n> turns · $<cost> · <seconds> s`` for stderr (``--verbose``)."""
    turns = f"{result.num_turns} turn" + ("" if result.num_turns == 1 else "s")
    cost = "" if result.total_cost_usd is None else f" · ${result.total_cost_usd:.4f}"
    return f"session {result.session_id} · {turns}{cost} · {result.duration_ms / 1000:.1f} s"
