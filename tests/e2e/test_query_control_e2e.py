"""Control methods on the one-shot ``query()`` stream, as the TS SDK's ``Query`` object has
them (``interrupt``, ``set_permission_mode``, ``set_model``, ``get_mcp_status``, ``stop_task``,
the typed ones …), against the real CLI: from the iterating thread between messages and
from another thread while it waits."""

from __future__ import annotations

import threading
from typing import Any, List

import pytest

from claude_sync import (
    CLIConnectionError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UsageError,
    query,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, text

pytestmark = pytest.mark.e2e


def test_control_methods_work_while_the_stream_runs(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("done"))
    stream = query("hi", options=e2e_options())
    with pytest.raises(UsageError, match="iterate"):
        stream.get_mcp_status()
    seen: List[Any] = []
    for message in stream:
        seen.append(message)
        if len(seen) == 1:  # system/init: the CLI is up, its turn not yet over
            assert stream.set_permission_mode("acceptEdits", timeout=30) in (
                {},
                {"mode": "acceptEdits"},
            )
            assert "mcpServers" in stream.get_mcp_status(timeout=30)
            info = stream.get_server_info()
            assert info is not None and "commands" in info
            assert [command.name for command in stream.supported_commands] == [
                c["name"] for c in info["commands"]
            ]
            assert stream.send_control_request("get_context_usage", timeout=60) is not None
    # The mode change's system/status frame may come after the result under load.
    results = [index for index, message in enumerate(seen) if isinstance(message, ResultMessage)]
    assert len(results) == 1 and seen[results[0]].result == "done"
    assert all(isinstance(message, SystemMessage) for message in seen[results[0] + 1 :]), seen[
        results[0] + 1 :
    ]
    with pytest.raises(CLIConnectionError, match="ended"):
        stream.get_mcp_status()


def test_interrupt_from_another_thread_ends_the_run(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    """``stream.interrupt()`` while the iterating thread waits for the slow answer: the run ends
    with the aborted turn's error result (yielded, not raised, with raise_on_error_result=False)."""
    fake_api.add(text(" ".join(f"w{i}" for i in range(200)), delay=0.05))
    options = e2e_options(include_partial_messages=True, raise_on_error_result=False)
    streaming = threading.Event()
    seen: List[Any] = []
    errors: List[BaseException] = []

    stream = query("talk slowly", options=options, timeout=60)

    def consume_stream() -> None:
        try:
            for message in stream:
                seen.append(message)
                if (
                    isinstance(message, StreamEvent)
                    and message.event.get("type") == "content_block_delta"
                ):
                    streaming.set()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            streaming.set()

    worker = threading.Thread(target=consume_stream, name="test-consumer")
    worker.start()
    try:
        assert streaming.wait(60)
        stream.interrupt(timeout=30)
        worker.join(60)
    finally:
        stream.close()
        worker.join(10)
    assert not worker.is_alive() and errors == []
    result = seen[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert result.terminal_reason == "aborted_streaming"
