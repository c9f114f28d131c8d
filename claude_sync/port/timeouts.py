"""A time limit around one receive loop becomes the loop's own ``timeout=``.

``async with asyncio.timeout(t):`` (or ``anyio.fail_after(t)``, ``async_timeout.timeout(t)``)
whose whole body is one ``async for`` over ``receive_response()`` /
``receive_messages()`` (of an object the port makes a claude_sync client) or over the
official ``query(…)`` becomes that loop, dedented, with ``timeout=t``; ``anyio.move_on_after(t)``
becomes ``try:`` around it and ``except ReceiveTimeoutError: pass``. This keeps the meaning
when nothing in the loop body awaits (then the async limit, too, could only strike while the
loop waited for the next message): claude_sync's ``timeout=`` bounds the whole iteration and
raises ``ReceiveTimeoutError``, a ``TimeoutError``, leaving the session running. ``t`` must be
a literal or a plain name (evaluated once, at the same moment). Any other shape is left to
``awaits.flag_blocking_contexts`` (flagged as blocking the port).

Pure: no I/O.
"""

from __future__ import annotations

import ast
import tokenize
from typing import Optional, Set, Tuple

from .awaits import dotted_name, known_sync_names
from .plan import Plan
from .rules import OFFICIAL_PACKAGES

__all__ = ["port_timeouts"]

RAISING = frozenset({"asyncio.timeout", "anyio.fail_after", "async_timeout.timeout"})
SWALLOWING = frozenset({"anyio.move_on_after"})
RECEIVERS = frozenset({"receive_response", "receive_messages"})
ASYNC_NODES = (
    ast.Await,
    ast.AsyncFor,
    ast.AsyncWith,
    ast.Yield,
    ast.YieldFrom,
    ast.AsyncFunctionDef,
)


def port_timeouts(plan: Plan) -> None:
    """Rewrite each provable time limit around a receive loop (see the module docstring)."""
    known = known_sync_names(plan)
    for node in ast.walk(plan.tree):
        if isinstance(node, ast.AsyncWith):
            shape = _shape(plan, node, known)
            if shape is not None:
                _rewrite(plan, node, *shape)


def _shape(
    plan: Plan, node: ast.AsyncWith, known: Set[str]
) -> Optional[Tuple[str, ast.Call, ast.AsyncFor, ast.expr]]:
    if len(node.items) != 1 or node.items[0].optional_vars is not None or len(node.body) != 1:
        return None
    limit = node.items[0].context_expr
    loop = node.body[0]
    if (
        not isinstance(limit, ast.Call)
        or not isinstance(loop, ast.AsyncFor)
        or not isinstance(loop.iter, ast.Call)
    ):
        return None
    qualified = plan.qualify(limit.func)
    if qualified not in RAISING | SWALLOWING or limit.keywords or len(limit.args) != 1:
        return None
    seconds = limit.args[0]
    if not (
        isinstance(seconds, ast.Constant)
        or (isinstance(seconds, ast.Name) and plan.binding(seconds.id) is None)
    ):
        return None
    receive = loop.iter
    func = receive.func
    owner_known = (
        isinstance(func, ast.Attribute)
        and func.attr in RECEIVERS
        and dotted_name(func.value) in known
    )
    official_query = (plan.qualify(func) or "").split(".")[0] in OFFICIAL_PACKAGES and (
        plan.qualify(func) or ""
    ).endswith(".query")
    if not (owner_known or official_query):
        return None
    if any(k.arg in (None, "timeout") for k in receive.keywords) or any(
        isinstance(a, ast.Starred) for a in receive.args
    ):
        return None
    if any(
        isinstance(inner, ASYNC_NODES)
        for part in [*loop.body, *loop.orelse]
        for inner in ast.walk(part)
    ):
        return None
    if not _layout_allows(plan, node, loop):
        return None
    return qualified or "", limit, loop, seconds


def _layout_allows(plan: Plan, node: ast.AsyncWith, loop: ast.AsyncFor) -> bool:
    """The header is one line of its own, the loop is indented under it, every line of the
    loop starts with the loop's indentation (or is blank), and no string spans lines."""
    source = plan.source
    header_end = source.span(node.items[0].context_expr)[1]
    last = _last_line(loop)
    if node.items[0].context_expr.end_lineno != node.lineno or loop.lineno <= node.lineno:
        return False
    rest = source.text[header_end : source.line_end(header_end)].strip()
    if not (rest == ":" or (rest.startswith(":") and rest[1:].strip().startswith("#"))):
        return False
    outer = source.indentation(source.span(node)[0])
    inner = source.indentation(source.span(loop)[0])
    if not inner.startswith(outer) or len(inner) == len(outer):
        return False
    for number in range(loop.lineno, last + 1):
        line = source.lines[number - 1]
        if line.strip() and not line.startswith(inner):
            return False
    for token in source.tokens:
        if token.start[0] > last:
            break
        if (
            token.start[0] >= loop.lineno
            and token.start[0] != token.end[0]
            and token.type not in (tokenize.NL, tokenize.NEWLINE)
        ):
            return False
    return True


def _rewrite(
    plan: Plan,
    node: ast.AsyncWith,
    qualified: str,
    limit: ast.Call,
    loop: ast.AsyncFor,
    seconds: ast.expr,
) -> None:
    source = plan.source
    start = source.span(node)[0]
    outer = source.indentation(start)
    inner = source.indentation(source.span(loop)[0])
    extra = len(inner) - len(outer)
    seconds_text = source.text[slice(*source.span(seconds))]
    header_line_start = source.line_start(start)
    header_line_end = source.line_end(source.span(limit)[1])
    plan.kept_keywords.add(node.lineno)
    swallow = qualified in SWALLOWING
    error_name: Optional[str] = None
    if swallow:
        error_name = plan.spell("claude_sync.ReceiveTimeoutError", prefer_from=True)
        if error_name is None:
            return
        colon = source.text.index(":", source.span(limit)[1])
        plan.edit(start, colon + 1, "try:")
    else:
        plan.edit(header_line_start, header_line_end)
        for number in range(loop.lineno, _last_line(loop) + 1):
            line_start = source.offset(number, 0)
            line = source.lines[number - 1]
            blanks = len(line) - len(line.lstrip(" \t"))
            plan.edit(line_start, line_start + min(extra, blanks))
    receive = loop.iter
    assert isinstance(receive, ast.Call)
    arguments = [*receive.args, *receive.keywords]
    if arguments:
        last_end = max(source.span(a)[1] for a in arguments)
        plan.edit(last_end, last_end, f", timeout={seconds_text}")
    else:
        call_end = source.span(receive)[1]
        plan.edit(call_end - 1, call_end - 1, f"timeout={seconds_text}")
    if swallow:
        loop_end = source.line_end(source.span(loop)[1])
        ending = next(
            (e for e in ("\r\n", "\n", "\r") if source.lines[loop.lineno - 1].endswith(e)), "\n"
        )
        lead = "" if source.text[:loop_end].endswith(("\n", "\r")) else ending
        step = inner[len(outer) :]
        plan.edit(
            loop_end,
            loop_end,
            f"{lead}{outer}except {error_name}:{ending}{outer}{step}pass{ending}",
        )
    plan.note_use_replaced(limit.func)
    plan.remove_names_in(limit.func)
    plan.claimed.add(id(limit))
    plan.rewrote(node, f"{qualified}(t) around the receive loop -> its timeout=t")


def _last_line(node: ast.stmt) -> int:
    return node.end_lineno if node.end_lineno is not None else node.lineno
