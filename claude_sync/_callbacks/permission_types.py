"""Permission types: what a ``can_use_tool`` callback gets and returns (pure data, no I/O).

Built per permission request, so these keep ``@dataclass``'s generated ``__init__`` (cheaper
to call than a record's generic one). The adapters between these and the wire are in
``permissions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Protocol, Tuple, Union

__all__ = [
    "CanUseTool",
    "CanUseToolShadowedWarning",
    "CancellationSignal",
    "PermissionBehavior",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "PermissionUpdateDestination",
    "ToolPermissionContext",
]

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
"""``ClaudeAgentOptions.permission_mode``: ``"default"`` (ask), ``"acceptEdits"``, ``"plan"``,
``"bypassPermissions"``, ``"dontAsk"`` or ``"auto"``."""
PermissionUpdateDestination = Literal[
    "userSettings", "projectSettings", "localSettings", "session", "cliArg"
]
"""Where a ``PermissionUpdate`` is stored: ``"userSettings"``, ``"projectSettings"``,
``"localSettings"``, ``"session"`` or ``"cliArg"``."""
PermissionBehavior = Literal["allow", "deny", "ask"]
"""What a permission rule does: ``"allow"``, ``"deny"`` or ``"ask"``."""


class CanUseToolShadowedWarning(UserWarning):
    """``can_use_tool`` is set, but some tool calls are approved before it is asked:
    ``permission_mode="bypassPermissions"``, or an ``allowed_tools`` entry allowing a whole
    tool (``"Read"``, ``"Read(*)"``; ``skills="all"`` adds ``"Skill"``). Advisory; silence it
    with ``warnings.filterwarnings("ignore", category=CanUseToolShadowedWarning)``."""


class CancellationSignal(Protocol):
    """What ``context.signal`` offers a callback: set once the CLI no longer wants the answer.

    The shell hands callbacks a ``threading.Event``; this protocol names the part callbacks
    may rely on.
    """

    def is_set(self) -> bool:
        """Whether the CLI no longer wants the answer. Never blocks."""
        ...

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the signal is set or ``timeout`` seconds pass (None: no bound); returns
        ``is_set()``."""
        ...


@dataclass
class PermissionRuleValue:
    """One permission rule: a tool, and optionally what within it (``Bash(npm test)``).

    Attributes:
        tool_name: The tool the rule is about (``Bash``, ``Read`` …; ``toolName``).
        rule_content: What the rule matches within that tool (``npm test``, a path pattern …); None
            for the whole tool (``ruleContent``).
    """

    tool_name: str
    rule_content: Optional[str] = None


