"""The package's shape: which modules may do I/O, and what every other module may import.

Purity is a per-module rule: ``IO_MODULES`` is the one explicit list of the modules allowed to
touch threads, processes, clocks, sockets or the signal machinery, directly or through another
module on the list. Every other module is pure: it imports none of the forbidden standard
library modules and none of the listed modules, so it can be tested line in → events out.

The floors are a rule too: ``LAYERS`` orders the folders (and the top-level modules) bottom →
top, and a module imports only from its own floor or the floors below. The few imports that run
up are each listed, with the reason, in ``UPWARD_IMPORTS``; any other fails.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest
from helpers import package_module_name

import claude_sync

PACKAGE = Path(claude_sync.__file__).parent

FORBIDDEN = {
    "threading", "subprocess", "queue", "time", "asyncio", "concurrent", "socket", "select",
    "signal", "selectors", "multiprocessing", "_thread",
}  # fmt: skip
"""Standard-library modules a pure module never imports: threads, processes, clocks, I/O."""

PURE_MAY_IMPORT = {
    ("claude_sync._options.timeouts", "threading"): "threading.TIMEOUT_MAX, the platform's longest wait: a constant, no thread",
}
"""``(pure module, stdlib module)``: a ``FORBIDDEN`` import a pure module makes for a constant, with the reason."""

IO_MODULES = {
    # the public modules that drive a live connection, their control methods, and the wiring
    # that builds the connection from the options
    "claude_sync", "claude_sync.client", "claude_sync.query", "claude_sync._controls", "claude_sync._wiring",
    # resolve_settings(): starts a CLI to ask it for its merged settings
    "claude_sync._resolve_settings",
    # show(): drives a run and redraws it from its own thread
    "claude_sync._show",
    # the command line: reads stdin and files, streams a run to stdout
    "claude_sync.__main__", "claude_sync._cli.shell", "claude_sync._cli.approvals", "claude_sync._cli.console", "claude_sync._cli.locate",
    "claude_sync._cli.doctor", "claude_sync._cli.program",
    # the engine: one live CLI connection and its threads
    "claude_sync._engine.callback_pool", "claude_sync._engine.child",
    "claude_sync._engine.connection", "claude_sync._engine.green",
    "claude_sync._engine.mailbox", "claude_sync._engine.memory", "claude_sync._engine.pending",
    "claude_sync._engine.process", "claude_sync._engine.spawn", "claude_sync._engine.host_death",
    "claude_sync._engine.reader", "claude_sync._engine.serving", "claude_sync._engine.tempfiles",
    "claude_sync._engine.exit_watch",
    # MCP: serving an ``mcp`` package server on its own event-loop thread
    "claude_sync._mcp.bridge", "claude_sync._mcp.routing",
    # sessions: files, stores, and a live connection's mirror
    "claude_sync._sessions.store_bridge", "claude_sync._sessions.store_functions",
    "claude_sync._sessions.store_resume", "claude_sync._sessions.transcript_edits", "claude_sync._sessions.archive_files",
    "claude_sync._sessions.transcript_files", "claude_sync._sessions.stores.memory",
    "claude_sync._sessions.stores.sqlite", "claude_sync._sessions.stores.postgres",
    # approvals: claims in a store or a file, and the runs that defer and resume
    "claude_sync._approvals.claims", "claude_sync._approvals.flow",
    "claude_sync._approvals.hold_check",  # reads the tail of the transcript a resume would load
    # OpenTelemetry spans and metrics: clocks, the process-wide tracer and meter
    "claude_sync._tracing.otel",
    # many agents
    "claude_sync._agents.futures", "claude_sync._agents.pool", "claude_sync._agents.run",
    "claude_sync._agents.slots",
    # the shared pool: the leaseholder's socket end, the pool process and its command line
    "claude_sync._shared_pool.lease_client", "claude_sync._shared_pool.clis", "claude_sync._shared_pool.server",
    "claude_sync._shared_pool.command",
    # the shared pool, the leaseholder's side: a transport over leased pipes, its extension,
    # the switch (loads the lease client)
    "claude_sync._shared_pool.leased_transport", "claude_sync._shared_pool.extension",
    "claude_sync._shared_pool.switch",
    # engines and the testing kit
    "claude_sync.integrations.dask",
    "claude_sync.testing._scripted_cli.interpreter", "claude_sync.testing._scripted_cli.in_process",
    "claude_sync.testing._scripted_cli.steps", "claude_sync.testing._scripted_cli.run_queue",
    "claude_sync.testing._scripted_cli.queued_runner",
    "claude_sync.testing.cli", "claude_sync.testing.conformance", "claude_sync.testing.fake_api",
    "claude_sync.testing.offline", "claude_sync.testing.pytest_plugin",
    "claude_sync.testing.record", "claude_sync.testing.replay", "claude_sync.testing.scripted",
    "claude_sync.testing.switch", "claude_sync.testing.with_fake_api",
}  # fmt: skip


LAYERS = (
    "claude_sync._version",  # the version string, read by the command line, the options, OTel
    "claude_sync._redaction",  # the one redactor and the logger factory: every folder logs through it
    "claude_sync._wire",  # the CLI's lines, parsed to typed messages; our errors
    "claude_sync._display",  # pure renderers: reprs, HTML/Markdown, the run view, tracebacks
    "claude_sync._callbacks",  # permission, hook and dialog shapes and their wire forms
    "claude_sync._mcp",  # MCP configs, tools, schemas; the in-process server
    "claude_sync._structured",  # typed output: class → JSON schema → instance
    "claude_sync._options",  # ClaudeAgentOptions → argv, env, initialize
    "claude_sync._engine",  # one live CLI connection and its threads
    "claude_sync._sessions",  # transcripts, stores, the store bridge (an engine extension)
    "claude_sync._tracing",  # OpenTelemetry around a connection
    "claude_sync._wiring",  # options → a Session: request handlers and extensions from the features
    "claude_sync._controls",  # the control methods the client and the query() stream share
    "claude_sync.client",  # ClaudeSDKClient
    "claude_sync._resolve_settings",  # resolve_settings(): a client asked for its merged settings
    "claude_sync._result",  # RunResult, built from a run's messages
    "claude_sync.query",  # query(): one run as an iterator
    "claude_sync._show",  # show(): watches a query() or a client's turn
    "claude_sync._agents",  # run(), AgentPool: runs of query() and clients
    "claude_sync._shared_pool",  # the machine-wide warm pool: the socket's two ends, the pool process
    "claude_sync._approvals",  # runs that defer and resume a permission decision
    "claude_sync._cli",  # the command line
    "claude_sync.types",  # the official SDK's ``types`` names, re-exported
    "claude_sync",  # the package: public names (``_NAMES``)
    "claude_sync.__main__",  # ``python -m claude_sync``
    "claude_sync.port",  # porting official-SDK code (imports no other floor)
    "claude_sync.integrations",  # Dask: AgentPool on a cluster
    "claude_sync.testing",  # the testing kit: drives the public package
)
"""The floors, bottom → top: a module's floor is the longest entry its name starts with (the
package ``claude_sync`` itself is only its ``__init__``)."""

UPWARD_IMPORTS = {
    # a message's / an error's rich repr renders through _display, imported lazily on the first
    # repr (the renderers read every wire record; the records only hand themselves over)
    ("claude_sync._wire.blocks", "claude_sync._display.render"),
    ("claude_sync._wire.errors", "claude_sync._display.tracebacks"),
    # the options hold a session store: its protocol lives with the stores (pure; TYPE_CHECKING)
    ("claude_sync._options.options", "claude_sync._sessions.types"),
    # a resume is refused while the session waits for a person: the wiring plugs the approvals'
    # hold check in as a connection extension (lazily, only for options that resume a session)
    ("claude_sync._wiring", "claude_sync._approvals.hold_check"),
    # leasing from the shared pool: the wiring plugs the lease in as a connection extension
    # (lazily, only when leasing is on) and asks the switch; AgentPool asks the switch per run
    ("claude_sync._wiring", "claude_sync._shared_pool.switch"),
    ("claude_sync._wiring", "claude_sync._shared_pool.extension"),
    ("claude_sync._agents.pool", "claude_sync._shared_pool.switch"),
}
"""``(importer, imported)``: the imports allowed to run up ``LAYERS``, each with its reason."""



MODULES: Dict[str, Path] = {package_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(module: str) -> List[Tuple[str, Tuple[str, ...], int]]:
    """``(absolute module, imported names, line)`` for every import in ``module``, wherever it
    stands (top level, inside a function, under ``TYPE_CHECKING``)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.append((base, tuple(alias.name for alias in node.names), node.lineno))
    return found


