"""How a claude_sync error reads in IPython and Jupyter (pure: no threads, no I/O).

IPython asks an exception for the lines of its traceback through ``_render_traceback_()``
when it has one (the hook ipyparallel uses for its remote errors); ``ClaudeSDKError`` answers
with ``short_traceback(self)``: the caller's own frames only (the cell line that called
claude_sync, the user's functions on the way), then the error's text once — its hint
included — and one line saying how many frames inside claude_sync and the standard library
were left out and how to see them (IPython's own frame is left out as IPython does). Nothing is lost: ``%tb verbose`` (or
``%xmode Verbose``) gives IPython's whole traceback, ``%xmode Minimal`` its last line only,
and ``%debug`` works on the real traceback as always.

IPython is only looked at when it is already imported (``sys.modules``); nothing here
imports it.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import sysconfig
import traceback
from types import TracebackType
from typing import Any, List, Optional, Tuple

__all__ = ["short_traceback"]

_RULE = "-" * 75


def _folder(path: str) -> str:
    return os.path.abspath(path).rstrip(os.sep) + os.sep


@functools.lru_cache(maxsize=1)
def _folders() -> Tuple[Tuple[str, ...], Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]:
    """``(ours, shell, packages, stdlib)``: claude_sync; IPython and ipykernel (the frame
    that runs the cell, which IPython's own tracebacks leave out too); site-packages
    (third-party code: shown, e.g. Flask's); the standard library (site-packages may lie
    inside it). Read at the first error shown: IPython is loaded by then."""
    ours = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    shell = [
        os.path.dirname(where)
        for where in (getattr(sys.modules.get(name), "__file__", None) for name in ("IPython", "ipykernel"))
        if where
    ]
    paths = sysconfig.get_paths()
    packages = [paths[key] for key in ("purelib", "platlib") if paths.get(key)]
    stdlib = [paths[key] for key in ("stdlib", "platstdlib") if paths.get(key)]
    return tuple(map(_folder, ours)), tuple(map(_folder, shell)), tuple(map(_folder, packages)), tuple(map(_folder, stdlib))


def _kind(filename: str) -> str:
    """``user`` (shown), ``library`` (claude_sync, the stdlib: counted as left out) or
    ``shell`` (IPython's own: left out silently)."""
    if not filename or filename.startswith("<"):
        return "user"  # <string>, <stdin>: code the user typed
    path = os.path.abspath(filename)
    ours, shell, packages, stdlib = _folders()
    if path.startswith(ours):
        return "library"
    if path.startswith(shell):
        return "shell"
    return "library" if path.startswith(stdlib) and not path.startswith(packages) else "user"


def _shell() -> Any:
    """The running IPython shell, if IPython is loaded and one runs; else None."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if callable(get) else None


def _where(shell: Any, filename: str, lineno: int, name: str) -> str:
    """``Cell In[4], line 2`` for a notebook cell (``…, in ask`` inside a function),
    ``File /x/app.py:12, in ask`` for a file."""
    formatted = None
    code_name = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if callable(code_name):
        try:
            formatted = code_name(filename)
        except Exception:  # noqa: BLE001 - IPython's private naming: the path will do
            formatted = None
    inside = "" if name == "<module>" else f", in {name}"
    if formatted:
        label, cell = formatted
        return f"{label} {cell}, line {lineno}{inside}"
    return f"File {filename}:{lineno}{inside}"


def _frames(tb: Optional[TracebackType]) -> Tuple[List[Tuple[str, int, str]], int]:
    """The user's frames ``(filename, lineno, name)`` of ``tb`` and how many library frames
    were left out; the last frame is kept when none is the user's (something must say where)."""
    shown: List[Tuple[str, int, str]] = []
    hidden = 0
    last: Optional[Tuple[str, int, str]] = None
    while tb is not None:
        code = tb.tb_frame.f_code
        frame = (code.co_filename, tb.tb_lineno, code.co_name)
        last = frame
        kind = _kind(frame[0])
        if kind == "user":
            shown.append(frame)
        elif kind == "library":
            hidden += 1
        tb = tb.tb_next
    if not shown and last is not None:
        shown.append(last)
        if _kind(last[0]) == "library":
            hidden -= 1
    return shown, hidden


def _origin(exc: BaseException) -> List[str]:
    """One line for the error this one was raised from (or while handling), if any."""
    cause = exc.__cause__
    if cause is None and not exc.__suppress_context__:
        cause = exc.__context__
    if cause is None:
        return []
    first = (str(cause).splitlines() or [""])[0]
    verb = "raised from" if exc.__cause__ is not None else "while handling"
    return [f"({verb} {type(cause).__name__}: {first})" if first else f"({verb} {type(cause).__name__})"]


def short_traceback(exc: BaseException) -> List[str]:
    """The traceback lines IPython shows for ``exc`` (see the module docstring). Never raises:
    whatever goes wrong, the standard library's full traceback is returned instead."""
    try:
        shell = _shell()
        itb = getattr(shell, "InteractiveTB", None)
        mode = getattr(itb, "mode", None)
        if itb is not None and mode == "Verbose":
            return list(itb.structured_traceback(type(exc), exc, exc.__traceback__))
        name = type(exc).__name__
        if mode == "Minimal":
            return [f"{name}: {exc}"]
        frames, hidden = _frames(exc.__traceback__)
        lines = [_RULE, f"{name:<42}Traceback (most recent call last)"]
        for filename, lineno, function in frames:
            source = linecache.getline(filename, lineno).strip()
            lines.append(_where(shell, filename, lineno, function))
            lines.append(f"----> {lineno} {source}" if source else f"----> {lineno}")
            lines.append("")
        lines.append(f"{name}: {exc}")
        lines.extend(_origin(exc))
        if hidden > 0:
            lines.append(f"({hidden} frame{'s' if hidden != 1 else ''} inside claude_sync and the standard "
                         "library not shown: %tb verbose shows them)")
        return lines
    except Exception:  # noqa: BLE001 - a traceback renderer must not fail the traceback
        return traceback.format_exception(type(exc), exc, exc.__traceback__)
