"""Imports after the rewrites: drop what is no longer used, add what the rewrites need.

An imported name is dropped when nothing uses it any more and it belongs to an async library
(``import asyncio``, ``from anyio import sleep``) or a rewrite replaced a use of it (``from
typing import AsyncIterator`` once every ``AsyncIterator`` became ``Iterator``). Imports the
rewrites need (``import time``, ``from typing import Iterator``) take the place of a dropped
one of the same kind where they can (``import asyncio`` -> ``import time``), join a kept
``from`` import of the same module, or are added after the module's leading imports. A
statement left with no names goes; a block left with no statements gets ``pass``.

Pure: no I/O.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from .imports import ImportView, Segment, addition_point, drop_segments, plain_import_point
from .plan import Plan
from .rules import ASYNC_LIBRARIES
from .source import SourceText

__all__ = ["clean_imports"]

Need = Tuple[str, Optional[str]]


def clean_imports(plan: Plan) -> None:
    """Add the import edits to ``plan`` (after every other pass)."""
    used = _remaining_uses(plan)
    views: Dict[int, ImportView] = {}
    dropped: Dict[int, List[int]] = {}
    for name, found in plan.bindings.items():
        for binding in found:
            removable = binding.qualified.split(".")[0] in ASYNC_LIBRARIES or id(binding.segment) in plan.touched
            if removable and not used.get(name):
                view = binding.view
                views[id(view.stmt)] = view
                dropped.setdefault(id(view.stmt), []).append(view.segments.index(binding.segment))
    needs = list(plan.needs)
    replaced: Set[int] = set()
    module_level = {id(stmt) for stmt in plan.tree.body}
    for key, indices in dropped.items():
        view = views[key]
        if key not in module_level:
            continue
        for index in sorted(indices):
            need = _need_for(view, needs)
            if need is None:
                continue
            needs.remove(need)
            segment = view.segments[index]
            needed_module, needed_name = need
            plan.edit(segment.span[0], segment.span[1], needed_name or needed_module)
            replaced.add(id(segment))
    removed_whole = _drop(plan, views, dropped, replaced)
    _add(plan, needs, views, dropped, removed_whole)


def _remaining_uses(plan: Plan) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in plan.handled:
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _need_for(view: ImportView, needs: List[Need]) -> Optional[Need]:
    """A needed import that can take the place of a dropped name of ``view``."""
    for need in needs:
        module, name = need
        if view.is_from and name is not None and view.module == module:
            return need
        if not view.is_from and name is None:
            return need
    return None


def _drop(plan: Plan, views: Dict[int, ImportView], dropped: Dict[int, List[int]], replaced: Set[int]) -> Set[int]:
    """Remove the dropped names; returns the ids of statements removed whole."""
    removed_whole: Set[int] = set()
    for key, indices in dropped.items():
        view = views[key]
        gone = sorted(i for i in set(indices) if id(view.segments[i]) not in replaced)
        if not gone:
            continue
        if len(gone) == len(view.segments):
            removed_whole.add(key)
        else:
            for edit in drop_segments(view, gone, plan.source):
                plan.edit(edit.start, edit.end, edit.new)
    for key in removed_whole:
        _remove_statement(plan, views[key].stmt, removed_whole)
    return removed_whole


def _remove_statement(plan: Plan, stmt: ast.stmt, removed_whole: Set[int]) -> None:
    source = plan.source
    start, end = source.span(stmt)
    parent = plan.parents.get(id(stmt))
    body = _body_holding(parent, stmt)
    gone = removed_whole | plan.removed_statements
    if body is not None and not isinstance(parent, ast.Module) and all(id(s) in gone for s in body):
        if body[0] is stmt:
            plan.edit(start, end, "pass")
            return
    if source.only_blank_before(start) and source.rest_is_blank_or_comment(end):
        line_start, line_end = source.line_start(start), source.line_end(end)
        if _blank_line_at(source, line_end) and (line_start == 0 or _blank_line_at(source, source.line_start(line_start - 1))):
            line_end = source.line_end(line_end)  # no double blank where the statement was
        plan.edit(line_start, line_end)
        return
    after = source.text[end:source.line_end(end)]
    stripped = after.lstrip(" \t")
    if stripped.startswith(";"):
        skip = len(after) - len(stripped) + 1
        rest = source.text[end + skip :]
        skip += len(rest) - len(rest.lstrip(" \t"))
        plan.edit(start, end + skip)
        return
    before = source.text[source.line_start(start) : start].rstrip(" \t")
    if before.endswith(";"):
        plan.edit(source.line_start(start) + len(before) - 1, end)
        return
    plan.edit(start, end, "pass")


def _blank_line_at(source: SourceText, offset: int) -> bool:
    return offset < len(source.text) and source.text[offset : source.line_end(offset)].strip() == ""


def _body_holding(parent: Optional[ast.AST], stmt: ast.stmt) -> Optional[List[ast.stmt]]:
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody", "handlers"):
        body = getattr(parent, field, None)
        if isinstance(body, list) and stmt in body:
            return body
    return None


def _add(
    plan: Plan,
    needs: List[Need],
    views: Dict[int, ImportView],
    dropped: Dict[int, List[int]],
    removed_whole: Set[int],
) -> None:
    """Add the needed imports that took no dropped name's place."""
    lines: List[str] = []
    kept_from = _kept_from_imports(plan, dropped, removed_whole)
    by_module: Dict[str, List[str]] = {}
    for module, name in needs:
        if name is None:
            point = plain_import_point(plan.tree, plan.source, module)
            if point is None:
                lines.append(f"import {module}")
            else:
                plan.edit(point, point, f"import {module}\n")
        elif module in kept_from:
            view, last = kept_from[module]
            plan.edit(last.span[1], last.span[1], f", {name}")
        else:
            by_module.setdefault(module, []).append(name)
    lines.extend(f"from {module} import {', '.join(names)}" for module, names in by_module.items())
    if not lines:
        return
    point = addition_point(plan.tree, plan.source)
    text = "".join(f"{line}\n" for line in sorted(lines))
    if point == len(plan.source.text) and plan.source.text and not plan.source.text.endswith("\n"):
        text = "\n" + text
    plan.edit(point, point, text)


def _kept_from_imports(
    plan: Plan, dropped: Dict[int, List[int]], removed_whole: Set[int]
) -> Dict[str, Tuple[ImportView, Segment]]:
    """Module -> a module-level ``from module import …`` that stays, and its last kept name."""
    kept: Dict[str, Tuple[ImportView, Segment]] = {}
    for stmt in plan.tree.body:
        if not isinstance(stmt, ast.ImportFrom) or stmt.level or not stmt.module or id(stmt) in removed_whole:
            continue
        view = ImportView.of(stmt, plan.source)
        gone = set(dropped.get(id(stmt), []))
        remaining = [s for i, s in enumerate(view.segments) if i not in gone and s.dotted != "*"]
        if remaining and stmt.module not in kept:
            kept[stmt.module] = (view, remaining[-1])
    return kept
