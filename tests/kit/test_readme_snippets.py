"""The README's "Testing your code" snippet is real tests: written to a file and run with
pytest (tests/e2e/test_docs_examples.py runs the README's other examples as a program)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[2]


def readme_testing_snippets() -> List[str]:
    text = (REPO / "README.rst").read_text(encoding="utf-8")
    section = text.split("Testing your code\n-----------------\n", 1)[1].split("\n---", 1)[0]
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", section)
    return [textwrap.dedent(block) for block in blocks]


def test_the_readme_testing_snippets_pass(tmp_path: Path) -> None:
    snippets = readme_testing_snippets()
    assert len(snippets) == 1  # two runs of the code under test, a permission policy
    for number, snippet in enumerate(snippets):
        (tmp_path / f"test_readme_{number}.py").write_text(snippet, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "2 passed" in done.stdout, done.stdout
