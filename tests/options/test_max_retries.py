"""``max_retries``: how often the CLI retries a failed API request, carried as the CLI's own
``CLAUDE_CODE_MAX_RETRIES`` (neither 2.1.197 nor 2.1.331 has a flag for it)."""

from __future__ import annotations

from typing import Any, Dict, Optional

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync._options.command import SpawnPlan, build_spawn_plan

CLI = "/usr/bin/claude"


def plan(environ: Optional[Dict[str, str]] = None, **kwargs: Any) -> SpawnPlan:
    return build_spawn_plan(ClaudeAgentOptions(**kwargs), CLI, environ=environ or {})


def test_max_retries_is_the_clis_environment_variable() -> None:
    assert plan(max_retries=3).env["CLAUDE_CODE_MAX_RETRIES"] == "3"
    assert plan(max_retries=0).env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert "CLAUDE_CODE_MAX_RETRIES" not in plan().env
    assert not any("retr" in str(arg) for arg in plan(max_retries=3).argv_strings())


def test_max_retries_wins_over_the_inherited_environment() -> None:
    assert plan({"CLAUDE_CODE_MAX_RETRIES": "10"}, max_retries=1).env["CLAUDE_CODE_MAX_RETRIES"] == "1"
    assert plan({"CLAUDE_CODE_MAX_RETRIES": "10"}).env["CLAUDE_CODE_MAX_RETRIES"] == "10"


def test_the_same_count_in_env_is_fine_a_different_one_is_refused() -> None:
    assert plan(max_retries=2, env={"CLAUDE_CODE_MAX_RETRIES": "2"}).env["CLAUDE_CODE_MAX_RETRIES"] == "2"
    with pytest.raises(ValueError, match="max_retries=2 and env"):
        plan(max_retries=2, env={"CLAUDE_CODE_MAX_RETRIES": "5"})


@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)])
def test_a_bad_count_is_refused_at_construction(value: Any, error: type) -> None:
    with pytest.raises(error, match="max_retries"):
        ClaudeAgentOptions(max_retries=value)
