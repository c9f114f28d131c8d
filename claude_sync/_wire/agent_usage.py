"""Usage per agent: what the main agent and each subagent or background task of a run used
(pure: messages in, records out; no threads, no I/O, no clocks).

Where each figure comes from, as the CLI reports it (seen on 2.1.197 and 2.1.332 against a
fake API):

- *Calls* (tool calls and model requests) are counted from the stream itself: an assistant
  line belongs to the agent its ``parent_tool_use_id`` names (None: the main agent), one
  model request per distinct ``message_id`` (the CLI sends one line per content block), one
  tool call per ``tool_use`` block. Exact for what the CLI streams: 2.1.332 streams every
  message of a subagent; 2.1.197 does not stream a subagent's last reply (it comes back as
  the ``Agent`` tool's result), so there a subagent's ``model_requests`` is one short.
- *Tokens of the main agent* are the ``ResultMessage.usage`` of the run's results: the CLI
  counts only the top-level agent's requests there (a subagent's are not in it). Summed over
  the run's results (a run the CLI woke again ends with several).
- *Tokens, tool uses and time of a task* are the ``usage`` of its ``task_notification`` (or
  its last ``task_progress``): the CLI gives one ``total_tokens`` figure per task, not input
  and output apart — and not the sum over the task's requests (2.1.197: 27, 2.1.333: 34, for
  a subagent whose two requests the fake API counted as 85 tokens). So when the run's own
  tokens are known (``run_usage``: the CLI's ``modelUsage``, every agent's requests) and the
  run had exactly one task, that task gets the run's tokens minus the main agent's, split
  into input/output/cache, and the agents add up to the run; with several tasks the run's
  remainder cannot be told apart, and each keeps the CLI's ``total_tokens`` (input/output
  None).
- *Cost* is only known per model (``ResultMessage.model_usage[model].costUSD``, every agent
  together). An agent gets a cost when every model it used was used by no other agent of the
  run; otherwise its ``cost_usd`` is None (two agents sharing a model cannot be told apart).
  A run without subagents gives the main agent the run's cost.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from .blocks import ServerToolUseBlock, ToolUseBlock
from .messages import AssistantMessage, ResultMessage
from .record import FrozenRecord, frozen_record
from .run_totals import TOKEN_KEYS, results_usage
from .serde import SerdeMixin
from .system_messages import TaskNotificationMessage, TaskProgressMessage, TaskStartedMessage

__all__ = ["AgentLedger", "AgentUsage", "MAIN_AGENT", "agents_footer", "usage_by_agent"]

MAIN_AGENT = "main"
"""``AgentUsage.agent`` of the top-level agent (a subagent's is the id of the tool call that
started it)."""



@frozen_record
class AgentUsage(SerdeMixin, FrozenRecord):
    """What one agent of a run used (see the module docstring for where each figure comes from).

    Attributes:
        agent: ``"main"`` for the top-level agent; for a subagent or background task, the id of
            the tool call that started it (the ``parent_tool_use_id`` of its messages).
        task_type: The CLI's kind of task (``local_agent``, ``local_bash`` …); None for main.
        subagent_type: The subagent's type (``general-purpose`` …), when it is one.
        description: What the task was started to do, as the CLI reports it.
        status: How the task ended (``completed``, ``failed``, ``stopped`` …); None while it
            runs, and for the main agent.
        model_requests: Model requests the agent made (distinct assistant message ids).
        tool_calls: Tool calls the agent made (server tools included).
        tools: Calls per tool name.
        models: The models its requests went to, in order of first use.
        input_tokens: Input tokens (main agent only; None for a task).
        output_tokens: Output tokens (main agent only; None for a task).
        cache_read_input_tokens: Input tokens read from the prompt cache (main agent only).
        cache_creation_input_tokens: Input tokens written to the prompt cache (main agent only).
        total_tokens: All tokens: the four above summed for main, the CLI's figure for a task.
        duration_ms: Wall time: the results' ``duration_ms`` summed for main, the task's own.
        cost_usd: What the agent cost, when the CLI's per-model figures allow telling it
            apart (see the module docstring); else None.
    """

    agent: str
    task_type: Optional[str] = None
    subagent_type: Optional[str] = None
    description: Optional[str] = None
    status: Optional[str] = None
    model_requests: int = 0
    tool_calls: int = 0
    tools: Dict[str, int] = dataclasses.field(default_factory=dict)
    models: Tuple[str, ...] = ()
    input_tokens: Optional[int] = None
    output_tokens: Optional[int] = None
    cache_read_input_tokens: Optional[int] = None
    cache_creation_input_tokens: Optional[int] = None
    total_tokens: Optional[int] = None
    duration_ms: Optional[int] = None
    cost_usd: Optional[float] = None


class _Tally:
    """The mutable counts of one agent while the messages are read."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.fields: Dict[str, Any] = {}
        self.message_ids: Set[str] = set()
        self.anonymous_requests = 0
        self.tools: Dict[str, int] = {}
        self.models: List[str] = []

    def copy(self) -> _Tally:
        twin = _Tally(self.agent)
        twin.fields, twin.message_ids = dict(self.fields), set(self.message_ids)
        twin.anonymous_requests, twin.tools, twin.models = self.anonymous_requests, dict(self.tools), list(self.models)
        return twin

    def add_assistant(self, message: AssistantMessage) -> None:
        if message.message_id is None:
            self.anonymous_requests += 1
        else:
            self.message_ids.add(message.message_id)
        if message.model and message.model not in self.models:
            self.models.append(message.model)
        for block in message.content:
            if isinstance(block, (ToolUseBlock, ServerToolUseBlock)):
                self.tools[block.name] = self.tools.get(block.name, 0) + 1

    def record(self, cost: Optional[float]) -> AgentUsage:
        return AgentUsage(
            agent=self.agent,
            model_requests=len(self.message_ids) + self.anonymous_requests,
            tool_calls=sum(self.tools.values()),
            tools=dict(self.tools),
            models=tuple(self.models),
            cost_usd=cost,
            **self.fields,
        )


