"""The in-memory transport on its own (both directions, EOF, exit status, timeouts), and a
user's own ``Transport`` passed to ``query()`` and ``ClaudeSDKClient``."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Optional
from unittest.mock import MagicMock

import pytest
from helpers import texts

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    CLIConnectionError,
    ResultMessage,
    Transport,
    query,
)
from claude_sync._engine.memory import MemoryTransport, PeerTimeout


def test_lines_flow_both_ways_and_messages_decode() -> None:
    transport = MemoryTransport()
    transport.connect()
    transport.write('{"type": "user"}\n')
    assert transport.peer.read_frame() == {"type": "user"}
    transport.peer.send({"type": "assistant"})
    transport.peer.send(b'{"type": "res')  # a line in two chunks
    transport.peer.send(b'ult"}\nnot json\n')
    transport.peer.exit(3)
    assert list(transport.read_messages()) == [{"type": "assistant"}, {"type": "result"}]
    assert transport.exit_code() == 3 and transport.wait(0) == 3


def test_end_input_is_seen_by_the_peer_and_later_writes_fail() -> None:
    transport = MemoryTransport()
    transport.connect()
    assert transport.is_ready()
    transport.end_input()
    transport.peer.wait_input_ended(timeout=1)
    with pytest.raises(EOFError):
        transport.peer.read_frame(timeout=1)
    with pytest.raises(CLIConnectionError):
        transport.write_bytes(b"{}\n", None)
    assert not transport.is_ready()


def test_peer_waits_are_bounded() -> None:
    transport = MemoryTransport()
    with pytest.raises(PeerTimeout):
        transport.wait_connected(timeout=0.01)
    transport.connect()
    with pytest.raises(PeerTimeout):
        transport.peer.read_frame(timeout=0.01)


def test_close_ends_stdout_and_counts_as_killed() -> None:
    transport = MemoryTransport()
    transport.connect()
    transport.close()
    assert list(transport.read_chunks()) == []
    assert transport.exit_code() == -9


def test_a_transport_must_implement_one_of_each_pair() -> None:
    with pytest.raises(TypeError, match="read_chunks\\(\\) or read_messages\\(\\)"):

        class NoReader(Transport):  # noqa: F841 - defining it is the test
            def connect(self) -> None: ...
            def write(self, data: str) -> None: ...
            def close(self) -> None: ...
            def is_ready(self) -> bool: return True
            def end_input(self) -> None: ...


# ----------------------------------------------------------------------------- a user's own transport


class EchoPeer:
    """A custom transport in the official shape only (``write(str)`` + ``read_messages``):
    the "CLI" is this object, answering ``initialize`` and echoing each user turn. Not a
    ``Transport``: the official SDK takes any object with these methods, and so do we."""

    def __init__(self) -> None:
        import queue

        self.outbox: queue.Queue[Optional[Dict[str, Any]]] = queue.Queue()
        self.written: List[Dict[str, Any]] = []
        self.ready = False
        self.closed = 0

    def connect(self) -> None:
        self.ready = True

    def write(self, data: str) -> None:
        if not self.ready:
            raise CLIConnectionError("closed")
        for line in data.splitlines():
            frame = json.loads(line)
            self.written.append(frame)
            if frame["type"] == "control_request":
                self.outbox.put({"type": "control_response", "response": {
                    "subtype": "success", "request_id": frame["request_id"], "response": {"custom": True}}})
            elif frame["type"] == "user":
                text = "echo: " + frame["message"]["content"]
                self.outbox.put({"type": "assistant", "message": {
                    "id": "m1", "type": "message", "role": "assistant", "model": "echo",
                    "content": [{"type": "text", "text": text}], "stop_reason": None, "usage": {}},
                    "parent_tool_use_id": None, "session_id": "s"})
                self.outbox.put({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
                                 "duration_api_ms": 1, "num_turns": 1, "result": text, "session_id": "s"})

    def read_messages(self) -> Iterator[Dict[str, Any]]:
        while True:
            message = self.outbox.get(timeout=10)
            if message is None:
                return
            yield message

    def end_input(self) -> None:
        if self.ready:
            self.ready = False
            self.outbox.put(None)  # the "CLI" exits on stdin EOF

    def close(self) -> None:
        self.closed += 1
        self.end_input()

    def is_ready(self) -> bool:
        return self.ready


class EchoTransport(EchoPeer, Transport):
    """The same, as a ``Transport`` subclass."""


def test_a_custom_transport_drives_query() -> None:
    transport = EchoTransport()
    messages = list(query("hi", options=ClaudeAgentOptions(cli_path="/nonexistent/claude"), transport=transport))
    assert texts(messages) == ["echo: hi"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "echo: hi"
    assert [f["type"] for f in transport.written] == ["control_request", "user"]
    assert transport.written[0]["request"]["subtype"] == "initialize"
    assert transport.closed >= 1


def test_a_custom_transport_drives_the_client_and_protocol_options_still_apply() -> None:
    transport = EchoTransport()
    options = ClaudeAgentOptions(agents={"helper": {"description": "d", "prompt": "p"}})
    with ClaudeSDKClient(options, transport=transport) as client:
        assert client.get_server_info() == {"custom": True}
        client.query("one")
        assert texts(list(client.receive_response())) == ["echo: one"]
        client.query("two")
        assert texts(list(client.receive_response())) == ["echo: two"]
    assert "helper" in transport.written[0]["request"]["agents"]
    assert transport.closed >= 1


def test_a_plain_object_with_the_official_methods_drives_query_and_the_client() -> None:
    peer = EchoPeer()
    messages = list(query("hi", options=ClaudeAgentOptions(cli_path="/nonexistent/claude"), transport=peer))  # type: ignore[arg-type]
    assert texts(messages) == ["echo: hi"] and peer.closed >= 1
    peer = EchoPeer()
    with ClaudeSDKClient(transport=peer) as client:  # type: ignore[arg-type]
        client.query("one")
        assert texts(list(client.receive_response())) == ["echo: one"]
    assert peer.closed >= 1


def test_a_magicmock_transport_is_accepted_and_its_automatic_attributes_are_not_trusted() -> None:
    """As in the official unit tests: a ``MagicMock`` with the methods wired. Its automatic
    ``pid``, ``exit_code()``, ``stop()`` … answer MagicMocks, which count as absent (never a
    process id to signal)."""
    peer = EchoPeer()
    mock = MagicMock()
    for name in ("connect", "write", "read_messages", "end_input", "close", "is_ready"):
        getattr(mock, name).side_effect = getattr(peer, name)
    with ClaudeSDKClient(transport=mock) as client:
        assert client._session is not None and client._session.transport is not None
        assert client._session.transport.pid is None and client._session.transport.exit_code() is None
        client.query("one")
        assert texts(list(client.receive_response())) == ["echo: one"]
    mock.connect.assert_called_once()
    assert mock.close.called and peer.written[0]["request"]["subtype"] == "initialize"


def test_a_transport_object_lacking_methods_is_a_type_error_naming_them() -> None:
    class HalfDone:
        def connect(self) -> None: ...
        def write(self, data: str) -> None: ...

    with pytest.raises(TypeError, match=r"HalfDone lacks read_messages\(\), close\(\), is_ready\(\), end_input\(\)"):
        query("hi", transport=HalfDone())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"object lacks connect\(\)"):
        query("hi", transport=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"str lacks connect\(\)"):
        ClaudeSDKClient(transport="stdio")  # type: ignore[arg-type]
