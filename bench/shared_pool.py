"""The machine-wide warm pool (``claude-sync serve``) against a cold start, side by side.

    python bench/shared_pool.py                          # the pinned CLI
    python bench/shared_pool.py --cli PATH --cli PATH2   # a table per CLI, in one run
    python bench/shared_pool.py --n 20 --workers 8 --runs 8 --json out.json

The real ``claude`` CLI against ``claude_sync.testing.fake_api`` with the e2e tests' hermetic
environment. Two measurements per CLI, each cold (every process spawns its own CLIs, as
today) and leased (``CLAUDE_SYNC_SHARED_POOL`` names the socket of a ``claude-sync serve``
this script started). Every process runs in a fresh venv that finds this checkout as an
installed package (``installed_python``: no editable-install hook at start-up):

1. ``n`` sequential one-shot processes, twice: ``claude-sync PROMPT`` and a 5-line ``run()``
   script (``shared_pool_worker.py run``). Per process: wall from spawn to exit, and CPU —
   the process's own plus its reaped children's (``os.wait4``; a cold process reaps its CLI,
   so the CLI's CPU is in it). Leased processes do not run the CLI, so their row adds the
   pool's share: the CPU the pool and every CLI it runs spent during the ``n`` processes
   (from /proc, live and reaped), divided by ``n``. One leased process runs first, untimed,
   so the pool holds a warm CLI for the plan (the steady state of a cron job or a loop).
2. ``workers`` processes at once, each ``AgentPool(max_workers=2)`` over ``runs`` prompts:
   peak summed RSS of every CLI process (and their children) sampled every 20 ms, and wall
   from the first start to the last exit. Leased: the pool starts empty (its CLIs' cold
   starts are inside the timing), capped at ``--max-clis`` (4).

Goals (issue 41): leased ≤ 0.2× cold wall and ≤ 0.2× cold CPU per one-shot process; the
workers' CLI memory ≤ 0.4× at no worse wall. Timings come from a shared 2-core machine: read
them as ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import site
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from claude_sync.testing.fake_api import FakeAnthropicAPI, text  # noqa: E402
from tests.e2e.harness import default_cli_path, hermetic_env  # noqa: E402

WORKER = BENCH / "shared_pool_worker.py"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def proc_table() -> Dict[int, Tuple[int, List[str]]]:
    """pid -> (parent pid, the /proc stat fields after the command name)."""
    table: Dict[int, Tuple[int, List[str]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            table[int(entry)] = (int(fields[1]), fields)
    return table


def descendants(table: Dict[int, Tuple[int, List[str]]], roots: set) -> set:
    members = set(roots)
    grew = True
    while grew:
        before = len(members)
        members |= {pid for pid, (parent, _) in table.items() if parent in members}
        grew = len(members) != before
    return members


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and every live descendant, plus what ``root`` reaped."""
    table = proc_table()
    total = 0.0
    for pid in descendants(table, {root}):
        fields = table[pid][1]
        total += int(fields[11]) + int(fields[12])
        if pid == root:
            total += int(fields[13]) + int(fields[14])
    return total / TICK


def cli_rss(cli_real: str) -> int:
    """Summed RSS (bytes) of every process running the CLI binary, and their children."""
    table = proc_table()
    roots = set()
    for pid in table:
        try:
            if os.path.realpath(f"/proc/{pid}/exe") == cli_real:
                roots.add(pid)
        except OSError:
            continue
    return sum(int(table[pid][1][21]) * PAGE for pid in descendants(table, roots) if pid in table)


