"""A small callback pool: daemon worker threads, started on demand, bounded shutdown.

Why not ``concurrent.futures.ThreadPoolExecutor``: its workers are joined without a timeout
at interpreter exit, so one user callback that never returns would hang the program
forever. Threads cannot be killed; this pool's workers are daemon threads and ``shutdown``
waits at most ``timeout`` seconds, then reports the callbacks still running and lets the
interpreter exit without them. (Callbacks get a cancellation signal, set before shutdown,
so well-behaved ones return promptly.)
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, List, Tuple

from .._redaction.redactor import redacted_logger
from .green import simple_queue

__all__ = ["CallbackPool"]

logger = redacted_logger("claude_sync.pool")

_STOP = object()
_Job = Tuple[Callable[..., Any], Tuple[Any, ...]]


class CallbackPool:
    """Runs jobs on up to ``max_workers`` threads named ``<name>-<n>``.

    ``submit`` may be called from any thread (the reader thread uses it); it never blocks.
    A job that raises is logged; jobs are expected to handle their own errors.
    """

    def __init__(self, max_workers: int, name: str) -> None:
        """Raises ``ValueError`` if ``max_workers`` < 1."""
        if not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError(f"callback_workers must be an int >= 1, got {max_workers!r}")
        self._max_workers = max_workers
        self._name = name
        self._jobs: Any = simple_queue()[0]  # gevent's when patched (see green)
        self._lock = threading.Lock()
        self._threads: List[threading.Thread] = []
        self._idle = 0
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)``. Raises ``RuntimeError`` after ``shutdown``.

        ``fn`` may return ``(final, *final_args)``: the worker counts itself idle first and
        then calls ``final(*final_args)``. That is for a short last act that provokes the next
        job — answering a CLI request makes the CLI send its next one: counted idle only
        after it, the worker would look busy when that next job arrives, and sequential
        round trips would spread over ``max_workers`` threads. Any other return is ignored.
        """
        with self._lock:
            if self._shutdown:
                raise RuntimeError("callback pool is shut down")
            if self._idle == 0 and len(self._threads) < self._max_workers:
                self._start_worker()
            else:
                self._idle -= 1 if self._idle else 0
        self._jobs.put((fn, args))

    def _start_worker(self) -> None:
        thread = threading.Thread(
            target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            fn, args = job
            try:
                then = fn(*args)
            except BaseException:  # noqa: BLE001 - a job must never kill its worker
                logger.exception("A claude_sync callback job raised")
                then = None
            with self._lock:
                self._idle += 1
            if then.__class__ is tuple:  # the job's final act, now that we count as idle
                try:
                    then[0](*then[1:])
                except BaseException:  # noqa: BLE001
                    logger.exception("A claude_sync callback job raised")

    def in_worker(self) -> bool:
        """True when called from one of this pool's threads."""
        return threading.current_thread() in self._threads

    def shutdown(self, timeout: float) -> List[str]:
        """Stop accepting jobs, let queued ones finish, join workers for at most ``timeout`` s.

        Returns the names of worker threads still busy after the deadline (abandoned; they are
        daemon threads and cannot hold up interpreter exit). The calling worker, if any, is
        not joined.
        """
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(_STOP)
        deadline = time.monotonic() + timeout
        current = threading.current_thread()
        stuck = []
        for thread in threads:
            if thread is current:
                continue
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                stuck.append(thread.name)
        if stuck:
            logger.error(
                "claude_sync callbacks still running after %.1fs at close, abandoned: %s",
                timeout,
                ", ".join(stuck),
            )
        return stuck

    @property
    def thread_count(self) -> int:
        with self._lock:
            return len(self._threads)
