"""What the fail-closed rule matcher costs per tool call (``ApprovalPolicy.reason_for``).

    python bench/approval_rules.py [--reps 3]

Times ``reason_for`` with the rules ``Bash(rm:*)``, ``Bash(curl:*)``, ``Bash(git push:*)``,
``Read(~/.ssh/*)`` over the corpora in ``tests/approvals/data`` (per line: median and worst),
then hostile lines (1 MB, 10 000 nested ``$(``, 200 KiB of a here-document, 5000 ``eval``),
each once: every one must ask, and the time is printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claude_sync import ApprovalPolicy  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "approvals" / "data"
POLICY = ApprovalPolicy(rules=["Bash(rm:*)", "Bash(curl:*)", "Bash(git push:*)", "Read(~/.ssh/*)"])


def lines(name: str) -> List[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    out = [line.replace("\u23ce", "\n") for line in text.split("\n") if line and not line.startswith("#")]
    return [line.split("\t", 1)[-1] for line in out]


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    for name in ("benign_bash.txt", "dangerous_bash.txt"):
        per_line = []
        for line in lines(name):
            per_line.append(min(timed(lambda: POLICY.reason_for("Bash", {"command": line}, cwd="/srv/app")) for _ in range(args.reps)))
        print(f"{name}: {len(per_line)} lines, median {statistics.median(per_line) * 1e6:.0f} us, "
              f"worst {max(per_line) * 1e3:.2f} ms")  # fmt: skip
    hostile: Dict[str, str] = {
        "1 MB line": "echo " + "a" * (1 << 20) + "; rm x",
        "10 000 nested $(": "$(" * 10_000 + "rm x" + ")" * 10_000,
        "200 KiB here-document": "cat > f <<'EOF'\n" + "data line rm -rf /\n" * 11_000 + "EOF\nrm x",
        "200 KiB unquoted here-document": "cat > f <<EOF\n" + "data $HOME line\n" * 12_000 + "EOF\nrm x",
        "5000 eval": "eval " * 5000 + "rm x",
        "100 000 parallel words": "parallel " + "a " * 100_000,
    }
    for label, line in hostile.items():
        asked: List[object] = []
        seconds = timed(lambda: asked.append(POLICY.reason_for("Bash", {"command": line})))
        print(f"{label}: {seconds * 1e3:.1f} ms, asks: {asked[0] is not None}")


if __name__ == "__main__":
    main()
