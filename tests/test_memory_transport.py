"""The in-memory transport on its own: both directions, EOF, exit status, timeouts."""

from __future__ import annotations

import pytest

from claude_sync import CLIConnectionError, Transport
from claude_sync._io.memory import MemoryTransport, PeerTimeout


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
