"""Issue 10 item 9: ``api_retry`` notices are logged at WARNING, and ``query()`` takes the
``timeout=``/``idle_timeout=`` of ``receive_response()`` (ReceiveTimeoutError, CLI reaped)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, List

import pytest
from helpers import texts

from claude_sync import ClaudeAgentOptions, ReceiveTimeoutError, query
from claude_sync.testing import ScriptedCLI

RETRY = {
    "type": "system",
    "subtype": "api_retry",
    "attempt": 1,
    "max_retries": 2,
    "retry_delay_ms": 623.7,
    "error_status": 529,
    "error": "server_error",
    "session_id": "fake-session",
    "uuid": "u-1",
}


QUICK_CLOSE = ClaudeAgentOptions(close_timeout=0.5)
"""The scripted CLI stalls past EOF (as the real one mid-turn): close ends it on the second rung."""


def test_each_api_retry_is_logged_at_warning(caplog: pytest.LogCaptureFixture) -> None:
    second = dict(RETRY, attempt=2, retry_delay_ms=1100.0, uuid="u-2")
    cli = ScriptedCLI().expect_user().emit(RETRY).emit(second).text("done").result()
    with caplog.at_level(logging.WARNING, logger="claude_sync.api"):
        messages = list(query("hi", transport=cli.transport()))
    assert texts(messages) == ["done"]
    lines = [r.getMessage() for r in caplog.records if r.name == "claude_sync.api" and r.levelno == logging.WARNING]
    assert lines == [
        "Claude API call failed (HTTP 529, error server_error); the CLI retries in 0.6s (attempt 1 of 2)",
        "Claude API call failed (HTTP 529, error server_error); the CLI retries in 1.1s (attempt 2 of 2)",
    ]


def test_query_idle_timeout_raises_and_reaps_the_cli() -> None:
    cli = ScriptedCLI().expect_user().text("thinking").stall(60)
    seen: List[Any] = []
    stream = query("hi", options=QUICK_CLOSE, transport=cli.transport(), idle_timeout=2.0)
    with pytest.raises(ReceiveTimeoutError) as info:
        for message in stream:
            seen.append(message)
    assert info.value.kind == "idle"
    assert texts(seen) == ["thinking"]
    session = stream.session
    assert session is not None and session.closed
    assert session.transport is not None and session.transport.exit_code() is not None


@pytest.mark.parametrize("kind, limit", [("idle", 0.5), ("total", 1.5)])
def test_a_timed_out_query_raises_within_half_a_second_of_its_limit_and_reaps_the_cli(
    kind: str, limit: float, tmp_path: Path
) -> None:
    """Issue 19: the run is abandoned, so there is no graceful close ladder (a CLI stalled
    mid-turn would sit out every ``close_timeout`` rung, 5 s each by default): the
    ``ReceiveTimeoutError`` comes within ~0.5 s of the limit, the CLI is already reaped."""
    cli = ScriptedCLI(directory=tmp_path).expect_user().text("thinking").stall(60)
    stream = query("hi", options=cli.options(), **{f"{'idle_' if kind == 'idle' else ''}timeout": limit})
    started = last_frame = time.monotonic()
    with pytest.raises(ReceiveTimeoutError) as info:
        for _ in stream:
            last_frame = time.monotonic()
    raised = time.monotonic()
    assert info.value.kind == kind
    late = raised - (last_frame if kind == "idle" else started) - limit
    assert late < 0.5, f"raised {late:.2f}s after the limit"
    session = stream.session
    assert session is not None and session.closed
    assert session.transport is not None and session.transport.exit_code() is not None


def test_query_total_timeout_bounds_a_chatty_run() -> None:
    cli = ScriptedCLI().expect_user()
    for i in range(200):
        cli.text(f"t{i}").stall(0.1)
    stream = query("hi", options=QUICK_CLOSE, transport=cli.transport(), timeout=1.0, idle_timeout=5.0)
    with pytest.raises(ReceiveTimeoutError) as info:
        for _ in stream:
            pass
    assert info.value.kind == "total"
    session = stream.session
    assert session is not None and session.transport is not None and session.transport.exit_code() is not None


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        ({"timeout": 0}, ValueError, "query\\(\\) timeout must be a finite number of seconds > 0, got 0"),
        ({"idle_timeout": "5"}, TypeError, "query\\(\\) idle_timeout must be a number of seconds, got str"),
    ],
)
def test_query_timeouts_are_checked_at_once(kwargs: Any, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        query("hi", **kwargs)
