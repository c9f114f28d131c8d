"""One pooled CLI, and when it may serve another run: the conversation reset and its policy.

A connected ``ClaudeSDKClient`` to which no prompt was sent is a *warm* CLI: spawned,
``initialize`` answered, waiting for its first user message. After a run, the same CLI can
serve the next one once the CLI's own conversation reset has run: a ``/clear`` user turn.
Measured against the real CLI (2.1.197 and 2.1.330, fake API):

- 2.1.197 answers ``/clear`` with ``system/init`` carrying a **new** ``session_id``, a
  synthetic assistant message (model ``<synthetic>``, text ``(no content)``) and a
  ``result`` with ``num_turns == 0``. Its ``total_cost_usd`` (and ``modelUsage``) are the
  process-wide running totals, and stay so in later results: the next run's cost is the
  difference (``CliSlot.cost_before``).
- 2.1.330 answers with a ``conversation_reset`` message (``trigger: "clear"``,
  ``new_conversation_id``), ``system/background_tasks_changed`` (``tasks: []``), ``system/init``
  with the new ``session_id``, and a ``result`` with ``num_turns == 0``,
  ``local_command: "clear"`` and ``total_cost_usd == 0`` (its totals restart).
- Both: the next API request carries none of the earlier conversation.

What ``/clear`` costs and does (``python bench/agents.py --only reset``; fake API, one warm
CLI, CPU of the CLI and its children from /proc, medians): on 2.1.197 a turn costs ~20 ms,
``/clear`` alone ~6-8 ms, ``/clear`` + a turn ~28 ms; on 2.1.332 a turn ~27 ms, ``/clear``
~20 ms, ``/clear`` + a turn ~55 ms (the turn after a reset costs ~8 ms more: the CLI's caches
were dropped). Neither version sends an API request for it (no title, no summary) or runs a
hook unless one is configured; both write the new session's transcript (~1.7 KB: mode, the
command, its output), a line to the old one (2.1.332: ``cost-state``) and
``sessions/<pid>.json``; 2.1.332 also rewrites ``.claude.json`` (lock, backup, rename). Writing
``/clear`` and the next prompt together costs the same CPU (2.1.332: 54-59 vs 52-55 ms), and
would send the prompt before the reset is proven. Neither CLI has a control request that
resets the conversation, and a user frame's ``session_id`` is ignored (the next request still
carries the earlier turns). ``--no-session-persistence`` saves no measurable CPU on
``/clear`` and would drop the transcripts a run's ``session_id`` resumes. So the pool keeps
the ``/clear``, and skips it only when no run can follow (shut down, nothing queued).

What the reset clears, measured on both versions (a ``ClaudeSDKClient``, the same CLI, with
and without ``/clear`` in between): the conversation; the files read (2.1.197 refuses an
``Edit`` of a file read before the reset, "File has not been read yet"; 2.1.330 no longer
adds "(file state is current …)" to it); the Bash tool's working directory (2.1.330 keeps a
``cd`` across turns, and ``/clear`` resets it; 2.1.197 does not keep it at all). What it does
**not** clear: permission rules granted for the session (an allow with ``updated_permissions``
to ``session`` still applies after ``/clear``: the callback is not asked again), and
``set_permission_mode`` (``system/init`` after ``/clear`` still reports the new mode).

So a CLI is retired, not reset (``retire_reason``), after: a run whose result deferred a tool
call (``tool_deferred``: a further prompt to it loses the call); a run that used any tool but the
read-only ``READ_ONLY_TOOLS`` — and after those too when the options carry a permission
callback or a permission prompt tool (an answer could have granted session rules);
Bash (background processes), subagents, MCP tools (server state), worktree and cron tools
always retire; a prompt that is a slash command (``/config permissionMode=acceptEdits``
writes the user's ``settings.json``: ``SLASH_COMMAND_WRITES``); a run that failed or was cancelled; a reset whose answer does not have the
shape above; a CLI whose model / permission mode / cwd / tools / MCP servers drifted from
what its first run reported; a CLI that served ``max_runs`` runs (memory); any CLI whose
options set hooks (they would see the reset: ``SessionEnd``/``SessionStart`` with source
``clear``) or any of ``SESSION_BOUND_OPTIONS`` (``resume``, ``session_id``, a session store,
``max_budget_usd`` …). Leased clients (``AgentPool.client()``) are never reused.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from .._options.options import ClaudeAgentOptions
from .._wire.blocks import ServerToolUseBlock, ToolUseBlock
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.protocol import StreamItem
from .._wire.record import FrozenRecord, Record
from .._wire.system_messages import SystemMessage

__all__ = [
    "CliSlot", "SLASH_COMMAND_WRITES", "init_fingerprint", "is_alive", "options_retire_reason", "reset_answer_problem",
    "reset_conversation", "retire_reason", "slash_command", "slash_command_reason", "snapshot_options",
]  # fmt: skip

RESET_PROMPT = "/clear"
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "StructuredOutput"})
"""Tools whose only lasting effect ``/clear`` was measured to clear: the files read, and for
``StructuredOutput`` (``output_format``) the count of failed calls the CLI allows
(``MAX_STRUCTURED_OUTPUT_RETRIES``), which starts again after the reset."""
SESSION_BOUND_OPTIONS = (
    "resume",  # a reset would drop the resumed conversation: the next run must load it again
    "continue_conversation",
    "session_id",  # the reset makes a new session id, not the one asked for
    "fork_session",
    "resume_session_at",
    "session_store",  # transcripts mirrored per session: a reset was not measured there
    "enable_file_checkpointing",  # checkpoints of earlier runs' files
    "max_budget_usd",  # 2.1.197 counts cost per process: later runs would hit it early
    "trace_cli",  # the CLI's spans go under the TRACEPARENT it was started with: the first run's trace
    "task_budget",
)
"""Options whose meaning spans the CLI's whole life: a CLI started with any of them set is
never reset for another run."""
SLASH_COMMAND_WRITES = {
    "/config permissionMode=… model=… theme=… verbose=… language=… autoCompact=… thinking=… "
    "checkpoints=… editor=…": "~/.claude/settings.json (the user's settings: every later CLI)",
    "/config outputStyle=…, tips=… (2.1.197)": "<cwd>/.claude/settings.local.json",
    "/config gitignore=…": "~/.claude.json (respectGitignore)",
    "/output-style NAME (2.1.331)": "<cwd>/.claude/settings.local.json, and ~/.config/git/ignore",
    "/rename NAME (2.1.331)": "custom-title.json next to the session's transcript",
    "/heapdump": "a heap snapshot of the CLI (its memory: keys included) and diagnostics in HOME",
    "/debug": "~/.claude/debug/",
    "/insights": "~/.claude/usage-data/report*.html (and 9 API requests)",
}
"""What a prompt that is a slash command writes outside the conversation, measured on CLI
2.1.197 and 2.1.331 (fresh HOME, the fake API; every listed command, with arguments). The
other local commands write nothing but the transcript (``/model`` and ``/color`` on 2.1.331
are "for this session only"); prompt commands (``/init``, ``/review``, ``/update-config`` …)
go to the model, whose tool calls retire the CLI anyway. ``verbatim_prompts=True`` stops all
of it on 2.1.331 (the prompt goes to the model as text); 2.1.197 ignores it."""


def snapshot_options(options: ClaudeAgentOptions) -> ClaudeAgentOptions:
    """A private copy of ``options`` that later changes to the caller's object cannot reach:
    the fields, and the dicts, lists, tuples, sets and records they hold, are copied; other
    objects (callbacks, stores, MCP server instances) are shared, and compare by identity.
    The pool starts a CLI from such a copy and keys its parked CLIs on it, so
    ``opts.cwd = …`` after a CLI started gives the next run a CLI with the new ``cwd``."""
    clone = copy.copy(options)
    for name, value in vars(clone).items():
        vars(clone)[name] = _data_copy(value, 0)
    return clone


def _data_copy(value: Any, depth: int) -> Any:
    if depth > 50:
        return value
    if isinstance(value, dict):
        return {key: _data_copy(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, set)):
        return type(value)(_data_copy(item, depth + 1) for item in value)
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_data_copy(item, depth + 1) for item in value)
    if isinstance(value, Record) and not isinstance(value, FrozenRecord):
        clone = copy.copy(value)
        for name, item in vars(clone).items():
            vars(clone)[name] = _data_copy(item, depth + 1)
        return clone
    return value


class CliSlot:
    """A connected client the pool owns, and what it knows about that CLI.

    Touched by one thread at a time (the worker or keeper holding it, or the pool lock
    while parked).
    """

    __slots__ = ("client", "options", "runs", "cost_before", "usage_before", "fingerprint", "session_ids")

    def __init__(self, client: Any, options: ClaudeAgentOptions) -> None:
        self.client = client
        self.options = options
        self.runs = 0
        self.cost_before = 0.0
        self.usage_before: Optional[Dict[str, Any]] = None
        """The ``modelUsage`` of the CLI's last ``/clear`` (its running totals); None while fresh."""
        self.fingerprint: Optional[Dict[str, Any]] = None
        self.session_ids: List[str] = []

    @property
    def pid(self) -> Optional[int]:
        session = self.client.session
        return None if session is None else session.pid

    def close(self) -> None:
        """Reap the CLI (bounded by the close ladder; idempotent; any thread)."""
        self.client.close()


