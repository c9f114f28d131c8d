"""The model's Markdown as HTML, for the HTML reprs notebooks show (pure, no I/O).

``markdown_html(text)`` renders with markdown-it-py when it is installed (rich and most
Jupyter tooling bring it; ``pip install markdown-it-py``): CommonMark plus tables, with raw
HTML *off* — a ``<script>`` in the text is shown as text — and markdown-it's link check, which
refuses ``javascript:``/``data:`` URLs. Without it, ``builtin_markdown_html`` renders the
Markdown a model writes (headings, paragraphs, emphasis, code spans and fences, lists,
quotes, pipe tables, http(s)/mailto links) by escaping *everything* first and then adding
tags of its own: it cannot emit a tag or an attribute that it did not write itself.

markdown-it-py is imported on the first rendering, never by ``import claude_sync``.
"""

from __future__ import annotations

import html
import re
from typing import Any, Callable, List, Optional

__all__ = ["builtin_markdown_html", "inline_html", "library_renderer", "markdown_html"]

_UNSET: Any = object()
_library: Any = _UNSET


def library_renderer() -> Optional[Callable[[str], str]]:
    """markdown-it-py's renderer (CommonMark + tables, raw HTML off), or None when it is not
    installed. Looked up once."""
    global _library
    if _library is _UNSET:
        try:
            from markdown_it import MarkdownIt
        except ImportError:
            _library = None
        else:
            _library = MarkdownIt("commonmark", {"html": False}).enable("table").render
    renderer: Optional[Callable[[str], str]] = _library
    return renderer


def markdown_html(text: str) -> str:
    """``text`` (Markdown) as an HTML fragment that cannot inject HTML (see the module doc)."""
    render = library_renderer()
    return render(text) if render is not None else builtin_markdown_html(text)


# ----------------------------------------------------------------------------- the built-in renderer

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.S)
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])", re.S)
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?://|mailto:)[^\s()]+)\)")


def builtin_markdown_html(text: str) -> str:
    """``text`` as HTML by the built-in renderer: everything escaped, then its own tags."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: List[str] = []
    index = 0
    while index < len(lines):
        index = _block(lines, index, out)
    return "\n".join(out)


def _block(lines: List[str], index: int, out: List[str]) -> int:
    """Render the block starting at ``lines[index]`` into ``out``; the index after it."""
    line = lines[index]
    if not line.strip():
        return index + 1
    if _FENCE.match(line):
        return _fenced(lines, index, out)
    heading = _HEADING.match(line)
    if heading:
        level = len(heading.group(1))
        out.append(f"<h{level}>{inline_html(heading.group(2))}</h{level}>")
        return index + 1
    if _RULE.match(line):
        out.append("<hr>")
        return index + 1
    if "|" in line and index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1]):
        return _table(lines, index, out)
    for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
        if pattern.match(line):
            return _list(lines, index, out, pattern, tag)
    if _QUOTE.match(line):
        return _quote(lines, index, out)
    return _paragraph(lines, index, out)


def _fenced(lines: List[str], index: int, out: List[str]) -> int:
    fence = _FENCE.match(lines[index])
    assert fence is not None
    body: List[str] = []
    index += 1
    while index < len(lines) and not lines[index].strip().startswith(fence.group(1)):
        body.append(lines[index])
        index += 1
    out.append(f"<pre><code>{html.escape(chr(10).join(body))}</code></pre>")
    return index + 1


def _cells(line: str) -> List[str]:
    cells = line.strip()
    if cells.startswith("|"):
        cells = cells[1:]
    if cells.endswith("|"):
        cells = cells[:-1]
    return [cell.strip() for cell in cells.split("|")]


def _table(lines: List[str], index: int, out: List[str]) -> int:
    head = "".join(f"<th>{inline_html(cell)}</th>" for cell in _cells(lines[index]))
    rows: List[str] = []
    index += 2
    while index < len(lines) and "|" in lines[index] and lines[index].strip():
        rows.append("<tr>" + "".join(f"<td>{inline_html(cell)}</td>" for cell in _cells(lines[index])) + "</tr>")
        index += 1
    out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    return index


def _list(lines: List[str], index: int, out: List[str], pattern: re.Pattern[str], tag: str) -> int:
    items: List[str] = []
    while index < len(lines):
        match = pattern.match(lines[index])
        if match:
            items.append(match.group(1))
        elif lines[index].strip() and items and lines[index].startswith((" ", "\t")):
            items[-1] += "\n" + lines[index].strip()  # a continuation line of the item
        else:
            break
        index += 1
    out.append(f"<{tag}>" + "".join(f"<li>{inline_html(item)}</li>" for item in items) + f"</{tag}>")
    return index


def _quote(lines: List[str], index: int, out: List[str]) -> int:
    quoted: List[str] = []
    while index < len(lines):
        match = _QUOTE.match(lines[index])
        if not match:
            break
        quoted.append(match.group(1))
        index += 1
    out.append(f"<blockquote>{builtin_markdown_html(chr(10).join(quoted))}</blockquote>")
    return index


def _starts_block(lines: List[str], index: int) -> bool:
    line = lines[index]
    if any(p.match(line) for p in (_FENCE, _HEADING, _BULLET, _NUMBERED, _QUOTE, _RULE)):
        return True
    return "|" in line and index + 1 < len(lines) and bool(_TABLE_RULE.match(lines[index + 1]))


def _paragraph(lines: List[str], index: int, out: List[str]) -> int:
    text = [lines[index]]
    index += 1
    while index < len(lines) and lines[index].strip() and not _starts_block(lines, index):
        text.append(lines[index])
        index += 1
    out.append(f"<p>{inline_html(chr(10).join(text))}</p>")
    return index


def inline_html(text: str) -> str:
    """Inline Markdown (code spans, strong, emphasis, links) with everything escaped first."""
    pieces: List[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        pieces.append(_inline_text(text[last : match.start()]))
        pieces.append(f"<code>{html.escape(match.group(2).strip())}</code>")
        last = match.end()
    pieces.append(_inline_text(text[last:]))
    return "".join(pieces)


def _inline_text(text: str) -> str:
    escaped = html.escape(text, quote=True)
    escaped = _LINK.sub(lambda m: f'<a href="{m.group(2)}" rel="noopener noreferrer">{m.group(1)}</a>', escaped)
    escaped = _STRONG.sub(r"<strong>\2</strong>", escaped)
    return _EMPHASIS.sub(r"<em>\2</em>", escaped)
