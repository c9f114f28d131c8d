"""Many agents, side by side: the real CLI against the fake API (``claude_sync.testing.fake_api``).

    python bench/agents.py                  # the table, pinned CLI, 32 runs, 5 reps
    python bench/agents.py --cli PATH --n 32 --reps 5 --json out.json

Every measurement is a fresh interpreter (``agents_worker.py``) with the hermetic
environment of the e2e tests; this process runs the fake API and samples the summed RSS of
the worker and all its descendants (CLIs included) every 20 ms for the peak. CPU seconds
are the worker's own plus its reaped children's (every CLI is reaped before the worker
exits). Rows:

- submit → first message: a cold ``query()`` vs. a warm CLI leased from
  ``AgentPool(warm=1)``; and submit → *result* on a reused CLI (reset by ``/clear``).
- one warm CLI: CPU (CLI + client) of a turn, of ``/clear`` + a turn (what a pooled run
  costs), of ``/clear`` alone, and of ``/clear`` written together with the next prompt.
- ``n`` one-turn runs: ``AgentPool(max_workers=4)`` (start-up inside the timing), the same
  once ``warm=4`` CLIs are parked (steady state), ``n`` threads each calling ``query()``,
  and the official SDK's ``asyncio.gather`` over ``n`` ``query()`` calls (its venv comes from
  ``bench/run.py``'s ``ensure_official``; without it that column is empty).

Timings are from a shared, loaded machine: read them as ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(BENCH)]

from run import ensure_official  # noqa: E402

from claude_sync.testing.fake_api import FakeAnthropicAPI, text  # noqa: E402
from tests.e2e.harness import default_cli_path, hermetic_env  # noqa: E402

WORKER = BENCH / "agents_worker.py"
MODES = ("cold_first", "warm_first", "reset", "pool", "pool_warm", "threads", "official")


def tree_rss(root: int) -> int:
    """Summed RSS (bytes) of ``root`` and its descendants, from /proc."""
    parents: Dict[int, int] = {}
    rss: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    members = {root}
    grew = True
    while grew:
        before = len(members)
        members |= {pid for pid, parent in parents.items() if parent in members}
        grew = len(members) != before
    return sum(rss.get(pid, 0) for pid in members)


def measure(python: str, args: Dict[str, Any], env: Dict[str, str]) -> Dict[str, Any]:
    """Run one worker; its JSON result plus ``peak_rss`` (bytes, the whole process tree)."""
    proc = subprocess.Popen(
        [python, str(WORKER), json.dumps(args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env, cwd=str(BENCH),
    )  # fmt: skip
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.02):
            peak = max(peak, tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, name="bench-rss")
    sampler.start()
    try:
        out, err = proc.communicate(timeout=900)
    finally:
        stop.set()
        sampler.join()
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1][:300]}
    result: Dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    result["peak_rss"] = peak
    return result


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(default_cli_path()))
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--pool-size", type=int, default=4,
                        help="max_workers (and warm) of the AgentPool rows (default 4)")
    parser.add_argument("--no-official", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--only", action="append", choices=MODES,
                        help="measure only these modes (repeatable; cold_first is always measured: the ratios need it)")
    opts = parser.parse_args(argv)

    official = None if opts.no_official else ensure_official(install=True)
    tmp = Path(tempfile.mkdtemp(prefix="claude_sync-bench-agents-"))
    work = tmp / "work"
    work.mkdir()
    raw: Dict[str, Any] = {}
    with FakeAnthropicAPI() as api:
        api.add(*[text("ok")] * (opts.n * 4 + opts.reps * 8 + 50))
        env = hermetic_env(tmp, api.base_url)
        env["PYTHONPATH"] = str(ROOT)
        base = {"cli": opts.cli, "cwd": str(work), "n": opts.n, "reps": opts.reps, "pool_size": opts.pool_size}
        plan = [("cold_first", sys.executable), ("warm_first", sys.executable), ("reset", sys.executable),
                ("pool", sys.executable),
                ("pool_warm", sys.executable), ("threads", sys.executable)] + ([("official", official)] if official else [])  # fmt: skip
        if opts.only:
            plan = [(mode, python) for mode, python in plan if mode in opts.only or mode == "cold_first"]
        for mode, python in plan:
            print(f"measuring {mode} …", file=sys.stderr, flush=True)
            run_env = dict(env)
            if mode == "official":
                run_env.pop("PYTHONPATH")
            raw[mode] = measure(python, dict(base, mode=mode), run_env)
    if opts.json:
        Path(opts.json).write_text(json.dumps(raw, indent=2))
    print(render(raw, opts.n, opts.pool_size))
    return 0


def render(raw: Dict[str, Any], n: int, size: int = 4) -> str:
    med = statistics.median
    cold = raw["cold_first"]
    cold_first = med(cold["first_message_s"])
    cold_cpu = med(cold["cpu_per_run_s"])
    rows = [("submit → first message, cold query()", f"{cold_first * 1000:.0f} ms", "")]
    warm = raw.get("warm_first")
    if warm and "error" not in warm:
        rows += [
            ("submit → first message, warm (AgentPool warm=1)", f"{med(warm['first_message_s']) * 1000:.0f} ms",
             _goal(med(warm["first_message_s"]) / cold_first, 0.1)),
            ("submit → result (whole run), reused CLI (after /clear)", f"{med(warm['reused_result_s']) * 1000:.0f} ms",
             f"{med(warm['reused_result_s']) / cold_first:.2f}× of a cold first message (no goal)"),
        ]  # fmt: skip
    rows.append(("CPU of one cold run (client + CLI)", f"{cold_cpu:.2f} s", ""))
    if "reset" in raw:
        rows += _reset_rows(raw["reset"], cold_cpu)
    official = raw.get("official") or {}
    for mode, label in (("pool", f"AgentPool(max_workers={size})"), ("threads", f"{n} threads × query()"),
                        ("official", f"official asyncio.gather × {n}")):  # fmt: skip
        r = raw.get(mode)
        if mode not in raw and mode != "official":
            continue
        if not r or "error" in r:
            rows.append((f"{n} runs: {label}", (r or {}).get("error", "not measured"), ""))
            continue
        wall_goal = _goal(r["wall_s"] / official["wall_s"], 0.2) if mode == "pool" and "wall_s" in official else ""
        cpu_goal = _goal(r["cpu_s"] / n / cold_cpu, 0.1) if mode == "pool" else ""
        mem_goal = _goal(r["peak_rss"] / official["peak_rss"], 0.3) if mode == "pool" and "peak_rss" in official else ""
        rows.append((f"{n} runs: {label} — wall", f"{r['wall_s']:.1f} s", wall_goal))
        rows.append((f"{n} runs: {label} — CPU per run", f"{r['cpu_s'] / n:.3f} s", cpu_goal))
        rows.append((f"{n} runs: {label} — peak RSS (all processes)", f"{r['peak_rss'] / 2**20:.0f} MiB", mem_goal))
    steady = raw.get("pool_warm") or {}
    if "steady_wall_s" in steady:
        rows.append((f"{n} runs: AgentPool(max_workers={size}, warm={size}), warmed — wall", f"{steady['steady_wall_s']:.1f} s",
                     _goal(steady["steady_wall_s"] / official["wall_s"], 0.2) if "wall_s" in official else ""))
        rows.append((f"{n} runs: AgentPool(max_workers={size}, warm={size}), warmed — CPU per run",
                     f"{steady['steady_cpu_s'] / n:.3f} s", _goal(steady["steady_cpu_s"] / n / cold_cpu, 0.1)))
        if "steady_client_cpu_s" in steady:
            rows.append(("  of which the Python process (client)", f"{steady['steady_client_cpu_s'] / n:.3f} s", ""))
    width = max(len(r[0]) for r in rows)
    lines = [f"{'measurement'.ljust(width)} | value      | goal"]
    lines += [f"{a.ljust(width)} | {b.ljust(10)} | {c}" for a, b, c in rows]
    return "\n".join(lines)


def _reset_rows(reset: Dict[str, Any], cold_cpu: float) -> List[Any]:
    """One warm CLI: CPU per operation (CLI + client, medians) and its share of a cold run."""
    if "reset" not in reset:
        return [("one warm CLI: turn / reset", reset.get("error", "not measured"), "")]
    med = statistics.median
    labels = {"turn": "a turn", "clear_turn": "/clear + a turn (a pooled run)", "clear": "/clear alone",
              "pipelined": "/clear written with the next prompt + the turn"}  # fmt: skip
    rows = []
    for name, label in labels.items():
        samples = reset["reset"][name]
        cli, own = med(s[0] for s in samples), med(s[1] for s in samples)
        rows.append((f"one warm CLI: CPU of {label}", f"{(cli + own) * 1000:.0f} ms",
                     f"{(cli + own) / cold_cpu:.3f}× of a cold run (CLI {cli * 1000:.0f} ms, client {own * 1000:.1f} ms)"))  # fmt: skip
    return rows


def _goal(ratio: float, bound: float) -> str:
    return f"{ratio:.2f}× (goal ≤ {bound}×: {'met' if ratio <= bound else 'NOT met'})"


if __name__ == "__main__":
    sys.exit(main())
