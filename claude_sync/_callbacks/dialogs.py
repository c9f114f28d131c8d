"""Host dialogs the CLI asks for (pure): ``on_elicitation`` and ``on_user_dialog``.

* ``on_elicitation(ElicitationRequest) -> ElicitationResult | dict``: an MCP server asks the
  user for input. Without a callback, or when it raises or returns something else, the answer
  is ``{"action": "decline"}`` (what the TypeScript SDK answers without one).
* ``on_user_dialog(UserDialogRequest) -> UserDialogResult | dict``: the CLI asks the host to
  render a blocking dialog (only kinds declared in ``supported_dialog_kinds``). When it raises
  or returns something else the answer is ``{"behavior": "cancelled"}`` (the CLI then applies
  the dialog's default). Without a callback the CLI's request gets an error answer, which the
  CLI discards (the dialog stays pending until its deadline), as the TypeScript SDK leaves it.

They run on the callback pool like ``can_use_tool`` (``_engine.serving``); this module holds
the typed requests and results and their wire adapters.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Union

from .._redaction.redactor import redacted_logger
from .._wire.errors import callback_failure_reason
from .._wire.protocol import ControlRequestReceived
from .._wire.record import FrozenRecord, frozen_record

if TYPE_CHECKING:  # pragma: no cover
    from .permission_types import CancellationSignal

__all__ = [
    "CANCELLED_DIALOG",
    "DECLINE_ELICITATION",
    "ElicitationRequest",
    "ElicitationResult",
    "OnElicitation",
    "OnUserDialog",
    "UserDialogRequest",
    "UserDialogResult",
    "elicitation_request_from_wire",
    "elicitation_result_to_wire",
    "elicitation_server",
    "user_dialog_request_from_wire",
    "user_dialog_result_to_wire",
    "user_dialog_server",
]

logger = redacted_logger("claude_sync.callbacks")

ServeDialog = Callable[[ControlRequestReceived, "CancellationSignal"], Dict[str, Any]]
"""Serves one host-dialog request (a callback-pool thread): the answer's payload."""

DECLINE_ELICITATION: Dict[str, Any] = {"action": "decline"}
CANCELLED_DIALOG: Dict[str, Any] = {"behavior": "cancelled"}
_ELICITATION_ACTIONS = ("accept", "decline", "cancel")


# --------------------------------------------------------------------------- elicitation


@frozen_record
class ElicitationRequest(FrozenRecord):
    """An MCP server asks the user for input (the CLI's ``elicitation`` request).

    ``mode`` is ``"form"`` (fill ``requested_schema``, a JSON Schema) or ``"url"`` (open ``url``;
    ``elicitation_id`` correlates it). ``title`` / ``display_name`` / ``description`` come from
    the server's permission-display metadata. ``signal`` is set when the CLI withdraws the
    request or the session closes. ``raw`` is the whole request.

    Attributes:
        server_name: The MCP server asking.
        message: What the server asks the user.
        mode: ``"form"`` or ``"url"`` (None when the CLI does not say; a form).
        url: The page to open, in ``url`` mode.
        elicitation_id: Correlates a ``url`` elicitation with its completion.
        requested_schema: The JSON Schema of the form to fill, in ``form`` mode.
        title: A title, from the server's permission-display metadata.
        display_name: The server's display name, from the same metadata.
        description: A description, from the same metadata.
        signal: Set when the CLI withdraws the request or the session closes.
        request_id: The control request's id.
        raw: The whole request as the CLI sent it.
    """

    server_name: str
    message: str
    mode: Optional[str] = None
    url: Optional[str] = None
    elicitation_id: Optional[str] = None
    requested_schema: Optional[Dict[str, Any]] = None
    title: Optional[str] = None
    display_name: Optional[str] = None
    description: Optional[str] = None
    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@frozen_record
class ElicitationResult(FrozenRecord):
    """The user's answer: ``action`` is ``"accept"`` (with ``content`` for a form),
    ``"decline"`` or ``"cancel"`` (MCP ``ElicitResult``).

    Attributes:
        action: ``"accept"``, ``"decline"`` or ``"cancel"``.
        content: The form's values, with ``accept`` in ``form`` mode.
    """

    action: str
    content: Optional[Dict[str, Any]] = None


OnElicitation = Callable[[ElicitationRequest], Union[ElicitationResult, Dict[str, Any]]]
"""The ``on_elicitation`` callback: a plain function run on the callback pool that answers an
MCP server's elicitation (accept with content, decline, or cancel); raising declines."""


def elicitation_request_from_wire(
    request: Mapping[str, Any], signal: Optional[CancellationSignal], request_id: Optional[str]
) -> ElicitationRequest:
    """The callback's argument from the CLI's request (missing fields become None)."""

    def text(key: str) -> Optional[str]:
        value = request.get(key)
        return value if isinstance(value, str) else None

    schema = request.get("requested_schema")
    return ElicitationRequest(
        server_name=text("mcp_server_name") or "",
        message=text("message") or "",
        mode=text("mode"),
        url=text("url"),
        elicitation_id=text("elicitation_id"),
        requested_schema=schema if isinstance(schema, dict) else None,
        title=text("title"),
        display_name=text("display_name"),
        description=text("description"),
        signal=signal,
        request_id=request_id,
        raw=dict(request),
    )


