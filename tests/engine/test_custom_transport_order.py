"""A user's own transport is driven the way the official SDK drives it: ``initialize`` is
written before ``read_messages()`` is first iterated, ``close()`` is called once per session,
and an exception raised inside its ``read_messages()`` reaches the caller as itself (at the
waiting call and from ``receive_messages()``), without an ERROR log — while a fault of our
own reader stays wrapped in ``CLIConnectionError``."""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import Any, Dict, Iterator, List, Optional

import pytest
from helpers import texts

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, CLIConnectionError, Transport, query


class ReplayPeer:
    """A replay transport in the official shape: it answers only requests it has seen
    written, so ``read_messages()`` must not be iterated before ``initialize`` is written."""

    def __init__(self, fail_after: Optional[int] = None, error: Optional[BaseException] = None) -> None:
        self.written: List[Dict[str, Any]] = []
        self.outbox: "queue.Queue[Optional[Dict[str, Any]]]" = queue.Queue()
        self.closed = 0
        self.ready = False
        self.iterated_with: Optional[List[str]] = None  # what was written when reading began
        self.fail_after = fail_after  # raise ``error`` after this many frames were read
        self.error = error

    def connect(self) -> None:
        self.ready = True

    def write(self, data: str) -> None:
        for line in data.splitlines():
            frame = json.loads(line)
            self.written.append(frame)
            if frame["type"] == "control_request":
                self.outbox.put({"type": "control_response", "response": {
                    "subtype": "success", "request_id": frame["request_id"], "response": {}}})
            elif frame["type"] == "user":
                self.outbox.put({"type": "assistant", "message": {
                    "id": "m1", "type": "message", "role": "assistant", "model": "replay",
                    "content": [{"type": "text", "text": "replayed"}], "stop_reason": None, "usage": {}},
                    "parent_tool_use_id": None, "session_id": "s"})
                self.outbox.put({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
                                 "duration_api_ms": 1, "num_turns": 1, "result": "replayed", "session_id": "s"})

    def read_messages(self) -> Iterator[Dict[str, Any]]:
        self.iterated_with = [f.get("request", {}).get("subtype", f["type"]) for f in self.written]
        read = 0
        while True:
            if self.fail_after is not None and read >= self.fail_after:
                assert self.error is not None
                raise self.error
            message = self.outbox.get(timeout=10)
            if message is None:
                return
            read += 1
            yield message

    def end_input(self) -> None:
        if self.ready:
            self.ready = False
            self.outbox.put(None)

    def close(self) -> None:
        self.closed += 1
        self.end_input()

    def is_ready(self) -> bool:
        return self.ready


class ReplayTransport(ReplayPeer, Transport):
    """The same, as a ``Transport`` subclass."""


class ReplayError(Exception):
    """The user's own exception type."""


OPTIONS = ClaudeAgentOptions(cli_path="/nonexistent/claude")


@pytest.mark.parametrize("kind", [ReplayPeer, ReplayTransport])
def test_initialize_is_written_before_read_messages_is_iterated(kind: Any) -> None:
    peer = kind()
    assert texts(list(query("hi", options=OPTIONS, transport=peer))) == ["replayed"]
    assert peer.iterated_with == ["initialize"]
    peer = kind()
    with ClaudeSDKClient(OPTIONS, transport=peer) as client:
        client.query("one")
        assert texts(list(client.receive_response())) == ["replayed"]
    assert peer.iterated_with == ["initialize"]


@pytest.mark.parametrize("kind", [ReplayPeer, ReplayTransport])
def test_close_is_called_once_per_session(kind: Any) -> None:
    peer = kind()
    list(query("hi", options=OPTIONS, transport=peer))
    assert peer.closed == 1
    peer = kind()
    with ClaudeSDKClient(OPTIONS, transport=peer) as client:
        client.query("one")
        list(client.receive_response())
    assert peer.closed == 1
    client.disconnect()  # again: nothing more
    assert peer.closed == 1


@pytest.mark.parametrize("kind", [ReplayPeer, ReplayTransport])
def test_an_error_in_read_messages_reaches_the_waiting_call_as_itself(kind: Any, caplog: Any) -> None:
    error = ReplayError("cassette has no answer")
    peer = kind(fail_after=0, error=error)
    client = ClaudeSDKClient(OPTIONS, transport=peer)
    with caplog.at_level(logging.DEBUG, logger="claude_sync"):
        with pytest.raises(ReplayError) as raised:
            client.connect()
    assert raised.value is error
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert peer.closed == 1


@pytest.mark.parametrize("kind", [ReplayPeer, ReplayTransport])
def test_an_error_in_read_messages_comes_out_of_receive_messages_as_itself(kind: Any, caplog: Any) -> None:
    error = ReplayError("cassette ended")
    peer = kind(fail_after=2, error=error)  # initialize's answer, the assistant message, then the error
    with caplog.at_level(logging.DEBUG, logger="claude_sync"):
        with ClaudeSDKClient(OPTIONS, transport=peer) as client:
            client.query("one")
            seen: List[Any] = []
            with pytest.raises(ReplayError) as raised:
                for message in client.receive_messages():
                    seen.append(message)
            assert raised.value is error and texts(seen) == ["replayed"]
            with pytest.raises(ReplayError):  # sticky, and at a control call too
                client.interrupt()
        with pytest.raises(ReplayError) as from_query:
            list(query("hi", options=OPTIONS, transport=kind(fail_after=2, error=error)))
        assert from_query.value is error
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_claude_sdk_error_from_the_transport_is_not_rewrapped() -> None:
    error = CLIConnectionError("the recording is corrupt")
    with pytest.raises(CLIConnectionError) as raised:
        with ClaudeSDKClient(OPTIONS, transport=ReplayPeer(fail_after=0, error=error)):
            pass
    assert raised.value is error


def test_a_fault_of_our_own_reader_stays_wrapped(monkeypatch: Any, caplog: Any) -> None:
    from claude_sync._engine import reader

    def broken_route(self: Any, event: Any) -> None:
        raise KeyError("our bug")

    monkeypatch.setattr(reader.Reader, "_route_control", broken_route)
    with caplog.at_level(logging.ERROR, logger="claude_sync"):
        with pytest.raises(CLIConnectionError, match="internal error in the claude_sync reader thread"):
            ClaudeSDKClient(OPTIONS, transport=ReplayPeer()).connect()
    assert any(r.levelno == logging.ERROR for r in caplog.records)
