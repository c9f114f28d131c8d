"""Callback round trips side by side: this checkout, other checkouts, the official SDK.

    python bench/roundtrip.py                                   # this checkout vs official
    python bench/roundtrip.py --tree prev=../prev --tree base=../base --reps 9
    python bench/roundtrip.py --tree base=../base --callgrind   # + instructions per round trip

What one ``can_use_tool`` / ``hook_callback`` round trip costs the client process, for every
column in one run, the columns interleaved in a rotating order (each measurement a fresh
``worker.py`` process against ``fake_cli.py``, which answers at once, so the client is the
only variable):

- **CPU us / rt**: the client's CPU time (all threads, ``time.process_time``) from the first
  message to the result, per round trip; median [min-max]. Less sensitive to other load than
  wall time, but not immune: on a busy 2-core machine it moves by 20 % or more between runs
  (cache and scheduler effects), so only compare columns of the same run, and look at the min.
- **user / sys us / rt**, **voluntary switches / rt**: ``getrusage`` over the same span. A
  threaded client blocks twice per round trip (the reader in ``read``, the callback worker on
  its queue): the floor of this design, and most of the system time.
- **rt/s** (wall) and **x official** (rate ratio, > 1: faster than the official SDK).
- **calls / rt**: Python + C function calls per round trip (``sys.setprofile`` in every thread,
  difference of two workload sizes): deterministic.
- **instructions / rt** (``--callgrind``): user-space instructions of the client process per
  round trip under ``valgrind --tool=callgrind`` (difference of two workload sizes, so start-up
  cancels out): deterministic and independent of the machine's load; ~1 min per claude_sync
  column (not run for the official one).

The official column needs ``bench/.venv-official`` (see ``run.py``; ``--no-official`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402  (the bench's own helpers: launcher, official venv)

WORKLOADS = ("can_use_tool", "hook_callback")


class Column:
    def __init__(self, name: str, python: str, pythonpath: Optional[str]) -> None:
        self.name = name
        self.python = python
        self.pythonpath = pythonpath
        """The checkout whose ``claude_sync`` is imported; None: the official SDK's venv."""

    @property
    def kind(self) -> str:
        return "official" if self.pythonpath is None else "claude_sync"

    def env(self) -> Dict[str, str]:
        env = dict(os.environ)
        env.pop("BENCH_FAKE_SPEC", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = run.PYCACHE
        if self.pythonpath is None:
            env.pop("PYTHONPATH", None)
        else:
            env["PYTHONPATH"] = self.pythonpath
        return env

    def worker_argv(self, args: Dict[str, Any]) -> List[str]:
        return [self.python, str(run.WORKER), json.dumps(dict(args, column=self.kind))]

    def worker(self, args: Dict[str, Any], timeout: float = 300) -> Dict[str, Any]:
        try:
            done = subprocess.run(self.worker_argv(args), capture_output=True, text=True, timeout=timeout,
                                  env=self.env(), cwd=str(run.BENCH))  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"error": f"worker timed out after {timeout}s"}
        try:
            return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
        except (IndexError, ValueError):
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
            return {"error": f"worker exit {done.returncode}: {tail[0][:200]}"}


def callgrind_per_item(column: Column, cli: str, workload: str, n1: int, n2: int) -> Optional[float]:
    """User-space instructions per round trip of the client process (valgrind, two sizes)."""
    totals = []
    with tempfile.TemporaryDirectory(prefix="claude_sync-callgrind-") as tmp:
        for n in (n1, n2):
            out = os.path.join(tmp, f"cg.{n}")
            args = {"mode": "run", "spec": {"workload": workload, "n": n}, "cli": cli}
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *column.worker_argv(args)],
                           capture_output=True, text=True, timeout=900, env=column.env(), cwd=str(run.BENCH))  # fmt: skip
            try:
                with open(out) as handle:
                    found = re.search(r"^(?:totals|summary): (\d+)", handle.read(), re.MULTILINE)
            except OSError:
                return None
            if found is None:
                return None
            totals.append(int(found.group(1)))
    return (totals[1] - totals[0]) / (n2 - n1)


