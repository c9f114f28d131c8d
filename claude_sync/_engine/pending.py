"""The futures table: our control requests waiting for the CLI's answers.

Rule 3 of the design: a request is registered here *before* it is written; whoever pops it
completes it. The reader thread resolves answers (``resolve``) and, at end of stream, fails
whatever still waits (``fail_all``); the requesting thread waits on its own future in short
slices (``wait``), so Ctrl-C stays responsive. A late or unknown answer is logged, never fatal.

Thread-safety: every method may be called from any thread; the table has its own lock.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import Callable, Dict, Optional

from .._redaction.redactor import redacted_logger
from .._wire.errors import ClaudeSDKError, CLIConnectionError, ControlTimeoutError
from .._wire.protocol import ControlResponseReceived

__all__ = ["PendingRequests", "wait_answer"]

logger = redacted_logger("claude_sync.session")

WAIT_SLICE = 0.5
"""A waiting request wakes this often, so a Ctrl-C in the waiting thread is seen promptly."""


class PendingRequests:
    """Request id → the ``Future`` its answer completes."""

    def __init__(self) -> None:
        self._futures: Dict[str, Future[ControlResponseReceived]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.id_prefix = os.urandom(4).hex()
        """Random per connection: answers meant for another connection never match."""

    def new_id(self) -> str:
        return f"req_{next(self._ids)}_{self.id_prefix}"

    def register(self, request_id: str) -> Future[ControlResponseReceived]:
        """A new future for ``request_id`` (register before writing the request)."""
        future: Future[ControlResponseReceived] = Future()
        with self._lock:
            self._futures[request_id] = future
        return future

    def forget(self, request_id: str) -> None:
        """Drop ``request_id`` (answered, timed out or failed: its waiter is done)."""
        with self._lock:
            self._futures.pop(request_id, None)

    def __bool__(self) -> bool:
        return bool(self._futures)

    def resolve(self, response: ControlResponseReceived) -> None:
        """Reader thread: complete the request ``response`` answers (unknown ids are logged)."""
        with self._lock:
            future = self._futures.get(response.request_id)
        if future is None:
            logger.debug("Control response for unknown or expired request %s", response.request_id)
            return
        if not future.done():
            future.set_result(response)

    def fail_all(self, error: BaseException) -> None:
        """Fail every waiting request with ``error`` (any thread; the end of stream)."""
        with self._lock:
            futures = list(self._futures.values())
        for future in futures:
            if not future.done():
                future.set_exception(error)

    @staticmethod
    def wait(
        future: Future[ControlResponseReceived], timeout: float, subtype: str, request_id: str
    ) -> ControlResponseReceived:
        """The answer, waiting at most ``timeout`` s in short slices (the requesting thread).

        Raises ``ControlTimeoutError`` when no answer came in time, or the exception the
        future was failed with (the end of stream's error).
        """
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ControlTimeoutError(
                    f"No answer to control request {subtype!r} within {timeout}s",
                    subtype=subtype,
                    request_id=request_id,
                    timeout=timeout,
                )
            try:
                return future.result(min(remaining, WAIT_SLICE))
            except FutureTimeoutError:
                continue


def wait_answer(
    future: Future[ControlResponseReceived],
    timeout: float,
    subtype: str,
    request_id: str,
    fault: Callable[[], Optional[BaseException]],
    reported: Callable[[], Optional[ClaudeSDKError]],
) -> ControlResponseReceived:
    """``PendingRequests.wait`` (the requesting thread), and what it raises when the stream ended
    first: what the user's transport raised, as itself (``fault()``, as in the official SDK);
    else the ``ResultError`` of an error result reported before the end (``reported()``: a
    refused resume names the CLI's own reason); else a ``CLIConnectionError`` naming the request.
    ``ControlTimeoutError`` when no answer came in time."""
    try:
        return PendingRequests.wait(future, timeout, subtype, request_id)
    except ControlTimeoutError:
        raise
    except ClaudeSDKError as exc:
        if exc is fault():
            raise
        error = reported()
        if error is not None:
            raise error from exc
        raise CLIConnectionError(f"The CLI ended while waiting for control request {subtype!r}: {exc}") from exc

