"""The reader → consumer hand-off: nothing is lost or doubled (Ctrl-C: ``test_ctrl_c.py``)."""

from __future__ import annotations

import threading
import time
from typing import List

import pytest
from helpers import wait_until

from claude_sync._engine.mailbox import Mailbox

# ----------------------------------------------------------------------------- the mailbox


def test_wait_returns_at_once_when_items_are_there() -> None:
    box = Mailbox()
    box.put("a")
    assert box.wait(10.0) is True
    assert list(box.items) == ["a"]  # waiting never takes


def test_wait_times_out_empty() -> None:
    box = Mailbox()
    started = time.monotonic()
    assert box.wait(0.05) is False
    assert time.monotonic() - started >= 0.04


def test_a_sleeping_consumer_is_rung_after_direct_appends() -> None:
    box = Mailbox()
    woke: List[bool] = []
    consumer = threading.Thread(target=lambda: woke.append(box.wait(30.0)), name="claude_sync-test-consumer")
    consumer.start()
    wait_until(lambda: box._sleeping)
    box.items.append("x")
    box.ring_if_sleeping()
    consumer.join(10)
    assert woke == [True]


def test_no_ring_while_the_consumer_is_busy() -> None:
    box = Mailbox()
    box.items.append("x")
    box.ring_if_sleeping()
    assert box._bell.empty()  # a busy stream costs no doorbell traffic


def test_an_interrupted_wait_leaves_every_item_in_place() -> None:
    box = Mailbox()

    class InterruptedBell:
        """The doorbell as a Ctrl-C handled by another thread makes it look: the wait
        returns because an item arrived, and the interrupt surfaces as it returns."""

        def get(self, block: bool, timeout: float) -> None:
            box.items.append("result")
            raise KeyboardInterrupt

    box._bell = InterruptedBell()  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        box.wait(1.0)
    assert list(box.items) == ["result"]
    assert box._sleeping is False
