"""Permission callbacks: ``can_use_tool`` request ↔ callback arguments and result (pure).

No threads, no I/O, no clocks. For every ``can_use_tool`` control request the threaded shell
runs, on its callback pool::

    adapter in  →  user callback  →  adapter out  →  control_response

``permission_call_from_request`` is the adapter in, ``permission_result_to_wire`` the adapter
out; ``fail_closed_permission_wire`` / ``deny_all_permission_wire`` build the denies the shell
sends on its own. (Hooks are the same shape: see ``hooks``.)

What happens when a permission callback goes wrong: fail-closed table. "CLI" = the real CLI
2.1.197 as seen on the wire (``docs/protocol/REAL_CLI_2.1.197.md`` §4 b, c, i, l);
"(inferred)" = not seen, follows from a case that was.

+----------------------------------+-------------------------------+-----------------------------+
| situation                        | claude_sync sends             | the CLI then                |
+==================================+===============================+=============================+
| ``can_use_tool`` returns Allow   | ``permission_result_to_wire`` | runs the tool with          |
|                                  |                               | ``updatedInput`` (a changed |
|                                  |                               | input runs silently)        |
+----------------------------------+-------------------------------+-----------------------------+
| ``can_use_tool`` returns Deny    | ``permission_result_to_wire`` | tool_result error = our     |
|                                  |                               | message, the turn goes on;  |
|                                  |                               | with ``interrupt`` the turn |
|                                  |                               | ends with an error result   |
|                                  |                               | and the CLI exits 1         |
+----------------------------------+-------------------------------+-----------------------------+
| ``can_use_tool`` **raises**, or  | **fail-closed** deny as a     | does not run the tool, the  |
| returns a wrong type (None, a    | success response:             | model reads our message,    |
| bool, a dict of another shape …) | ``fail_closed_permission_     | the turn goes on (an error  |
|                                  | wire`` (interrupt false)      | response would also deny:   |
|                                  |                               | "Tool permission request    |
|                                  |                               | failed: Error: …")          |
+----------------------------------+-------------------------------+-----------------------------+
| ``deny_all_permissions=True``    | ``deny_all_permission_wire``; | as for any deny             |
| (ours)                           | the callback is not called    |                             |
+----------------------------------+-------------------------------+-----------------------------+
| malformed ``can_use_tool``       | error response (from          | denies the tool             |
| request                          | ``CallbackRequestError``)     |                             |
+----------------------------------+-------------------------------+-----------------------------+
| stdin closed while               | nothing (cannot)              | denies: "Tool permission    |
| ``can_use_tool`` is pending      |                               | stream closed before        |
|                                  |                               | response received"          |
+----------------------------------+-------------------------------+-----------------------------+
| interrupt while either callback  | nothing: the CLI cancels      | ``control_cancel_request``  |
| is pending                       | (``context.signal`` is set)   | before the interrupt's ack; |
|                                  |                               | a late answer is ignored    |
+----------------------------------+-------------------------------+-----------------------------+

So: permission failures always deny.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .._redaction.redactor import redacted_logger
from .._wire.errors import CallbackRequestError, callback_failure_reason
from .._wire.protocol import ControlRequestReceived
from .._wire.record import construct
from .permission_types import (
    CancellationSignal,
    CanUseTool,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    ToolPermissionContext,
)

__all__ = [
    "DECISION_CLASSIFICATIONS",
    "ServePermission",
    "deny_on_failure",
    "permission_server",
    "deny_all_permission_wire",
    "fail_closed_permission_wire",
    "permission_call_from_request",
    "permission_result_to_wire",
    "suggestions_from_wire",
]

logger = redacted_logger("claude_sync.callbacks")

ServePermission = Callable[[ControlRequestReceived, CancellationSignal], Dict[str, Any]]
"""Serves one ``can_use_tool`` request (a callback-pool thread): the answer's payload."""


