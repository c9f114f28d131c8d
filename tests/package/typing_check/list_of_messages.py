"""A user's script that keeps a run's messages in a ``List[Message]`` — the common loop —
and names ``StreamItem``; ``mypy --strict`` must pass on it without casts
(``tests/wire/test_signatures.py``). Never run: it is type-checked."""

from __future__ import annotations

from typing import Iterator, List

from claude_sync import (
    ClaudeSDKClient,
    Message,
    OversizedLineSkipped,
    ResultMessage,
    StreamItem,
    SystemMessage,
    query,
    run,
)


def collect(prompt: str) -> List[Message]:
    messages: List[Message] = []
    for message in query(prompt):
        messages.append(message)
    return messages


def collect_at_once(prompt: str) -> List[Message]:
    return list(query(prompt))


def from_a_client(prompt: str) -> List[Message]:
    with ClaudeSDKClient() as client:
        client.query(prompt)
        return [message for message in client.receive_response()]


def from_a_run(prompt: str) -> List[Message]:
    return list(run(prompt).messages)


def items(prompt: str) -> Iterator[StreamItem]:
    yield from query(prompt)


def skipped_lines(messages: List[Message]) -> int:
    """An oversized stdout line is a ``SystemMessage`` like the others."""
    skipped = [m for m in messages if isinstance(m, OversizedLineSkipped)]
    assert all(isinstance(m, SystemMessage) for m in skipped)
    return sum(m.size for m in skipped)


def last_result(messages: List[Message]) -> ResultMessage:
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    return result
