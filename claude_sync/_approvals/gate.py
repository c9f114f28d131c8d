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

Callbacks run on the connection's callback pool, possibly at once: the gate only appends to
lists and sets dict keys (atomic), and reads what it was built with.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Tuple

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
        on_applied: Called (on the callback pool) once the decision is about to be answered,
            before the CLI hears it; the resume restores the permission mode there.
        home: The CLI's ``HOME`` from the options' ``env`` (set by ``options()``), for path
            rules with ``~``.
        reasons: ``tool_use`` id → the reason of every call this run deferred.
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
        self.applied: List[Tuple[str, str]] = []
        self.refused: List[Tuple[str, str]] = []
        self.on_applied: Optional[Callable[[], None]] = None
        self.home: Optional[str] = None

    # -------------------------------------------------------------- the CLI's questions

    def pre_tool_use(self, hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        """The ``PreToolUse`` hook (callback pool): defer, apply the decision, or stay out."""
        call_id = tool_use_id or str(hook_input.get("tool_use_id") or "")
        name = str(hook_input.get("tool_name", ""))
        tool_input = hook_input.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        if self.decided is not None and call_id == self.decided[0].tool_use_id:
            return self._decided_hook_answer(call_id, tool_input)
        reason = self.policy.reason_for(name, tool_input, cwd=hook_input.get("cwd"), home=self.home)
        if reason is None:
            return {}
        self.reasons[call_id] = reason
        return _hook_answer("defer", reason)

    def can_use_tool(self, tool_name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        """The permission callback (callback pool): the decision for the decided call, a
        refusal for a call that needed a person, else the user's callback (or a denial)."""
        call_id = context.tool_use_id or ""
        if self.decided is not None and call_id == self.decided[0].tool_use_id:
            pending, decision = self.decided
            if tool_input != pending.tool_input:
                return self._refuse(call_id, "its input differs from the one the person decided on")
            self._applied(call_id, "can_use_tool")
            if decision.behavior == "allow":
                return PermissionResultAllow(updated_input=decision.updated_input)
            return PermissionResultDeny(message=decision.message)
        cwd = self.decided[0].cwd if self.decided is not None else None
        reason = self.policy.reason_for(tool_name, tool_input, cwd=cwd, home=self.home)
        if reason is not None:
            self.refused.append((call_id, f"needs approval ({reason}) but the CLI asked can_use_tool, which cannot defer"))
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
        self._applied(call_id, "hook")
        if decision.behavior == "deny":
            return _hook_answer("deny", decision.message)
        answer = _hook_answer("allow", "approved by a person")
        if decision.updated_input is not None:
            answer["hookSpecificOutput"]["updatedInput"] = decision.updated_input
        return answer

    def _applied(self, call_id: str, where: str) -> None:
        self.applied.append((call_id, where))
        if self.on_applied is not None:
            self.on_applied()

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
