"""Deterministic performance guards: work done per item, never wall time.

- Python+C function calls per streamed message and per ``can_use_tool`` round trip, counted
  with a profile hook (``sys.setprofile`` + ``threading.setprofile``, events ``call`` and
  ``c_call``, every thread of a fresh client process) by ``bench/worker.py`` against the
  fast fake CLI ``bench/fake_cli.py``, as the difference of two workload sizes so start-up
  and teardown cancel out. ``python bench/run.py --only calls --profile`` shows where the
  calls go, function by function.
- The number of modules ``import claude_sync`` loads into a bare interpreter (``-S``: no
  ``site``, so ``.pth`` files of the machine cannot hide or add modules).

The ceilings are the project's targets (see ``bench/run.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "bench" / "worker.py"
FAKE_CLI = ROOT / "bench" / "fake_cli.py"

MAX_CALLS_PER_MESSAGE = 35
MAX_CALLS_PER_PERMISSION_ROUND_TRIP = 86
MAX_CALLS_PER_HOOK_ROUND_TRIP = 70
MAX_IMPORT_MODULES = 120


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("BENCH_FAKE_SPEC", None)
    return env


@pytest.fixture
def fake_claude(tmp_path: Path) -> str:
    """An executable ``claude`` that runs the bench's fake CLI with this interpreter."""
    launcher = tmp_path / "claude"
    launcher.write_text(
        f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n"
    )
    launcher.chmod(0o755)
    return str(launcher)


def _count_calls(cli: str, spec: Dict[str, Any], n1: int, n2: int) -> Dict[str, Any]:
    args = {"column": "claude_sync", "mode": "calls", "cli": cli, "spec": spec, "n1": n1, "n2": n2}
    done = subprocess.run(
        [sys.executable, str(WORKER), json.dumps(args)],
        capture_output=True, text=True, timeout=120, env=_env(), cwd=str(ROOT),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["error"] is None, report
    return report


def test_calls_per_streamed_message(fake_claude: str) -> None:
    report = _count_calls(fake_claude, {"workload": "stream", "size": 40}, 500, 2500)
    # both runs really streamed (the fake's result line says nothing was left unanswered)
    assert report["results"] == ["answered=0 errors=0"] * 2
    assert report["calls_n2"] > report["calls_n1"] > 0
    assert report["per_item"] <= MAX_CALLS_PER_MESSAGE, (
        f"{report['per_item']:.1f} Python+C calls per streamed message "
        f"(ceiling {MAX_CALLS_PER_MESSAGE}); see `python bench/run.py --only calls --profile`"
    )


def test_calls_per_can_use_tool_round_trip(fake_claude: str) -> None:
    report = _count_calls(fake_claude, {"workload": "can_use_tool"}, 50, 250)
    # every permission request got an "allow" answer
    assert report["results"] == ["answered=50 errors=0", "answered=250 errors=0"]
    assert report["per_item"] <= MAX_CALLS_PER_PERMISSION_ROUND_TRIP, (
        f"{report['per_item']:.1f} Python+C calls per can_use_tool round trip "
        f"(ceiling {MAX_CALLS_PER_PERMISSION_ROUND_TRIP}); see `python bench/run.py --only calls --profile`"
    )


def test_calls_per_hook_callback_round_trip(fake_claude: str) -> None:
    report = _count_calls(fake_claude, {"workload": "hook_callback"}, 50, 250)
    assert report["results"] == ["answered=50 errors=0", "answered=250 errors=0"]
    assert report["per_item"] <= MAX_CALLS_PER_HOOK_ROUND_TRIP, (
        f"{report['per_item']:.1f} Python+C calls per hook_callback round trip "
        f"(ceiling {MAX_CALLS_PER_HOOK_ROUND_TRIP}); see `python bench/run.py --only calls --profile`"
    )


def test_import_module_count() -> None:
    code = (
        "import sys, json\n"
        "before = set(sys.modules)\n"
        "import claude_sync\n"
        "added = sorted(set(sys.modules) - before)\n"
        "print(json.dumps({'file': claude_sync.__file__, 'added': added}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
        cwd="/",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["file"] == str(ROOT / "claude_sync" / "__init__.py")  # this checkout, really run
    added = report["added"]
    assert len(added) <= MAX_IMPORT_MODULES, (
        f"import claude_sync loads {len(added)} modules: {added}"
    )
