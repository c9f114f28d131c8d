"""``run()``: ``query(timeout=)`` bounds the whole run — start-up included — with no timer
thread of its own, and the CLI is reaped either way."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from claude_sync import ReceiveTimeoutError, run
from claude_sync.testing import ScriptedCLI


def _no_timer_threads() -> None:
    names = [t.name for t in threading.enumerate()]
    assert not [n for n in names if "timeout" in n], names


def test_a_run_that_stalls_mid_turn_times_out_and_reaps_its_cli(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path).expect_user().text("working").stall(60)
    started = time.monotonic()
    with pytest.raises(ReceiveTimeoutError) as info:
        run("hi", options=cli.options(close_timeout=1.0), timeout=1.0)
    assert info.value.kind == "total" and info.value.timeout == 1.0
    assert time.monotonic() - started < 10  # bounded: the close ladder, not the stall
    _no_timer_threads()
    [report] = cli.runs
    assert report.exit_code is not None


def test_start_up_counts_against_the_run_timeout(tmp_path: Path) -> None:
    """A CLI that never answers ``initialize`` (default ``initialize_timeout`` 60 s) ends the
    run at the caller's bound, as the same typed timeout."""
    cli = ScriptedCLI(auto_initialize=False, directory=tmp_path).stall(60)
    started = time.monotonic()
    with pytest.raises(ReceiveTimeoutError) as info:
        run("hi", options=cli.options(close_timeout=1.0), timeout=1.0)
    assert info.value.kind == "total"
    assert "did not finish starting" in str(info.value)
    assert time.monotonic() - started < 10
    _no_timer_threads()


def test_a_run_within_its_timeout_returns_the_result(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path).expect_user().text("4").result(result="4")
    result = run("What is 2 + 2?", options=cli.options(), timeout=30)
    assert result.text == "4" and not result.is_error
