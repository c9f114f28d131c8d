"""``query()``: one run of the CLI as a plain iterator of messages.

A public module, as ``claude_agent_sdk.query`` is: string paths name it (``importlib.import_module``,
``mock.patch``, wrapt's ``"module:attr"`` targets) and reach the objects users call.

::

    for msg in query("What is 2 + 2?"):
        ...
    with query(prompts, options=opts) as stream:   # deterministic cleanup
        for msg in stream:
            ...

The CLI process lives exactly as long as the iteration: leaving the loop early, an
exception in the loop body (KeyboardInterrupt included), ``close()``, or the stream being
garbage-collected all run the session's close ladder.

Stdin stays open until the run-ending result has been read (see ``TurnLedger``), then it is
closed and the remaining lines (e.g. a ``prompt_suggestion`` after the result) are still
yielded until the CLI exits.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from functools import partial
from typing import TYPE_CHECKING, Any, Dict, Generator, Iterable, Iterator, List, Optional, Union

from ._controls import ControlMethods, send_interrupt
from ._engine.connection import Session
from ._engine.transport import Transport, as_transport
from ._options.options import ClaudeAgentOptions
from ._options.timeouts import checked_seconds
from ._redaction.redactor import redacted_logger
from ._wire.errors import (
    ClaudeSDKError,
    NotConnectedError,
    ReceiveTimeoutError,
    ResultError,
    StructuredOutputError,
    UsageError,
)
from ._wire.messages import ResultMessage
from ._wire.protocol import StreamItem, iter_user_frames, result_error, user_message_frame

if TYPE_CHECKING:  # pragma: no cover
    from ._result import RunResult
    from ._tracing.otel import RunTrace

__all__ = ["query", "QueryStream"]

logger = redacted_logger("claude_sync.query")

Prompt = Union[str, Iterable[Dict[str, Any]]]


def query(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    transport: Optional[Transport] = None,
    timeout: Optional[float] = None,
    idle_timeout: Optional[float] = None,
    keep_messages: bool = False,
) -> QueryStream:
    """Run the CLI on ``prompt`` and iterate over what it says.

    ``prompt`` is a str, or an iterable of user-message dicts (or strs) that is consumed on a
    ``claude_sync-prompt`` thread as the CLI takes them. Nothing starts until the first
    ``next()``. Iterating raises what ``ClaudeSDKClient`` would (``CLINotFoundError``,
    ``ProcessError`` …), and ``ResultError`` once the run-ending ``ResultMessage`` with
    ``is_error`` was yielded (set ``options.raise_on_error_result = False`` to only get it as
    data). Raises ``TypeError`` at once for a prompt of the wrong type.

    With a class as ``options.output_format`` the ``ResultMessage`` carries the instance in
    ``parsed_output``; when the run produced no value that fits the class (the CLI gave up
    retrying, the model never called ``StructuredOutput``, the class refused the value), a
    ``StructuredOutputError`` (a ``ResultError``) is raised after it, under the same switch.

    ``keep_messages``: keep every message yielded, so that ``result()`` can be called after
    iterating. Off by default: a long run's messages are then freed as you go (keeping them
    costs ~4 KB a message and, for a 100k-message flood, 2.5x the CPU). ``result()`` on a
    stream not yet iterated needs no flag: it runs the stream itself.

    ``transport``: a ``Transport`` (or any object with its official methods, as the official
    SDK accepts) to use instead of spawning the CLI; the options that become CLI flags are then
    not applied (see ``ClaudeSDKClient``). Raises ``TypeError`` naming the methods it lacks.

    ``timeout`` bounds the whole run (seconds from the first ``next()``; start-up counts
    against it, though the handshake itself is bounded by ``options.initialize_timeout``),
    ``idle_timeout`` the silence between two frames from the CLI; either raises
    ``ReceiveTimeoutError`` from the iteration and reaps the CLI, so a request handler can
    bound a run without a watchdog thread. Both default to None (no bound); a value that is
    not a finite number > 0 raises ``TypeError``/``ValueError`` at once.
    """
    return QueryStream(
        prompt, options or ClaudeAgentOptions(), transport,
        timeout=timeout, idle_timeout=idle_timeout, keep_messages=keep_messages,
    )  # fmt: skip


class QueryStream(ControlMethods):
    """An iterator of messages that is also a context manager; ``close()`` reaps the CLI.

    One thread iterates; ``close()`` may be called from any thread, and so may the control
    methods (``interrupt``, ``set_permission_mode``, ``set_model``, ``get_mcp_status``,
    ``stop_task``, ``send_control_request``, the others of ``ControlMethods`` …, as
    on ``ClaudeSDKClient`` and the TS SDK's ``Query``) once the first ``next()`` started the
    CLI and until the run ended: before, they raise ``UsageError``; after,
    ``NotConnectedError``. The generator doing the
    work holds no reference back to this object, so a plain ``for`` loop that breaks or
    raises finalises it at once (no reference cycle waiting for the garbage collector).
    """

    def __init__(
        self,
        prompt: Prompt,
        options: ClaudeAgentOptions,
        transport: Optional[Transport] = None,
        *,
        timeout: Optional[float] = None,
        idle_timeout: Optional[float] = None,
        keep_messages: bool = False,
    ) -> None:
        transport = None if transport is None else as_transport(transport)
        if isinstance(prompt, (bytes, dict)) or not isinstance(prompt, (str, Iterable)):
            raise TypeError(
                f"prompt must be a str or an iterable of user-message dicts, got {type(prompt).__name__}"
            )
        _check_timeouts(timeout, idle_timeout)
        self._run = _Run(prompt, options, transport)
        if not keep_messages:
            self._run.collected = None  # kept only on request (or when result() drives the stream)
        self._run.timeout = timeout
        self._run.idle_timeout = idle_timeout
        self._gen: Optional[Generator[StreamItem, None, None]] = None

    def __iter__(self) -> Iterator[StreamItem]:
        if self._gen is None:
            self._gen = self._run.messages()
        return self._gen

    def __next__(self) -> StreamItem:
        return next(iter(self))

    @property
    def options(self) -> ClaudeAgentOptions:
        """The options this run starts (or started) with."""
        return self._run.options

    @property
    def started(self) -> bool:
        """True once iteration began (the CLI is being, or was, started)."""
        return self._gen is not None

    def replace_options(self, **changes: Any) -> None:
        """Run with a copy of the options with ``changes`` (``dataclasses.replace``; the
        caller's options object is not changed). For layers that wrap a stream before it
        starts — ``show()`` notes callback decisions this way. Caller's thread.

        Raises ``UsageError`` once the stream was iterated, ``TypeError`` for an unknown field.
        """
        if self._gen is not None:
            raise UsageError("the options of a query() stream can be changed only before it is iterated")
        self._run.options = dataclasses.replace(self._run.options, **changes)

    def text_stream(self) -> Iterator[str]:
        """Iterate the answer's text as it arrives (token by token) instead of messages.

        Turns ``include_partial_messages`` on for this run (the options object passed in is
        not changed) and yields each text delta of the top-level assistant; separate text
        blocks are joined by a blank line. Call it before iterating the stream (else
        ``UsageError``); the run ends as iterating would (``ResultError`` …), and closing the
        text iterator closes the stream.
        """
        from ._wire.text import iter_text

        if self._gen is not None:
            raise UsageError("text_stream() must be called before the stream is iterated")
        if not self._run.options.include_partial_messages:
            self.replace_options(include_partial_messages=True)
        return iter_text(self)

    def close(self) -> None:
        """End the run now and reap the CLI (idempotent; any thread)."""
        gen = self._gen
        if gen is not None:
            try:
                gen.close()
                return
            except ValueError:  # "generator already executing": called from another thread
                pass
        session = self._run.session
        if session is not None:
            session.close()

    def __enter__(self) -> QueryStream:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def session(self) -> Optional[Session]:
        """The underlying session (None before the first ``next()``)."""
        return self._run.session

    # ------------------------------------------------------------------ control (any thread)

    def _live_session(self) -> Session:
        session = self._run.session
        if session is None:
            raise UsageError(
                "the CLI starts with the first next(): iterate the query() stream before "
                "sending it control requests"
            )
        if session.closed:
            raise NotConnectedError("the query() run ended: its CLI is gone")
        return session

    def get_server_info(self) -> Optional[Dict[str, Any]]:
        """The CLI's ``initialize`` answer (commands, agents, models, account …); None before
        the first ``next()`` has connected."""
        session = self._run.session
        return None if session is None else session.server_info

    def interrupt(self, *, timeout: Optional[float] = None) -> None:
        """Abort the running turn (any thread): the stream then yields that turn's
        ``error_during_execution`` result and ends (raising ``ResultError`` for it unless
        ``options.raise_on_error_result`` is False). Every in-flight callback's
        ``context.signal`` is set. Raises ``UsageError`` before the first ``next()``,
        ``NotConnectedError`` after the run ended, ``ControlTimeoutError``."""
        send_interrupt(self._live_session(), timeout)

    def result(self) -> RunResult[Any]:
        """The run as ``run()`` returns it: a ``RunResult`` of every message the stream
        yielded (caller's thread, the one that iterates).

        Called before the stream was iterated to its end, it iterates the rest first (so
        ``query(...).result()`` runs the whole run). Raises what iterating raised, again on
        every call: ``ResultError`` after an error result (unless
        ``options.raise_on_error_result`` is False: then the ``RunResult`` has ``is_error``),
        ``ReceiveTimeoutError``, ``ProcessError`` …; ``UsageError`` when the stream was closed
        before its result, or was iterated without ``keep_messages=True`` (it kept nothing).
        """
        run = self._run
        if run.built is not None:
            return run.built
        if run.collected is None:
            if self._gen is not None:
                raise UsageError(
                    "result() after iterating needs query(..., keep_messages=True): this stream kept no messages"
                )
            run.collected = []  # not iterated yet: result() runs the stream and keeps what it yields
        if run.error is None and not run.finished:
            for _ in self:
                pass
        if run.error is not None:
            raise run.error
        if not run.finished:
            raise UsageError("the stream was closed before its run ended: there is no RunResult")
        from ._result import RunResult  # first use only: most streams are just iterated

        try:
            run.built = RunResult.from_messages(run.collected, output_format=run.options.output_format)
        except ValueError:
            raise ClaudeSDKError("the CLI ended the run without a ResultMessage") from None
        return run.built


class _Run:
    """The state of one run, shared by the stream and its generator."""

    def __init__(self, prompt: Prompt, options: ClaudeAgentOptions, transport: Optional[Transport]) -> None:
        self.prompt = prompt
        self.options = options
        self.transport = transport
        self.session: Optional[Session] = None
        self.writer: Optional[threading.Thread] = None
        self.prompt_error: Optional[BaseException] = None
        self.timeout: Optional[float] = None
        self.idle_timeout: Optional[float] = None
        self.input_ended = False
        self.collected: Optional[List[StreamItem]] = []
        """Every message yielded, for ``QueryStream.result()`` (None: ``keep_messages=False``)."""
        self.finished = False
        self.error: Optional[Exception] = None
        self.built: Optional[RunResult[Any]] = None

    def messages(self) -> Generator[StreamItem, None, None]:
        """The generator behind the stream; its ``finally`` is the cleanup for every exit."""
        from ._wiring import build_session  # the features' modules load on the first run

        started = time.monotonic()
        trace = _begin_trace(self.options, self.prompt)
        tracing = None if trace is None else trace.holder()
        session = self.session = build_session(self.options, self.transport, tracing=tracing)
        abandoned = False
        try:
            if trace is None:
                session.connect(timeout=self.timeout)
            else:
                with trace.current():  # the CLI gets the run's span as its TRACEPARENT
                    session.connect(timeout=self.timeout)
            self._send_prompt(session)
            yield from self._relay(session, started, trace)
            self.finished = True
        except Exception as exc:
            self.error = exc
            abandoned = isinstance(exc, ReceiveTimeoutError)  # given up: kill the CLI now
            if trace is not None:
                trace.end(exc)
            raise
        finally:
            self._shutdown(session, abandon=abandoned)
            if trace is not None:
                trace.end()

    def _relay(self, session: Session, started: float, trace: Optional[RunTrace]) -> Iterator[StreamItem]:
        last: Optional[ResultMessage] = None
        typed = _TypedOutput.of(self.options.output_format)
        collected = self.collected
        remaining = None
        if self.timeout is not None:
            remaining = self.timeout - (time.monotonic() - started)
            if remaining <= 0:
                raise ReceiveTimeoutError(
                    f"No complete response within {self.timeout}s", kind="total", timeout=self.timeout
                )
        try:
            waiting = partial(self._close_stdin_if_done, session)
            for item in session.messages(timeout=remaining, idle_timeout=self.idle_timeout, on_wait=waiting):
                if typed is not None:
                    item = typed.observe(item)
                if trace is not None:
                    trace.observe(item)
                if item.__class__ is ResultMessage:
                    last = item
                    self._close_stdin_if_done(session)
                if collected is not None:
                    collected.append(item)
                yield item
        except ReceiveTimeoutError as exc:
            if exc.kind != "total":
                raise
            raise ReceiveTimeoutError(  # name the caller's bound, not what was left of it
                f"No complete response within {self.timeout}s", kind="total", timeout=self.timeout
            ) from None
        if self.prompt_error is not None:
            raise self.prompt_error
        if last is None or not self.options.raise_on_error_result:
            return
        if typed is not None:
            error = typed.error(last, session)
            if error is not None:
                raise error
        if last.is_error:
            raise _result_error_with_exit(last, session)

    def _send_prompt(self, session: Session) -> None:
        if isinstance(self.prompt, str):
            session.send_user_message(user_message_frame(self.prompt))
            self._input_done(session)
            return
        self.writer = threading.Thread(
            target=self._write_prompts, args=(session,), name=f"claude_sync-prompt-{session.pid}", daemon=True
        )
        self.writer.start()

    def _write_prompts(self, session: Session) -> None:
        """Prompt thread: stream the user's iterable to stdin, then mark input exhausted."""
        try:
            for frame in iter_user_frames(self.prompt):
                if session.closed:
                    return
                if frame.get("type") == "user":
                    session.send_user_message(frame)
                else:
                    session.write_frame(frame)
        except ClaudeSDKError as exc:
            if not session.closed:
                logger.debug("Stopped streaming the prompt: %s", exc)
            return
        except BaseException as exc:  # noqa: BLE001 - the user's iterable failed
            self.prompt_error = exc
            logger.debug("The prompt iterable raised %r; ending the run", exc)
            session.close_stdin()
            return
        self._input_done(session)

    def _input_done(self, session: Session) -> None:
        session.input_exhausted()
        self._close_stdin_if_done(session)

    def _close_stdin_if_done(self, session: Session) -> None:
        """End the CLI's input once the run is over (after each result, and while the
        consumer waits: the CLI's ``idle`` is not a delivered message). Consumer's thread."""
        if not self.input_ended and session.run_finished:
            self.input_ended = True
            session.close_stdin()

    def _shutdown(self, session: Session, *, abandon: bool = False) -> None:
        session.close(abandon=abandon)
        writer = self.writer
        if writer is not None and writer is not threading.current_thread():
            writer.join(self.options.close_timeout)
            if writer.is_alive():
                logger.error("The prompt iterable did not return within %.1fs after close", self.options.close_timeout)


def _begin_trace(options: ClaudeAgentOptions, prompt: Prompt) -> Optional[RunTrace]:
    """The run's span, when the application uses OpenTelemetry (else None, importing nothing)."""
    if "opentelemetry.trace" not in sys.modules:
        return None
    from ._tracing.otel import RunTrace

    return RunTrace.begin("query", options.model, prompt)


def _check_timeouts(timeout: Optional[float], idle_timeout: Optional[float]) -> None:
    for name, value in (("timeout", timeout), ("idle_timeout", idle_timeout)):
        if value is not None:
            checked_seconds(f"query() {name}", value)


class _TypedOutput:
    """The ``output_format`` side of one run (caller's thread): results get their
    ``parsed_output``, and the ``StructuredOutput`` calls are followed for the error that
    is raised when the run produced no fitting value (``claude_sync._structured.outcome``)."""

    def __init__(self, output_format: Any) -> None:
        from ._structured.outcome import AttemptLog  # typed output: first use only

        self.output_format = output_format
        self.attempts = AttemptLog()

    @classmethod
    def of(cls, output_format: Any) -> Optional[_TypedOutput]:
        return None if output_format is None else cls(output_format)

    def observe(self, item: StreamItem) -> StreamItem:
        self.attempts.observe(item)
        if item.__class__ is ResultMessage and isinstance(self.output_format, type):
            from ._structured.outcome import with_parsed_output

            return with_parsed_output(self.output_format, item)
        return item

    def error(self, result: ResultMessage, session: Session) -> Optional[StructuredOutputError]:
        """The error to raise after ``result`` (None: the run produced its value). An error
        result's carries the CLI's exit code and stderr tail, as ``ResultError``s do."""
        from ._structured.outcome import output_outcome

        transport = session.transport
        exit_code = stderr = None
        if transport is not None and result.is_error:
            exit_code, stderr = transport.exit_code(), transport.stderr_tail() or None
        return output_outcome(self.output_format, result, self.attempts, exit_code=exit_code, stderr=stderr)[1]


def _result_error_with_exit(result: ResultMessage, session: Session) -> ResultError:
    transport = session.transport
    if transport is None:
        return result_error(result)
    return result_error(result, exit_code=transport.exit_code(), stderr=transport.stderr_tail() or None)