def timed(argv: List[str], env: Dict[str, str], cwd: str) -> Tuple[float, float]:
    """Run ``argv`` to its end: (wall seconds, CPU seconds of it and its reaped children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[1:3]} exited {proc.returncode}: {err.decode(errors='replace')[-600:]}")
    return wall, usage.ru_utime + usage.ru_stime


class Pool:
    """A ``claude-sync serve`` this script started (ended by its PID)."""

    def __init__(self, python: str, socket_path: str, env: Dict[str, str], cwd: str, max_clis: int) -> None:
        self.socket_path = socket_path
        argv = [python, "-m", "claude_sync", "serve", "--socket", socket_path, "--max-clis", str(max_clis)]
        self.log = open(Path(socket_path).parent / "serve.log", "wb")
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not os.path.exists(socket_path):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"claude-sync serve did not start: {Path(self.log.name).read_text()[-800:]}")
            time.sleep(0.02)

    def cpu(self) -> float:
        return tree_cpu(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


def one_shots(python: str, kind: str, n: int, env: Dict[str, str], cwd: str, pool: Optional[Pool]) -> Dict[str, Any]:
    if kind == "claude-sync":
        argv = [python, "-m", "claude_sync", "--max-turns", "1", "Say hello"]
    else:
        argv = [python, str(WORKER), "run", "Say hello"]
    if pool is not None:
        env = dict(env, CLAUDE_SYNC_SHARED_POOL=pool.socket_path)
        timed(argv, env, cwd)  # the pool learns the plan and keeps a warm CLI for it
    before = pool.cpu() if pool is not None else 0.0
    samples = [timed(argv, env, cwd) for _ in range(n)]
    share = (pool.cpu() - before) / n if pool is not None else 0.0
    return {"wall": [s[0] for s in samples], "cpu": [s[1] for s in samples], "pool_share": share}


def workers(python: str, count: int, runs: int, env: Dict[str, str], cwd: str, cli_real: str) -> Dict[str, Any]:
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.02):
            peak = max(peak, cli_rss(cli_real))

    sampler = threading.Thread(target=sample, name="bench-rss")
    sampler.start()
    start = time.perf_counter()
    try:
        procs = [subprocess.Popen([python, str(WORKER), "pool", str(runs), f"worker {w}"], env=env, cwd=cwd,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for w in range(count)]  # fmt: skip
        for proc in procs:
            out, err = proc.communicate(timeout=900)
            if proc.returncode != 0:
                raise RuntimeError(f"worker exited {proc.returncode}: {err.decode(errors='replace')[-600:]}")
            if len(json.loads(out.decode().splitlines()[-1])["texts"]) != runs:
                raise RuntimeError("a worker lost runs")
    finally:
        wall = time.perf_counter() - start
        stop.set()
        sampler.join()
    return {"wall": wall, "peak_cli_rss": peak}


def installed_python(tmp: Path) -> str:
    """A fresh venv's interpreter that finds ``claude_sync`` as a plain path entry, the way a
    wheel install puts it: this checkout, and the dependencies from this interpreter's
    site-packages (a ``.pth`` file; the ``.pth`` files of that folder are not run). A
    development venv's editable install adds an import hook to every interpreter's start
    (~9 ms of CPU): a user's installed package has none, so neither has this one."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "claude_sync_checkout.pth").write_text("\n".join([str(ROOT), *site.getsitepackages()]) + "\n")
    return python


def measure_cli(cli: str, opts: argparse.Namespace) -> Dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="claude_sync-bench-pool-"))
    work = tmp / "work"
    work.mkdir()
    try:
        return measure_in(tmp, work, installed_python(tmp), cli, opts)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure_in(tmp: Path, work: Path, python: str, cli: str, opts: argparse.Namespace) -> Dict[str, Any]:
    raw: Dict[str, Any] = {"cli": cli}
    with FakeAnthropicAPI() as api:
        api.add(*[text("hello")] * (opts.n * 8 + opts.workers * opts.runs * 3 + 50))
        env = hermetic_env(tmp, api.base_url)
        env["PYTHONPATH"] = str(ROOT)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: measure that
        env["PATH"] = os.path.dirname(cli) + os.pathsep + env.get("PATH", os.defpath)  # how both find this CLI
        sock_dir = tmp / "sock"
        sock_dir.mkdir(mode=0o700)
        for kind in ("claude-sync", "run()"):
            print(f"{Path(cli).parts[-4]}: {opts.n} × {kind}, cold …", file=sys.stderr, flush=True)
            raw[f"{kind} cold"] = one_shots(python, kind, opts.n, env, str(work), None)
            pool = Pool(python, str(sock_dir / f"one-{kind[:3]}.sock"), env, str(work), opts.max_clis)
            try:
                print(f"{Path(cli).parts[-4]}: {opts.n} × {kind}, leased …", file=sys.stderr, flush=True)
                raw[f"{kind} leased"] = one_shots(python, kind, opts.n, env, str(work), pool)
            finally:
                pool.stop()
        cli_real = os.path.realpath(cli)
        print(f"{Path(cli).parts[-4]}: {opts.workers} workers × {opts.runs} runs …", file=sys.stderr, flush=True)
        raw["workers cold"] = workers(python, opts.workers, opts.runs, env, str(work), cli_real)
        pool = Pool(python, str(sock_dir / "workers.sock"), env, str(work), opts.max_clis)
        try:
            leased_env = dict(env, CLAUDE_SYNC_SHARED_POOL=pool.socket_path)
            raw["workers leased"] = workers(python, opts.workers, opts.runs, leased_env, str(work), cli_real)
        finally:
            pool.stop()
    return raw


