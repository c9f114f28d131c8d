"""Every ``module.name`` a docstring of the package names exists.

Docstrings rot when code moves: a module renamed, a member removed, a field left behind. This
test reads every module, class and function docstring of ``claude_sync`` (with ``ast``, nothing
imported) and resolves the double-backquoted references that point into the package:

* ``claude_sync.x.y`` — a full dotted path: each step a module, or a name in the one before
  (or a name the package spells as a string: a logger, a metric);
* ``module.name`` where ``module`` is a module's own name (``reuse``, ``argv``): ``name`` is a
  top-level name of such a module, a submodule, or a member of a class defined there;
* ``Class.member`` where ``Class`` is a class defined in the package: ``member`` is a method,
  property, field, class attribute or ``self.`` attribute of it (or of its bases in the
  package, or, for a ``TypedDict``, a key);
* ``_private`` names (alone or as the first part): a module, top-level name or member
  somewhere in the package;
* ``file.py`` (quoted or not): a file of the package, the tests, ``bench/``, ``tools/`` or ``examples/``.

A reference whose first part names nothing in the package (``os.environ``, a wire field such
as ``initialize.hooks``) is not the package's to check and is skipped.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

from helpers import package_module_name

import claude_sync

PACKAGE = Path(claude_sync.__file__).parent
ROOT = PACKAGE.parent

REFERENCE = re.compile(r"``([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?)``")
"""A double-backquoted dotted name (a trailing ``()`` allowed: ``Session.close()``)."""

FILE = re.compile(r"(?<![\w./-])([A-Za-z_][\w/]*\.py)\b")
"""A Python file's name anywhere in a docstring, quoted or not (``pool.py``, tests/conftest.py)."""

ALIASES = {
    "options": ("ClaudeAgentOptions",),
    "result": ("ResultMessage", "RunResult"),
    "run": ("RunResult",),
    "transport": ("Transport", "SubprocessTransport", "MemoryTransport"),
    "plan": ("OptionsPlan", "SpawnPlan", "Plan"),
    "pool": ("AgentPool",),
    "cli": ("ScriptedCLI",),
}
"""Lower-case words docstrings use for an instance of a package class (``options.env``): a
reference through one resolves when any of the classes has the member."""

NOT_PACKAGE_NAMES = {
    "_meta",  # MCP's metadata field on the wire
    "__init__", "__all__", "__getattr__", "__dir__", "__enter__", "__exit__", "__del__",
    "__reduce__", "__module__", "__name__", "__qualname__", "__cause__", "__context__",
    "__traceback__", "__dict__", "__slots__",
    # concurrent.futures.Future's internals, which RunFuture's docstring says it relies on
    "_condition", "_waiters", "_invoke_callbacks",
    "_queue", "_thread",  # the standard library's C halves of queue and threading
}  # fmt: skip
"""Underscore names docstrings mention that belong to Python or the wire, not the package."""



TREES: Dict[str, ast.Module] = {
    package_module_name(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))
}


