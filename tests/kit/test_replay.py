"""Record and replay without the real CLI: a scripted run recorded through
``RecordingTransport``, replayed; the file format's versions; redaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest
from helpers import texts

from claude_sync import (
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ProcessError,
    query,
)
from claude_sync.testing import (
    RecordingFormatError,
    RecordingTransport,
    ScriptedCLI,
    load_recording,
    redact,
)


def allow(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
    return PermissionResultAllow()


def deny(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
    return PermissionResultDeny(message="no")


def record(path: Path) -> None:
    cli = (ScriptedCLI().expect_user("go").tool_use("Bash", {"command": "ls"})
           .ask_permission().text("listed").result())
    transport = RecordingTransport(cli.transport(), path)
    messages = list(query("go", options=ClaudeAgentOptions(can_use_tool=allow), transport=transport))
    assert texts(messages) == ["listed"]
    cli.verify()


def test_a_recorded_run_replays_and_checks_the_client(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    record(path)
    recording = load_recording(path)
    assert recording.header["version"] == 1 and recording.exit_code == 0
    assert recording.cli_version == "2.1.197"  # from the scripted system/init
    directions = [entry["dir"] for entry in recording.entries]
    assert directions[0] == "in" and "out" in directions

    replay = ScriptedCLI.from_recording(path)
    assert texts(list(query("go", options=ClaudeAgentOptions(can_use_tool=allow), transport=replay.transport()))) == ["listed"]
    replay.verify()

    replay = ScriptedCLI.from_recording(path, timeout=0.5)
    with pytest.raises(ProcessError):
        list(query("go", options=ClaudeAgentOptions(can_use_tool=deny), transport=replay.transport()))
    with pytest.raises(AssertionError, match=r'(?s)expect_frame #\d+ control_response.*-   "behavior": "allow".*\+   "behavior": "deny"'):
        replay.verify()

    replay = ScriptedCLI.from_recording(path, timeout=0.5)
    with pytest.raises(ProcessError):
        list(query("something else", options=ClaudeAgentOptions(can_use_tool=allow), transport=replay.transport()))
    with pytest.raises(AssertionError, match=r'(?s)-  "content": "go".*\+  "content": "something else"'):
        replay.verify()


def write_lines(path: Path, *records: Any) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_format_versions_are_read_or_refused_clearly(tmp_path: Path) -> None:
    user = {"type": "user", "message": {"role": "user", "content": "hi"}}
    result = {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "s"}
    old = write_lines(tmp_path / "v0.jsonl", {"in": user}, {"out": result})
    assert [e["dir"] for e in load_recording(old).entries] == ["in", "out"]  # version 0: upgraded

    newer = write_lines(tmp_path / "v2.jsonl", {"format": "claude_sync.recording", "version": 2}, {"dir": "in", "frame": user})
    with pytest.raises(RecordingFormatError, match="format version 2 was written by a newer claude_sync; this one reads versions 0 to 1"):
        load_recording(newer)
    with pytest.raises(RecordingFormatError, match="not a claude_sync recording"):
        load_recording(write_lines(tmp_path / "other.jsonl", {"format": "har", "version": 1}))
    with pytest.raises(RecordingFormatError, match="not a JSON line"):
        (tmp_path / "bad.jsonl").write_text("{nope\n")
        load_recording(tmp_path / "bad.jsonl")

    init = {"type": "system", "subtype": "init", "claude_code_version": "9.0.1"}
    future = write_lines(tmp_path / "cli9.jsonl", {"format": "claude_sync.recording", "version": 1},
                         {"dir": "out", "frame": init})
    with pytest.raises(RecordingFormatError, match="recorded with claude CLI 9.0.1, newer than any this claude_sync knows"):
        load_recording(future)
    assert load_recording(future, allow_newer_cli=True).cli_version == "9.0.1"


def test_secrets_are_redacted() -> None:
    """Config in control frames by structure and known value; the model's words only where a
    known value stands (issue 26.6)."""
    from claude_sync import ClaudeAgentOptions

    ClaudeAgentOptions(env={"ANTHROPIC_API_KEY": "sk-ant-api03-abcdefghijk"})  # known from here on
    config = {"api_key": "k", "headers": {"Authorization": "Bearer abc.def", "x-api-key": "sk-ant-api03-SECRETSECRET"},
              "access_token": "t", "input_tokens": 5, "tokenSource": "none"}  # fmt: skip
    frame = {"type": "control_request", "request": {"subtype": "mcp_set_servers", "servers": {"s": config}}}
    clean = redact(frame)["request"]["servers"]["s"]
    dumped = json.dumps(clean)
    assert "SECRETSECRET" not in dumped and "abc.def" not in dumped
    assert clean["api_key"] == "<redacted>" and clean["access_token"] == "<redacted>"
    assert clean["input_tokens"] == 5 and clean["tokenSource"] == "none"
    said = {"type": "assistant", "message": {"content": [{"type": "text", "text": "use sk-ant-api03-abcdefghijk or Bearer xyz"}]}}
    assert redact(said)["message"]["content"][0]["text"] == "use <redacted> or Bearer xyz"


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_a_recording_whose_text_holds_a_unicode_line_separator_loads(tmp_path: Path, separator: str) -> None:
    text = f"one{separator}two"
    result = {"type": "result", "subtype": "success", "is_error": False, "result": text, "session_id": "s"}
    path = tmp_path / "sep.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (
        {"format": "claude_sync.recording", "version": 1}, {"dir": "out", "t": 0, "frame": result})), encoding="utf-8")
    assert separator in path.read_text(encoding="utf-8")  # raw, as RecordingTransport writes it
    assert load_recording(path).entries[0]["frame"]["result"] == text
