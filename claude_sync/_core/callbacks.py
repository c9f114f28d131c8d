"""Permission and hook callbacks: wire request ↔ user callback arguments and results.

Pure: no threads, no I/O, no clocks. For every ``can_use_tool`` / ``hook_callback`` control
request the threaded shell runs, on its callback pool::

    adapter in  →  user callback  →  adapter out  →  control_response

``permission_call_from_request`` / ``hook_call_from_request`` are the adapters in;
``permission_result_to_wire`` / ``hook_output_to_wire`` the adapters out;
``fail_closed_permission_wire`` / ``deny_all_permission_wire`` build the denies the shell
sends on its own; ``HookRegistry`` turns ``options.hooks`` into the ``initialize.hooks``
field and resolves the CLI's callback ids.

What happens when a callback goes wrong: fail-open / fail-closed table. "CLI" = the real CLI
2.1.197 as seen on the wire (``REAL_CLI_2.1.197.md`` §b, §c, §i, §l); "(inferred)" = not
seen, follows from a case that was.

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
| dict, a bool, …)                 | ``fail_closed_permission_     | the turn goes on (an error  |
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
| hook returns a dict or None      | ``hook_output_to_wire``       | applies it (``continue:     |
|                                  |                               | false`` still lets the tool |
|                                  |                               | run, then ends the turn)    |
+----------------------------------+-------------------------------+-----------------------------+
| hook **raises**, returns a       | error response                | fails **open**: as if the   |
| non-dict, or the CLI names an    |                               | hook said nothing, the tool |
| unknown callback id              |                               | runs; KBs of minified       |
|                                  |                               | source on stderr (unknown   |
|                                  |                               | id: inferred)               |
+----------------------------------+-------------------------------+-----------------------------+
| hook with an explicit            | nothing: the CLI cancels      | ``control_cancel_request``  |
| ``timeout`` expires              | (``context.signal`` is set)   | and **denies** the tool     |
|                                  |                               | ("The user doesn't want to  |
|                                  |                               | take this action right      |
|                                  |                               | now"); a late answer is     |
|                                  |                               | ignored                     |
+----------------------------------+-------------------------------+-----------------------------+
| hook without ``timeout``         | —                             | waits 600 s (source; still  |
|                                  |                               | waiting after 200 s)        |
+----------------------------------+-------------------------------+-----------------------------+
| stdin closed while a hook is     | nothing (cannot)              | rejects the hook and fails  |
| pending                          |                               | **open**: the tool runs     |
+----------------------------------+-------------------------------+-----------------------------+
| interrupt while either callback  | nothing: the CLI cancels      | ``control_cancel_request``  |
| is pending                       | (``context.signal`` is set)   | before the interrupt's ack; |
|                                  |                               | a late answer is ignored    |
+----------------------------------+-------------------------------+-----------------------------+

So: give every hook an explicit ``timeout`` (expiry denies the tool), and never rely on a
failing hook to block anything (a failure lets the tool run). Permission failures always
deny.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .errors import ClaudeSDKError
from .options import (
    CancellationSignal,
    HookCallback,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    ToolPermissionContext,
)
from .record import FrozenRecord, frozen_record

__all__ = [
    "CallbackRequestError",
    "HookRegistry",
    "RegisteredHook",
    "UnknownHookCallbackError",
    "callback_failure_reason",
    "deny_all_permission_wire",
    "fail_closed_permission_wire",
    "hook_call_from_request",
    "hook_output_to_wire",
    "permission_call_from_request",
    "permission_result_to_wire",
    "suggestions_from_wire",
]

_MAX_REASON_CHARS = 2000
_PYTHON_SAFE_HOOK_KEYS: Dict[str, str] = {"continue_": "continue", "async_": "async"}


# --------------------------------------------------------------------------- errors


class CallbackRequestError(ClaudeSDKError, ValueError):
    """A ``can_use_tool`` / ``hook_callback`` request we cannot serve (broken shape).

    The shell answers it with an error control response; ``subtype`` names the request kind.
    """

    def __init__(self, message: str, subtype: Optional[str] = None):
        super().__init__(message)
        self.subtype = subtype

    def _init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "subtype": self.subtype}


class UnknownHookCallbackError(CallbackRequestError, LookupError):
    """The CLI named a hook callback id we never registered (``callback_id``)."""

    def __init__(self, message: str, callback_id: Any = None, subtype: Optional[str] = None):
        super().__init__(message, subtype=subtype if subtype is not None else "hook_callback")
        self.callback_id = callback_id

    def _init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "callback_id": self.callback_id, "subtype": self.subtype}


# --------------------------------------------------------------------------- hooks: registration


@frozen_record
class RegisteredHook(FrozenRecord):
    """One hook callback as registered with the CLI under ``callback_id``."""

    callback_id: str
    event: str
    matcher_index: int
    """Position of its ``HookMatcher`` in ``options.hooks[event]``."""
    matcher: Optional[str]
    timeout: Optional[float]
    callback: HookCallback


class HookRegistry:
    """``options.hooks`` with generated callback ids: ``hook_0``, ``hook_1``, …

    Ids are unique within one registry and stable: the same options give the same ids, in
    the order of the events, then matchers, then callbacks. Matchers without callbacks, and
    events left without matchers, are not sent (they could never fire anything).
    """

    def __init__(self, entries: Sequence[RegisteredHook] = ()):
        self._entries: Dict[str, RegisteredHook] = {}
        for entry in entries:
            if entry.callback_id in self._entries:
                raise ValueError(f"duplicate hook callback id {entry.callback_id!r}")
            self._entries[entry.callback_id] = entry

    @classmethod
    def from_options(cls, hooks: Optional[Mapping[str, Sequence[HookMatcher]]]) -> HookRegistry:
        """Validate ``ClaudeAgentOptions.hooks`` and number its callbacks.

        Any event name is accepted (the CLI knows about 30; see ``KNOWN_HOOK_EVENTS``).
        Raises ``TypeError`` for a non-mapping ``hooks``, a non-str event name, a matcher list
        that is not a list/tuple, an item that is not a ``HookMatcher``, a non-str
        ``matcher``, a non-callable hook or a non-numeric timeout; ``ValueError`` for an empty
        event name or a timeout that is not a finite number > 0.
        """
        if hooks is None:
            return cls()
        if not isinstance(hooks, Mapping):
            raise TypeError(
                f"hooks must be a dict of event name -> list of HookMatcher, "
                f"got {type(hooks).__name__}"
            )
        entries: List[RegisteredHook] = []
        for event, matchers in hooks.items():
            _check_event_name(event)
            for index, matcher in enumerate(_check_matcher_list(event, matchers)):
                where = f"hooks[{event!r}][{index}]"
                _check_matcher(where, matcher)
                for callback in matcher.hooks:
                    entries.append(
                        RegisteredHook(
                            callback_id=f"hook_{len(entries)}",
                            event=event,
                            matcher_index=index,
                            matcher=matcher.matcher,
                            timeout=_json_number(matcher.timeout),
                            callback=callback,
                        )
                    )
        return cls(entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def callback_ids(self) -> List[str]:
        """Every registered id, in registration order."""
        return list(self._entries)

    def initialize_hooks_field(self) -> Dict[str, List[Dict[str, Any]]]:
        """The ``hooks`` field of the ``initialize`` request (``{}`` when there are none).

        ``{"<Event>": [{"hookCallbackIds": [...], "matcher": ..., "timeout": ...}]}``; matcher
        and timeout are left out when None.
        """
        field: Dict[str, List[Dict[str, Any]]] = {}
        for group in self._matcher_groups():
            first = group[0]
            config: Dict[str, Any] = {"hookCallbackIds": [entry.callback_id for entry in group]}
            if first.matcher is not None:
                config["matcher"] = first.matcher
            if first.timeout is not None:
                config["timeout"] = first.timeout
            field.setdefault(first.event, []).append(config)
        return field

    def registered(self, callback_id: Any) -> RegisteredHook:
        """The registration behind ``callback_id``.

        Raises ``UnknownHookCallbackError`` for an id this registry never handed out.
        """
        entry = self._entries.get(callback_id) if isinstance(callback_id, str) else None
        if entry is None:
            known = ", ".join(self._entries) or "none registered"
            raise UnknownHookCallbackError(
                f"no hook callback is registered under id {callback_id!r} (known: {known})",
                callback_id=callback_id,
            )
        return entry

    def lookup(self, callback_id: Any) -> HookCallback:
        """The callback registered under ``callback_id``.

        Raises ``UnknownHookCallbackError`` for an id this registry never handed out.
        """
        return self.registered(callback_id).callback

    def _matcher_groups(self) -> Iterable[List[RegisteredHook]]:
        """Entries grouped back into their matchers, in registration order."""
        groups: Dict[Tuple[str, int], List[RegisteredHook]] = {}
        for entry in self._entries.values():
            groups.setdefault((entry.event, entry.matcher_index), []).append(entry)
        return groups.values()


def _check_event_name(event: Any) -> None:
    if not isinstance(event, str):
        raise TypeError(f"hook event names must be str, got {type(event).__name__} {event!r}")
    if not event:
        raise ValueError("hook event name must not be empty")


def _check_matcher_list(event: str, matchers: Any) -> Sequence[Any]:
    if isinstance(matchers, HookMatcher):
        raise TypeError(
            f"hooks[{event!r}] must be a list of HookMatcher, got a single HookMatcher; "
            f"wrap it in a list"
        )
    if not isinstance(matchers, (list, tuple)):
        raise TypeError(
            f"hooks[{event!r}] must be a list of HookMatcher, got {type(matchers).__name__}"
        )
    return matchers


def _check_matcher(where: str, matcher: Any) -> None:
    if not isinstance(matcher, HookMatcher):
        raise TypeError(f"{where} must be a HookMatcher, got {type(matcher).__name__}")
    if matcher.matcher is not None and not isinstance(matcher.matcher, str):
        raise TypeError(
            f"{where}.matcher must be a str or None, got {type(matcher.matcher).__name__}"
        )
    if not isinstance(matcher.hooks, (list, tuple)):
        raise TypeError(
            f"{where}.hooks must be a list of callables, got {type(matcher.hooks).__name__}"
        )
    for position, callback in enumerate(matcher.hooks):
        if not callable(callback):
            raise TypeError(
                f"{where}.hooks[{position}] must be callable, got {type(callback).__name__}"
            )
    _check_timeout(where, matcher.timeout)


def _check_timeout(where: str, timeout: Any) -> None:
    if timeout is None:
        return
    if isinstance(timeout, bool) or not isinstance(timeout, Real):
        raise TypeError(
            f"{where}.timeout must be a number of seconds or None, got {type(timeout).__name__}"
        )
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"{where}.timeout must be a finite number of seconds > 0, got {timeout!r}")


def _json_number(timeout: Optional[float]) -> Optional[float]:
    """A checked timeout as a plain ``int``/``float`` (``Fraction``, numpy ints… do not encode)."""
    if timeout is None or type(timeout) in (int, float):
        return timeout
    return int(timeout) if isinstance(timeout, Integral) else float(timeout)


# --------------------------------------------------------------------------- hooks: one call


def hook_call_from_request(request: Mapping[str, Any]) -> Tuple[str, Dict[str, Any], Optional[str]]:
    """A ``hook_callback`` request → ``(callback_id, hook_input, tool_use_id)``.

    ``hook_input`` is the request's ``input`` dict itself (``{}`` if the CLI left it out);
    ``tool_use_id`` is present for every hook on CLI 2.1.197 (a synthetic id for non-tool
    events). Raises ``CallbackRequestError`` when ``callback_id`` is not a non-empty str,
    ``input`` is not an object, or ``tool_use_id`` is neither a str nor absent.
    """
    callback_id = request.get("callback_id")
    if not isinstance(callback_id, str) or not callback_id:
        raise CallbackRequestError(
            f"hook_callback request without a callback_id (got {callback_id!r})",
            subtype="hook_callback",
        )
    hook_input = request.get("input")
    if hook_input is None:
        hook_input = {}
    if not isinstance(hook_input, dict):
        raise CallbackRequestError(
            f"hook_callback input must be an object, got {type(hook_input).__name__}",
            subtype="hook_callback",
        )
    tool_use_id = _optional_str(request, "tool_use_id", subtype="hook_callback")
    return callback_id, hook_input, tool_use_id


def hook_output_to_wire(output: Any) -> Dict[str, Any]:
    """What a hook returned → the success payload of its control response.

    ``None`` → ``{}`` (no opinion). A mapping is copied with the Python-safe top-level keys
    ``continue_`` → ``continue`` and ``async_`` → ``async``; nested dicts such as
    ``hookSpecificOutput`` are passed through untouched. When both spellings are present
    (``continue_`` and ``continue``) they must agree: equal values give one key, different
    values raise ``ValueError`` (we will not guess which one the hook meant; the shell's
    error response makes the CLI fail open). Raises ``TypeError`` for any other return type.
    """
    if output is None:
        return {}
    if output.__class__ is not dict and not isinstance(output, Mapping):  # dict: skip the ABC check
        raise TypeError(
            f"a hook callback must return a dict (the CLI's hook output JSON) or None, "
            f"got {type(output).__name__}"
        )
    for safe_key, wire_key in _PYTHON_SAFE_HOOK_KEYS.items():
        if safe_key in output and wire_key in output and output[safe_key] != output[wire_key]:
            raise ValueError(
                f"hook output has both {safe_key!r}={output[safe_key]!r} and "
                f"{wire_key!r}={output[wire_key]!r}; return only one of them"
            )
    return {_wire_hook_key(key): value for key, value in output.items()}


def _wire_hook_key(key: Any) -> Any:
    return _PYTHON_SAFE_HOOK_KEYS.get(key, key) if isinstance(key, str) else key


# --------------------------------------------------------------------------- permissions


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
    ``decision_reason_type``, ``blocked_path``, ``agent_id`` (None when absent; a value that
    is not a str also gives None and stays visible in ``raw``), ``signal``, ``request_id`` and
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
    fields: Dict[str, Any] = {"signal": signal, "request_id": request_id, "raw": dict(request)}
    for key, value in request.items():  # one pass: this runs for every permission request
        name = _CONTEXT_STR_FIELDS.get(key)
        if name is not None:
            if value.__class__ is str:
                fields[name] = value
        elif key == "permission_suggestions":
            fields["suggestions"] = suggestions_from_wire(value)
    return tool_name, tool_input, ToolPermissionContext(**fields)


_CONTEXT_STR_FIELDS = {
    name: name
    for name in (
        "tool_use_id", "agent_id", "blocked_path", "decision_reason", "decision_reason_type",
        "title", "display_name", "description",
    )
}  # fmt: skip


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
    None>, "updatedPermissions": [...] (only when not None), "toolUseID": ... (when known)}``.
    Deny: ``{"behavior": "deny", "message": ..., "interrupt": bool, "toolUseID": ...}``.
    The class decides the behavior (its ``behavior`` field is not consulted).
    Raises ``TypeError`` for any other return type (None, a dict, a bool, …), for an
    ``updated_input`` that is not a dict, ``updated_permissions`` that is not a list of
    ``PermissionUpdate``, or a deny ``message`` that is not a str.
    """
    if isinstance(result, PermissionResultAllow):
        wire = _allow_to_wire(result, original_input)
    elif isinstance(result, PermissionResultDeny):
        wire = _deny_wire(_deny_message(result.message), interrupt=bool(result.interrupt))
    else:
        raise TypeError(
            f"can_use_tool must return PermissionResultAllow or PermissionResultDeny, got "
            f"{type(result).__name__}{_plain_dict_hint(result)}"
        )
    return _with_tool_use_id(wire, tool_use_id)


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


