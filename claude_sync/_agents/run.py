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

from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from .._options.options import ClaudeAgentOptions
from .._options.portable import CALLABLE_FIELDS, check_picklable_options
from .._wire.blocks import TextBlock
from .._wire.errors import ClaudeSDKError
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.protocol import StreamItem
from .._wire.record import FrozenRecord, frozen_record

__all__ = ["run", "RunResult", "collect_turn", "check_picklable_options", "CALLABLE_FIELDS"]

Prompt = Union[str, Iterable[Dict[str, Any]]]

@frozen_record
class RunResult(FrozenRecord):
    """What one run produced. Immutable and picklable (every message is a frozen record).

    ``text`` is the final answer (the result's ``result`` text, or the last assistant text
    when the CLI sent none). ``total_cost_usd`` is the cost of *this* run: on a CLI reused by
    ``AgentPool``, the CLI 2.1.197 reports its process-wide running total in the
    ``ResultMessage`` (``result.total_cost_usd``), and ``RunResult`` subtracts what earlier
    runs on that process had cost. ``result`` is the raw ``ResultMessage`` as the CLI sent it.
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

    def __repr__(self) -> str:  # messages and the result would drown the useful fields
        return (
            f"RunResult(text={self.text!r}, session_id={self.session_id!r}, is_error={self.is_error}, "
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
    def from_messages(cls, messages: List[StreamItem], cost_before: float = 0.0) -> RunResult:
        """Build from a run's messages; the last ``ResultMessage`` ends it.

        ``cost_before``: the CLI's running total before this run (0 for a fresh CLI).
        Raises ``ValueError`` when there is no ``ResultMessage``.
        """
        result = next((m for m in reversed(messages) if isinstance(m, ResultMessage)), None)
        if result is None:
            raise ValueError("the run ended without a ResultMessage")
        cost = result.total_cost_usd
        if cost is not None and cost_before:
            cost = max(0.0, cost - cost_before)
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
        )


def _final_text(result: ResultMessage, messages: List[StreamItem]) -> str:
    if isinstance(result.result, str) and result.result:
        return result.result
    for message in reversed(messages):
        if isinstance(message, AssistantMessage) and message.parent_tool_use_id is None:
            parts = [block.text for block in message.content if isinstance(block, TextBlock)]
            if parts:
                return "".join(parts)
    return ""


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