def _goal(ratio: float, goal: float) -> str:
    return f"{ratio:.2f}× ({'meets' if ratio <= goal else 'MISSES'} ≤ {goal}×)"


def render(raw: Dict[str, Any], opts: argparse.Namespace) -> str:
    med = statistics.median
    rows = []
    for kind in ("claude-sync", "run()"):
        cold, leased = raw[f"{kind} cold"], raw[f"{kind} leased"]
        cold_wall, cold_cpu = med(cold["wall"]), med(cold["cpu"])
        wall, own = med(leased["wall"]), med(leased["cpu"])
        total = own + leased["pool_share"]
        rows += [
            (f"{kind}: wall per process, cold", f"{cold_wall * 1000:.0f} ms", ""),
            (f"{kind}: wall per process, leased", f"{wall * 1000:.0f} ms", _goal(wall / cold_wall, 0.2)),
            (f"{kind}: CPU per process, cold (incl. its CLI)", f"{cold_cpu * 1000:.0f} ms", ""),
            (f"{kind}: CPU per process, leased (own + pool's share)", f"{total * 1000:.0f} ms",
             _goal(total / cold_cpu, 0.2) + f"  own {own * 1000:.0f} ms, pool {leased['pool_share'] * 1000:.0f} ms"),
        ]  # fmt: skip
    cold, leased = raw["workers cold"], raw["workers leased"]
    label = f"{opts.workers} workers × {opts.runs} runs"
    rows += [
        (f"{label}: peak CLI RSS, AgentPool(2) each", f"{cold['peak_cli_rss'] / 2**20:.0f} MiB", ""),
        (f"{label}: peak CLI RSS, shared pool (max {opts.max_clis})", f"{leased['peak_cli_rss'] / 2**20:.0f} MiB",
         _goal(leased["peak_cli_rss"] / cold["peak_cli_rss"], 0.4)),
        (f"{label}: wall, AgentPool(2) each", f"{cold['wall']:.1f} s", ""),
        (f"{label}: wall, shared pool", f"{leased['wall']:.1f} s", _goal(leased["wall"] / cold["wall"], 1.0)),
    ]  # fmt: skip
    width = max(len(r[0]) for r in rows)
    lines = [f"CLI {raw['cli']}", f"{'measurement'.ljust(width)} | value    | ratio to cold (goal)"]
    lines += [f"{a.ljust(width)} | {b.ljust(8)} | {c}" for a, b, c in rows]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="append", help="a claude binary (repeatable; default: the pinned one)")
    parser.add_argument("--n", type=int, default=20, help="sequential one-shot processes per row (default 20)")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=8, help="runs per worker process (default 8)")
    parser.add_argument("--max-clis", type=int, default=4, help="the shared pool's cap (default 4)")
    parser.add_argument("--json")
    opts = parser.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "claude_sync")], check=True, stdout=subprocess.DEVNULL)
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs", file=sys.stderr)
    results = [measure_cli(cli, opts) for cli in (opts.cli or [str(default_cli_path())])]
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=2))
    print("\n\n".join(render(raw, opts) for raw in results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
