"""The official SDK's names become claude_sync's.

* ``import claude_agent_sdk`` / ``from claude_agent_sdk[.types|.testing|.client|.query] import
  …`` (and the older ``claude_code_sdk``) name the claude_sync module with the same names; uses
  of the plain module name (``claude_agent_sdk.query(…)``) follow.
* Strings: ``strings.port_strings`` (rewritten only where they are module paths).
* The official SDK's private modules (``claude_agent_sdk._internal…``) have no counterpart:
  flagged (with what to use for the job: ``private_module_advice``) and left as they are. With a name oracle, imported names claude_sync lacks are
  flagged too (``ClaudeCodeOptions`` keeps its name: claude_sync provides it).

Pure: no I/O (the oracle is the caller's).
"""

from __future__ import annotations

import ast
from typing import Dict, Optional

from .imports import ImportView
from .plan import Plan
from .rules import OFFICIAL_MODULES, OFFICIAL_PACKAGES

__all__ = ["map_module", "port_official", "private_module_advice"]

_WIRE_ADVICE = (
    "to see or change what goes over the wire, pass transport= to query() / ClaudeSDKClient (any "
    "object with connect, write, read_messages, close, is_ready, end_input); to record a real "
    "session, claude_sync.testing.recording_transport(options, path) wraps the CLI transport the "
    "session would spawn; to replay one, claude_sync.testing.ScriptedCLI.from_recording(path)"
)
PRIVATE_ADVICE: Dict[str, str] = {
    "_internal.transport": _WIRE_ADVICE,
    "_internal.client": _WIRE_ADVICE,
    "_internal.query": _WIRE_ADVICE,
    "_internal.message_parser": (
        "its parse_message is claude_sync.parse_message (one decoded wire object -> a typed "
        "message; None for an unknown type, MessageParseError for a broken one; patching it does "
        "not change what a session parses); a message saved "
        "with to_dict() comes back with claude_sync.message_from_dict(d); recorded wire traffic "
        "replays with claude_sync.testing.ScriptedCLI.from_recording(path)"
    ),
}
"""A private module of the official SDK (after the package name; its submodules too) -> what a
claude_sync port uses for the job code reaches into it for."""


def private_module_advice(dotted: str) -> str:
    """The flag for an import of the official SDK's private module ``dotted``: what to use."""
    inner = dotted.split(".", 1)[1] if "." in dotted else ""
    for prefix, advice in PRIVATE_ADVICE.items():
        if inner == prefix or inner.startswith(prefix + "."):
            return f"{dotted} is in a private module of the official SDK, which claude_sync does not have: {advice}"
    return (
        f"{dotted} is in a private module of the official SDK, which claude_sync does not have: "
        "import the public claude_sync name that does the job (docs/porting.rst), or drop the import"
    )

def map_module(dotted: str) -> Optional[str]:
    """The claude_sync module for an official module path, or None (a private module)."""
    parts = dotted.split(".")
    if parts[0] not in OFFICIAL_PACKAGES:
        return None
    return OFFICIAL_MODULES.get(".".join(parts[1:]))


def port_official(plan: Plan) -> None:
    """Rewrite the official SDK's imports and the uses of its module name."""
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


def _is_official(dotted: str) -> bool:
    return dotted.split(".")[0] in OFFICIAL_PACKAGES


def _port_from_import(plan: Plan, view: ImportView) -> None:
    assert view.module is not None and view.module_span is not None
    mapped = map_module(view.module)
    if mapped is None:
        plan.flag(view.stmt, private_module_advice(view.module))
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
            plan.flag(view.stmt, private_module_advice(segment.dotted))
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
        chain = [binding.qualified, node.attr]
        outer = plan.parents.get(id(node))
        while isinstance(outer, ast.Attribute) and len(chain) < 4:
            chain.append(outer.attr)
            outer = plan.parents.get(id(outer))
        plan.flag(node, private_module_advice(".".join(chain[:-1] if len(chain) > 2 else chain)))
    else:
        _check_name(plan, node, mapped, node.attr)


def _check_name(plan: Plan, node: ast.AST, module: str, name: str) -> None:
    if plan.exists is not None and not plan.exists(module, name):
        plan.flag(node, f"{module} has no {name}: see the porting guide for what to use instead")
