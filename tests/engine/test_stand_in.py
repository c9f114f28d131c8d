"""``stand_in.route``: what a run without a transport may start while the kit's switch is on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from claude_sync import ClaudeAgentOptions, UsageError
from claude_sync._engine import stand_in
from claude_sync._wire.errors import UnscriptedRunError

OFF: Dict[str, str] = {}
BLOCK = {"CLAUDE_SYNC_TESTING": "block"}


@pytest.fixture(autouse=True)
def no_stand_in() -> Iterator[None]:
    previous = stand_in.set_stand_in(None)
    yield
    stand_in.set_stand_in(previous)


def test_switch_off_spawns_as_usual() -> None:
    assert stand_in.route(ClaudeAgentOptions(), OFF) is None
    assert stand_in.route(ClaudeAgentOptions(), {"CLAUDE_SYNC_TESTING": ""}) is None


def test_block_refuses_a_run_with_nothing_to_play() -> None:
    with pytest.raises(UnscriptedRunError, match="CLAUDE_SYNC_TESTING=block.*nothing was started"):
        stand_in.route(ClaudeAgentOptions(cli_path="/usr/local/bin/claude"), BLOCK)


def test_an_unknown_switch_value_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="CLAUDE_SYNC_TESTING must be 'block'"):
        stand_in.route(ClaudeAgentOptions(), {"CLAUDE_SYNC_TESTING": "1"})


def test_a_stand_in_gets_every_run_whatever_its_cli_path() -> None:
    seen = []

    def fake(options: ClaudeAgentOptions) -> Any:
        seen.append(options.cli_path)
        return "/kit/claude"

    stand_in.set_stand_in(fake)
    assert stand_in.route(ClaudeAgentOptions(cli_path="/usr/bin/claude"), OFF) == "/kit/claude"
    assert stand_in.route(ClaudeAgentOptions(), BLOCK) == "/kit/claude"
    assert seen == ["/usr/bin/claude", None]


def test_kit_clis_and_the_fake_api_are_allowed(tmp_path: Path) -> None:
    kit_cli = tmp_path / "claude"
    kit_cli.write_text("#!/bin/sh\n")
    stand_in.allow_cli(str(kit_cli))
    assert stand_in.route(ClaudeAgentOptions(cli_path=str(kit_cli)), BLOCK) is None
    stand_in.allow_base_url("http://127.0.0.1:9/")
    try:
        aimed = ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
        assert stand_in.route(aimed, BLOCK) is None
        assert stand_in.route(ClaudeAgentOptions(), {**BLOCK, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}) is None
        elsewhere = ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": "https://api.anthropic.com"})
        with pytest.raises(UnscriptedRunError):
            stand_in.route(elsewhere, BLOCK)
    finally:
        stand_in.disallow_base_url("http://127.0.0.1:9")
    with pytest.raises(UnscriptedRunError):
        stand_in.route(aimed, BLOCK)
