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
prompt to it would lose the call), and a ``PendingApproval`` is returned; otherwise the
``RunResult``. ``resume_approval`` checks the session still stops at that call
(``why_stale``), claims the approval (``claims.claim``: one resume wins), starts a CLI with
``resume=<session>`` and **no prompt** (a prompt would add a second turn), restores the
permission mode and ``cwd``, applies the decision to exactly that call and returns the next
``RunResult`` or the next ``PendingApproval``.

For ``ClaudeSDKClient`` / ``AgentPool`` / ``query()``: ``options = ApprovalGate(policy).options(opts)``
and ``pending_approval(result, options)`` on each result. Everything here pickles (options
without callables, a policy whose ``check`` is a module-level function), so
``executor.submit(run_with_approvals, …)`` works on a process pool or a Dask cluster.
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, Optional, Union, cast

from .._agents.run import collect_turn, outcome_error
from ..client import ClaudeSDKClient
from .._options.options import ClaudeAgentOptions
from ..query import query
from .._redaction.redactor import redacted_logger
from .._result import RunResult
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage, UserMessage
from .claims import claim, load_transcript
from .gate import ApprovalGate
from .policy import ApprovalPolicy
from .records import (
    ApprovalDecision,
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
    call ran). Raises what ``run()`` raises; ``TypeError`` for a policy that is not an
    ``ApprovalPolicy``; ``ValueError`` with ``permission_prompt_tool_name`` set.
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
    (start to result). ``claimant``: who claims the approval (default: a fresh uuid; pass the
    same one to retry deliberately).

    Raises ``ApprovalRecordError`` (bad record or decision), ``ApprovalStaleError`` (the
    session moved on; nothing ran), ``ApprovalClaimedError`` (another resume claimed it;
    nothing ran), ``ApprovalNotAppliedError`` (the CLI ended the turn without asking about
    the call), ``ValueError`` when ``options`` name another session or ``cwd``, and what
    ``run()`` raises.
    """
    if not isinstance(pending, PendingApproval):
        raise ApprovalRecordError(f"pending must be a PendingApproval, got {type(pending).__name__}")
    if not isinstance(decision, ApprovalDecision):
        raise ApprovalRecordError(f"decision must be an ApprovalDecision, got {type(decision).__name__}")
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
    stale = why_stale(load_transcript(pending, base), pending)
    if stale is not None:
        raise ApprovalStaleError(f"approval of {pending.tool_name} call {pending.tool_use_id} no longer applies: {stale}", pending.tool_use_id)
    claim(pending, decision, base, claimant or str(uuid.uuid4()), _now())
    gate = ApprovalGate(policy, decided=(pending, decision))
    gated = gate.options(base if restore is None else dataclasses.replace(base, permission_mode="default"))
    client = ClaudeSDKClient(gated)
    if restore is not None:
        gate.on_applied = lambda: _restore_mode(client, restore)
    with client:  # connect only: the CLI re-runs the deferred call itself
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
    that deferred it (its reason is recorded). Raises ``ApprovalRecordError`` when the result
    lacks what a record needs.
    """
    message = result.result if isinstance(result, RunResult) else result
    deferred = message.deferred_tool_use
    if deferred is None:
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
    )


def _outcome(messages: Any, options: ClaudeAgentOptions, gate: ApprovalGate) -> ApprovalOutcome:
    outcome = RunResult.from_messages(messages, output_format=options.output_format)
    pending = pending_approval(outcome, options, gate)
    if pending is not None:
        return pending
    error = outcome_error(outcome)
    if error is not None and options.raise_on_error_result:
        raise error
    return outcome


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
                return f"the CLI reported a tool_result for it (is_error={block.get('is_error')!r}): {str(block.get('content'))[:300]!r}"
    return "no tool_result for it in the resumed turn"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
