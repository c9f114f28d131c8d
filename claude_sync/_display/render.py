"""Text, HTML and Markdown renderings of messages and content blocks (pure, no I/O).

What the methods ``__repr__``, ``_repr_html_`` and ``_repr_markdown_`` of every message and
block call (see ``blocks.WireRecord``), and what the live display (``live``) is built from.

``short_repr`` rules — a repr is read by people, in tracebacks, logs and notebooks, and a
program's output is often ``print(message)``:

* what the user asked for is never cut: text, thinking, the ``result``, tool input and tool
  output, ``structured_output`` and ``errors`` (``FULL_FIELDS``) are shown whole, at any depth;
* metadata is shortened: long strings are cut (``'…' (2,910 chars)``), long lists and dicts
  summarised (``['Task', 'Bash', 'Glob', … 30 items]``: init tool lists, ``usage``), nesting
  beyond two levels elided;
* no field printed twice: a typed ``system`` message leaves out ``data`` (the wire dict its
  fields were read from) and ``subtype`` (its class says it); a plain ``SystemMessage`` shows
  every key of ``data`` but ``type`` and ``subtype``;
* fields still at their default (``None``, ``[]``, ``False`` …) are left out;
* secrets are redacted: values of ``env`` / ``headers`` dicts, string values of keys that
  name a secret (``api_key``, ``access_token``, ``Authorization`` …), and in every string the
  secret values claude_sync knows (``redactor.scrub``); the model's words are not otherwise
  rewritten.

``rich_fields`` is what ``__rich_repr__`` yields: the same fields with their whole values
(redacted), for ``rich`` to lay out and expand. The notebook renderings stay compact.

Every piece of text that reaches HTML goes through ``html.escape``, except the model's own
text (text blocks, a result's answer), which is rendered from Markdown by ``markdown`` — safely:
raw HTML in it is shown as text. Loaded on the first repr, never by ``import claude_sync``.
"""

from __future__ import annotations

import html
import json
import pprint
import re
from dataclasses import MISSING, fields
from typing import Any, Dict, List, Optional, Tuple

from .._redaction.redactor import REDACTED, scrub
from .._wire.hints import hint_for
from .markdown import markdown_html

__all__ = [
    "FULL_FIELDS",
    "rich_fields",
    "short_repr",
    "short_value",
    "shown_fields",
    "to_html",
    "to_markdown",
    "block_html",
    "block_markdown",
    "block_text",
    "safe_markdown",
    "esc",
    "result_footer",
    "duration_parts",
    "tool_input_summary",
    "tool_result_text",
    "usage_tokens",
    "output_text",
    "output_html",
]

MAX_STR = 120
"""Characters of a string shown in a repr before it is cut."""
MAX_ITEMS = 4
"""Items of a list (or keys of a dict) shown before the rest is summarised."""
MAX_DEPTH = 2
"""Nesting levels shown before a container is elided."""
FULL_FIELDS = frozenset(
    ("text", "thinking", "result", "input", "content", "structured_output", "parsed_output", "errors")
)
"""Fields that hold what the user asked for: never cut in a repr."""
_DUPLICATE_DATA_KEYS = frozenset(("type", "subtype"))

_SECRET_KEY = re.compile(
    r"(?:api[_-]?key|token|secret|passw(?:or)?d|authorization|cookie|credentials?)$", re.I
)
"""Dict keys whose string value is a secret. Anchored at the end, so token *counts*
(``input_tokens``) and ``apiKeySource`` stay visible."""
_ALL_VALUES_SECRET = frozenset(("env", "headers"))


# ----------------------------------------------------------------------------- repr


def _redact_text(text: str) -> str:
    """``text`` with the known secret values redacted (``redactor.scrub``: the model's and
    the user's words are never rewritten otherwise)."""
    return scrub(text)


def short_repr(obj: Any) -> str:
    """``ClassName(field=value, …)`` following the module's rules."""
    parts = [f"{name}={short_value(value, name=name, full=name in FULL_FIELDS)}" for name, value in shown_fields(obj)]
    return f"{type(obj).__qualname__}({', '.join(parts)})"


