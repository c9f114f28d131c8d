"""``ClaudeSDKClient``: one CLI process, many turns, controlled from any thread.

A public module, as ``claude_agent_sdk.client`` is: string paths name it (``importlib.import_module``,
``mock.patch``, wrapt's ``"module:attr"`` targets) and reach the objects users call.

Thread-safety contract (enforced):

- **One consumer at a time.** ``receive_messages()`` / ``receive_response()`` hold the
  consumer slot from their first ``next()`` until they finish or are closed; a second
  concurrent consumer gets ``UsageError`` (on its first ``next()``). An iterator that was
  never started holds nothing.
- **Any thread** may call ``query``, ``interrupt``, every control method and ``close``
  while another thread iterates — including a callback running on the callback pool and a
  signal handler. Control calls never wait for the consumer: the reader thread keeps
  delivering control responses even when nobody drains messages.
- A call before ``connect()`` or after ``close()`` raises ``NotConnectedError`` (both a
  ``CLIConnectionError``, as in the official SDK, and a ``UsageError``); ``connect()`` while
  connected raises ``UsageError``. ``connect()`` after ``close()`` starts a new CLI process
  (as the official client does on reconnect).

Interrupt semantics: ``interrupt()`` asks the CLI to abort the running turn and returns when
the CLI has acknowledged it. The aborted turn still ends with **its own** ``ResultMessage``
(``subtype="error_during_execution"``, ``terminal_reason`` ``"aborted_streaming"`` or
``"aborted_tools"``), preceded by whatever the turn had produced and a ``UserMessage``
``[Request interrupted by user…]``. Results come in turn order, so without draining, the
next ``receive_response()`` yields the rest of the aborted turn and stops at that aborted
result. ``interrupt(drain=True)`` consumes up to and including it and returns those
messages, so the next ``receive_response()`` starts with the next turn. Interrupting while
idle is harmless (the CLI acknowledges, nothing else happens; ``drain=True`` returns ``[]``).

Ctrl-C: a ``KeyboardInterrupt`` while ``receive_*`` waits sends the protocol ``interrupt``
(never a signal to the CLI) and re-raises; a second one before that turn's result tears the
session down. Waits are sliced so Ctrl-C is seen promptly. Nothing taken from the stream is
lost: with ``merge_assistant=True`` the block lines held for merging go back to the queue
when the iteration stops for any reason (Ctrl-C, a receive timeout, leaving the loop).

A connected client that is dropped without ``close()`` is closed when it is garbage
collected, with a ``ResourceWarning`` (as files and sockets do).
"""

from __future__ import annotations

import sys
import threading
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from ._controls import ControlMethods, send_interrupt
from ._engine.connection import Session
from ._engine.transport import Transport, as_transport
from ._options.options import ClaudeAgentOptions
from ._options.timeouts import optional_seconds
from ._redaction.redactor import redacted_logger
from ._wire.errors import ClaudeSDKError, NotConnectedError, UsageError
from ._wire.merge import AssistantMessageMerger, extends_head, next_merged
from ._wire.messages import Message, ResultMessage
from ._wire.protocol import StreamItem, iter_user_frames, user_message_frame

if TYPE_CHECKING:  # pragma: no cover
    from ._tracing.otel import TraceHolder

__all__ = ["ClaudeSDKClient"]

logger = redacted_logger("claude_sync.client")

_INTERRUPT_ON_CTRL_C_TIMEOUT = 2.0


def _trace_holder() -> Optional[TraceHolder]:
    """The callbacks' tracing of a new connection (OpenTelemetry in use only; else None)."""
    if "opentelemetry.trace" not in sys.modules:
        return None
    from ._tracing.otel import TraceHolder

    return TraceHolder()


