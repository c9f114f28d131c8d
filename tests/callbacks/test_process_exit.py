"""``on_process_exit``: its report (pure), its checks, and that a connection with no process of
ours (a custom transport) never calls it. Killed and closed real CLIs:
``tests/e2e/test_process_exit_e2e.py``; a subprocess kit CLI that exits mid-session here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import List

import pytest
from helpers import Kit

from claude_sync import ClaudeAgentOptions, ProcessExit
from claude_sync._wire.process_exit import exit_report
from claude_sync.testing import ScriptedCLI


def test_the_report() -> None:
    assert exit_report(7, 3, None, "boom") == ProcessExit(pid=7, exit_code=3, signal=None, closed_by=None, stderr_tail="boom")
    assert exit_report(7, -9, "exited", "", "SIGKILL") == ProcessExit(7, None, "SIGKILL", None, "")
    assert exit_report(7, 0, "eof", "").closed_by == "eof"
    assert exit_report(7, -15, "sigterm", "", "").signal == "signal 15"


def test_it_must_be_callable() -> None:
    with pytest.raises(TypeError, match="on_process_exit must be a callable, got 5"):
        ClaudeAgentOptions(on_process_exit=5)  # type: ignore[arg-type]


def test_a_custom_transport_has_no_process_of_ours_so_no_report() -> None:
    reports: List[ProcessExit] = []
    cli = Kit(ScriptedCLI().echo_turns())
    with cli.client(on_process_exit=reports.append) as client:
        client.query("hi")
        list(client.receive_response())
    assert reports == []


def test_a_subprocess_that_exits_on_its_own_is_reported_once_with_its_status(tmp_path: Path) -> None:
    reports: List[ProcessExit] = []
    arrived = threading.Event()

    def record(report: ProcessExit) -> None:
        reports.append(report)
        arrived.set()

    cli = Kit(ScriptedCLI().expect_user().stderr("FATAL: out of luck").crash(3), mode="subprocess", tmp_path=tmp_path)
    client = cli.client(on_process_exit=record)
    try:
        client.connect()
        client.query("hi")  # the kit CLI crashes on it; nobody is receiving
        assert arrived.wait(30)
    finally:
        client.close()
    [report] = reports
    assert (report.exit_code, report.signal, report.closed_by) == (3, None, None)
    assert "FATAL: out of luck" in report.stderr_tail