def elicitation_result_to_wire(result: Any) -> Dict[str, Any]:
    """The control response for what ``on_elicitation`` returned.

    Raises ``TypeError`` for anything but an ``ElicitationResult`` / dict, ``ValueError`` for an
    unknown ``action`` or a ``content`` that is not a dict (the caller answers with a decline).
    """
    action: Any
    content: Any
    if isinstance(result, ElicitationResult):
        action, content = result.action, result.content
    elif isinstance(result, Mapping):
        action, content = result.get("action"), result.get("content")
    else:
        raise TypeError(
            f"on_elicitation must return an ElicitationResult or a dict, not {type(result).__name__}"
        )
    if action not in _ELICITATION_ACTIONS:
        raise ValueError(f"elicitation action must be one of {_ELICITATION_ACTIONS}, not {action!r}")
    if content is not None and not isinstance(content, Mapping):
        raise ValueError(f"elicitation content must be a dict, not {type(content).__name__}")
    answer: Dict[str, Any] = {"action": action}
    if content is not None:
        answer["content"] = dict(content)
    return answer


# --------------------------------------------------------------------------- user dialogs


@frozen_record
class UserDialogRequest(FrozenRecord):
    """The CLI asks the host to render a blocking dialog (``request_user_dialog``).

    ``dialog_kind`` names it (e.g. ``"refusal_fallback_prompt"``; new kinds may appear);
    ``payload`` is its kind-specific data; ``tool_use_id`` is set when a tool call is waiting
    on it. ``signal`` is set when the CLI withdraws the dialog or the session closes.

    Attributes:
        dialog_kind: Which dialog (e.g. ``"refusal_fallback_prompt"``; new kinds may appear).
        payload: The dialog's kind-specific data.
        tool_use_id: The tool call waiting on the dialog, if any.
        signal: Set when the CLI withdraws the dialog or the session closes.
        request_id: The control request's id.
        raw: The whole request as the CLI sent it.
    """

    dialog_kind: str
    payload: Dict[str, Any] = field(default_factory=dict)
    tool_use_id: Optional[str] = None
    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@frozen_record
class UserDialogResult(FrozenRecord):
    """The host's answer: ``behavior`` ``"completed"`` with the dialog's ``result``, or
    ``"cancelled"`` (the CLI applies the dialog's default).

    Attributes:
        behavior: ``"completed"`` or ``"cancelled"`` (the CLI then applies the dialog's default).
        result: The dialog's result, with ``completed``.
    """

    behavior: str
    result: Any = None


OnUserDialog = Callable[[UserDialogRequest], Union[UserDialogResult, Dict[str, Any]]]
"""The ``on_user_dialog`` callback: a plain function run on the callback pool that answers the
CLI's ``request_user_dialog``; raising answers cancelled."""


def user_dialog_request_from_wire(
    request: Mapping[str, Any], signal: Optional[CancellationSignal], request_id: Optional[str]
) -> UserDialogRequest:
    """The callback's argument from the CLI's request."""
    kind = request.get("dialog_kind")
    payload = request.get("payload")
    tool_use_id = request.get("tool_use_id")
    return UserDialogRequest(
        dialog_kind=kind if isinstance(kind, str) else "",
        payload=dict(payload) if isinstance(payload, Mapping) else {},
        tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None,
        signal=signal,
        request_id=request_id,
        raw=dict(request),
    )


def user_dialog_result_to_wire(result: Any) -> Dict[str, Any]:
    """The control response for what ``on_user_dialog`` returned.

    Raises ``TypeError`` for anything but a ``UserDialogResult`` / dict and ``ValueError`` for an
    unknown ``behavior`` (the caller then answers ``cancelled``).
    """
    behavior: Any
    if isinstance(result, UserDialogResult):
        behavior, value, has_value = result.behavior, result.result, True
    elif isinstance(result, Mapping):
        behavior, value, has_value = result.get("behavior"), result.get("result"), "result" in result
    else:
        raise TypeError(
            f"on_user_dialog must return a UserDialogResult or a dict, not {type(result).__name__}"
        )
    if behavior == "cancelled":
        return dict(CANCELLED_DIALOG)
    if behavior != "completed":
        raise ValueError(f"dialog behavior must be 'completed' or 'cancelled', not {behavior!r}")
    return {"behavior": "completed", "result": value if has_value else None}


def elicitation_server(callback: Optional[OnElicitation]) -> ServeDialog:
    """How this run serves an ``elicitation`` request: the function a callback-pool thread
    runs for each one. Never raises: without ``on_elicitation``, or when it raises (logged),
    the answer is a decline; the session goes on."""

    def serve_elicitation(event: ControlRequestReceived, signal: CancellationSignal) -> Dict[str, Any]:
        if callback is None:
            return dict(DECLINE_ELICITATION)
        request = elicitation_request_from_wire(event.request, signal, event.request_id)
        try:
            return elicitation_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: decline, keep the session
            reason = callback_failure_reason(exc)
            logger.error("on_elicitation failed for %s (%s); declined", request.server_name, reason)
            return dict(DECLINE_ELICITATION)

    return serve_elicitation


def user_dialog_server(callback: OnUserDialog) -> ServeDialog:
    """How this run serves a ``request_user_dialog`` request: the function a callback-pool
    thread runs for each one. Never raises: when ``on_user_dialog`` raises (logged), the
    answer is ``cancelled`` (the dialog's default); the session goes on."""

    def serve_user_dialog(event: ControlRequestReceived, signal: CancellationSignal) -> Dict[str, Any]:
        request = user_dialog_request_from_wire(event.request, signal, event.request_id)
        try:
            return user_dialog_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: cancelled (the dialog's default)
            reason = callback_failure_reason(exc)
            logger.error("on_user_dialog failed for %s (%s); answered cancelled", request.dialog_kind, reason)
            return dict(CANCELLED_DIALOG)

    return serve_user_dialog
