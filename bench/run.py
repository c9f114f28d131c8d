"""Side-by-side benchmark: a raw floor, claude_sync and the official ``claude-agent-sdk``.

    python bench/run.py                 # full run (7 reps), prints the table
    python bench/run.py --quick         # 3 reps, smaller round-trip counts (~1-2 min)
    python bench/run.py --only stream_small --only can_use_tool --reps 5
    python bench/run.py --profile       # also: calls per item broken down by function
    python bench/run.py --json out.json # also: every raw measurement

Columns (each measurement is a fresh subprocess, see ``worker.py``; the three columns are
interleaved within every repetition, in a rotating order):

- **floor**: plain Python — ``Popen`` of the same fake CLI, a reader thread doing
  ``readline`` + ``json.loads`` + ``SimpleQueue.put``, a consumer doing ``get``; CLI requests
  answered on a ``ThreadPoolExecutor`` with ``json.dumps`` + ``write``.
- **claude_sync**: ``query()`` from this repository (``PYTHONPATH`` = the repo root).
- **official**: ``claude-agent-sdk`` 0.2.184 under ``anyio.run``, from its own venv
  ``bench/.venv-official`` (created on first use with ``pip install``; never a dependency of
  claude_sync). Without it (``--no-official`` or a failed install) that column is empty.

All three talk to ``fake_cli.py`` (single-threaded, pre-serialised output written in big
batches: it is never the bottleneck). Workloads: see ``WORKLOADS``. Rates are measured from
the first message to the result (start-up excluded; ``first_message`` measures start-up).
Ratios are "claude_sync advantage": > 1 means claude_sync is better (faster, fewer calls,
less memory) than that column. "client CPU" rows (CPU time of the client process, all
threads, per item) are much less sensitive to other load on the machine than the wall-clock
rates next to them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORKER = BENCH / "worker.py"
FAKE_CLI = BENCH / "fake_cli.py"
VENV = BENCH / ".venv-official"
OFFICIAL_VERSION = "0.2.184"
COLUMNS = ("floor", "claude_sync", "official")
MIB = 1024 * 1024
PYCACHE = os.path.join(tempfile.gettempdir(), "claude_sync-bench-pycache")

# name -> (fake CLI spec, quick spec)
WORKLOADS: Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]] = {
    "stream_small": ({"workload": "stream", "n": 100_000, "size": 40},) * 2,
    "stream_50k": ({"workload": "stream", "n": 2000, "size": 50 * 1024},) * 2,
    "line_20m": ({"workload": "big_line", "size": 20 * MIB},) * 2,
    "can_use_tool": (
        {"workload": "can_use_tool", "n": 2000},
        {"workload": "can_use_tool", "n": 1000},
    ),
    "hook_callback": (
        {"workload": "hook_callback", "n": 2000},
        {"workload": "hook_callback", "n": 1000},
    ),
    "mixed": (
        {"workload": "mixed", "n": 20_000, "requests": 2000},
        {"workload": "mixed", "n": 10_000, "requests": 1000},
    ),
    "first_message": ({"workload": "first"},) * 2,
}
SPECIAL = ("import", "calls")
ALL = tuple(WORKLOADS) + SPECIAL

# calls mode: (spec, n1, n2)
CALL_WORKLOADS: Dict[str, Tuple[Dict[str, Any], int, int]] = {
    "stream": ({"workload": "stream", "size": 40}, 1000, 5000),
    "can_use_tool": ({"workload": "can_use_tool"}, 100, 500),
    "hook_callback": ({"workload": "hook_callback"}, 100, 500),
}
IMPORTS = {
    "floor": "import json, subprocess, threading, queue, concurrent.futures",
    "claude_sync": "import claude_sync",
    "official": "import claude_agent_sdk",
}


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# ----------------------------------------------------------------------------- setup


def ensure_official(install: bool) -> Optional[str]:
    """The official SDK venv's python (created and installed on demand), or None."""
    python = VENV / "bin" / "python"
    probe = "import claude_agent_sdk; print(claude_agent_sdk.__version__)"

    def installed() -> bool:
        if not python.exists():
            return False
        done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
        return done.returncode == 0 and done.stdout.strip() == OFFICIAL_VERSION

    if installed():
        return str(python)
    if not install:
        return None
    if sys.version_info < (3, 10):
        log("official column skipped: claude-agent-sdk needs Python >= 3.10 for its venv")
        return None
    log(f"creating {VENV} with claude-agent-sdk=={OFFICIAL_VERSION} (first run only) …")
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             f"claude-agent-sdk=={OFFICIAL_VERSION}"],
            check=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as exc:
        log(f"official column skipped: could not install claude-agent-sdk: {exc}")
        return None
    return str(python) if installed() else None


