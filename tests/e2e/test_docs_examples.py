"""Every Python example in ``docs/`` runs, unchanged: each page's examples, in order, as one
script (a page reads as one program): the real CLI is ``claude`` on
``PATH`` and talks to the fake API (which answers any turn with a short text when it has no
script, and plays ``PAGE_REPLIES`` for the pages whose model must call a tool).
``porting.rst``'s side-by-side table is not a program and is left out. A page importing an
optional package (pydantic, OpenTelemetry: the test-integrations extra) needs it: skipped without it, failed
under ``CI=true`` unless the run says it lacks that extra (``helpers.require_package``)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from helpers import distribution_of, extras_of, require_distribution

from claude_sync.testing.fake_api import ApiRequest, FakeAnthropicAPI, Reply, text, tool_use

from .harness import hermetic_env

pytestmark = pytest.mark.e2e

DOCS = Path(__file__).resolve().parents[2] / "docs"
REPO = DOCS.parent
NOT_PROGRAMS = {"porting.rst"}
PAGE_REPLIES: Dict[str, List[Reply]] = {
    "tutorial/structured_output.rst": [
        tool_use("StructuredOutput", {"number": "F-7", "issued": "2024-05-17",
                                      "lines": [{"description": "pens", "amount": "3.60"}]}),
        tool_use("StructuredOutput", {"title": "Up", "released": "2009-05-29"}),
        tool_use("StructuredOutput", {"name": "Sarah Chen", "email": "sarah@company.com", "wants_demo": True}),
        tool_use("StructuredOutput", {"name": "Li Wei", "email": "li@example.com", "wants_demo": False}),
        tool_use("StructuredOutput", {"day": "2024-06-01", "hours": 12}),  # the class refuses it
    ],
    "tutorial/approvals.rst": [
        tool_use("Bash", {"command": "rm -rf build"}), text("Removed build."),
        tool_use("Bash", {"command": "rm -rf dist"}), text("I left dist alone."),
    ],
}  # fmt: skip
"""Turn replies, in order, for the pages whose examples need the model to call a tool."""


def _readme_reply(request: ApiRequest) -> Reply:
    """The README's examples, in one program: the approval example's model removes the build
    folder (a Bash call, then a text once the tool ran); every other turn gets a short text."""
    if request.tool_results:
        return text("Removed build.")
    if "Remove the build folder." in request.last_user_text:
        return tool_use("Bash", {"command": "rm -rf build"})
    return text("4")


PAGE_REPLIES["README.rst"] = [_readme_reply] * 40  # more than the README's examples make turns
_BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:    .*)?\n)+)", re.M)


def _blocks_as_program(text: str) -> str:
    return "\n\n".join("\n".join(line[4:] for line in match.group(1).splitlines()) for match in _BLOCK.finditer(text))


def _examples() -> List[Tuple[str, str]]:
    found = [("README.rst", _blocks_as_program((REPO / "README.rst").read_text()))]  # the front page too
    for page in sorted(DOCS.rglob("*.rst")):
        if page.name in NOT_PROGRAMS or "_build" in page.parts or "_generated" in page.parts:
            continue
        program = _blocks_as_program(page.read_text())
        if program:
            found.append((str(page.relative_to(DOCS)), program))
    return found


EXAMPLES = _examples()


def test_the_docs_have_examples() -> None:
    assert len(EXAMPLES) >= 10  # the index and every tutorial page


NEEDS_DATABASE = {"tutorial/many_machines.rst"}
"""Pages whose examples read ``DATABASE_URL``: run with a real PostgreSQL (``pg_conninfo``)."""


@pytest.mark.parametrize("name, code", [e for e in EXAMPLES if e[0] not in NEEDS_DATABASE],
                         ids=[name for name, _ in EXAMPLES if name not in NEEDS_DATABASE])  # fmt: skip
def test_docs_example_runs(name: str, code: str, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path) -> None:
    run_example(name, code, fake_api, real_cli_path, tmp_path, {})


@pytest.mark.parametrize("name, code", [e for e in EXAMPLES if e[0] in NEEDS_DATABASE],
                         ids=[name for name, _ in EXAMPLES if name in NEEDS_DATABASE])  # fmt: skip
def test_docs_example_with_a_database_runs(
    name: str, code: str, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path, pg_conninfo: str
) -> None:
    run_example(name, code, fake_api, real_cli_path, tmp_path, {"DATABASE_URL": pg_conninfo})


def optional_distributions(code: str) -> List[str]:
    """The distributions of the modules ``code`` imports that an extra of setup.cfg installs."""
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return sorted({distribution_of(module) for module in modules if extras_of(module)})


def test_a_page_importing_an_optional_package_is_seen_to_need_it() -> None:
    assert optional_distributions(dict(EXAMPLES)["tutorial/structured_output.rst"]) == ["pydantic"]
    assert optional_distributions(dict(EXAMPLES)["tutorial/tracing.rst"]) == ["opentelemetry-api", "opentelemetry-sdk"]
    assert optional_distributions("import os\nfrom claude_sync import query\nimport psycopg.rows") == ["psycopg"]


def run_example(name: str, code: str, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path, extra: Dict[str, str]) -> None:
    """Run one page's examples as a script against the real CLI (``claude`` on PATH)."""
    for distribution in optional_distributions(code):
        require_distribution(distribution)  # nothing imported here (opentelemetry would trace)
    fake_api.add(*PAGE_REPLIES.get(name, []))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(real_cli_path)
    env = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES="0")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    work = tmp_path / "work"
    work.mkdir()
    (work / "README.rst").write_text("A small project.\n")
    script = work / "example.py"
    script.write_text(code + "\n")
    out = subprocess.run([sys.executable, str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, f"{name} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
