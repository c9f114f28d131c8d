"""Positions in Python source text, and edits made by position.

``ast`` reports columns as UTF-8 byte offsets, ``tokenize`` as character offsets; both count
lines from 1. ``SourceText`` turns either into one character offset into the text, so the
engine can cut and splice the original text and keep every comment and blank it does not touch.

``Edit``: replace ``text[start:end]`` with ``new``. ``apply_edits`` applies a set of them
(they must not overlap; an insertion may touch a neighbour) and returns the new text plus an
``OffsetMap`` that carries an old offset to where it lands in the new text (for reporting the
lines of flags in the ported file).

Pure: no I/O.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

__all__ = ["Edit", "EditConflict", "OffsetMap", "SourceText", "apply_edits", "split_lines"]


def split_lines(text: str) -> List[str]:
    """The lines of ``text`` as Python's tokenizer sees them (``\\n``, ``\\r\\n`` or ``\\r``
    end a line; form feeds and other Unicode breaks do not), each with its line ending."""
    return io.StringIO(text, newline="").readlines()


class SourceText:
    """One module's source: its lines, its tokens, offsets from (line, column) pairs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._starts: List[int] = []
        offset = 0
        for line in self.lines:
            self._starts.append(offset)
            offset += len(line)
        self._starts.append(offset)
        self._tokens: Optional[List[tokenize.TokenInfo]] = None

    @property
    def tokens(self) -> List[tokenize.TokenInfo]:
        """The module's tokens (computed once). Raises ``tokenize.TokenError`` or
        ``SyntaxError`` on text that does not tokenize."""
        if self._tokens is None:
            self._tokens = list(tokenize.generate_tokens(io.StringIO(self.text, newline="").readline))
        return self._tokens

    def offset(self, line: int, char_col: int) -> int:
        """The offset of character column ``char_col`` on line ``line`` (1-based)."""
        if line - 1 >= len(self.lines):
            return len(self.text)
        return self._starts[line - 1] + char_col

    def ast_offset(self, line: int, byte_col: int) -> int:
        """The offset of an ``ast`` position (``byte_col`` counts UTF-8 bytes)."""
        if line - 1 >= len(self.lines):
            return len(self.text)
        prefix = self.lines[line - 1].encode("utf-8")[:byte_col]
        return self._starts[line - 1] + len(prefix.decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> Tuple[int, int]:
        """``(start, end)`` offsets of an expression or statement node."""
        start = self.ast_offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = node.end_lineno  # type: ignore[attr-defined]
        end_col = node.end_col_offset  # type: ignore[attr-defined]
        return start, self.ast_offset(end_line, end_col)

    def token_offsets(self, token: tokenize.TokenInfo) -> Tuple[int, int]:
        return self.offset(*token.start), self.offset(*token.end)

    def tokens_between(self, start: int, end: int) -> List[tokenize.TokenInfo]:
        """The tokens that lie wholly inside ``[start, end)``."""
        found = []
        for token in self.tokens:
            token_start, token_end = self.token_offsets(token)
            if token_start >= end:
                break
            if token_start >= start and token_end <= end and token.type != tokenize.ENDMARKER:
                found.append(token)
        return found

    def position(self, offset: int) -> Tuple[int, int]:
        """``(line, column)`` of ``offset``: line 1-based, column in characters, 1-based."""
        index = max(bisect.bisect_right(self._starts, offset) - 1, 0)
        index = min(index, max(len(self.lines) - 1, 0))
        return index + 1, offset - self._starts[index] + 1

    def line_start(self, offset: int) -> int:
        """The offset where the line holding ``offset`` begins."""
        index = max(bisect.bisect_right(self._starts, offset) - 1, 0)
        return self._starts[min(index, len(self._starts) - 1)]

    def line_end(self, offset: int) -> int:
        """The offset just past the line ending of the line holding ``offset``."""
        index = max(bisect.bisect_right(self._starts, offset) - 1, 0)
        return self._starts[min(index + 1, len(self._starts) - 1)]

    def indentation(self, offset: int) -> str:
        """The leading whitespace of the line holding ``offset``."""
        start = self.line_start(offset)
        line = self.text[start : self.line_end(offset)]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def only_blank_before(self, offset: int) -> bool:
        """True when the line holding ``offset`` has only spaces/tabs before it."""
        return self.text[self.line_start(offset) : offset].strip(" \t") == ""

    def rest_is_blank_or_comment(self, offset: int) -> bool:
        """True when the line holding ``offset`` has only blanks or a comment after it."""
        rest = self.text[offset : self.line_end(offset)].strip()
        return rest == "" or rest.startswith("#")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``new`` (``start == end``: an insertion)."""

    start: int
    end: int
    new: str = ""


class EditConflict(ValueError):
    """Two edits overlap (a bug in the rules that made them; the text is left alone)."""


class OffsetMap:
    """Carries an offset of the old text to the new text, after ``apply_edits``."""

    def __init__(self, edits: Sequence[Edit]) -> None:
        self._edits = list(edits)  # sorted, not overlapping (apply_edits checks)
        self._starts = [edit.start for edit in self._edits]
        self._shifts = [0]  # _shifts[i]: what the edits before the i-th add to an offset
        for edit in self._edits:
            self._shifts.append(self._shifts[-1] + len(edit.new) - (edit.end - edit.start))

    def __call__(self, offset: int) -> int:
        index = bisect.bisect_left(self._starts, offset)  # the edits that start before offset
        if index and self._edits[index - 1].end > offset:  # inside a replaced span: its start
            return self._edits[index - 1].start + self._shifts[index - 1]
        return offset + self._shifts[index]  # (an insertion at offset lands after it)


def apply_edits(text: str, edits: Iterable[Edit]) -> Tuple[str, OffsetMap]:
    """``text`` with ``edits`` applied, and the map from old offsets to new ones.

    Identical edits count once. Raises ``EditConflict`` when two edits overlap.
    """
    ordered = sorted(set(edits), key=lambda e: (e.start, e.end, e.new))
    for before, after in zip(ordered, ordered[1:]):
        if after.start < before.end:
            raise EditConflict(f"overlapping edits {before} and {after}")
    pieces = []
    cursor = 0
    for edit in ordered:
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.new)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces), OffsetMap(ordered)
