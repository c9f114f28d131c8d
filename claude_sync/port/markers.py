"""Every flag leaves a ``# claude_sync.port: <message>`` comment in the ported text, so the
file itself shows what is left to do and ``--check`` fails until the comment is deleted.

``place_markers(plan)`` runs after every other pass. Each flag gets a comment line above the
line that holds it, with that line's indentation and line ending; when a comment cannot go
there (the line continues a line ending in a backslash, lies inside a multi-line string, or
another edit spans its start) it goes above the nearest earlier line where it can (the start
of the statement at the latest). A marker that is already in the comments just above (the
same message, from an earlier run) is not written again, and the flag is reported once.

A marker with no flag left under it is one of two kinds. Most flags are found again in the
ported code on every run (``asyncio.gather(…)`` is still there until someone rewrites it): such
a marker was fixed by hand, so it is removed and not reported. A few flags leave no trace once
``await`` is gone (``TRACELESS``: a coroutine called without ``await``, an ``await`` of something
made earlier or of a call the tool could not prove synchronous, an async method it could not
rename): such a marker is a flag of its own until someone deletes it (the hand work it names
is pending), reported at the code line below it.

The comment holds the message in ASCII (``…`` -> ``...``, other characters as ``\\N``
escapes), so it fits the file's encoding.

Pure: no I/O.
"""

from __future__ import annotations

import bisect
import tokenize
from typing import Dict, List, Optional, Set, Tuple

from .plan import Note, Plan
from .rules import MARKER
from .source import SourceText

__all__ = ["TRACELESS", "is_traceless", "marker_text", "place_markers"]

TRACELESS = (
    "was not awaited: it now runs here",  # keywords.mark_unawaited_calls
    "awaited a coroutine made earlier",  # awaits.flag_unproven_awaits
    "the tool cannot tell that",  # awaits.flag_unproven_awaits: markers written by earlier versions
    "coroutine object instead of its value",  # awaits.flag_unproven_awaits
    "merge them by hand",  # keywords.rename_methods
)
"""Fragments of the flag messages the tool cannot find again after the port (see above)."""

ASCII = {
    "\u2026": "...",
    "\u2192": "->",
    "\u2190": "<-",
    "\u2014": "--",
    "\u2013": "-",
    "\u2018": "'",
    "\u2019": "'",
}


def is_traceless(text: str) -> bool:
    """Whether a marker's text is one of a flag the ported code no longer shows (``TRACELESS``),
    or empty (a hand-written marker): it stays until someone deletes it."""
    if not text:
        return True
    if text.startswith("rename ") and text.endswith(" by hand"):  # keywords.rename_methods
        return True
    return any(fragment in text for fragment in TRACELESS)


def marker_text(message: str) -> str:
    """The message as it is written in a marker comment: one line of ASCII."""
    text = " ".join(message.split())
    for char, ascii_text in ASCII.items():
        text = text.replace(char, ascii_text)
    return text.encode("ascii", "backslashreplace").decode("ascii")


def place_markers(plan: Plan) -> None:
    """Add a marker comment edit for each flag of ``plan`` (see the module docstring)."""
    source = plan.source
    comments = _comment_lines(plan)
    safe = _safe_line_starts(plan)
    spans = sorted((e.start, e.end) for e in plan.edits if e.end > e.start)
    starts = [start for start, _ in spans]
    reach: List[int] = []
    for _, end in spans:
        reach.append(max(end, reach[-1]) if reach else end)

    def crossed(offset: int) -> bool:
        index = bisect.bisect_left(starts, offset) - 1  # spans starting before offset
        return index >= 0 and reach[index] > offset

    matched: Set[int] = set()
    added: Dict[int, List[str]] = {}
    kept: List[Note] = []
    for note in plan.flags:
        line = source.position(note.offset)[0] - 1
        while line > 0 and (
            source.offset(line + 1, 0) not in safe or crossed(source.offset(line + 1, 0))
        ):
            line -= 1
        text = marker_text(note.message)
        above = _markers_above(comments, line + 1)
        if text in above:
            matched.add(above[text])
        elif text not in added.setdefault(line, []):
            added[line].append(text)
        kept.append(note)
    for line, texts in added.items():
        if not texts:
            continue
        line_text = source.lines[line] if line < len(source.lines) else ""
        indent = line_text[: len(line_text) - len(line_text.lstrip(" \t"))]
        ending = _ending(source.lines, line)
        at = source.offset(line + 1, 0)
        plan.edit(at, at, "".join(f"{indent}{MARKER} {text}{ending}" for text in texts))
    for line_no, (offset, pending) in comments.items():
        if pending is None or line_no in matched:
            continue
        if is_traceless(pending):
            kept.append(Note(_code_below(source, comments, line_no, offset), pending or "a hand port is pending here"))
        else:  # its flag is not found again: fixed by hand, so the marker goes
            end = source.offset(line_no + 1, 0) if line_no < len(source.lines) else len(source.text)
            plan.edit(source.line_start(offset), end)
    plan.flags = kept


def _code_below(
    source: SourceText, comments: Dict[int, Tuple[int, Optional[str]]], line_no: int, offset: int
) -> int:
    """Where a marker with no flag left under it is reported: the start of the code line
    below its run of comments (as a fresh flag of its statement would be), else itself."""
    while line_no in comments:
        line_no += 1
    if line_no > len(source.lines) or not source.lines[line_no - 1].strip():
        return offset
    start = source.offset(line_no, 0)
    return start + len(source.indentation(start))


def _comment_lines(plan: Plan) -> Dict[int, Tuple[int, Optional[str]]]:
    """Line number -> (offset, marker text or None) for each line holding only a comment."""
    found: Dict[int, Tuple[int, Optional[str]]] = {}
    for token in plan.source.tokens:
        if token.type != tokenize.COMMENT:
            continue
        offset = plan.source.offset(*token.start)
        if not plan.source.only_blank_before(offset):
            continue
        text = token.string[len(MARKER) :].strip() if token.string.startswith(MARKER) else None
        found[token.start[0]] = (offset, text)
    return found


def _markers_above(comments: Dict[int, Tuple[int, Optional[str]]], line_no: int) -> Dict[str, int]:
    """Marker text -> its line number, for the run of comment-only lines just above ``line_no``."""
    found: Dict[str, int] = {}
    line_no -= 1
    while line_no in comments:
        text = comments[line_no][1]
        if text is not None:
            found.setdefault(text, line_no)
        line_no -= 1
    return found


def _safe_line_starts(plan: Plan) -> Set[int]:
    """Offsets of line starts where a new comment line may go: the first line, and each line
    that follows a line the tokenizer ended (a ``NEWLINE`` or ``NL`` token)."""
    safe = {0}
    for token in plan.source.tokens:
        if token.type in (tokenize.NEWLINE, tokenize.NL) and token.string:
            safe.add(plan.source.offset(*token.end))
    return safe


def _ending(lines: List[str], index: int) -> str:
    """The line ending to use for a line inserted before line ``index``."""
    for candidate in (index, index - 1, 0):
        if 0 <= candidate < len(lines):
            line = lines[candidate]
            for ending in ("\r\n", "\n", "\r"):
                if line.endswith(ending):
                    return ending
    return "\n"