class AgentLedger:
    """Usage per agent, kept as a run's messages go by (``observe`` each, in order; then
    ``records``). One thread at a time. Keeps counts, never the messages."""

    def __init__(self) -> None:
        self.tallies: Dict[str, _Tally] = {MAIN_AGENT: _Tally(MAIN_AGENT)}
        self.results: List[ResultMessage] = []

    def observe(self, message: Any) -> None:
        """Count ``message`` (any stream item; those that say nothing of usage are ignored)."""
        if isinstance(message, AssistantMessage):
            _tally(self.tallies, message.parent_tool_use_id).add_assistant(message)
        elif isinstance(message, ResultMessage):
            self.results.append(message)
        elif isinstance(message, TaskStartedMessage):
            _note_task_start(self.tallies, message)
        elif isinstance(message, (TaskProgressMessage, TaskNotificationMessage)):
            _note_task_usage(self.tallies, message)

    def records(
        self, *, run_cost: Optional[float] = None, fresh_cli: bool = True, run_usage: Optional[Dict[str, int]] = None
    ) -> Tuple[AgentUsage, ...]:
        """The main agent first, then each task in the order it started (or was first seen);
        the arguments as ``usage_by_agent`` takes them."""
        main = self.tallies[MAIN_AGENT].copy()  # records() may be asked again as more arrives
        _note_main_usage(main, self.results)
        tallies = dict(self.tallies, **{MAIN_AGENT: main})
        if run_usage is not None and len(tallies) == 2:
            task = next(agent for agent in tallies if agent != MAIN_AGENT)
            tallies[task] = _with_remainder(tallies[task], main, run_usage)
        costs = _costs(tallies, self.results, run_cost, fresh_cli)
        return tuple(tally.record(costs.get(agent)) for agent, tally in tallies.items())


def usage_by_agent(
    messages: Iterable[Any], *, run_cost: Optional[float] = None, fresh_cli: bool = True,
    run_usage: Optional[Dict[str, int]] = None,
) -> Tuple[AgentUsage, ...]:
    """The main agent first, then each task in the order it started (or was first seen).

    ``messages``: a run's stream items, in order. ``run_cost``: what the run cost (the
    ``RunResult``'s figure), given to the main agent of a run without tasks. ``fresh_cli``:
    False for a run on a CLI that served runs before (``AgentPool``): the CLI's per-model
    figures then may hold the earlier runs too, so no task's cost is told apart.
    ``run_usage``: the run's tokens over every agent's requests (``RunTotals.usage`` from
    ``modelUsage``), or None: a run with one task gives it the remainder (module docstring).
    Never raises for odd input: a field of the wrong type is left out of the figures it would
    have fed.
    """
    ledger = AgentLedger()
    for message in messages:
        ledger.observe(message)
    return ledger.records(run_cost=run_cost, fresh_cli=fresh_cli, run_usage=run_usage)


def agents_footer(agents: Tuple[AgentUsage, ...]) -> List[str]:
    """One line per agent for a run's footer (``show()``), when it had tasks; else none:
    ``main: 3 requests · 2 tool calls · 1,234 tokens · 0.2 s`` and
    ``general-purpose "helper": 2 requests · 1 tool call · 34 tokens · 0.2 s · completed``."""
    if len(agents) < 2:
        return []
    return [_agent_line(agent) for agent in agents]


