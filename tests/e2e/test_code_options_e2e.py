"""Issue 19 against the real CLI: ``ClaudeCodeOptions`` gives the model what the old
``claude_code_sdk`` did — Claude Code's full system prompt, as a bare ``claude -p`` run gets it
(measured: 5,828 characters on 2.1.197, 7,167 on 2.1.331) — where ``ClaudeAgentOptions``
gives a short SDK prompt (136)."""

from __future__ import annotations

from typing import Any

import pytest

from claude_sync import ClaudeCodeOptions, query
from claude_sync.testing.fake_api import FakeAnthropicAPI, text

from .harness import OptionsFactory

pytestmark = pytest.mark.e2e


def _system_prompt(fake_api: FakeAnthropicAPI, options: Any) -> str:
    fake_api.add(text("ok"))
    list(query("hi", options=options))
    return fake_api.turn_requests()[-1].system_text


def test_claude_code_options_keep_claude_codes_system_prompt(e2e_options: OptionsFactory, fake_api: FakeAnthropicAPI) -> None:
    base = e2e_options()
    fields = {name: getattr(base, name) for name in ("cli_path", "env", "cwd", "close_timeout", "initialize_timeout", "control_timeout")}
    with pytest.warns(DeprecationWarning):
        old = ClaudeCodeOptions(**fields)
        appended = ClaudeCodeOptions(append_system_prompt="APPENDED-RULE", **fields)
    short = _system_prompt(fake_api, base)
    full = _system_prompt(fake_api, old)
    with_append = _system_prompt(fake_api, appended)
    assert len(short) < 500 < 5000 < len(full), (len(short), len(full))
    assert with_append.endswith(full[-300:] + "\n\nAPPENDED-RULE")  # (the first line, the identity, may differ)
