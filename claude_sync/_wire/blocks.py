"""Immutable content-block types (the items of a message's ``content``), and their base class.

The rules every message and block class follows are in the ``messages`` docstring. This
module also holds what those classes share: the ``WireRecord`` base and the field helpers
``raw_field`` / ``wire_field`` / ``_as_is``.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Type, Union

from .record import FrozenRecord, frozen_record
from .serde import SerdeMixin, decoder_metadata

__all__ = [
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ServerToolUseBlock",
    "ServerToolResultBlock",
    "ImageBlock",
    "UnknownBlock",
    "ContentBlock",
    "BLOCK_CLASSES",
    "block_class",
]


def raw_field() -> Any:
    """The ``raw`` field: the wire dict, kept out of ``==`` and ``repr()``."""
    return field(default_factory=dict, repr=False, compare=False)


def wire_field(name: str, default: Any = None) -> Any:
    """A field read from the wire key ``name`` (the parser's generic readers use this)."""
    return field(default=default, metadata={"wire": name})


def _as_is(value: Any) -> Any:
    """Decoder that keeps a loosely typed wire value unchanged (no Union guessing)."""
    return value


class WireRecord(SerdeMixin, FrozenRecord):
    """Base of every message and block: immutable, cheap to define, lazily serialisable.

    Its ``repr()`` is short (defaults left out, long values cut, secrets redacted) and it
    renders itself in notebooks (``_repr_html_`` / ``_repr_markdown_``): see ``render``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        from .._display.render import short_repr  # loaded on the first repr, not at import

        return short_repr(self)

    def _repr_html_(self) -> str:
        from .._display.render import to_html

        return to_html(self)

    def _repr_markdown_(self) -> str:
        from .._display.render import to_markdown

        return to_markdown(self)


# ----------------------------------------------------------------------------- blocks


@frozen_record
class TextBlock(WireRecord):
    """Plain text (``{"type": "text", "text": …}``)."""

    type: str = field(default="text", init=False, repr=False, compare=False)
    text: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ThinkingBlock(WireRecord):
    """Extended thinking; ``signature`` verifies it when it is sent back to the API."""

    type: str = field(default="thinking", init=False, repr=False, compare=False)
    thinking: str
    signature: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class RedactedThinkingBlock(WireRecord):
    """Thinking the API returned encrypted; ``data`` is opaque."""

    type: str = field(default="redacted_thinking", init=False, repr=False, compare=False)
    data: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ToolUseBlock(WireRecord):
    """The model asks to run tool ``name`` with ``input``; ``id`` names the call."""

    type: str = field(default="tool_use", init=False, repr=False, compare=False)
    id: str
    name: str
    input: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ToolResultBlock(WireRecord):
    """The result of tool call ``tool_use_id``: a string, a list of wire blocks, or None."""

    type: str = field(default="tool_result", init=False, repr=False, compare=False)
    tool_use_id: str
    content: Union[str, List[Dict[str, Any]], None] = field(
        default=None, metadata=decoder_metadata(_as_is)
    )
    is_error: Optional[bool] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ServerToolUseBlock(WireRecord):
    """A tool the API runs itself (``web_search``, ``web_fetch``, ``code_execution`` …)."""

    type: str = field(default="server_tool_use", init=False, repr=False, compare=False)
    id: str
    name: str
    input: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ServerToolResultBlock(WireRecord):
    """The result of a server tool call; one class for every ``*_tool_result`` wire type.

    ``type`` keeps the wire type (``web_search_tool_result``, ``web_fetch_tool_result``,
    ``code_execution_tool_result``, ``advisor_tool_result`` …); ``content`` is passed
    through as sent (a list of results or an error dict, depending on the tool).
    """

    tool_use_id: str
    content: Any
    type: str = ""
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ImageBlock(WireRecord):
    """An image; ``source`` is the wire source dict (``{"type": "base64", …}`` or a URL)."""

    type: str = field(default="image", init=False, repr=False, compare=False)
    source: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@frozen_record
class UnknownBlock(WireRecord):
    """A block type not modelled here (``document``, ``mcp_tool_use`` …): its wire dict."""

    type: str
    raw: Dict[str, Any] = field(default_factory=dict)


ContentBlock = Union[
    TextBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ServerToolUseBlock,
    ServerToolResultBlock,
    ImageBlock,
    UnknownBlock,
]

BLOCK_CLASSES: Dict[str, Type[Any]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "redacted_thinking": RedactedThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
    "server_tool_use": ServerToolUseBlock,
    "image": ImageBlock,
}
"""Wire ``type`` → block class: the one block-type table. ``block_class`` adds the rules for
unlisted types; ``parse`` builds its per-type parsers from both."""


def block_class(block_type: Any) -> Type[Any]:
    """The block class for a wire ``type`` (``*_tool_result`` → ``ServerToolResultBlock``)."""
    cls = BLOCK_CLASSES.get(block_type)
    if cls is not None:
        return cls
    if isinstance(block_type, str) and block_type.endswith("_tool_result"):
        return ServerToolResultBlock
    return UnknownBlock


def _block_from_dict(data: Any) -> Any:
    """One ``to_dict()``-shaped block back to its class, chosen by its ``type`` key.

    Raises ``TypeError`` when ``data`` is not a dict (dataclasses-json raises ``KeyError``
    for missing required fields).
    """
    if isinstance(data, SerdeMixin):
        return data
    if not isinstance(data, dict):
        raise TypeError(f"a content block must be a dict, got {type(data).__name__}")
    return block_class(data.get("type")).from_dict(data)


def blocks_from_dicts(value: Any) -> Any:
    """Decoder for ``content`` fields: a string stays a string, a list becomes blocks."""
    if isinstance(value, list):
        return [_block_from_dict(item) for item in value]
    return value

