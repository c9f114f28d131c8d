"""Imports inside functions: the one table of those that stay, each with its reason, checked.

An import belongs at the top of its module. One stays inside a function only for a reason
this test can check:

- ``import-time``: the importer is loaded by a light entry point (``ENTRY_POINTS``:
  ``import claude_sync``, ``claude_sync.types``, ``claude_sync.testing``, the pytest plugin
  every pytest run of a user loads, the ``claude-sync`` command's start, defining an MCP
  tool) and the target is not — hoisting it would load more modules there.
- ``optional``: the target is a package an extra of ``setup.cfg`` installs (or one the user's
  own classes bring, ``USERS_OWN_PACKAGES``), or a package module importing one at its top.
- ``upward``: the pair is one of the imports allowed to run up the floors
  (``UPWARD_IMPORTS`` of ``test_layering.py``), kept lazy on purpose.
- ``platform``: the import may fail on some platforms or builds (``pwd`` off POSIX,
  ``ctypes`` without ``_ctypes``) and stands in a ``try`` that handles ``ImportError``.
- ``first-use``: a plain ``query()`` run (``PLAIN_RUN``: no typed output, no tools, against
  the bench's fake CLI) loads the importer and not the target — the target serves a feature
  (typed output, an in-process MCP tool, binary tool content) only some runs use.
- ``heavy``: importing the target loads a heavy standard-library package (``HEAVY``) that
  importing the importer does not, for a feature only some runs use.

Import circles are counted with lazy imports too (``test_layering``), so "breaks a circle"
is never a reason.
"""

from __future__ import annotations

import ast
import os
import site
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest
from helpers import extras_of, package_module_name

import claude_sync

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(claude_sync.__file__).parent

Pair = Tuple[str, str]



