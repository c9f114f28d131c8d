"""What dropping ``async``/``await`` would change without a trace, flagged.

* ``flag_unproven_awaits``: ``await x`` becomes ``x``. That keeps the meaning when ``x`` is a
  call the port makes synchronous or that is the code's own, judged where Python resolves its
  names (``scopes``): a coroutine function of this module or of the run, a name of the
  official SDK (claude_sync's twin is synchronous), an object made from one of those or from
  an asyncio class the port renames to its ``threading`` / ``queue`` twin, the code's own
  objects (an untyped parameter, an attribute of ``self``, an import from the run), a call
  into an async library (``references``' business), a method with a known sync twin
  (``aclose``: ``references`` renames it). Flagged, each saying what to call instead:

  - ``await x.m(…)`` / ``await f(…)`` of an object of a module the run does not port (named
    in the flag; an ``Async…`` class's usual sync twin is named as a guess);
  - ``await x.m(…)`` where ``m`` is named like an async twin (``ainvoke``) and no coroutine
    ``m`` is in the run: the usual sync name (``invoke``), "if the object has it";
  - a name nothing binds where it is used (a builtin, a star import);
  - ``await later`` (not a call): the coroutine was made earlier (``later = client.query(…)``);
    after the port the call ran where it was made, before the statements in between.

* ``flag_blocking_contexts``: ``async with`` / ``async for`` over an object of an async
  library that the port does not rewrite (``asyncio.timeout(t)``, a task group, an
  ``aiohttp`` session …) would become ``with`` / ``for``, which fails at run time: flagged as
  blocking the port (the file is not written until it is ported by hand), unless
  ``timeouts`` rewrote it.

Pure: no I/O.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Set, Tuple

from .keywords import coroutine_functions
from .plan import Plan
from .rules import ATTRIBUTE_RENAMES, async_library, rule_for
from .scopes import OWN, SYNC, SYNC_TWIN_PREFIXES, Foreign, Origins, is_official

__all__ = ["dotted_name", "flag_blocking_contexts", "flag_unproven_awaits", "known_sync_names"]



def flag_unproven_awaits(plan: Plan) -> None:
    """Flag each ``await`` whose operand may still be an awaitable after the port, judged in
    the scope it is evaluated in (``scopes``)."""
    functions, methods = coroutine_functions(plan.tree)
    collections, aliases = _coroutine_collections(plan, functions)
    functions = functions | aliases
    origins = Origins(plan, functions)
    for node in ast.walk(plan.tree):
        if not isinstance(node, ast.Await) or id(node) in plan.claimed:
            continue
        value = node.value
        if not isinstance(value, ast.Call):
            text = _text(plan, value)
            plan.flag(
                node,
                f"`await {text}` awaited a coroutine made earlier: after the port the call that "
                f"made it ran where it was made, before the lines in between, and `{text}` holds its "
                "result: make the call here instead",
            )
            continue
        if _proven(plan, value, functions, methods):
            continue
        if isinstance(value.func, ast.Subscript) and dotted_name(value.func.value) in collections:
            continue
        message = _unproven(plan, origins, value, methods)
        if message is not None:
            plan.flag(node, message)


def _proven(plan: Plan, call: ast.Call, functions: Set[str], methods: Set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name) and func.id in functions:
        return True
    qualified = plan.qualify(func)
    if qualified is not None and (is_official(qualified) or async_library(qualified) is not None):
        return (
            True  # claude_sync's twin is synchronous; async libraries: references rewrites or flags
        )
    if qualified is not None and plan.run.has_function(qualified):
        return True  # a coroutine function of another file of this run: synchronous now
    if isinstance(func, ast.Attribute):
        owner = func.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls") and func.attr in methods:
            return True
    return False


def _unproven(plan: Plan, origins: Origins, call: ast.Call, methods: Set[str]) -> Optional[str]:
    """The flag's text for ``await call`` when the call may still return an awaitable after the
    port; None when its object is synchronous after it or is the code's own (``scopes``)."""
    func = call.func
    text = _text(plan, func)
    scope = origins.scope_of(call)
    method = func.attr if isinstance(func, ast.Attribute) else None
    owner = func.value if isinstance(func, ast.Attribute) else func
    origin = origins.of(owner, scope)
    if isinstance(func, ast.Attribute) and isinstance(origin, Foreign) and origin.name.endswith("." + func.attr):
        origin = Foreign(origin.name[: -len(func.attr) - 1])
    if method in ATTRIBUTE_RENAMES:
        return None  # renamed to its known sync twin (``aclose`` -> ``close``) by ``references``
    twin = async_twin(method) if method is not None else None
    own_method = method is not None and (method in methods or method in plan.run.methods)
    if origin in (SYNC, OWN):
        if twin is None or own_method:
            return None
        return (
            f"`await {text}(…)`: `{method}` is named like the async twin of `{twin}` (a naming "
            f"convention of async libraries; no coroutine `{method}` is defined in the code this "
            f"run ports): after the port this line gets a coroutine object instead of its value: "
            f"call `{_with_method(text, twin)}(…)` here if the object has it, else its synchronous API"
        )
    if isinstance(origin, Foreign):
        what = origin.name
        made = what.endswith("(…)")
        subject = text if method is None else _text(plan, owner)
        head = (
            f"`await {text}(…)`: `{subject}` is {'made by ' if made else ''}`{what}`, from a module "
            "this run does not port"
            if subject != what
            else f"`await {text}(…)`: `{what}` is from a module this run does not port"
        )
        hint = ""
        if twin is not None:
            hint = (
                f": call `{_with_method(text, twin)}(…)` if it has it (`{method}` is named like "
                f"the async twin of `{twin}`)"
            )
        else:
            sync_class = _sync_class(what[:-3] if made else what)
            if sync_class is not None:
                hint = (
                    f": {'make' if made else 'take'} a `{sync_class}` instead (the usual name of "
                    f"the synchronous twin of `{(what[:-3] if made else what).rsplit('.', 1)[-1]}`), "
                    "if its library has one"
                )
        return (
            f"{head}: if it still returns an awaitable after the port, this line now gets a "
            f"coroutine object instead of its value{hint or ': call its synchronous API here'}"
        )
    root = plan.root_name(owner)
    name = root.id if root is not None else _text(plan, owner)
    return (
        f"`await {text}(…)`: nothing in this file binds `{name}` where it is used (a builtin, a "
        f"star import?): if {text}(…) still returns an awaitable after the port, this now gives a "
        f"coroutine object instead of its value: call a synchronous API here"
        + (f" (`{_with_method(text, twin)}(…)` if it has one)" if twin is not None else "")
    )


