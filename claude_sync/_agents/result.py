"""``RunResult``: what one run produced, built from its messages (pure, no I/O).

Made by ``run()``, ``AgentPool`` and ``QueryStream.result()`` (so it lives apart from them:
``run`` drives ``query``, and ``query``'s stream builds one).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .._wire.blocks import TextBlock
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.protocol import StreamItem
from .._wire.record import FrozenRecord, frozen_record

__all__ = ["RunResult"]


@frozen_record
class RunResult(FrozenRecord):
    """What one run produced. Immutable and picklable (every message is a frozen record).

    ``text`` is the final answer (the result's ``result`` text, or the last assistant text
    when the CLI sent none). ``total_cost_usd`` is the cost of *this* run: on a CLI reused by
    ``AgentPool``, the CLI 2.1.197 reports its process-wide running total in the
    ``ResultMessage`` (``result.total_cost_usd``), and ``RunResult`` subtracts what earlier
    runs on that process had cost. ``result`` is the raw ``ResultMessage`` as the CLI sent it.

    Attributes:
        text: The final answer (see above).
        result: The run's last ``ResultMessage``, as the CLI sent it.
        messages: Everything the run yielded, in order (messages, and ``OversizedLineSkipped``
            items).
        structured_output: The validated value of ``output_format``'s schema, when one was asked
            for; else None.
        session_id: The run's session id (resume it with ``ClaudeAgentOptions(resume=…)``).
        total_cost_usd: What this run cost, in US dollars (see above); None when the CLI did not
            say.
        usage: The run's token counts (the result's ``usage``).
        num_turns: How many model turns it took.
        duration_ms: Its wall time as the CLI measured it, in milliseconds.
        is_error: Whether it ended with an error result (then ``run()`` raised, unless
            ``raise_on_error_result=False``).
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
