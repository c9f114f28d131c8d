"""The official SDK's names become claude_sync's.

* ``import claude_agent_sdk`` / ``from claude_agent_sdk[.types|.testing|.client|.query] import
  …`` (and the older ``claude_code_sdk``) name the claude_sync module with the same names; uses
  of the plain module name (``claude_agent_sdk.query(…)``) follow.
* Strings that are exactly such a dotted path (``mock.patch("claude_agent_sdk.query")``,
  ``importlib.import_module("claude_code_sdk")``) are rewritten the same way.
* The official SDK's private modules (``claude_agent_sdk._internal…``) have no counterpart:
  flagged and left as they are. With a name oracle, imported names claude_sync lacks are
  flagged too (``ClaudeCodeOptions`` keeps its name: claude_sync provides it).

Pure: no I/O (the oracle is the caller's).
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Optional, Union

from .imports import ImportView
from .plan import Plan
from .rules import OFFICIAL_MODULES, OFFICIAL_PACKAGES

__all__ = ["map_module", "port_official"]

DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def map_module(dotted: str) -> Optional[str]:
    """The claude_sync module for an official module path, or None (a private module)."""
    parts = dotted.split(".")
    if parts[0] not in OFFICIAL_PACKAGES:
        return None
    if len(parts) == 1:
        return "claude_sync"
    if len(parts) == 2 and parts[1] in OFFICIAL_MODULES:
        return OFFICIAL_MODULES[parts[1]]
    return None


def port_official(plan: Plan) -> None:
    """Rewrite the official SDK's imports, the uses of its module name and dotted-path strings."""
    renamed_roots: Dict[str, str] = {}
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.ImportFrom) and not node.level and _is_official(node.module or ""):
            _port_from_import(plan, ImportView.of(node, plan.source))
        elif isinstance(node, ast.Import):
            renamed_roots.update(_port_import(plan, ImportView.of(node, plan.source)))
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            _check_attribute(plan, node, renamed_roots)
        elif isinstance(node, ast.Name) and node.id in renamed_roots and plan.binding(node.id) is not None:
            start, end = plan.source.span(node)
            plan.edit(start, end, renamed_roots[node.id])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            _port_string(plan, node)


def _is_official(dotted: str) -> bool:
    return dotted.split(".")[0] in OFFICIAL_PACKAGES


def _port_from_import(plan: Plan, view: ImportView) -> None:
    assert view.module is not None and view.module_span is not None
    mapped = map_module(view.module)
    if mapped is None:
        plan.flag(view.stmt, f"{view.module} is private to the official SDK: claude_sync has no counterpart")
        return
    plan.edit(view.module_span[0], view.module_span[1], mapped)
    plan.rewrote(view.stmt, f"{view.module} -> {mapped}")
    for segment in view.segments:
        if segment.dotted != "*":
            _check_name(plan, view.stmt, mapped, segment.dotted)


def _port_import(plan: Plan, view: ImportView) -> Dict[str, str]:
    renamed: Dict[str, str] = {}
    for segment in view.segments:
        if not _is_official(segment.dotted):
            continue
        mapped = map_module(segment.dotted)
        if mapped is None:
            plan.flag(view.stmt, f"{segment.dotted} is private to the official SDK: claude_sync has no counterpart")
            continue
        plan.edit(segment.dotted_span[0], segment.dotted_span[1], mapped)
        plan.rewrote(view.stmt, f"{segment.dotted} -> {mapped}")
        if not segment.alias:
            renamed[segment.dotted.split(".")[0]] = "claude_sync"
    return renamed


def _check_attribute(plan: Plan, node: ast.Attribute, renamed_roots: Dict[str, str]) -> None:
    """``claude_agent_sdk.X`` / ``sdk.X``: private X is flagged, a missing X too."""
    root = node.value
    assert isinstance(root, ast.Name)
    binding = plan.binding(root.id)
    if binding is None or not _is_official(binding.qualified):
        return
    mapped = map_module(binding.qualified)
    if mapped is None:
        return  # the import itself is flagged
    if node.attr.startswith("_") and not node.attr.startswith("__"):
        plan.flag(node, f"{binding.qualified}.{node.attr} is private to the official SDK")
    else:
        _check_name(plan, node, mapped, node.attr)


def _check_name(plan: Plan, node: ast.AST, module: str, name: str) -> None:
    if plan.exists is not None and not plan.exists(module, name):
        plan.flag(node, f"{module} has no {name}: see the porting guide for what to use instead")


def _port_string(plan: Plan, node: ast.Constant) -> None:
    value = node.value
    assert isinstance(value, str)
    if not _is_official(value) or not DOTTED.fullmatch(value):
        return
    mapped = _map_path(plan, value)
    start, end = plan.source.span(node)
    text = plan.source.text[start:end]
    if mapped is None:
        plan.flag(node, f"{value!r} names a private part of the official SDK: claude_sync has no counterpart")
    elif text.count(value) != 1:
        plan.flag(node, f"write {mapped!r} for {value!r} by hand")
    else:
        at = start + text.index(value)
        plan.edit(at, at + len(value), mapped)
        plan.rewrote(node, f"{value!r} -> {mapped!r}")


def _map_path(plan: Plan, value: str) -> Optional[str]:
    """``claude_agent_sdk[.types|.testing][.Name]`` -> the claude_sync path; None otherwise."""
    parts = value.split(".")
    module: Union[str, None] = "claude_sync"
    rest = parts[1:]
    if rest and rest[0] in ("types", "testing"):
        module = map_module(".".join(parts[:2]))
        rest = rest[1:]
    if module is None or len(rest) > 1 or (rest and rest[0].startswith("_")):
        return None
    if rest and plan.exists is not None and not plan.exists(module, rest[0]):
        return None
    return ".".join([module, *rest])
