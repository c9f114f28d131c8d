"""Approvals on the real CLI (fake API): how long a deferred run takes to its PendingApproval,
how long a resume takes to its first message and to its result, and where each CLI version
applied the decision (the PreToolUse hook, or ``can_use_tool`` when it skipped the hook).

    python bench/approvals.py --cli PATH [--reps 10] [--mode default|acceptEdits]

Each rep: a fresh HOME; the first run with an ``InMemorySessionStore``, the resume in another
fresh HOME from that store (allow). The bench wraps two module-level names of
``claude_sync._approvals.flow`` to observe it (``collect_turn``, ``ApprovalGate``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claude_sync import ApprovalDecision, ApprovalPolicy, ClaudeAgentOptions, InMemorySessionStore  # noqa: E402
from claude_sync import PendingApproval, resume_approval, run_with_approvals  # noqa: E402
from claude_sync._approvals import flow  # noqa: E402
from claude_sync.testing import FakeAnthropicAPI, scrubbed_environ, text, tool_use  # noqa: E402
from claude_sync.testing.offline import find_offline_cli, hermetic_env  # noqa: E402

POLICY = ApprovalPolicy(rules=["Bash(echo:*)"])
marks: Dict[str, float] = {}
where: List[str] = []


class WatchedGate(flow.ApprovalGate):
    def _applied(self, call_id: str, place: str) -> None:
        where.append(place)
        super()._applied(call_id, place)


def watched_collect(items: Any) -> Any:
    out = []
    for item in items:
        marks.setdefault("first", time.monotonic())
        out.append(item)
    return flow_collect(out)


flow_collect = flow.collect_turn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", default=find_offline_cli())
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--mode", default="default")
    args = parser.parse_args()
    flow.ApprovalGate = WatchedGate  # type: ignore[misc]
    flow.collect_turn = watched_collect  # type: ignore[assignment]
    defer_s, first_s, result_s, ran = [], [], [], Counter()
    for _ in range(args.reps):
        root = Path(tempfile.mkdtemp(prefix="bench-approvals-"))
        work = root / "work"
        work.mkdir()
        store = InMemorySessionStore()
        with FakeAnthropicAPI([tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("done")]) as api, scrubbed_environ():
            def options(home: str) -> ClaudeAgentOptions:
                return ClaudeAgentOptions(cli_path=args.cli, env=hermetic_env(root / home, api.base_url), cwd=str(work),
                                          session_store=store, permission_mode=args.mode)  # fmt: skip
            started = time.monotonic()
            pending = run_with_approvals("go", policy=POLICY, options=options("a"), timeout=120)
            defer_s.append(time.monotonic() - started)
            assert isinstance(pending, PendingApproval)
            marks.clear()
            started = time.monotonic()
            resume_approval(pending, ApprovalDecision.allow(), policy=POLICY, options=options("b"), timeout=120)
            result_s.append(time.monotonic() - started)
            first_s.append(marks["first"] - started)
            ran[(work / "ran.txt").read_text()] += 1

    def fmt(values: List[float]) -> str:
        return f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"

    print(f"CLI {args.cli}, mode {args.mode}, {args.reps} reps")
    print(f"  defer -> PendingApproval:  {fmt(defer_s)}")
    print(f"  resume -> first message:   {fmt(first_s)}")
    print(f"  resume -> result:          {fmt(result_s)}")
    print(f"  decision applied by: {dict(Counter(where))}; ran.txt contents: {dict(ran)}")


if __name__ == "__main__":
    main()
