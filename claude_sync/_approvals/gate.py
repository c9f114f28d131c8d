"""``ApprovalGate``: one run's answers to the CLI's ``PreToolUse`` hook and ``can_use_tool`` (pure).

On a first run the gate defers every call the policy names (``permissionDecision: "defer"``:
the CLI stops before the call with one ``tool_deferred`` result). On a resume it is given the
pending call and the person's decision, and applies that decision to exactly that call: the
same ``tool_use`` id **and** the same input (an edited input is what the decision carries).
Any other call the policy names defers again.

Measured on CLI 2.1.197: a resumed CLI sometimes skips the hook for the deferred call and asks
``can_use_tool`` instead, so the gate answers there too, keyed by the ``tool_use`` id. A call
the policy names that reaches ``can_use_tool`` (its hook was skipped) cannot be deferred there
(the CLI refuses ``behavior: "defer"``): it is denied and the turn interrupted, never allowed.
Other calls go to the user's own ``can_use_tool``; without one they are denied, as the CLI
denies calls no rule allows when nobody can be asked (and a first run without a user callback
gets none at all). On a resume the gate's ``can_use_tool`` is always there, so an
``allowed_tools`` entry naming a whole tool gives the usual ``CanUseToolShadowedWarning``.

**One deferral per turn; every other held call is held back, never dropped.** Measured on CLI
2.1.197 and 2.1.333 with two held calls in one assistant message: the CLI asks the hook about
both, and if both are deferred it reports (and on resume re-runs) only the last one, and drops
the other from the history the model sees. So the gate defers the first held call of a turn
(per session and ``prompt_id``) and denies each later one with a message saying it waits for a
person and did not run: the CLI keeps both calls and that answer in the history, and a resume
re-runs the deferred one. The held-back calls are listed in the ``PendingApproval``
(``held_back``); a call the model asks for again defers again and becomes the next record.

**A subagent's call cannot wait.** Deferred inside a subagent (the hook input names an
``agent_id``), the CLI ends the subagent with no output and the run goes on to a normal result
with nothing resumable (measured on both CLIs). So the gate denies such a call (the subagent
is told a person must approve it) and ``run_with_approvals`` raises ``ApprovalDroppedError``
naming it, unless the run also stopped at a deferred call (then the record lists it).

Callbacks run on the connection's callback pool, possibly at once: the gate only appends to
lists and sets dict keys (atomic, ``setdefault`` picks one turn's deferral), and reads what it
was built with.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from .._callbacks.hook_types import HookMatcher
from .._callbacks.permission_types import (
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from .._options.options import ClaudeAgentOptions
from .policy import ApprovalPolicy
from .records import ApprovalDecision, PendingApproval

__all__ = ["ApprovalGate", "NO_CALLBACK_DENIAL"]

NO_CALLBACK_DENIAL = "This tool call was not allowed: no rule allows it and no can_use_tool was given."


class ApprovalGate:
    """The hook and permission callback of one run (see the module docstring).

    Raises ``TypeError`` when ``policy`` is not an ``ApprovalPolicy``.

    Attributes:
        policy: Which calls wait for a person.
        decided: ``(pending, decision)`` on a resume, else None.
        user_can_use_tool: The options' own ``can_use_tool`` (set by ``options()``), asked
            about calls the gate does not decide.
        before_apply: Called (on the callback pool) before the decision is answered; the
            resume makes sure its claim was taken there. What it raises refuses the call.
        on_applied: Called (on the callback pool) once the decision is about to be answered,
            before the CLI hears it; the resume restores the permission mode there.
        home: The CLI's ``HOME`` from the options' ``env`` (set by ``options()``), for path
            rules with ``~``.
        reasons: ``tool_use`` id → the reason of every call this gate deferred.
        deferred_in: ``tool_use`` id → the session of each deferred call.
        calls: ``tool_use`` id → ``(tool name, input)`` of each deferred call.
        held_back: The held calls answered with a denial instead of a deferral, each a dict
            (``tool_use_id``, ``tool_name``, ``tool_input``, ``reason``, ``where``,
            ``session_id``; ``where`` in ``HELD_BACK_WHERE``).
        applied: ``(tool_use_id, where)`` each time the decision was applied (``"hook"`` or
            ``"can_use_tool"``).
        refused: ``(tool_use_id, why)`` for calls refused because they could not be deferred
            or did not match the decided call's input.
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        decided: Optional[Tuple[PendingApproval, ApprovalDecision]] = None,
        user_can_use_tool: Any = None,
    ) -> None:
        if not isinstance(policy, ApprovalPolicy):
            raise TypeError(f"policy must be an ApprovalPolicy, got {type(policy).__name__}")
        self.policy = policy
        self.decided = decided
        self.user_can_use_tool = user_can_use_tool
        self.reasons: Dict[str, str] = {}
        self.deferred_in: Dict[str, str] = {}
        self.calls: Dict[str, Tuple[str, Dict[str, Any]]] = {}
        self.held_back: List[Dict[str, Any]] = []
        self._turns: Dict[Tuple[str, str], str] = {}
        self._reported: Set[str] = set()
        self.applied: List[Tuple[str, str]] = []
        self.refused: List[Tuple[str, str]] = []
        self.before_apply: Optional[Callable[[], None]] = None
        self.on_applied: Optional[Callable[[], None]] = None
        self.home: Optional[str] = None

    # -------------------------------------------------------------- the CLI's questions

    def pre_tool_use(self, hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        """The ``PreToolUse`` hook (callback pool): defer, hold back, apply the decision, or
        stay out."""
        call_id = tool_use_id or str(hook_input.get("tool_use_id") or "")
        name = str(hook_input.get("tool_name", ""))
        tool_input = hook_input.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        if self.decided is not None and call_id == self.decided[0].tool_use_id:
            return self._decided_hook_answer(call_id, tool_input)
        reason = self.policy.reason_for(name, tool_input, cwd=hook_input.get("cwd"), home=self.home)
        if reason is None:
            return {}
        session = str(hook_input.get("session_id") or "")
        if hook_input.get("agent_id"):
            self._hold_back(call_id, name, tool_input, reason, "subagent", session)
            return _hook_answer("deny", f"Not run: this call needs a person's approval ({reason}), and a call "
                                        "inside a subagent cannot wait for one. Report it to the main agent.")  # fmt: skip
        first = self._turns.setdefault((session, str(hook_input.get("prompt_id") or "")), call_id)
        if first != call_id:
            self._hold_back(call_id, name, tool_input, reason, "message", session)
            return _hook_answer("deny", f"Not run yet: this call needs a person's approval ({reason}) and another "
                                        f"call of this message ({first}) already waits for one. Ask for it again "
                                        "once that call is decided.")  # fmt: skip
        self.reasons[call_id] = reason
        self.calls[call_id] = (name, dict(tool_input))
        self.deferred_in[call_id] = session
        return _hook_answer("defer", reason)

    def take_unreported(self, session_id: str, deferred_id: Optional[str]) -> List[Dict[str, Any]]:
        """The held calls of ``session_id`` (and those whose session the CLI did not say) no
        earlier result reported, in the ``PendingApproval.held_back`` shape: the held-back ones,
        then each deferral other than ``deferred_id`` (the one the result reports) as
        ``"dropped"``. Marks them reported (caller's thread; a shared gate reports each once)."""
        calls = [
            {k: v for k, v in call.items() if k != "session_id"}
            for call in list(self.held_back)
            if call["session_id"] in (session_id, "") and call["tool_use_id"] not in self._reported
        ]
        for call_id, session in list(self.deferred_in.items()):
            if session in (session_id, "") and call_id != deferred_id and call_id not in self._reported:
                name, tool_input = self.calls.get(call_id, ("", {}))
                calls.append({"tool_use_id": call_id, "tool_name": name, "tool_input": tool_input,
                              "reason": self.reasons.get(call_id, ""), "where": "dropped"})  # fmt: skip
        self._reported.update(call["tool_use_id"] for call in calls)
        if deferred_id is not None:
            self._reported.add(deferred_id)
        return calls

    def _hold_back(self, call_id: str, name: str, tool_input: Dict[str, Any], reason: str, where: str, session: str) -> None:
        self.held_back.append({"tool_use_id": call_id or "unknown-call", "tool_name": name, "tool_input": dict(tool_input),
                               "reason": reason, "where": where, "session_id": session})  # fmt: skip

    def can_use_tool(self, tool_name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        """The permission callback (callback pool): the decision for the decided call, a
        refusal for a call that needed a person, else the user's callback (or a denial)."""
        call_id = context.tool_use_id or ""
        if self.decided is not None and call_id == self.decided[0].tool_use_id:
            pending, decision = self.decided
            if tool_input != pending.tool_input:
                return self._refuse(call_id, "its input differs from the one the person decided on")
            refusal = self._applied(call_id, "can_use_tool")
            if refusal is not None:
                return self._refuse(call_id, refusal)
            if decision.behavior == "allow":
                return PermissionResultAllow(updated_input=decision.updated_input)
            return PermissionResultDeny(message=decision.message)
        cwd = self.decided[0].cwd if self.decided is not None else None
        reason = self.policy.reason_for(tool_name, tool_input, cwd=cwd, home=self.home)
        if reason is not None:
            self.refused.append((call_id, f"needs approval ({reason}) but the CLI asked can_use_tool, which cannot defer"))
            self._hold_back(call_id, tool_name, tool_input, reason, "can_use_tool", "")
            return PermissionResultDeny(
                message=f"This call needs a person's approval ({reason}) and could not be held for one; not run.",
                interrupt=True,
            )
        if self.user_can_use_tool is not None:
            return self.user_can_use_tool(tool_name, tool_input, context)
        return PermissionResultDeny(message=NO_CALLBACK_DENIAL)

    def _decided_hook_answer(self, call_id: str, tool_input: Dict[str, Any]) -> Dict[str, Any]:
        assert self.decided is not None
        pending, decision = self.decided
        if tool_input != pending.tool_input:
            self._refuse(call_id, "its input differs from the one the person decided on")
            return _hook_answer("deny", "The approval was for a different input; not run.")
        refusal = self._applied(call_id, "hook")
        if refusal is not None:
            self._refuse(call_id, refusal)
            return _hook_answer("deny", f"The approval does not apply: {refusal}; not run.")
        if decision.behavior == "deny":
            return _hook_answer("deny", decision.message)
        answer = _hook_answer("allow", "approved by a person")
        if decision.updated_input is not None:
            answer["hookSpecificOutput"]["updatedInput"] = decision.updated_input
        return answer

    def _applied(self, call_id: str, where: str) -> Optional[str]:
        """Note the decision as applied (None), or why it may not be (``before_apply`` raised)."""
        if self.before_apply is not None:
            try:
                self.before_apply()
            except Exception as exc:  # noqa: BLE001 - any failure refuses the call (fail closed)
                return f"{type(exc).__name__}: {exc}"
        self.applied.append((call_id, where))
        if self.on_applied is not None:
            self.on_applied()
        return None

    def _refuse(self, call_id: str, why: str) -> PermissionResultDeny:
        self.refused.append((call_id, why))
        return PermissionResultDeny(message=f"The approval does not apply: {why}; not run.", interrupt=True)

    # -------------------------------------------------------------- wiring

    def options(self, options: ClaudeAgentOptions) -> ClaudeAgentOptions:
        """``options`` with this gate's hook first among the ``PreToolUse`` hooks and its
        ``can_use_tool`` in front of the user's (on a first run without a user callback, none:
        the CLI denies what no rule allows by itself). On a resume, ``allowed_tools`` entries that
        would approve the decided call outright are dropped (a CLI that skips the hook must
        then ask ``can_use_tool``). Raises ``ValueError`` when ``permission_prompt_tool_name``
        is set (the CLI would ask that tool instead of ``can_use_tool``)."""
        if options.permission_prompt_tool_name:
            raise ValueError("approvals answer can_use_tool themselves: permission_prompt_tool_name cannot be set too")
        hooks: Dict[Any, List[HookMatcher]] = {k: list(v) for k, v in (options.hooks or {}).items()}
        hooks["PreToolUse"] = [HookMatcher(matcher=None, hooks=[self.pre_tool_use])] + hooks.get("PreToolUse", [])
        self.user_can_use_tool = options.can_use_tool
        self.home = (options.env or {}).get("HOME")
        allowed = list(options.allowed_tools or [])
        if self.decided is not None:
            pending = self.decided[0]
            dropped = set(self.policy.shadowing_rules(allowed, pending.tool_name, pending.tool_input, pending.cwd, self.home))
            allowed = [rule for rule in allowed if rule not in dropped]
        # A first run without a callback of the user's gets none: the CLI then denies what no rule
        # allows, as the gate would, and no CanUseToolShadowedWarning is raised for the user's rules.
        callback = self.can_use_tool if self.decided is not None or options.can_use_tool is not None else None
        return dataclasses.replace(options, hooks=hooks, can_use_tool=callback, allowed_tools=allowed)


def _hook_answer(decision: str, reason: str) -> Dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }
