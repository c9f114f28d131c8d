"""Behaviours the ported official e2e tests exercised that our own tests did not (our tests,
written from the behaviour; the official code is not copied)."""

from __future__ import annotations

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ResultError, query
from claude_sync.testing import ScriptedCLI

REFUSAL = "Resume rejected by --resume-drops-turn: the next prompt is not the given one"


def refused_at_startup() -> ScriptedCLI:
    """The CLI reports an error result before answering our ``initialize``, then exits 1 (what
    CLI 2.1.330 does for a refused resume)."""
    return (
        ScriptedCLI(auto_initialize=False)
        .expect_control("initialize", hold=True)
        .result(REFUSAL, is_error=True, subtype="error_during_execution")
        .crash(1)
    )


def test_query_raises_the_result_error_the_cli_reported_before_initialize_was_answered() -> None:
    options = ClaudeAgentOptions(close_timeout=2.0)
    with pytest.raises(ResultError) as caught:
        for _ in query(prompt="hi", options=options, transport=refused_at_startup().transport()):
            pass
    assert caught.value.subtype == "error_during_execution" and caught.value.exit_code == 1


def test_connect_raises_it_too() -> None:
    client = ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=refused_at_startup().transport())
    with pytest.raises(ResultError) as caught:
        client.connect()
    client.close()
    assert caught.value.subtype == "error_during_execution"
