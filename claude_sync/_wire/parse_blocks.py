"""Wire content-block dict → typed block: the block half of ``parse`` (the reader's hot path).

``_BLOCK_PARSERS[block["type"]](block)`` parses one block. Which wire ``type`` is which class
is ``blocks.BLOCK_CLASSES`` / ``blocks.block_class`` (the one block-type table); this module
maps each class to its parser. A known type with a missing key raises ``KeyError`` (``parse``
turns it into ``MessageParseError``). ``_DispatchTable`` is the dict-with-fallback both
halves dispatch through. The speed rules are in the ``parse`` docstring.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Type

from .blocks import (
    BLOCK_CLASSES,
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolResultBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
    block_class,
)
from .record import construct

__all__ = ["Parser"]

Parser = Callable[[Dict[str, Any]], Any]


class _DispatchTable(Dict[str, Parser]):
    """A dict of parsers whose misses are answered by ``fallback(key)``.

    A hit is a plain dict subscript (no Python call); ``__missing__`` runs only on a miss.
    """

    __slots__ = ("_fallback",)

    def __init__(self, entries: Dict[str, Parser], fallback: Callable[[Any], Parser]):
        super().__init__(entries)
        self._fallback = fallback

    def __missing__(self, key: Any) -> Parser:
        return self._fallback(key)


def _parse_text(block: Dict[str, Any]) -> TextBlock:
    return construct(TextBlock, {"text": block["text"], "raw": block})


def _parse_thinking(block: Dict[str, Any]) -> ThinkingBlock:
    return construct(
        ThinkingBlock,
        {
            "thinking": block["thinking"],
            "signature": block["signature"] if "signature" in block else "",
            "raw": block,
        },
    )


def _parse_redacted_thinking(block: Dict[str, Any]) -> RedactedThinkingBlock:
    return construct(RedactedThinkingBlock, {"data": block["data"], "raw": block})


def _parse_tool_use(block: Dict[str, Any]) -> ToolUseBlock:
    return construct(
        ToolUseBlock,
        {"id": block["id"], "name": block["name"], "input": block["input"], "raw": block},
    )


def _parse_tool_result(block: Dict[str, Any]) -> ToolResultBlock:
    return construct(
        ToolResultBlock,
        {
            "tool_use_id": block["tool_use_id"],
            "content": block["content"] if "content" in block else None,
            "is_error": block["is_error"] if "is_error" in block else None,
            "raw": block,
        },
    )


def _parse_server_tool_use(block: Dict[str, Any]) -> ServerToolUseBlock:
    return construct(
        ServerToolUseBlock,
        {"id": block["id"], "name": block["name"], "input": block["input"], "raw": block},
    )


def _parse_server_tool_result(block: Dict[str, Any]) -> ServerToolResultBlock:
    return construct(
        ServerToolResultBlock,
        {
            "tool_use_id": block["tool_use_id"],
            "content": block["content"],
            "type": block["type"],
            "raw": block,
        },
    )


def _parse_image(block: Dict[str, Any]) -> ImageBlock:
    return construct(ImageBlock, {"source": block["source"], "raw": block})


def _parse_unknown_block(block: Dict[str, Any]) -> UnknownBlock:
    return construct(UnknownBlock, {"type": block["type"], "raw": block})


_PARSER_BY_BLOCK_CLASS: Dict[Type[Any], Parser] = {
    TextBlock: _parse_text,
    ThinkingBlock: _parse_thinking,
    RedactedThinkingBlock: _parse_redacted_thinking,
    ToolUseBlock: _parse_tool_use,
    ToolResultBlock: _parse_tool_result,
    ServerToolUseBlock: _parse_server_tool_use,
    ServerToolResultBlock: _parse_server_tool_result,
    ImageBlock: _parse_image,
    UnknownBlock: _parse_unknown_block,
}
"""Block class → its parser. Which wire ``type`` is which class is ``blocks.BLOCK_CLASSES`` /
``blocks.block_class``, the one block-type table."""


def _block_parser_for_unlisted(block_type: Any) -> Parser:
    """Raises ``TypeError`` when the block's ``type`` is not a string."""
    if type(block_type) is not str:
        raise TypeError(f"content block 'type' is not a string: {block_type!r}")
    return _PARSER_BY_BLOCK_CLASS[block_class(block_type)]


_BLOCK_PARSERS = _DispatchTable(
    {wire: _PARSER_BY_BLOCK_CLASS[cls] for wire, cls in BLOCK_CLASSES.items()},
    _block_parser_for_unlisted,
)
