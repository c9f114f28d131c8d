"""One CLI process and the threads around it: the I/O shell over the pure protocol core.

Threads (all named ``claude_sync-…``, all joined — bounded — by ``close``):

- ``claude_sync-reader-<pid>``: reads stdout, frames, decodes, routes. Messages go to an
  unbounded ``Mailbox`` (a deque and a doorbell, see ``_mailbox``); responses to our control
  requests resolve ``Future``\\ s in the futures table; requests from the CLI go to the
  callback pool; cancels set signals. It never runs user code, never writes to stdin, and
  blocks only on the pipe — or, deliberately, on flow control (below).
- ``claude_sync-stderr-<pid>`` (in the transport): drains stderr into a bounded tail.
- ``claude_sync-callback-<n>``: the pool serving CLI requests (permissions, hooks, MCP).
- the caller's threads: iterate messages, send control requests, close.

Flow control without deadlock. The queue is unbounded, so the reader can always deliver
what somebody waits for. Memory is bounded differently: when the consumer's backlog passes
a high-water mark (``HIGH_WATER_MESSAGES`` messages or ``HIGH_WATER_BYTES`` of wire data),
the reader stops reading stdout, so the pipe fills and the CLI blocks on its next write.
It resumes when the consumer drains below half the mark, **and whenever one of our control
requests is pending** (registering a request wakes it), and on close. So a thread that calls
``interrupt()`` or any control method while nobody drains always gets its answer — at the
cost of buffering what the CLI writes before that answer.

When the reader ends (EOF, crash, corrupt line) it records a sticky terminal error (None for
a clean end), fails every pending future, and enqueues the end-of-stream sentinel once: every
waiter wakes, messages queued before it are still delivered first.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple

from .._core.errors import (
    ClaudeSDKError,
    CLIConnectionError,
    ControlRequestError,
    ControlTimeoutError,
    ReceiveTimeoutError,
    UsageError,
)
from .._core.framing import LineFramer, OversizedLine, encode_frame
from .._core.messages import ResultMessage
from .._core.options import DEFAULT_MAX_BUFFER_SIZE, ClaudeAgentOptions
from .._core.protocol import (
    CONTROL_EVENT_TYPES,
    ControlCancelReceived,
    ControlRequestReceived,
    ControlResponseReceived,
    NoiseLineSkipped,
    OversizedLineSkipped,
    TurnLedger,
    control_error_frame,
    control_request_frame,
    control_success_frame,
    decode_line,
    exit_error,
)
from .mailbox import Mailbox
from .pool import CallbackPool
from .wire_log import WireTap, wire_tap

if TYPE_CHECKING:  # pragma: no cover
    from .._core.command import OptionsPlan, SpawnPlan
    from .process import SubprocessTransport

__all__ = ["Session", "END"]

logger = logging.getLogger("claude_sync.session")

HIGH_WATER_MESSAGES = 1000
HIGH_WATER_BYTES = 1 << 20
WAIT_SLICE = 0.1
"""Waits are cut into slices this long so Ctrl-C is seen promptly (and on every platform)."""


class _End:
    """The end-of-stream sentinel (one per session, re-queued so every waiter sees it)."""

    def __repr__(self) -> str:
        return "<end of stream>"


END = _End()

CliRequestHandler = Callable[[ControlRequestReceived, threading.Event], Optional[Dict[str, Any]]]
"""Serves one CLI request on a pool thread; returns the success payload or raises."""


class NoResponse(Exception):
    """Raised by a handler when the request must get no control response at all."""


class Session:
    """One connected CLI process. See the module docstring for the threading model."""

    def __init__(
        self,
        options: ClaudeAgentOptions,
        *,
        handlers: Optional[Dict[str, CliRequestHandler]] = None,
        initialize_fields: Optional[Dict[str, Any]] = None,
        plan: Optional[OptionsPlan] = None,
        environ: Optional[Dict[str, str]] = None,
    ) -> None:
        self.options = options
        handlers = dict(handlers or {})
        # "@reader:<subtype>" entries are bookkeeping run on the reader thread itself.
        self._reader_hooks = {k[len("@reader:"):]: handlers.pop(k) for k in list(handlers) if k.startswith("@reader:")}
        self._handlers = handlers
        self._extra_initialize = dict(initialize_fields or {})
        self._options_plan = plan  # interpret_options(options), when the caller made it
        self._environ = environ
        self._transport: Optional[SubprocessTransport] = None
        self._temp_files: List[str] = []
        self._mailbox = Mailbox()
        self._framer = LineFramer(options.max_buffer_size or DEFAULT_MAX_BUFFER_SIZE)
        self._pool = CallbackPool(options.callback_workers, "claude_sync-callback")
        self._lock = threading.Lock()
        self._futures: Dict[str, Future[ControlResponseReceived]] = {}
        self._inflight: Dict[str, threading.Event] = {}
        self._ids = itertools.count(1)
        self._id_prefix = os.urandom(4).hex()
        self._reader: Optional[threading.Thread] = None
        self._wire: Optional[WireTap] = None  # set at connect when claude_sync.wire is at DEBUG
        self._flow = threading.Condition(threading.Lock())
        self._paused = False
        self._resume_below = 0
        self.frames_seen = 0
        self.ledger = TurnLedger()
        self.last_result: Optional[ResultMessage] = None
        self.terminal_error: Optional[BaseException] = None
        self.server_info: Optional[Dict[str, Any]] = None
        self._connected = False
        self._closing = False
        self._close_done = threading.Event()
        self._close_started = False
        self.close_rung: Optional[str] = None

    # ------------------------------------------------------------------ connect

    def connect(self) -> Dict[str, Any]:
        """Spawn the CLI, start the reader, run the ``initialize`` handshake.

        Returns the initialize response. Raises ``CLINotFoundError``, ``CLIConnectionError``,
        ``ProcessError`` (the CLI died during start-up, with its stderr tail),
        ``ControlTimeoutError`` (no answer within ``initialize_timeout``), ``UsageError``
        (connect called twice). On failure everything started so far is torn down.
        """
        with self._lock:
            if self._connected or self._close_started:
                raise UsageError("this session was already connected; create a new one")
            self._connected = True
        try:
            plan = self._plan()
            self._start_process(plan)
            payload = dict(plan.initialize_fields)
            payload.update(self._extra_initialize)
            response = self.request("initialize", payload, timeout=self.options.initialize_timeout)
        except BaseException:
            self.close()
            raise
        self.server_info = response
        return response

    def _plan(self) -> SpawnPlan:
        from .._core.command import build_spawn_plan, find_cli  # first connect only, not at import

        cli = find_cli(self.options.cli_path)
        environ = self._environ if self._environ is not None else dict(os.environ)
        return build_spawn_plan(self.options, cli, environ=environ, interpreted=self._options_plan)

    def _start_process(self, plan: SpawnPlan) -> None:
        from .process import SubprocessTransport  # subprocess machinery: first connect only

        argv = [self._materialize(arg) for arg in plan.argv]
        self._transport = SubprocessTransport(
            argv, env=plan.env, cwd=plan.cwd, user=plan.user, stderr_callback=self.options.stderr
        )
        self._transport.start()
        self._wire = wire_tap(f"cli[{self._transport.pid}]")
        self._reader = threading.Thread(
            target=self._read_loop, name=f"claude_sync-reader-{self._transport.pid}", daemon=True
        )
        self._reader.start()

    def _materialize(self, arg: Any) -> str:
        """Turn a ``FileArg`` into a private temp file (deleted on close)."""
        from .._core.command import FileArg

        if not isinstance(arg, FileArg):
            return str(arg)
        import tempfile

        fd, path = tempfile.mkstemp(prefix="claude_sync-", suffix=arg.suffix)
        self._temp_files.append(path)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(arg.content)
        return path

    @property
    def pid(self) -> Optional[int]:
        return self._transport.pid if self._transport else None

    @property
    def transport(self) -> Optional[SubprocessTransport]:
        return self._transport

    # ------------------------------------------------------------------ writing

    def write_frame(self, frame: Dict[str, Any], timeout: Optional[float] = None) -> None:
        """Encode and write one frame (any thread). Raises ``CLIConnectionError`` (chained to
        the terminal error when the CLI is gone) or ``UsageError`` after close."""
        transport = self._transport
        if transport is None:
            raise UsageError("the session is not connected")
        data = encode_frame(frame)
        if self._wire is not None:
            self._wire.sent(data)
        try:
            transport.write(data, self.options.control_timeout if timeout is None else timeout)
        except CLIConnectionError as exc:
            if self._closing:
                raise UsageError("the session is closed") from exc
            # A broken pipe usually means the CLI exited; its exit status and stderr, which
            # say why, arrive with the reader's end: wait (bounded) for it to name them.
            self._await_reader_end(2 * self.options.close_timeout)
            if self.terminal_error is not None:
                raise CLIConnectionError(f"{exc} (the CLI has ended: {self.terminal_error})") from self.terminal_error
            raise

    def _await_reader_end(self, timeout: float) -> None:
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout)

    def send_user_message(self, frame: Dict[str, Any], timeout: Optional[float] = None) -> None:
        """Write a user frame and count it in the turn ledger (any thread)."""
        with self._lock:
            self.ledger.sent_user_message()
        try:
            self.write_frame(frame, timeout)
        except BaseException:
            with self._lock:
                self.ledger.user_messages -= 1
            raise

    def close_stdin(self) -> None:
        """Send EOF to the CLI (idempotent, any thread)."""
        if self._transport is not None:
            self._transport.close_stdin()

    # ------------------------------------------------------------------ control requests

    def new_request_id(self) -> str:
        return f"req_{next(self._ids)}_{self._id_prefix}"

    def request(
        self, subtype: str, payload: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """Send a control request and wait for its answer (any thread except the reader).

        Returns the CLI's ``response`` payload (``{}`` when it sends none). Raises
        ``ControlRequestError`` (the CLI's error text), ``ControlTimeoutError`` (no answer
        within ``timeout``, default ``control_timeout``), ``CLIConnectionError`` (the CLI
        ended first), ``UsageError`` (closed).
        """
        timeout = self.options.control_timeout if timeout is None else timeout
        request_id = self.new_request_id()
        future: Future[ControlResponseReceived] = Future()
        with self._lock:
            if self._closing:
                raise UsageError("the session is closed")
            if self.terminal_error is not None or (self._reader is not None and not self._reader.is_alive()):
                raise CLIConnectionError(f"the CLI has ended: {self.terminal_error}") from self.terminal_error
            self._futures[request_id] = future
        self._wake_reader()
        try:
            self.write_frame(control_request_frame(request_id, subtype, payload), timeout)
            response = self._wait_future(future, timeout, subtype, request_id)
        finally:
            with self._lock:
                self._futures.pop(request_id, None)
        if not response.ok:
            raise ControlRequestError(response.error or "error", subtype=subtype, request_id=request_id)
        return response.payload if response.payload is not None else {}

    def _wait_future(
        self, future: Future[ControlResponseReceived], timeout: float, subtype: str, request_id: str
    ) -> ControlResponseReceived:
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
                return future.result(min(remaining, WAIT_SLICE * 5))
            except FutureTimeoutError:
                continue
            except ClaudeSDKError as exc:
                raise CLIConnectionError(
                    f"The CLI ended while waiting for control request {subtype!r}: {exc}"
                ) from exc

    # ------------------------------------------------------------------ receiving

    def messages(
        self, *, timeout: Optional[float] = None, idle_timeout: Optional[float] = None
    ) -> Iterator[Any]:
        """Yield queued messages until end of stream (caller's thread).

        At end of stream, raises the sticky terminal error if there is one, else returns.
        ``timeout`` bounds the whole iteration, ``idle_timeout`` the silence between two
        frames (any stdout line counts); both raise ``ReceiveTimeoutError`` and leave the
        session running.
        """
        items = self._mailbox.items
        wait = self._mailbox.wait
        deadline = None if timeout is None else time.monotonic() + timeout
        idle = _IdleWatch(self, idle_timeout)
        while True:
            if not items and not wait(WAIT_SLICE):
                self._check_timeouts(deadline, timeout, idle)
                continue
            item = items[0]
            if item is END:  # stays queued: every later waiter sees it too
                if self.terminal_error is not None:
                    raise self.terminal_error
                return
            if self._paused and len(items) <= self._resume_below:
                self._wake_reader()
            # Take it only now, with nothing that checks for signals between the removal
            # and the yield: a Ctrl-C anywhere above leaves the item queued (see _mailbox).
            del items[0]
            yield item
            if deadline is not None:
                self._check_timeouts(deadline, timeout, None)

    def requeue_front(self, items: List[Any]) -> None:
        """Put messages taken by ``messages()`` back at the head of the queue, in order
        (the consumer's thread, e.g. a layer that buffered them when Ctrl-C arrived)."""
        self._mailbox.items.extendleft(reversed(items))

    def _check_timeouts(self, deadline: Optional[float], timeout: Optional[float], idle: Optional[_IdleWatch]) -> None:
        if deadline is not None and time.monotonic() >= deadline:
            raise ReceiveTimeoutError(f"No complete response within {timeout}s", kind="total", timeout=timeout)
        if idle is not None:
            idle.check()

    # ------------------------------------------------------------------ reader thread

    def _read_loop(self) -> None:
        """The reader thread's body. Never raises; ends with the sentinel queued."""
        assert self._transport is not None
        error: Optional[BaseException] = None
        try:
            read = self._transport.read_chunk
            self._pump(read if self._wire is None else self._wire.reading(read))
        except ClaudeSDKError as exc:
            error = exc
        except BaseException as exc:  # noqa: BLE001 - a reader bug must still wake everyone
            logger.exception("claude_sync reader thread failed")
            error = CLIConnectionError(f"internal error in the claude_sync reader thread: {exc!r}")
            error.__cause__ = exc
        self._finish(error)

    def _pump(self, read: Callable[[], bytes]) -> None:
        feed = self._framer.feed
        items = self._mailbox.items
        put = items.append
        ring = self._mailbox.ring_if_sleeping
        route = self._route_control
        control_types = CONTROL_EVENT_TYPES
        result_type = ResultMessage
        while True:
            chunk = read()
            if not chunk:
                break
            lines = feed(chunk)
            if self._framer.oversized:
                self._report_oversized()
            puts = 0
            for line in lines:
                item = decode_line(line)
                if item.__class__ in control_types:
                    route(item)
                    continue
                if item.__class__ is result_type:
                    self._on_result(item)
                put(item)
                puts += 1
            self.frames_seen += len(lines)
            if puts:
                ring()
                backlog = len(items)
                if backlog > HIGH_WATER_MESSAGES or backlog * len(chunk) > HIGH_WATER_BYTES * puts:
                    self._pause(len(chunk) // puts or 1)
        tail = self._framer.finish()
        if tail is not None and tail.strip():
            # A line cut off by the CLI's exit: decode it so a corrupt one is a typed error.
            item = decode_line(tail)
            if item.__class__ in control_types:
                route(item)
            else:
                self._mailbox.put(item)

    def _on_result(self, result: ResultMessage) -> None:
        with self._lock:
            self.ledger.result_received()
            self.last_result = result

    def _report_oversized(self) -> None:
        for record in self._framer.oversized:
            self._mailbox.put(_oversized_message(record))
            logger.warning(
                "Skipped a %d-byte stdout line over the %d-byte max_buffer_size (starts %r)",
                record.size,
                record.limit,
                record.prefix[:80],
            )
        self._framer.oversized.clear()

    def _pause(self, bytes_per_message: int) -> None:
        """Flow control: stop reading while the consumer is far behind (see module doc)."""
        resume_below = min(HIGH_WATER_MESSAGES, HIGH_WATER_BYTES // bytes_per_message) // 2
        with self._flow:
            self._resume_below = resume_below
            self._paused = True
            while (
                len(self._mailbox.items) > resume_below
                and not self._futures
                and not self._closing
            ):
                self._flow.wait(WAIT_SLICE * 5)
            self._paused = False

    def _wake_reader(self) -> None:
        with self._flow:
            self._flow.notify_all()

    def _route_control(self, event: Any) -> None:
        """Reader thread: act on one control event without blocking or running user code."""
        cls = event.__class__
        if cls is ControlResponseReceived:
            self._resolve(event)
        elif cls is ControlRequestReceived:
            self._dispatch_cli_request(event)
        elif cls is ControlCancelReceived:
            self._cancel_cli_request(event.request_id)
        elif cls is NoiseLineSkipped:
            logger.warning("Skipped a non-JSON stdout line from the CLI: %r", event.text[:200])

    def _resolve(self, response: ControlResponseReceived) -> None:
        with self._lock:
            future = self._futures.get(response.request_id)
        if future is None:
            logger.debug("Control response for unknown or expired request %s", response.request_id)
            return
        if not future.done():
            future.set_result(response)

    def _dispatch_cli_request(self, event: ControlRequestReceived) -> None:
        signal = threading.Event()
        with self._lock:
            if self._closing:
                return
            self._inflight[event.request_id] = signal
        if self._reader_hooks:
            pre = self._reader_hooks.get(event.subtype)
            if pre is not None:
                pre(event, signal)  # bookkeeping only (e.g. MCP routing and cancel notifications)
        self._pool.submit(self._serve_cli_request, event, signal)

    def _cancel_cli_request(self, request_id: str) -> None:
        with self._lock:
            signal = self._inflight.pop(request_id, None)
        if signal is None:
            logger.debug("control_cancel_request for %s, which is not in flight", request_id)
            return
        signal.set()

    # ------------------------------------------------------------------ callback pool

    def _serve_cli_request(self, event: ControlRequestReceived, signal: threading.Event) -> Optional[Tuple[Any, ...]]:
        """Pool thread: run the handler for one CLI request; returns the answer's write for
        the pool to run once the worker counts as idle (None: cancelled, nothing to send)."""
        if event.request_id not in self._inflight:
            return None  # cancelled before it started (a cancel drops the entry): not run
        handler = self._handlers.get(event.subtype)
        try:
            if handler is None:
                raise ClaudeSDKError(
                    f"claude_sync does not handle control request subtype {event.subtype!r}"
                )
            payload = handler(event, signal)
            frame = control_success_frame(event.request_id, payload if payload is not None else {})
        except NoResponse:
            self._forget(event.request_id)
            return None
        except Exception as exc:  # noqa: BLE001 - any failure becomes an error response
            if not isinstance(exc, ClaudeSDKError):
                logger.error("Handler for CLI request %r failed: %r", event.subtype, exc)
            frame = control_error_frame(event.request_id, str(exc) or type(exc).__name__)
        if not self._forget(event.request_id):
            return None  # cancelled meanwhile: the CLI wants no answer
        return (self._answer, event.request_id, frame)  # the answer provokes the next request

    def _answer(self, request_id: str, frame: Dict[str, Any]) -> None:
        """Pool thread: write the answer to a CLI request."""
        try:
            self.write_frame(frame)
        except ClaudeSDKError as exc:
            logger.debug("Could not answer CLI request %s: %s", request_id, exc)

    def _forget(self, request_id: str) -> bool:
        """Drop an in-flight entry; False if it was already gone (cancelled)."""
        with self._lock:
            return self._inflight.pop(request_id, None) is not None

    def signal_all_inflight(self) -> None:
        """Set every in-flight callback's signal (interrupt, close). Any thread."""
        with self._lock:
            signals = list(self._inflight.values())
        for signal in signals:
            signal.set()

    @property
    def callback_thread_count(self) -> int:
        return self._pool.thread_count

    def in_callback_thread(self) -> bool:
        return self._pool.in_worker()

    # ------------------------------------------------------------------ end of stream

    def _finish(self, error: Optional[BaseException]) -> None:
        """Reader thread, last act: compute the terminal error, wake every waiter."""
        transport = self._transport
        assert transport is not None
        if error is None and not self._closing:
            grace = self.options.close_timeout
            returncode = transport.wait(grace)
            transport.join_stderr(grace)
            with self._lock:
                expecting = self.ledger.turn_running
                last = self.last_result
            error = exit_error(
                returncode,
                stderr_tail=transport.stderr_tail(),
                last_result=last,
                expecting_result=expecting,
                killed_by_us=self._closing or transport.stopped_by_us,
            )
        elif error is not None and not self._closing:
            error = _with_stderr(error, transport)
        if self._closing and error is not None:
            logger.debug("Ignoring reader error during close: %r", error)
            error = None
        with self._lock:
            self.terminal_error = error
            futures = list(self._futures.values())
        failure = error if error is not None else CLIConnectionError("The CLI closed its stdout")
        for future in futures:
            if not future.done():
                future.set_exception(failure)
        self._mailbox.put(END)
        self._wake_reader()

    # ------------------------------------------------------------------ close

    def close(self) -> None:
        """Stop everything (idempotent, any thread, bounded).

        The ladder: cancel in-flight callbacks' signals → if a turn is running, a best-effort
        ``interrupt`` → stdin EOF → wait → SIGTERM the process group → wait → SIGKILL → wait
        (each wait ``close_timeout``) → join the reader → shut the pool down (bounded) →
        close pipes → delete temp files. Concurrent callers wait for the first one.
        """
        with self._lock:
            started = self._close_started
            self._close_started = True
            self._closing = True
        if started:
            if not self._pool.in_worker() and threading.current_thread() is not self._reader:
                self._close_done.wait(self.options.close_timeout * 5)
            return
        try:
            self._close_ladder()
        finally:
            self._close_done.set()

    def _close_ladder(self) -> None:
        grace = self.options.close_timeout
        self.signal_all_inflight()
        self._wake_reader()
        transport = self._transport
        if transport is not None:
            self._interrupt_running_turn(transport)
            self.close_rung = transport.stop(grace)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(grace)
            if self._reader.is_alive():
                logger.error("claude_sync reader thread did not end within %.1fs", grace)
        self._pool.shutdown(grace)
        if transport is not None:
            transport.close_pipes()
        self._fail_pending(UsageError("the session was closed"))
        self._mailbox.put(END)
        for path in self._temp_files:
            try:
                os.unlink(path)
            except OSError:
                pass
        self._temp_files.clear()

    def _interrupt_running_turn(self, transport: SubprocessTransport) -> None:
        """A turn still running would keep going after EOF; ask it to stop first."""
        with self._lock:
            running = self.ledger.turn_running
        if not running or transport.stdin_closed or transport.returncode is not None:
            return
        frame = control_request_frame(self.new_request_id(), "interrupt")
        try:
            transport.write(encode_frame(frame), timeout=min(0.5, self.options.close_timeout))
        except ClaudeSDKError:
            pass

    def _fail_pending(self, error: BaseException) -> None:
        with self._lock:
            futures = list(self._futures.values())
        for future in futures:
            if not future.done():
                future.set_exception(error)

    @property
    def closed(self) -> bool:
        return self._closing


class _IdleWatch:
    """Raises ``ReceiveTimeoutError(kind="idle")`` when no frame arrived for ``limit`` s."""

    __slots__ = ("session", "limit", "seen", "since")

    def __init__(self, session: Session, limit: Optional[float]) -> None:
        self.session = session
        self.limit = limit
        self.seen = session.frames_seen
        self.since = time.monotonic()

    def check(self) -> None:
        if self.limit is None:
            return
        now = time.monotonic()
        if self.session.frames_seen != self.seen:
            self.seen = self.session.frames_seen
            self.since = now
        elif now - self.since >= self.limit:
            raise ReceiveTimeoutError(
                f"No frame from the CLI for {self.limit}s", kind="idle", timeout=self.limit
            )


def _oversized_message(record: OversizedLine) -> OversizedLineSkipped:
    return OversizedLineSkipped(size=record.size, limit=record.limit, prefix=record.prefix.decode("utf-8", "replace"))


def _with_stderr(error: BaseException, transport: SubprocessTransport) -> BaseException:
    """Attach the stderr tail to a reader error (as a note in the message, type unchanged)."""
    transport.join_stderr(0.5)
    tail = transport.stderr_tail()
    if tail and isinstance(error, ClaudeSDKError) and not hasattr(error, "stderr"):
        error.args = (f"{error.args[0]}\nstderr tail:\n{tail}",) + error.args[1:]
    return error
