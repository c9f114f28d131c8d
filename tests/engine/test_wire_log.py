"""The ``claude_sync.wire`` logger, ``CLAUDE_SYNC_LOG`` and callback tracebacks (``_engine/wire_log.py``)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, List

import pytest
from helpers import Kit

from claude_sync import ClaudeAgentOptions, PermissionResultAllow, query
from claude_sync._engine import wire_log
from claude_sync._engine.wire_log import MAX_LINE_CHARS, WireTap, redact_line, wire_tap
from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def wire_records() -> Iterator[List[logging.LogRecord]]:
    """Collects claude_sync.wire records at DEBUG for the test."""
    records: List[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(logging.DEBUG)
    logger = wire_log.WIRE_LOGGER
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def test_no_tap_unless_the_wire_logger_is_at_debug() -> None:
    assert not wire_log.WIRE_LOGGER.isEnabledFor(logging.DEBUG)
    assert wire_tap("x") is None


def test_lines_split_across_chunks_are_logged_whole(wire_records: List[logging.LogRecord]) -> None:
    tap = WireTap("cli[1]")
    tap.received(b'{"type":"a"}\n{"type":')
    tap.received(b'"b"}\n')
    tap.received(b'{"type":"tail"}')
    tap.received(b"")
    tap.sent(b'{"type":"user"}\n')
    assert [r.getMessage() for r in wire_records] == [
        'cli[1] < {"type":"a"}',
        'cli[1] < {"type":"b"}',
        'cli[1] < {"type":"tail"}',
        'cli[1] > {"type":"user"}',
    ]


def test_secrets_are_redacted_and_long_lines_cut() -> None:
    from claude_sync import ClaudeAgentOptions

    ClaudeAgentOptions(env={"ANTHROPIC_API_KEY": "sk-ant-abc123"})  # known from here on (issue 26.6)
    config = '{"env":"x","api_key":"plain","access_token":"t\\"q","input_tokens":12}'
    line = '{"type":"control_request","request":{"subtype":"apply_flag_settings","settings":' + config + "}}"
    out = redact_line(line)
    assert "plain" not in out and "t\\\"q" not in out
    assert '"input_tokens":12' in out
    said = redact_line('{"type":"assistant","text":"sk-ant-abc123 Bearer zzz"}')
    assert "sk-ant-abc123" not in said and "Bearer zzz" in said  # the model's words: known values only
    long = '{"text":"' + "x" * 10_000 + '"}'
    cut = redact_line(long)
    assert cut.endswith(f"… (cut; the line has {len(long):,} characters)")
    assert len(cut) < MAX_LINE_CHARS + 60


def test_a_run_logs_every_line_in_and_out(tmp_path: Path, wire_records: List[logging.LogRecord]) -> None:
    cli = Kit(ScriptedCLI.answer("hello"), "subprocess", tmp_path)
    list(query("hi", options=cli.options()))
    messages = [r.getMessage() for r in wire_records]
    sent = [m for m in messages if " > " in m]
    received = [m for m in messages if " < " in m]
    assert any('"subtype":"initialize"' in m for m in sent) and any('"type":"user"' in m for m in sent)
    assert any('"hello"' in m for m in received) and any('"type": "result"' in m for m in received)
    assert all(r.levelno == logging.DEBUG and r.name == "claude_sync.wire" for r in wire_records)


def test_claude_sync_log_env_adds_a_stderr_handler(tmp_path: Path) -> None:
    cli = Kit(ScriptedCLI.answer("hello"), "subprocess", tmp_path)
    options = cli.options()
    code = (
        "import sys; from claude_sync import query, ClaudeAgentOptions\n"
        f"opts = ClaudeAgentOptions(cli_path={options.cli_path!r})\n"
        "print(sum(1 for _ in query('hi', options=opts)))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "CLAUDE_SYNC_LOG": "debug", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "claude_sync.wire DEBUG] cli[" in out.stderr and '"subtype":"initialize"' in out.stderr
    env["CLAUDE_SYNC_LOG"] = "info"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert out.returncode == 0 and "claude_sync.wire" not in out.stderr


def test_a_failing_permission_callback_is_logged_with_its_traceback(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    request = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}, "tool_use_id": "t1"}
    cli = Kit(ScriptedCLI().expect_user().ask_control(request, request_id="p1").result(), "subprocess", tmp_path)

    def broken(name: str, tool_input: Any, context: Any) -> PermissionResultAllow:
        raise RuntimeError("policy bug")

    with caplog.at_level(logging.ERROR, logger="claude_sync"):
        list(query("hi", options=cli.options(can_use_tool=broken)))
    failures = [r for r in caplog.records if "can_use_tool failed" in r.getMessage()]
    assert failures and failures[0].exc_info is not None
    assert "policy bug" in caplog.text and "Traceback" in caplog.text


def test_unknown_claude_sync_log_value_is_reported(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire_log, "_configured", False)
    with caplog.at_level(logging.WARNING, logger="claude_sync"):
        wire_log.configure_from_env({"CLAUDE_SYNC_LOG": "verbose"})
    assert "CLAUDE_SYNC_LOG='verbose' is not one of debug, info, warning, error" in caplog.text
    assert ClaudeAgentOptions is not None
