"""The API reference, generated at every build: which public name goes on which page, what
counts as a public member of a public class, and the autodoc directives.

``conf.py`` writes ``_generated/api/<page>.rst`` from :func:`page_directives`; each
``api/<page>.rst`` is a hand-written introduction that includes its generated part.
``tests/package/test_docs.py`` loads this module too: it checks that every public name sits on
exactly one page, that every public method and attribute has a docstring
(:func:`undocumented_members`), and that the built site's ``objects.inv`` lists them all.

Public means: the names in ``__all__`` of :data:`SURFACES`, and, for a public class, every
method, property and attribute without a leading underscore that the class defines itself or
gets from a private base (``claude_sync._controls.ControlMethods`` …). Members
of a public base are documented with that base; members of :data:`SHARED_BASES` once, on
their own page — a class's entry names the methods and properties it inherits from either,
each linked to where it is documented (:func:`inherited_members`); members from outside claude_sync (``dict``, ``distributed.WorkerPlugin``) not
at all. Attributes (dataclass fields, ``TypedDict`` keys, class constants, ``self.x`` set in
a method) are documented in the ``Attributes:`` (or ``Keys:``) section of the public class's
own docstring (also those a private base declares), which napoleon turns into entries of the
reference.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import re
import typing
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
PACKAGE_DIR = HERE.parent / "claude_sync"

SURFACES: Tuple[str, ...] = (
    "claude_sync",
    "claude_sync.types",
    "claude_sync.testing",
    "claude_sync.testing.pytest_plugin",
    "claude_sync.integrations.dask",
    "claude_sync.port",
)
"""The public modules, in the order their names are listed. A name ``claude_sync.types``
shares with ``claude_sync`` is documented once, as ``claude_sync.<name>``."""

OPTIONAL_SURFACES: Dict[str, str] = {"claude_sync.integrations.dask": "distributed"}
"""Public modules that need an optional package (the ``dask`` extra): where it is missing,
:func:`entries` leaves the module out (``conf.py`` mocks the package for the build instead,
and ``tests/package/test_docs.py`` requires it under ``CI=true``)."""

PAGES: Tuple[Tuple[str, str], ...] = (
    ("query", "query() and ClaudeSDKClient"),
    ("options", "Options"),
    ("messages", "Messages and content blocks"),
    ("callbacks", "Callbacks: permissions, hooks, dialogs"),
    ("mcp", "MCP tools and servers"),
    ("sessions", "Sessions and session stores"),
    ("approvals", "Approvals that wait for a person"),
    ("agents", "run() and AgentPool"),
    ("structured", "Typed results"),
    ("errors", "Errors"),
    ("testing", "claude_sync.testing"),
    ("integrations", "Integrations"),
    ("display", "Display"),
    ("port", "claude_sync.port"),
)
"""``(page, title)`` of every reference page, in the order of the table of contents."""

SECTIONS: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ("query", "query()", ("claude_sync.query",)),
    ("query", "ClaudeSDKClient", ("claude_sync.client",)),
    ("query", "Answers of control requests", ("claude_sync._wire.control_results",)),
    ("query", "Whole assistant messages", ("claude_sync._wire.merge",)),
    ("query", "Transports", ("claude_sync._engine.transport",)),
    ("options", "ClaudeAgentOptions", ("claude_sync._options.options",)),
    ("options", "Code written for claude_code_sdk", ("claude_sync._options.code_options",)),
    ("options", "Settings shapes", ("claude_sync._options.config_types",)),
    ("options", "The settings the CLI merged", ("claude_sync._resolve_settings", "claude_sync._wire.settings_result")),
    ("messages", "Messages", ("claude_sync._wire.messages", "claude_sync._wire.protocol")),
    ("messages", "System messages", ("claude_sync._wire.system_messages",)),
    ("messages", "Content blocks", ("claude_sync._wire.blocks",)),
    ("messages", "Wire shapes", ("claude_sync._wire.shapes",)),
    ("messages", "Serialisation", ()),
    ("messages", "Parsing wire objects", ("claude_sync._wire.wire_parse",)),
    ("callbacks", "Permissions", ("claude_sync._callbacks.permission_types",)),
    ("callbacks", "Hooks", ("claude_sync._callbacks.hook_types",)),
    ("callbacks", "Hook inputs", (
        "claude_sync._callbacks.hook_input_base", "claude_sync._callbacks.hook_inputs",
        "claude_sync._callbacks.hook_environment_inputs",
    )),
    ("callbacks", "Hook outputs", ("claude_sync._callbacks.hook_outputs",)),
    ("callbacks", "Elicitations and user dialogs", ("claude_sync._callbacks.dialogs",)),
    ("callbacks", "When the CLI process ends", ("claude_sync._wire.process_exit", "claude_sync._engine.exit_watch")),
    ("mcp", "In-process tools", ("claude_sync._mcp.tools", "claude_sync._mcp.server", "claude_sync._mcp.annotations")),
    ("mcp", "Server configs", ()),
    ("mcp", "Server status", ()),
    ("sessions", "Transcript files", ("claude_sync._sessions.transcript_files", "claude_sync._sessions.transcript_edits", "claude_sync._sessions.archive_files")),
    ("sessions", "Session types", ("claude_sync._sessions.types", "claude_sync._sessions.summary")),
    ("sessions", "Session stores", (
        "claude_sync._sessions.stores.memory", "claude_sync._sessions.stores.sqlite", "claude_sync._sessions.stores.postgres",
        "claude_sync._sessions.store_functions",
    )),
    ("agents", "run()", ("claude_sync._agents.run", "claude_sync._result", "claude_sync._wire.agent_usage")),
    ("agents", "AgentPool", ("claude_sync._agents.pool",)),
    ("approvals", "Running and resuming", ("claude_sync._approvals.flow",)),
    ("approvals", "Policy and gate", ("claude_sync._approvals.policy", "claude_sync._approvals.gate")),
    ("approvals", "Records, decisions and errors", ("claude_sync._approvals.records",)),
    ("errors", "Exceptions", ("claude_sync._wire.errors", "claude_sync._shared_pool.errors")),
    ("structured", "Output classes", ("claude_sync._structured.class_schema", "claude_sync._structured.outcome")),
    ("testing", "The scripted CLI", ("claude_sync.testing.scripted", "claude_sync.testing._scripted_cli.in_process",
                                      "claude_sync.testing._scripted_cli.interpreter")),
    ("testing", "Keeping the real CLI out", ("claude_sync.testing.switch",)),
    ("testing", "pytest fixtures", ("claude_sync.testing.pytest_plugin",)),
    ("testing", "Assertions", ("claude_sync.testing.assertions",)),
    ("testing", "Recording and replay", ("claude_sync.testing.record", "claude_sync.testing.replay")),
    ("testing", "The real CLI, offline", (
        "claude_sync.testing.fake_api", "claude_sync.testing._fake_api.messages_api",
        "claude_sync.testing.offline",
    )),
    ("testing", "Session store conformance", ("claude_sync.testing.conformance",)),
    ("integrations", "Dask", ("claude_sync.integrations.dask",)),
    ("display", "show()", ("claude_sync._show",)),
    ("port", "Porting a module's text", ("claude_sync.port.engine",)),
)
"""``(page, section, modules)``: a public name goes to the section whose modules hold its
definition (a new module must be added here; the docs test says so), unless
:data:`NAME_SECTIONS` places it."""

_SERVER_STATUS = (
    "McpServerStatus", "McpStatusResponse", "McpServerInfo", "McpToolInfo", "McpToolAnnotations",
    "McpServerConnectionStatus", "McpServerStatusConfig", "McpClaudeAIProxyServerConfig",
    "McpSdkServerConfigStatus", "McpSetServersResult",
)
_SERVER_CONFIGS = (
    "McpServerConfig", "McpSdkServerConfig", "McpStdioServerConfig", "McpSSEServerConfig",
    "McpHttpServerConfig", "McpServer",
)
NAME_SECTIONS: Dict[str, Tuple[str, str]] = {
    "merge_assistant_messages": ("query", "Whole assistant messages"),
    "ContextUsageResponse": ("query", "Answers of control requests"),
    "ContextUsageCategory": ("query", "Answers of control requests"),
    "StructuredOutputError": ("structured", "Output classes"),
    **{name: ("mcp", "Server status") for name in _SERVER_STATUS},
    **{name: ("mcp", "Server configs") for name in _SERVER_CONFIGS},
}
"""Public names placed by name rather than by the module that defines them."""

SHARED_BASES: Dict[str, Tuple[str, str]] = {
    "claude_sync._wire.serde.SerdeMixin": ("messages", "Serialisation"),
}
"""Private bases whose public methods many public classes share: documented once, in the
given section, instead of on every class (every message and block has ``to_dict`` …)."""

SECTION_INTROS: Dict[Tuple[str, str], str] = {
    ("messages", "Serialisation"): (
        "Every message and content block has these four methods, from the base class below "
        "(which is not itself importable from ``claude_sync``). ``message_from_dict`` rebuilds "
        "a message of any type."
    ),
    ("messages", "Parsing wire objects"): "module:claude_sync._wire.wire_parse",
    ("testing", "pytest fixtures"): "module:claude_sync.testing.pytest_plugin",
    ("testing", "Keeping the real CLI out"): "module:claude_sync.testing.switch",
}
"""Text printed under a section heading; ``module:<name>`` means that module's docstring."""

_EXCEPTION_BASES = (BaseException,)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public name: where users import it from, the object, and where it is defined."""

    surface: str
    name: str
    obj: Any
    home: str

    @property
    def qualname(self) -> str:
        """The documented dotted name (``claude_sync.ClaudeSDKClient``)."""
        return f"{self.surface}.{self.name}"


@dataclasses.dataclass(frozen=True)
class Member:
    """A public member of a public class: ``kind`` is ``method``, ``property`` or ``attribute``;
    ``owner`` the class (the public one or a private base) that declares it."""

    name: str
    kind: str
    owner: type


# ----------------------------------------------------------------------------- public names


def _module_source(module: str) -> Optional[ast.Module]:
    path = PACKAGE_DIR.parent.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return ast.parse(candidate.read_text(encoding="utf-8"))
    return None


def _resolve(module: str, relative: str, level: int) -> str:
    if not level:
        return relative
    package = module.split(".")
    base = package[: len(package) - level + (1 if _is_package(module) else 0)]
    return ".".join(base + ([relative] if relative else []))


def _is_package(module: str) -> bool:
    return PACKAGE_DIR.parent.joinpath(*module.split("."), "__init__.py").exists()


@functools.cache
def import_table(module: str) -> Dict[str, str]:
    """``name -> defining module`` from ``module``'s source: its ``from … import`` statements
    (also under ``TYPE_CHECKING``) and its lazy ``_LAZY = {name: ".module"}`` table."""
    tree = _module_source(module)
    table: Dict[str, str] = {}
    if tree is None:
        return table
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, node.module or "", node.level)
            for alias in node.names:
                table.setdefault(alias.asname or alias.name, source)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets):
                for key, value in zip(node.value.keys, node.value.values):
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                        level = len(value.value) - len(value.value.lstrip("."))
                        table.setdefault(key.value, _resolve(module, value.value.lstrip("."), level))
    return table


def home_module(surface: str, name: str, obj: Any) -> str:
    """Where a public name is defined: a class's or function's ``__module__``, else the
    module the surface imports it from, else the surface itself."""
    module = getattr(obj, "__module__", None) if (inspect.isclass(obj) or inspect.isfunction(obj)) else None
    if module and module.startswith("claude_sync"):
        return module
    return import_table(surface).get(name, surface)


@functools.cache
def entries() -> Tuple[Entry, ...]:
    """Every public name, once, in the order of :data:`SURFACES` and their ``__all__`` (an
    optional surface whose package is missing is left out: see :data:`OPTIONAL_SURFACES`)."""
    found: List[Entry] = []
    top = set(importlib.import_module("claude_sync").__all__)
    for surface in SURFACES:
        try:
            module = importlib.import_module(surface)
        except ModuleNotFoundError as exc:
            if exc.name != OPTIONAL_SURFACES.get(surface):
                raise
            continue
        for name in module.__all__:
            if name == "__version__" or (surface == "claude_sync.types" and name in top):
                continue
            obj = getattr(module, name)
            found.append(Entry(surface, name, obj, home_module(surface, name, obj)))
    return tuple(found)


def section_of(entry: Entry) -> Optional[Tuple[str, str]]:
    """``(page, section)`` of a public name; None when no section takes its module."""
    if entry.name in NAME_SECTIONS:
        return NAME_SECTIONS[entry.name]
    for page, section, modules in SECTIONS:
        if entry.home in modules:
            return page, section
    return None


# ----------------------------------------------------------------------------- documentation


def is_our_class(obj: Any) -> bool:
    """Whether a public name is a class claude_sync defines (``HookEvent = str`` is an alias,
    documented as data, not ``str`` with all its methods)."""
    return inspect.isclass(obj) and obj.__module__.startswith("claude_sync")


@functools.cache
def source_docstrings(module: str) -> Dict[str, str]:
    """``name -> text`` of every module-level string literal right after an assignment in
    ``module`` (how aliases, constants and functional TypedDicts are documented)."""
    tree = _module_source(module)
    found: Dict[str, str] = {}
    if tree is None:
        return found
    for node, after in zip(tree.body, tree.body[1:]):
        targets = [t for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets.append(node.target)
        value = getattr(after, "value", None)
        if targets and isinstance(after, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in targets:
                found.setdefault(target.id, inspect.cleandoc(value.value))
    return found


def own_doc(obj: Any) -> str:
    """The docstring a class or function carries itself ("" when none)."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else ""