def class_members(node: ast.ClassDef) -> Set[str]:
    """Methods, annotated fields, class attributes and ``self.x = …`` attributes of a class."""
    members: Set[str] = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members.add(item.target.id)
        elif isinstance(item, ast.Assign):
            members.update(t.id for t in item.targets if isinstance(t, ast.Name))
    for sub in ast.walk(node):
        targets: List[ast.expr] = []
        if isinstance(sub, ast.Assign):
            targets = list(sub.targets)
        elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
            targets = [sub.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                if target.value.id == "self":
                    members.add(target.attr)
    return members


def top_level_names(tree: ast.Module) -> Set[str]:
    names: Set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            names.update(top_level_names(ast.Module(body=node.body, type_ignores=[])))
    if "__getattr__" in names:  # a lazy loader: the names its tables list load on first use
        names.update(lazy_names(tree))
    return names


def lazy_names(tree: ast.Module) -> Set[str]:
    """The identifier strings in a module's top-level tables (what its ``__getattr__`` serves)."""
    return {
        node.value
        for statement in tree.body
        if isinstance(statement, (ast.Assign, ast.AnnAssign))
        for node in ast.walk(statement)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.isidentifier()
    }


CLASSES: Dict[str, List[ast.ClassDef]] = {}
MODULE_NAMES: Dict[str, Set[str]] = {}
SHORT_MODULES: Dict[str, List[str]] = {}
for _module, _tree in TREES.items():
    MODULE_NAMES[_module] = top_level_names(_tree)
    SHORT_MODULES.setdefault(_module.rpartition(".")[2], []).append(_module)
    for _node in ast.walk(_tree):
        if isinstance(_node, ast.ClassDef):
            CLASSES.setdefault(_node.name, []).append(_node)


def members_of_class(name: str, seen: Set[str]) -> Set[str]:
    """Members of every package class called ``name``, and of its bases in the package."""
    if name in seen:
        return set()
    seen.add(name)
    members: Set[str] = set()
    for node in CLASSES.get(name, []):
        members |= class_members(node)
        for base in node.bases:
            base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if base_name in CLASSES:
                members |= members_of_class(base_name, seen)
    return members


ALL_MEMBERS: Set[str] = set().union(*(members_of_class(c, set()) for c in CLASSES))
ALL_TOP_LEVEL: Set[str] = set().union(*MODULE_NAMES.values())
NAMES_IN_STRINGS: Set[str] = {
    node.value
    for tree in TREES.values()
    for node in ast.walk(tree)
    if isinstance(node, ast.Constant)
    and isinstance(node.value, str)
    and node.value.startswith("claude_sync.")
}
"""Dotted names the package spells as strings: loggers (``claude_sync.wire``), metrics."""
PROJECT_FILES: Set[str] = {
    p.name
    for folder in ("claude_sync", "tests", "bench", "tools", "examples", ".ci")
    for p in (ROOT / folder).rglob("*.py")
}


def resolves_in_module(module: str, rest: List[str]) -> bool:
    """``rest`` names a submodule, a top-level name, or a class member of ``module``."""
    head = rest[0]
    if f"{module}.{head}" in TREES:
        return len(rest) == 1 or resolves_in_module(f"{module}.{head}", rest[1:])
    if head not in MODULE_NAMES[module]:
        return False
    if len(rest) == 1 or head not in CLASSES:
        return True  # a name imported or bound there: its members are not this test's to read
    return rest[1] in members_of_class(head, set())


def unresolved(reference: str) -> bool:
    """True when ``reference`` points into the package and names nothing there."""
    if reference.endswith(".py"):
        return reference.rpartition("/")[2] not in PROJECT_FILES
    parts = reference.removesuffix("()").split(".")
    head = parts[0]
    if head == "claude_sync":
        if reference in NAMES_IN_STRINGS:
            return False
        return len(parts) > 1 and not resolves_in_module("claude_sync", parts[1:])
    if head.startswith("_") and not head.startswith("__") and head not in NOT_PACKAGE_NAMES:
        if not (head in SHORT_MODULES or head in ALL_TOP_LEVEL or head in ALL_MEMBERS):
            return True  # a private name of the package's that no longer exists
    if len(parts) == 1:
        return False
    if head in SHORT_MODULES:
        if any(resolves_in_module(m, parts[1:]) for m in SHORT_MODULES[head]):
            return False
        if head not in ALIASES:
            return True
    classes = ALIASES.get(head, (head,))
    if any(c in CLASSES for c in classes):
        return not any(parts[1] in members_of_class(c, set()) for c in classes)
    return False


def docstrings(tree: ast.Module) -> Iterator[Tuple[int, str]]:
    """``(line, docstring)`` of the module and every class and function in it."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "lineno", 1), text


def test_every_package_reference_in_a_docstring_resolves() -> None:
    broken = [
        f"{module} (line {line}): ``{reference}``"
        for module, tree in TREES.items()
        for line, text in docstrings(tree)
        for reference in REFERENCE.findall(text) + FILE.findall(text)
        if unresolved(reference)
    ]
    assert not broken, "docstrings name what does not exist:\n" + "\n".join(broken)


def test_the_check_catches_a_missing_member_and_a_moved_module() -> None:
    assert unresolved("ClaudeAgentOptions.no_such_field")
    assert unresolved("claude_sync._agents.no_such_module")
    assert unresolved("_no_such_private_module")
    assert unresolved("_no_such_private_module.encode_frame")
    assert unresolved("no_such_file.py")
    assert not unresolved("ClaudeAgentOptions.env")
    assert not unresolved("options.env")
    assert not unresolved("os.environ")