def _plain_dict_hint(result: Any) -> str:
    if isinstance(result, Mapping):
        return (
            "; a plain dict is not accepted: return PermissionResultAllow(updated_input=...) "
            "or PermissionResultDeny(message=...)"
        )
    if result is None:
        return "; every code path of the callback must return a result"
    return ""


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


def callback_failure_reason(error: BaseException) -> str:
    """A one-line, bounded description of a callback's exception, for the wire.

    ``"ValueError: boom"``; cut to 2000 characters. Used as the ``reason`` of
    ``fail_closed_permission_wire`` and as the text of a hook's error response.
    """
    text = str(error).strip()
    reason = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if len(reason) > _MAX_REASON_CHARS:
        reason = reason[: _MAX_REASON_CHARS - 1] + "…"
    return reason


def _deny_wire(message: str, *, interrupt: bool) -> Dict[str, Any]:
    return {"behavior": "deny", "message": message, "interrupt": interrupt}


def _with_tool_use_id(wire: Dict[str, Any], tool_use_id: Optional[str]) -> Dict[str, Any]:
    if tool_use_id is not None:
        wire["toolUseID"] = tool_use_id
    return wire


# --------------------------------------------------------------------------- helpers


def _str_or_none(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _optional_str(request: Mapping[str, Any], key: str, *, subtype: str) -> Optional[str]:
    value = request.get(key)
    if value is not None and not isinstance(value, str):
        raise CallbackRequestError(
            f"{subtype} {key} must be a str, got {type(value).__name__}", subtype=subtype
        )
    return value
