"""The kit against the real CLI: the ``claude_offline`` fixture (real CLI + fake API)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from claude_sync import PermissionResultAllow, query
from claude_sync.testing import assert_result, text, texts, tool_use
from claude_sync.testing.pytest_plugin import OfflineClaude

pytestmark = pytest.mark.e2e


def test_claude_offline_runs_the_real_cli_against_scripted_model_turns(claude_offline: OfflineClaude) -> None:
    asked = []

    def allow(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
        asked.append((tool, tool_input["command"]))
        return PermissionResultAllow()

    claude_offline.api.add(tool_use("Bash", {"command": "touch hi.txt && echo hi", "description": "Say hi"}), text("the shell said hi"))
    options = claude_offline.options(permission_mode="default", can_use_tool=allow)
    messages = list(query("say hi", options=options))
    assert asked == [("Bash", "touch hi.txt && echo hi")]
    assert texts(messages) == ["the shell said hi"]
    assert_result(messages, is_error=False, result="the shell said hi")
    [first, second] = claude_offline.api.turn_requests()
    assert second.tool_results[0]["content"].strip() == "hi"
    claude_offline.api.assert_no_surprises()