def is_alive(slot: CliSlot) -> bool:
    """True while the CLI process runs and its session has not ended (any thread).

    Reads the session the public ``ClaudeSDKClient.session`` property exposes.
    """
    session = slot.client.session
    if session is None or session.closed or session.terminal_error is not None:
        return False
    transport = session.transport
    return transport is not None and transport.exit_code() is None


def init_fingerprint(messages: List[StreamItem]) -> Optional[Dict[str, Any]]:
    """The state a ``system/init`` reports that a run could change and a reset must not."""
    for message in messages:
        init = message.init if isinstance(message, SystemMessage) else None
        if init is not None:
            return {
                "model": init.model,
                "permission_mode": init.permission_mode,
                "cwd": init.cwd,
                "tools": init.tools,
                "mcp_servers": [server.get("name") for server in (init.mcp_servers or [])],
            }
    return None


def used_tools(messages: List[StreamItem]) -> List[str]:
    """Names of the tools the run's assistant messages called (subagents' included)."""
    names: List[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, (ToolUseBlock, ServerToolUseBlock)):
                    names.append(block.name)
    return names


def slash_command(prompt: Optional[str]) -> Optional[str]:
    """The slash command a prompt runs (``"config"`` for ``"/config permissionMode=…"``), or
    None. Measured on 2.1.197 and 2.1.331: only a prompt that *starts* with ``/`` is a command
    (``" /config …"`` and ``"please /config …"`` go to the model)."""
    if not prompt or not prompt.startswith("/"):
        return None
    name = prompt[1:].split(None, 1)[0] if len(prompt) > 1 and not prompt[1].isspace() else ""
    return name or None


