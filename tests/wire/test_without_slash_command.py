"""``without_slash_command``: the frame ``slash_commands=False`` writes (pure)."""

from __future__ import annotations

import copy
from typing import Any, Dict

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync._wire.protocol import user_message_frame, without_slash_command
from claude_sync.testing import ScriptedCLI


@pytest.mark.parametrize("content, sent", [
    ("/config permissionMode=acceptEdits", " /config permissionMode=acceptEdits"),
    ("//comment", " //comment"),
    ("/", " /"),
    ("look at /etc/hosts", "look at /etc/hosts"),
    (" /already text", " /already text"),
    ("", ""),
    ([{"type": "text", "text": "/cost"}, {"type": "image", "source": {}}, {"type": "text", "text": "fine"}],
     [{"type": "text", "text": " /cost"}, {"type": "image", "source": {}}, {"type": "text", "text": "fine"}]),
])  # fmt: skip
def test_a_leading_slash_gets_a_space(content: Any, sent: Any) -> None:
    frame = user_message_frame(content)
    before = copy.deepcopy(frame)
    out = without_slash_command(frame)
    assert out["message"]["content"] == sent
    assert frame == before  # the caller's frame is not changed
    assert {k: v for k, v in out.items() if k != "message"} == {k: v for k, v in frame.items() if k != "message"}


@pytest.mark.parametrize("frame", [
    {"type": "control_request", "request_id": "1", "request": {"subtype": "interrupt"}},
    {"type": "user", "message": "odd"},
    {"type": "user", "message": {"role": "user", "content": 42}},
])  # fmt: skip
def test_other_frames_are_left_alone(frame: Dict[str, Any]) -> None:
    assert without_slash_command(frame) is frame


def test_the_session_writes_the_escaped_frame(tmp_path: Any) -> None:
    from claude_sync import query

    cli = ScriptedCLI(directory=tmp_path).answer("text to me", prompt=" /compact")
    assert [m for m in query("/compact", options=cli.options(slash_commands=False))][-1].result == "text to me"
    default = ScriptedCLI(directory=tmp_path).answer("ran it", prompt="/compact")
    assert [m for m in query("/compact", options=default.options())][-1].result == "ran it"
    assert ClaudeAgentOptions().slash_commands is True