def _agent_line(agent: AgentUsage) -> str:
    if agent.agent == MAIN_AGENT:
        name = "main"
    else:
        kind = agent.subagent_type or agent.task_type or "task"
        name = f"{kind} {agent.description!r}" if agent.description else kind
    parts = [f"{agent.model_requests} request{'s' if agent.model_requests != 1 else ''}"]
    parts.append(f"{agent.tool_calls} tool call{'s' if agent.tool_calls != 1 else ''}")
    if agent.total_tokens is not None:
        parts.append(f"{agent.total_tokens:,} tokens")
    if agent.cost_usd is not None:
        parts.append(f"${agent.cost_usd:.4f}")
    if agent.duration_ms is not None:
        parts.append(f"{agent.duration_ms / 1000.0:.1f} s")
    if agent.status:
        parts.append(agent.status)
    return f"{name}: " + " · ".join(parts)


def _tally(tallies: Dict[str, _Tally], parent_tool_use_id: Optional[str]) -> _Tally:
    agent = parent_tool_use_id if isinstance(parent_tool_use_id, str) and parent_tool_use_id else MAIN_AGENT
    tally = tallies.get(agent)
    if tally is None:
        tally = tallies[agent] = _Tally(agent)
    return tally


def _note_task_start(tallies: Dict[str, _Tally], message: TaskStartedMessage) -> None:
    if not isinstance(message.tool_use_id, str) or not message.tool_use_id:
        return
    fields = _tally(tallies, message.tool_use_id).fields
    for name in ("task_type", "subagent_type", "description"):
        value = getattr(message, name)
        if isinstance(value, str):
            fields[name] = value


def _note_task_usage(tallies: Dict[str, _Tally], message: Any) -> None:
    if not isinstance(message.tool_use_id, str) or not message.tool_use_id:
        return
    fields = _tally(tallies, message.tool_use_id).fields
    usage = message.usage if isinstance(message.usage, dict) else {}
    for source, name in (("total_tokens", "total_tokens"), ("duration_ms", "duration_ms")):
        value = usage.get(source)
        if _is_count(value):
            fields[name] = value
    status = getattr(message, "status", None)
    if isinstance(message, TaskNotificationMessage) and isinstance(status, str):
        fields["status"] = status


def _note_main_usage(main: _Tally, results: List[ResultMessage]) -> None:
    if not results:
        return
    totals = results_usage(results)
    if totals is not None:
        main.fields.update(totals)
        main.fields["total_tokens"] = sum(totals.values())
    durations = [r.duration_ms for r in results if _is_count(r.duration_ms)]
    if durations:
        main.fields["duration_ms"] = sum(durations)


def _with_remainder(task: _Tally, main: _Tally, run_usage: Dict[str, int]) -> _Tally:
    """``task`` given the run's tokens minus the main agent's (unchanged when a count is
    missing or would go below 0)."""
    remainder = {key: run_usage.get(key, 0) - main.fields.get(key, 0) for key in TOKEN_KEYS}
    if not all(_is_count(value) for value in remainder.values()):
        return task
    twin = task.copy()
    twin.fields.update(remainder, total_tokens=sum(remainder.values()))
    return twin


def _costs(
    tallies: Dict[str, _Tally], results: List[ResultMessage], run_cost: Optional[float], fresh_cli: bool
) -> Dict[str, float]:
    """Per agent, its cost where the per-model figures tell it apart (see the module doc)."""
    if not results:
        return {}
    if len(tallies) == 1:
        total = run_cost if run_cost is not None else (_run_cost(results) if fresh_cli else None)
        return {} if total is None else {MAIN_AGENT: total}
    if not fresh_cli:
        return {}
    per_model = _model_costs(results[-1].model_usage)
    users: Dict[str, Set[str]] = {}
    for agent, tally in tallies.items():
        for model in tally.models:
            users.setdefault(_base_model(model), set()).add(agent)
    costs: Dict[str, float] = {}
    for agent, tally in tallies.items():
        models = {_base_model(m) for m in tally.models}
        if models and all(users[m] == {agent} and m in per_model for m in models):
            costs[agent] = sum(per_model[m] for m in models)
    return costs


def _run_cost(results: List[ResultMessage]) -> Optional[float]:
    """The last result's running total (the CLI's figure for the whole session)."""
    cost = results[-1].total_cost_usd
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _model_costs(model_usage: Any) -> Dict[str, float]:
    costs: Dict[str, float] = {}
    if not isinstance(model_usage, dict):
        return costs
    for model, entry in model_usage.items():
        value = entry.get("costUSD") if isinstance(entry, dict) else None
        if isinstance(model, str) and isinstance(value, (int, float)) and not isinstance(value, bool):
            base = _base_model(model)
            costs[base] = costs.get(base, 0.0) + float(value)
    return costs


def _base_model(model: str) -> str:
    """``claude-opus-4-8[1m]`` (a ``modelUsage`` key) → ``claude-opus-4-8`` (the messages')."""
    return model.split("[", 1)[0]


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