def retire_reason(
    slot: CliSlot, messages: List[StreamItem], max_runs: int, *, prompt: Optional[str] = None
) -> Optional[str]:
    """Why this CLI must not serve another run after ``messages`` (None: a reset may).
    ``prompt``: the run's prompt (a slash command retires the CLI).

    The first run's ``system/init`` becomes the CLI's fingerprint, whatever the verdict."""
    fingerprint = init_fingerprint(messages)
    if slot.fingerprint is None:
        slot.fingerprint = fingerprint
    last = messages[-1] if messages else None
    if isinstance(last, ResultMessage) and last.deferred_tool_use is not None:
        return ("the run ended with a deferred tool call (an approval waits): a further prompt to "
                "this CLI would lose the call, and only a resume may take it up")
    command = slash_command_reason(prompt)
    if command is not None:
        return command
    if fingerprint is None:
        return "the run sent no system/init"
    if fingerprint != slot.fingerprint:
        return f"the CLI's state drifted: {_drift(fingerprint, slot.fingerprint)}"
    if slot.runs >= max_runs:
        return f"served {slot.runs} runs (max_runs_per_cli={max_runs})"
    options = slot.options
    reason = options_retire_reason(options)
    if reason is not None:
        return reason
    tools = set(used_tools(messages))
    if tools - READ_ONLY_TOOLS:
        return f"the run used tools {sorted(tools)}; their state may outlive /clear"
    if tools and (options.can_use_tool or options.permission_prompt_tool_name):
        return f"the run used tools {sorted(tools)} with a permission callback (session rules outlive /clear)"
    return None


