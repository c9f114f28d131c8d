"""Hook callbacks: ``options.hooks`` → ``initialize.hooks``, and one call's wire ↔ callback (pure).

No threads, no I/O, no clocks. For every ``hook_callback`` control request the threaded shell
runs, on its callback pool::

    adapter in  →  user callback  →  adapter out  →  control_response

``hook_call_from_request`` is the adapter in, ``hook_output_to_wire`` the adapter out;
``HookRegistry`` turns ``options.hooks`` into the ``initialize.hooks`` field and resolves the
CLI's callback ids. (Permission callbacks are the same shape: see ``permissions``.)

What happens when a hook goes wrong: fail-open table. "CLI" = the real CLI 2.1.197 as seen on
the wire (``docs/protocol/REAL_CLI_2.1.197.md`` §4 b, c, i, l); "(inferred)" = not seen,
follows from a case that was.

+----------------------------------+-------------------------------+-----------------------------+
| situation                        | claude_sync sends             | the CLI then                |
+==================================+===============================+=============================+
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
failing hook to block anything (a failure lets the tool run).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from .._redaction.redactor import redacted_logger
from .._wire.errors import (
    CallbackRequestError,
    ClaudeSDKError,
    CLIConnectionError,
    UnknownHookCallbackError,
    callback_failure_reason,
)
from .._wire.protocol import ControlRequestReceived
from .._wire.record import FrozenRecord, frozen_record
from .hook_types import HookCallback, HookContext, HookMatcher

if TYPE_CHECKING:  # pragma: no cover
    from .permission_types import CancellationSignal

__all__ = [
    "HookRegistry",
    "RegisteredHook",
    "check_fail_closed_answer",
    "hook_call_from_request",
    "hook_output_to_wire",
    "hook_server",
]

logger = redacted_logger("claude_sync.callbacks")

_PYTHON_SAFE_HOOK_KEYS: Dict[str, str] = {"continue_": "continue", "async_": "async"}


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
    on_failure: Optional[str] = None
    """``"continue"`` / ``"block"`` (fail closed) / None (the CLI's default)."""


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

        Any event name is accepted (CLI 2.1.332 knows 34; see ``KNOWN_HOOK_EVENTS``).
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
                            on_failure=matcher.on_failure,
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
            if first.on_failure is not None:
                config["onFailure"] = first.on_failure
            field.setdefault(first.event, []).append(config)
        return field

    @property
    def blocks_on_failure(self) -> bool:
        """Some matcher asked the CLI to fail closed (``on_failure="block"``)."""
        return any(entry.on_failure == "block" for entry in self._entries.values())

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
    if matcher.on_failure not in (None, "continue", "block"):
        raise ValueError(
            f"{where}.on_failure must be 'continue', 'block' or None, got {matcher.on_failure!r}"
        )


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


def _optional_str(request: Mapping[str, Any], key: str, *, subtype: str) -> Optional[str]:
    value = request.get(key)
    if value is not None and not isinstance(value, str):
        raise CallbackRequestError(
            f"{subtype} {key} must be a str, got {type(value).__name__}", subtype=subtype
        )
    return value


def check_fail_closed_answer(response: Mapping[str, Any]) -> None:
    """After ``initialize``, when a matcher has ``on_failure="block"``: make sure it will block.

    Raises ``CLIConnectionError`` when the CLI does not say ``hook_on_failure_supported`` (an
    older CLI drops the field, and its hooks would fail open), or says ``hooks_applied:
    false`` (nothing registered the hooks, as on an already running session).
    """
    if not response.get("hook_on_failure_supported"):
        raise CLIConnectionError(
            'a hook has on_failure="block", but this CLI does not honour on_failure (its '
            "initialize answer lacks hook_on_failure_supported), so a failing hook would "
            'not block: update Claude Code or remove on_failure="block"'
        )
    if response.get("hooks_applied") is False:
        raise CLIConnectionError(
            'a hook has on_failure="block", but the CLI did not register the hooks '
            "(hooks_applied: false): start a new session"
        )


def hook_server(registry: HookRegistry) -> Callable[[ControlRequestReceived, CancellationSignal], Dict[str, Any]]:
    """How this run serves a ``hook_callback`` request: the function a callback-pool thread
    runs for each one (``serve_hook``). It raises ``UnknownHookCallbackError`` /
    ``CallbackRequestError`` for a request it cannot read and a ``ClaudeSDKError`` naming the
    hook when the hook raised (logged): the request server sends either as the error
    response, which the CLI treats as no decision (fail-open)."""

    def serve_hook(event: ControlRequestReceived, signal: CancellationSignal) -> Dict[str, Any]:
        """Pool thread: the request → the hook's arguments → the hook → the answer."""
        callback_id, hook_input, tool_use_id = hook_call_from_request(event.request)
        callback = registry.lookup(callback_id)
        context = HookContext(signal=signal, request_id=event.request_id, callback_id=callback_id)
        try:
            return hook_output_to_wire(callback(hook_input, tool_use_id, context))
        except Exception as exc:  # noqa: BLE001 - becomes the error response, fail-open
            # The error response's text: "Hook hook_0 (PreToolUse) failed: ValueError: boom".
            # A ClaudeSDKError, so the request server sends it without logging it a second time.
            failure = ClaudeSDKError(
                f"Hook {callback_id} ({hook_input.get('hook_event_name')}) failed: {callback_failure_reason(exc)}"
            )
            logger.error("%s; the CLI treats this as no decision (fail-open)", failure, exc_info=exc)
            raise failure from exc

    return serve_hook
