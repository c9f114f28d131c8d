"""The kit against the real CLI: the ``claude_offline`` fixture (real CLI + fake API)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ProcessError,
    query,
)
from claude_sync.testing import (
    ScriptedCLI,
    assert_result,
    recording_transport,
    text,
    texts,
    tool_use,
)
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


# ----------------------------------------------------------------------------- record, replay


def policy(allow: bool) -> Any:
    def decide(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
        return PermissionResultAllow() if allow else PermissionResultDeny(message="not today")

    return decide


def record_a_real_run(claude_offline: OfflineClaude, path: Path) -> List[Any]:
    claude_offline.api.add(tool_use("Bash", {"command": "touch rec.txt && echo recorded", "description": "Rec"}),
                           text("done recording"))
    options = claude_offline.options(permission_mode="default", can_use_tool=policy(True),
                                     hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[note_hook])]})
    transport = recording_transport(options, path)
    return list(query("record me", options=options, transport=transport))


def note_hook(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "noted"}}


def test_a_recorded_real_run_replays_offline_and_a_changed_client_gets_a_diff(
    claude_offline: OfflineClaude, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    recorded = record_a_real_run(claude_offline, path)
    assert texts(recorded) == ["done recording"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["format"] == "claude_sync.recording" and lines[0]["version"] == 1
    assert {entry.get("dir") for entry in lines[1:-1]} == {"in", "out"}
    assert "end" in lines[-1]
    assert "sk-ant-fake" not in path.read_text()  # nothing secret-shaped survives

    # the same client code against the replay: same messages, script followed
    replay = ScriptedCLI.from_recording(path)
    options = ClaudeAgentOptions(can_use_tool=policy(True), hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[note_hook])]})
    replayed = list(query("record me", options=options, transport=replay.transport()))
    assert texts(replayed) == texts(recorded)
    assert [type(m).__name__ for m in replayed] == [type(m).__name__ for m in recorded]
    replay.verify()

    # a client whose policy changed: the replay fails with a readable diff
    replay = ScriptedCLI.from_recording(path, timeout=2.0)
    options = ClaudeAgentOptions(can_use_tool=policy(False), hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[note_hook])]})
    with pytest.raises(ProcessError):
        list(query("record me", options=options, transport=replay.transport()))
    with pytest.raises(AssertionError) as failed:
        replay.verify()
    message = str(failed.value)
    assert "expect_frame" in message and "nothing equivalent within 2s" in message
    assert "-   \"behavior\": \"allow\"" in message and "+   \"behavior\": \"deny\"" in message
