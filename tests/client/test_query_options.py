"""``QueryStream.replace_options``: the public hook layers like ``show()`` use to change a
stream's options before it starts (never the caller's object, never after it started)."""

from __future__ import annotations

import pytest

from claude_sync import ClaudeAgentOptions, UsageError, query
from claude_sync.testing import ScriptedCLI


def test_changes_apply_to_the_run_and_leave_the_callers_options_alone() -> None:
    mine = ClaudeAgentOptions(max_turns=3)
    cli = ScriptedCLI().expect_user().text("ok").result()
    stream = query("hi", options=mine, transport=cli.transport())
    stream.replace_options(include_partial_messages=True)
    assert stream.options.include_partial_messages and stream.options.max_turns == 3
    assert not mine.include_partial_messages
    assert not stream.started
    with stream:
        list(stream)
    assert stream.started


def test_no_changes_once_iterated_and_unknown_fields_are_refused() -> None:
    cli = ScriptedCLI().expect_user().text("ok").result()
    stream = query("hi", transport=cli.transport())
    with pytest.raises(TypeError):
        stream.replace_options(no_such_field=1)
    with stream:
        next(iter(stream))
        with pytest.raises(UsageError, match="only before it is iterated"):
            stream.replace_options(max_turns=1)