class ClaudeSDKClient(ControlMethods):
    """A multi-turn conversation with one CLI process. Threads, interrupts and closing: see the
    reference page of ``query()`` and ``ClaudeSDKClient`` (and this module's docstring).
    The control methods (``send_control_request``, ``set_model`` … ``get_usage``) come from
    ``ControlMethods`` (``claude_sync._controls``), shared with the ``query()`` stream.

    ``transport``: a ``Transport`` (or any object with its official methods: ``connect``,
    ``write``, ``read_messages``, ``close``, ``is_ready``, ``end_input``) to use instead of
    spawning the CLI (one client, one transport). As in the official SDK, the options that become CLI flags (model, cwd,
    tools …) are then not applied; the ones sent through the protocol are (hooks, agents,
    permission callbacks, SDK MCP servers). Raises ``TypeError`` naming the methods a
    transport object lacks.

    Attributes:
        options: The options the CLI is started with (read again at each ``connect()``).
    """

    options: ClaudeAgentOptions

    def __init__(self, options: Optional[ClaudeAgentOptions] = None, transport: Optional[Transport] = None) -> None:
        transport = None if transport is None else as_transport(transport)
        self.options = options or ClaudeAgentOptions()
        self._transport = transport
        self._session: Optional[Session] = None
        self._consumer = threading.Lock()
        self._state = threading.Lock()
        self._closed = False
        self._ctrl_c_pending = False
        self._reaper: Optional[weakref.finalize[Any, Any]] = None
        self._tracing: Optional[TraceHolder] = None
        self._last_result: Optional[ResultMessage] = None
        """The CLI's latest result seen while tracing: the running totals before the next turn."""

    # ------------------------------------------------------------------ lifecycle

    def connect(self, prompt: Union[str, Iterable[Dict[str, Any]], None] = None) -> None:
        """Start the CLI and run the initialize handshake; then send ``prompt`` if given.

        After ``close()`` this starts a new CLI process (a new session, unless the options
        resume one). Raises ``UsageError`` (already connected), ``CLINotFoundError``,
        ``CLIConnectionError``, ``ProcessError``, ``ControlTimeoutError``
        (``initialize_timeout``), ``ValueError`` for contradictory options.
        """
        with self._state:
            if self._session is not None and not self._closed and not self._session.closed:
                raise UsageError("this client is already connected")
            self._closed = False
            self._end_turn_trace()
            self._tracing = _trace_holder()
            self._last_result = None  # a new CLI: its totals start from nothing
            from ._wiring import build_session  # the features' modules load on the first connect

            session = self._session = build_session(self.options, self._transport, tracing=self._tracing)
            self._reaper = weakref.finalize(self, _reap_dropped_client, session)
            self._reaper.atexit = False  # at exit the transport's own reaper stops the CLI
        session.connect()
        if prompt is not None:
            self.query(prompt)

    def close(self) -> None:
        """Stop the CLI (idempotent, any thread, bounded by the close ladder)."""
        with self._state:
            self._closed = True
            session = self._session
            reaper = self._reaper
        if reaper is not None:
            reaper.detach()
        if session is not None:
            session.close()
        self._end_turn_trace()

    disconnect = close

    def __enter__(self) -> ClaudeSDKClient:
        self.connect()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _live_session(self) -> Session:
        session = self._session
        if self._closed or (session is not None and session.closed):
            raise NotConnectedError("Not connected: this client was closed; call connect() again")
        if session is None:
            raise NotConnectedError("Not connected. Call connect() first (or use the client as a context manager).")
        return session

    # ------------------------------------------------------------------ sending

    def query(
        self,
        prompt: Union[str, Iterable[Dict[str, Any]]],
        session_id: str = "default",
        *,
        timeout: Optional[float] = None,
    ) -> None:
        """Send a user turn (a str) or several (an iterable of user-message dicts / strs).

        Returns once written; the answer is read with ``receive_response()``. Any thread.
        Raises ``UsageError`` (not connected / closed), ``CLIConnectionError`` (the CLI is
        gone, or the write timed out), ``ValueError`` (a malformed user-message dict).
        """
        session = self._live_session()
        self._begin_turn_trace(prompt)
        if isinstance(prompt, str):
            session.send_user_message(user_message_frame(prompt, session_id=session_id), timeout)
            return
        for frame in iter_user_frames(prompt, session_id):
            if frame.get("type") == "user":
                session.send_user_message(frame, timeout)
            else:
                session.write_frame(frame, timeout)

    # ------------------------------------------------------------------ receiving

    def receive_messages(
        self, *, timeout: Optional[float] = None, idle_timeout: Optional[float] = None
    ) -> Iterator[StreamItem]:
        """Every message until the CLI ends (caller's thread; one consumer at a time).

        ``timeout`` bounds the whole iteration, ``idle_timeout`` the silence between two
        frames; both raise ``ReceiveTimeoutError`` and leave the session running. Raises
        ``UsageError`` for a second concurrent consumer, and the session's terminal error
        (``ProcessError`` …) if the CLI ended abnormally.
        """
        return self._receive(until_result=False, timeout=timeout, idle_timeout=idle_timeout)

    def receive_response(
        self,
        *,
        timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None,
        merge_assistant: bool = False,
    ) -> Iterator[StreamItem]:
        """Messages up to and including the next ``ResultMessage`` (see ``receive_messages``).

        With ``merge_assistant=True``, the per-content-block ``AssistantMessage`` lines the
        CLI sends are merged into whole messages (all blocks of one ``message_id``).
        """
        return self._receive(until_result=True, timeout=timeout, idle_timeout=idle_timeout, merge=merge_assistant)

    def text_stream(self, *, timeout: Optional[float] = None, idle_timeout: Optional[float] = None) -> Iterator[str]:
        """The text of the next response as it arrives, up to its ``ResultMessage``.

        With ``include_partial_messages=True`` in the options, text deltas (token by token);
        without, each text block whole as the CLI sends it. Top-level assistant text only;
        blocks joined by a blank line. Same rules and errors as ``receive_response``.
        """
        from ._wire.text import iter_text

        return iter_text(self.receive_response(timeout=timeout, idle_timeout=idle_timeout))

    def _receive(
        self, *, until_result: bool, timeout: Optional[float], idle_timeout: Optional[float], merge: bool = False
    ) -> Iterator[StreamItem]:
        timeout, idle_timeout = optional_seconds("timeout", timeout), optional_seconds("idle_timeout", idle_timeout)
        session = self._live_session()
        if merge:
            return self._consume_merged(session, until_result, timeout, idle_timeout)
        return self._consume(session, until_result, timeout, idle_timeout)

    def _take_consumer_slot(self) -> None:
        """Called on an iterator's first ``next()``; ``UsageError`` if another one holds it."""
        if not self._consumer.acquire(blocking=False):
            raise UsageError("another thread is already receiving from this client")

    def _consume(
        self, session: Session, until_result: bool, timeout: Optional[float], idle_timeout: Optional[float]
    ) -> Iterator[StreamItem]:
        # A `for` loop, not `item = next(messages)`: CPython checks for a pending Ctrl-C when
        # a call returns, which would drop the item `next` returned. The item is `lent` from
        # the queue until its `yield`: a Ctrl-C before then puts it back (Python 3.9 checks for
        # signals after most instructions, 3.10+ at calls and loops). `lent = None` and the
        # `yield` are plain local loads and stores: no interpreter checks signals between them.
        self._take_consumer_slot()
        output_class = _output_class(session)
        tracing = self._tracing
        lent: Any = None
        try:
            for item in session.messages(timeout=timeout, idle_timeout=idle_timeout):
                lent = item
                if tracing is not None:
                    self._trace_item(tracing, item)
                if item.__class__ is ResultMessage:
                    self._ctrl_c_pending = False
                    if output_class is not None:
                        item = _typed_result(session, output_class, item)
                    lent = None
                    yield item
                    if until_result:
                        return
                    continue
                lent = None
                yield item
        except KeyboardInterrupt:
            if lent is not None:
                session.requeue_front([lent])
                lent = None
            self._on_ctrl_c(session)
            raise
        except ClaudeSDKError as exc:
            self._end_turn_trace(exc)
            raise
        finally:
            self._consumer.release()

    def _consume_merged(
        self, session: Session, until_result: bool, timeout: Optional[float], idle_timeout: Optional[float]
    ) -> Iterator[StreamItem]:
        """``_consume`` with whole assistant messages. Every item taken from the session goes
        into ``held`` first (a list append: the item is in it before any signal check) and
        leaves it by one ``del`` right before its ``yield``; whatever is still held when the
        iteration stops — Ctrl-C, a timeout, the CLI's end, the loop left — goes back to the
        head of the session's queue for the next ``receive_*`` (see ``_wire.merge``)."""
        self._take_consumer_slot()
        output_class = _output_class(session)
        held: List[Any] = []
        lent: Optional[Tuple[int, List[Any]]] = None  # (where, items) taken out of `held` for the message being yielded
        closed = 0
        tracing = self._tracing
        try:
            for item in session.messages(timeout=timeout, idle_timeout=idle_timeout):
                held.append(item)
                if tracing is not None:
                    self._trace_item(tracing, item)
                if extends_head(held, closed):
                    continue
                ready = next_merged(held, closed=closed)
                while ready is not None:
                    closed = ready.closed
                    message = ready.message
                    if output_class is not None and message.__class__ is ResultMessage:
                        message = _with_parsed_output(output_class, message)  # still held: Ctrl-C loses nothing
                    if message.__class__ is ResultMessage:
                        self._ctrl_c_pending = False
                    start, end = ready.start, ready.start + ready.length
                    lent = (start, held[start:end])
                    del held[start:end]
                    lent = None  # plain stores and loads from here to the yield: no signal check (see _consume)
                    yield message
                    if until_result and message.__class__ is ResultMessage:
                        return
                    ready = next_merged(held, closed=closed)
            ready = next_merged(held, at_end=True, closed=closed)
            while ready is not None:
                closed = ready.closed
                message = ready.message
                start, end = ready.start, ready.start + ready.length
                lent = (start, held[start:end])
                del held[start:end]
                lent = None
                yield message
                ready = next_merged(held, at_end=True, closed=closed)
        except KeyboardInterrupt:
            _unlend(held, lent)
            lent = None
            session.requeue_front(held)
            held = []
            self._on_ctrl_c(session)
            raise
        except ClaudeSDKError as exc:
            self._end_turn_trace(exc)
            raise
        finally:
            _unlend(held, lent)
            if held:
                session.requeue_front(held)
            self._consumer.release()

    # ------------------------------------------------------------------ tracing

    def _begin_turn_trace(self, prompt: Any) -> None:
        """A span for the turn ``prompt`` starts (OpenTelemetry in use only); an earlier
        turn still open ends first. Caller's thread."""
        tracing = self._tracing
        if tracing is None:
            return
        from ._tracing.otel import RunTrace

        self._end_turn_trace()
        tracing.run = RunTrace.begin("client_turn", self.options.model, prompt, self._last_result)

    def _trace_item(self, tracing: TraceHolder, item: Any) -> None:
        """Consumer's thread: the turn's span follows ``item``; a result ends it, unless an
        agent task the CLI started still runs (its end wakes another turn of the run)."""
        turn = tracing.run
        if turn is None:
            if item.__class__ is ResultMessage:
                self._last_result = item  # an untraced turn (AgentPool's /clear): its totals are not the next run's
            return
        turn.observe(item)
        if item.__class__ is ResultMessage:
            self._last_result = item
            session = self._session
            if session is not None and session.agent_tasks_running:
                return  # a background agent's end wakes another turn of this run: the span goes on
            tracing.run = None
            turn.end()

    def _end_turn_trace(self, error: Optional[BaseException] = None) -> None:
        tracing = self._tracing
        turn = None if tracing is None else tracing.run
        if turn is not None:
            tracing.run = None  # type: ignore[union-attr]
            turn.end(error)

    def _on_ctrl_c(self, session: Session) -> None:
        """First Ctrl-C: protocol interrupt. Second (before the result): tear down."""
        if self._ctrl_c_pending:
            logger.info("Second Ctrl-C: closing the Claude Code session")
            self.close()
            return
        self._ctrl_c_pending = True
        try:
            session.request("interrupt", timeout=_INTERRUPT_ON_CTRL_C_TIMEOUT)
        except KeyboardInterrupt:
            self.close()
        except ClaudeSDKError as exc:
            logger.warning("Could not interrupt after Ctrl-C (%s); closing the session", exc)
            self.close()
        finally:
            session.signal_all_inflight()

    # ------------------------------------------------------------------ control

    def interrupt(self, *, drain: bool = False, timeout: Optional[float] = None) -> List[StreamItem]:
        """Abort the running turn (any thread). Returns ``[]``, or with ``drain=True`` the
        messages consumed up to and including the aborted turn's ``ResultMessage``.

        Every in-flight callback's ``context.signal`` (permission callbacks, hooks, MCP
        tools) is set once the interrupt is sent; the CLI ignores their late answers.

        ``drain=True`` needs the consumer slot (``UsageError`` if another thread iterates).
        Raises ``ControlTimeoutError``, ``ControlRequestError``, ``CLIConnectionError``.
        """
        session = self._live_session()
        running = session.turn_running
        if drain and not self._consumer.acquire(blocking=False):
            raise UsageError("interrupt(drain=True) needs the consumer slot; another thread is receiving")
        if drain:
            self._consumer.release()
        send_interrupt(session, timeout)
        if not (drain and running):
            return []
        return list(self._receive(until_result=True, timeout=timeout, idle_timeout=None))

    def get_server_info(self) -> Optional[Dict[str, Any]]:
        """The initialize response (commands, agents, models, account, pid …), cached."""
        return self._live_session().server_info

    # ------------------------------------------------------------------ introspection

    @property
    def session(self) -> Optional[Session]:
        """The live connection to the CLI (None before the first ``connect()``), for
        diagnostics."""
        return self._session