def doc_for(entry: Entry) -> str:
    """The documentation of a public name: its own docstring, else the string after its
    assignment in the module that defines it; "" when there is none."""
    if is_our_class(entry.obj) or inspect.isfunction(entry.obj) or _is_fixture(entry.obj):
        doc = own_doc(entry.obj)
        if doc:
            return doc
    module: Optional[str] = entry.home
    for _hop in range(5):  # follow re-exports (``testing.scripted`` imports it from ``_scripted_cli.interpreter``)
        if module is None:
            break
        text = source_docstrings(module).get(entry.name)
        if text:
            return text
        module = import_table(module).get(entry.name)
    return ""


# ----------------------------------------------------------------------------- members


@functools.cache
def public_class_ids() -> frozenset:
    """``id()`` of every class documented under its own name."""
    return frozenset(id(e.obj) for e in entries() if is_our_class(e.obj))


def _ours(klass: type) -> bool:
    return klass.__module__.startswith("claude_sync") and klass is not object


def _shared(klass: type) -> bool:
    return f"{klass.__module__}.{klass.__qualname__}" in SHARED_BASES


def is_typeddict(cls: Any) -> bool:
    """Whether ``cls`` is a ``TypedDict`` class (its keys are documented as attributes)."""
    return inspect.isclass(cls) and issubclass(cls, dict) and hasattr(cls, "__required_keys__")


