"""Run until a person must decide; decide; resume — on any machine (I/O: drives the CLI).

::

    policy = ApprovalPolicy(rules=["Bash(rm:*)"])
    outcome = run_with_approvals("tidy up", policy=policy, options=opts)
    if isinstance(outcome, PendingApproval):
        save(outcome.to_json())                        # hours later, anywhere:
        outcome = resume_approval(PendingApproval.from_json(saved), ApprovalDecision.allow(),
                                  policy=policy, options=opts)

``run_with_approvals`` runs the prompt with an ``ApprovalGate``: a call the policy names is
deferred (the CLI stops before it, one ``tool_deferred`` result), the CLI is closed (a further
prompt to it would lose the call), and a ``PendingApproval`` is returned — also with
``output_format`` set (a run that stopped for a person has no typed output to check);
otherwise the ``RunResult``. Other held calls of the run (the same message's, a subagent's)
are listed in the record's ``held_back``; when the run did not stop at a deferred call but the
gate held one, ``ApprovalDroppedError`` names it: a run never looks like a success while a held
call went unasked (``pending_approval`` compares what the gate held with what the result says).

``resume_approval`` checks the session still stops at that call (``why_stale``), starts a
CLI with ``resume=<session>`` and **no prompt** (a prompt would add a second turn), restores
the permission mode and ``cwd``, applies the decision to exactly that call and returns the
next ``RunResult`` or the next ``PendingApproval``. It claims the approval (``claims.claim``:
one resume wins) at the last moment before the CLI process starts — from the options'
``spawn_command``, after the CLI was found and the options were checked — so a resume that
fails earlier spends nothing; the gate refuses to apply the decision without the claim.

For ``ClaudeSDKClient`` / ``AgentPool`` / ``query()``: ``options = ApprovalGate(policy).options(opts)``
and ``pending_approval(result, options)`` on each result. Everything here pickles (options
without callables, a policy whose ``check`` is a module-level function), so
``executor.submit(run_with_approvals, …)`` works on a process pool or a Dask cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import time
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, Iterator, Optional, Tuple, Union, cast

from .._agents.run import collect_turn, outcome_error
from ..client import ClaudeSDKClient
from .._options.options import ClaudeAgentOptions, SpawnCommand
from ..query import query
from .._redaction.redactor import redacted_excerpt, redacted_logger
from .._result import RunResult
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage, UserMessage
from .claims import claim, load_transcript
from .gate import ApprovalGate
from .hold_check import deciding, refuse_undecided
from .policy import ApprovalPolicy
from .records import (
    ApprovalClaimedError,
    ApprovalDecision,
    ApprovalDroppedError,
    ApprovalNotAppliedError,
    ApprovalRecordError,
    ApprovalStaleError,
    PendingApproval,
)
from .staleness import why_stale

__all__ = ["ApprovalOutcome", "pending_approval", "resume_approval", "run_with_approvals"]

ApprovalOutcome = Union["RunResult[Any]", PendingApproval]
"""What a run or a resume ends with: its ``RunResult``, or the call waiting for a person."""

Prompt = Union[str, Iterable[Dict[str, Any]]]

logger = redacted_logger("claude_sync.approvals")


def run_with_approvals(
    prompt: Prompt,
    *,
    policy: ApprovalPolicy,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
) -> ApprovalOutcome:
    """Run ``prompt`` until its result or until a call ``policy`` names (caller's thread).

    Returns the ``RunResult``, or a ``PendingApproval`` (the CLI was closed; nothing of the
    call ran), with ``options.output_format`` too. Raises what ``run()`` raises;
    ``ApprovalDroppedError`` when the gate held a call the run could not stop at (a
    subagent's); ``TypeError`` for a policy that is not an ``ApprovalPolicy``; ``ValueError``
    with ``permission_prompt_tool_name`` set.
    """
    options = options or ClaudeAgentOptions()
    gate = ApprovalGate(policy)
    gated = gate.options(options)
    with query(prompt, options=gated, timeout=timeout) as stream:
        messages = collect_turn(stream)
    return _outcome(messages, gated, gate)


def resume_approval(
    pending: PendingApproval,
    decision: ApprovalDecision,
    *,
    policy: ApprovalPolicy,
    options: Optional[ClaudeAgentOptions] = None,
    timeout: Optional[float] = None,
    claimant: Optional[str] = None,
) -> ApprovalOutcome:
    """Apply ``decision`` to the call ``pending`` names and run the session on (caller's thread).

    ``options``: as for the first run (the same ``session_store`` to resume on another
    machine; ``cwd`` and ``permission_mode`` come from the record, ``resume`` is set).
    ``policy``: which later calls wait for a person again. ``timeout`` bounds the CLI's part
    (start to result). ``claimant``: who claims the approval, one per delivery of the decision
    (default: a fresh uuid each call; pass the one a failed resume used to retry it
    deliberately). The claim is taken just before the CLI process starts: a resume that fails
    before (CLI not found, bad options, a stale record) spends nothing.

    Raises ``ApprovalRecordError`` (bad record, decision or claimant), ``ApprovalStaleError``
    (the session moved on; nothing ran), ``ApprovalPendingError`` (the session also holds a call
    the record does not name; nothing ran or was claimed), ``ApprovalClaimedError`` (another
    resume claimed it; no CLI started), ``ApprovalNotAppliedError`` (the CLI ended the turn
    without asking about the call), ``ApprovalDroppedError`` (as ``run_with_approvals``),
    ``ValueError`` when ``options`` name another session or ``cwd``, and what ``run()`` raises.
    """
    if not isinstance(pending, PendingApproval):
        raise ApprovalRecordError(f"pending must be a PendingApproval, got {type(pending).__name__}")
    if not isinstance(decision, ApprovalDecision):
        raise ApprovalRecordError(f"decision must be an ApprovalDecision, got {type(decision).__name__}")
    if claimant is not None and (not isinstance(claimant, str) or not claimant.strip() or len(claimant) > 500):
        raise ApprovalRecordError(f"claimant must be a non-empty str of at most 500 characters, got {claimant!r:.100}")
    options = options or ClaudeAgentOptions()
    if options.resume not in (None, pending.session_id):
        raise ValueError(f"options.resume is {options.resume!r} but the approval is for session {pending.session_id!r}")
    if options.cwd is not None and os.path.realpath(str(options.cwd)) != os.path.realpath(pending.cwd):
        raise ValueError(f"options.cwd is {str(options.cwd)!r} but the session lives under {pending.cwd!r}")
    deadline = None if timeout is None else time.monotonic() + timeout
    base = dataclasses.replace(
        options,
        resume=pending.session_id,
        cwd=pending.cwd,
        permission_mode=cast(Any, pending.permission_mode),  # --resume does not restore it
        continue_conversation=False,
        fork_session=False,
    )
    # Until the decision is applied the CLI runs in "default" mode: measured on 2.1.197, a
    # resumed CLI may skip the PreToolUse hook, and in "acceptEdits" it then ran
    # ``echo x >> file`` without asking can_use_tool either. The recorded mode is restored
    # from the callback that applies the decision, before the CLI hears the answer.
    restore = pending.permission_mode if pending.permission_mode not in (None, "default", "plan") else None
    with _one_resume_here(pending):
        entries = load_transcript(pending, base)
        stale = why_stale(entries, pending)
        if stale is not None:
            raise ApprovalStaleError(f"approval of {pending.tool_name} call {pending.tool_use_id} no longer applies: {stale}", pending.tool_use_id)
        refuse_undecided(entries, pending.session_id, [pending.tool_use_id])  # another held call would run unasked
        claim_once = _ClaimOnce(pending, decision, base, claimant or str(uuid.uuid4()))
        gate = ApprovalGate(policy, decided=(pending, decision))
        gate.before_apply = claim_once  # never applied unclaimed (a transport that spawns nothing)
        gated = gate.options(base if restore is None else dataclasses.replace(base, permission_mode="default"))
        client = ClaudeSDKClient(dataclasses.replace(gated, spawn_command=claim_once.spawning(base.spawn_command)))
        if restore is not None:
            gate.on_applied = lambda: _restore_mode(client, restore)
        with deciding(pending.session_id, [pending.tool_use_id]), client:  # connect only: the CLI re-runs the deferred call itself
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            messages = collect_turn(client.receive_response(timeout=remaining))
    if not gate.applied:
        why = f"; refused: {gate.refused}" if gate.refused else ""
        raise ApprovalNotAppliedError(
            f"the resumed CLI ended its turn without asking about {pending.tool_name} call {pending.tool_use_id}: "
            f"the decision was not applied{why}; {_what_became_of(messages, pending.tool_use_id)}",
            pending.tool_use_id,
        )
    return _outcome(messages, base, gate)  # base: the next record keeps the recorded mode, not "default"


def pending_approval(
    result: Union[ResultMessage, RunResult[Any]], options: ClaudeAgentOptions, gate: Optional[ApprovalGate] = None
) -> Optional[PendingApproval]:
    """The ``PendingApproval`` a deferred result stands for (None for any other result).

    ``options``: the options the run had (``cwd``, ``permission_mode``); ``gate``: the gate
    that deferred it (its reason is recorded, and the calls it held back in the result's
    session that no earlier result reported are listed in ``held_back``). Raises
    ``ApprovalRecordError`` when the result lacks what a record needs; ``ApprovalDroppedError``
    when the result did not stop at a deferred call but ``gate`` held one in its session (a
    subagent's call, a deferral the CLI did not report): never a plain result then.
    """
    message = result.result if isinstance(result, RunResult) else result
    deferred = message.deferred_tool_use
    held = [] if gate is None else gate.take_unreported(message.session_id, None if deferred is None else deferred.id)
    if deferred is None:
        if held:
            names = "; ".join(f"{c['tool_name']} call {c['tool_use_id']} ({c['where']}: {c['reason']})" for c in held)
            raise ApprovalDroppedError(
                f"the run ended without stopping for a person, but {len(held)} call(s) needed one and did not run: "
                f"{names}",
                held[0]["tool_use_id"], held, message.session_id,
            )  # fmt: skip
        return None
    reason = (gate.reasons.get(deferred.id) if gate is not None else None) or "deferred by a PreToolUse hook"
    return PendingApproval(
        session_id=message.session_id,
        tool_use_id=deferred.id,
        tool_name=deferred.name,
        tool_input=dict(deferred.input),
        cwd=os.path.abspath(str(options.cwd) if options.cwd is not None else os.getcwd()),
        permission_mode=options.permission_mode,
        reason=reason,
        asked_at=_now(),
        held_back=tuple(held),
    )


def _outcome(messages: Any, options: ClaudeAgentOptions, gate: ApprovalGate) -> ApprovalOutcome:
    """The record, before any typed output is checked (a run that stopped for a person has
    none), or the ``RunResult``. ``messages`` ends with its ``ResultMessage`` (``collect_turn``)."""
    pending = pending_approval(messages[-1], options, gate)
    if pending is not None:
        return pending
    outcome = RunResult.from_messages(messages, output_format=options.output_format)
    error = outcome_error(outcome)
    if error is not None and options.raise_on_error_result:
        raise error
    return outcome


_RUNNING: Dict[Tuple[str, str], int] = {}  # (session, tool_use_id) -> pid of the resume running it
_RUNNING_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    global _RUNNING_LOCK
    _RUNNING_LOCK = threading.Lock()  # a fork while another thread held it must not hang the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def _one_resume_here(pending: PendingApproval) -> Iterator[None]:
    """At most one resume of a call at a time in this process, whatever its claimant: a second
    one (two deliveries in one worker's threads, the same claimant retried too early) raises
    ``ApprovalClaimedError`` at once. A forked child does not inherit its parent's."""
    key, pid = (pending.session_id, pending.tool_use_id), os.getpid()
    with _RUNNING_LOCK:
        if _RUNNING.get(key) == pid:
            raise ApprovalClaimedError(
                f"approval of {pending.tool_name} call {pending.tool_use_id} is being resumed in this process already; "
                "nothing ran here",
                pending.tool_use_id,
                {"claimant": f"another resume in process {pid}"},
            )
        _RUNNING[key] = pid
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING.pop(key, None)


class _ClaimOnce:
    """Takes one resume's claim once, from whichever comes first: the spawn (``spawning``'s
    ``spawn_command``, connecting thread: the last step before the CLI process starts) or the
    gate's ``before_apply`` (callback pool: a transport that spawned nothing). Raises what
    ``claims.claim`` raises (``ApprovalClaimedError``), each time it is asked until it won."""

    def __init__(self, pending: PendingApproval, decision: ApprovalDecision, options: ClaudeAgentOptions, claimant: str) -> None:
        self._args = (pending, decision, options, claimant)
        self._lock = threading.Lock()
        self._taken = False

    def __call__(self) -> None:
        with self._lock:
            if not self._taken:
                pending, decision, options, claimant = self._args
                claim(pending, decision, options, claimant, _now())
                self._taken = True

    def spawning(self, user_spawn: Any) -> Any:
        """A ``spawn_command`` that runs the user's (if any), then claims."""

        def spawn_command(command: SpawnCommand) -> SpawnCommand:
            command = command if user_spawn is None else user_spawn(command)
            if isinstance(command, SpawnCommand):  # else the engine raises its TypeError, unclaimed
                self()
            return command

        return spawn_command


def _restore_mode(client: ClaudeSDKClient, mode: Any) -> None:
    """Give the resumed CLI the run's permission mode again (callback pool). A failure is
    logged and the turn goes on in ``"default"`` mode (stricter, never looser)."""
    try:
        client.set_permission_mode(mode)
    except ClaudeSDKError as exc:
        logger.warning("Could not restore permission mode %r after the approval: %s", mode, exc)


def _what_became_of(messages: Any, tool_use_id: str) -> str:
    """What the resumed turn says about the call: its ``tool_result``, if any (for the error)."""
    for message in messages:
        content = message.raw.get("message", {}).get("content") if isinstance(message, UserMessage) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                return f"the CLI reported a tool_result for it (is_error={block.get('is_error')!r}): {redacted_excerpt(str(block.get('content')), 300)!r}"
    return "no tool_result for it in the resumed turn"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
