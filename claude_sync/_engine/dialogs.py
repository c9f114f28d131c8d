"""Serving the CLI's ``elicitation`` and ``request_user_dialog`` requests with the
``on_elicitation`` / ``on_user_dialog`` callbacks (TypeScript-SDK host callbacks; the pure
adapters and the fail-safe answers are in ``_options.ts_extras``). Handlers run on the callback
pool, like ``can_use_tool``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Dict, Optional

from .._callbacks.permissions import callback_failure_reason
from .._options.ts_extras import (
    CANCELLED_DIALOG,
    DECLINE_ELICITATION,
    HostCallbacks,
    OnElicitation,
    OnUserDialog,
    elicitation_request_from_wire,
    elicitation_result_to_wire,
    user_dialog_request_from_wire,
    user_dialog_result_to_wire,
)
from .._wire.protocol import ControlRequestReceived
from .serving import Handler, ServeFn

__all__ = ["host_dialog_handlers"]

logger = logging.getLogger("claude_sync.callbacks")


def host_dialog_handlers(callbacks: HostCallbacks) -> Dict[str, Handler]:
    """``elicitation`` is always answered (a decline without ``on_elicitation``);
    ``request_user_dialog`` only with ``on_user_dialog``."""
    handlers = {"elicitation": Handler(_elicitation_handler(callbacks.on_elicitation))}
    if callbacks.on_user_dialog is not None:
        handlers["request_user_dialog"] = Handler(_user_dialog_handler(callbacks.on_user_dialog))
    return handlers


def _elicitation_handler(callback: Optional[OnElicitation]) -> ServeFn:
    def serve_elicitation(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
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


def _user_dialog_handler(callback: OnUserDialog) -> ServeFn:
    def serve_user_dialog(event: ControlRequestReceived, signal: threading.Event) -> Dict[str, Any]:
        request = user_dialog_request_from_wire(event.request, signal, event.request_id)
        try:
            return user_dialog_result_to_wire(callback(request))
        except Exception as exc:  # noqa: BLE001 - fail safe: cancelled (the dialog's default)
            reason = callback_failure_reason(exc)
            logger.error("on_user_dialog failed for %s (%s); answered cancelled", request.dialog_kind, reason)
            return dict(CANCELLED_DIALOG)

    return serve_user_dialog
