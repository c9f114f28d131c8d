"""The mechanical part of the port: ``async``/``await`` go, async protocol methods get their
sync names, and what cannot be seen again after that is marked in the code.

* ``drop_keywords``: every ``async`` and ``await`` keyword token is removed with the blanks
  after it (``async def`` / ``async for`` / ``async with`` / async comprehensions / ``await
  x``). An ``await`` that the tokenizer cannot see (inside an f-string before Python 3.12) is
  flagged as blocking the port (the output would not compile).
* ``rename_methods``: ``async def __aenter__`` -> ``def __enter__`` and friends, unless the
  class already has the sync name (flagged).
* ``mark_unawaited_calls``: a call of a coroutine function that is not awaited used to make a
  coroutine object to run later; after the port it runs on the spot: flagged (``markers``
  writes the comment that keeps it visible once the code no longer shows it).

Pure: no I/O.
"""

from __future__ import annotations

import ast
import tokenize
from typing import List, Optional, Set, Tuple, Union

from .plan import Plan
from .rules import METHOD_RENAMES, async_library

__all__ = ["coroutine_functions", "drop_keywords", "mark_unawaited_calls", "rename_methods"]

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]

SPAWNING_METHODS = frozenset({"create_task", "start_soon", "start", "ensure_future", "run_until_complete", "submit"})
"""Method names whose coroutine arguments were handed to a scheduler (already flagged there,
or a loop/task group the flags point at): their arguments are not marked again."""


def drop_keywords(plan: Plan) -> None:
    """Remove every ``async``/``await`` keyword; flag awaits the tokenizer does not show."""
    source = plan.source
    removed: Set[Tuple[int, int]] = set()
    tokens = source.tokens
    for index, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in ("async", "await"):
            continue
        if token.start[0] in plan.kept_keywords:
            removed.add(token.start)
            continue
        start, end = source.token_offsets(token)
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if following is not None and following.start[0] == token.end[0]:
            end = source.offset(*following.start)
        plan.edit(start, end)
        removed.add(token.start)
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Await):
            line_text = source.lines[node.lineno - 1]
            column = len(line_text.encode("utf-8")[: node.col_offset].decode("utf-8", errors="replace"))
            if (node.lineno, column) not in removed:
                plan.claimed.add(id(node))
                plan.flag(
                    node,
                    "`await` inside an f-string: the tokenizer of Python < 3.12 cannot see it to "
                    "remove it; compute the value into a variable before the f-string by hand",
                    blocks=True,
                )


def rename_methods(plan: Plan) -> None:
    """``__aenter__``/``__aexit__``/``__aiter__``/``__anext__``/``asyncSetUp``/``asyncTearDown``
    definitions take their sync names, unless the class defines those too (flagged)."""
    for node in ast.walk(plan.tree):
        if not isinstance(node, ast.ClassDef):
            continue
        defined = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for item in node.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) or item.name not in METHOD_RENAMES:
                continue
            sync_name = METHOD_RENAMES[item.name]
            if sync_name in defined:
                plan.flag(item, f"{node.name} defines both {item.name} and {sync_name}: merge them by hand")
                continue
            name_span = _def_name_span(plan, item)
            if name_span is None:
                plan.flag(item, f"rename {item.name} to {sync_name} by hand")
                continue
            plan.edit(name_span[0], name_span[1], sync_name)
            plan.rewrote(item, f"{item.name} -> {sync_name}")


def _def_name_span(plan: Plan, node: FunctionNode) -> Optional[Tuple[int, int]]:
    start, end = plan.source.span(node)
    tokens = plan.source.tokens_between(start, end)
    for index, token in enumerate(tokens[:-1]):
        if token.type == tokenize.NAME and token.string == "def" and tokens[index + 1].string == node.name:
            return plan.source.token_offsets(tokens[index + 1])
    return None


def mark_unawaited_calls(plan: Plan) -> None:
    """Flag each call of a coroutine function of this module made without ``await`` (outside
    the spots already flagged or unwrapped)."""
    functions, methods = coroutine_functions(plan.tree)
    if not functions and not methods:
        return
    excused = _excused_calls(plan)
    for node in ast.walk(plan.tree):
        if not isinstance(node, ast.Call) or id(node) in excused:
            continue
        name = _called_coroutine(node, functions, methods)
        if name is not None:
            statement = _statement_of(plan, node)
            plan.flag(
                statement,
                f"{name}() was not awaited: it now runs here, to the end; "
                "to run it alongside, start a threading.Thread",
            )


def coroutine_functions(tree: ast.Module) -> Tuple[Set[str], Set[str]]:
    """Names of ``async def`` functions that are not generators, wherever they are defined (a
    module, a function, an ``if`` or ``with`` block…), and of such methods of classes."""
    functions: Set[str] = set()
    methods: Set[str] = set()
    for node in ast.walk(tree):
        for item in ast.iter_child_nodes(node):
            if isinstance(item, ast.AsyncFunctionDef) and not _is_generator(item):
                (methods if isinstance(node, ast.ClassDef) else functions).add(item.name)
    return functions, methods


def _is_generator(function: ast.AsyncFunctionDef) -> bool:
    pending: List[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


def _called_coroutine(call: ast.Call, functions: Set[str], methods: Set[str]) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Name) and func.id in functions:
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and func.attr in methods
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
    ):
        return f"{func.value.id}.{func.attr}"
    return None


def _excused_calls(plan: Plan) -> Set[int]:
    """Calls that are awaited, or inside the arguments of a call into an async library or of a
    scheduling method (those spots are already rewritten or flagged)."""
    excused: Set[int] = set()
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.Await):
            excused.add(id(node.value))
        elif isinstance(node, ast.Call):
            qualified = plan.qualify(node.func) or ""
            spawning = isinstance(node.func, ast.Attribute) and node.func.attr in SPAWNING_METHODS
            if async_library(qualified) is not None or spawning:
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    excused.update(id(inner) for inner in ast.walk(argument))
    return excused


def _statement_of(plan: Plan, node: ast.AST) -> ast.AST:
    current = node
    while not isinstance(current, ast.stmt):
        current = plan.parents[id(current)]
    return current
