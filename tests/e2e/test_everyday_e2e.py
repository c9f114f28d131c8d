"""Everyday use against the real CLI + fake API: text streams, the wire log, the live
display, and the hints newcomers get for the usual failures."""

from __future__ import annotations

from typing import Any, List

import pytest

from claude_sync import ClaudeSDKClient, query

from .fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e


def test_query_text_stream_yields_deltas(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("The answer is four.", chunk_size=4))
    pieces: List[str] = list(query("What is 2 + 2?", options=e2e_options()).text_stream())
    assert "".join(pieces) == "The answer is four."
    assert len(pieces) > 1  # streamed, not one block


def test_text_stream_joins_blocks_around_a_tool_call(fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Any) -> None:
    (e2e_workdir / "notes.txt").write_text("42\n")
    fake_api.add(tool_use("Read", {"file_path": str(e2e_workdir / "notes.txt")}), text("It says 42."))
    pieces = list(query("Read notes.txt", options=e2e_options(allowed_tools=["Read"])).text_stream())
    assert "".join(pieces) == "It says 42."


def test_client_text_stream_per_turn(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("one", chunk_size=1), text("two"))
    with ClaudeSDKClient(e2e_options(include_partial_messages=True)) as client:
        client.query("first")
        first = list(client.text_stream(timeout=60))
        client.query("second")
        second = list(client.text_stream(timeout=60))
    assert first == ["o", "n", "e"]
    assert "".join(second) == "two"
