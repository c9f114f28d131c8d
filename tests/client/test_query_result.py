"""``QueryStream.result()`` (issue 19): the ``RunResult`` of a ``query()`` stream — after
iterating it, part way, or without iterating at all — and what it raises."""

from __future__ import annotations

import pytest
from helpers import texts

from claude_sync import (
    ClaudeAgentOptions,
    ResultError,
    RunResult,
    UsageError,
    query,
)
from claude_sync.testing import ScriptedCLI


def test_after_iterating_the_result_holds_every_message_yielded() -> None:
    cli = ScriptedCLI().expect_user().text("thinking it over").text("four").result("four", total_cost_usd=0.5)
    stream = query("2 + 2?", transport=cli.transport(), keep_messages=True)
    seen = list(stream)
    result = stream.result()
    assert isinstance(result, RunResult) and result.text == "four" and result.total_cost_usd == 0.5
    assert list(result.messages) == seen and texts(seen) == ["thinking it over", "four"]
    assert stream.result() is result  # built once


def test_without_iterating_result_runs_the_whole_run() -> None:
    cli = ScriptedCLI().expect_user().text("hi").result("hi")
    result = query("hello", transport=cli.transport()).result()
    assert result.text == "hi" and texts(list(result.messages)) == ["hi"]
    cli.verify()


def test_part_way_result_iterates_the_rest_and_keeps_what_was_taken() -> None:
    cli = ScriptedCLI().expect_user().text("one").text("two").result("two")
    stream = query("count", transport=cli.transport(), keep_messages=True)
    first = next(iter(stream))
    result = stream.result()
    assert result.messages[0] is first and texts(list(result.messages)) == ["one", "two"]


def test_an_error_run_raises_its_result_error_on_every_call_unless_asked_for_data() -> None:
    def failing() -> ScriptedCLI:
        return ScriptedCLI().expect_user().result(None, is_error=True, subtype="error_max_turns", errors=["Reached maximum number of turns (1)"]).crash(1)

    stream = query("go", transport=failing().transport())
    with pytest.raises(ResultError) as first:
        stream.result()
    with pytest.raises(ResultError) as again:
        stream.result()
    assert first.value is again.value and first.value.subtype == "error_max_turns"
    data_only = query("go", options=ClaudeAgentOptions(raise_on_error_result=False), transport=failing().transport())
    result = data_only.result()
    assert result.is_error and result.result.subtype == "error_max_turns"


def test_a_stream_closed_before_its_result_has_no_run_result() -> None:
    cli = ScriptedCLI().expect_user().text("one").stall(30)
    with query("go", options=ClaudeAgentOptions(close_timeout=0.5), transport=cli.transport(), keep_messages=True) as stream:
        next(iter(stream))
    with pytest.raises(UsageError, match="closed before its run ended"):
        stream.result()


def test_by_default_a_stream_keeps_nothing_so_result_after_iterating_is_refused() -> None:
    """A long run's messages are freed as they are taken (a 100k-message flood kept them all:
    388 MiB); ``result()`` then names the flag."""
    cli = ScriptedCLI().expect_user().text("one").result("one")
    stream = query("go", transport=cli.transport())
    assert texts(list(stream)) == ["one"]
    with pytest.raises(UsageError, match="keep_messages=True"):
        stream.result()
