"""Small helpers shared by the shell tests."""

from __future__ import annotations

import time
from typing import Any, Callable, List

from claude_sync import AssistantMessage, ResultMessage, TextBlock


def texts(messages: List[Any]) -> List[str]:
    """The text of every TextBlock of every AssistantMessage, in order."""
    return [b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]


def results(messages: List[Any]) -> List[ResultMessage]:
    """Every ResultMessage, in order."""
    return [m for m in messages if isinstance(m, ResultMessage)]


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> None:
    """Poll a condition (5 ms steps); AssertionError if it is not reached in time."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)
