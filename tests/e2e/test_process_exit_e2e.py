"""``on_process_exit`` against the real CLI: a CLI killed while the client is idle is
reported at once (on its own thread, before any call finds out), a closed one with the rung
of the close ladder that ended it; exactly once either way."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, List, Tuple

import pytest

from claude_sync import ClaudeSDKClient, CLIConnectionError, ProcessExit, ResultMessage
from claude_sync.testing.fake_api import FakeAnthropicAPI, text

pytestmark = pytest.mark.e2e

FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}


class Reports:
    def __init__(self) -> None:
        self.items: List[Tuple[ProcessExit, str]] = []
        self.arrived = threading.Event()

    def __call__(self, report: ProcessExit) -> None:
        self.items.append((report, threading.current_thread().name))
        self.arrived.set()


def test_a_cli_killed_while_idle_is_reported_once_at_once(e2e_options: Any, fake_api: FakeAnthropicAPI) -> None:
    fake_api.add(text("hi"))
    reports = Reports()
    client = ClaudeSDKClient(e2e_options(env=FAST_FAIL, on_process_exit=reports))
    client.connect()
    try:
        client.query("hello")
        assert isinstance(list(client.receive_response(timeout=60))[-1], ResultMessage)
        pid = client.session.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)
        assert reports.arrived.wait(30), "no report of the killed CLI"
        [(report, thread)] = reports.items
        assert (report.pid, report.exit_code, report.signal, report.closed_by) == (pid, None, "SIGKILL", None)
        assert thread == f"claude_sync-process-exit-{pid}"
        with pytest.raises(CLIConnectionError):
            client.query("anyone there?")
    finally:
        client.close()
    assert len(reports.items) == 1


def test_a_closed_cli_is_reported_with_the_rung_that_ended_it(e2e_options: Any) -> None:
    reports = Reports()
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL, on_process_exit=reports)) as client:
        pid = client.session.pid  # type: ignore[union-attr]
        assert not reports.items
    [(report, _)] = reports.items  # close() joined the callback's thread
    assert report.pid == pid and report.closed_by in ("eof", "sigterm", "sigkill")
    if report.closed_by == "eof":
        assert report.exit_code == 0 and report.signal is None


def test_a_callback_that_raises_or_closes_the_client_changes_nothing_else(
    e2e_options: Any, caplog: pytest.LogCaptureFixture
) -> None:
    holder: List[ClaudeSDKClient] = []
    done = threading.Event()

    def close_from_the_callback(report: ProcessExit) -> None:
        holder[0].close()  # re-entrant: must not wait for its own thread
        done.set()
        raise RuntimeError("callback failure")

    client = ClaudeSDKClient(e2e_options(env=FAST_FAIL, on_process_exit=close_from_the_callback))
    holder.append(client)
    client.connect()
    pid = client.session.pid  # type: ignore[union-attr]
    os.kill(pid, signal.SIGTERM)
    assert done.wait(30)
    client.close()
    # the close the callback started could not wait for its own thread: it ends on its own
    for thread in [t for t in threading.enumerate() if t.name == f"claude_sync-process-exit-{pid}"]:
        thread.join(30)
    assert any("on_process_exit raised" in r.getMessage() for r in caplog.records)


def test_a_query_run_reports_its_cli_once_after_the_run(e2e_options: Any, fake_api: FakeAnthropicAPI) -> None:
    """``query()`` ends the CLI's input after the result: the CLI exits 0 on its own."""
    from claude_sync import query

    fake_api.add(text("done"))
    reports = Reports()
    messages = list(query("one shot", options=e2e_options(env=FAST_FAIL, on_process_exit=reports)))
    assert isinstance(messages[-1], ResultMessage)
    [(report, thread)] = reports.items  # the stream's close joined the callback's thread
    assert (report.exit_code, report.signal) == (0, None) and thread.startswith("claude_sync-process-exit-")
