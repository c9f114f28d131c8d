"""What the I/O shell needs to also run under a monkey-patched gevent host (``gunicorn -k
gevent``, ``celery -P gevent``), where our "threads" are greenlets on one hub.

- ``simple_queue()``: the C ``_queue.SimpleQueue`` (imported directly, it spares ``import
  claude_sync`` three modules) blocks the whole hub in ``get`` and cannot be patched. When the
  ``queue`` module is loaded we take ``queue.SimpleQueue`` from it at the time the queue is made:
  that is gevent's class once ``monkey.patch_all()`` ran, and the same C class otherwise.
- ``wait_readable(fd, timeout)``: gevent's ``subprocess`` makes our pipes non-blocking, so a read
  can fail with "try again" (``BlockingIOError``) — not end of file. The reader then waits for
  the fd with ``select`` (gevent's cooperative one when patched) and reads again.
- ``readable(fds, timeout)``: which of several fds are readable (a reader that a wake pipe
  can stop without reading a byte of its stream: the shared pool's leased transport).
- ``request_signal()``: a ``threading.Event`` for one CLI request's cancellation (gevent's
  class when patched). The stdlib one is made with its condition deferred until something
  sets, clears or waits on it: every request needs a signal, few are ever cancelled or waited
  on, and building the condition costs a third of the reader's Python work for a request.

Pure helpers; any thread.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Optional, Set, Tuple, Type

__all__ = ["readable", "request_signal", "simple_queue", "wait_readable"]

_STDLIB_EVENT = threading.Event


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


def readable(fds: Tuple[int, ...], timeout: Optional[float]) -> Set[int]:
    """Those of ``fds`` that are readable (or at EOF, hung up, closed) within ``timeout``
    seconds (None: no bound): ``poll`` where there is one (no ``FD_SETSIZE`` limit; gevent's
    patching removes it), else ``select`` (gevent's cooperative one once patched). Raises
    ``OSError``/``ValueError`` as they do."""
    import select  # looked up now: gevent's once patched

    poll = getattr(select, "poll", None)
    if poll is not None:
        poller = poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        events = poller.poll(None if timeout is None else max(0, int(-(-timeout * 1000 // 1))))
        return {fd for fd, _ in events}
    ready, _, _ = select.select(list(fds), [], [], timeout)
    return set(ready)


def request_signal() -> threading.Event:
    """A new, clear ``threading.Event`` (gevent's when ``threading`` is patched); any thread."""
    if threading.Event is _STDLIB_EVENT:
        return _Signal()
    return threading.Event()


class _Signal(threading.Event):
    """A stdlib ``Event`` whose ``Condition`` is made on first ``set``/``clear``/``wait``
    (``is_set`` reads only the flag). ``dict.setdefault`` keeps one condition when two
    threads make it at once; no lock, so nothing can be left held across a fork."""

    def __init__(self) -> None:  # the base class would make the condition now
        self._flag = False

    @property
    def _cond(self) -> threading.Condition:
        made = self.__dict__
        cond = made.get("_made_cond")
        if cond is None:
            cond = made.setdefault("_made_cond", threading.Condition(threading.Lock()))
        return cond  # type: ignore[no-any-return]
