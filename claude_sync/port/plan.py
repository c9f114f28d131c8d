"""The shared state of one port: the parsed module, the edits decided so far, the flags, which
name references the edits remove, and which imports the rewrites need.

The passes (``keywords``, ``references``, ``official``) add to a ``Plan``; ``cleanup`` turns the
bookkeeping into import edits; ``engine`` applies everything at once.

Pure: no I/O.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from .imports import Binding, bindings
from .source import Edit, SourceText

__all__ = ["BLOCKS", "NameOracle", "Note", "Plan", "RunCoroutines", "is_primary"]

BLOCKS = "blocks the port: "
"""Starts the message of a flag whose place, ported mechanically, would not compile or run."""

NameOracle = Callable[[str, str], bool]


@dataclass(frozen=True)
class RunCoroutines:
    """The coroutine functions of every file of one run, which the run makes synchronous: an
    ``await`` of one of them is proven (``awaits``), wherever it is defined. A coroutine method
    name of the run only keeps ``await x.ainvoke()`` on the code's own object from being taken
    for an async twin (``scopes`` decides whose object ``x`` is): ``await client.get()`` of an
    async library's client stays a flag even when a class of the run has a ``get``.

    Attributes:
        functions: "module.name" for each coroutine function, by the module's last part
            ("handlers.handle" for a module named handlers; a package by its folder).
    """

    functions: FrozenSet[str] = frozenset()
    methods: FrozenSet[str] = frozenset()
    """The names of the coroutine methods of the run's classes: such a name is not taken for an
    async library's ``a…`` twin (``awaits``)."""
    modules: FrozenSet[str] = frozenset()
    """The run's modules and packages by their last part: an import from one is the code's own."""

    def has_module(self, qualified: str) -> bool:
        """Whether ``qualified`` (pkg.mod.name) names something of a module of the run: its
        first part is one (a package or a top-level module of the run)."""
        return qualified.lstrip(".").split(".")[0] in self.modules

    def has_function(self, qualified: str) -> bool:
        """Whether ``qualified`` (as pkg.handlers.handle or handlers.handle) is one of them."""
        parts = qualified.lstrip(".").split(".")
        return len(parts) >= 2 and ".".join(parts[-2:]) in self.functions
"""``exists(module, name)``: whether ``module`` (a claude_sync module) has ``name``."""

PRIMARY_NODES = (
    ast.Name,
    ast.Attribute,
    ast.Call,
    ast.Subscript,
    ast.Constant,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)


def is_primary(node: ast.AST, source: SourceText) -> bool:
    """True when ``node``'s text can stand where a call or attribute stands without parentheses
    (a name, call, subscript, literal… or anything already written in parentheses)."""
    if isinstance(node, PRIMARY_NODES):
        return True
    start, end = source.span(node)
    text = source.text[start:end]
    return text.startswith("(") and text.endswith(")") and isinstance(node, ast.Tuple)


@dataclass(frozen=True)
class Note:
    """A flag or a rewrite, at an offset of the original text."""

    offset: int
    message: str
    blocks: bool = False
    """A flag of a place whose mechanical port would not compile or run: the file must not
    be written until it is ported by hand."""