def permission_call_from_request(
    request: Mapping[str, Any],
    *,
    signal: Optional[CancellationSignal],
    request_id: Optional[str],
) -> Tuple[str, Dict[str, Any], ToolPermissionContext]:
    """A ``can_use_tool`` request → ``(tool_name, tool_input, context)`` for the callback.

    ``tool_input`` is the request's ``input`` dict itself: when the callback edits it in
    place and returns ``PermissionResultAllow()``, the edited dict is what gets sent (as in the
    official SDK); pass ``request["input"]`` as ``original_input`` to
    ``permission_result_to_wire``. The context carries every field of the request:
    ``suggestions`` (``permission_suggestions`` parsed into ``PermissionUpdate`` of any
    ``type``; an item that is not an object is left out there but stays in ``raw``),
    ``tool_use_id``, ``display_name``, ``description``, ``title``, ``decision_reason``,
    ``decision_reason_type``, ``blocked_path``, ``agent_id``, and CLI 2.1.333's ask provenance
    (``hook_asked``, ``hook_ask_reason``, ``plan_floor_ask_only``, ``ask_only_false_cause``,
    ``managed_rules_only``, ``held_by_session_service``) (None when absent; a value of another
    type also gives None and stays visible in ``raw``), ``signal``, ``request_id`` and
    ``raw`` (the request dict). Raises ``CallbackRequestError`` when ``tool_name`` is not a
    non-empty str or ``input`` is not an object.
    """
    tool_name = request.get("tool_name")
    if tool_name.__class__ is not str or not tool_name:
        raise CallbackRequestError(
            f"can_use_tool request without a tool_name (got {tool_name!r})",
            subtype="can_use_tool",
        )
    tool_input = request.get("input")
    if tool_input.__class__ is not dict:
        raise CallbackRequestError(
            f"can_use_tool input for {tool_name!r} must be an object, "
            f"got {type(tool_input).__name__}",
            subtype="can_use_tool",
        )
    fields = _CONTEXT_DEFAULTS.copy()
    fields["signal"], fields["request_id"], fields["raw"], fields["suggestions"] = signal, request_id, dict(request), []
    for key, value in request.items():  # one pass: this runs for every permission request
        name = _CONTEXT_STR_FIELDS.get(key)
        if name is not None:
            if value.__class__ is str:
                fields[name] = value
        elif key in _CONTEXT_BOOL_FIELDS:
            if value.__class__ is bool:
                fields[key] = value
        elif key == "permission_suggestions":
            fields["suggestions"] = suggestions_from_wire(value)
    # Every field is in ``fields`` (a plain dataclass, no __post_init__): the instance's
    # __dict__ is set at once instead of a call with up to twelve keyword arguments.
    return tool_name, tool_input, construct(ToolPermissionContext, fields)


_CONTEXT_DEFAULTS: Dict[str, Any] = {f.name: None for f in dataclass_fields(ToolPermissionContext)}
"""Every ``ToolPermissionContext`` field; those with a default factory (``suggestions``, ``raw``)
are given fresh values per request."""


_CONTEXT_STR_FIELDS = {
    name: name
    for name in (
        "tool_use_id", "agent_id", "blocked_path", "decision_reason", "decision_reason_type",
        "title", "display_name", "description", "hook_ask_reason", "ask_only_false_cause",
    )
}  # fmt: skip

_CONTEXT_BOOL_FIELDS = frozenset({"hook_asked", "plan_floor_ask_only", "managed_rules_only", "held_by_session_service"})
"""The ask-provenance flags of CLI 2.1.333+ (a value that is not a bool stays in ``raw`` only)."""


def suggestions_from_wire(suggestions: Any) -> List[PermissionUpdate]:
    """``permission_suggestions`` → ``PermissionUpdate`` list (never raises).

    Every object becomes a ``PermissionUpdate`` whatever its ``type`` (unknown kinds keep
    their other keys in ``extra``). Items of another shape (older CLIs sent strings such as
    ``"deny"``) are left out; the caller still has them in the raw request.
    """
    if suggestions.__class__ is not list:
        return []
    parsed: List[PermissionUpdate] = []
    for item in suggestions:
        update = _suggestion_from_wire(item)
        if update is not None:
            parsed.append(update)
    return parsed


def _suggestion_from_wire(item: Any) -> Optional[PermissionUpdate]:
    if item.__class__ is not dict:
        return None
    rules = item.get("rules")
    if rules is not None:
        if rules.__class__ is not list:
            return None
        for rule in rules:
            if rule.__class__ is not dict:
                return None
    directories = item.get("directories")
    if directories is not None and directories.__class__ is not list:
        return None
    return PermissionUpdate.from_dict(item)


