"""``run()``: one blocking call, one picklable ``RunResult``.

::

    result = run("What is 2 + 2?", options=opts, timeout=120)
    print(result.text, result.total_cost_usd)

``run`` is built on the public ``ClaudeSDKClient`` (a ``str`` prompt) and ``query()`` (an
iterable of user-message dicts). ``drive_turn`` — send one prompt on a connected client and
collect its answer into a ``RunResult`` — is shared with ``AgentPool``, which runs it on warm
and reused CLIs.

``run``, its arguments (options without callables) and ``RunResult`` pickle, so any
``concurrent.futures.Executor`` — a process pool, a Dask cluster — can run agents:
``executor.submit(run, prompt, options=opts)``. Options carrying callables are refused by
``check_picklable_options`` with a ``TypeError`` naming the field.

Typed output: ``run(prompt, output_format=Invoice)`` returns a ``RunResult[Invoice]`` whose
``output`` is the ``Invoice`` (see ``claude_sync._structured``). A ``RunResult`` holding an
instance pickles like the instance: ``pickle`` stores the class by reference, so the class
must be importable where the result is unpickled (a module's top level; a class defined in
``__main__`` or a notebook cell works with a fork-started process pool and with Dask, whose
cloudpickle ships such classes by value).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, Dict, Generic, Iterable, List, Optional, Tuple, Type, Union, overload

import typing_extensions as te

from .._options.options import ClaudeAgentOptions
from .._options.portable import CALLABLE_FIELDS, check_picklable_options
from .._wire.blocks import TextBlock
from .._wire.errors import ClaudeSDKError, ReceiveTimeoutError, StructuredOutputError
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.protocol import StreamItem, result_error
from .._wire.record import FrozenRecord, frozen_record

__all__ = [
    "run",
    "RunResult",
    "drive_turn",
    "collect_turn",
    "check_picklable_options",
    "outcome_error",
    "CALLABLE_FIELDS",
]

Prompt = Union[str, Iterable[Dict[str, Any]]]

T = te.TypeVar("T", default=Any)
"""The output class of a typed run (``RunResult[Invoice]``); ``Any`` for an untyped one."""


@frozen_record
class RunResult(FrozenRecord, Generic[T]):
    """What one run produced. Immutable and picklable (every message is a frozen record).

    ``text`` is the final answer (the result's ``result`` text, or the last assistant text
    when the CLI sent none). ``total_cost_usd`` is the cost of *this* run: on a CLI reused by
    ``AgentPool``, the CLI 2.1.197 reports its process-wide running total in the
    ``ResultMessage`` (``result.total_cost_usd``), and ``RunResult`` subtracts what earlier
    runs on that process had cost. ``result`` is the raw ``ResultMessage`` as the CLI sent it.

    ``output``: with a class as ``output_format``, the instance (``RunResult[Invoice]``:
    type checkers see ``result.output.total``); with a schema dict, the JSON value
    (``structured_output``); else None. ``output_error``: the ``StructuredOutputError`` of a
    run that produced no fitting value — raised instead, unless
    ``options.raise_on_error_result`` is False (then ``output`` is None).
    """

    text: str
    result: ResultMessage
    messages: Tuple[StreamItem, ...]
    structured_output: Any
    session_id: str
    total_cost_usd: Optional[float]
    usage: Optional[Dict[str, Any]]
    num_turns: int
    duration_ms: int
    is_error: bool
    output: T = dataclasses.field(default=None)  # type: ignore[assignment]  # None: untyped runs
    output_error: Optional[StructuredOutputError] = None

    def __repr__(self) -> str:  # messages and the result would drown the useful fields
        typed = ""
        if self.output is not None and not isinstance(self.output, (dict, list)):
            typed = f"output={self.output!r}, "
        elif self.output_error is not None:
            typed = f"output_error={self.output_error.problem!r}, "
        return (
            f"RunResult({typed}text={self.text!r}, session_id={self.session_id!r}, is_error={self.is_error}, "
            f"num_turns={self.num_turns}, total_cost_usd={self.total_cost_usd}, messages=<{len(self.messages)}>)"
        )

    def _repr_html_(self) -> str:
        """Notebooks: the answer, the footer, the transcript collapsed (``live.run_result_html``)."""
        from .._display.live import run_result_html

        return run_result_html(self)

    def _repr_markdown_(self) -> str:
        """The run as ``show()`` ends it (``live.run_result_markdown``)."""
        from .._display.live import run_result_markdown

        return run_result_markdown(self)

    @classmethod
    def from_messages(
        cls, messages: List[StreamItem], cost_before: float = 0.0, output_format: Any = None
    ) -> RunResult[Any]:
        """Build from a run's messages; the last ``ResultMessage`` ends it.

        ``cost_before``: the CLI's running total before this run (0 for a fresh CLI).
        ``output_format``: the run's (a class or a schema dict), for ``output``.
        Raises ``ValueError`` when there is no ``ResultMessage``.
        """
        result = next((m for m in reversed(messages) if isinstance(m, ResultMessage)), None)
        if result is None:
            raise ValueError("the run ended without a ResultMessage")
        cost = result.total_cost_usd
        if cost is not None and cost_before:
            cost = max(0.0, cost - cost_before)
        output: Any = None
        output_error: Optional[StructuredOutputError] = None
        if output_format is not None:
            from .._structured import outcome  # typed output: first use only

            output, output_error = outcome.output_outcome(output_format, result, outcome.AttemptLog.of(messages))
        return cls(
            text=_final_text(result, messages),
            result=result,
            messages=tuple(messages),
            structured_output=result.structured_output,
            session_id=result.session_id,
            total_cost_usd=cost,
            usage=result.usage,
            num_turns=result.num_turns,
            duration_ms=result.duration_ms,
            is_error=result.is_error,
            output=output,
            output_error=output_error,
        )


def outcome_error(outcome: RunResult[Any]) -> Optional[ClaudeSDKError]:
    """The error a finished run raises when ``raise_on_error_result`` is on: its
    ``StructuredOutputError``, else the ``ResultError`` of an error result, else None."""
    if outcome.output_error is not None:
        return outcome.output_error
    if outcome.is_error:
        return result_error(outcome.result)
    return None


def _final_text(result: ResultMessage, messages: List[StreamItem]) -> str:
    if isinstance(result.result, str) and result.result:
        return result.result
    for message in reversed(messages):
        if isinstance(message, AssistantMessage) and message.parent_tool_use_id is None:
            parts = [block.text for block in message.content if isinstance(block, TextBlock)]
            if parts:
                return "".join(parts)
    return ""


def drive_turn(client: Any, prompt: str, *, timeout: Optional[float], cost_before: float = 0.0) -> RunResult[Any]:
    """Send ``prompt`` on a connected ``ClaudeSDKClient`` and collect up to its result.

    Runs on the caller's thread. Raises ``ReceiveTimeoutError`` after ``timeout`` s, the
    session's terminal error (``ProcessError`` …) if the CLI ends, ``ResultError`` for an
    error result and ``StructuredOutputError`` for a run without a fitting ``output_format``
    value when ``options.raise_on_error_result`` (as ``query()`` does).
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    client.query(prompt, timeout=timeout)
    remaining = None if deadline is None else max(0.001, deadline - time.monotonic())
    messages = collect_turn(client, timeout=remaining)
    outcome = RunResult.from_messages(messages, cost_before, getattr(client.options, "output_format", None))
    error = outcome_error(outcome)
    if error is not None and getattr(client.options, "raise_on_error_result", True):
        raise error
    return outcome


