"""Issue 19: ``ClaudeCodeOptions`` (code written for ``claude_code_sdk``) keeps that SDK's
defaults — Claude Code's own system prompt — and says what to write instead."""

from __future__ import annotations

import dataclasses

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeCodeOptions
from claude_sync._options.argv import system_prompt_args

PRESET = {"type": "preset", "preset": "claude_code"}


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({}, PRESET),
        ({"append_system_prompt": "Be brief."}, {**PRESET, "append": "Be brief."}),
        ({"system_prompt": "You are a pirate."}, "You are a pirate."),
        ({"system_prompt": "You are a pirate.", "append_system_prompt": "Be brief."}, "You are a pirate.\n\nBe brief."),
        ({"system_prompt": {"type": "preset", "preset": "claude_code", "append": "x"}}, {**PRESET, "append": "x"}),
    ],
    ids=["default", "append", "own", "own_and_append", "new_style"],
)
def test_the_old_defaults_and_what_to_write_instead(fields: dict, expected: object) -> None:
    with pytest.warns(DeprecationWarning, match=r"write ClaudeAgentOptions\(system_prompt=") as caught:
        options = ClaudeCodeOptions(max_turns=2, **fields)
    assert options.system_prompt == expected and options.max_turns == 2
    assert isinstance(options, ClaudeAgentOptions)
    assert repr(expected) in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller's line


def test_the_default_sends_claude_codes_prompt_not_the_empty_one() -> None:
    with pytest.warns(DeprecationWarning):
        old = ClaudeCodeOptions()
    init: dict = {}
    system_prompt_args(old.system_prompt, init)
    assert "systemPrompt" not in init  # the CLI's own (full) prompt
    system_prompt_args(ClaudeAgentOptions().system_prompt, init)
    assert init["systemPrompt"] == [""]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError, match="keyword arguments only"):
        ClaudeCodeOptions(["Bash"])
    with pytest.raises(TypeError, match="append_system_prompt must be a str"):
        ClaudeCodeOptions(append_system_prompt=3)  # type: ignore[arg-type]
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="no_such_option"):
        ClaudeCodeOptions(no_such_option=1)


def test_replace_keeps_the_class_and_the_prompt() -> None:
    with pytest.warns(DeprecationWarning):
        options = ClaudeCodeOptions(append_system_prompt="Y")
        changed = dataclasses.replace(options, max_turns=4)
    assert type(changed) is ClaudeCodeOptions and changed.system_prompt == {**PRESET, "append": "Y"}