def fmt(values: List[float], digits: int = 1) -> str:
    if not values:
        return "-"
    med, lo, hi = statistics.median(values), min(values), max(values)
    return f"{med:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                        help="another checkout's claude_sync as a column (repeatable)")  # fmt: skip
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--n", type=int, default=2000, help="round trips per measurement")
    parser.add_argument("--no-official", action="store_true")
    parser.add_argument("--no-install", action="store_true", help="use bench/.venv-official only if present")
    parser.add_argument("--callgrind", action="store_true", help="also count instructions per round trip")
    parser.add_argument("--json", metavar="PATH", help="write every raw measurement to PATH")
    args = parser.parse_args(argv)

    columns = [Column("this", sys.executable, str(run.ROOT))]
    for item in args.tree:
        name, _, path = item.partition("=")
        if not path or not os.path.isdir(os.path.join(path, "claude_sync")):
            parser.error(f"--tree {item!r}: expected NAME=DIR, DIR holding claude_sync/")
        columns.append(Column(name, sys.executable, os.path.abspath(path)))
    if not args.no_official:
        official = run.ensure_official(install=not args.no_install)
        if official:
            columns.append(Column("official", official, None))
    if args.callgrind and shutil.which("valgrind") is None:
        parser.error("--callgrind needs valgrind on PATH")

    started = time.monotonic()
    load_before = os.getloadavg()[0]
    runs: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    calls: Dict[Tuple[str, str], Any] = {}
    instructions: Dict[Tuple[str, str], Optional[float]] = {}
    with tempfile.TemporaryDirectory(prefix="claude_sync-bench-") as tmp:
        cli = run.make_launcher(tmp)
        for column in columns:  # warm the bytecode caches before anything is measured
            column.worker({"mode": "run", "spec": {"workload": "can_use_tool", "n": 10}, "cli": cli})
        for rep in range(args.reps):
            order = columns[rep % len(columns):] + columns[: rep % len(columns)]
            for workload in WORKLOADS:
                for column in order:
                    result = column.worker({"mode": "run", "spec": {"workload": workload, "n": args.n}, "cli": cli})
                    bad = result.get("error") or (result.get("callbacks") != args.n and "callback count")
                    if bad:
                        run.log(f"{column.name} {workload}: {bad}")
                        continue
                    runs.setdefault((column.name, workload), []).append(result)
            run.log(f"rep {rep + 1}/{args.reps} done ({time.monotonic() - started:.0f}s)")
        for column in columns:
            for workload in WORKLOADS:
                report = column.worker({"mode": "calls", "spec": {"workload": workload}, "n1": 100, "n2": 500, "cli": cli})
                calls[(column.name, workload)] = report.get("per_item") if not report.get("error") else None
                if args.callgrind and column.kind == "claude_sync":  # valgrind + asyncio start-up: too slow
                    instructions[(column.name, workload)] = callgrind_per_item(column, cli, workload, 100, 600)
                    run.log(f"callgrind {column.name} {workload} done ({time.monotonic() - started:.0f}s)")

    names = [c.name for c in columns]
    rows: List[List[str]] = [["metric", *names]]
    for workload in WORKLOADS:
        per = {name: runs.get((name, workload), []) for name in names}
        n = args.n
        rates = {name: [n / r["t_stream"] for r in rs if r.get("t_stream")] for name, rs in per.items()}
        rows.append([f"{workload}: CPU us / rt", *(fmt([r["cpu_stream"] / n * 1e6 for r in per[c]]) for c in names)])
        rows.append(["  user us / rt", *(fmt([r["usage_stream"][0] / n * 1e6 for r in per[c] if "usage_stream" in r]) for c in names)])
        rows.append(["  sys us / rt", *(fmt([r["usage_stream"][1] / n * 1e6 for r in per[c] if "usage_stream" in r]) for c in names)])
        rows.append(["  voluntary switches / rt", *(fmt([r["usage_stream"][2] / n for r in per[c] if "usage_stream" in r], 2) for c in names)])
        rows.append(["  rt/s (wall)", *(fmt(rates[c], 0) for c in names)])
        if "official" in names and rates["official"]:
            official_rate = statistics.median(rates["official"])
            rows.append(["  x official (rate)", *(f"{statistics.median(rates[c]) / official_rate:.2f}x" if rates[c] else "-" for c in names)])
        rows.append(["  calls / rt", *("-" if calls.get((c, workload)) is None else f"{calls[(c, workload)]:.1f}" for c in names)])
        if args.callgrind:
            rows.append(["  instructions / rt", *("-" if instructions.get((c, workload)) is None else f"{instructions[(c, workload)]:,.0f}" for c in names)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print(f"callback round trips: {args.reps} reps x {args.n} rt, median [min-max]; "
          f"{time.monotonic() - started:.0f}s; load average before/after: {load_before:.1f}/{os.getloadavg()[0]:.1f}")  # fmt: skip
    for column in columns:
        print(f"  {column.name}: {column.pythonpath or 'claude-agent-sdk ' + run.OFFICIAL_VERSION}")
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)))
        if index == 0:
            print("  ".join("-" * w for w in widths))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"runs": {f"{c}|{w}": rs for (c, w), rs in runs.items()},
                       "calls": {f"{c}|{w}": v for (c, w), v in calls.items()},
                       "instructions": {f"{c}|{w}": v for (c, w), v in instructions.items()}}, handle, indent=1)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
