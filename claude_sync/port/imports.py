"""Import statements, read token by token: what each binds, and edits that rename, drop or add
names without disturbing the rest of the statement (its comments, parentheses, layout).

``ast`` gives positions of import aliases only from Python 3.10, so the statement's tokens are
read instead (the same on 3.9–3.13).

* ``ImportView.of(stmt, source)``: the statement's segments (``a.b as c``), each with the
  dotted name, its span and what it binds.
* ``bindings(tree)``: local name -> ``Binding`` (the qualified name it stands for and where).
* ``drop_segments(view, indices, source)``: the edits that remove some names of a statement
  (the statement itself is the caller's business when all go).
* ``addition_point(tree, source)``: where new ``import`` lines go.

Pure: no I/O.
"""

from __future__ import annotations

import ast
import tokenize
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .source import Edit, SourceText

__all__ = [
    "Binding",
    "ImportView",
    "Segment",
    "addition_point",
    "bindings",
    "drop_segments",
    "plain_import_point",
]

ImportStmt = Union[ast.Import, ast.ImportFrom]


@dataclass
class Segment:
    """One ``name[.name…] [as alias]`` of an import statement."""

    dotted: str
    dotted_span: Tuple[int, int]
    alias: Optional[str]
    span: Tuple[int, int]

    def bound_name(self, is_from: bool) -> str:
        """The local name this segment binds."""
        if self.alias:
            return self.alias
        return self.dotted if is_from else self.dotted.split(".")[0]


@dataclass
class ImportView:
    """An import statement as tokens: ``from`` module (if any) and the imported segments."""

    stmt: ImportStmt
    module: Optional[str]
    module_span: Optional[Tuple[int, int]]
    level: int
    segments: List[Segment] = field(default_factory=list)

    @property
    def is_from(self) -> bool:
        return isinstance(self.stmt, ast.ImportFrom)

    def qualified(self, segment: Segment) -> str:
        """What the segment's bound name stands for (``from a import b`` -> ``a.b``)."""
        if not self.is_from:
            return segment.dotted if segment.alias else segment.dotted.split(".")[0]
        return f"{self.module}.{segment.dotted}" if self.module else segment.dotted

    @classmethod
    def of(cls, stmt: ImportStmt, source: SourceText) -> ImportView:
        """Read ``stmt``'s tokens. Raises ``ValueError`` on a statement it cannot follow."""
        start, end = source.span(stmt)
        tokens = [
            t
            for t in source.tokens_between(start, end)
            if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        ]
        index = 0
        module = None
        module_span = None
        level = 0
        if isinstance(stmt, ast.ImportFrom):
            index = 1  # "from"
            while tokens[index].string in (".", "..."):
                level += len(tokens[index].string)
                index += 1
            if tokens[index].string != "import":
                names, span, index = _dotted(tokens, index, source)
                module, module_span = names, span
            index += 1  # "import"
        else:
            index = 1
        view = cls(stmt, module, module_span, level)
        while index < len(tokens):
            token = tokens[index]
            if token.string in ("(", ")", ","):
                index += 1
                continue
            if token.string == "*":
                offsets = source.token_offsets(token)
                view.segments.append(Segment("*", offsets, None, offsets))
                index += 1
                continue
            dotted, dotted_span, index = _dotted(tokens, index, source)
            alias = None
            segment_end = dotted_span[1]
            if index < len(tokens) and tokens[index].string == "as":
                alias = tokens[index + 1].string
                segment_end = source.token_offsets(tokens[index + 1])[1]
                index += 2
            view.segments.append(Segment(dotted, dotted_span, alias, (dotted_span[0], segment_end)))
        return view


def _dotted(
    tokens: Sequence[tokenize.TokenInfo], index: int, source: SourceText
) -> Tuple[str, Tuple[int, int], int]:
    """Read ``name(.name)*`` from ``tokens[index]``: the name, its span, the next index."""
    if tokens[index].type != tokenize.NAME:
        raise ValueError(f"unexpected token {tokens[index].string!r} in an import statement")
    parts = [tokens[index].string]
    start, end = source.token_offsets(tokens[index])
    index += 1
    while index + 1 < len(tokens) and tokens[index].string == "." and tokens[index + 1].type == tokenize.NAME:
        parts.append(tokens[index + 1].string)
        end = source.token_offsets(tokens[index + 1])[1]
        index += 2
    return ".".join(parts), (start, end), index


@dataclass
class Binding:
    """A local name bound by an import: what it stands for and which segment binds it."""

    name: str
    qualified: str
    view: ImportView
    segment: Segment
    module_level: bool
    """False for an import inside a function or class body (its name is local there)."""


def bindings(tree: ast.Module, source: SourceText) -> Dict[str, List[Binding]]:
    """Every name bound by an import anywhere in ``tree`` (relative imports excluded)."""
    found: Dict[str, List[Binding]] = {}
    local = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        for inner in ast.walk(node)
        if inner is not node
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            view = ImportView.of(node, source)
            for segment in view.segments:
                if segment.dotted == "*":
                    continue
                name = segment.bound_name(view.is_from)
                binding = Binding(name, view.qualified(segment), view, segment, id(node) not in local)
                found.setdefault(name, []).append(binding)
    return found


def drop_segments(view: ImportView, drop: Sequence[int], source: SourceText) -> List[Edit]:
    """Edits that remove the segments at ``drop`` (not all of them) with their commas."""
    keep = [i for i in range(len(view.segments)) if i not in drop]
    if not keep:
        raise ValueError("drop_segments removes some names; remove the whole statement instead")
    edits = []
    runs: List[List[int]] = []
    for index in sorted(drop):
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    for run in runs:
        first, last = view.segments[run[0]], view.segments[run[-1]]
        following = [i for i in keep if i > run[-1]]
        if following:
            edits.append(Edit(first.span[0], view.segments[following[0]].span[0]))
        else:
            previous = max(i for i in keep if i < run[0])
            edits.append(Edit(view.segments[previous].span[1], last.span[1]))
    return edits


def plain_import_point(tree: ast.Module, source: SourceText, module: str) -> Optional[int]:
    """Where ``import <module>`` goes among the module's leading ``import x`` statements, in
    alphabetical order (before the first that sorts after it, else after the last); None when
    the leading block has no such statement."""
    plain = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            plain.append(stmt)
        elif not isinstance(stmt, ast.ImportFrom) and not _is_docstring(stmt, tree):
            break
    if not plain:
        return None
    for stmt in plain:
        if stmt.names[0].name > module:
            return source.line_start(source.span(stmt)[0])
    return source.line_end(source.span(plain[-1])[1])


def _is_docstring(stmt: ast.stmt, tree: ast.Module) -> bool:
    return (
        stmt is tree.body[0]
        and isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def addition_point(tree: ast.Module, source: SourceText) -> int:
    """The offset where new ``import`` lines go: after the module's leading imports (those
    before any other statement; the docstring and ``__future__`` imports count as leading),
    or at the start of the first statement."""
    point: Optional[int] = None
    for stmt in tree.body:
        if _is_docstring(stmt, tree) or isinstance(stmt, (ast.Import, ast.ImportFrom)):
            point = source.line_end(source.span(stmt)[1])
            continue
        if point is None:
            decorators = getattr(stmt, "decorator_list", [])
            first = min([stmt.lineno, *(d.lineno for d in decorators)])
            point = source.offset(first, 0)
        break
    if point is None:
        point = len(source.text)
    return point
