"""``RunResult``: what one run produced, built from its messages (pure, no I/O).

Made by ``run()``, ``AgentPool`` and ``QueryStream.result()``: it lives beside ``query()``
(``_query``), whose stream builds one, below ``_agents`` (``run`` drives ``query``). Generic in
the class of a typed run's output (``RunResult[Invoice]``); ``typing_extensions`` (for the
TypeVar default) is only read by type checkers, so ``import claude_sync`` does not load it.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from typing import TYPE_CHECKING, Any, Dict, Generic, Iterable, List, Optional, Tuple

from ._wire.agent_usage import AgentUsage, usage_by_agent
from ._wire.blocks import TextBlock
from ._wire.errors import StructuredOutputError
from ._wire.messages import AssistantMessage, ResultMessage, message_from_dict
from ._wire.protocol import StreamItem
from ._wire.record import FrozenRecord, frozen_record
from ._wire.run_totals import run_totals
from ._wire.serde import SerdeMixin, decoder_metadata

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import TypeVar

    T = TypeVar("T", default=Any)
else:
    from typing import TypeVar

    T = TypeVar("T")
"""The output class of a typed run (``RunResult[Invoice]``); ``Any`` for an untyped one."""

__all__ = ["RunResult", "T", "stream_items_from_dicts"]


def stream_items_from_dicts(items: Iterable[Dict[str, Any]]) -> Tuple[StreamItem, ...]:
    """``RunResult.messages`` from their ``to_dict()`` form, each by its ``type``/``subtype``
    (``message_from_dict``)."""
    return tuple(message_from_dict(item) for item in items)


def _results_from_dicts(items: Iterable[Dict[str, Any]]) -> Tuple[ResultMessage, ...]:
    return tuple(ResultMessage.from_dict(item) for item in items)


def _agents_from_dicts(items: Iterable[Dict[str, Any]]) -> Tuple[AgentUsage, ...]:
    return tuple(AgentUsage.from_dict(item) for item in items)


def _output_error_to_json(error: Optional[StructuredOutputError]) -> Optional[Dict[str, Any]]:
    return None if error is None else error.init_kwargs()


def _output_error_from_json(value: Optional[Dict[str, Any]]) -> Optional[StructuredOutputError]:
    return None if value is None else StructuredOutputError(**value)


@frozen_record
class RunResult(SerdeMixin, FrozenRecord, Generic[T]):
    """What one run produced. Immutable and picklable (every message is a frozen record), and
    JSON round-trips: ``to_dict()``/``to_json()`` and ``RunResult.from_dict``/``from_json``
    (dataclasses-json, as the messages), for engines whose serializer is JSON. A Celery task
    can return it as it is: kombu's JSON encoder calls ``__json__()`` (``to_dict()``), and
    the caller gets that dict back (``RunResult.from_dict(task.get())``). In the JSON form
    ``output`` is the run's JSON value (``structured_output``); ``parse_output(cls,
    result.output)`` makes the instance again after ``from_dict``.

    A run is everything until the CLI is idle: a background agent that finishes wakes the CLI
    for another turn, which ends with a ``ResultMessage`` of its own, so a run may end more
    than once. ``results`` keeps every one, in order; ``result`` is the last; ``text`` is the
    final answer (the last result's ``result`` text, or the last assistant text when the CLI
    sent none). ``usage``, ``num_turns``, ``duration_ms`` and ``total_cost_usd`` cover the
    whole run (``claude_sync._wire.run_totals`` says which of the CLI's figures are per
    result and which cumulative): turns and the CLI's time summed over the results; the
    tokens of every model request of the run, subagents' included (from the CLI's
    ``modelUsage``; the results' ``usage`` summed — the main agent's only — when the CLI sent
    none); ``total_cost_usd`` the cost of *this* run: on a CLI reused by ``AgentPool`` the
    CLI reports a running total, and ``RunResult`` subtracts what earlier runs had cost.

    ``output``: with a class as ``output_format``, the instance (``RunResult[Invoice]``:
    type checkers see ``result.output.total``); with a schema dict, the JSON value
    (``structured_output``); else None. ``output_error``: the ``StructuredOutputError`` of a
    run that produced no fitting value — raised instead, unless
    ``options.raise_on_error_result`` is False (then ``output`` is None).

    Attributes:
        text: The final answer (see above).
        result: The run's last ``ResultMessage``, as the CLI sent it.
        results: Every ``ResultMessage`` of the run, in order (``result`` is the last).
        messages: Everything the run yielded, in order (messages, and ``OversizedLineSkipped``
            items).
        structured_output: The validated value of ``output_format``'s schema, when one was asked
            for; else None.
        session_id: The run's session id (resume it with ``ClaudeAgentOptions(resume=…)``).
        total_cost_usd: What this run cost, in US dollars (see above); None when the CLI did not
            say.
        usage: The run's token counts, every agent's requests (``input_tokens``,
            ``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens``;
            see above); None when the CLI reported none.
        num_turns: The main agent's model turns, summed over the run's results.
        duration_ms: The CLI's own time in the run's turns, summed over its results, in
            milliseconds (not the wall time the caller waited: between two turns only a
            background agent worked, and that time is in no result).
        is_error: Whether it ended with an error result (then ``run()`` raised, unless
            ``raise_on_error_result=False``).
        output: The instance of ``output_format``'s class (or the JSON value of a schema dict);
            None for an untyped run.
        output_error: The ``StructuredOutputError`` of a run without a fitting value (see above).
        agents: Usage per agent: the main agent first, then each subagent or background task
            (``AgentUsage``: model requests, tool calls, tokens, time, and cost where the
            CLI's figures tell it apart; ``claude_sync._wire.agent_usage`` says where each
            figure comes from). The agents' ``total_tokens`` add up to ``usage``'s four counts
            when the run had at most one task (with several, the CLI's figures cannot tell
            their tokens apart: each keeps the CLI's own ``total_tokens``).
    """

    text: str
    result: ResultMessage = dataclasses.field(metadata=decoder_metadata(ResultMessage.from_dict))
    messages: Tuple[StreamItem, ...] = dataclasses.field(metadata=decoder_metadata(stream_items_from_dicts))
    structured_output: Any
    session_id: str
    total_cost_usd: Optional[float]
    usage: Optional[Dict[str, Any]]
    num_turns: int
    duration_ms: int
    is_error: bool
    output: T = dataclasses.field(default=None)  # type: ignore[assignment]  # None: untyped runs
    output_error: Optional[StructuredOutputError] = dataclasses.field(
        default=None,
        metadata={"dataclasses_json": {"encoder": _output_error_to_json, "decoder": _output_error_from_json}},
    )
    agents: Tuple[AgentUsage, ...] = dataclasses.field(default=(), metadata=decoder_metadata(_agents_from_dicts))
    results: Tuple[ResultMessage, ...] = dataclasses.field(default=(), metadata=decoder_metadata(_results_from_dicts))

    def to_dict(self, encode_json: bool = False) -> Dict[str, Any]:
        """This result as plain values; ``output`` as its JSON value (see the class doc)."""
        plain = self if self.output is None else dataclasses.replace(self, output=self.structured_output)
        return SerdeMixin.to_dict(plain, encode_json=encode_json)

    def to_json(self, **json_dumps_kwargs: Any) -> str:
        """This result as JSON text (``to_dict()`` dumped; keyword arguments go to
        ``json.dumps``); ``RunResult.from_json`` reads it back. Raises ``ValueError`` for
        ``allow_nan=False`` and a NaN in it."""
        return SerdeMixin.to_json(self, **json_dumps_kwargs)

    @classmethod
    def from_dict(cls, kvs: Dict[str, Any], *, infer_missing: bool = False) -> RunResult[Any]:
        """A result from ``to_dict()`` (or ``__json__()``) output, e.g. what a Celery task
        returned (``RunResult.from_dict(task.get())``); ``output`` comes back as its JSON
        value (None for an untyped run). Raises ``KeyError`` for a missing field (unless
        ``infer_missing``) and what a message's decoder raises for a malformed one."""
        with warnings.catch_warnings():  # dataclasses-json cannot tell that a TypeVar field may be None
            warnings.filterwarnings("ignore", "'NoneType' object value of non-optional type output", RuntimeWarning)
            rebuilt: RunResult[Any] = SerdeMixin.from_dict.__func__(cls, kvs, infer_missing=infer_missing)  # type: ignore[attr-defined]
        return rebuilt

    @classmethod
    def from_json(cls, text: str, *, infer_missing: bool = False) -> RunResult[Any]:
        """A result from ``to_json()`` text, or from the JSON a ``__json__``-aware encoder
        (kombu's) wrote for it. Raises ``json.JSONDecodeError`` for text that is not JSON,
        and what ``from_dict`` raises."""
        return cls.from_dict(json.loads(text), infer_missing=infer_missing)

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
        from ._display.live import run_result_html

        return run_result_html(self)

    def _repr_markdown_(self) -> str:
        """The run as ``show()`` ends it (``live.run_result_markdown``)."""
        from ._display.live import run_result_markdown

        return run_result_markdown(self)

    @classmethod
    def from_messages(
        cls,
        messages: List[StreamItem],
        cost_before: float = 0.0,
        output_format: Any = None,
        usage_before: Optional[Dict[str, Any]] = None,
    ) -> RunResult[Any]:
        """Build from a run's messages; every ``ResultMessage`` among them is one of its
        results, the last ends it.

        ``cost_before``: the CLI's running total before this run (0 for a fresh CLI).
        ``output_format``: the run's (a class or a schema dict), for ``output``.
        ``usage_before``: the ``modelUsage`` of the CLI's last result before this run (a
        reused CLI's ``/clear``); None for a fresh CLI.
        Raises ``ValueError`` when there is no ``ResultMessage``.
        """
        results = [m for m in messages if isinstance(m, ResultMessage)]
        if not results:
            raise ValueError("the run ended without a ResultMessage")
        result = results[-1]
        totals = run_totals(results, cost_before, usage_before)
        cost = totals.total_cost_usd
        output: Any = None
        output_error: Optional[StructuredOutputError] = None
        if output_format is not None:
            from ._structured import outcome  # typed output: first use only

            output, output_error = outcome.output_outcome(output_format, result, outcome.AttemptLog.of(messages))
        return cls(
            text=_final_text(result, messages),
            result=result,
            messages=tuple(messages),
            structured_output=result.structured_output,
            session_id=result.session_id,
            total_cost_usd=cost,
            usage=totals.usage,
            num_turns=totals.num_turns,
            duration_ms=totals.duration_ms,
            is_error=result.is_error,
            output=output,
            output_error=output_error,
            agents=usage_by_agent(
                messages, run_cost=cost, fresh_cli=not cost_before and not usage_before,
                run_usage=totals.usage if totals.tokens_from == "modelUsage" else None,
            ),
            results=tuple(results),
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
