"""Start-up of a short process: what a one-shot script and ``claude-sync "prompt"`` cost in
Python before and around the CLI (issue 41: a process that leases a warm CLI pays only this).

    python bench/startup.py                     # fast fake CLI, 15 reps
    python bench/startup.py --cli PATH          # + the same two paths on a real CLI (fake API)
    python bench/startup.py --baseline DIR      # + the rows from another checkout, interleaved

Rows, each a fresh interpreter with bytecode on (``PYTHONDONTWRITEBYTECODE`` removed; the
sources are compiled first), median and min–max over the repetitions, the order rotated:

- ``python -c pass``: the interpreter alone (the floor);
- ``import claude_sync``;
- ``script``: the 5-line ``run()`` script (``from claude_sync import run, ClaudeAgentOptions``,
  ``run("…", options=ClaudeAgentOptions(max_turns=1))``, ``print(result.text)``);
- ``claude-sync``: ``python -m claude_sync "…"``.

The two paths run end to end against ``fake_cli.py`` (a Python fake ``claude`` on ``PATH``, a
few ms of its own), or with ``--cli`` against that CLI and ``claude_sync.testing.fake_api``
(what a cold process costs). Wall is measured from here; CPU is the process's and its reaped
children's (the CLI's included), user + system. ``modules`` is ``len(sys.modules)`` at exit,
from one extra untimed run (the count ``tests/package/test_startup_modules.py`` guards).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
FAKE_CLI = BENCH / "fake_cli.py"

SCRIPT = (
    "from claude_sync import run, ClaudeAgentOptions\n"
    "result = run('Say hi', options=ClaudeAgentOptions(max_turns=1))\n"
    "print(result.text)\n"
)
COUNT = (  # the untimed run that counts modules: the same code, then len(sys.modules) on stderr
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES %d\\n' % len(sys.modules)))\n"
    "sys.argv = {argv!r}\n"
    "{run}\n"
)


def rows() -> Dict[str, Tuple[List[str], str]]:
    """Row name → (python arguments, the runpy call that does the same for the count)."""
    return {
        "python -c pass": (["-c", "pass"], "pass"),
        "import claude_sync": (["-c", "import claude_sync"], "import claude_sync"),
        "script (run())": (["-c", SCRIPT], f"exec({SCRIPT!r})"),
        "claude-sync": (
            ["-m", "claude_sync", "Say hi"],
            "runpy.run_module('claude_sync', run_name='__main__', alter_sys=True)",
        ),
    }


def launcher(directory: str) -> str:
    """An executable ``claude`` in ``directory`` that runs the fast fake CLI."""
    path = Path(directory) / "claude"
    path.write_text(
        f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n"
    )
    path.chmod(0o755)
    return directory


def timed(argv: List[str], env: Dict[str, str]) -> Tuple[float, float]:
    """(wall s, CPU s of the process and its reaped children) of one run; raises on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), capture_output=True, timeout=120)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[1:3]} exited {done.returncode}: {done.stderr[-1500:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def module_count(python: str, argv: List[str], run: str, env: Dict[str, str]) -> int:
    code = COUNT.format(argv=["x"] + argv[2:] if argv[0] == "-m" else ["x"], run=run)
    done = subprocess.run([python, "-c", code], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    marks = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    if done.returncode != 0 or not marks:
        raise RuntimeError(f"counting {argv[:2]} failed: {done.stderr[-1500:]}")
    return int(marks[-1].split()[1])


def fmt(values: List[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{statistics.median(ms):6.0f} ({min(ms):.0f}–{max(ms):.0f})"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--cli", help="also run the two paths on this real claude (fake API)")
    parser.add_argument("--baseline", help="a checkout whose claude_sync to compare with")
    parser.add_argument("--json", help="write the raw figures here")
    args = parser.parse_args(argv)
    python = sys.executable
    sources = {"this": str(ROOT)}
    if args.baseline:
        sources["baseline"] = str(Path(args.baseline).resolve())
    for source in sources.values():
        subprocess.run([python, "-m", "compileall", "-q", str(Path(source) / "claude_sync")],
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                       check=True)  # fmt: skip
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "BENCH_FAKE_SPEC")}
    results: Dict[str, Dict[str, List[float]]] = {}
    modules: Dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="claude_sync-bench-startup-") as scratch:
        envs: Dict[str, Dict[str, str]] = {}
        fake_bin = launcher(scratch)
        api = None
        if args.cli:
            from claude_sync.testing.fake_api import FakeAnthropicAPI
            from claude_sync.testing.with_fake_api import fake_api_environ, reply_for

            api = FakeAnthropicAPI(responder=reply_for, idle_timeout=None, lifetime=None)
            api.__enter__()
            config = Path(scratch) / ".claude"
            config.mkdir()
        try:
            for name, source in sources.items():
                env = dict(base_env, PYTHONPATH=source, PATH=fake_bin + os.pathsep + base_env.get("PATH", ""),
                           BENCH_FAKE_SPEC=json.dumps({"workload": "first"}))  # fmt: skip
                envs[f"{name}/fake"] = env
                if api is not None:
                    real = fake_api_environ(api.base_url, str(config), dict(base_env, PYTHONPATH=source))
                    real["PATH"] = str(Path(args.cli).resolve().parent) + os.pathsep + real.get("PATH", "")
                    envs[f"{name}/cli"] = real
            plan = []
            for env_name in envs:
                for row, (row_argv, run) in rows().items():
                    if env_name.endswith("/cli") and row in ("python -c pass", "import claude_sync"):
                        continue
                    if row == "python -c pass" and not env_name.startswith("this/"):
                        continue
                    plan.append((f"{row} [{env_name}]", [python] + row_argv, envs[env_name], run))
            for label, command, env, run in plan:  # warm the page cache and bytecode once
                timed(command, env)
                modules[label] = module_count(python, command[1:], run, env)
            for rep in range(args.reps):
                shift = rep % len(plan)
                for label, command, env, _ in plan[shift:] + plan[:shift]:
                    wall, cpu = timed(command, env)
                    results.setdefault(label, {"wall": [], "cpu": []})
                    results[label]["wall"].append(wall)
                    results[label]["cpu"].append(cpu)
        finally:
            if api is not None:
                api.__exit__(None, None, None)
    print(f"python {sys.version.split()[0]}, {args.reps} reps, load average {os.getloadavg()[0]:.2f}")
    print(f"{'':44s} {'wall ms':>18s} {'CPU ms':>18s} {'modules':>8s}")
    for label, figures in results.items():
        print(f"{label:44s} {fmt(figures['wall']):>18s} {fmt(figures['cpu']):>18s} {modules[label]:8d}")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "modules": modules}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