class Plan:
    """Everything decided about one module before any edit is applied."""

    def __init__(
        self,
        source: SourceText,
        tree: ast.Module,
        exists: Optional[NameOracle],
        run: Optional[RunCoroutines] = None,
    ) -> None:
        self.source = source
        self.tree = tree
        self.exists = exists
        self.run = run if run is not None else RunCoroutines()
        """The coroutines the whole run makes synchronous (other files of the same run)."""
        self.edits: List[Edit] = []
        self.flags: List[Note] = []
        self.rewrites: List[Note] = []
        self.handled: Set[int] = set()
        """ids of ``ast.Name`` nodes whose text the edits remove or replace."""
        self.touched: Set[int] = set()
        """ids of import segments (``id(Segment)``) a rewrite replaced a use of."""
        self.removed_statements: Set[int] = set()
        """ids of statements removed whole by a pass (not imports)."""
        self.kept_keywords: Set[int] = set()
        """Lines whose ``async`` keyword another edit removes (``drop_keywords`` skips them)."""
        self.claimed: Set[int] = set()
        """ids of nodes a pass has dealt with whole (``references`` leaves them alone)."""
        self.needs: List[Tuple[str, Optional[str]]] = []
        """Imports the rewrites need: ``(module, None)`` = ``import module``,
        ``(module, name)`` = ``from module import name``."""
        self.bindings: Dict[str, List[Binding]] = bindings(tree, source)
        self.bound_names: Set[str] = _bound_names(tree)
        self.parents: Dict[int, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent

    # -- recording

    def edit(self, start: int, end: int, new: str = "") -> None:
        self.edits.append(Edit(start, end, new))

    def flag(self, node_or_offset: object, message: str, *, blocks: bool = False) -> None:
        """A place for a human; ``blocks``: the file's port would not compile or run."""
        if blocks:
            message = BLOCKS + message
        self.flags.append(Note(self._offset(node_or_offset), message, blocks))

    def rewrote(self, node_or_offset: object, message: str) -> None:
        self.rewrites.append(Note(self._offset(node_or_offset), message))

    def _offset(self, node_or_offset: object) -> int:
        if isinstance(node_or_offset, int):
            return node_or_offset
        assert isinstance(node_or_offset, ast.AST)
        return self.source.span(node_or_offset)[0]

    def remove_names_in(self, node: ast.AST) -> None:
        """Record that the text of ``node`` is gone (its names no longer use their imports)."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                self.handled.add(id(inner))

    # -- names

    def binding(self, name: str) -> Optional[Binding]:
        """The import that binds ``name`` (the first one, when several do)."""
        found = self.bindings.get(name)
        return found[0] if found else None

    def qualify(self, node: ast.AST) -> Optional[str]:
        """``asyncio.sleep`` for ``aio.sleep`` after ``import asyncio as aio``; None when the
        expression is not a name chain rooted in an imported name."""
        if isinstance(node, ast.Name):
            binding = self.binding(node.id)
            return binding.qualified if binding else None
        if isinstance(node, ast.Attribute):
            inner = self.qualify(node.value)
            return f"{inner}.{node.attr}" if inner else None
        return None

    def root_name(self, node: ast.AST) -> Optional[ast.Name]:
        while isinstance(node, ast.Attribute):
            node = node.value
        return node if isinstance(node, ast.Name) else None

    def note_use_replaced(self, node: ast.AST) -> None:
        """The reference ``node`` (a name chain) is replaced: its root no longer uses its import."""
        root = self.root_name(node)
        if root is None:
            return
        self.handled.add(id(root))
        binding = self.binding(root.id)
        if binding is not None:
            self.touched.add(id(binding.segment))

    def spell(self, target: str, prefer_from: bool) -> Optional[str]:
        """How to write the qualified name ``target`` here, recording the import it needs;
        None when every spelling would clash with a name the module already binds."""
        if target.startswith("builtins."):
            name = target[len("builtins.") :]
            return None if name in self.bound_names else name
        module, _, attr = target.rpartition(".")
        for name, found in self.bindings.items():
            if any(b.qualified == target and b.module_level for b in found):
                return name
        module_binding = self._module_binding(module)
        if module_binding is not None:
            return f"{module_binding}.{attr}"
        if prefer_from and (module, attr) in self.needs:
            return attr
        if prefer_from and attr not in self.bound_names:
            self._need(module, attr)
            return attr
        root = module.split(".")[0]
        if root in self.bound_names and not any(b.qualified == root for b in self.bindings.get(root, [])):
            return None
        self._need(module, None)
        return target

    def _module_binding(self, module: str) -> Optional[str]:
        for name, found in self.bindings.items():
            if any(b.qualified == module and b.module_level for b in found):
                return name
        if (module, None) in self.needs:
            return module
        return None

    def _need(self, module: str, name: Optional[str]) -> None:
        if (module, name) not in self.needs:
            self.needs.append((module, name))
        self.bound_names.add(name or module.split(".")[0])


def _bound_names(tree: ast.Module) -> Set[str]:
    """Every name the module binds anywhere (defs, classes, assignments, arguments, imports,
    loop and ``with`` targets, ``global`` names): a rewrite must not clash with any of them."""
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names
