"""One connected CLI and the threads around it: the I/O shell over the pure protocol core.

A ``Session`` drives one ``Transport`` (the CLI as a child process by default). Threads (all
named ``claude_sync-…``, all joined — bounded — by ``close``):

- ``claude_sync-reader-<pid>``: reads the transport's chunks, frames, decodes, routes.
  Messages go to an unbounded ``Mailbox``; responses to our control requests resolve
  ``Future``\\ s in the futures table (``pending.py``); requests from the CLI go to the ``RequestServer``
  (``serving.py``), cancels too. It never runs user code, never writes, and blocks only on
  the transport — or, deliberately, on flow control (``reader.py``).
- ``claude_sync-stderr-<pid>`` (in the subprocess transport): drains stderr into a tail.
- threads an extension starts (``extensions.py``; e.g. ``claude_sync-mirror-<pid>`` of a
  ``session_store``), stopped by its ``close``.
- ``claude_sync-callback-<n>``: the request server's pool (permissions, hooks, MCP).
- the caller's threads: iterate messages, send control requests, close.

States: the table at the top of ``states.py`` (h11-style), one ``SessionStateMachine``
per session, moved under the session's lock.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NoReturn, Optional

from .._options.options import DEFAULT_MAX_BUFFER_SIZE, ClaudeAgentOptions
from .._options.timeouts import longest_wait, optional_seconds
from .._redaction.redactor import redacted_logger
from .._wire.errors import (
    ClaudeSDKError,
    CLIConnectionError,
    ControlRequestError,
    ControlTimeoutError,
    UsageError,
)
from .._wire.framing import encode_frame
from .._wire.messages import ResultMessage
from .._wire.parse import parse_message
from .._wire.protocol import (
    ControlResponseReceived,
    StreamItem,
    TranscriptMirrorReceived,
    TurnLedger,
    control_request_frame,
    exit_error,
    result_error,
    without_slash_command,
)
from .._wire.run_end import RunEnd, run_end_ceiling
from .extensions import ConnectionExtension, Extensions, ExtensionsFn
from .pending import PendingRequests, wait_answer
from .reader import END, Reader
from .states import SessionState, SessionStateMachine
from .transport import Transport, close_after_stop

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan, SpawnPlan
    from .serving import RequestServer


__all__ = ["ABANDON_GRACE", "Session", "SessionState", "END"]

logger = redacted_logger("claude_sync.session")

ABANDON_GRACE = 0.05
"""Seconds each close step waits for an abandoned run (a timeout), instead of ``close_timeout``."""

class Session:
    """One connected CLI. See the module docstring for the threads and the states."""

    def __init__(
        self,
        options: ClaudeAgentOptions,
        *,
        server: Optional[RequestServer] = None,
        plan: Optional[OptionsPlan] = None,
        environ: Optional[Dict[str, str]] = None,
        transport: Optional[Transport] = None,
        extensions: Optional[ExtensionsFn] = None,
    ) -> None:
        self.options = options
        self._server = server
        self._make_extensions = extensions
        self._options_plan = plan  # interpret_options(options), when the caller made it
        self._environ = environ
        self._custom_transport = transport
        self._transport: Optional[Transport] = None
        self._temp_files: List[str] = []
        self._lock = threading.Lock()
        self._spawning = threading.Lock()  # held while connect starts the CLI; close waits for it
        self._closing_extensions = threading.Lock()  # the close ladder and an undone connect take turns
        self._states = SessionStateMachine()
        self._pending = PendingRequests()
        self._reader = Reader(
            self,
            max_buffer_size=options.max_buffer_size or DEFAULT_MAX_BUFFER_SIZE,
            close_timeout=options.close_timeout,
        )
        self._extensions = Extensions()  # made at connect by ``extensions`` (the wiring's list)
        calls_back = plan is not None and plan.calls_back
        self._ledger = TurnLedger(RunEnd(calls_back, run_end_ceiling(options.env or {}, environ)))
        self.last_result: Optional[ResultMessage] = None
        self.server_info: Optional[Dict[str, Any]] = None
        self.spawn_plan: Optional[SpawnPlan] = None
        """The plan this session started with (its ``initialize`` fields, for ``reinitialize``)."""
        self._closer: Optional[threading.Thread] = None
        self._close_steps_done = 0
        self._abandoned = False
        self._close_done = threading.Event()
        self.close_rung: Optional[str] = None

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> SessionState:
        return self._states.state

    def _move(self, call: str) -> None:
        """Apply ``call`` to the state table (caller holds ``_lock``). Raises ``UsageError``."""
        self._states.move(call)

    def _check_send(self) -> None:
        self._states.check("send")

    @property
    def closed(self) -> bool:
        """True from the moment ``close`` started."""
        return self._states.closed

    # ------------------------------------------------------------------ connect

    def connect(self, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Spawn the CLI (or connect the custom transport), start the reader, run the
        ``initialize`` handshake (caller's thread) — or skip it when an extension knows the
        CLI's answer already (``ConnectionExtension.handshake_answer``: a reused CLI).

        With a custom transport the options' command-line part (model, cwd, tools …) is not
        applied — no process is spawned here — but everything sent through the protocol is
        (hooks, agents, SDK MCP servers, permission callbacks), as in the official SDK.

        Returns the initialize response. Raises ``CLINotFoundError``, ``CLIConnectionError``,
        ``ProcessError`` (the CLI died during start-up, with its stderr tail),
        ``ControlTimeoutError`` (no answer within ``initialize_timeout``), ``UsageError``
        (connect called twice). ``timeout``: the caller's bound on its whole run (``query(
        timeout=)``); when it is the shorter one, the handshake waits at most that long and
        raises ``ReceiveTimeoutError(kind="total")`` instead. On failure everything started so far is torn down.
        """
        with self._lock:
            self._move("connect")
        try:
            plan = self._start_transport()
            known = self._extensions.handshake_answer()  # the CLI answered these fields before
            if known is not None:
                response = dict(known)
            else:
                from .spawn import initialize, startup_failure  # first connect only, not at import

                try:
                    response = initialize(self.request, plan, timeout)
                except CLIConnectionError as exc:
                    if exc is self._reader.transport_fault:
                        raise
                    raise startup_failure(exc, self._transport, self.terminal_error, self.options.close_timeout) from exc
            plan.check_initialize_answer(response)
            self._extensions.handshaken(response, known is not None)
            with self._lock:
                if self._states.state is SessionState.CONNECTING:
                    self._move("connected")
        except BaseException:
            self.close()
            raise
        self.server_info, self.spawn_plan = response, plan
        self._extensions.connected(self.request)
        return response

    def _start_transport(self) -> SpawnPlan:
        """Plan, spawn, start the reader (connecting thread, holding ``_spawning``). A
        ``close()`` from another thread meanwhile waits for this (at most ``close_timeout``);
        what this started after the close began is torn down here, never left running.
        Raises ``UsageError`` when the session was closed meanwhile."""
        with self._spawning:
            return self._start_transport_locked()

    def _start_transport_locked(self) -> SpawnPlan:
        from .spawn import (  # first connect only, not at import
            plan_spawn,
            routed_transport,
            start_transport,
        )

        if self._make_extensions is not None:
            self._extensions = Extensions(self._make_extensions(self))
        transport, cli_path = routed_transport(self.options, self._environ, self._custom_transport)
        plan = plan_spawn(self.options, self._options_plan, self._environ, transport, self._extensions, cli_path)
        if self.closed:  # while the extensions prepared (checked again, locked, once started)
            self._undo_start(None)
        if self._server is None:
            from .serving import RequestServer  # a bare session answers every request with an error

            self._server = RequestServer({}, self.options.callback_workers)
        self._server.attach(self.write_encoded)
        if transport is None and cli_path is None:  # the engine would spawn: an extension may carry it instead
            transport = self._extensions.transport(self.options, plan)
        started = start_transport(self.options, plan, transport, self._temp_files)
        with self._lock:
            closed = self.closed
            if not closed:
                self._transport = started
        if closed:
            self._undo_start(started)
        assert self._transport is not None
        self._extensions.started(self._transport)
        self._reader.prepare(self._transport, self._server, self.label, self._extensions.tap,
                             users_transport=self._custom_transport is not None)  # started by the first write
        return plan


    def _undo_start(self, transport: Optional[Transport]) -> NoReturn:
        """``close()`` began while the CLI was being started (its ladder may have run already):
        reap what this connect started — the CLI, what the extensions prepared (a store's resume
        dir), temp files — and raise ``UsageError``."""
        if transport is not None:
            transport.stop(self.options.close_timeout)
            close_after_stop(transport)
        self._close_extensions()
        self._remove_temp_files()
        raise UsageError("the session was closed while it was connecting")

    @property
    def pid(self) -> Optional[int]:
        return self._transport.pid if self._transport else None

    @property
    def label(self) -> object:
        """What names this connection in thread names and logs: the CLI's pid, or (no process,
        e.g. a memory transport) the prefix of its request ids."""
        transport = self._transport
        return transport.pid if transport is not None and transport.pid is not None else self._pending.id_prefix

    @property
    def transport(self) -> Optional[Transport]:
        return self._transport

    @property
    def extensions(self) -> List[ConnectionExtension]:
        """The extensions plugged into this connection, in order (empty before ``connect``)."""
        return list(self._extensions.items)

    @property
    def server(self) -> Optional[RequestServer]:
        """What serves the CLI's requests (None before ``connect``)."""
        return self._server

    # ------------------------------------------------------------------ writing

    def write_frame(self, frame: Dict[str, Any], timeout: Optional[float] = None) -> None:
        """Encode and write one frame (any thread). Raises ``CLIConnectionError`` (chained to
        the terminal error when the CLI is gone), ``UsageError`` (not connected, or closed),
        ``TypeError``/``ValueError`` (not JSON)."""
        self.write_encoded(encode_frame(frame), timeout)

    def write_encoded(self, data: bytes, timeout: Optional[float] = None) -> None:
        """Write whole encoded frames (any thread); raises as ``write_frame`` (a bad ``timeout``: at once)."""
        if timeout is not None:  # the callback round trip writes with None: no call on that path
            timeout = optional_seconds("write timeout", timeout)
        transport = self._transport
        if transport is None or self._states.state is not SessionState.OPEN:
            self._check_send()
            if transport is None:
                raise UsageError("the session is not connected")
        for sent in self._extensions.senders:
            sent(data)
        try:
            transport.write_bytes(data, self.options.control_timeout if timeout is None else timeout)
        except CLIConnectionError as exc:
            self._reader.start()  # (if it had not) it names why the CLI ended
            if self.closed:
                raise UsageError("the session is closed") from exc
            # A broken pipe usually means the CLI exited; its exit status and stderr, which
            # say why, arrive with the reader's end: wait (bounded) for it to name them.
            self._reader.join(longest_wait(2 * self.options.close_timeout))
            if self.terminal_error is not None:
                raise CLIConnectionError(f"{exc} (the CLI has ended: {self.terminal_error})") from self.terminal_error
            raise
        if not self._reader.started:  # after the first frame (an attribute read after that)
            self._reader.start()

    def close_stdin(self) -> None:
        """Send EOF to the CLI (idempotent, any thread)."""
        if self._transport is not None:
            self._transport.end_input()

    # ------------------------------------------------------------------ turns

    def send_user_message(self, frame: Dict[str, Any], timeout: Optional[float] = None) -> None:
        """Write a user frame and count it as a turn (any thread); ``verbatim_prompts`` marks it
        ``client_composed``, ``slash_commands=False`` puts a space before a leading ``/``."""
        frame = frame if self.options.slash_commands else without_slash_command(frame)
        frame = {**frame, "client_composed": True} if self.options.verbatim_prompts else frame
        with self._lock:
            self._ledger.sent_user_message()
        try:
            self.write_frame(frame, timeout)
        except BaseException:
            with self._lock:
                self._ledger.unsent_user_message()
            raise

    @property
    def turn_running(self) -> bool:
        """True while a user message written has not had its result yet (any thread)."""
        with self._lock:
            return self._ledger.turn_running

    def input_exhausted(self) -> None:
        """Record that no user message will follow (a one-shot run's prompt is all sent)."""
        with self._lock:
            self._ledger.input_exhausted()

    @property
    def run_finished(self) -> bool:
        """True once a one-shot run may end input (any thread): ``TurnLedger.finished``."""
        with self._lock:
            return self._ledger.finished(time.monotonic())

    follows_turns = property(lambda self: self._ledger.run_end.calls_back, doc="Reader thread: see ``ReaderHost``.")
    watching_turns = property(lambda self: self._ledger.run_end.watching_turns, doc="Reader thread, no lock: see ``ReaderHost``.")
    agent_tasks_running = property(lambda self: bool(self._ledger.run_end.tasks), doc="Any thread: an agent task the CLI started has not ended (its end wakes another turn: ``RunEnd.tasks``).")

    def run_frame(self, item: object) -> None:
        """Reader thread: a frame the run end follows (see ``ReaderHost.run_frame``)."""
        with self._lock:
            self._ledger.run_end.frame(item, time.monotonic())

    def commands_changed(self, commands: List[Any]) -> None:
        """Reader thread: the CLI's new command list replaces the server info's (a new dict:
        readers of the old one are undisturbed)."""
        info = self.server_info
        if info is not None:
            self.server_info = {**info, "commands": commands}

    def result_received(self, result: ResultMessage) -> None:
        """Reader thread: count a turn's result, after the extensions saw it (with a session
        store: once the store has the turn, waiting at most its flush timeout)."""
        self._extensions.on_result(result)
        with self._lock:
            self._ledger.result_received(time.monotonic())
            self.last_result = result

    # ------------------------------------------------------------------ control requests

    def new_request_id(self) -> str:
        return self._pending.new_id()

    def request(
        self, subtype: str, payload: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """Send a control request and wait for its answer (any thread except the reader).

        Returns the CLI's ``response`` payload (``{}`` when it sends none). Raises
        ``ControlRequestError`` (the CLI's error text), ``ControlTimeoutError`` (no answer
        within ``timeout``, default ``control_timeout``), ``CLIConnectionError`` (the CLI
        ended first), ``UsageError`` (not connected, or closed); ``TypeError`` / ``ValueError``
        for a ``timeout`` the platform cannot wait (``checked_seconds``; nothing is sent then)."""
        timeout = optional_seconds(f"control request {subtype!r}: timeout", timeout) or self.options.control_timeout
        request_id = self._pending.new_id()
        with self._lock:
            self._check_send()
            ended = self._reader.ended_error()  # the stream ended: refused, sticky
            if ended is not None:
                raise ended
            future = self._pending.register(request_id)
        self._reader.wake()
        try:
            self.write_frame(control_request_frame(request_id, subtype, payload), timeout)
            fault = lambda: self._reader.transport_fault  # noqa: E731 - read when it failed
            response = wait_answer(future, timeout, subtype, request_id, fault, self._error_result_before_the_end)
        finally:
            self._pending.forget(request_id)
        if not response.ok:
            raise ControlRequestError(response.error or "error", subtype=subtype, request_id=request_id)
        return response.payload if response.payload is not None else {}

    def _error_result_before_the_end(self) -> Optional[ClaudeSDKError]:
        """The ``ResultError`` of an error result the CLI reported before it ended (as the
        official SDK raises for a request that was still waiting), else None."""
        with self._lock:
            result = self.last_result
        if result is None or not result.is_error:
            return None

        transport = self._transport
        if transport is None:
            return result_error(result)
        return result_error(result, exit_code=transport.exit_code(), stderr=transport.stderr_tail() or None)

    @property
    def has_pending_requests(self) -> bool:
        return bool(self._pending)

    @property
    def terminal_error(self) -> Optional[BaseException]:
        """The sticky error that ended the stream (None while it runs or after a clean end)."""
        return self._reader.terminal_error

    def stream_ended(self, error: Optional[BaseException], transport: Transport) -> Optional[BaseException]:
        """Reader thread, once, at end of stream: the terminal error (``error`` when the reader
        stopped on one, else judged from the exit status and what was expected), after failing
        every pending control request. Errors during our own close are ignored (None)."""
        if error is None and not self.closed:
            returncode = transport.wait(self.options.close_timeout)
            if returncode is None and transport.pid is None:
                returncode = 0  # no process, no status: a clean EOF, judged by what was expected
            error = exit_error(
                returncode,
                stderr_tail=transport.stderr_tail(),
                last_result=self.last_result,
                expecting_result=self.turn_running,
                killed_by_us=self.closed or bool(getattr(transport, "stopped_by_us", False)),
            )
        if self.closed and error is not None:
            logger.debug("Ignoring reader error during close: %r", error)
            error = None
        self.fail_pending(error if error is not None else CLIConnectionError("The CLI closed its stdout"))
        self._extensions.ended(transport, self.closed)
        return error

    def mirror_received(self, frame: TranscriptMirrorReceived) -> None:
        """Reader thread: a ``transcript_mirror`` frame, for the extensions (``on_frame``)."""
        self._extensions.on_frame(frame)

    def resolve(self, response: ControlResponseReceived) -> None:
        """Reader thread: hand a control response to the request waiting for it."""
        self._pending.resolve(response)

    def fail_pending(self, error: BaseException) -> None:
        """Fail every waiting control request with ``error`` (any thread)."""
        self._pending.fail_all(error)

    # ------------------------------------------------------------------ receiving

    def messages(self, *, timeout: Optional[float] = None, idle_timeout: Optional[float] = None,
                 on_wait: Optional[Callable[[], None]] = None) -> Iterator[StreamItem]:  # fmt: skip
        """Yield queued messages until end of stream (caller's thread; see ``Reader.items``)."""
        return self._reader.items(timeout=timeout, idle_timeout=idle_timeout, on_wait=on_wait)

    def requeue_front(self, items: List[Any]) -> None:
        """Put messages taken by ``messages()`` back at the head of the queue, in order
        (the consumer's thread, e.g. a layer that held them when it was interrupted)."""
        self._reader.requeue_front(items)

    @property
    def frames_seen(self) -> int:
        return self._reader.frames_seen

    def put_message(self, frame: Dict[str, Any]) -> None:
        """Queue a message the CLI did not send (``frame``, parsed like a stdout line) for the
        consumer, after what is queued (any thread; e.g. an extension's report, such as a
        session store's ``mirror_error``). Raises what ``parse_message`` raises."""
        self._reader.mailbox.put(parse_message(frame))

    # ------------------------------------------------------------------ callbacks

    def signal_all_inflight(self) -> None:
        """Set every in-flight callback's signal (interrupt, close). Any thread."""
        if self._server is not None:
            self._server.signal_all()

    def in_callback_thread(self) -> bool:
        return self._server is not None and self._server.in_worker()

    # ------------------------------------------------------------------ close

    def close(self, *, abandon: bool = False) -> None:
        """Stop everything (idempotent, any thread, bounded).

        ``abandon`` (a run given up on a timeout): no ``interrupt``, ``ABANDON_GRACE`` per rung
        and for the callback pool; a callback still running is left to end (its signal set).

        The ladder: refuse new CLI requests and set in-flight callbacks' signals → if a turn
        is running, a best-effort ``interrupt`` → ``transport.stop`` (stdin EOF → wait →
        SIGTERM the process group → wait → SIGKILL → wait, each wait ``close_timeout``) →
        join the reader → shut the pool down (bounded) → ``transport.close`` → fail what
        still waits → delete temp files. Concurrent callers wait for the first one.

        A ``KeyboardInterrupt`` during a step re-runs that step once, finishes the ladder
        and is re-raised at the end; one that cuts the ladder short anyway leaves the
        session CLOSING, and the next ``close()`` resumes where it stopped.
        """
        with self._lock:
            if self._states.state is SessionState.CLOSED:
                return
            if not self.closed:
                self._move("close")
            closer = self._closer
            # The closing thread itself, back after a Ctrl-C cut its close short, resumes it.
            run = closer is None or closer is threading.current_thread() or not closer.is_alive()
            if run:
                self._closer = threading.current_thread()
        if not run:
            if not self.in_callback_thread() and not self._reader.is_current():
                self._close_done.wait(longest_wait(self.options.close_timeout * 5))
            return
        self._abandoned = self._abandoned or abandon
        if self._spawning.acquire(timeout=self.options.close_timeout):  # a CLI being started: let it finish
            self._spawning.release()
        try:
            deferred = self._close_ladder()
        finally:
            with self._lock:
                self._closer = None
        with self._lock:
            self._move("closed")
            self._close_done.set()
        if deferred is not None:
            raise deferred

    def _close_ladder(self) -> Optional[BaseException]:
        steps = (
            self._stop_serving,
            self._interrupt_running_turn,
            self._stop_transport,
            self._join_reader,
            self._close_server,
            self._close_extensions,
            self._close_transport,
            self._end_stream,
            self._remove_temp_files,
        )
        deferred: Optional[BaseException] = None
        while self._close_steps_done < len(steps):
            step = steps[self._close_steps_done]
            try:
                step()
            except KeyboardInterrupt as exc:
                deferred = exc
                logger.info("Ctrl-C while closing the Claude Code session: finishing the close first")
                try:
                    step()  # once more: a step may have been cut short
                except KeyboardInterrupt:
                    pass
            self._close_steps_done += 1
        return deferred

    def _stop_serving(self) -> None:
        if self._server is not None:
            self._server.stop_accepting()
        self._reader.wake()

    def _interrupt_running_turn(self) -> None:
        """A turn still running would keep going after EOF; ask it to stop first."""
        transport = self._transport
        if transport is None or self._abandoned or not self.turn_running or not transport.is_ready():
            return
        frame = control_request_frame(self.new_request_id(), "interrupt")
        try:
            transport.write_bytes(encode_frame(frame), min(0.5, self.options.close_timeout))
        except ClaudeSDKError:
            pass

    def _stop_transport(self) -> None:
        if self._transport is not None:
            rung = self._transport.stop(self._close_grace())
            self.close_rung = self.close_rung or rung

    def _join_reader(self) -> None:
        if not self._reader.join(self.options.close_timeout):
            logger.error("claude_sync reader thread did not end within %.1fs", self.options.close_timeout)

    def _close_server(self) -> None:
        if self._server is not None:
            self._server.close(self._close_grace())

    def _close_grace(self) -> float:
        return min(ABANDON_GRACE, self.options.close_timeout) if self._abandoned else self.options.close_timeout

    def _close_extensions(self) -> None:
        """Close each extension once: the ladder (after the reader: every mirror frame is in)
        and a connect it undid (``close()`` stopped waiting for a slow start) take turns; the
        second finds nothing left. Waits ``close_timeout`` per extension for the other."""
        timeout = self.options.close_timeout
        if self._closing_extensions.acquire(timeout=longest_wait(timeout * (len(self._extensions.items) + 1))):
            try:
                self._extensions.close(timeout)
            finally:
                self._closing_extensions.release()

    def _close_transport(self) -> None:
        close_after_stop(self._transport)

    def _end_stream(self) -> None:
        self.fail_pending(UsageError("the session was closed"))
        self._reader.put_end()

    def _remove_temp_files(self) -> None:
        if self._temp_files:
            from .tempfiles import remove_private_files

            remove_private_files(self._temp_files)