def lineage(cls: type) -> List[type]:
    """``cls`` and its bases, nearest first: the MRO, or for a ``TypedDict`` (whose MRO is
    ``dict``'s) the ``TypedDict`` bases it was declared with."""
    if not is_typeddict(cls):
        return list(cls.__mro__)
    found: List[type] = []
    pending = [cls]
    while pending:
        klass = pending.pop(0)
        if klass not in found:
            found.append(klass)
            pending.extend(b for b in getattr(klass, "__orig_bases__", ()) if is_typeddict(b))
    return found


def member_sources(cls: type) -> List[type]:
    """The classes whose own members ``cls`` documents: itself and its private bases (not
    public or shared bases, nor anything from outside claude_sync)."""
    public = public_class_ids()
    return [
        klass for klass in lineage(cls)
        if klass is cls or (_ours(klass) and id(klass) not in public and not _shared(klass))
    ]


@functools.cache
def _class_nodes(module: str) -> Dict[str, ast.ClassDef]:
    tree = _module_source(module)
    nodes: Dict[str, ast.ClassDef] = {}

    def visit(body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                nodes[prefix + node.name] = node
                visit(node.body, f"{prefix}{node.name}.")

    if tree is not None:
        visit(tree.body, "")
    return nodes


def _declared_attributes(klass: type) -> List[str]:
    """Public names ``klass``'s body annotates or assigns, and ``self.<name>`` its methods set."""
    node = _class_nodes(klass.__module__).get(klass.__qualname__)
    names: List[str] = []
    if node is None:
        return names
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.append(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            names.extend(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(stmt):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(sub, ast.AnnAssign) else []
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                        names.append(target.attr)
    return [name for name in dict.fromkeys(names) if not name.startswith("_")]


def _kind(value: Any) -> str:
    if isinstance(value, property):
        return "property"
    if inspect.isfunction(value) or inspect.ismethoddescriptor(value):  # also classmethod, ScriptedCLI.answer
        return "method"
    return "attribute"


def public_members(cls: type) -> List[Member]:
    """Every public member ``cls`` documents, in source order, each once."""
    found: Dict[str, Member] = {}
    for klass in member_sources(cls):
        for name in _declared_attributes(klass):
            value = klass.__dict__.get(name)
            kind = _kind(value) if name in klass.__dict__ else "attribute"
            found.setdefault(name, Member(name, kind, klass))
        for name, value in vars(klass).items():
            if name.startswith("_") or name in found:
                continue
            found[name] = Member(name, _kind(value), klass)
    return list(found.values())


_SECTION = re.compile(r"^(\s*)(Attributes|Keys):\s*$")
_ITEM = re.compile(r"^(\w+)\s*(?:\([^)]*\))?\s*:(.*)$")


def documented_attributes(doc: str) -> Dict[str, str]:
    """``name -> text`` of the entries of a docstring's ``Attributes:``/``Keys:`` sections."""
    found: Dict[str, str] = {}
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    index = 0
    while index < len(lines):
        header = _SECTION.match(lines[index])
        index += 1
        if not header:
            continue
        item_indent: Optional[int] = None
        current: Optional[str] = None
        while index < len(lines):
            line = lines[index]
            if line.strip():
                indent = len(line) - len(line.lstrip())
                if indent <= len(header.group(1)):
                    break
                if item_indent is None:
                    item_indent = indent
                match = _ITEM.match(line.strip()) if indent == item_indent else None
                if match:
                    current = match.group(1)
                    found[current] = match.group(2).strip()
                elif current is not None:
                    found[current] = (found[current] + " " + line.strip()).strip()
            index += 1
    return found


def member_doc(cls: type, member: Member) -> str:
    """The documentation of one member: a method's or property's docstring (inherited ones
    count, as autodoc shows them), an attribute's entry in the ``Attributes:``/``Keys:``
    section of ``cls``'s own docstring (also for one a private base declares: that section is
    what the reference shows)."""
    if member.kind == "attribute":
        return documented_attributes(own_doc(cls)).get(member.name, "")
    value = inspect.getattr_static(cls, member.name)
    function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
    doc = inspect.getdoc(function) or ""
    if not doc:
        doc = inspect.getdoc(getattr(cls, member.name)) or ""
    return doc


def undocumented_members(entry: Entry) -> List[str]:
    """``Class.member (kind)`` for every public member of a public class without docs."""
    if not is_our_class(entry.obj):
        return []
    return [
        f"{entry.qualname}.{m.name} ({m.kind}, declared in {m.owner.__qualname__})"
        for m in public_members(entry.obj)
        if not member_doc(entry.obj, m).strip()
    ]


def shared_base(qualname: str) -> type:
    """The class of a :data:`SHARED_BASES` entry."""
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


def expected_objects() -> Iterator[str]:
    """Every dotted name the built reference must define: public names and their members,
    and the members of the shared bases."""
    for entry in entries():
        yield entry.qualname
        if is_our_class(entry.obj):
            for member in public_members(entry.obj):
                yield f"{entry.qualname}.{member.name}"
    for qualname in SHARED_BASES:
        for member in public_members(shared_base(qualname)):
            yield f"{qualname}.{member.name}"


# ----------------------------------------------------------------------------- directives


def _is_fixture(obj: Any) -> bool:
    return type(obj).__name__ in ("FixtureFunctionDefinition", "FixtureFunctionMarker") or hasattr(obj, "_pytestfixturefunction")


def _excluded_bases(cls: type) -> List[str]:
    """Names for ``:inherited-members:``: every base whose members are NOT shown here."""
    keep = {id(k) for k in member_sources(cls)}
    return list(dict.fromkeys(k.__name__ for k in cls.__mro__[1:] if id(k) not in keep))


def shown_bases(cls: type) -> List[type]:
    """The bases a reader is told about (``Bases:``): public claude_sync classes, and classes
    from outside claude_sync (``TimeoutError`` …) but ``object``; never a private base."""
    declared = getattr(cls, "__orig_bases__", ()) if is_typeddict(cls) else cls.__dict__.get("__orig_bases__", cls.__bases__)
    public = public_class_ids()
    shown = []
    for base in declared:
        origin = base if inspect.isclass(base) else typing.get_origin(base)  # Mapping[str, Any]
        if not inspect.isclass(origin) or origin is object:
            continue
        if origin.__module__.startswith("claude_sync") and id(origin) not in public:
            continue
        shown.append(base)
    return shown


def documented_qualname(klass: type) -> Optional[str]:
    """The dotted name under which a public or shared class is documented, else None."""
    for entry in entries():
        if entry.obj is klass:
            return entry.qualname
    qualname = f"{klass.__module__}.{klass.__qualname__}"
    return qualname if qualname in SHARED_BASES else None


def inherited_members(cls: type) -> List[Tuple[str, List[Member]]]:
    """``(documented base, members)``: the public methods and properties ``cls`` inherits
    from public claude_sync classes and shared bases (documented there, not again here), by
    base, nearest first; each name once, and none that ``cls`` documents itself."""
    seen = {member.name for member in public_members(cls)}
    found: List[Tuple[str, List[Member]]] = []
    for klass in lineage(cls)[1:]:
        if not _ours(klass) or klass in member_sources(cls):
            continue
        qualname = documented_qualname(klass)
        if qualname is None:
            continue
        members = [m for m in public_members(klass) if m.kind != "attribute" and m.name not in seen]
        seen.update(m.name for m in members)
        if members:
            found.append((qualname, members))
    return found


def inherited_lines(cls: type) -> List[str]:
    """The "Inherited from" paragraph of a class's entry: a cross-reference to each member
    :func:`inherited_members` finds."""
    lines = []
    for base, members in inherited_members(cls):
        refs = ", ".join(
            f":{'meth' if m.kind == 'method' else 'attr'}:`~{base}.{m.name}`" for m in members
        )
        lines.append(f"*Inherited from* :class:`~{base}`: {refs}.")
    return lines


def private_members_shown_here(cls: type) -> bool:
    """Whether ``cls`` shows methods it gets from private bases (``:inherited-members:``)."""
    return not is_typeddict(cls) and any(m.owner is not cls and m.kind != "attribute" for m in public_members(cls))


def directive(entry: Entry) -> str:
    """The reST for one public name."""
    obj = entry.obj
    if is_our_class(obj) and own_doc(obj):
        kind = "autoexception" if issubclass(obj, _EXCEPTION_BASES) else "autoclass"
        lines = [f".. {kind}:: {entry.qualname}", "   :members:"]
        if private_members_shown_here(obj):
            lines.append(f"   :inherited-members: {', '.join(_excluded_bases(obj))}")
        if shown_bases(obj):
            lines.append("   :show-inheritance:")
        inherited = inherited_lines(obj)
        for line in inherited:  # a paragraph each
            lines += ["", f"   {line}"]
        return "\n".join(lines) + "\n\n"
    if _is_fixture(obj):
        text = _indent(doc_for(entry) or "(undocumented)")
        return f".. py:function:: {entry.qualname}\n\n   *A pytest fixture.* {text.lstrip()}\n\n"
    if inspect.isfunction(obj) or (callable(obj) and hasattr(obj, "__code__")):
        return f".. autofunction:: {entry.qualname}\n\n"
    text = doc_for(entry) or "(not documented yet: add a string after its assignment)"
    return f".. data:: {entry.qualname}\n\n{_indent(text)}\n\n"


def _indent(text: str) -> str:
    return "\n".join(("   " + line) if line.strip() else "" for line in text.splitlines())


def page_directives(page: str) -> str:
    """The generated body of one reference page: a heading per section, then its names."""
    out: List[str] = []
    for page_name, section, _modules in SECTIONS:
        if page_name != page:
            continue
        names = [e for e in entries() if section_of(e) == (page, section)]
        shared = [q for q, where in SHARED_BASES.items() if where == (page, section)]
        if not names and not shared:
            continue
        out.append(f"{section}\n{'-' * len(section)}\n\n")
        intro = SECTION_INTROS.get((page, section), "")
        if intro.startswith("module:"):
            intro = inspect.getdoc(importlib.import_module(intro[len("module:"):])) or ""
        if intro:
            out.append(intro + "\n\n")
        out.extend(directive(e) for e in names)
        for qualname in shared:
            out.append(f".. autoclass:: {qualname}\n   :members:\n\n")
    return "".join(out)


def write_pages(target: Path) -> None:
    """Write ``<target>/<page>.rst`` for every page (only when the text changed)."""
    target.mkdir(parents=True, exist_ok=True)
    for page, _title in PAGES:
        path = target / f"{page}.rst"
        text = page_directives(page)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