def _output_class(session: Session) -> Optional[type]:
    """The class the session's ``output_format`` decodes into (None for a schema dict or
    no output format)."""
    output_format = session.options.output_format
    return output_format if isinstance(output_format, type) else None


def _with_parsed_output(output_class: type, result: ResultMessage) -> ResultMessage:
    from ._structured.outcome import with_parsed_output  # typed output: first use only

    return with_parsed_output(output_class, result)


def _typed_result(session: Session, output_class: type, result: ResultMessage) -> ResultMessage:
    """``result`` with ``parsed_output`` set (consumer's thread). A Ctrl-C while decoding puts
    the result back at the head of the queue, so the next ``receive_*`` yields it."""
    try:
        return _with_parsed_output(output_class, result)
    except KeyboardInterrupt:
        session.requeue_front([result])
        raise


def _reap_dropped_client(session: Session) -> None:
    """A connected client was garbage-collected without ``close()``: close its session."""
    if session.closed:
        return
    warnings.warn(
        f"ClaudeSDKClient with a connected Claude Code CLI (pid {session.pid}) was never closed; "
        "closing it now. Use `with ClaudeSDKClient(...) as client:` or call close().",
        ResourceWarning,
        stacklevel=2,
    )
    session.close()


def _unlend(held: List[Any], lent: Optional[Tuple[int, List[Any]]]) -> None:
    """A Ctrl-C landed while ``lent`` (where, items) was being taken out of ``held`` for the
    message about to be yielded: put the items back in their place — unless they never left
    (the signal came before the ``del``: they are still there, the same objects)."""
    if lent is None:
        return
    start, taken = lent
    here = held[start : start + len(taken)]
    if len(here) == len(taken) and all(a is b for a, b in zip(here, taken)):
        return
    held[start:start] = taken


def merge_assistant_messages(messages: Iterable[Message]) -> Iterator[Message]:
    """Re-assemble whole assistant messages from the CLI's one-line-per-block stream.

    Consecutive ``AssistantMessage``\\ s with the same ``message_id`` become one; every other
    message passes through in order. Works on any message iterable (``query()`` too).
    """
    merger = AssistantMessageMerger()
    for message in messages:
        yield from merger.feed(message)
    yield from merger.flush()
