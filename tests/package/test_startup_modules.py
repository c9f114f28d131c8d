"""The two short-process paths stay lean: the modules a one-shot ``run()`` script and the
``claude-sync "prompt"`` command load, counted (no timing: speed is measured by
``bench/startup.py``).

A process that leases a warm CLI (issue 41) pays little more than Python's start-up, so every
module these paths load is real time. Each path runs end to end in a bare interpreter (``-S``:
no ``site``, so no ``.pth`` file of the machine adds modules), in a hermetic environment (a
scratch ``HOME`` and ``CLAUDE_CONFIG_DIR``, no secret and no URL in the environment, which
would load the URL parser to remember them), against the bench's fake CLI; the modules are
read after the run has ended (everything loaded lazily on the way included).

- ``MAX_SCRIPT_OWN`` / ``MAX_COMMAND_OWN``: ceilings on claude_sync's own modules each path
  loads (the same on every Python version); ``MAX_SCRIPT_MODULES`` / ``MAX_COMMAND_MODULES``:
  on all the modules each path adds to a bare interpreter (the standard library's differ a
  little between Python versions: 3.9 loads 6 fewer than 3.13). Lower them when a change makes
  a path leaner; raise one only with a reason (and the figures of ``python bench/startup.py``).
- ``NOT_LOADED``: what neither path may load — the features a plain run does not use (they
  load on first use: ``tests/package/test_function_imports.py`` lists each lazy import with
  its reason) and the heavy standard-library modules they would bring.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path
from typing import List, Set

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_CLI = ROOT / "bench" / "fake_cli.py"

MAX_SCRIPT_OWN = 66  # 69 before issue 41's lean start-up; +2 for the shared pool's switch (_shared_pool, _shared_pool.switch), asked on every run
MAX_COMMAND_OWN = 71  # 102 before; +2 for the shared pool's switch; +1 for the program's quick exit (_cli.program)
MAX_SCRIPT_MODULES = 128  # 147 before (Python 3.13)
MAX_COMMAND_MODULES = 135  # 198 before; +1 _cli.program

NOT_LOADED_PACKAGES = (
    "claude_sync._agents.pool", "claude_sync._approvals", "claude_sync._display", "claude_sync._sessions",
    "claude_sync._structured", "claude_sync._tracing", "claude_sync._mcp.server", "claude_sync._mcp.tools",
    "claude_sync._mcp.routing", "claude_sync._options.bash_rules", "claude_sync._options.path_rules",
    "claude_sync._options.shell_commands", "claude_sync._options.shell_scan", "claude_sync._engine.tempfiles",
    "claude_sync._cli.doctor", "claude_sync._cli.locate", "claude_sync.integrations", "claude_sync.testing",
    "asyncio", "email", "hashlib", "html", "http", "ipaddress", "numbers", "pathlib", "pprint", "shlex", "socket",
    "tempfile", "typing_extensions", "urllib", "uuid",
)  # fmt: skip
"""Module names (a package covers its submodules) neither path may load (``pathlib``: with
``claude`` on ``PATH`` and no ``cli_path``)."""

SCRIPT_NOT_LOADED = ("argparse", "claude_sync._cli", "gettext")
"""And what only the command may load (its argument parser)."""

SCRIPT = (
    "from claude_sync import run, ClaudeAgentOptions\n"
    "result = run('Say hi', options=ClaudeAgentOptions(max_turns=1))\n"
    "print(result.text)\n"
)
COMMAND = (
    "import runpy\n"
    "import claude_sync._cli.program as program\n"
    "def stay(status):  # the report below needs the process: no quick exit\n"
    "    assert not status, status\n"
    "program.exit_now = stay\n"
    "sys.argv = ['claude-sync', 'Say hi']\n"
    "runpy.run_module('claude_sync', run_name='__main__', alter_sys=True)\n"
)
REPORT = (
    "import sys, json\n"
    "before = set(sys.modules) | {{'runpy'}}\n"
    "{body}"
    "import claude_sync\n"
    "added = sorted(set(sys.modules) - before - {{'json', 'json.decoder', 'json.scanner', 'json.encoder', '_json'}})\n"
    "sys.stderr.write('\\nMODULES ' + json.dumps({{'file': claude_sync.__file__, 'added': added}}) + '\\n')\n"
)
"""Runs ``body`` and writes the modules it added to a bare interpreter (``json``, which the
report itself needs, left out: the paths load it anyway) on stderr."""


@pytest.fixture(scope="module")
def hermetic(tmp_path_factory: pytest.TempPathFactory) -> dict:
    scratch = tmp_path_factory.mktemp("startup")
    bin_dir = scratch / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "claude"
    launcher.write_text(f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n")
    launcher.chmod(0o755)
    (scratch / "home" / ".claude").mkdir(parents=True)
    env = {
        "PATH": os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
        "HOME": str(scratch / "home"),
        "CLAUDE_CONFIG_DIR": str(scratch / "home" / ".claude"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()]),
        "BENCH_FAKE_SPEC": json.dumps({"workload": "first"}),
        "LANG": "C.UTF-8",
    }
    return {"env": env, "cwd": str(scratch)}


def _added(body: str, hermetic: dict, says: str) -> List[str]:
    """The modules ``body`` adds to a bare interpreter; it must print ``says`` (the run ran)."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", REPORT.format(body=body)],
        capture_output=True, text=True, timeout=120, env=hermetic["env"], cwd=hermetic["cwd"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == says, done.stdout
    report = json.loads(done.stderr.rpartition("\nMODULES ")[2])
    assert report["file"] == str(ROOT / "claude_sync" / "__init__.py")  # this checkout
    return report["added"]


def _forbidden(added: List[str], names: tuple) -> Set[str]:
    return {module for module in added for name in names if module == name or module.startswith(name + ".")}


def test_a_run_script_loads_few_modules(hermetic: dict) -> None:
    added = _added(SCRIPT, hermetic, "answered=0 errors=0")  # the fake CLI's result text
    bad = _forbidden(added, NOT_LOADED_PACKAGES + SCRIPT_NOT_LOADED)
    assert not bad, f"a 5-line run() script loads {sorted(bad)}: load them on first use"
    own = [module for module in added if module.startswith("claude_sync")]
    assert len(own) <= MAX_SCRIPT_OWN, f"a 5-line run() script loads {len(own)} claude_sync modules (ceiling {MAX_SCRIPT_OWN}): {own}"
    assert len(added) <= MAX_SCRIPT_MODULES, (
        f"a 5-line run() script loads {len(added)} modules (ceiling {MAX_SCRIPT_MODULES}): {added}"
    )


def test_the_command_loads_few_modules(hermetic: dict) -> None:
    added = _added(COMMAND, hermetic, "hello")  # the fake CLI's answer
    bad = _forbidden(added, NOT_LOADED_PACKAGES)
    assert not bad, f'claude-sync "prompt" loads {sorted(bad)}: load them on first use'
    assert "argparse" in added and "claude_sync._cli.shell" in added  # the command really ran
    own = [module for module in added if module.startswith("claude_sync")]
    assert len(own) <= MAX_COMMAND_OWN, f'claude-sync "prompt" loads {len(own)} claude_sync modules (ceiling {MAX_COMMAND_OWN}): {own}'
    assert len(added) <= MAX_COMMAND_MODULES, (
        f'claude-sync "prompt" loads {len(added)} modules (ceiling {MAX_COMMAND_MODULES}): {added}'
    )