def permission_result_to_wire(
    result: Any, *, original_input: Dict[str, Any], tool_use_id: Optional[str]
) -> Dict[str, Any]:
    """What ``can_use_tool`` returned → the success payload of its control response.

    Allow: ``{"behavior": "allow", "updatedInput": <updated_input, or original_input when
    None>, "updatedPermissions": [...] (only when not None)}``. Deny: ``{"behavior": "deny",
    "message": ..., "interrupt": true (only when true)}``. Byte for byte what the official
    SDK sends, so wire recordings made with it verify against claude_sync: no ``toolUseID``
    (the CLI matches the answer by its request id). The class decides the behavior (its
    ``behavior`` field is not consulted).

    The two wire dicts the TypeScript SDK documents are accepted as well (ours, not the
    official Python SDK's): ``{"behavior": "allow", "updatedInput": {...}}`` (optional
    ``updatedPermissions``, ``toolUseID``, ``decisionClassification``; no ``updatedInput``
    sends the original input) and ``{"behavior": "deny", "message": "..."}`` (optional
    ``interrupt``, ``toolUseID``, ``decisionClassification``), checked key by key against
    the CLI's own schema (2.1.197 and 2.1.331 agree).

    Raises ``TypeError`` for any other return type (None, a bool, …) or dict shape, for an
    ``updated_input`` that is not a dict, ``updated_permissions`` that is not a list of
    ``PermissionUpdate``, or a deny ``message`` that is not a str; ``ValueError`` for a
    permission update the CLI would refuse. The caller turns either into a deny.
    """
    if isinstance(result, PermissionResultAllow):
        return _allow_to_wire(result, original_input)
    if isinstance(result, PermissionResultDeny):
        wire: Dict[str, Any] = {"behavior": "deny", "message": _deny_message(result.message)}
        if result.interrupt:
            wire["interrupt"] = True
        return wire
    if isinstance(result, Mapping):
        return _answer_dict_to_wire(result, original_input, tool_use_id)
    raise TypeError(
        f"can_use_tool must return PermissionResultAllow or PermissionResultDeny (or one "
        f"of the two wire dicts), got {type(result).__name__}{_none_hint(result)}"
    )


_ANSWER_KEYS: Dict[str, Tuple[str, ...]] = {
    "allow": ("behavior", "updatedInput", "updatedPermissions", "toolUseID", "decisionClassification"),
    "deny": ("behavior", "message", "interrupt", "toolUseID", "decisionClassification"),
}
"""The keys the CLI's schema allows in each permission answer (2.1.197 and 2.1.331)."""

DECISION_CLASSIFICATIONS = ("user_temporary", "user_permanent", "user_reject")
"""The values of a wire answer's ``decisionClassification`` the CLI accepts."""


def _answer_dict_to_wire(
    answer: Mapping[str, Any], original_input: Dict[str, Any], tool_use_id: Optional[str]
) -> Dict[str, Any]:
    behavior = answer.get("behavior")
    allowed = _ANSWER_KEYS.get(behavior) if isinstance(behavior, str) else None
    if allowed is None:
        raise TypeError(
            f'a permission answer dict needs "behavior": "allow" or "deny", got {behavior!r}; '
            "or return PermissionResultAllow(...) / PermissionResultDeny(...)"
        )
    unknown = sorted(str(key) for key in answer if key not in allowed)
    if unknown:
        raise TypeError(
            f"a {behavior!r} permission answer dict has key(s) the CLI does not take: "
            f"{', '.join(unknown)} (it takes {', '.join(allowed)})"
        )
    wire = _allow_dict_to_wire(answer, original_input) if behavior == "allow" else _deny_dict_to_wire(answer)
    classification = answer.get("decisionClassification")
    if classification is not None:
        if classification not in DECISION_CLASSIFICATIONS:
            raise TypeError(
                f"decisionClassification must be one of {', '.join(DECISION_CLASSIFICATIONS)}, "
                f"got {classification!r}"
            )
        wire["decisionClassification"] = classification
    answered_id = answer.get("toolUseID")
    if answered_id is not None and (not isinstance(answered_id, str) or (tool_use_id is not None and answered_id != tool_use_id)):
        raise TypeError(f"toolUseID {answered_id!r} is not the id of the tool use asked about ({tool_use_id!r})")
    if answered_id is not None:
        wire["toolUseID"] = answered_id
    return wire


def _allow_dict_to_wire(answer: Mapping[str, Any], original_input: Dict[str, Any]) -> Dict[str, Any]:
    updated_input = answer.get("updatedInput", original_input)
    if not isinstance(updated_input, dict):
        raise TypeError(f'"updatedInput" must be a dict (leave it out to keep the input), got {type(updated_input).__name__}')
    wire: Dict[str, Any] = {"behavior": "allow", "updatedInput": updated_input}
    if "updatedPermissions" in answer:
        updates = answer["updatedPermissions"]
        if not isinstance(updates, (list, tuple)) or not all(isinstance(u, Mapping) for u in updates):
            raise TypeError('"updatedPermissions" must be a list of permission update dicts')
        wire["updatedPermissions"] = [PermissionUpdate.from_dict(update).to_dict() for update in updates]
    return wire


def _deny_dict_to_wire(answer: Mapping[str, Any]) -> Dict[str, Any]:
    message, interrupt = answer.get("message"), answer.get("interrupt", False)
    if not isinstance(message, str):
        raise TypeError(f'a "deny" permission answer dict needs a str "message", got {type(message).__name__}')
    if not isinstance(interrupt, bool):
        raise TypeError(f'"interrupt" must be a bool, got {type(interrupt).__name__}')
    wire: Dict[str, Any] = {"behavior": "deny", "message": message}
    if "interrupt" in answer:
        wire["interrupt"] = interrupt
    return wire


