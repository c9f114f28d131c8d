"""What the I/O shell needs to also run under a monkey-patched gevent host (``gunicorn -k
gevent``, ``celery -P gevent``), where our "threads" are greenlets on one hub.

- ``simple_queue()``: the C ``_queue.SimpleQueue`` (imported directly, it spares ``import
  claude_sync`` three modules) blocks the whole hub in ``get`` and cannot be patched. When the
  ``queue`` module is loaded we take ``queue.SimpleQueue`` from it at the time the queue is made:
  that is gevent's class once ``monkey.patch_all()`` ran, and the same C class otherwise.
- ``wait_readable(fd, timeout)``: gevent's ``subprocess`` makes our pipes non-blocking, so a read
  can fail with "try again" (``BlockingIOError``) — not end of file. The reader then waits for
  the fd with ``select`` (gevent's cooperative one when patched) and reads again.

Pure helpers; any thread.
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Tuple, Type

__all__ = ["simple_queue", "wait_readable"]


def simple_queue() -> Tuple[Any, Type[Exception]]:
    """A new ``SimpleQueue`` suited to the host, and the ``Empty`` its timed ``get`` raises."""
    queue_module = sys.modules.get("queue")
    if queue_module is not None:
        return queue_module.SimpleQueue(), queue_module.Empty
    from _queue import Empty, SimpleQueue

    return SimpleQueue(), Empty


def wait_readable(fd: int, timeout: Optional[float]) -> bool:
    """Block until ``fd`` is readable (or at EOF/hang-up) or ``timeout`` passes; False if the
    fd was closed under us (teardown)."""
    import select  # looked up now: gevent's once patched

    try:
        select.select([fd], [], [], timeout)
    except (OSError, ValueError):
        return False
    return True