def package_modules_imported(module: str) -> Set[str]:
    """The ``claude_sync`` modules ``module`` imports (``from pkg import submodule`` counted)."""
    out = set()
    for base, names, _ in imports_of(module):
        if not base.startswith("claude_sync"):
            continue
        subs = {f"{base}.{name}" for name in names if f"{base}.{name}" in MODULES}
        out |= subs or {base}
    return out - {module}


ENGINE_MAY_IMPORT = (
    "claude_sync._engine",  # itself
    "claude_sync._wire",  # the protocol, messages and errors
    "claude_sync._options",  # the options and the spawn plan made from them
    "claude_sync._redaction",  # the redacting logger (the bottom floor)
)
"""What the engine (``claude_sync._engine``) may import from the package: the floors below it.
No feature (``_callbacks``, ``_mcp``, ``_sessions``, ``_approvals``, ``_tracing`` …): which
request handlers and connection extensions a session gets is ``claude_sync._wiring``'s choice."""


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("claude_sync._engine")))
def test_the_engine_names_no_feature(module: str) -> None:
    """Imports inside functions and under ``TYPE_CHECKING`` count too."""
    outside = sorted(
        imported
        for imported in package_modules_imported(module)
        if not any(imported == allowed or imported.startswith(allowed + ".") for allowed in ENGINE_MAY_IMPORT)
    )
    assert not outside, f"{module} imports {outside}: the engine imports only {ENGINE_MAY_IMPORT}"


