"""A reused CLI's results as a fresh CLI's (pure: stdout chunks in, chunks out).

CLI 2.1.197 keeps ``total_cost_usd`` and ``modelUsage`` as running totals of the process,
across ``/clear`` too (``_agents.reuse``); a CLI leased after the pool's reset would report
the earlier leaseholders' cost as this run's. The lease says what the totals were after the
reset (``Lease.cost_before``, ``usage_before``); ``own_figures`` rewrites each ``result``
line so ``total_cost_usd`` and every model's counters in ``modelUsage`` are this lease's own,
as a fresh CLI would report them — for ``query()``, ``run()``, the client and ``AgentPool``
alike (``RunResult`` then needs no ``cost_before``). 2.1.33x restarts its totals at the reset
(the pool reports 0 and ``{}``): nothing is rewritten, chunks pass through as they are.

Only ``result`` lines are parsed and re-encoded (compact JSON, as the CLI writes it); every
other byte passes unchanged, in the same chunking as far as whole lines allow.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional

__all__ = ["needs_rewrite", "own_figures", "own_result"]

_RESULT = b'"type":"result"'
_FIXED = frozenset({"contextWindow", "maxOutputTokens"})
"""``modelUsage`` fields that are limits, not running totals: kept as they are."""


def needs_rewrite(cost_before: float, usage_before: Optional[Mapping[str, Any]]) -> bool:
    """True when the CLI's totals were not zero after its reset (2.1.197)."""
    return bool(cost_before) or bool(usage_before)


def own_figures(chunks: Iterator[bytes], cost_before: float, usage_before: Optional[Mapping[str, Any]]) -> Iterator[bytes]:
    """``chunks`` with every ``result`` line's totals made this lease's own (see module).
    A line is held back until it is complete; the rest of a chunk passes at once."""
    if not needs_rewrite(cost_before, usage_before):
        yield from chunks
        return
    pending: List[bytes] = []
    for chunk in chunks:
        end = chunk.rfind(b"\n")
        if end < 0:
            pending.append(chunk)
            continue
        head = b"".join(pending) + chunk[: end + 1] if pending else chunk[: end + 1]
        pending = [chunk[end + 1 :]] if end + 1 < len(chunk) else []
        if _RESULT in head:
            head = b"\n".join(_own_line(line, cost_before, usage_before) for line in head.split(b"\n"))
        yield head
    if pending:
        yield b"".join(pending)


def _own_line(line: bytes, cost_before: float, usage_before: Optional[Mapping[str, Any]]) -> bytes:
    if _RESULT not in line:
        return line
    try:
        frame = json.loads(line)
    except ValueError:
        return line
    if not isinstance(frame, dict) or frame.get("type") != "result":
        return line
    own_result(frame, cost_before, usage_before)
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def own_result(frame: Dict[str, Any], cost_before: float, usage_before: Optional[Mapping[str, Any]]) -> None:
    """Rewrite one decoded ``result`` frame in place: ``total_cost_usd`` minus
    ``cost_before`` (never below 0), each model's counters in ``modelUsage`` minus those
    before (a model whose counters all come to 0 is dropped, as a fresh CLI never lists a
    model it did not use)."""
    cost = frame.get("total_cost_usd")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        frame["total_cost_usd"] = max(0.0, cost - cost_before)
    usage = frame.get("modelUsage")
    if isinstance(usage, dict) and isinstance(usage_before, Mapping) and usage_before:
        own: Dict[str, Any] = {}
        for model, entry in usage.items():
            before = usage_before.get(model)
            if not isinstance(entry, dict) or not isinstance(before, Mapping):
                own[model] = entry
                continue
            fresh = {}
            for key, value in entry.items():
                earlier = before.get(key)
                if key not in _FIXED and _number(value) and _number(earlier):
                    fresh[key] = max(0, value - earlier)
                else:
                    fresh[key] = value
            if any(fresh.get(key) for key in fresh if key not in _FIXED and _number(fresh.get(key))):
                own[model] = fresh
        frame["modelUsage"] = own


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