MODULES: Dict[str, Path] = {package_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _upward_imports() -> Set[Pair]:
    """``UPWARD_IMPORTS`` of ``test_layering.py``, read from its source (test modules do not
    import each other: ``test_suite_layout``)."""
    tree = ast.parse((Path(__file__).parent / "test_layering.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["UPWARD_IMPORTS"]:
            return set(ast.literal_eval(node.value))
    raise AssertionError("test_layering.py defines no UPWARD_IMPORTS")


UPWARD_IMPORTS = _upward_imports()

FUNCTION_IMPORTS: Dict[Pair, str] = {
    # ClaudeSDKClient: what connect() and a turn need, not `import claude_sync`
    ("claude_sync.client", "claude_sync._wiring"): "import-time",
    ("claude_sync.client", "claude_sync._structured.outcome"): "import-time",
    ("claude_sync.client", "claude_sync._tracing.otel"): "import-time",
    ("claude_sync.client", "claude_sync._wire.text"): "import-time",
    # query(): the same, for one run
    ("claude_sync.query", "claude_sync._wiring"): "import-time",
    ("claude_sync.query", "claude_sync._result"): "import-time",
    ("claude_sync.query", "claude_sync._structured.outcome"): "import-time",
    ("claude_sync.query", "claude_sync._tracing.otel"): "import-time",
    ("claude_sync.query", "claude_sync._wire.text"): "import-time",
    # the wiring: the features a run may not use load with their first use
    ("claude_sync._wiring", "claude_sync._approvals.hold_check"): "first-use",
    ("claude_sync._wiring", "claude_sync._engine.exit_watch"): "first-use",
    ("claude_sync._wiring", "claude_sync._shared_pool.extension"): "first-use",
    ("claude_sync._shared_pool.switch", "claude_sync._shared_pool.lease_client"): "first-use",
    ("claude_sync._wiring", "claude_sync._engine.notices"): "first-use",
    ("claude_sync._wiring", "claude_sync._mcp.routing"): "first-use",
    ("claude_sync._wiring", "claude_sync._mcp.server"): "first-use",
    ("claude_sync._wiring", "claude_sync._sessions.store_bridge"): "first-use",
    ("claude_sync._wiring", "claude_sync._tracing.carrier"): "first-use",
    ("claude_sync._wiring", "claude_sync._tracing.otel"): "first-use",
    ("claude_sync._mcp.routing", "claude_sync._mcp.bridge"): "heavy",
    # the client's control methods: their typed results load with the first call
    ("claude_sync._controls", "claude_sync._wire.control_results"): "import-time",
    ("claude_sync._controls", "claude_sync._wire.settings_result"): "import-time",
    ("claude_sync._controls", "claude_sync._redaction.secrets"): "import-time",
    # the engine: the spawn, the request server and the control answers load on first use
    ("claude_sync._engine.connection", "claude_sync._engine.serving"): "import-time",
    ("claude_sync._engine.connection", "claude_sync._engine.spawn"): "import-time",
    ("claude_sync._engine.connection", "claude_sync._engine.tempfiles"): "import-time",
    ("claude_sync._engine.green", "_queue"): "import-time",
    ("claude_sync._engine.green", "select"): "import-time",
    ("claude_sync._engine.host_death", "ctypes"): "platform",
    # spawning a CLI: a leased connection (issue 41) spawns none, so it loads no subprocess
    ("claude_sync._engine.host_death", "subprocess"): "heavy",
    ("claude_sync._engine.host_death", "shutil"): "heavy",
    ("claude_sync._engine.process", "subprocess"): "heavy",
    ("claude_sync._engine.spawn", "subprocess"): "heavy",
    ("claude_sync._shared_pool.paths", "tempfile"): "heavy",
    ("claude_sync._engine.reader", "claude_sync._engine.notices"): "import-time",
    # the options: validation, secrets and pickling load when options are made or pickled
    ("claude_sync._options.options", "claude_sync._options.portable"): "import-time",
    ("claude_sync._options.options", "claude_sync._options.validation"): "import-time",
    ("claude_sync._options.options", "claude_sync._redaction.secrets"): "import-time",
    ("claude_sync._options.argv", "claude_sync._structured.class_schema"): "first-use",
    ("claude_sync._options.validation", "pwd"): "platform",
    ("claude_sync._approvals.hold_check", "pwd"): "platform",
    ("claude_sync._approvals.policy", "pwd"): "platform",
    ("claude_sync._options.validation", "claude_sync._structured.class_schema"): "first-use",
    # the spawn: approval rules' shell scanner, URL parsing (ipaddress) and private temp files load when used
    ("claude_sync._options.tool_rules", "claude_sync._options.bash_rules"): "first-use",
    ("claude_sync._options.tool_rules", "claude_sync._options.path_rules"): "first-use",
    ("claude_sync._options.tool_rules", "urllib.parse"): "heavy",
    ("claude_sync._redaction.secrets", "urllib.parse"): "heavy",
    ("claude_sync._engine.spawn", "claude_sync._engine.tempfiles"): "first-use",
    ("claude_sync._options.hook_registry", "numbers"): "first-use",
    ("claude_sync._options.discovery", "pathlib"): "import-time",
    # the redactor: the pattern pass and the secret registry load on the first redaction
    ("claude_sync._redaction.redactor", "claude_sync._redaction.patterns"): "import-time",
    ("claude_sync._redaction.redactor", "claude_sync._redaction.secrets"): "import-time",
    # the wire: a record's rich repr and a result's hints render on first use
    ("claude_sync._wire.blocks", "claude_sync._display.render"): "upward",
    ("claude_sync._wire.errors", "claude_sync._display.tracebacks"): "upward",
    ("claude_sync._wire.protocol", "claude_sync._wire.hints"): "import-time",
    ("claude_sync._wire.system_messages", "datetime"): "import-time",
    ("claude_sync._wire.serde", "dataclasses_json"): "optional",
    # RunResult (loaded by a run() script's start): its views load on first use
    ("claude_sync._result", "claude_sync._display.live"): "import-time",
    ("claude_sync._result", "claude_sync._structured.outcome"): "import-time",
    ("claude_sync._cli.shell", "claude_sync._cli.doctor"): "import-time",
    ("claude_sync._cli.shell", "claude_sync._shared_pool.command"): "import-time",
    ("claude_sync._cli.shell", "claude_sync._cli.locate"): "import-time",
    # the command line's start: approvals (--approve, resume-approval) and the --verbose summary load on first use
    ("claude_sync._cli.approvals", "claude_sync._approvals.flow"): "import-time",
    ("claude_sync._cli.approvals", "claude_sync._approvals.gate"): "import-time",
    ("claude_sync._cli.approvals", "claude_sync._approvals.policy"): "import-time",
    ("claude_sync._cli.approvals", "claude_sync._approvals.records"): "import-time",
    ("claude_sync._cli.approvals", "shlex"): "import-time",
    ("claude_sync._cli.approvals", "uuid"): "import-time",
    ("claude_sync._cli.output", "claude_sync._display.render"): "import-time",
    ("claude_sync._cli.output", "claude_sync._wire.run_totals"): "import-time",
    # claude_sync.types: ToolAnnotations resolves from the MCP tools on first access
    ("claude_sync.types", "claude_sync._mcp.tools"): "import-time",
    # in-process MCP tools: defining one loads no schema code (tests/mcp)
    ("claude_sync._mcp.tools", "claude_sync._mcp.schema"): "import-time",
    ("claude_sync._mcp.tools", "base64"): "import-time",
    ("claude_sync._mcp.server", "claude_sync._mcp.schema_validation"): "import-time",
    ("claude_sync._mcp.server", "math"): "import-time",
    ("claude_sync._mcp.server", "numbers"): "import-time",
    # the pytest plugin (loaded by every pytest run): the kit loads when a fixture runs
    ("claude_sync.testing.pytest_plugin", "claude_sync._engine.stand_in"): "import-time",
    ("claude_sync.testing.pytest_plugin", "claude_sync.testing.fake_api"): "import-time",
    ("claude_sync.testing.pytest_plugin", "claude_sync.testing.offline"): "import-time",
    ("claude_sync.testing.pytest_plugin", "claude_sync.testing.scripted"): "import-time",
    ("claude_sync.testing.pytest_plugin", "claude_sync.testing.switch"): "import-time",
    # optional packages
    ("claude_sync._display.markdown", "markdown_it"): "optional",
    ("claude_sync._sessions.stores.postgres", "psycopg"): "optional",
    ("claude_sync._sessions.stores.postgres", "psycopg_pool"): "optional",
    ("claude_sync._show", "IPython.display"): "optional",
    ("claude_sync._structured.dataclasses_json_adapter", "dataclasses_json"): "optional",
    ("claude_sync._structured.pydantic_adapter", "pydantic"): "optional",
    ("claude_sync._tracing.otel", "opentelemetry"): "optional",
    ("claude_sync._tracing.otel", "opentelemetry.metrics"): "optional",
    # AgentPool (being split by the slots helper)
}  # fmt: skip
"""``(importing module, imported module)`` → why the import stays inside a function."""

REASONS = {"import-time", "first-use", "optional", "upward", "platform", "heavy"}

ENTRY_POINTS = (
    "import claude_sync",
    "import claude_sync.types",
    "import claude_sync.testing",
    "import claude_sync.testing.pytest_plugin",
    "import claude_sync._cli.shell",
    "from claude_sync import run",
    "from claude_sync import create_sdk_mcp_server, tool",
)
"""The light entry points: what ``import claude_sync`` (and ``from claude_sync.types import``,
the testing kit, the pytest plugin's entry point, the ``claude-sync`` console script, a
``run()`` script's start, and defining an in-process MCP tool: no schema code until a tool is listed or called,
``tests/mcp``) loads."""

FAKE_CLI = ROOT / "bench" / "fake_cli.py"

PLAIN_RUN = """
import claude_sync
list(claude_sync.query("hi", options=claude_sync.ClaudeAgentOptions(cli_path={cli!r})))
"""
"""One plain run: the modules every user's first ``query()`` loads."""

USERS_OWN_PACKAGES = {"dataclasses_json"}
"""Optional packages no extra installs: the user's own classes bring them."""

HEAVY = {"asyncio", "ipaddress", "shutil", "subprocess", "tempfile"}
"""Standard-library packages heavy enough to load only for the feature that needs them
(``shutil``: ~2 ms with the compression modules it loads; a leased run needs none)."""
HEAVY_ONLY_SINCE = {"urllib.parse": (3, 11)}
"""Targets that load a ``HEAVY`` package only on newer Pythons (``urllib.parse`` imports
``ipaddress`` since 3.11): deferring them is for those Pythons, and harmless on older ones."""


def _is_module_import(node: ast.AST) -> bool:
    return isinstance(node, (ast.Import, ast.ImportFrom))


def _targets(module: str, node: ast.AST) -> Set[str]:
    """The modules one import statement loads (``from pkg import submodule`` → the submodule)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    assert isinstance(node, ast.ImportFrom)
    if node.level == 0:
        base = node.module or ""
    else:
        package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
    return {f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES} or {base}


def _guarded_nodes(tree: ast.AST) -> Set[int]:
    """Ids of the import statements inside a ``try`` whose handlers catch ``ImportError``."""
    guarded: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            handler.type is not None and "ImportError" in ast.unparse(handler.type) for handler in node.handlers
        ):
            for statement in node.body:
                guarded |= {id(inner) for inner in ast.walk(statement) if _is_module_import(inner)}
    return guarded


@cache
def function_imports() -> Dict[Pair, List[Tuple[int, bool]]]:
    """``(importer, imported)`` → ``(line, guarded by an ImportError handler)`` of every import
    statement inside a function (nested ones counted once)."""
    found: Dict[Pair, List[Tuple[int, bool]]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = _guarded_nodes(tree)
        seen: Set[int] = set()
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if _is_module_import(node) and id(node) not in seen:
                    seen.add(id(node))
                    for target in _targets(module, node):
                        found.setdefault((module, target), []).append((node.lineno, id(node) in guarded))
    return found


def _fresh_modules(statement: str, **environ: str) -> Set[str]:
    """``sys.modules`` of a bare interpreter (``-S``: no ``site``, so no ``.pth`` file of the
    machine adds modules; this worktree first on the path, then site-packages) after
    ``statement``, read before the interpreter loads anything to print it."""
    code = f"import sys\n{statement}\nloaded = sorted(sys.modules)\nprint(repr(loaded))"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *site.getsitepackages(), env.get("PYTHONPATH", "")])
    env.pop("BENCH_FAKE_SPEC", None)
    env.update(environ)
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT)
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return set(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


@cache
def loaded_by(entry: str) -> Set[str]:
    return _fresh_modules(entry)


def _listed(reason: str) -> List[Pair]:
    return sorted(pair for pair, listed in FUNCTION_IMPORTS.items() if listed == reason)


def test_every_function_level_import_is_listed() -> None:
    unlisted = sorted(
        f"{importer}:{lines[0][0]} imports {target}" for (importer, target), lines in function_imports().items()
        if (importer, target) not in FUNCTION_IMPORTS
    )  # fmt: skip
    assert not unlisted, (
        "imports inside functions with no reason on record: move each to the top of its module, or add "
        f"(importer, imported) to FUNCTION_IMPORTS with its reason ({', '.join(sorted(REASONS))}): {unlisted}"
    )


def test_the_table_has_no_stale_entry() -> None:
    stale = sorted(f"{importer} -> {target}" for importer, target in set(FUNCTION_IMPORTS) - set(function_imports()))
    assert not stale, f"no longer imported inside a function: take off FUNCTION_IMPORTS: {stale}"


def test_every_reason_is_known() -> None:
    unknown = sorted(f"{pair}: {reason!r}" for pair, reason in FUNCTION_IMPORTS.items() if reason not in REASONS)
    assert not unknown, f"reasons must be one of {sorted(REASONS)}: {unknown}"


@pytest.mark.parametrize("pair", _listed("import-time"), ids=" -> ".join)
def test_an_import_time_entry_spares_a_light_entry_point(pair: Pair) -> None:
    importer, target = pair
    spared = [entry for entry in ENTRY_POINTS if importer in loaded_by(entry) and target not in loaded_by(entry)]
    assert spared, (
        f"{importer} -> {target} is listed for import time, but no light entry point "
        f"({', '.join(ENTRY_POINTS)}) loads {importer} without {target}: hoist it to the top of "
        f"{importer} and take it off FUNCTION_IMPORTS"
    )


def _top_level_packages(module: str) -> Set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    names: Set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _is_optional_package(name: str) -> bool:
    top = name.split(".")[0]
    return top in USERS_OWN_PACKAGES or bool(extras_of(name)) or bool(extras_of(top))


@pytest.mark.parametrize("pair", _listed("optional"), ids=" -> ".join)
def test_an_optional_entry_imports_an_optional_package(pair: Pair) -> None:
    importer, target = pair
    if target in MODULES:
        optional = [name for name in _top_level_packages(target) if _is_optional_package(name)]
        assert optional, f"{target} imports no optional package at its top: hoist {importer} -> {target}"
    else:
        assert _is_optional_package(target), (
            f"{target} is installed by no extra of setup.cfg (nor in USERS_OWN_PACKAGES): "
            f"hoist it to the top of {importer} and take it off FUNCTION_IMPORTS"
        )


@pytest.mark.parametrize("pair", _listed("upward"), ids=" -> ".join)
def test_an_upward_entry_is_an_allowed_upward_import(pair: Pair) -> None:
    assert pair in UPWARD_IMPORTS, f"{pair} is not in test_layering.UPWARD_IMPORTS: give it another reason or hoist it"


@pytest.mark.parametrize("pair", _listed("platform"), ids=" -> ".join)
def test_a_platform_entry_handles_the_import_failing(pair: Pair) -> None:
    unguarded = [line for line, guarded in function_imports().get(pair, []) if not guarded]
    assert not unguarded, (
        f"{pair[0]} imports {pair[1]} at lines {unguarded} outside a try that handles ImportError: "
        "guard it, or hoist it"
    )


@pytest.mark.parametrize("pair", _listed("heavy"), ids=" -> ".join)
def test_a_heavy_entry_spares_its_importer_a_heavy_package(pair: Pair) -> None:
    importer, target = pair
    spared = HEAVY & (_fresh_modules(f"import {target}") - _fresh_modules(f"import {importer}"))
    heavy_here = sys.version_info >= HEAVY_ONLY_SINCE.get(target, (0,))
    assert spared or not heavy_here, f"importing {target} loads none of {sorted(HEAVY)} that {importer} does not: hoist it"


@pytest.fixture(scope="module")
def plain_run_modules(tmp_path_factory: pytest.TempPathFactory) -> Set[str]:
    launcher = tmp_path_factory.mktemp("fake_cli") / "claude"
    launcher.write_text(f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n")
    launcher.chmod(0o755)
    return _fresh_modules(PLAIN_RUN.format(cli=str(launcher)))


@pytest.mark.parametrize("pair", _listed("first-use"), ids=" -> ".join)
def test_a_first_use_entry_spares_a_plain_run(pair: Pair, plain_run_modules: Set[str]) -> None:
    importer, target = pair
    assert importer in plain_run_modules and target not in plain_run_modules, (
        f"{importer} -> {target} is listed for first use, but a plain query() run "
        f"{'loads ' + target if target in plain_run_modules else 'does not load ' + importer}: "
        f"hoist it to the top of {importer} and take it off FUNCTION_IMPORTS"
    )