def collect_turn(client: Any, *, timeout: Optional[float]) -> List[StreamItem]:
    """The messages of the turn just sent, up to and including its ``ResultMessage``
    (caller's thread). Raises ``ReceiveTimeoutError``, the session's terminal error, or
    ``ClaudeSDKError`` if the stream ended without a result."""
    messages = list(client.receive_response(timeout=timeout))
    if not messages or not isinstance(messages[-1], ResultMessage):
        raise ClaudeSDKError("the CLI ended the run without a ResultMessage")
    return messages


@overload
def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Type[T],
) -> RunResult[T]: ...


@overload
def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Optional[Dict[str, Any]] = None,
) -> RunResult[Any]: ...


def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Any = None,
) -> RunResult[Any]:
    """Run the CLI on ``prompt`` to its result and return a ``RunResult`` (caller's thread).

    ``timeout`` bounds the whole run (start-up included) and raises ``ReceiveTimeoutError``;
    the CLI is reaped either way. ``output_format`` (a dataclass, TypedDict or pydantic v2
    model class, or a schema dict) replaces ``options.output_format`` for this run; with a
    class the result is a ``RunResult[thatclass]`` whose ``output`` is the instance. Raises
    what ``query()`` raises (``CLINotFoundError``, ``ProcessError``, ``ResultError`` for an
    error result and ``StructuredOutputError`` for a run without a fitting value unless
    ``options.raise_on_error_result`` is False, ``TypeError`` for a bad prompt or an
    ``output_format`` class without a JSON form).
    """
    options = options or ClaudeAgentOptions()
    if output_format is not None:
        options = dataclasses.replace(options, output_format=output_format)
    if isinstance(prompt, str):
        return _run_str(prompt, options, timeout)
    return _run_stream(prompt, options, timeout)


def _run_str(prompt: str, options: ClaudeAgentOptions, timeout: Optional[float]) -> RunResult[Any]:
    from .._client import ClaudeSDKClient

    start = time.monotonic()
    client = ClaudeSDKClient(options)
    with _Watchdog(client.close, timeout) as watchdog:
        try:
            client.connect()
            remaining = None if timeout is None else max(0.001, timeout - (time.monotonic() - start))
            return drive_turn(client, prompt, timeout=remaining)
        except ClaudeSDKError:
            watchdog.raise_if_fired()
            raise
        finally:
            client.close()


def _run_stream(prompt: Iterable[Dict[str, Any]], options: ClaudeAgentOptions, timeout: Optional[float]) -> RunResult[Any]:
    from .._query import query

    stream = query(prompt, options=options)
    messages: List[StreamItem] = []
    with _Watchdog(stream.close, timeout) as watchdog:
        try:
            with stream:
                messages.extend(stream)
        except ClaudeSDKError:
            watchdog.raise_if_fired()
            raise
        watchdog.raise_if_fired()
    return RunResult.from_messages(messages, output_format=options.output_format)


class _Watchdog:
    """Calls ``stop`` once ``timeout`` s have passed (on a ``claude_sync-run-timeout`` timer
    thread, joined on exit); ``raise_if_fired`` turns that into ``ReceiveTimeoutError``."""

    def __init__(self, stop: Any, timeout: Optional[float]) -> None:
        self.timeout = timeout
        self.fired = threading.Event()
        self._stop = stop
        self._timer: Optional[threading.Timer] = None
        if timeout is not None:
            self._timer = threading.Timer(timeout, self._fire)
            self._timer.name = "claude_sync-run-timeout"
            self._timer.daemon = True

    def _fire(self) -> None:
        self.fired.set()
        self._stop()

    def raise_if_fired(self) -> None:
        if self.fired.is_set():
            raise ReceiveTimeoutError(f"the run did not finish within {self.timeout}s")

    def __enter__(self) -> _Watchdog:
        if self._timer is not None:
            self._timer.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()
