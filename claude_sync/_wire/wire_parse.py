"""The public wire-message parser: one decoded JSON object of the CLI's stdout -> claude_sync's
typed message, with the contract of the official SDK's private parser, which record/replay and
drift-checking libraries call (``parse_message`` of ``claude_agent_sdk._internal.message_parser``).

``parse_message(data)``:

* a known ``type``: its message class (the same parser the session's reader uses);
* an unknown ``type``: ``None``, as the official parser (it skips what a newer CLI added);
  ``keep_unknown=True`` gives the ``UnknownMessage`` a session yields instead (nothing dropped);
* ``MessageParseError`` (``.data`` the value given) when ``data`` is not a dict, has no
  ``type`` (or an empty one), or is a known type with a broken shape.

Differences from the official parser, kept on purpose: a broken shape of a known type is
always a ``MessageParseError`` (the official one lets some through as ``TypeError``); a
non-string ``type`` is a ``MessageParseError`` (officially skipped as unknown); an unknown
content block is kept as ``UnknownBlock`` and an unknown ``system`` subtype as a plain
``SystemMessage`` (officially: a block dropped, a ``SystemMessage``). The error texts differ.

Pure module: no threads, no I/O.
"""

from __future__ import annotations

from typing import Any, Optional

from .errors import MessageParseError
from .messages import Message, UnknownMessage
from .parse import parse_message as _parse

__all__ = ["parse_message"]


def parse_message(data: Any, *, keep_unknown: bool = False) -> Optional[Message]:
    """Turn one decoded wire object (a line of the CLI's stdout, ``json.loads``-ed) into its
    typed message. Runs on the caller's thread; pure.

    Args:
        data: The decoded JSON object.
        keep_unknown: Return an ``UnknownMessage`` for a ``type`` claude_sync does not know,
            instead of ``None`` (the official parser's answer).

    Returns:
        The message; ``None`` for an unknown ``type`` unless ``keep_unknown``.

    Raises:
        MessageParseError: ``data`` is not a dict, has no (or an empty) ``type``, a ``type``
            that is not a string, or is a known type with a broken shape (a required field
            missing, ``message`` not an object …); ``.data`` is ``data``.
    """
    if type(data) is dict and "type" in data and data["type"] == "":
        raise MessageParseError("Message missing 'type' field", data)
    message = _parse(data)
    if not keep_unknown and type(message) is UnknownMessage:
        return None
    return message
