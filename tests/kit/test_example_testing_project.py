"""``examples/testing/`` (a small Flask service and its tests written only with
``claude_sync.testing``) passes its own test suite, run as its docstring says — from the
repository root with only ``flask`` and ``pytest`` installed: ``-p no:timeout`` keeps our own
``pytest-timeout`` out, so the repository's ``timeout`` setting cannot leak into the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import require_package

REPO = Path(__file__).resolve().parents[2]


def test_the_example_project_passes_its_tests() -> None:
    require_package("flask", import_it=False)  # the example project is a Flask service
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider",
         "-p", "no:timeout", "examples/testing"],
        cwd=str(REPO), env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "10 passed" in done.stdout, done.stdout
