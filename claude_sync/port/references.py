"""Every use of an async library name, rewritten or flagged by the rules of ``rules``.

One walk over the module. A name chain (``asyncio.sleep``, ``aio.Queue``, ``sleep`` after
``from asyncio import sleep``) is resolved through the module's imports to a qualified name and
handled as a whole: at a call (where the arguments decide, e.g. ``asyncio.run(main())`` ->
``main()``), as a subscript (``Awaitable[T]`` -> ``T``), as a decorator or ``pytestmark``
entry (``pytest.mark.anyio`` removed), or anywhere else (renamed or flagged). Method names that
exist only on async objects (``assert_awaited_once``, ``aclose``, ``__aenter__``…) and the
async builtins (``anext``, ``aiter``, ``StopAsyncIteration``) are renamed too.

Names of the official SDK are ``official``'s business; this walk skips them.

Pure: no I/O.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Set, Tuple, Union

from .plan import Plan, is_primary
from .rules import (
    ATTRIBUTE_RENAMES,
    BUILTIN_RENAMES,
    GENERATOR_TARGETS,
    SUBSCRIPT_UNWRAP,
    Rule,
    async_library,
    generic_advice,
    rule_for,
)

__all__ = ["port_references"]

Element = Union[ast.expr, ast.keyword]


def port_references(plan: Plan) -> None:
    """Rewrite or flag every async-library reference in ``plan.tree``."""
    _Walker(plan).visit(plan.tree)


class _Walker:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.source = plan.source
        self.skip: Set[int] = set()
        """ids of decorators already handled (removed marks)."""

    # -- the walk

    def visit(self, node: ast.AST) -> None:
        if id(node) in self.skip or id(node) in self.plan.claimed:
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._decorators(node)
        elif isinstance(node, ast.Assign) and self._pytestmark(node):
            return
        elif isinstance(node, ast.Call) and self._call(node):
            return
        elif isinstance(node, ast.Subscript) and self._subscript(node):
            return
        elif isinstance(node, (ast.Name, ast.Attribute)) and self._reference(node):
            return
        elif isinstance(node, ast.Name):
            self._builtin(node)
        if isinstance(node, ast.Attribute):
            self._attribute_rename(node)
        for child in ast.iter_child_nodes(node):
            self.visit(child)

    def _visit_all(self, nodes: Sequence[ast.AST]) -> None:
        for node in nodes:
            self.visit(node)

    # -- name chains anywhere

    def _rule(self, node: ast.AST) -> Optional[Tuple[str, Optional[Rule]]]:
        """``(qualified, rule or None)`` for an async-library chain, else None."""
        qualified = self.plan.qualify(node)
        if qualified is None:
            return None
        rule = rule_for(qualified)
        if rule is not None:
            return qualified, rule
        if async_library(qualified) is not None:
            return qualified, None
        return None

    def _reference(self, node: Union[ast.Name, ast.Attribute]) -> bool:
        found = self._rule(node)
        if found is None:
            return False
        qualified, rule = found
        if rule is None:
            if isinstance(node, ast.Attribute) and self._rule(node.value) is not None:
                return False  # report the shortest chain that is a name of the library
            self.plan.flag(node, generic_advice(qualified))
            return True
        if rule.action == "rename" and qualified not in SUBSCRIPT_UNWRAP:
            self._rename(node, qualified, rule)
        elif rule.action == "remove_mark":
            self.plan.flag(node, f"{qualified}: remove this mark ({rule.advice})")
        else:
            self.plan.flag(node, f"{qualified}: {rule.advice}")
        return True

    def _rename(self, node: ast.expr, qualified: str, rule: Rule) -> bool:
        assert rule.target is not None
        spelled = self.plan.spell(rule.target, prefer_from=isinstance(node, ast.Name))
        if spelled is None:
            self.plan.flag(node, f"{qualified} -> {rule.advice} (rename by hand: that name is taken here)")
            return False
        start, end = self.source.span(node)
        self.plan.edit(start, end, spelled)
        root = self.plan.root_name(node)
        if root is None or spelled.split(".")[0] != root.id:
            self.plan.note_use_replaced(node)  # else the new text still uses the same import
        self.plan.rewrote(node, f"{qualified} -> {spelled}")
        return True

    # -- calls

    def _call(self, call: ast.Call) -> bool:
        found = self._rule(call.func)
        if found is None:
            return False
        qualified, rule = found
        if rule is None:
            return False
        dropped: List[ast.keyword] = []
        if rule.action == "unwrap_run":
            dropped = self._unwrap_run(call, qualified)
        elif rule.action == "unwrap_thread":
            dropped = self._unwrap_thread(call, qualified, rule)
        elif rule.action == "rename":
            problem = _shape_problem(call, rule)
            if problem is None:
                self._rename(call.func, qualified, rule)
            else:
                self.plan.flag(call, f"{qualified} {problem}: write {rule.advice} by hand")
        elif rule.action == "remove_mark":
            return False
        elif qualified == "asyncio.wait_for" and call.args and isinstance(call.args[0], ast.Call):
            start, end = self.source.span(call.args[0])
            inner = " ".join(self.source.text[start:end].split())
            inner = inner if len(inner) <= 60 else inner[:57] + "…"
            self.plan.flag(
                call,
                f"{qualified}(…): after the port `{inner}` runs to the end before wait_for is "
                f"called, and wait_for gets its value, not an awaitable (a TypeError): write "
                f"`{inner}` alone, and to keep a limit {rule.advice}",
            )
        else:
            self.plan.flag(call, f"{qualified}(…): {rule.advice}")
        for keyword in dropped:
            self.plan.remove_names_in(keyword)  # its text is gone: nothing in it to port
        self._visit_all([a for a in [*call.args, *call.keywords] if a not in dropped])
        return True

    def _unwrap_run(self, call: ast.Call, qualified: str) -> List[ast.keyword]:
        """``asyncio.run(main())`` -> ``main()``; ``anyio.run(f, a)`` / ``trio.run(f, a)`` ->
        ``f(a)`` (the event loop's keyword options go with the loop). Returns the keywords
        dropped."""
        positional = list(call.args)
        if not positional or isinstance(positional[0], ast.Starred) or _keywords_among(call, positional):
            self.plan.flag(call, f"{qualified}(…): call the function directly")
            return []
        start, end = self.source.span(call)
        first = positional[0]
        first_start, first_end = self.source.span(first)
        wrap = not is_primary(first, self.source)
        self.plan.edit(start, first_start, "(" if wrap else "")
        if qualified == "asyncio.run":
            self.plan.edit(first_end, end, ")" if wrap else "")
        elif len(positional) == 1:
            self.plan.edit(first_end, end, ")()" if wrap else "()")
        else:
            self.plan.edit(first_end, self.source.span(positional[1])[0], ")(" if wrap else "(")
            self.plan.edit(self.source.span(positional[-1])[1], end, ")")
        self.plan.note_use_replaced(call.func)
        self.plan.remove_names_in(call.func)
        self.plan.rewrote(call, f"{qualified}(…) -> a direct call")
        return list(call.keywords)

    def _unwrap_thread(self, call: ast.Call, qualified: str, rule: Rule) -> List[ast.keyword]:
        """``asyncio.to_thread(f, *a, **k)`` / ``anyio.to_thread.run_sync(f, *a)`` -> ``f(…)``.
        Returns the keywords dropped (the worker-thread options)."""
        if not call.args or isinstance(call.args[0], ast.Starred):
            self.plan.flag(call, f"{qualified}(…): {rule.advice}")
            return []
        dropped = [k for k in call.keywords if rule.keywords is not None and k.arg in rule.keywords]
        unknown = [k for k in call.keywords if rule.keywords is not None and k.arg not in rule.keywords]
        if unknown:
            names = ", ".join(str(k.arg) for k in unknown)
            self.plan.flag(call, f"{qualified}(…, {names}=…): {rule.advice}")
            return []
        function = call.args[0]
        elements: List[Element] = sorted([*call.args[1:], *call.keywords], key=lambda n: self.source.span(n)[0])
        kept = [e for e in elements if e not in dropped]
        start, end = self.source.span(call)
        function_start, function_end = self.source.span(function)
        wrap = not is_primary(function, self.source)
        self.plan.edit(start, function_start, "(" if wrap else "")
        close = ")" if wrap else ""
        if not kept:
            self.plan.edit(function_end, end, close + "()")
        else:
            self.plan.edit(function_end, self.source.span(kept[0])[0], close + "(")
            previous_end = self.source.span(kept[0])[1]
            for element in elements[elements.index(kept[0]) + 1 :]:
                element_start, element_end = self.source.span(element)
                if element in dropped:
                    self.plan.edit(previous_end, element_end)
                previous_end = element_end
        self.plan.note_use_replaced(call.func)
        self.plan.remove_names_in(call.func)
        self.plan.rewrote(call, f"{qualified}(f, …) -> f(…)")
        return dropped

    # -- subscripts (annotations)

    def _subscript(self, node: ast.Subscript) -> bool:
        qualified = self.plan.qualify(node.value)
        if qualified in SUBSCRIPT_UNWRAP:
            return self._unwrap_subscript(node, qualified)
        found = self._rule(node.value)
        if found is None or found[1] is None or found[1].target not in GENERATOR_TARGETS:
            return False
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(elements) != 2:
            self.plan.flag(node, f"{qualified}[…]: write Generator[Yield, Send, None] by hand")
            return True
        if self._rename(node.value, found[0], found[1]):
            last_end = self.source.span(elements[-1])[1]
            self.plan.edit(last_end, last_end, ", None")
        self.visit(node.slice)
        return True

    def _unwrap_subscript(self, node: ast.Subscript, qualified: str) -> bool:
        """``Awaitable[T]`` -> ``T``, ``Coroutine[A, B, T]`` -> ``T``."""
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        keep = SUBSCRIPT_UNWRAP[qualified]
        if keep >= len(elements):
            self.plan.flag(node, f"{qualified}[…]: write the awaited type by hand")
            return True
        start, end = self.source.span(node)
        kept_start, kept_end = self.source.span(elements[keep])
        self.plan.edit(start, kept_start)
        self.plan.edit(kept_end, end)
        for index, element in enumerate(elements):
            if index != keep:
                self.plan.remove_names_in(element)
        self.plan.note_use_replaced(node.value)
        self.plan.remove_names_in(node.value)
        self.plan.rewrote(node, f"{qualified}[…] -> the awaited type")
        self.visit(elements[keep])
        return True

    # -- pytest marks

    def _is_mark(self, node: ast.expr) -> bool:
        target = node.func if isinstance(node, ast.Call) else node
        found = self._rule(target)
        return found is not None and found[1] is not None and found[1].action == "remove_mark"

    def _decorators(self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]) -> None:
        for decorator in node.decorator_list:
            if not self._is_mark(decorator):
                continue
            start, end = self.source.span(decorator)
            at = self.source.text.rfind("@", 0, start)
            if self.source.only_blank_before(at) and self.source.rest_is_blank_or_comment(end):
                self.plan.edit(self.source.line_start(at), self.source.line_end(end))
                self.plan.remove_names_in(decorator)
                self.plan.note_use_replaced(decorator.func if isinstance(decorator, ast.Call) else decorator)
                self.plan.rewrote(decorator, "async test mark removed")
            else:
                self.plan.flag(decorator, "remove this async test mark by hand")
            self.skip.add(id(decorator))

    def _pytestmark(self, node: ast.Assign) -> bool:
        """``pytestmark = pytest.mark.anyio`` (or a list holding it): the async marks go."""
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "pytestmark"):
            return False
        value = node.value
        if self._is_mark(value):
            start, end = self.source.span(node)
            if self.source.only_blank_before(start) and self.source.rest_is_blank_or_comment(end):
                self.plan.edit(self.source.line_start(start), self.source.line_end(end))
                self.plan.remove_names_in(node)
                self.plan.note_use_replaced(value.func if isinstance(value, ast.Call) else value)
                self.plan.removed_statements.add(id(node))
                self.plan.rewrote(node, "async test mark removed")
                return True
            return False
        if not isinstance(value, (ast.List, ast.Tuple)) or not any(self._is_mark(e) for e in value.elts):
            return False
        marks = [i for i, e in enumerate(value.elts) if self._is_mark(e)]
        if len(marks) == len(value.elts):
            self.plan.flag(node, "pytestmark holds only async marks: delete it")
            return False
        for index in marks:
            element = value.elts[index]
            start, end = self.source.span(element)
            later = [i for i in range(index + 1, len(value.elts)) if i not in marks]
            if later:
                self.plan.edit(start, self.source.span(value.elts[later[0]])[0])
            else:
                earlier = max(i for i in range(index) if i not in marks)
                self.plan.edit(self.source.span(value.elts[earlier])[1], end)
            self.plan.remove_names_in(element)
            self.plan.note_use_replaced(element.func if isinstance(element, ast.Call) else element)
        self.plan.rewrote(node, "async test marks removed")
        self._visit_all([e for i, e in enumerate(value.elts) if i not in marks])
        return True

    # -- renames by name alone

    def _attribute_rename(self, node: ast.Attribute) -> None:
        new = ATTRIBUTE_RENAMES.get(node.attr)
        if new is None or self.plan.qualify(node) is not None:
            return
        end = self.source.span(node)[1]
        self.plan.edit(end - len(node.attr), end, new)
        self.plan.rewrote(node, f".{node.attr} -> .{new}")

    def _builtin(self, node: ast.Name) -> None:
        new = BUILTIN_RENAMES.get(node.id)
        if new is None or node.id in self.plan.bound_names:
            return
        start, end = self.source.span(node)
        self.plan.edit(start, end, new)
        self.plan.rewrote(node, f"{node.id} -> {new}")


def _keywords_among(call: ast.Call, positional: Sequence[ast.expr]) -> bool:
    """True when a keyword argument is written between positional ones (then the
    positional/keyword split the unwraps rely on does not hold)."""
    if not call.keywords or len(positional) < 2:
        return False
    last = positional[-1]
    return any((k.lineno, k.col_offset) < (last.lineno, last.col_offset) for k in call.keywords)


def _shape_problem(call: ast.Call, rule: Rule) -> Optional[str]:
    """Why a call cannot be renamed as it is written, else None."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return "with * or ** arguments"
    if rule.max_positional is not None and len(call.args) > rule.max_positional:
        return f"with {len(call.args)} positional arguments"
    if rule.keywords is not None:
        extra = [str(k.arg) for k in call.keywords if k.arg not in rule.keywords]
        if extra:
            return f"with {', '.join(extra)}="
    return None