def _allow_to_wire(result: PermissionResultAllow, original_input: Dict[str, Any]) -> Dict[str, Any]:
    updated_input = original_input if result.updated_input is None else result.updated_input
    if not isinstance(updated_input, dict):
        what = (
            "original_input must be a dict"
            if result.updated_input is None
            else "PermissionResultAllow.updated_input must be a dict or None"
        )
        raise TypeError(f"{what}, got {type(updated_input).__name__}")
    wire: Dict[str, Any] = {"behavior": "allow", "updatedInput": updated_input}
    if result.updated_permissions is not None:
        wire["updatedPermissions"] = _updates_to_wire(result.updated_permissions)
    return wire


def _updates_to_wire(updates: Any) -> List[Dict[str, Any]]:
    if not isinstance(updates, (list, tuple)):
        raise TypeError(
            f"PermissionResultAllow.updated_permissions must be a list of PermissionUpdate "
            f"or None, got {type(updates).__name__}"
        )
    wire = []
    for index, update in enumerate(updates):
        if not isinstance(update, PermissionUpdate):
            raise TypeError(
                f"PermissionResultAllow.updated_permissions[{index}] must be a "
                f"PermissionUpdate (PermissionUpdate.from_dict() builds one from a dict), "
                f"got {type(update).__name__}"
            )
        wire.append(update.to_dict())
    return wire


def _deny_message(message: Any) -> str:
    if not isinstance(message, str):
        raise TypeError(f"PermissionResultDeny.message must be a str, got {type(message).__name__}")
    return message


def _none_hint(result: Any) -> str:
    return "; every code path of the callback must return a result" if result is None else ""


def fail_closed_permission_wire(reason: str, tool_use_id: Optional[str]) -> Dict[str, Any]:
    """The deny sent when ``can_use_tool`` raised or returned a wrong type (``reason``).

    ``interrupt`` is false: the model is told the check failed and the turn goes on.
    """
    message = (
        f"Permission denied: the SDK's permission callback (can_use_tool) failed, so this "
        f"tool use was not allowed. Reason: {reason}"
    )
    return _with_tool_use_id(_deny_wire(message, interrupt=False), tool_use_id)


def deny_all_permission_wire(tool_name: str, tool_use_id: Optional[str]) -> Dict[str, Any]:
    """The deny sent for every permission request under ``deny_all_permissions=True``."""
    message = (
        f"Permission denied: the SDK runs with deny_all_permissions=True, which denies every "
        f"permission request without asking; {tool_name} cannot be used in this session."
    )
    return _with_tool_use_id(_deny_wire(message, interrupt=False), tool_use_id)


def _deny_wire(message: str, *, interrupt: bool) -> Dict[str, Any]:
    return {"behavior": "deny", "message": message, "interrupt": interrupt}


def _with_tool_use_id(wire: Dict[str, Any], tool_use_id: Optional[str]) -> Dict[str, Any]:
    if tool_use_id is not None:
        wire["toolUseID"] = tool_use_id
    return wire


def permission_server(callback: Optional[CanUseTool], deny_all: bool) -> ServePermission:
    """How this run serves a ``can_use_tool`` request: the function a callback-pool thread
    runs for each one (``serve_permission``): ``deny_all`` denies every request without a
    call, else ``callback`` is asked (None: every request is denied, fail-closed; see
    ``claude_sync._options.tool_rules.PermissionRouting``). Never raises: a callback that
    raises denies the tool (fail-closed, logged); the session goes on."""

    def serve_permission(event: ControlRequestReceived, signal: CancellationSignal) -> Dict[str, Any]:
        """Pool thread: the request → the callback's arguments → ``can_use_tool`` → the answer."""
        request = event.request
        tool_use_id = request.get("tool_use_id")
        if deny_all:
            return deny_all_permission_wire(str(request.get("tool_name", "")), tool_use_id)
        if callback is None:
            return fail_closed_permission_wire("claude_sync has no can_use_tool callback to ask", tool_use_id)
        tool_name, tool_input, context = permission_call_from_request(
            request, signal=signal, request_id=event.request_id
        )
        try:
            result = callback(tool_name, tool_input, context)
            return permission_result_to_wire(result, original_input=tool_input, tool_use_id=context.tool_use_id)
        except Exception as exc:  # noqa: BLE001 - fail closed, keep the session
            reason = callback_failure_reason(exc)
            logger.error("can_use_tool failed for %s (%s); the tool is denied", tool_name, reason, exc_info=exc)
            return fail_closed_permission_wire(reason, context.tool_use_id)

    return serve_permission


def deny_on_failure(event: ControlRequestReceived, reason: str) -> Dict[str, Any]:
    """The answer when serving a ``can_use_tool`` request failed some other way (the request
    server's refusal): permissions fail closed, the tool is denied."""
    return fail_closed_permission_wire(reason, event.request.get("tool_use_id"))
