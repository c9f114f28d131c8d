"""``examples/testing/`` (a small Flask service and its tests written only with
``claude_sync.testing``) passes its own test suite, run as a user would run it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_the_example_project_passes_its_tests() -> None:
    if importlib.util.find_spec("flask") is None:
        reason = "the example project needs flask: pip install -e '.[test]'"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider",
         str(REPO / "examples" / "testing")],
        cwd=str(REPO), env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "6 passed" in done.stdout, done.stdout