NOT_ASYNC_TWINS = ("abs", "acc", "ack", "act", "add", "adj", "adv", "agg", "all", "alt", "ana", "ann",
                   "ans", "app", "arc", "arg", "arr", "ask", "ass", "att", "aut", "avg", "awa")  # fmt: skip
"""Beginnings of method names that start with an ``a`` of their own (``add``, ``append``,
``acquire``, ``assert_called``…), not the ``a`` of an async twin (``ainvoke``)."""


def async_twin(method: str) -> Optional[str]:
    """``invoke`` for ``ainvoke``, ``stream`` for ``astream``, ``close`` for ``aclose``: the
    name an async library's synchronous twin usually has; None for a name that is not one."""
    if len(method) < 4 or not method.startswith("a") or not method[1].isalpha():
        return None
    if method.startswith(NOT_ASYNC_TWINS) or not method[1:].isidentifier():
        return None
    return method[1:]


def _with_method(text: str, method: str) -> str:
    head, _, _ = text.rpartition(".")
    return f"{head}.{method}" if head else method


def _sync_class(qualified: str) -> Optional[str]:
    """``CallbackManagerForLLMRun`` for ``…AsyncCallbackManagerForLLMRun``: the usual name of
    an ``Async…`` class's synchronous twin."""
    last = qualified.rsplit(".", 1)[-1]
    if last.startswith("Async") and len(last) > 5 and last[5].isupper():
        return last[5:]
    return None


def _coroutine_collections(plan: Plan, functions: Set[str]) -> Tuple[Set[str], Set[str]]:
    """``(collections, aliases)``: names every binding of which is a list / tuple / set / dict
    literal of this module's coroutine functions (``examples = {"a": run_a, "b": run_b}``), and
    loop variables every binding of which runs over one (``for run in examples.values()``)."""
    collections: Dict[str, bool] = {}
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            items = value.values if isinstance(value, ast.Dict) else getattr(value, "elts", None)
            ok = isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)) and all(
                isinstance(item, ast.Name) and item.id in functions for item in items or []
            )
            name = node.targets[0].id
            collections[name] = collections.get(name, True) and ok
    found = {name for name, ok in collections.items() if ok}
    for name in _other_bindings(plan.tree):
        found.discard(name)
    aliases: Dict[str, bool] = {}
    for node in ast.walk(plan.tree):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
            source = node.iter
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "values" and not source.args:
                source = source.func.value
            ok = isinstance(source, ast.Name) and source.id in found
            aliases[node.target.id] = aliases.get(node.target.id, True) and ok
    names = set(aliases) - {n for n, ok in aliases.items() if not ok}
    return found, {name for name in names if name not in _stores_outside_for(plan.tree, name)}


