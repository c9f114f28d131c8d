"""``run()``: one blocking call, one picklable ``RunResult``.

::

    result = run("What is 2 + 2?", options=opts, timeout=120)
    print(result.text, result.total_cost_usd)

``run`` is ``query(prompt, options=…, timeout=…)`` collected by ``collect_turn`` — the turn
driver ``AgentPool`` uses too, over a warm CLI's ``receive_response()`` — into a
``RunResult``.

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
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Type, Union, overload

from .._options.options import ClaudeAgentOptions
from .._options.portable import CALLABLE_FIELDS, check_picklable_options
from ..query import query
from .._result import RunResult, T
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage
from .._wire.protocol import StreamItem, result_error

if TYPE_CHECKING:  # pragma: no cover
    from .._engine.transport import Transport

__all__ = [
    "run",
    "RunResult",
    "T",
    "collect_turn",
    "check_picklable_options",
    "outcome_error",
    "CALLABLE_FIELDS",
]

Prompt = Union[str, Iterable[Dict[str, Any]]]

def outcome_error(outcome: RunResult[Any]) -> Optional[ClaudeSDKError]:
    """The error a finished run raises when ``raise_on_error_result`` is on: its
    ``StructuredOutputError``, else the ``ResultError`` of an error result, else None."""
    if outcome.output_error is not None:
        return outcome.output_error
    if outcome.is_error:
        return result_error(outcome.result)
    return None


def collect_turn(items: Iterable[StreamItem]) -> List[StreamItem]:
    """The run driver of ``run()`` and ``AgentPool``: the messages of one run, every
    ``ResultMessage`` included (a run a background agent woke again ends more than once)
    (caller's thread).

    ``items`` is a ``query()`` stream or the pool's reading of a client; what they raise
    passes through (``ReceiveTimeoutError``, the session's terminal error, ``ResultError``).
    Raises ``ClaudeSDKError`` when the stream ended without a result.
    """
    messages = list(items)
    if not any(isinstance(message, ResultMessage) for message in messages):
        raise ClaudeSDKError("the CLI ended the run without a ResultMessage")
    return messages


@overload
def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Type[T],
    transport: Optional[Transport] = None,
) -> RunResult[T]: ...


@overload
def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Optional[Dict[str, Any]] = None,
    transport: Optional[Transport] = None,
) -> RunResult[Any]: ...


def run(
    prompt: Prompt,
    *,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    output_format: Any = None,
    transport: Optional[Transport] = None,
) -> RunResult[Any]:
    """Run the CLI on ``prompt`` to its result and return a ``RunResult`` (caller's thread).

    ``prompt`` is a ``str`` or an iterable of user-message dicts, as for ``query()``.
    ``timeout`` bounds the whole run, start-up included (``query(timeout=)``), and raises
    ``ReceiveTimeoutError``; the CLI is reaped either way. ``output_format`` (a dataclass,
    TypedDict or pydantic v2 model class, or a schema dict) replaces
    ``options.output_format`` for this run; with a class the result is a
    ``RunResult[thatclass]`` whose ``output`` is the instance. Raises what ``query()``
    raises (``CLINotFoundError``, ``ProcessError``, ``ResultError`` for an error result and
    ``StructuredOutputError`` for a run without a fitting value unless
    ``options.raise_on_error_result`` is False, ``TypeError`` for a bad prompt or an
    ``output_format`` class without a JSON form). ``transport``: a ``Transport`` to run on
    instead of spawning the CLI, as for ``query()`` (e.g. ``ScriptedCLI.transport()``; not
    picklable, so not for a process pool).
    """
    options = options or ClaudeAgentOptions()
    if output_format is not None:
        options = dataclasses.replace(options, output_format=output_format)
    with query(prompt, options=options, timeout=timeout, transport=transport) as stream:
        return RunResult.from_messages(collect_turn(stream), output_format=options.output_format)