def rich_fields(obj: Any) -> List[Tuple[str, Any]]:
    """``(name, value)`` of every shown field, whole and redacted: for ``__rich_repr__``."""
    return [(name, _redacted_value(value, name)) for name, value in shown_fields(obj)]


def _redacted_value(value: Any, name: Optional[str] = None, depth: int = 0) -> Any:
    """A copy of ``value`` with the secrets the repr hides replaced (same rules as
    ``short_value``); records are kept (rich asks them for their own fields)."""
    if name is not None and name in _ALL_VALUES_SECRET and isinstance(value, dict):
        return {key: REDACTED for key in value}
    if name is not None and isinstance(value, str) and _SECRET_KEY.search(name):
        return REDACTED
    if isinstance(value, str):
        return _redact_text(value)
    if depth > 20:
        return REDACTED
    if isinstance(value, dict):
        return {k: _redacted_value(v, k if isinstance(k, str) else None, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redacted_value(item, None, depth + 1) for item in value)
    return value


def shown_fields(obj: Any) -> List[Tuple[str, Any]]:
    """The (name, value) pairs a repr or a table shows, in field order."""
    skip = _skipped_names(obj)
    plain_system = _is_plain_system(obj)
    out = []
    for spec in fields(obj):
        if not spec.repr or spec.name in skip:
            continue
        value = getattr(obj, spec.name)
        if _is_default(spec, value):
            continue
        if plain_system and spec.name == "data":
            value = _DataView((k, v) for k, v in value.items() if k not in _DUPLICATE_DATA_KEYS)
        out.append((spec.name, value))
    return out


class _DataView(Dict[Any, Any]):
    """A plain system message's ``data`` as shown: every key (not summarised at the top)."""


def _is_plain_system(obj: Any) -> bool:
    return getattr(obj, "type", None) == "system" and isinstance(getattr(obj, "data", None), dict) and len(fields(obj)) <= 3


def _skipped_names(obj: Any) -> Tuple[str, ...]:
    data = getattr(obj, "data", None)
    subtype = getattr(obj, "subtype", None)
    if getattr(obj, "type", None) == "system" and isinstance(data, dict) and len(fields(obj)) > 3:
        return ("data", "subtype") if isinstance(subtype, str) else ("data",)
    return ()


def _is_default(spec: Any, value: Any) -> bool:
    if spec.default is not MISSING:
        return bool(value is spec.default or (type(value) is type(spec.default) and value == spec.default))
    if spec.default_factory is not MISSING:
        return bool(type(value) in (list, dict) and not value)
    return False


def short_value(value: Any, depth: int = 0, name: Optional[str] = None, full: bool = False) -> str:
    """The repr of one value, redacted per the module's rules; cut unless ``full``."""
    if name is not None and name in _ALL_VALUES_SECRET and isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {REDACTED!r}" for k in value) + "}"
    if name is not None and isinstance(value, str) and _SECRET_KEY.search(name):
        return repr(REDACTED)
    if isinstance(value, str):
        return repr(_redact_text(value)) if full else _short_str(value)
    if isinstance(value, (list, tuple)):
        return _short_seq(value, depth, full)
    if isinstance(value, _DataView):
        return _short_dict(value, depth, full, every_key=True)
    if isinstance(value, dict):
        return _short_dict(value, depth, full)
    return repr(value)  # numbers, None, nested records (their own short repr) …


def _short_str(text: str) -> str:
    text = _redact_text(text)
    if len(text) <= MAX_STR:
        return repr(text)
    return f"{text[:MAX_STR]!r}… ({len(text):,} chars)"


