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
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union

from .._options.options import ClaudeAgentOptions
from .._options.portable import CALLABLE_FIELDS, check_picklable_options
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage
from .._wire.protocol import StreamItem
from .result import RunResult

__all__ = ["run", "RunResult", "collect_turn", "check_picklable_options", "CALLABLE_FIELDS"]

Prompt = Union[str, Iterable[Dict[str, Any]]]


def collect_turn(items: Iterable[StreamItem]) -> List[StreamItem]:
    """The turn driver of ``run()`` and ``AgentPool``: the messages of one turn, up to and
    including its ``ResultMessage`` (caller's thread).

    ``items`` is a ``query()`` stream or a client's ``receive_response()``; what they raise
    passes through (``ReceiveTimeoutError``, the session's terminal error, ``ResultError``).
    Raises ``ClaudeSDKError`` when the stream ended without a result.
    """
    messages = list(items)
    if not messages or not isinstance(messages[-1], ResultMessage):
        raise ClaudeSDKError("the CLI ended the run without a ResultMessage")
    return messages


def run(prompt: Prompt, *, options: Optional[ClaudeAgentOptions] = None, timeout: Optional[float] = None) -> RunResult:
    """Run the CLI on ``prompt`` to its result and return a ``RunResult`` (caller's thread).

    ``prompt`` is a ``str`` or an iterable of user-message dicts, as for ``query()``.
    ``timeout`` bounds the whole run, start-up included (``query(timeout=)``), and raises
    ``ReceiveTimeoutError``; the CLI is reaped either way. Raises what ``query()`` raises
    (``CLINotFoundError``, ``ProcessError``, ``ResultError`` for an error result unless
    ``options.raise_on_error_result`` is False, ``TypeError`` for a bad prompt).
    """
    from .._query import query

    with query(prompt, options=options or ClaudeAgentOptions(), timeout=timeout) as stream:
        return RunResult.from_messages(collect_turn(stream))
