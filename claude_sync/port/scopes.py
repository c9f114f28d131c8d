"""Where a name comes from, resolved in the scope of the code that uses it, as Python does.

``Origins(plan).of(expression, at)`` answers what the object of ``expression`` is, for an
expression inside the function ``at`` (None: the module), by reading every binding of its
root name in the scope Python resolves it in (the function, then the functions around it —
class bodies skipped — then the module; ``global`` / ``nonlocal`` followed):

* ``SYNC``: an object the port makes synchronous or that is synchronous already: a name of
  the official SDK (claude_sync's twin is synchronous), an asyncio class renamed to its
  ``threading`` / ``queue`` twin, a coroutine function of this file or of the run;
* ``OWN``: the code's own object, ported with it: a function or class defined here, an import
  from a module of the same run (or a relative one), a literal, an attribute of ``self``, a
  parameter with no type annotation (what callers pass is their business), or anything made
  from one of those (an untyped parameter is ``Foreign`` when a call in the file passes it a
  ``Foreign`` object);
* ``Foreign(name)``: an object of a module this run does not port (``mylib.load``, a
  parameter annotated ``AsyncCallbackManagerForLLMRun``): its methods may still return
  awaitables after the port;
* ``UNKNOWN``: nothing binds it that the tool can read (a builtin, a star import).

Several bindings: the least certain wins (``Foreign`` > ``UNKNOWN`` > ``OWN`` > ``SYNC``).

Pure: no I/O.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Set, Tuple, Union

from .plan import Plan
from .rules import OFFICIAL_PACKAGES, rule_for

__all__ = ["Foreign", "OWN", "Origin", "Origins", "SYNC", "SYNC_TWIN_PREFIXES", "UNKNOWN", "is_official"]

SYNC = "sync"
OWN = "own"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Foreign:
    """An object of a module the run does not port; ``name`` is what it is (``mylib.load``)."""

    name: str


Origin = Union[str, Foreign]

_RANK = {SYNC: 0, OWN: 1, UNKNOWN: 2}

SYNC_TWIN_PREFIXES = ("threading.", "queue.")
"""Renames whose target's methods are the blocking twins of the async ones (``await
queue.get()`` -> ``queue.get()``)."""

TYPING_NAMES = frozenset(
    {"Optional", "Union", "Any", "List", "Dict", "Tuple", "Set", "Sequence", "Iterable", "Mapping",
     "Callable", "Awaitable", "Coroutine", "Type", "ClassVar", "Final", "Annotated", "None"}
)  # fmt: skip

MODULE_LOADERS = frozenset({"importlib.import_module", "pytest.importorskip", "__import__"})
"""Calls that return the module their first argument names (``asyncpg = pytest.importorskip("asyncpg")``)."""
FILE_LOADERS = frozenset({"importlib.util.module_from_spec", "runpy.run_path"})
"""Calls that load a file of the project by its path."""

SYNC_MOCKS = frozenset(
    {f"unittest.mock.{name}" for name in ("Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock")}
    | {f"mock.{name}" for name in ("Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock")}
)
"""Mocks whose calls return plain values: synchronous (``AsyncMock`` is not)."""

ScopeNode = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


def worst(first: Origin, second: Origin) -> Origin:
    if isinstance(first, Foreign):
        return first
    if isinstance(second, Foreign):
        return second
    return first if _RANK[first] >= _RANK[second] else second


class Origins:
    """The origin of names and expressions of one file (see the module docstring)."""

    def __init__(self, plan: Plan, functions: Set[str]) -> None:
        self.plan = plan
        self.functions = functions
        """This file's coroutine functions (by name)."""
        self.enclosing: Dict[int, Optional[ScopeNode]] = {}
        self.locals: Dict[int, Dict[str, List[Tuple[str, ast.AST]]]] = {}
        self.declared: Dict[int, Dict[str, str]] = {}
        self._self_attributes: Optional[Dict[str, List[ast.AST]]] = None
        self._arg_function: Dict[int, ScopeNode] = {}
        self._calls: Optional[Dict[str, List[ast.Call]]] = None
        self._index(plan.tree, None)
        self._resolving: Set[Tuple[int, str]] = set()
        self._known: Dict[Tuple[int, str], Origin] = {}

    # ------------------------------------------------------------------ the scopes of the file
    def _index(self, scope: ScopeNode, parent: Optional[ScopeNode]) -> None:
        self.enclosing[id(scope)] = parent
        names: Dict[str, List[Tuple[str, ast.AST]]] = {}
        declared: Dict[str, str] = {}
        self.locals[id(scope)] = names
        self.declared[id(scope)] = declared
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = scope.args
            for arg in [*getattr(arguments, "posonlyargs", []), *arguments.args, *arguments.kwonlyargs]:
                names.setdefault(arg.arg, []).append(("arg", arg))
                self._arg_function[id(arg)] = scope
            for arg in (arguments.vararg, arguments.kwarg):
                if arg is not None:
                    names.setdefault(arg.arg, []).append(("own", arg))
            body: List[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
        else:
            body = list(scope.body)
        class_level: Set[int] = set()
        for node in _walk_scope(body):
            if isinstance(node, ast.ClassDef):
                class_level.update(id(item) for item in node.body)
            if id(node) in class_level and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                continue  # a class attribute: bound in the class, which its methods do not see
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if not isinstance(node, ast.Lambda) and id(node) not in class_level:
                    names.setdefault(node.name, []).append(("own", node))
                self._index(node, scope)
            elif isinstance(node, ast.ClassDef) and id(node) not in class_level:
                names.setdefault(node.name, []).append(("own", node))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    declared[name] = "global" if isinstance(node, ast.Global) else "nonlocal"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    names.setdefault(name, []).append(("import", node))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind_target(names, target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
                if node.value is not None:
                    self._bind_target(names, node.target, node.value)
            elif isinstance(node, ast.AugAssign):
                self._bind_target(names, node.target, node.value)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind_target(names, item.optional_vars, item.context_expr)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind_target(names, node.target, node.iter)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.setdefault(node.name, []).append(("own", node))

    @staticmethod
    def _bind_target(names: Dict[str, List[Tuple[str, ast.AST]]], target: ast.AST, value: ast.AST) -> None:
        for inner in ast.walk(target):
            if isinstance(inner, ast.Name):
                names.setdefault(inner.id, []).append(("value", value))
            elif isinstance(inner, ast.Starred):
                continue

    def scope_of(self, node: ast.AST) -> ScopeNode:
        """The function (or the module) whose scope ``node`` is evaluated in."""
        parents = self.plan.parents
        current = parents.get(id(node))
        while current is not None:
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return current
            current = parents.get(id(current))
        return self.plan.tree

    # ------------------------------------------------------------------ origins
    def of(self, expression: ast.AST, scope: ScopeNode) -> Origin:
        """The origin of ``expression`` evaluated in ``scope``."""
        qualified = self.plan.qualify(expression) if isinstance(expression, (ast.Name, ast.Attribute)) else None
        if isinstance(expression, ast.Name):
            return self.name(expression.id, scope)
        if isinstance(expression, ast.Attribute):
            root: ast.AST = expression
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("self", "cls"):
                return self._self_attribute(expression, scope)
            inner = self.of(expression.value, scope)
            if isinstance(inner, Foreign):
                return Foreign(qualified if qualified is not None else f"{inner.name}.{expression.attr}")
            return inner
        if isinstance(expression, ast.Subscript):
            return self.of(expression.value, scope)
        if isinstance(expression, ast.Call):
            return self._call(expression, scope)
        if isinstance(expression, ast.Await):
            return self.of(expression.value, scope)
        if isinstance(expression, ast.IfExp):
            return worst(self.of(expression.body, scope), self.of(expression.orelse, scope))
        if isinstance(expression, ast.BoolOp):
            found: Origin = SYNC
            for value in expression.values:
                found = worst(found, self.of(value, scope))
            return found
        if isinstance(expression, ast.NamedExpr):
            return self.of(expression.value, scope)
        if isinstance(expression, ast.Starred):
            return self.of(expression.value, scope)
        if isinstance(
            expression,
            (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp,
             ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda, ast.BinOp, ast.UnaryOp, ast.Compare),
        ):  # fmt: skip
            return OWN
        return UNKNOWN

    def _call(self, call: ast.Call, scope: ScopeNode) -> Origin:
        func = call.func
        qualified = self.plan.qualify(func)
        if qualified in MODULE_LOADERS:
            named = call.args[0] if call.args else None
            if isinstance(named, ast.Constant) and isinstance(named.value, str):
                known = self._qualified(named.value)
                return known if known is not None else Foreign(named.value)
        if qualified in FILE_LOADERS:
            return OWN  # a file of the project loaded by its path (an example, a script)
        if qualified is not None:
            known = self._qualified(qualified)
            if known is not None:
                return known
        if isinstance(func, ast.Name) and func.id in self.functions:
            return SYNC
        found = self.of(func, scope)
        return Foreign(f"{found.name}(…)") if isinstance(found, Foreign) else found

    def _qualified(self, qualified: str) -> Optional[Origin]:
        if is_official(qualified) or qualified in SYNC_MOCKS:
            return SYNC
        rule = rule_for(qualified)
        if rule is not None and rule.action == "rename" and (rule.target or "").startswith(SYNC_TWIN_PREFIXES):
            return SYNC
        if self.plan.run.has_function(qualified):
            return SYNC
        if self.plan.run.has_module(qualified):
            return OWN
        return None

    def name(self, name: str, scope: ScopeNode) -> Origin:
        """The origin of the name ``name`` used in ``scope``."""
        resolved = self._resolve(name, scope)
        if resolved is None:
            return UNKNOWN
        where, bindings = resolved
        key = (id(where), name)
        if key in self._known:
            return self._known[key]
        if key in self._resolving:
            return OWN  # x = x + 1, a cycle: whatever else binds it decides
        self._resolving.add(key)
        try:
            found: Origin = SYNC
            for kind, node in bindings:
                found = worst(found, self._binding(name, kind, node, where))
        finally:
            self._resolving.discard(key)
        if not self._resolving:
            self._known[key] = found  # not mid-cycle: final
        return found

    def _resolve(self, name: str, scope: ScopeNode) -> Optional[Tuple[ScopeNode, List[Tuple[str, ast.AST]]]]:
        current: Optional[ScopeNode] = scope
        while current is not None:
            declared = self.declared.get(id(current), {}).get(name)
            if declared == "global":
                current = self.plan.tree
                continue
            if declared is None:
                bindings = self.locals.get(id(current), {}).get(name)
                if bindings:
                    return current, bindings
            current = self.enclosing.get(id(current))
        return None

    def _binding(self, name: str, kind: str, node: ast.AST, where: ScopeNode) -> Origin:
        if kind == "own":
            return OWN
        if kind == "arg":
            annotation = getattr(node, "annotation", None)
            if annotation is None:
                assert isinstance(node, ast.arg)
                return self._passed(node)
            return self._annotation(annotation)
        if kind == "import":
            assert isinstance(node, (ast.Import, ast.ImportFrom))
            if isinstance(node, ast.ImportFrom) and node.level:
                return OWN  # a relative import: the same package
            binding = self.plan.binding(name)
            qualified = binding.qualified if binding is not None else name
            known = self._qualified(qualified)
            return known if known is not None else Foreign(qualified)
        return self.of(node, where)

    def _passed(self, arg: ast.arg) -> Origin:
        """An untyped parameter: the caller's object (``OWN``), unless a call in this file
        passes it an object of a module the run does not port (``handle(session)`` with
        ``session = aiohttp.ClientSession()``): then that."""
        function = self._arg_function.get(id(arg))
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return OWN
        positional = [*getattr(function.args, "posonlyargs", []), *function.args.args]
        method = isinstance(self.plan.parents.get(id(function)), ast.ClassDef)
        if self._calls is None:
            self._calls = {}
            for node in ast.walk(self.plan.tree):
                if isinstance(node, ast.Call):
                    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                    if name is not None:
                        self._calls.setdefault(name, []).append(node)
        found: Origin = OWN
        for call in self._calls.get(function.name, []):
            through_attribute = isinstance(call.func, ast.Attribute)
            if method != through_attribute:
                continue  # not a call of this function (a method is called on its object)
            value: Optional[ast.AST] = next((k.value for k in call.keywords if k.arg == arg.arg), None)
            if value is None and arg in positional:
                index = positional.index(arg) - (1 if method else 0)
                if 0 <= index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
                    value = call.args[index]
            if value is not None:
                origin = self.of(value, self.scope_of(value))
                if isinstance(origin, Foreign):
                    found = worst(found, origin)
        return found

    def _annotation(self, annotation: Optional[ast.AST]) -> Origin:
        if annotation is None:
            return OWN  # a parameter with no known type: the caller's object
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return OWN
        found: Origin = OWN
        inner: Set[int] = set()
        for node in ast.walk(annotation):
            if isinstance(node, ast.Attribute):
                inner.add(id(node.value))  # a part of a longer chain: the chain is read whole
        for node in ast.walk(annotation):
            if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in inner:
                continue
            if isinstance(node, ast.Name) and node.id in TYPING_NAMES:
                continue
            qualified = self.plan.qualify(node)
            if qualified is None:
                # not an import: a class of this file, a builtin type, or a module bound some
                # other way (``asyncpg = pytest.importorskip("asyncpg")``)
                origin = self.of(node, self.plan.tree)
                if isinstance(origin, Foreign):
                    found = worst(found, origin)
                elif "Async" in _last_part(node) and origin == UNKNOWN:
                    found = worst(found, Foreign(_dotted(node)))
                continue
            if qualified.split(".")[0] in ("typing", "typing_extensions", "collections", "builtins"):
                continue
            known = self._qualified(qualified)
            found = worst(found, known if known is not None else Foreign(qualified))
        return found

    def _self_attribute(self, expression: ast.Attribute, scope: ScopeNode) -> Origin:
        """``self.x…``: what the file assigns to ``self.x`` (anywhere); its own when nothing does."""
        first = expression
        while isinstance(first.value, ast.Attribute):
            first = first.value
        if self._self_attributes is None:
            self._self_attributes = {}
            for node in ast.walk(self.plan.tree):
                pairs: List[Tuple[ast.AST, ast.AST]] = []
                if isinstance(node, ast.Assign):
                    pairs = [(target, node.value) for target in node.targets]
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    pairs = [(node.target, node.value)]
                for target, value in pairs:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id in ("self", "cls")
                    ):
                        self._self_attributes.setdefault(target.attr, []).append(value)
        found: Origin = OWN
        for value in self._self_attributes.get(first.attr, []):
            origin = self.of(value, self.scope_of(value))
            found = worst(found, origin)
        if isinstance(found, Foreign) and first is not expression:
            return Foreign(f"{found.name}{_text_after(expression, first)}")
        return found


def _last_part(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return getattr(node, "id", "?")


def _text_after(expression: ast.Attribute, first: ast.Attribute) -> str:
    parts: List[str] = []
    node: ast.AST = expression
    while node is not first and isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return "".join(f".{part}" for part in reversed(parts))


def _walk_scope(body: List[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of a scope's body, not entering nested functions or lambdas (yielded, not
    walked); class bodies are walked for their nested functions only through ``_index``."""
    pending = list(reversed(body))
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # decorators and defaults run in this scope
            extra: List[ast.AST] = list(getattr(node, "decorator_list", []))
            extra.extend(d for d in node.args.defaults if d is not None)
            extra.extend(d for d in node.args.kw_defaults if d is not None)
            pending.extend(reversed(extra))
            continue
        if isinstance(node, ast.ClassDef):
            # the class body is its own scope, which its methods do not see; its methods are
            # indexed with this scope around them (Python skips the class)
            pending.extend(reversed([*node.decorator_list, *node.bases, *node.body]))
            continue
        pending.extend(reversed(list(ast.iter_child_nodes(node))))


def is_official(qualified: str) -> bool:
    """Whether ``qualified`` names something of the official SDK (or of claude_sync)."""
    root = qualified.split(".")[0]
    return root in OFFICIAL_PACKAGES or root == "claude_sync"
