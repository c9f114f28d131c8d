"""The test suite's own shape: test modules live in the folder of what they test, and no test
module imports another one (shared pieces go to ``tests/helpers.py``, a folder's
``conftest.py`` or a non-test module such as ``tests/wire_samples.py``)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import List

import pytest

TESTS = Path(__file__).resolve().parents[1]
TEST_MODULES = sorted(TESTS.rglob("test_*.py"))


def is_test_module(name: str) -> bool:
    """``test_x`` / ``tests.a.test_x`` / ``conftest``: a name that imports a test module."""
    last = name.rpartition(".")[2]
    return last.startswith("test_") or last == "conftest"


def imported_test_modules(source: str) -> List[str]:
    """The test modules (and conftests) ``source`` imports, wherever the import stands."""
    found: List[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            if node.module and is_test_module(node.module):
                found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names if is_test_module(alias.name)]
    return found


def test_the_check_sees_every_form_of_importing_a_test_module() -> None:
    source = (
        "import test_a\nfrom test_b import x\nfrom tests.wire.test_c import y\nfrom .test_d import z\n"
        "from tests.wire import test_e\nfrom conftest import f\n"
        "def g():\n    from test_h import i\n"
        "import helpers\nfrom wire_samples import CASES\nfrom .harness import cli_version\n"
    )
    assert imported_test_modules(source) == [
        "test_a", "test_b", "tests.wire.test_c", ".test_d", "tests.wire.test_e", "conftest", "test_h",
    ]


@pytest.mark.parametrize("path", TEST_MODULES, ids=[str(p.relative_to(TESTS)) for p in TEST_MODULES])
def test_no_test_module_imports_another(path: Path) -> None:
    imported = imported_test_modules(path.read_text(encoding="utf-8"))
    assert not imported, f"{path.relative_to(TESTS)} imports {imported}: move what it shares out of the test module"


def test_test_modules_live_in_folders() -> None:
    top = [p.name for p in TEST_MODULES if p.parent == TESTS]
    assert top == [], f"test modules at the top of tests/ (put them in the folder of what they test): {top}"
