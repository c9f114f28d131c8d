"""What tracing costs per streamed message and per callback round trip, side by side in one run.

    python bench/tracing.py                      # this tree only: OpenTelemetry absent / API only / SDK
    python bench/tracing.py --baseline ../main   # adds a column: another checkout, OpenTelemetry absent
    python bench/tracing.py --reps 5 --messages 50000 --round-trips 1000

Columns (each measurement a fresh subprocess running ``query()`` against ``fake_cli.py``; the
columns are interleaved within every repetition):

- **baseline**: the other checkout (``--baseline``), OpenTelemetry not imported.
- **absent**: this tree, OpenTelemetry not imported (no span, nothing of it loaded).
- **api**: this tree, ``opentelemetry.trace`` imported, no SDK (the API's no-op spans).
- **sdk**: this tree, the SDK's ``TracerProvider`` and ``MeterProvider`` set up with no
  exporter and no reader: spans are recorded and dropped.

Figures: client CPU (all threads) per streamed message and per ``can_use_tool`` round trip,
medians over the repetitions, in microseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
FAKE_CLI = BENCH / "fake_cli.py"

CHILD = r"""
import json, os, resource, sys, time
mode = sys.argv[1]
if mode in ("api", "sdk"):
    from opentelemetry import trace, metrics
if mode == "sdk":
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.metrics import MeterProvider
    trace.set_tracer_provider(TracerProvider())
    metrics.set_meter_provider(MeterProvider())
from claude_sync import ClaudeAgentOptions, PermissionResultAllow, query
kwargs = {}
if json.loads(os.environ["BENCH_FAKE_SPEC"])["workload"] == "can_use_tool":
    allow = PermissionResultAllow()
    kwargs["can_use_tool"] = lambda name, tool_input, context: allow
options = ClaudeAgentOptions(cli_path=sys.argv[2], **kwargs)
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
stream = iter(query("go", options=options))
next(stream)  # started: measure from the first message on
before = cpu()
count = sum(1 for _ in stream)
print(json.dumps({"cpu": cpu() - before, "messages": count}))
"""


def measure(root: Path, mode: str, spec: Dict[str, object], cli: str) -> float:
    """CPU seconds of one run (from its first message) in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(root), BENCH_FAKE_SPEC=json.dumps(spec))
    done = subprocess.run([sys.executable, "-c", CHILD, mode, cli], capture_output=True, text=True, env=env, timeout=600, check=True)
    return float(json.loads(done.stdout.splitlines()[-1])["cpu"])


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of claude_sync (its root) to compare with")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--round-trips", type=int, default=1000)
    args = parser.parse_args(argv)
    columns = {"absent": (BENCH.parent, "absent"), "api": (BENCH.parent, "api"), "sdk": (BENCH.parent, "sdk")}
    if args.baseline is not None:
        columns = {"baseline": (args.baseline.resolve(), "absent"), **columns}
    workloads = {
        "stream (µs CPU / message)": ({"workload": "stream", "n": args.messages, "size": 40}, args.messages),
        "can_use_tool (µs CPU / round trip)": ({"workload": "can_use_tool", "n": args.round_trips}, args.round_trips),
    }
    figures: Dict[str, Dict[str, List[float]]] = {w: {c: [] for c in columns} for w in workloads}
    with tempfile.TemporaryDirectory(prefix="claude_sync-bench-") as tmp:
        run_reps(args.reps, columns, workloads, figures, launcher(tmp))
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.reps} reps")
    print("| workload | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for workload, by_column in figures.items():
        print(f"| {workload} | " + " | ".join(f"{statistics.median(v):.2f}" for v in by_column.values()) + " |")
    return 0


def launcher(directory: str) -> str:
    """An executable ``claude`` running ``fake_cli.py`` with this interpreter."""
    path = os.path.join(directory, "claude")
    with open(path, "w") as handle:
        handle.write(f"#!{sys.executable} -SE\nimport runpy\nrunpy.run_path({str(FAKE_CLI)!r}, run_name='__main__')\n")
    os.chmod(path, 0o755)
    return path


def run_reps(reps: int, columns: Dict[str, Tuple[Path, str]], workloads: Dict[str, Tuple[Dict[str, object], int]],
             figures: Dict[str, Dict[str, List[float]]], cli: str) -> None:
    for rep in range(reps):
        for workload, (spec, count) in workloads.items():
            order = list(columns)[rep % len(columns):] + list(columns)[: rep % len(columns)]
            for column in order:
                root, mode = columns[column]
                figures[workload][column].append(measure(root, mode, spec, cli) / count * 1e6)
        print(f"rep {rep + 1}/{reps} done", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
