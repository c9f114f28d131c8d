"""The reader → consumer hand-off: a deque of items plus a doorbell.

Why not a ``queue.SimpleQueue``: ``item = q.get()`` removes the item inside a call, and
CPython checks for pending signals when a call returns. A Ctrl-C that some other thread
received while the consumer waited therefore surfaces as ``KeyboardInterrupt`` right after
``get`` returned — and the item it returned is gone. With a turn's ``ResultMessage`` that
leaves the session waiting for a result that was already read.

Here the items stay in ``items`` until the consumer holds them: it peeks with ``items[0]``
and removes with ``del items[0]`` immediately before ``yield`` (no call in between, so on
CPython 3.10+ no signal check either; 3.9 checks after the ``del``, a window of one bytecode
that 30 interrupt-storm runs of ~130 interrupts each never hit). Waiting happens on a separate
doorbell, and losing a doorbell ring to an interrupt costs nothing: the consumer looks at
``items`` before it waits.

Threads: any thread may ``put`` (the reader, and ``close`` for the end sentinel); exactly one
consumer at a time calls ``wait`` (the session's callers serialise themselves).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Deque

from .green import simple_queue  # the C queue unless gevent patched `queue` (see green)

__all__ = ["Mailbox"]


class Mailbox:
    """An unbounded FIFO whose consumer can be interrupted without losing an item."""

    __slots__ = ("items", "_bell", "_empty", "_sleeping")

    def __init__(self) -> None:
        self.items: Deque[Any] = deque()
        """Read by the consumer directly: ``items[0]`` to peek, ``del items[0]`` to take."""
        self._bell, self._empty = simple_queue()
        self._sleeping = False

    def put(self, item: Any) -> None:
        """Append one item and wake the consumer (any thread; never blocks)."""
        self.items.append(item)
        self._bell.put(None)

    def ring_if_sleeping(self) -> None:
        """Wake the consumer after items were appended to ``items`` directly (producer thread).

        The reader appends a whole chunk's messages with ``items.append`` and rings once: a
        ring only when the consumer said it is about to sleep, so a busy stream costs no
        doorbell traffic at all.
        """
        if self._sleeping:
            self._sleeping = False
            self._bell.put(None)

    def wait(self, timeout: float) -> bool:
        """Block until an item may be there or ``timeout`` passes (consumer thread).

        Returns True if ``items`` is non-empty. Interruptible (``KeyboardInterrupt`` leaves
        every item in place). Spurious wake-ups are possible and harmless.
        """
        # Announce the sleep, then look again: a producer that appended before reading the
        # flag is seen by this look; one that appends after it rings.
        self._sleeping = True
        if self.items:
            self._sleeping = False
            return True
        try:
            self._bell.get(True, timeout)
        except self._empty:
            pass
        finally:
            self._sleeping = False
        return bool(self.items)
