"""Whether a path rule (``Read(~/.ssh/*)``, ``Edit(src/**)``) names a call, failing closed (pure).

The CLI hands tools absolute paths; a rule's pattern is resolved as the CLI documents it
(gitignore-style): ``//abs/path`` from the filesystem root; ``~/path`` from the home
directory; ``./path``, ``../path`` and ``dir/path`` from the session's ``cwd``; a bare name
without ``/`` (``.env``, ``*.pem``) at any depth under ``cwd``. A single leading slash
(``/etc/*``) means "relative to the settings file" to the CLI, which an approval rule does not
have: it is read **both** ways, the absolute ``/etc/*`` and ``<cwd>/etc/*``. ``*`` matches
within one path part, ``**`` across parts, and a match on a directory covers what is inside it.

Letter case does not count (``/Users/me/.SSH/id_rsa`` is ``~/.ssh/id_rsa`` on a macOS or
Windows disk, which a rule cannot tell from a Linux one). Failing closed: with ``cwd`` unknown
a relative pattern matches at any depth; with no home known, ``~`` stands for any directory;
the call's path is normalised (``..`` and ``.`` collapsed) and, when it is not absolute, joined
to ``cwd`` (unknown → matches). A search
(``Glob``, ``Grep``, ``LS``) matches when its root is inside the pattern's area or the area is
inside its root. A call with no path or a non-``str`` one matches.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Any, FrozenSet, List, Mapping, Optional, Pattern, Sequence, Tuple

__all__ = ["PATH_RULE_TOOLS", "path_pattern_problem", "path_rule_matches", "path_rule_tools"]

_READERS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
_EDITORS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_SEARCHES = frozenset({"Glob", "Grep", "LS"})
PATH_RULE_TOOLS = _READERS | _EDITORS
"""Tools whose rules name paths."""
_PATH_KEYS = ("file_path", "notebook_path", "path")
_MAGIC = re.compile(r"[*?\[]")


def path_rule_tools(rule_tool: str) -> FrozenSet[str]:
    """The tools a path rule of ``rule_tool`` covers: a ``Read`` rule every tool that reads a
    file (editing tools read it too), an ``Edit``/``Write`` rule every tool that edits one."""
    return PATH_RULE_TOOLS if rule_tool in _READERS else _EDITORS if rule_tool in _EDITORS else frozenset({rule_tool})


def path_pattern_problem(pattern: str) -> Optional[str]:
    """Why a path pattern can never match (None: it can)."""
    if pattern.startswith("domain:"):
        return "'domain:' belongs to WebFetch rules; path rules take a path pattern"
    if re.match(r"~[^/]", pattern):
        return "'~user/' is not expanded in rules: write the absolute path as '//home/user/…'"
    if "\\" in pattern:
        return "backslashes never appear in the paths the CLI hands tools; use '/'"
    return None


def path_rule_matches(
    pattern: str, tool_name: str, tool_input: Mapping[str, Any], cwd: Optional[str], homes: Sequence[str]
) -> bool:
    """Whether the call's path falls under ``pattern`` (see the module docstring). Never raises."""
    cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") and "\x00" not in cwd else None
    homes = tuple(h for h in homes if isinstance(h, str) and h.startswith("/") and "\x00" not in h)
    paths = _call_paths(tool_name, tool_input, cwd, homes)
    if paths is None:
        return True
    regexes, bases = _compiled(pattern, cwd, homes)
    for path in paths:
        if any(regex.fullmatch(path) for regex in regexes):
            return True
        if tool_name in _SEARCHES and any(base is None or _inside(base, path) for base in bases):
            return True
    return False


def _call_paths(
    tool_name: str, tool_input: Mapping[str, Any], cwd: Optional[str], homes: Sequence[str]
) -> Optional[List[str]]:
    """The call's absolute, normalised paths (None: unknown, so the rule matches). A path
    starting with ``~`` is read from each home as well as from ``cwd`` (a tool may expand it)."""
    raw = [tool_input[key] for key in _PATH_KEYS if key in tool_input]
    if tool_name == "Glob" and isinstance(tool_input.get("pattern"), str) and tool_input["pattern"].startswith("/"):
        raw.append(_MAGIC.split(tool_input["pattern"], 1)[0].rsplit("/", 1)[0] or "/")
    if not raw:
        if tool_name not in _SEARCHES or cwd is None:
            return None
        raw = [cwd]
    out = []
    for value in raw:
        if not isinstance(value, str) or not value or "\x00" in value or _has_surrogate(value):
            return None
        if value == "~" or value.startswith("~/"):
            if not homes:
                return None
            out += [_normal(home + value[1:]) for home in homes]
        if not value.startswith("/"):
            if cwd is None:
                return None
            value = cwd + "/" + value
        out.append(_normal(value))
    return out


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _normal(path: str) -> str:
    normal = posixpath.normpath("/" + path.lstrip("/"))
    return "/" if normal == "//" else normal


def _inside(base: str, path: str) -> bool:
    """Whether one of the two paths is inside (or is) the other (letter case aside)."""
    base, path = base.casefold(), path.casefold()
    return base == path or base.startswith(path.rstrip("/") + "/") or path.startswith(base.rstrip("/") + "/")


@lru_cache(maxsize=512)
def _compiled(pattern: str, cwd: Optional[str], homes: Tuple[str, ...]) -> Tuple[Tuple[Pattern[str], ...], Tuple[Optional[str], ...]]:
    """The regex of every reading of ``pattern``, and the directory each reading's matches lie
    under (None: anywhere)."""
    readings: List[Tuple[str, str, Optional[str]]] = []  # (regex above, pattern below, base)
    if pattern.startswith("//"):
        readings.append(_absolute("/" + pattern.lstrip("/")))
    elif pattern == "~" or pattern.startswith("~/"):
        rest = pattern[1:]
        readings += [_absolute(home + rest) for home in homes] or [("(?:/.*)?", _normal("/" + rest), None)]
    elif pattern.startswith("/"):
        readings.append(_absolute(pattern))
        readings.append(_relative(pattern.lstrip("/"), cwd))
    else:
        readings.append(_relative(pattern, cwd))
    regexes = tuple(re.compile(above + _glob(below) + "(?:/.*)?", re.DOTALL | re.IGNORECASE) for above, below, _ in readings)
    return regexes, tuple(base for _, _, base in readings)


def _absolute(pattern: str) -> Tuple[str, str, Optional[str]]:
    text = _normal(pattern)
    return "", text, _literal_base(text)


def _relative(pattern: str, cwd: Optional[str]) -> Tuple[str, str, Optional[str]]:
    if cwd is None:
        text = posixpath.normpath(pattern)
        while text == ".." or text.startswith("../"):
            text = text[3:]
        return "(?:/.*)?", "/" + text if text not in ("", ".") else "", None
    if "/" not in pattern.rstrip("/"):  # a bare name: at any depth under cwd
        return re.escape(_normal(cwd).rstrip("/")) + "(?:/.*)?", "/" + pattern.rstrip("/"), _normal(cwd)
    return _absolute(cwd + "/" + pattern)


def _literal_base(text: str) -> str:
    parts = []
    for part in text.split("/")[1:]:
        if _MAGIC.search(part):
            break
        parts.append(part)
    return "/" + "/".join(parts)


def _glob(text: str) -> str:
    """A gitignore-style pattern as a regex: ``*`` within a part, ``**`` across parts."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and text.find("]", i + 2) != -1:
            end = text.find("]", i + 2)  # a ']' right after '[' is part of the set
            body = text[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)
