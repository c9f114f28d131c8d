"""Without gevent installed: the two mechanisms gevent hosts rely on.

(The full check, several greenlets against the real CLI, is ``e2e/test_gevent_e2e.py``.)
"""

from __future__ import annotations

import os
import queue
from typing import Any, List

import pytest
from helpers import wait_until

from claude_sync._engine.callback_pool import CallbackPool
from claude_sync._engine.mailbox import Mailbox
from claude_sync._engine.process import SubprocessTransport

pytestmark = pytest.mark.skipif(os.name != "posix", reason="non-blocking pipes are POSIX here")


def test_try_again_on_a_non_blocking_stdout_is_not_end_of_file() -> None:
    # gevent's subprocess makes the pipes non-blocking: a read before the CLI wrote anything
    # fails with EAGAIN, which must mean "wait", not "the CLI closed its stdout".
    transport = SubprocessTransport(["/bin/sh", "-c", "read line; echo late"])
    transport.connect()
    try:
        assert transport._proc is not None and transport._proc.stdout is not None
        os.set_blocking(transport._proc.stdout.fileno(), False)
        transport.write_bytes(b"go\n", timeout=5)
        out = b""
        while not out.endswith(b"\n"):
            chunk = transport.read_chunk()
            assert chunk, f"read_chunk reported EOF after {out!r}"
            out += chunk
        assert out == b"late\n"
        assert transport.read_chunk() == b""  # and the real EOF still is one
    finally:
        transport.stop(grace=1.0)
        transport.close()


class _RecordingQueue(queue.SimpleQueue):  # type: ignore[type-arg]
    made: List[Any] = []

    def __init__(self) -> None:
        super().__init__()
        _RecordingQueue.made.append(self)


def test_queues_come_from_the_queue_module_when_it_is_patched(monkeypatch: Any) -> None:
    # gevent's monkey.patch_all() replaces queue.SimpleQueue; the C _queue.SimpleQueue would
    # block the whole hub.
    _RecordingQueue.made.clear()
    monkeypatch.setattr(queue, "SimpleQueue", _RecordingQueue)
    mailbox = Mailbox()
    pool = CallbackPool(1, "claude_sync-test-green")
    try:
        assert len(_RecordingQueue.made) == 2
        done: List[int] = []
        pool.submit(done.append, 1)
        wait_until(lambda: done == [1])
        mailbox.put("x")
        assert mailbox.wait(1.0) and list(mailbox.items) == ["x"]
        assert mailbox.wait(0.01) is True
        mailbox.items.clear()
        assert mailbox.wait(0.01) is False  # the timed get raises the module's Empty
    finally:
        pool.shutdown(2.0)


def test_a_request_signal_is_an_event_whose_condition_waits_for_first_use() -> None:
    import threading

    from claude_sync._engine.green import request_signal

    signal = request_signal()
    assert isinstance(signal, threading.Event) and not signal.is_set()
    assert "_made_cond" not in vars(signal)  # is_set alone never builds the condition
    assert signal.wait(0.01) is False
    signal.set()
    assert signal.is_set() and signal.wait(0) is True
    signal.clear()
    assert not signal.is_set()


def test_a_request_signal_wakes_every_waiter_when_set_from_another_thread() -> None:

    from claude_sync._engine.green import request_signal

    for _ in range(20):  # fresh signals: the waiters race to build the condition
        _wake_four_waiters(request_signal())


def _wake_four_waiters(signal: Any) -> None:
    import threading

    woke: List[bool] = []
    start = threading.Barrier(5)

    def wait_for_it() -> None:
        start.wait(5)
        woke.append(signal.wait(10))

    waiters = [threading.Thread(target=wait_for_it, name=f"claude_sync-test-wait-{i}") for i in range(4)]
    for thread in waiters:
        thread.start()
    start.wait(5)
    signal.set()
    for thread in waiters:
        thread.join(10)
    assert woke == [True] * 4


def test_a_request_signal_is_the_patched_event_class_when_threading_is_patched(monkeypatch: Any) -> None:
    # gevent's patch_all() replaces threading.Event; its Event must be used then, as before.
    import threading

    from claude_sync._engine.green import request_signal

    class _GreenEvent(threading.Event):
        pass

    monkeypatch.setattr(threading, "Event", _GreenEvent)
    assert type(request_signal()) is _GreenEvent
