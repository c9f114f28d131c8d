"""Hook callbacks: one ``hook_callback`` request's wire ↔ callback, and its handler (pure).

No threads, no I/O, no clocks. For every ``hook_callback`` control request the threaded shell
runs, on its callback pool::

    adapter in  →  user callback  →  adapter out  →  control_response

``hook_call_from_request`` is the adapter in, ``hook_output_to_wire`` the adapter out;
``hook_server`` puts them around the callback a CLI id names. The ids and the
``initialize.hooks`` field come from the options (``claude_sync._options.hook_registry``).
(Permission callbacks are the same shape: see ``permissions``.)

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

from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple

from .._redaction.redactor import redacted_logger
from .._wire.errors import CallbackRequestError, ClaudeSDKError, callback_failure_reason
from .._wire.protocol import ControlRequestReceived
from .hook_types import HookCallback, HookContext

if TYPE_CHECKING:  # pragma: no cover
    from .permission_types import CancellationSignal

__all__ = ["HookLookup", "hook_call_from_request", "hook_output_to_wire", "hook_server"]

HookLookup = Callable[[str], HookCallback]
"""The callback behind a CLI callback id; raises ``UnknownHookCallbackError`` for an id never
handed out (``HookRegistry.lookup``)."""

logger = redacted_logger("claude_sync.callbacks")

_PYTHON_SAFE_HOOK_KEYS: Dict[str, str] = {"continue_": "continue", "async_": "async"}


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


def hook_server(lookup: HookLookup) -> Callable[[ControlRequestReceived, CancellationSignal], Dict[str, Any]]:
    """How this run serves a ``hook_callback`` request: the function a callback-pool thread
    runs for each one (``serve_hook``), calling the hook ``lookup`` names. It raises ``UnknownHookCallbackError`` /
    ``CallbackRequestError`` for a request it cannot read and a ``ClaudeSDKError`` naming the
    hook when the hook raised (logged): the request server sends either as the error
    response, which the CLI treats as no decision (fail-open)."""

    def serve_hook(event: ControlRequestReceived, signal: CancellationSignal) -> Dict[str, Any]:
        """Pool thread: the request → the hook's arguments → the hook → the answer."""
        callback_id, hook_input, tool_use_id = hook_call_from_request(event.request)
        callback = lookup(callback_id)
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