def _short_seq(items: Any, depth: int, full: bool = False) -> str:
    opener, closer = ("[", "]") if isinstance(items, list) else ("(", ")")
    if not items:
        return opener + closer
    if depth >= MAX_DEPTH and not full:
        return f"{opener}… {len(items)} items{closer}"
    shown_items = items if full else items[:MAX_ITEMS]
    shown = [short_value(item, depth + 1, full=full) for item in shown_items]
    if len(items) > len(shown_items):
        shown.append(f"… {len(items)} items")
    return opener + ", ".join(shown) + closer


def _short_dict(mapping: Dict[Any, Any], depth: int, full: bool = False, every_key: bool = False) -> str:
    if not mapping:
        return "{}"
    if depth >= MAX_DEPTH and not full:
        return f"{{… {len(mapping)} keys}}"
    shown = []
    for index, (key, item) in enumerate(mapping.items()):
        if index == MAX_ITEMS and not (full or every_key):
            shown.append(f"… {len(mapping)} keys")
            break
        label = key if isinstance(key, str) else None
        shown.append(f"{key!r}: {short_value(item, depth + 1, name=label, full=full)}")
    return "{" + ", ".join(shown) + "}"


# ----------------------------------------------------------------------------- plain text


def block_text(block: Any) -> str:
    """One line (or paragraph, for text) summarising a content block, for transcripts."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return _redact_text(str(block.text))
    if kind == "thinking":
        return f"(thinking, {len(block.thinking):,} chars)"
    if kind in ("tool_use", "server_tool_use"):
        return f"-> {block.name}({tool_input_summary(block.input)})"
    if kind == "tool_result":
        marker = "error" if block.is_error else "result"
        return f"<- {marker}: {_one_line(tool_result_text(block.content), 160)}"
    if kind == "redacted_thinking":
        return "(redacted thinking)"
    return f"({kind} block)"


def tool_input_summary(tool_input: Any, limit: int = 80) -> str:
    """``key='value', …`` of a tool call's input, cut to about ``limit`` characters."""
    if not isinstance(tool_input, dict):
        return _one_line(repr(tool_input), limit)
    text = ", ".join(f"{key}={short_value(value, 1, name=str(key))}" for key, value in tool_input.items())
    return _one_line(text, limit)