def test_the_io_list_names_real_modules() -> None:
    assert IO_MODULES <= set(MODULES), sorted(IO_MODULES - set(MODULES))


@pytest.mark.parametrize("module", sorted(set(MODULES) - IO_MODULES))
def test_a_pure_module_imports_no_io(module: str) -> None:
    stdlib = {base.split(".")[0] for base, _, _ in imports_of(module)} - {name for pure, name in PURE_MAY_IMPORT if pure == module}
    assert not stdlib & FORBIDDEN, f"{module} imports {sorted(stdlib & FORBIDDEN)}"
    io = package_modules_imported(module) & IO_MODULES
    assert not io, f"{module} is pure but imports {sorted(io)}: add it to IO_MODULES or move the piece"


@pytest.mark.parametrize("module", sorted(IO_MODULES - {"claude_sync"}))
def test_a_listed_module_needs_the_listing(module: str) -> None:
    """The list stays exact: a module on it really does I/O, directly or through the list."""
    stdlib = {base.split(".")[0] for base, _, _ in imports_of(module)}
    io = package_modules_imported(module) & IO_MODULES
    assert stdlib & FORBIDDEN or io, f"{module} is pure: take it off IO_MODULES"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_serialisation_loads_on_first_use_only(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text())
    eager = {a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    eager |= {
        n.module.split(".")[0]
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module
    }
    assert not eager & {"dataclasses_json", "marshmallow", "pydantic"}


def _edges() -> Dict[str, Set[str]]:
    return {module: package_modules_imported(module) for module in MODULES}


def test_no_module_imports_an_underscore_name_of_another() -> None:
    """A name another module needs is public in its module (tests are not held to this)."""
    found = []
    for module in MODULES:
        for base, names, line in imports_of(module):
            if base in MODULES and base != module:
                found += [
                    f"{module}:{line} <- {base}.{n}"
                    for n in names
                    if n.startswith("_") and not n.startswith("__") and f"{base}.{n}" not in MODULES
                ]
    assert not found, found


def test_no_import_circles() -> None:
    """No circles, counting imports inside functions and under ``TYPE_CHECKING`` (a package's
    ``__init__`` re-exporting its own children is not a circle)."""
    edges = _edges()
    reach: Dict[str, Set[str]] = {}
    for start in MODULES:
        seen: Set[str] = set()
        todo = [start]
        while todo:
            for target in edges[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        reach[start] = seen
    circles = set()
    for module in MODULES:
        component = {other for other in reach[module] if module in reach[other]} | {module}
        plain = sorted(m for m in component if MODULES[m].name != "__init__.py")
        if len(plain) > 1:
            circles.add(" / ".join(plain))
    assert not circles, sorted(circles)


def floor(module: str) -> int:
    """``module``'s index in ``LAYERS``: the longest entry it starts with."""
    matches = [
        (len(entry), index)
        for index, entry in enumerate(LAYERS)
        if module == entry or (entry != "claude_sync" and module.startswith(entry + "."))
    ]
    assert matches, f"{module} is on no floor: add its folder to LAYERS"
    return max(matches)[1]


def upward_imports() -> Set[Tuple[str, str]]:
    """Every ``(importer, imported)`` pair where the imported module's floor is above the
    importer's (imports inside functions and under ``TYPE_CHECKING`` counted)."""
    return {
        (module, target)
        for module, targets in _edges().items()
        for target in targets
        if floor(target) > floor(module)
    }


def test_every_module_is_on_a_floor() -> None:
    assert len(set(LAYERS)) == len(LAYERS)
    for module in MODULES:
        floor(module)


def test_no_import_runs_up_the_floors_unless_listed() -> None:
    unlisted = sorted(f"{m} -> {t}" for m, t in upward_imports() - UPWARD_IMPORTS)
    assert not unlisted, f"imports running up LAYERS (move the piece, or list it with a reason): {unlisted}"


def test_the_upward_list_is_exact() -> None:
    stale = sorted(f"{m} -> {t}" for m, t in UPWARD_IMPORTS - upward_imports())
    assert not stale, f"no longer imported upward: take off UPWARD_IMPORTS: {stale}"
