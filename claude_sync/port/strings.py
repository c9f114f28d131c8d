"""Strings that name the official SDK: rewritten where they are module paths, flagged elsewhere.

A string is rewritten only where Python reads it as a module path:

* the target of ``patch(…)`` / ``mock.patch(…)`` / ``mocker.patch(…)`` / ``monkeypatch.setattr(…)``
  / ``monkeypatch.delattr(…)``, of ``importlib.import_module``, ``__import__``,
  ``importlib.util.find_spec``, ``pkgutil.resolve_name`` (``"module:attr"`` too), of ``sys.modules[…]``
  and ``sys.modules.get/pop(…)``;
* wrapt's targets, both forms: ``wrap_function_wrapper("module", "Class.method", w)`` (the
  module, also as ``module=``) and ``"module:attr"`` strings given to ``resolve_name``; the
  module of ``when_imported``, ``register_post_import_hook``, ``patch_function_wrapper``,
  ``resolve_path``, ``wrap_object``, ``wrap_object_attribute``, ``transient_function_wrapper``;
* an entry point it can see: ``"name = module:attr"`` in a ``setup(entry_points=…)`` call (the
  module part only; the entry point's name is flagged when it names the official SDK).

The path maps module by module (``claude_agent_sdk.client.ClaudeSDKClient.connect`` ->
``claude_sync.client.ClaudeSDKClient.connect``); a private module, a private attribute or a name
claude_sync lacks is flagged and left. Every other string that holds the official package or
distribution name (``"claude_agent_sdk"`` sent as a provider id, ``"claude-agent-sdk>=0.1.45"``
read by an instrumentor) is flagged, never rewritten; a string that is Python source importing
the official package (``"import claude_agent_sdk"`` given to ``exec`` or ``python -c``, a code
template a test writes to a file) is flagged as code to port too. Docstrings are not flagged.

Pure: no I/O (the name oracle is the caller's).
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Optional, Set

from .official import private_module_advice
from .plan import Plan
from .rules import OFFICIAL_DISTRIBUTIONS, OFFICIAL_PACKAGES, OFFICIAL_PUBLIC_MODULES

__all__ = ["map_path", "port_strings"]

_PATH = "path"
_ENTRY = "entry"
_ENTRY_POINT = re.compile(r"^(?P<name>[^=]+?)\s*=\s*(?P<module>[A-Za-z_][\w.]*)(?P<rest>\s*(:.*)?)$", re.S)
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)?")
_OFFICIAL = re.compile(
    r"(?<![\w.-])(%s)(?!\w|-\w)" % "|".join(re.escape(name) for name in (*OFFICIAL_PACKAGES, *OFFICIAL_DISTRIBUTIONS)),
    re.IGNORECASE,
)
"""The official package or distribution name as a name of its own: not the tail of a longer one
(``langchain_claude_agent_sdk``, ``hindsight-claude-agent-sdk``, ``opentelemetry.instrumentation.claude_agent_sdk``
name a library built on it) nor its head (``claude_agent_sdk_extras``)."""
_CODE_IMPORT = re.compile(
    r"(?:^|;)[ \t]*(?:from[ \t]+(?P<from>%(names)s)(?:\.[\w.]+)?[ \t]+import\b|import[ \t]+(?P<import>%(names)s)\b)"
    % {"names": "|".join(re.escape(name) for name in OFFICIAL_PACKAGES)},
    re.MULTILINE,
)
"""An ``import`` statement of the official package inside a string: Python source that runs
elsewhere (``exec``, ``python -c``, a file a test writes from a template)."""
_REQUIREMENT = re.compile(
    r"^\s*(%s)\s*(\[[^\]]*\])?\s*((==|>=|<=|~=|!=|<|>)[^,;]*(,\s*(==|>=|<=|~=|!=|<|>)[^,;]*)*)?\s*(;.*)?$"
    % "|".join("[-_.]".join(n.split("-")) for n in OFFICIAL_DISTRIBUTIONS),
    re.IGNORECASE,
)

_FIRST_ARG_PATHS = frozenset(
    {"patch", "import_module", "__import__", "find_spec", "resolve_name", "when_imported",
     "patch_function_wrapper", "wrap_function_wrapper", "resolve_path", "wrap_object",
     "wrap_object_attribute", "transient_function_wrapper"}
)  # fmt: skip
"""Callees (the last part of the called name) whose first argument is a module path."""
_PATH_KEYWORDS = {"patch": "target", "setattr": "target", "delattr": "target", "import_module": "name",
                  "__import__": "name", "find_spec": "name", "resolve_name": "name", "when_imported": "name",
                  "register_post_import_hook": "name"}  # fmt: skip
"""Callee -> the keyword that passes its module path (wrapt's wrappers: ``module``)."""


def port_strings(plan: Plan) -> None:
    """Rewrite the module-path strings that name the official SDK; flag the other strings that
    name its package or distribution (see the module docstring)."""
    contexts = _path_contexts(plan.tree)
    docstrings = _docstrings(plan.tree)
    for node in ast.walk(plan.tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        if not _OFFICIAL.search(node.value):
            continue
        kind = contexts.get(id(node))
        if kind == _PATH and _DOTTED.fullmatch(node.value):
            _port_path(plan, node, node.value)
        elif kind == _ENTRY:
            _port_entry_point(plan, node)
        else:
            _flag_mention(plan, node)


def map_path(plan: Plan, value: str) -> Optional[str]:
    """``claude_agent_sdk[.client|.query|.types|.testing][.Name…][:attr…]`` -> the claude_sync
    path; None for a private module or attribute, or a first name claude_sync lacks."""
    module_part, colon, attrs_part = value.partition(":")
    parts = module_part.split(".")
    if parts[0] not in OFFICIAL_PACKAGES:
        return None
    depth = 1
    for end in range(len(parts), 1, -1):
        if ".".join(parts[1:end]) in OFFICIAL_PUBLIC_MODULES:
            depth = end
            break
    module = OFFICIAL_PUBLIC_MODULES[".".join(parts[1:depth])]
    attrs = parts[depth:] + (attrs_part.split(".") if colon else [])
    if colon and depth < len(parts):
        return None  # "package.private_module:attr"
    if any(a.startswith("_") and not a.startswith("__") for a in attrs):
        return None
    if attrs and plan.exists is not None and not plan.exists(module, attrs[0]):
        return None
    if colon:
        return f"{module}:{attrs_part}"
    return ".".join([module, *attrs])


def _port_path(plan: Plan, node: ast.Constant, value: str) -> None:
    mapped = map_path(plan, value)
    module_parts = value.split(":")[0].split(".")
    if mapped is None and len(module_parts) > 1 and module_parts[1].startswith("_"):
        plan.flag(node, f"{value!r}: " + private_module_advice(".".join(module_parts)))
        return
    if mapped is None:
        plan.flag(
            node,
            f"{value!r} names a private part of the official SDK or a name claude_sync lacks: left as "
            "it is; patch or import the claude_sync object your code actually calls (a transport: "
            "pass transport=…), or drop this line",
        )
        return
    _replace_in(plan, node, value, mapped)


def _port_entry_point(plan: Plan, node: ast.Constant) -> None:
    value = node.value
    assert isinstance(value, str)
    match = _ENTRY_POINT.match(value)
    if match is None or match.group("module").split(".")[0] not in OFFICIAL_PACKAGES:
        _flag_mention(plan, node)
        return
    if _OFFICIAL.search(match.group("name")):
        _flag_mention(plan, node)
    module = match.group("module") + (match.group("rest") or "").split("[")[0].strip()
    mapped = map_path(plan, module)
    if mapped is None:
        _port_path(plan, node, module)
        return
    _replace_in(plan, node, module, mapped)


def _replace_in(plan: Plan, node: ast.Constant, old: str, new: str) -> None:
    start, end = plan.source.span(node)
    text = plan.source.text[start:end]
    if text.count(old) != 1:
        plan.flag(node, f"write {new!r} for {old!r} by hand (the string is split or escaped)")
        return
    at = start + text.index(old)
    plan.edit(at, at + len(old), new)
    plan.rewrote(node, f"{old!r} -> {new!r}")


def _flag_mention(plan: Plan, node: ast.Constant) -> None:
    value = node.value
    assert isinstance(value, str)
    shown = value if len(value) <= 60 else value[:57] + "…"
    code = _CODE_IMPORT.search(value)
    if code is not None:
        package = code.group("from") or code.group("import")
        plan.flag(
            node,
            f"{shown!r}: this string is Python code that imports {package}: port it too (it runs "
            "elsewhere — exec, python -c, a file written from it — where this port does not reach: "
            "save it as a .py file, run python -m claude_sync.port -w on that file and put the "
            "result back here); left as it is",
        )
    elif (
        _REQUIREMENT.match(value)
        and value.strip() not in OFFICIAL_PACKAGES  # a bare import name: a mention
        and (_has_specifier(value) or _read_as_requirement(plan, node))
    ):
        plan.flag(
            node,
            f"{shown!r} requires the official distribution, which a claude_sync port does not "
            "install: a check on it (an OpenTelemetry instrumentor's instrumentation_dependencies(), "
            "importlib.metadata.version, a plugin's requires) finds it missing and silently does "
            "nothing; require 'claude-sync' here, or drop the check",
        )
    else:
        plan.flag(
            node,
            f"{shown!r} names the official SDK in a string that is not a module path (an id, a "
            "name sent elsewhere, a message): left as it is; write claude_sync's name here by hand "
            "if it should name the package you now use",
        )


REQUIREMENT_READERS = frozenset(
    {"version", "distribution", "metadata", "requires", "files", "get_distribution", "require",
     "Requirement", "parse_requirements"}
)  # fmt: skip
"""Callees (the last part of the called name) that read a distribution name as a requirement."""


def _has_specifier(value: str) -> bool:
    return any(mark in value for mark in "<>=!~[;")


def _read_as_requirement(plan: Plan, node: ast.Constant) -> bool:
    """A bare distribution name where something reads it as one: the argument of
    ``importlib.metadata.version(…)`` and friends, or returned by a function (an
    instrumentor's ``instrumentation_dependencies()``)."""
    parent = plan.parents.get(id(node))
    while isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        parent = plan.parents.get(id(parent))
    if isinstance(parent, ast.Call):
        return _last_name(parent.func) in REQUIREMENT_READERS
    return isinstance(parent, (ast.Return, ast.Assign, ast.AnnAssign, ast.keyword))


def _path_contexts(tree: ast.Module) -> Dict[int, str]:
    """id(string node) -> ``_PATH`` or ``_ENTRY`` for the strings Python reads as module paths."""
    found: Dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call_contexts(node, found)
        elif isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
            index = node.slice.value if isinstance(node.slice, ast.Index) else node.slice  # type: ignore[attr-defined]
            if isinstance(index, ast.Constant):
                found[id(index)] = _PATH
    return found


def _call_contexts(call: ast.Call, found: Dict[int, str]) -> None:
    callee = _last_name(call.func)
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    first_is_path = callee in _FIRST_ARG_PATHS or (
        callee in ("setattr", "delattr") and owner is not None and _last_name(owner) == "monkeypatch"
    ) or (callee in ("get", "pop") and owner is not None and _is_sys_modules(owner))
    if first_is_path and call.args:
        found[id(call.args[0])] = _PATH
    if callee == "register_post_import_hook" and len(call.args) > 1:
        found[id(call.args[1])] = _PATH
    path_keyword = _PATH_KEYWORDS.get(callee or "", "module")
    for keyword in call.keywords:
        if (first_is_path or callee == "register_post_import_hook") and keyword.arg == path_keyword:
            found[id(keyword.value)] = _PATH
        elif keyword.arg == "entry_points" and callee == "setup":
            for inner in ast.walk(keyword.value):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and "=" in inner.value:
                    found[id(inner)] = _ENTRY


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_sys_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys"


def _docstrings(tree: ast.Module) -> Set[int]:
    """ids of string statements (docstrings and bare string expressions): text, not values."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
