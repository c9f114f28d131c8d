"""``next_merged`` over a held list gives exactly what ``AssistantMessageMerger`` gives
(seeded random streams), and a consumer that stops anywhere and gives its held items back
loses and doubles nothing."""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional

import pytest

from claude_sync._wire.merge import AssistantMessageMerger, extends_head, next_merged
from claude_sync._wire.parse import parse_message

SID = "s"


def _assistant(text: str, msg_id: Optional[str], parent: Optional[str]) -> Dict[str, Any]:
    message: Dict[str, Any] = {"type": "message", "role": "assistant", "model": "m",
                               "content": [{"type": "text", "text": text}], "stop_reason": None, "usage": {}}  # fmt: skip
    if msg_id is not None:
        message["id"] = msg_id
    return {"type": "assistant", "message": message, "parent_tool_use_id": parent, "session_id": SID, "uuid": "u" + text}


def _random_stream(rng: random.Random, length: int) -> List[Any]:
    """Block lines of a few message ids (runs of them), interleaved progress messages,
    ``message_stop`` events (matching the held lines' parent or not), other messages."""
    items: List[Dict[str, Any]] = []
    current = "msg_0"
    for index in range(length):
        roll = rng.random()
        parent = rng.choice([None, None, "toolu_1"])
        if roll < 0.55:
            if rng.random() < 0.25:
                current = f"msg_{index}"
            items.append(_assistant(str(index), None if rng.random() < 0.05 else current, parent))
        elif roll < 0.65:
            event = {"type": rng.choice(["message_stop", "content_block_stop", "message_delta"])}
            items.append({"type": "stream_event", "uuid": f"e{index}", "session_id": SID, "event": event,
                          "parent_tool_use_id": parent})  # fmt: skip
        elif roll < 0.72:
            items.append({"type": "system", "subtype": "thinking_tokens", "estimated_tokens": index, "session_id": SID})
        elif roll < 0.78:
            items.append({"type": "tool_progress", "tool_use_id": "toolu_1", "tool_name": "Bash",
                          "elapsed_time_seconds": index, "session_id": SID})  # fmt: skip
        elif roll < 0.9:
            items.append({"type": "user", "message": {"role": "user", "content": f"u{index}"}, "session_id": SID})
        else:
            items.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
                          "duration_api_ms": 1, "num_turns": 1, "result": str(index), "session_id": SID})  # fmt: skip
    return [parse_message(item) for item in items]


def _with_the_merger(stream: List[Any]) -> List[Any]:
    merger = AssistantMessageMerger()
    out: List[Any] = []
    for item in stream:
        out += merger.feed(item)
    return out + merger.flush()


def _with_held_lists(stream: List[Any], stops: List[int]) -> List[Any]:
    """The client's consumer loop; at each position in ``stops`` it stops (as on Ctrl-C or
    a timeout) and gives its held items back to the front of the queue, then starts over."""
    queue = list(stream)
    out: List[Any] = []
    taken = 0
    while True:
        held: List[Any] = []
        closed = 0
        stopped = False
        while queue:
            held.append(queue.pop(0))
            taken += 1
            if taken in stops:
                stopped = True
                break
            if extends_head(held, closed):
                continue
            ready = next_merged(held, closed=closed)
            while ready is not None:
                closed = ready.closed
                out.append(ready.message)
                del held[ready.start : ready.start + ready.length]
                ready = next_merged(held, closed=closed)
        if stopped:
            queue[:0] = held  # given back, in order
            continue
        ready = next_merged(held, at_end=True, closed=closed)
        while ready is not None:
            closed = ready.closed
            out.append(ready.message)
            del held[ready.start : ready.start + ready.length]
            ready = next_merged(held, at_end=True, closed=closed)
        assert held == []
        return out


@pytest.mark.parametrize("seed", range(200))
def test_the_held_list_merges_exactly_as_the_merger(seed: int) -> None:
    rng = random.Random(seed)
    stream = _random_stream(rng, rng.randint(0, 60))
    assert _with_held_lists(stream, []) == _with_the_merger(stream)


@pytest.mark.parametrize("seed", range(100))
def test_stopping_anywhere_and_giving_back_loses_and_doubles_nothing(seed: int) -> None:
    rng = random.Random(1000 + seed)
    stream = _random_stream(rng, rng.randint(1, 60))
    stops = sorted(rng.sample(range(1, len(stream) + 1), k=min(len(stream), rng.randint(1, 5))))
    delivered = _with_held_lists(stream, stops)
    # Every line is delivered exactly once (merged or not), in stream order per kind.
    def lines(messages: List[Any]) -> List[Any]:
        return [block.text if hasattr(block, "text") else block for m in messages
                for block in (getattr(m, "content", None) if type(m).__name__ == "AssistantMessage" else [m])]  # fmt: skip

    assert sorted(map(repr, lines(delivered))) == sorted(map(repr, lines(stream)))
