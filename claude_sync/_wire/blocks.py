"""Immutable content-block types (the items of a message's ``content``), and their base class.

The rules every message and block class follows are in the ``messages`` docstring. This
module also holds what those classes share: the ``WireRecord`` base and the field helpers
``raw_field`` / ``wire_field`` / ``_as_is``.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Type, Union

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

    Its ``repr()`` shows what the user asked for whole (text, thinking, result, tool input and
    output) and shortens metadata (defaults left out, long lists cut, secrets redacted); it
    renders itself in notebooks (``_repr_html_`` / ``_repr_markdown_``) and for ``rich``
    (``__rich_repr__``): see ``render``.
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

    def __rich_repr__(self) -> Iterator[Tuple[str, Any]]:
        """For ``rich``: the fields ``repr`` shows, with their whole values (redacted)."""
        from .._display.render import rich_fields

        yield from rich_fields(self)


# ----------------------------------------------------------------------------- blocks


@frozen_record
class TextBlock(WireRecord):
    """Plain text (``{"type": "text", "text": …}``).

    Attributes:
        type: ``"text"``.
        text: The text.
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="text", init=False, repr=False, compare=False)
    text: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ThinkingBlock(WireRecord):
    """Extended thinking; ``signature`` verifies it when it is sent back to the API.

    Attributes:
        type: ``"thinking"``.
        thinking: The model's thinking, as text.
        signature: The API's signature of the thinking (opaque; sent back with it).
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="thinking", init=False, repr=False, compare=False)
    thinking: str
    signature: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class RedactedThinkingBlock(WireRecord):
    """Thinking the API returned encrypted; ``data`` is opaque.

    Attributes:
        type: ``"redacted_thinking"``.
        data: The encrypted thinking (opaque).
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="redacted_thinking", init=False, repr=False, compare=False)
    data: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ToolUseBlock(WireRecord):
    """The model asks to run tool ``name`` with ``input``; ``id`` names the call.

    Attributes:
        type: ``"tool_use"``.
        id: The call's id; the ``ToolResultBlock`` answering it carries it as ``tool_use_id``.
        name: The tool (``Bash``, ``Read``, ``mcp__<server>__<tool>`` …).
        input: The arguments the model gave.
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="tool_use", init=False, repr=False, compare=False)
    id: str
    name: str
    input: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ToolResultBlock(WireRecord):
    """The result of tool call ``tool_use_id``: a string, a list of wire blocks, or None.

    Attributes:
        type: ``"tool_result"``.
        tool_use_id: The ``id`` of the ``ToolUseBlock`` this answers.
        content: The tool's output: a string, a list of wire content blocks (dicts), or None.
        is_error: True when the tool failed or the call was denied.
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="tool_result", init=False, repr=False, compare=False)
    tool_use_id: str
    content: Union[str, List[Dict[str, Any]], None] = field(
        default=None, metadata=decoder_metadata(_as_is)
    )
    is_error: Optional[bool] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ServerToolUseBlock(WireRecord):
    """A tool the API runs itself (``web_search``, ``web_fetch``, ``code_execution`` …).

    Attributes:
        type: ``"server_tool_use"``.
        id: The call's id.
        name: The server tool (``web_search``, ``web_fetch``, ``code_execution`` …).
        input: The arguments the model gave.
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

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

    Attributes:
        tool_use_id: The ``id`` of the ``ServerToolUseBlock`` this answers.
        content: The result as sent: a list of results or an error dict, depending on the tool.
        type: The wire type (``web_search_tool_result`` …).
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    tool_use_id: str
    content: Any
    type: str = ""
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ImageBlock(WireRecord):
    """An image; ``source`` is the wire source dict (``{"type": "base64", …}`` or a URL).

    Attributes:
        type: ``"image"``.
        source: The wire source dict (``{"type": "base64", "media_type": …, "data": …}`` or a URL
            source).
        raw: The wire dict this block was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="image", init=False, repr=False, compare=False)
    source: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@frozen_record
class UnknownBlock(WireRecord):
    """A block type not modelled here (``document``, ``mcp_tool_use`` …): its wire dict.

    Attributes:
        type: The wire type claude_sync does not know.
        raw: The whole wire dict (it counts for ``==`` and ``repr()`` here).
    """

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
"""Any item of a message's ``content``: ``TextBlock``, ``ThinkingBlock``, ``RedactedThinkingBlock``,
``ToolUseBlock``, ``ToolResultBlock``, ``ServerToolUseBlock``, ``ServerToolResultBlock``,
``ImageBlock`` or ``UnknownBlock``."""

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