def tool_result_text(content: Any) -> str:
    """A tool result's content as text (list-of-blocks results joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                parts.append(str(item.get("text", "")))
            else:
                parts.append(json.dumps(item, default=str)[:200])
        return "\n".join(parts)
    return json.dumps(content, default=str)


def usage_tokens(usage: Optional[Dict[str, Any]]) -> Tuple[int, int]:
    """(input tokens including cache reads and writes, output tokens) of a ``usage`` dict."""
    if not isinstance(usage, dict):
        return (0, 0)

    def count(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) else 0

    tokens_in = count("input_tokens") + count("cache_read_input_tokens") + count("cache_creation_input_tokens")
    return (tokens_in, count("output_tokens"))


def result_footer(result: Any, elapsed_s: Optional[float] = None) -> str:
    """``done · 3 turns · 1,234 in / 56 out tokens · $0.0123 · wall 3.4 s · CLI 0.2 s``.

    ``result``: a ``ResultMessage``, a whole run's figures (``RunTotals``) or a ``RunResult``.
    Two durations, each labelled: ``wall`` is ``elapsed_s``, the time the caller waited
    (start-up and the gaps between a run's turns included), shown when given; ``CLI`` is the
    CLI's own time in the run's turns (``duration_ms``)."""
    label = "error" if result.is_error else "done"
    subtype = result.subtype if hasattr(result, "subtype") else result.result.subtype  # RunResult: its last result's
    if subtype != "success":
        label = f"{label} ({subtype})"
    tokens_in, tokens_out = usage_tokens(result.usage)
    parts = [label, f"{result.num_turns} turn{'s' if result.num_turns != 1 else ''}"]
    parts.append(f"{tokens_in:,} in / {tokens_out:,} out tokens")
    if result.total_cost_usd is not None:
        parts.append(f"${result.total_cost_usd:.4f}")
    parts.extend(duration_parts(elapsed_s, result.duration_ms))
    return " · ".join(parts)


def duration_parts(elapsed_s: Optional[float], cli_ms: Optional[int]) -> List[str]:
    """``["wall 3.4 s", "CLI 0.2 s"]``: the time the caller waited (when known) and the CLI's
    own (when it said), each labelled — the two differ by start-up and background waits."""
    parts = [] if elapsed_s is None else [f"wall {elapsed_s:.1f} s"]
    if isinstance(cli_ms, int) and not isinstance(cli_ms, bool):
        parts.append(f"CLI {cli_ms / 1000.0:.1f} s")
    return parts


OUTPUT_CUT = 4000
"""Characters of a typed output's rendering shown before it is cut."""


def output_text(value: Any) -> str:
    """A typed output (``parsed_output``: a dataclass, a pydantic model, a dict) pretty-printed
    for people, secrets in strings redacted, cut after ``OUTPUT_CUT`` characters."""
    text = _redact_text(pprint.pformat(value, width=88, sort_dicts=False))
    return text if len(text) <= OUTPUT_CUT else text[:OUTPUT_CUT] + f"\n… ({len(text):,} chars)"


def output_html(value: Any) -> str:
    """A typed output as an HTML fragment: its type, then ``output_text`` (escaped)."""
    kind = type(value).__qualname__
    return (
        f'<div><b>output</b> · <code>{esc(kind)}</code>'
        f'<pre style="white-space:pre-wrap;margin:2px 0">{esc(output_text(value))}</pre></div>'
    )


def _one_line(text: str, limit: int) -> str:
    text = " ".join(_redact_text(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------- HTML

_BOX = "border-left:3px solid {color};padding:2px 8px;margin:4px 0;font-family:inherit"
_COLORS = {"assistant": "#7c6bd6", "user": "#3b82c4", "result": "#2e9e5b", "error": "#d64545", "system": "#999"}


def esc(text: Any) -> str:
    """``html.escape`` of ``str(text)`` (quotes too)."""
    return html.escape(str(text), quote=True)


def _pre(text: str) -> str:
    return f'<pre style="white-space:pre-wrap;margin:2px 0">{esc(text)}</pre>'


def _details(summary: str, body: str, open_: bool = False) -> str:
    return f"<details{' open' if open_ else ''}><summary>{summary}</summary>{body}</details>"


def _box(kind: str, title: str, body: str) -> str:
    color = _COLORS.get(kind, "#999")
    return f'<div style="{_BOX.format(color=color)}"><b>{esc(title)}</b>{body}</div>'


def block_html(block: Any) -> str:
    """One content block as HTML: text shown, thinking and tool details collapsed."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return f'<div class="claude-sync-text">{markdown_html(_redact_text(block.text))}</div>'
    if kind == "thinking":
        return _details(f"<i>thinking</i> ({len(block.thinking):,} chars)", _pre(_redact_text(block.thinking)))
    if kind in ("tool_use", "server_tool_use"):
        summary = f"🔧 <code>{esc(block.name)}</code>({esc(tool_input_summary(block.input))})"
        return _details(summary, _pre(json.dumps(_redacted_value(block.input), indent=2, default=str)))
    if kind == "tool_result":
        text = tool_result_text(block.content)
        label = "❌ tool error" if block.is_error else "↩ tool result"
        return _details(f"{label} ({len(text):,} chars)", _pre(_redact_text(text)))
    return _details(esc(f"{kind} block"), _pre(short_repr(block)))


def to_html(obj: Any) -> str:
    """A message or block as an HTML fragment (every text escaped)."""
    kind = getattr(obj, "type", "")
    if kind == "assistant":
        title = "assistant" + (f" · {obj.model}" if obj.model else "")
        if obj.error:
            title += f" · error: {obj.error}"
        return _box("error" if obj.error else "assistant", title, "".join(block_html(b) for b in obj.content))
    if kind == "user":
        content = obj.content
        body = _pre(_redact_text(content)) if isinstance(content, str) else "".join(block_html(b) for b in content)
        return _box("user", "user", body)
    if kind == "result":
        return _result_html(obj)
    if obj.__class__.__name__ in _BLOCK_CLASS_NAMES:
        return block_html(obj)
    return _table_html(obj)


_BLOCK_CLASS_NAMES = frozenset(
    ("TextBlock", "ThinkingBlock", "RedactedThinkingBlock", "ToolUseBlock", "ToolResultBlock",
     "ServerToolUseBlock", "ServerToolResultBlock", "ImageBlock", "UnknownBlock")
)  # fmt: skip


def _result_html(result: Any) -> str:
    """A result: for an error, what happened first (the CLI's words, the errors, the hint),
    then the footer; for a success, the footer, then the typed output (``parsed_output``) or
    the answer rendered from Markdown."""
    footer = f'<div style="color:#777">{esc(result_footer(result))}</div>'
    if not result.is_error:
        parsed = getattr(result, "parsed_output", None)
        if parsed is not None:
            answer = output_html(parsed)
        elif result.result:
            answer = f'<div class="claude-sync-text">{markdown_html(_redact_text(result.result))}</div>'
        else:
            answer = ""
        return _box("result", "result", footer + answer)
    body = ""
    if result.result:
        body += f'<div style="color:{_COLORS["error"]};white-space:pre-wrap">{esc(_redact_text(result.result))}</div>'
    for error in result.errors or ():
        body += f'<div style="color:{_COLORS["error"]}">{esc(_redact_text(error))}</div>'
    hint = hint_for(result)
    if hint is not None:
        body += f"<div><b>Hint:</b> {esc(hint)}</div>"
    title = "error" if result.subtype == "success" else f"error ({result.subtype})"  # API failures say "success"
    return _box("error", title, body + footer)


def _table_html(obj: Any) -> str:
    rows = "".join(
        f'<tr><td style="text-align:left"><code>{esc(name)}</code></td>'
        f'<td style="text-align:left">{esc(short_value(value, name=name))}</td></tr>'
        for name, value in shown_fields(obj)
    )
    title = type(obj).__name__
    subtype = getattr(obj, "subtype", None)
    if isinstance(subtype, str):
        title += f" ({subtype})"
    return _details(f"<b>{esc(title)}</b>", f"<table>{rows}</table>")


# ----------------------------------------------------------------------------- Markdown


_CODE = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.S)


def safe_markdown(text: str) -> str:
    """``text`` as Markdown that cannot inject HTML: outside code spans and fences, every
    ``<`` becomes ``&lt;`` (Markdown formatting is kept; code is shown as written)."""
    parts = _CODE.split(_redact_text(text))
    return "".join(part if index % 2 else part.replace("<", "&lt;") for index, part in enumerate(parts))


def block_markdown(block: Any) -> str:
    """One content block as Markdown (text as safe Markdown; details in collapsed HTML)."""
    if getattr(block, "type", "") == "text":
        return safe_markdown(block.text)
    return block_html(block)


def to_markdown(obj: Any) -> str:
    """A message or block as Markdown: text blocks verbatim, everything else collapsed."""
    kind = getattr(obj, "type", "")
    if kind == "assistant":
        return "\n\n".join(block_markdown(b) for b in obj.content)
    if kind == "user":
        content = obj.content
        if isinstance(content, str):
            return "> " + "\n> ".join(esc(_redact_text(content)).splitlines() or [""])
        return "\n\n".join(block_markdown(b) for b in content)
    if kind == "result":
        text = f"**{esc(result_footer(obj))}**"
        parsed = getattr(obj, "parsed_output", None)
        if parsed is not None:
            text += "\n\n" + output_html(parsed)
        elif obj.result:
            text += "\n\n" + safe_markdown(obj.result)
        hint = hint_for(obj)
        if hint is not None:
            text += f"\n\n**Hint:** {esc(hint)}"
        return text
    if obj.__class__.__name__ in _BLOCK_CLASS_NAMES:
        return block_markdown(obj)
    return _table_html(obj)