def make_launcher(directory: str) -> str:
    """An executable ``claude`` that runs fake_cli.py with this interpreter (-S -E: fast)."""
    path = os.path.join(directory, "claude")
    with open(path, "w") as handle:
        handle.write(
            f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n"
        )
    os.chmod(path, 0o755)
    return path


class Runner:
    def __init__(self, official_python: Optional[str], cli: str, baseline: Optional[str] = None) -> None:
        self.pythons = {"floor": sys.executable, "claude_sync": sys.executable}
        if official_python:
            self.pythons["official"] = official_python
        self.baseline = baseline
        """``--baseline DIR``: the third column is claude_sync imported from ``DIR`` instead."""
        if baseline:
            self.pythons["official"] = sys.executable
        self.cli = cli

    def import_stmt(self, column: str) -> str:
        return IMPORTS["claude_sync" if column == "official" and self.baseline else column]

    @property
    def columns(self) -> List[str]:
        return [c for c in COLUMNS if c in self.pythons]

    def env(self, column: str) -> Dict[str, str]:
        env = dict(os.environ)
        env.pop("BENCH_FAKE_SPEC", None)
        # Measure with cached bytecode, as an installed package has it, without writing
        # __pycache__ into the source tree: pycs go to a private prefix (warmed up first).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
        if column == "official" and self.baseline:
            env["PYTHONPATH"] = self.baseline
        elif column == "official":
            env.pop("PYTHONPATH", None)
        else:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        return env

    def worker(self, column: str, args: Dict[str, Any], timeout: float = 300) -> Dict[str, Any]:
        args = dict(args, column="claude_sync" if column == "official" and self.baseline else column, cli=self.cli)
        try:
            done = subprocess.run(
                [self.pythons[column], str(WORKER), json.dumps(args)],
                capture_output=True, text=True, timeout=timeout, env=self.env(column), cwd=str(BENCH),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"error": f"worker timed out after {timeout}s"}
        lines = done.stdout.strip().splitlines()
        try:
            return json.loads(lines[-1])
        except (IndexError, ValueError):
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
            return {"error": f"worker exit {done.returncode}: {tail[0][:200]}"}

    def official_site_packages(self) -> str:
        done = subprocess.run([self.pythons["official"], "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    def warm_up(self) -> None:
        """Import every column once so its bytecode is cached before anything is timed."""
        for column in self.columns:
            self.python_snippet(column, self.import_stmt(column) + "; print('{}')")
            self.worker(column, {"mode": "run", "spec": {"workload": "first"}})

    def python_snippet(
        self, column: str, code: str, no_site: bool = False
    ) -> Tuple[float, Dict[str, Any]]:
        """Run ``code`` in a fresh interpreter of ``column``; (wall time, its last JSON line).

        ``no_site``: ``python -S`` (no ``site``, no ``.pth`` files) with the column's own
        packages on ``PYTHONPATH``, so module counts do not depend on the machine."""
        env = self.env(column)
        flags = []
        if no_site:
            flags = ["-S"]
            if column == "official" and not self.baseline:
                env["PYTHONPATH"] = self.official_site_packages()
        start = time.perf_counter()
        done = subprocess.run([self.pythons[column], *flags, "-c", code], capture_output=True, text=True,
                              env=env, cwd="/")  # fmt: skip
        wall = time.perf_counter() - start
        if done.returncode != 0:
            return wall, {"error": done.stderr.strip().splitlines()[-1][:200]}
        return wall, json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- checks


def check(name: str, spec: Dict[str, Any], r: Dict[str, Any]) -> Optional[str]:
    """Why a run's output is wrong (None if right)."""
    if r.get("error"):
        return r["error"]
    kind = spec["workload"]
    n = spec.get("n", 0)
    expect_result = "answered=0 errors=0"
    if kind == "stream" and r["messages"] != n:
        return f"got {r['messages']} of {n} messages"
    if kind == "big_line" and (r["messages"] != 1 or r["text_bytes"] != spec["size"]):
        return f"big line not delivered whole ({r['messages']} msgs, {r['text_bytes']} bytes)"
    if kind in ("can_use_tool", "hook_callback"):
        expect_result = f"answered={n} errors=0"
        if r["callbacks"] != n:
            return f"callback ran {r['callbacks']} times, expected {n}"
    if kind == "mixed":
        expect_result = f"answered={spec['requests']} errors=0"
        if r["messages"] != n:
            return f"got {r['messages']} of {n} messages"
    if r.get("result") != expect_result:
        return f"result {r.get('result')!r}, expected {expect_result!r}"
    return None


# ----------------------------------------------------------------------------- metrics


class Metric:
    """One table row: how to get a number from a run, and what is better."""

    def __init__(self, label: str, source: str, get: Callable[[Dict[str, Any], Dict[str, Any]], float],
                 unit: str, higher_better: bool, fmt: str = "rate") -> None:  # fmt: skip
        self.label = label
        self.source = source
        self.get = get
        self.unit = unit
        self.higher_better = higher_better
        self.fmt = fmt


def _rate(r: Dict[str, Any], items: float) -> float:
    return items / r["t_stream"] if r["t_stream"] else float("nan")


def _cpu(r: Dict[str, Any], items: float) -> float:
    """Microseconds of the client process's CPU (all threads) per item."""
    return r["cpu_stream"] / items * 1e6


METRICS: List[Metric] = [
    Metric("stream: 100k small msgs", "stream_small", lambda r, s: _rate(r, s["n"]), "msg/s", True),
    Metric("  client CPU per msg", "stream_small", lambda r, s: _cpu(r, s["n"]), "us", False, "us"),
    Metric(
        "  peak RSS (VmHWM)",
        "stream_small",
        lambda r, s: r["rss_peak_kib"] / 1024,
        "MiB",
        False,
        "mib",
    ),
    Metric("  OS threads (max)", "stream_small", lambda r, s: r["threads_max"], "", False, "int"),
    Metric(
        "stream: 2k x 50 KiB msgs",
        "stream_50k",
        lambda r, s: _rate(r, s["n"] * s["size"] / MIB),
        "MiB/s",
        True,
    ),
    Metric("one 20 MiB line", "line_20m", lambda r, s: r["t_stream"] * 1000, "ms", False, "ms"),
    Metric("can_use_tool round trips", "can_use_tool", lambda r, s: _rate(r, s["n"]), "rt/s", True),
    Metric("  client CPU per rt", "can_use_tool", lambda r, s: _cpu(r, s["n"]), "us", False, "us"),
    Metric("  OS threads (max)", "can_use_tool", lambda r, s: r["threads_max"], "", False, "int"),
    Metric(
        "hook_callback round trips", "hook_callback", lambda r, s: _rate(r, s["n"]), "rt/s", True
    ),
    Metric("  client CPU per rt", "hook_callback", lambda r, s: _cpu(r, s["n"]), "us", False, "us"),
    Metric("mixed: msgs + pipelined reqs", "mixed", lambda r, s: _rate(r, s["n"]), "msg/s", True),
    Metric("  client CPU per msg", "mixed", lambda r, s: _cpu(r, s["n"]), "us", False, "us"),
    Metric(
        "query() -> first message",
        "first_message",
        lambda r, s: r["t_first"] * 1000,
        "ms",
        False,
        "ms",
    ),
    Metric(
        "  import + query() -> first msg",
        "first_message",
        lambda r, s: r["t_import_first"] * 1000,
        "ms",
        False,
        "ms",
    ),
    Metric(
        "import: wall over bare python",
        "import",
        lambda r, s: r["over_bare"] * 1000,
        "ms",
        False,
        "ms",
    ),
    Metric(
        "import: in-process time", "import", lambda r, s: r["import_s"] * 1000, "ms", False, "ms"
    ),
    Metric("import: modules added", "import", lambda r, s: r["added"], "", False, "int"),
    Metric(
        "import: modules added (python -S)",
        "import:S",
        lambda r, s: r["added_no_site"],
        "",
        False,
        "int",
    ),
    Metric(
        "calls / streamed message", "calls:stream", lambda r, s: r["per_item"], "", False, "calls"
    ),
    Metric(
        "calls / can_use_tool rt",
        "calls:can_use_tool",
        lambda r, s: r["per_item"],
        "",
        False,
        "calls",
    ),
    Metric(
        "calls / hook_callback rt",
        "calls:hook_callback",
        lambda r, s: r["per_item"],
        "",
        False,
        "calls",
    ),
]

# (row label, source) -> list of (description, predicate over {"cs": value, "vs_floor": x, "vs_official": y})
TARGETS: Dict[
    Tuple[str, str], List[Tuple[str, Callable[[Dict[str, Optional[float]]], Optional[bool]]]]
] = {}


def _target(
    label: str, source: str, text: str, pred: Callable[[Dict[str, Optional[float]]], Optional[bool]]
) -> None:
    TARGETS.setdefault((label, source), []).append((text, pred))


def _ge(key: str, bound: float) -> Callable[[Dict[str, Optional[float]]], Optional[bool]]:
    return lambda v: None if v.get(key) is None else v[key] >= bound  # type: ignore[operator]


def _le(key: str, bound: float) -> Callable[[Dict[str, Optional[float]]], Optional[bool]]:
    return lambda v: None if v.get(key) is None else v[key] <= bound  # type: ignore[operator]


for _label, _source in (
    ("stream: 100k small msgs", "stream_small"),
    ("stream: 2k x 50 KiB msgs", "stream_50k"),
):
    _target(_label, _source, ">= 1.8x official", _ge("vs_official", 1.8))
    _target(_label, _source, ">= 0.85x floor", _ge("vs_floor", 0.85))
_target("  peak RSS (VmHWM)", "stream_small", "<= 30 MiB", _le("cs", 30))
_target("one 20 MiB line", "line_20m", "delivered (defaults)", lambda v: v.get("cs_ok"))
_target("can_use_tool round trips", "can_use_tool", ">= 1.3x official", _ge("vs_official", 1.3))
_target("import: wall over bare python", "import", "<= 70 ms", _le("cs", 70))
_target("import: modules added (python -S)", "import:S", "<= 120", _le("cs", 120))
_target("calls / streamed message", "calls:stream", "<= 35", _le("cs", 35))
_target("calls / can_use_tool rt", "calls:can_use_tool", "<= 86", _le("cs", 86))
_target("calls / hook_callback rt", "calls:hook_callback", "<= 70", _le("cs", 70))


def fmt_value(value: float, kind: str) -> str:
    if value != value:  # NaN
        return "nan"
    if kind == "rate":
        if value >= 10_000:
            return f"{value / 1000:.1f}k"
        return f"{value:.0f}" if value >= 100 else f"{value:.1f}"
    if kind in ("ms", "mib", "us"):
        return f"{value:.0f}" if value >= 100 else f"{value:.1f}"
    if kind == "calls":
        return f"{value:.1f}"
    return f"{value:.0f}"


def summarize(values: List[float], kind: str, show_range: bool) -> str:
    med = statistics.median(values)
    text = fmt_value(med, kind)
    if show_range and len(values) > 1:
        lo, hi = fmt_value(min(values), kind), fmt_value(max(values), kind)
        if lo != hi:
            text += f" [{lo}-{hi}]"
    return text


# ----------------------------------------------------------------------------- measuring


class Results:
    def __init__(self) -> None:
        # (source, column) -> list of run dicts (with "bad" for failures)
        self.runs: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
        self.specs: Dict[str, Dict[str, Any]] = {}

    def add(self, source: str, column: str, run: Dict[str, Any]) -> None:
        self.runs.setdefault((source, column), []).append(run)

    def failed_before(self, source: str, column: str) -> bool:
        runs = self.runs.get((source, column), [])
        return bool(runs) and all(r.get("bad") for r in runs)


def measure_workload(
    runner: Runner, results: Results, name: str, spec: Dict[str, Any], rep: int
) -> None:
    results.specs[name] = spec
    columns = runner.columns
    order = columns[rep % len(columns) :] + columns[: rep % len(columns)]
    for column in order:
        if results.failed_before(name, column):
            continue  # a column that failed once fails the same way again; don't waste time
        run = runner.worker(column, {"mode": "run", "spec": spec})
        bad = check(name, spec, run)
        if bad:
            run["bad"] = bad
        results.add(name, column, run)


def measure_import(runner: Runner, results: Results, rep: int) -> None:
    template = ("import sys, time, json\nb = len(sys.modules)\nt = time.perf_counter()\n{stmt}\n"
                "t = time.perf_counter() - t\n"
                "print(json.dumps({{'import_s': t, 'added': len(sys.modules) - b, 'total': len(sys.modules)}}))")  # fmt: skip
    columns = runner.columns
    order = columns[rep % len(columns) :] + columns[: rep % len(columns)]
    for column in order:
        # A few bare/import pairs per rep (one for the slow official import): process start-up
        # jitter on a busy 2-core machine is of the order of the thing measured.
        overs = []
        for _ in range(1 if column == "official" else 3):
            bare_wall, _ = runner.python_snippet(column, template.format(stmt="pass"))
            wall, info = runner.python_snippet(column, template.format(stmt=runner.import_stmt(column)))
            if info.get("error"):
                info["bad"] = info["error"]
                break
            overs.append(wall - bare_wall)
        if overs:
            info["over_bare"] = statistics.median(overs)
        results.add("import", column, info)
        if rep == 0:  # deterministic: once is enough
            _, no_site = runner.python_snippet(
                column, template.format(stmt=runner.import_stmt(column)), no_site=True
            )
            if no_site.get("error"):
                no_site["bad"] = no_site["error"]
            results.add("import:S", column, {"added_no_site": no_site.get("added"), **no_site})


def measure_calls(runner: Runner, results: Results) -> None:
    for name, (spec, n1, n2) in CALL_WORKLOADS.items():
        source = f"calls:{name}"
        results.specs[source] = spec
        for column in runner.columns:
            run = runner.worker(column, {"mode": "calls", "spec": spec, "n1": n1, "n2": n2})
            if run.get("error"):
                run["bad"] = run["error"]
            results.add(source, column, run)


def profile_breakdown(runner: Runner, top: int) -> Dict[str, Dict[str, Any]]:
    out = {}
    for name, (spec, n1, n2) in CALL_WORKLOADS.items():
        out[name] = runner.worker(
            "claude_sync", {"mode": "calls", "spec": spec, "n1": n1, "n2": n2, "breakdown": top}
        )
    return out


def import_breakdown(runner: Runner, top: int) -> List[Tuple[int, int, str]]:
    """``-X importtime`` rows (self us, cumulative us, module) of what ``import claude_sync``
    itself loads (the ``site`` start-up block is left out), by self time."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import claude_sync"], capture_output=True,
                          text=True, env=runner.env("claude_sync"), cwd="/")  # fmt: skip
    block: List[Tuple[int, int, str]] = []
    rows: List[Tuple[int, int, str]] = []
    for text in done.stderr.splitlines():
        if not text.startswith("import time:") or "cumulative" in text:
            continue
        parts = text[len("import time:") :].split("|")
        name = parts[2].rstrip()
        block.append((int(parts[0]), int(parts[1]), name))
        if not name.startswith("  "):  # a top-level import ends its block
            if name.strip() == "claude_sync":
                rows = block
            block = []
    rows.sort(key=lambda row: -row[0])
    return rows[:top]


# ----------------------------------------------------------------------------- table


def build_table(
    results: Results, runner: Runner, show_range: bool
) -> Tuple[List[List[str]], List[str]]:
    header = ["metric", "unit", "floor", "claude_sync", f"official {OFFICIAL_VERSION}", "cs/floor", "cs/official",
              "target", "met"]  # fmt: skip
    rows = [header]
    missed: List[str] = []
    for metric in METRICS:
        medians: Dict[str, Optional[float]] = {}
        cells: Dict[str, str] = {}
        spec = results.specs.get(metric.source, {})
        ok_cs = False
        any_data = False
        for column in COLUMNS:
            runs = results.runs.get((metric.source, column), [])
            good = [r for r in runs if not r.get("bad")]
            bad = [r for r in runs if r.get("bad")]
            if runs:
                any_data = True
            if column not in runner.pythons:
                cells[column] = "n/a"
                medians[column] = None
                continue
            if not runs:
                cells[column] = "-"
                medians[column] = None
                continue
            if not good:
                cells[column] = "FAIL: " + _short(bad[0]["bad"])
                medians[column] = None
                continue
            values = [float(metric.get(r, spec)) for r in good]
            medians[column] = statistics.median(values)
            cells[column] = summarize(values, metric.fmt, show_range)
            if bad:
                cells[column] += f" ({len(bad)} failed)"
            if column == "claude_sync":
                ok_cs = not bad
        if not any_data:
            continue
        ratios: Dict[str, Optional[float]] = {}
        for other in ("floor", "official"):
            cs, ov = medians.get("claude_sync"), medians.get(other)
            if cs is None or ov is None or cs == 0 or ov == 0:
                ratios[other] = None
            else:
                ratios[other] = cs / ov if metric.higher_better else ov / cs
        values_for_targets = {"cs": medians.get("claude_sync"), "vs_floor": ratios["floor"],
                              "vs_official": ratios["official"], "cs_ok": ok_cs}  # fmt: skip
        targets = TARGETS.get((metric.label, metric.source), [])
        target_text = "; ".join(t for t, _ in targets)
        verdicts = [pred(values_for_targets) for _, pred in targets]  # type: ignore[arg-type]
        if not targets:
            met = ""
        elif any(v is None for v in verdicts):
            met = "?"
        else:
            met = "yes" if all(verdicts) else "NO"
            if not all(verdicts):
                missed.append(f"{metric.label.strip()} ({target_text})")
        rows.append([
            metric.label, metric.unit, cells["floor"], cells["claude_sync"], cells["official"],
            "-" if ratios["floor"] is None else f"{ratios['floor']:.2f}x",
            "-" if ratios["official"] is None else f"{ratios['official']:.2f}x",
            target_text, met,
        ])  # fmt: skip
    return rows, missed


def _short(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= 48 else text[:45] + "..."


def render(rows: List[List[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 2 or i >= 7 else cell.rjust(widths[i])
                               for i, cell in enumerate(row)).rstrip())  # fmt: skip
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 reps, smaller round-trip counts")
    parser.add_argument("--only", action="append", choices=ALL, metavar="WORKLOAD",
                        help=f"run only these (repeatable): {', '.join(ALL)}")  # fmt: skip
    parser.add_argument("--reps", type=int, help="repetitions (default 7, --quick 3)")
    parser.add_argument("--no-official", action="store_true", help="skip the official SDK column")
    parser.add_argument(
        "--no-install", action="store_true", help="use bench/.venv-official only if it exists"
    )
    parser.add_argument(
        "--profile", action="store_true", help="print claude_sync's calls per item by function"
    )
    parser.add_argument("--json", metavar="PATH", help="write every raw measurement to PATH")
    parser.add_argument("--baseline", metavar="DIR", help="third column: claude_sync from the checkout DIR "
                        "(before/after a change, side by side) instead of the official SDK")  # fmt: skip
    args = parser.parse_args(argv)
    reps = args.reps or (3 if args.quick else 7)
    selected = args.only or list(ALL)
    official = None if args.no_official or args.baseline else ensure_official(install=not args.no_install)
    started = time.monotonic()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="claude_sync-bench-") as tmp:
        runner = Runner(official, make_launcher(tmp), args.baseline)
        runner.warm_up()
        results = Results()
        for rep in range(reps):
            for name in selected:
                if name in WORKLOADS:
                    spec = WORKLOADS[name][1 if args.quick else 0]
                    measure_workload(runner, results, name, spec, rep)
                elif name == "import":
                    measure_import(runner, results, rep)
            log(f"rep {rep + 1}/{reps} done ({time.monotonic() - started:.0f}s)")
        if "calls" in selected:
            measure_calls(runner, results)
            log(f"calls counted ({time.monotonic() - started:.0f}s)")
        breakdown = profile_breakdown(runner, 200) if args.profile else {}
        imports = import_breakdown(runner, 15) if args.profile else []
    rows, missed = build_table(results, runner, show_range=True)
    print(f"claude_sync benchmark: Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{reps} reps{' (--quick)' if args.quick else ''}, median [min-max]; "
          f"ratios: >1 = claude_sync better; {time.monotonic() - started:.0f}s; "
          f"load average before/after: {load_before:.1f}/{os.getloadavg()[0]:.1f}")  # fmt: skip
    if args.baseline:
        print(f"column 'official' = claude_sync from {args.baseline} (--baseline); ratios vs it: >1 = this checkout better")
    print(render(rows))
    if missed:
        print("\ntargets not met: " + "; ".join(missed))
    for name, report in breakdown.items():
        print(f"\nclaude_sync calls per item, {name} (n1={report.get('n1')}, n2={report.get('n2')}): "
              f"{report.get('per_item', float('nan')):.1f}")  # fmt: skip
        for function, value in report.get("breakdown", []):
            print(f"  {value:8.2f}  {function}")
    if imports:
        print(
            "\nimport claude_sync (-X importtime, warm bytecode), top modules by self time (us self / cumulative):"
        )
        for self_us, cumulative, module in imports:
            print(f"  {self_us:7d} {cumulative:8d}  {module}")
    if args.json:
        raw = {f"{source}|{column}": runs for (source, column), runs in results.runs.items()}
        Path(args.json).write_text(json.dumps({"specs": results.specs, "runs": raw,
                                               "profile": breakdown}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