@dataclass
class PermissionUpdate:
    """One permission change, as the CLI suggests it and as an allow result may apply it.

    ``type`` is one of ``addRules``, ``replaceRules``, ``removeRules`` (use ``rules`` and
    ``behavior``), ``setMode`` (``mode``), ``addDirectories``, ``removeDirectories``
    (``directories``). Any wire key not modelled is kept in ``extra`` and written back.

    Attributes:
        type: ``addRules``, ``replaceRules``, ``removeRules``, ``setMode``, ``addDirectories`` or
            ``removeDirectories``.
        rules: The rules to add, replace or remove (the rule types).
        behavior: ``allow``, ``deny`` or ``ask``: what the rules do (the rule types).
        mode: The permission mode to set (``setMode``).
        directories: The directories to add or remove (the directory types).
        destination: Where the change is stored: ``session`` (the default when sent),
            ``localSettings``, ``projectSettings``, ``userSettings`` or ``cliArg``.
        extra: Wire keys this class does not model, kept and written back.
    """

    type: str
    rules: Optional[List[PermissionRuleValue]] = None
    behavior: Optional[PermissionBehavior] = None
    mode: Optional[PermissionMode] = None
    directories: Optional[List[str]] = None
    destination: Optional[PermissionUpdateDestination] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        """The wire form (camelCase keys), checked the way the CLI checks it.

        The CLI (2.1.330) ignores *every* update of an answer when one lacks a field its
        type needs, so this sends ``destination: "session"`` when none is set (the update
        lasts for this session only) and raises ``ValueError`` when ``type`` is none of the
        six the CLI knows or lacks what it needs: ``rules`` and ``behavior`` for the rule
        types, ``mode`` for ``setMode``, ``directories`` for the directory types. One
        exception: an update of an unknown type that carries ``extra`` keys came from a newer
        CLI (a suggestion being echoed back) and is passed through as it came.
        """
        needed = _UPDATE_NEEDS.get(self.type)
        if needed is None and self.extra:
            needed = ()
        if needed is None:
            raise ValueError(
                f"PermissionUpdate type {self.type!r} is not one the CLI accepts: use one of "
                + ", ".join(_UPDATE_NEEDS)
            )
        for name in needed:
            if getattr(self, name) is None:
                raise ValueError(f"PermissionUpdate(type={self.type!r}) needs {name}; it is None")
        out: Dict[str, Any] = {"type": self.type, "destination": self.destination or "session"}
        if self.rules is not None:
            out["rules"] = [_rule_to_wire(rule) for rule in self.rules]
        for key in ("behavior", "mode", "directories"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "directories" else value
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PermissionUpdate:
        """Build from the wire form; unknown keys go to ``extra`` (nothing is dropped).

        One pass over the items (this runs for every suggestion of every permission
        request, so it avoids a lookup per field).
        """
        fields: Dict[str, Any] = {"type": "", "extra": {}}
        extra = fields["extra"]
        for key, value in data.items():
            if key == "rules":
                fields["rules"] = None if value is None else [_rule_from_wire(rule) for rule in value]
            elif key == "directories":
                fields["directories"] = None if value is None else list(value)
            elif key in _UPDATE_SCALARS:
                fields[key] = value
            else:
                extra[key] = value
        fields["type"] = str(fields["type"])
        return cls(**fields)


_UPDATE_SCALARS = frozenset(("type", "behavior", "mode", "destination"))
_UPDATE_NEEDS: Dict[str, Tuple[str, ...]] = {
    "addRules": ("rules", "behavior"),
    "replaceRules": ("rules", "behavior"),
    "removeRules": ("rules", "behavior"),
    "setMode": ("mode",),
    "addDirectories": ("directories",),
    "removeDirectories": ("directories",),
}
"""The update types the CLI accepts and the fields each must carry."""


def _rule_to_wire(rule: PermissionRuleValue) -> Dict[str, Any]:
    out: Dict[str, Any] = {"toolName": rule.tool_name}
    if rule.rule_content is not None:
        out["ruleContent"] = rule.rule_content
    return out


def _rule_from_wire(data: Mapping[str, Any]) -> PermissionRuleValue:
    return PermissionRuleValue(tool_name=data.get("toolName", ""), rule_content=data.get("ruleContent"))


@dataclass
class ToolPermissionContext:
    """What a ``can_use_tool`` callback learns about the request besides name and input.

    Attributes:
        signal: Set when the CLI no longer wants the answer (it cancelled the request,
            ``interrupt()``, ``close()``).
        suggestions: The permission updates the CLI suggests (e.g. always allow this command);
            return some in ``PermissionResultAllow.updated_permissions`` to apply them.
        tool_use_id: The id of the tool call being decided.
        agent_id: The subagent asking, when not the main agent.
        blocked_path: The path that made the CLI ask (outside the allowed directories …), if any.
        decision_reason: Why the CLI asks, in its words.
        title: A title for a permission prompt, as the CLI would show it.
        display_name: The tool's name as the CLI shows it.
        description: A description of the call, as the CLI would show it.
        decision_reason_type: The kind of reason (``rule``, ``mode``, ``safetyCheck`` …), when the
            CLI says.
        hook_asked: True where a ``PreToolUse`` hook asked about this call as well as a rule or
            check that ``decision_reason_type`` names (a hook asked if this is true or the type
            is ``hook``). It only ever adds a reason to ask: never answer or hide a prompt
            because it is absent.
        hook_ask_reason: With ``hook_asked``: the reason that hook gave. The hook's author wrote
            it: treat it as ``decision_reason`` and lift no prompt because of it.
        plan_floor_ask_only: The CLI only asks here because of the plan's floor (sent only to
            the program that started the CLI, for its own tools).
        ask_only_false_cause: Why ``server_policy_ask_only`` / ``plan_floor_ask_only`` is false:
            ``managed_hook``, ``unsettled``, ``plugin_hook``, ``own_hook`` or ``other``.
        managed_rules_only: True when ``allowManagedPermissionRulesOnly`` was on as the request
            was sent: offer no rule of the session's own (no "always allow").
        held_by_session_service: True on the CLI's own ask after the cloud session service held
            or refused a call.
        request_id: The control request's id.
        raw: The whole request as the CLI sent it.

    The six ask-provenance fields (``hook_asked`` … ``held_by_session_service``) come from CLI
    2.1.333+, which marks them internal; each is None when the request lacks it (always on
    older CLIs) or carries a value of another type (``raw`` still has it).
    """

    signal: Optional[CancellationSignal] = None
    suggestions: List[PermissionUpdate] = field(default_factory=list)
    tool_use_id: Optional[str] = None
    agent_id: Optional[str] = None
    blocked_path: Optional[str] = None
    decision_reason: Optional[str] = None
    title: Optional[str] = None
    display_name: Optional[str] = None
    description: Optional[str] = None
    decision_reason_type: Optional[str] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)
    hook_asked: Optional[bool] = None
    hook_ask_reason: Optional[str] = None
    plan_floor_ask_only: Optional[bool] = None
    ask_only_false_cause: Optional[str] = None
    managed_rules_only: Optional[bool] = None
    held_by_session_service: Optional[bool] = None


@dataclass
class PermissionResultAllow:
    """Allow the tool. ``updated_input=None`` sends the original input (the CLI needs one).

    Attributes:
        behavior: ``"allow"``.
        updated_input: The input the tool runs with instead of the model's; None keeps the original.
        updated_permissions: Permission updates to apply with the decision (e.g. one of
            ``context.suggestions``).
    """

    behavior: Literal["allow"] = "allow"
    updated_input: Optional[Dict[str, Any]] = None
    updated_permissions: Optional[List[PermissionUpdate]] = None


@dataclass
class PermissionResultDeny:
    """Deny the tool; ``interrupt=True`` also aborts the turn (``error_during_execution``).

    Attributes:
        behavior: ``"deny"``.
        message: What the model is told about the denial.
        interrupt: Also abort the turn (it ends ``error_during_execution``; ``query()`` raises
            ``ResultError``).
    """

    behavior: Literal["deny"] = "deny"
    message: str = ""
    interrupt: bool = False


PermissionResult = Union[PermissionResultAllow, PermissionResultDeny]
"""``PermissionResultAllow | PermissionResultDeny``: what a ``can_use_tool`` callback returns."""
CanUseTool = Callable[[str, Dict[str, Any], ToolPermissionContext], PermissionResult]
"""The type of ``ClaudeAgentOptions.can_use_tool``: ``(tool_name, tool_input, context:
ToolPermissionContext) -> PermissionResultAllow | PermissionResultDeny``, run on the callback pool."""
