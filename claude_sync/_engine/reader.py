"""A session's reader thread and its message queue: transport chunks in, routed events out.

``Reader.run`` is the body of the ``claude_sync-reader-<pid>`` thread: it frames the
transport's chunks into lines, decodes each (``decode_line``: a typed event), and routes it —
messages to the ``Mailbox`` (a deque and a doorbell, see ``mailbox.py``), control responses
to the session's futures, CLI requests and cancels to the ``RequestServer``, transcript
mirror frames to the session store's bridge. It never runs user code and never writes; it
blocks only on the transport, on flow control, and — with a ``session_store`` — on the
store mirror before a result (at most ``control_timeout``).

Flow control without deadlock. The queue is unbounded, so the reader can always deliver
what somebody waits for. Memory is bounded differently: when the consumer's backlog passes
a high-water mark (``HIGH_WATER_MESSAGES`` messages or ``HIGH_WATER_BYTES`` of wire data),
the reader stops reading, so the pipe fills and the CLI blocks on its next write. It resumes
when the consumer drains below half the mark, **and whenever one of our control requests is
pending** (registering a request wakes it), and on close. So a thread that calls
``interrupt()`` or any control method while nobody drains always gets its answer — at the
cost of buffering what the CLI writes before that answer.

When the stream ends (EOF, crash, corrupt line) the reader records the session's sticky
terminal error (None for a clean end), fails every pending future, and queues the
end-of-stream sentinel once: every waiter wakes, messages queued before it are delivered
first. A CLI that exits in the middle of a line is a ``ProcessError`` (the decode error
chained), not a JSON error.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Protocol, Union

from .._redaction.redactor import redact_text, redacted_logger
from .._wire.errors import ClaudeSDKError, CLIConnectionError, ProcessError, ReceiveTimeoutError
from .._wire.framing import LineFramer, OversizedLine
from .._wire.messages import AssistantMessage, ResultMessage, StreamEvent
from .._wire.protocol import (
    CONTROL_EVENT_TYPES,
    ControlCancelReceived,
    ControlRequestReceived,
    ControlResponseReceived,
    Event,
    NoiseLineSkipped,
    StreamItem,
    TranscriptMirrorReceived,
    decode_line,
)
from .._wire.system_messages import (
    APIRetryMessage,
    CommandsChangedMessage,
    OversizedLineSkipped,
    SessionStateChangedMessage,
    TaskNotificationMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
)
from .green import simple_queue
from .mailbox import Mailbox
from .transport import Transport

if TYPE_CHECKING:  # pragma: no cover
    from .serving import RequestServer

__all__ = ["END", "Reader", "ReaderHost", "HIGH_WATER_MESSAGES", "HIGH_WATER_BYTES", "WAIT_SLICE"]

logger = redacted_logger("claude_sync.session")

HIGH_WATER_MESSAGES = 1000
HIGH_WATER_BYTES = 1 << 20
WAIT_SLICE = 0.1
"""Waits are cut into slices this long so Ctrl-C is seen promptly (and on every platform)."""

_TASK_FRAMES = frozenset((TaskStartedMessage, TaskNotificationMessage, TaskUpdatedMessage))
_TURN_FRAMES = frozenset((AssistantMessage, StreamEvent))


class _End:
    """The end-of-stream sentinel (one per session, left queued so every waiter sees it)."""

    def __repr__(self) -> str:
        return "<end of stream>"


END = _End()


class ReaderHost(Protocol):
    """What the reader needs from the connection it reads for. Every method is called on the
    reader thread, must not block for long and must not run user code."""

    @property
    def closed(self) -> bool:
        """True once our own close began (errors then are ours, not the CLI's)."""

    @property
    def has_pending_requests(self) -> bool:
        """True while one of our control requests waits for its answer (flow control)."""

    def result_received(self, result: ResultMessage) -> None:
        """A turn's result arrived (before it is queued for the consumer)."""

    @property
    def follows_turns(self) -> bool:
        """Whether the run end may ever need turn frames (fixed for the connection: a run the
        CLI can call back); read once per stream, so other runs pay nothing per line."""

    @property
    def watching_turns(self) -> bool:
        """True while a top-level assistant message would tell the run end something (a cheap
        read, no lock: the reader asks it for every such message)."""

    def run_frame(self, item: object) -> None:
        """A frame the run end follows: a task frame, a ``session_state_changed`` (delivered
        or not), or, while ``watching_turns``, a top-level assistant message or stream event."""

    def resolve(self, response: ControlResponseReceived) -> None:
        """An answer to one of our control requests."""

    def commands_changed(self, commands: List[Any]) -> None:
        """The CLI pushed its whole new command list (``system/commands_changed``)."""

    def mirror_received(self, frame: TranscriptMirrorReceived) -> None:
        """A ``transcript_mirror`` frame."""

    def stream_ended(self, error: Optional[BaseException], transport: Transport) -> Optional[BaseException]:
        """The stream ended (``error``: what stopped the reader, None at EOF): fail what is
        pending and return the terminal error the consumer will see (None: a clean end)."""


class Reader:
    """The reader thread of one connection, its queue, and flow control (module docstring)."""

    def __init__(self, host: ReaderHost, *, max_buffer_size: int, close_timeout: float) -> None:
        self._host = host
        self._close_timeout = close_timeout
        self.mailbox = Mailbox()
        self._framer = LineFramer(max_buffer_size)
        self._tap: Optional[Callable[[Iterator[bytes]], Iterator[bytes]]] = None
        self.terminal_error: Optional[BaseException] = None
        """The sticky error that ended the stream (set once, at its end)."""
        self._users_transport = False
        self.transport_fault: Optional[Exception] = None
        """The exception a user's own transport raised while it was read (it ended the
        stream): it reaches the caller as itself, never wrapped (as in the official SDK)."""
        self._thread: Optional[threading.Thread] = None
        self._starting = threading.Lock()
        self.started = False
        """True once ``start`` started the thread."""
        self._label: Any = None
        self._transport: Optional[Transport] = None
        self._server: Optional[RequestServer] = None
        self._wakeups, self._no_wakeup = simple_queue()  # gevent's under a patched host
        self.paused = False
        self._resume_below = 0
        self.frames_seen = 0

    def prepare(
        self,
        transport: Transport,
        server: RequestServer,
        label: Any,
        tap: Optional[Callable[[Iterator[bytes]], Iterator[bytes]]] = None,
        *,
        users_transport: bool = False,
    ) -> None:
        """Say what the ``claude_sync-reader-<label>`` thread will read (``start`` starts it);
        ``tap`` wraps the stdout chunks it reads (the connection's extensions: the wire log).
        ``users_transport``: the caller brought ``transport``; an exception it raises while
        read becomes the terminal error as itself (``transport_fault``), not wrapped."""
        self._transport = transport
        self._server = server
        self._tap = tap
        self._users_transport = users_transport
        self._label = label

    def start(self) -> None:
        """Start the thread over the prepared transport, once (any thread; later calls do
        nothing) — not before ``prepare`` and not once the host is closed (nothing would join
        it). The session calls it after its first write (``initialize``): as in the official
        SDK, a transport's ``read_messages()`` is not iterated before that was written."""
        with self._starting:
            if self._thread is None and self._transport is not None and not self._host.closed:
                self._thread = threading.Thread(target=self.run, name=f"claude_sync-reader-{self._label}", daemon=True)
                self._thread.start()
                self.started = True

    @property
    def ended(self) -> bool:
        """True once the thread was started and has finished."""
        return self._thread is not None and not self._thread.is_alive()

    def ended_error(self) -> Optional[BaseException]:
        """What a control request made after the stream ended raises (None while it runs):
        what the user's transport raised, as itself (``transport_fault``, sticky), else a
        ``CLIConnectionError`` caused by the terminal error."""
        if not self.ended and self.terminal_error is None:
            return None
        if self.transport_fault is not None and self.terminal_error is self.transport_fault:
            return self.transport_fault
        error = CLIConnectionError(f"the CLI has ended: {self.terminal_error}")
        error.__cause__ = self.terminal_error
        return error

    def is_current(self) -> bool:
        return self._thread is threading.current_thread()

    def join(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s for the thread (never from itself); True if it ended."""
        with self._starting:  # a ``start`` racing a close has started it, or never will
            thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # ------------------------------------------------------------------ the thread

    def run(self) -> None:
        """The reader thread's body. Never raises; ends with the sentinel queued."""
        error: Optional[BaseException] = None
        try:
            self._read_to_end()
        except ClaudeSDKError as exc:
            error = exc
        except Exception as exc:
            if exc is not self.transport_fault:
                raise  # pragma: no cover - _read_to_end wraps everything else
            logger.debug("The transport's read_messages() raised %r: the stream ends with it", exc)
            error = exc
        self._finish(error)

    def _read_to_end(self) -> None:
        """Pump stdout to its end. Raises the ``ClaudeSDKError`` that ended it early, built
        whole: while the session is open a reader error of ours carries the stderr tail (same
        type, raised from the bare one); a bug in the reader is a ``CLIConnectionError``
        raised from it. What a user's own transport raised is raised as itself
        (``transport_fault``)."""
        transport = self._transport
        assert transport is not None
        chunks = self._noting_faults(transport) if self._users_transport else transport.read_chunks()
        tap = self._tap  # None unless an extension taps the stream (the wire log at DEBUG)
        pumped = chunks if tap is None else tap(chunks)
        try:
            self._pump(pumped)
        except ClaudeSDKError as exc:
            if exc is self.transport_fault:
                raise
            explained = None if self._host.closed else _with_stderr(exc, transport)
            if explained is None:
                raise
            raise explained from exc
        except BaseException as exc:  # noqa: BLE001 - a reader bug must still wake everyone
            if exc is self.transport_fault:
                raise
            logger.exception("claude_sync reader thread failed")
            raise CLIConnectionError(f"internal error in the claude_sync reader thread: {exc!r}") from exc
        finally:
            _stop_iterating(pumped)
            _stop_iterating(chunks)

    def _noting_faults(self, transport: Transport) -> Iterator[bytes]:
        """The chunks of a user's transport; an exception out of it (``read_messages()``,
        ``read_chunks()``) is noted as the ``transport_fault`` and re-raised unchanged."""
        try:
            yield from transport.read_chunks()
        except Exception as exc:
            self.transport_fault = exc
            raise

    def _pump(self, chunks: Iterator[bytes]) -> None:
        feed = self._framer.feed
        items = self.mailbox.items
        put = items.append
        ring = self.mailbox.ring_if_sleeping
        route = self._route_control
        control_types = CONTROL_EVENT_TYPES
        result_type = ResultMessage
        retry_type = APIRetryMessage
        host_state = SessionStateChangedMessage
        commands_type = CommandsChangedMessage
        host = self._host
        on_result = host.result_received
        task_frames, turn_frames, run_frame = _TASK_FRAMES, _TURN_FRAMES, host.run_frame
        follows_turns = host.follows_turns
        for chunk in chunks:
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
                    on_result(item)
                elif item.__class__ is retry_type:
                    from .notices import log_api_retry  # rare: loaded on the first retry

                    log_api_retry(item)
                elif item.__class__ is host_state:
                    run_frame(item)
                    if item.sdk_host_only is True:
                        # Sent only because we set CLAUDE_CODE_SDK_READS_SESSION_STATE (as
                        # the official SDK does): followed by the run end, never delivered.
                        continue
                elif item.__class__ in task_frames:
                    run_frame(item)
                elif item.__class__ is commands_type and isinstance(item.commands, list):
                    host.commands_changed(item.commands)
                elif follows_turns and item.__class__ in turn_frames and host.watching_turns and getattr(item, "parent_tool_use_id", None) is None:
                    run_frame(item)
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
            self._deliver_tail(tail)

    def _deliver_tail(self, tail: bytes) -> None:
        """The last line had no newline: deliver it like any other, or — if it does not
        decode — report the CLI's exit mid-line (``ProcessError``, the decode error chained)."""
        try:
            item: Union[Event, StreamItem] = decode_line(tail)
        except ClaudeSDKError as exc:
            raise self._died_mid_line(exc) from exc
        self.frames_seen += 1
        if item.__class__ in CONTROL_EVENT_TYPES:
            self._route_control(item)
            return
        if isinstance(item, ResultMessage):
            self._host.result_received(item)
        self.mailbox.put(item)

    def _died_mid_line(self, error: ClaudeSDKError) -> ProcessError:
        transport = self._transport
        assert transport is not None
        code = transport.wait(self._close_timeout)
        return ProcessError(
            f"Claude Code CLI ended in the middle of a line ({error})",
            exit_code=code,
            stderr=transport.stderr_tail(),
        )

    def _report_oversized(self) -> None:
        for record in self._framer.oversized:
            self.mailbox.put(_oversized_message(record))
            logger.warning(
                "Skipped a %d-byte stdout line over the %d-byte max_buffer_size (starts %r)",
                record.size,
                record.limit,
                record.prefix[:80],
            )
        self._framer.oversized.clear()

    def _route_control(self, event: Any) -> None:
        """Act on one control event without blocking or running user code."""
        cls = event.__class__
        if cls is ControlResponseReceived:
            self._host.resolve(event)
        elif cls is ControlRequestReceived:
            assert self._server is not None
            self._server.dispatch(event)
        elif cls is ControlCancelReceived:
            assert self._server is not None
            self._server.cancel(event.request_id)
        elif cls is NoiseLineSkipped:
            logger.warning("Skipped a non-JSON stdout line from the CLI: %r", redact_text(event.text[:200]))
        elif cls is TranscriptMirrorReceived:
            self._host.mirror_received(event)

    # ------------------------------------------------------------------ flow control

    def _pause(self, bytes_per_message: int) -> None:
        """Stop reading while the consumer is far behind (see the module docstring)."""
        resume_below = min(HIGH_WATER_MESSAGES, HIGH_WATER_BYTES // bytes_per_message) // 2
        host = self._host
        wakeups = self._wakeups
        while True:  # old wake-ups first: the check below sees what they were about
            try:
                wakeups.get_nowait()
            except self._no_wakeup:
                break
        self._resume_below = resume_below
        self.paused = True
        try:
            while len(self.mailbox.items) > resume_below and not host.has_pending_requests and not host.closed:
                try:
                    wakeups.get(timeout=WAIT_SLICE * 5)
                except self._no_wakeup:
                    pass
        finally:
            self.paused = False

    def wake(self) -> None:
        """Let a paused reader look again (a control request was registered, or close). Any
        thread; never blocks. A token in a ``SimpleQueue`` (``green.simple_queue``), not a lock: a Ctrl-C
        that surfaces as a call returns could leave a lock held by the interrupted thread, and
        the reader and every later ``wake`` would wait on it for ever."""
        self._wakeups.put(None)

    # ------------------------------------------------------------------ end of stream

    def _finish(self, error: Optional[BaseException]) -> None:
        """Last act of the thread: record the terminal error, wake every waiter."""
        transport = self._transport
        assert transport is not None
        self.terminal_error = self._host.stream_ended(error, transport)
        self.put_end()
        self.wake()

    def put_end(self) -> None:
        """Queue the end-of-stream sentinel (once is enough; idempotent)."""
        items = self.mailbox.items
        if not items or items[-1] is not END:
            self.mailbox.put(END)

    # ------------------------------------------------------------------ the consumer

    def items(
        self,
        *,
        timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None,
        on_wait: Optional[Callable[[], None]] = None,
    ) -> Iterator[StreamItem]:
        """Yield queued messages until end of stream (caller's thread, one at a time).

        At end of stream, raises the session's sticky terminal error if there is one, else
        returns. ``timeout`` bounds the whole iteration, ``idle_timeout`` the silence between
        two frames (any stdout line counts); both raise ``ReceiveTimeoutError`` and leave
        the session running. ``on_wait`` is called on the caller's thread after every
        ``WAIT_SLICE`` spent waiting on an empty queue (a one-shot run ends its input there
        when the CLI said the run is over in a frame that is not delivered).
        """
        items = self.mailbox.items
        wait = self.mailbox.wait
        deadline = None if timeout is None else time.monotonic() + timeout
        idle = _IdleWatch(self, idle_timeout)
        lent: Any = None
        try:
            while True:
                if not items and not wait(WAIT_SLICE):
                    if on_wait is not None:
                        on_wait()
                    _check_timeouts(deadline, timeout, idle)
                    continue
                item = items[0]
                if item is END:  # stays queued: every later waiter sees it too
                    if self.terminal_error is not None:
                        raise self.terminal_error
                    return
                if self.paused and len(items) <= self._resume_below:
                    self.wake()
                # Take it only now: a Ctrl-C anywhere above leaves the item queued (see
                # mailbox.py). It is `lent` from the store before the `del` to the store right
                # before the `yield` (plain local stores and loads: no interpreter checks for a
                # signal between them; Python 3.9 may check right after the `del`).
                lent = item
                del items[0]
                lent = None
                yield item
                if deadline is not None:
                    _check_timeouts(deadline, timeout, None)
        except KeyboardInterrupt:
            if lent is not None and not (items and items[0] is lent):  # taken out, never yielded
                items.appendleft(lent)
            raise

    def requeue_front(self, taken: List[Any]) -> None:
        """Put taken items back at the head of the queue, in order (consumer's thread)."""
        self.mailbox.items.extendleft(reversed(taken))


class _IdleWatch:
    """Raises ``ReceiveTimeoutError(kind="idle")`` when no frame arrived for ``limit`` s."""

    __slots__ = ("reader", "limit", "seen", "since")

    def __init__(self, reader: Reader, limit: Optional[float]) -> None:
        self.reader = reader
        self.limit = limit
        self.seen = reader.frames_seen
        self.since = time.monotonic()

    def check(self) -> None:
        if self.limit is None:
            return
        now = time.monotonic()
        if self.reader.frames_seen != self.seen:
            self.seen = self.reader.frames_seen
            self.since = now
        elif now - self.since >= self.limit:
            raise ReceiveTimeoutError(f"No frame from the CLI for {self.limit}s", kind="idle", timeout=self.limit)


def _check_timeouts(deadline: Optional[float], timeout: Optional[float], idle: Optional[_IdleWatch]) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise ReceiveTimeoutError(f"No complete response within {timeout}s", kind="total", timeout=timeout)
    if idle is not None:
        idle.check()


def _oversized_message(record: OversizedLine) -> OversizedLineSkipped:
    return OversizedLineSkipped.of(record.size, record.limit, record.prefix.decode("utf-8", "replace"))


def _stop_iterating(chunks: Iterator[bytes]) -> None:
    """Close the ``read_chunks`` generator now (not when the traceback that holds it goes):
    a transport learns that nobody reads its stdout any more (``SubprocessTransport`` then
    drops the read end, so a CLI blocked writing a line ends at once instead of waiting out
    the close ladder)."""
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


def _with_stderr(error: ClaudeSDKError, transport: Transport) -> Optional[ClaudeSDKError]:
    """The reader error with the stderr tail in its message (same type and attributes), or
    None when there is no tail or the error carries its own (``ProcessError.stderr``)."""
    if hasattr(error, "stderr"):
        return None
    transport.wait(0.5)
    tail = transport.stderr_tail()
    return error._with_stderr_tail(tail) if tail else None