def slash_command_reason(prompt: Optional[str]) -> Optional[str]:
    """Why a run whose prompt is ``prompt`` leaves its CLI unfit for another run: the prompt
    is a slash command (``slash_command``); else None."""
    command = slash_command(prompt)
    if command is None:
        return None
    return (f"the prompt ran the slash command /{command}, which may change the CLI's state and "
            "settings files outside the conversation (see SLASH_COMMAND_WRITES)")


def options_retire_reason(options: ClaudeAgentOptions) -> Optional[str]:
    """Why a CLI started from ``options`` must never serve another run, whatever the run did
    (None: the options allow a reset): ``slash_commands=False``, a ``SESSION_BOUND_OPTIONS``
    option set, hooks. ``AgentPool`` and the shared pool's leases both ask this."""
    if not options.slash_commands:
        return "slash_commands=False: the /clear reset would go to the model as text (an API request)"
    bound = [name for name in SESSION_BOUND_OPTIONS if getattr(options, name, None)]
    if bound:
        return f"the options set {bound}, which a reset would not honour for the next run"
    if options.hooks:
        return "hooks are set: they would see the reset (SessionEnd/SessionStart 'clear', the /clear prompt)"
    return None


def _drift(now: Dict[str, Any], before: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The fields of ``now`` that differ from ``before``: {field: (before, now)}."""
    before = before or {}
    return {key: (before.get(key), value) for key, value in now.items() if before.get(key) != value}


def reset_conversation(slot: CliSlot, timeout: float) -> Optional[str]:
    """Send ``/clear`` and check the answer (worker thread). Returns why it failed, or
    None after a proven reset; then ``slot.cost_before`` and ``slot.usage_before`` are the
    CLI's running totals (cost, ``modelUsage``).

    Raises what ``ClaudeSDKClient.query``/``receive_response`` raise (the caller retires
    the CLI on any exception).
    """
    slot.client.query(RESET_PROMPT, timeout=timeout)
    answer = list(slot.client.receive_response(timeout=timeout))
    problem = reset_answer_problem(answer, slot.fingerprint, slot.session_ids)
    if problem is not None:
        return problem
    result = answer[-1]
    assert isinstance(result, ResultMessage)
    slot.session_ids.append(result.session_id)
    slot.cost_before = result.total_cost_usd or 0.0
    slot.usage_before = result.model_usage if isinstance(result.model_usage, dict) else {}
    return None


def reset_answer_problem(answer: List[StreamItem], baseline: Optional[Dict[str, Any]], session_ids: List[str]) -> Optional[str]:
    """Why ``answer`` (the messages a ``/clear`` got, its ``result`` last) does not prove a
    reset, or None: it must end with a clean zero-turn ``result``, carry a ``system/init``
    whose fingerprint has not drifted from ``baseline`` (the CLI's first one: a None baseline
    fails), and a session id none of ``session_ids`` (the CLI's earlier ones). Pure; shared by
    ``AgentPool`` and the shared pool's reset."""
    result = answer[-1] if answer else None
    if not isinstance(result, ResultMessage) or result.is_error or result.num_turns != 0:
        return f"/clear did not end with a clean zero-turn result: {result!r}"
    fingerprint = init_fingerprint(answer)
    if fingerprint is None:
        return "/clear sent no system/init"
    drift = _drift(fingerprint, baseline)
    if drift:
        return f"after /clear the CLI reports {drift}"
    if result.session_id in session_ids:
        return f"/clear kept the session id {result.session_id}"
    return None