def _other_bindings(tree: ast.Module) -> Set[str]:
    """Names stored to other than by a plain ``name = …`` (augmented, annotated, loop targets,
    ``with … as``, ``del``, arguments, imports, definitions)."""
    names: Set[str] = set()
    plain = {id(n.targets[0]) for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in plain:
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal)):
            names.update(_names_bound_by(node) if not isinstance(node, (ast.Global, ast.Nonlocal)) else node.names)
    return names


def _stores_outside_for(tree: ast.Module, name: str) -> Set[str]:
    """``{name}`` when ``name`` is bound anywhere other than as the plain target of a ``for``."""
    targets = {id(n.target) for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor))}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in targets:
            return {name}
        if isinstance(node, ast.arg) and node.arg == name:
            return {name}
    return set()


def known_sync_names(plan: Plan) -> Set[str]:
    """Names (``client``, ``self.client``) every binding of which in the module is an object
    the port makes synchronous (see the module docstring)."""
    good: Dict[str, bool] = {}

    def bind(target: ast.AST, value: Optional[ast.AST]) -> None:
        name = dotted_name(target)
        if name is None:
            for inner in ast.walk(target):
                if isinstance(inner, (ast.Name, ast.Attribute)) and isinstance(
                    getattr(inner, "ctx", None), ast.Store
                ):
                    dotted = dotted_name(inner)
                    if dotted is not None:
                        good[dotted] = False
            return
        ok = value is not None and _makes_sync_object(plan, value)
        good[name] = good.get(name, True) and ok

    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            bind(node.target, node.value if isinstance(node, ast.AnnAssign) else None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    bind(item.optional_vars, item.context_expr)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            bind(node.target, None)
        elif isinstance(node, ast.arg):
            ok = node.annotation is not None and is_official(plan.qualify(node.annotation) or "")
            good[node.arg] = good.get(node.arg, True) and ok
        elif isinstance(node, ast.NamedExpr):
            bind(node.target, node.value)
        elif isinstance(
            node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            for name in _names_bound_by(node):
                good[name] = False
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                good[name] = False
    return {name for name, ok in good.items() if ok}


def _names_bound_by(node: ast.AST) -> Set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return {getattr(node, "name", "")}


def _makes_sync_object(plan: Plan, value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    qualified = plan.qualify(value.func)
    if qualified is None:
        return False
    if is_official(qualified):
        return True
    rule = rule_for(qualified)
    return (
        rule is not None
        and rule.action == "rename"
        and (rule.target or "").startswith(SYNC_TWIN_PREFIXES)
    )


def flag_blocking_contexts(plan: Plan) -> None:
    """Flag, as blocking the port, ``async with`` / ``async for`` over an async library's
    object that the port leaves as it is (see the module docstring)."""
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.AsyncWith):
            expressions = [item.context_expr for item in node.items]
            keyword = "async with"
        elif isinstance(node, ast.AsyncFor):
            expressions = [node.iter]
            keyword = "async for"
        else:
            continue
        for expression in expressions:
            if id(expression) in plan.claimed:
                continue
            target = expression.func if isinstance(expression, ast.Call) else expression
            qualified = plan.qualify(target)
            if qualified is None or async_library(qualified) is None:
                continue
            rule = rule_for(qualified)
            if rule is not None and rule.action in ("rename", "unwrap_thread"):
                continue
            advice = f": {rule.advice}" if rule is not None else ""
            plan.flag(
                expression,
                f"`{keyword} {qualified}(…)` would become `{keyword.split()[1]} …`, which fails at run "
                f"time{advice}",
                blocks=True,
            )
            plan.claimed.add(id(expression))
            plan.claimed.add(id(target))


def dotted_name(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted_name(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _text(plan: Plan, node: ast.AST) -> str:
    start, end = plan.source.span(node)
    text = " ".join(plan.source.text[start:end].split())
    return text if len(text) <= 60 else text[:57] + "..."
