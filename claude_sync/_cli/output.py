"""What ``claude-sync`` prints for the messages of a run (pure: text in, text out).

``--json`` prints ``json_line(message, encoding)`` for each message: the dict the CLI sent
(``raw``), so the lines read like ``claude -p --output-format stream-json``; a skipped
oversized line prints as ``{"type": "system", "subtype": "oversized_line_skipped", …}``.
``--output-format`` prints ``structured_line(result, encoding)``; ``--verbose`` adds
``summary_line(results, waited_s)`` on stderr; ``activity(message)`` is what the progress line says.

Everything printed can be written in the stream's ``encoding``: the CLI sends lone
surrogates (``"\\ud83d"``, half an emoji cut by the model), which no encoder writes. In JSON
they stay escaped (``\\ud83d``: the line is still valid JSON and says what the CLI sent);
text gets U+FFFD for them (``printable``) and a backslash escape for a character the
encoding lacks (``LANG=C``, ``PYTHONIOENCODING=ascii``), so the rest is never lost.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, Optional, Sequence

from .._wire.blocks import ServerToolUseBlock, ToolUseBlock
from .._wire.messages import AssistantMessage, ResultMessage, StreamEvent, UserMessage
from .._wire.protocol import StreamItem
from .._wire.system_messages import SystemMessage

__all__ = ["activity", "json_line", "json_text", "printable", "structured_line", "summary_line"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _encoding(encoding: Optional[str]) -> str:
    """``encoding`` if Python knows it, else UTF-8."""
    try:
        return codecs.lookup(encoding or "utf-8").name
    except LookupError:
        return "utf-8"


def printable(text: str, encoding: Optional[str] = "utf-8") -> str:
    """``text`` as it can be written in ``encoding``: lone surrogates become U+FFFD, other
    characters the encoding cannot hold a backslash escape (``\\xe9``)."""
    text = _SURROGATE.sub("\ufffd", text)
    name = _encoding(encoding)
    try:
        text.encode(name)
    except UnicodeEncodeError:
        return text.encode(name, "backslashreplace").decode(name)
    return text


def json_text(value: Any, encoding: Optional[str] = "utf-8") -> str:
    """``value`` as one line of JSON that ``encoding`` can write: non-ASCII text as it is
    where the encoding holds it (else every non-ASCII character ``\\u``-escaped), lone
    surrogates always escaped. Raises ``ValueError`` for a value nested too deep to write."""
    try:
        line = json.dumps(value, ensure_ascii=False, default=repr)
    except RecursionError:
        raise ValueError("a message nested too deep to print as JSON") from None
    line = _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", line)
    try:
        line.encode(_encoding(encoding))
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, default=repr)
    return line


def json_line(item: StreamItem, encoding: Optional[str] = "utf-8") -> str:
    """One JSON line (no newline) for a message of the stream."""
    return json_text(item.raw, encoding)


def structured_line(result: ResultMessage, encoding: Optional[str] = "utf-8") -> str:
    """The run's structured output as one JSON line (no newline)."""
    return json_text(result.structured_output, encoding)


def summary_line(results: Sequence[ResultMessage], waited_s: Optional[float] = None) -> str:
    """``session <id> · <n> turns · <in> in / <out> out tokens · $<cost> · wall <s> s · CLI
    <s> s`` for stderr (``--verbose``): the whole run (every result of it, ``RunTotals``);
    ``wall`` is the time the command waited, ``CLI`` the CLI's own time in the run's turns."""
    from .._display.render import duration_parts, usage_tokens  # --verbose only
    from .._wire.run_totals import run_totals

    totals = run_totals(results)
    turns = f"{totals.num_turns} turn" + ("" if totals.num_turns == 1 else "s")
    parts = [f"session {results[-1].session_id}", turns]
    if totals.usage is not None:
        tokens_in, tokens_out = usage_tokens(totals.usage)
        parts.append(f"{tokens_in:,} in / {tokens_out:,} out tokens")
    if totals.total_cost_usd is not None:
        parts.append(f"${totals.total_cost_usd:.4f}")
    if len(results) > 1:
        parts.append(f"{len(results)} results")
    return " · ".join(parts + duration_parts(waited_s, totals.duration_ms))


_TOOL_DETAIL_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt")


def activity(item: StreamItem) -> Optional[str]:
    """What the run is doing once ``item`` arrived, for the progress line (``"running Bash:
    ls -la"``, ``"thinking"``), or None when ``item`` changes nothing."""
    if getattr(item, "parent_tool_use_id", None) is not None:
        return None  # a subagent's message: the parent's tool is still running
    if isinstance(item, SystemMessage) and item.subtype in ("init", "api_retry"):
        return "thinking" if item.subtype == "init" else "the API request failed; retrying"
    if isinstance(item, StreamEvent):
        block = item.event.get("content_block") if item.event.get("type") == "content_block_start" else None
        if isinstance(block, dict) and block.get("type") in ("tool_use", "server_tool_use"):
            return f"calling {block.get('name')}"
        return None
    if isinstance(item, AssistantMessage):
        tools = [block for block in item.content if isinstance(block, (ToolUseBlock, ServerToolUseBlock))]
        if tools:
            return "running " + ", ".join(_tool_words(block.name, block.input) for block in tools)
        return None
    if isinstance(item, UserMessage) and isinstance(item.content, list):
        if any(getattr(block, "type", None) == "tool_result" for block in item.content):
            return "thinking"
    return None


def _tool_words(name: str, tool_input: Any) -> str:
    """``Bash: ls -la`` — the tool and the first line of its most telling input, cut short."""
    if isinstance(tool_input, dict):
        for key in _TOOL_DETAIL_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value.strip():
                lines = value.strip().splitlines()
                cut = len(lines[0]) > 60 or len(lines) > 1
                return f"{name}: {lines[0][:60]}" + ("…" if cut else "")
    return name
