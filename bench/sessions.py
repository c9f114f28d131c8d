"""How fast ``list_sessions`` lists many transcripts (not a test: prints figures).

    python bench/sessions.py                  # 10,000 sessions, 5 reps
    python bench/sessions.py --sessions 2000 --reps 3 --turns 20

Generates ``--sessions`` transcripts shaped like the real CLI's (queue operations, user and
assistant lines with the usual fields, attachments, a last-prompt line; every 10th one
renamed and tagged; ``--turns`` turns each) under a temporary ``CLAUDE_CONFIG_DIR``, one
project directory, then times ``list_sessions(directory)`` and ``list_sessions()`` (every
project). Reported: median and min-max wall time; the first rep runs with a cold page cache
only if you drop caches yourself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claude_sync import list_sessions  # noqa: E402
from claude_sync._sessions.transcript import sanitize_path  # noqa: E402


def transcript(sid: str, cwd: str, turns: int, n: int) -> str:
    lines = []
    parent = None
    ts = "2026-01-01T00:00:{:02d}.000Z"
    for t in range(turns):
        prompt = f"please look at issue {n}-{t} and fix the failing test in module_{t}.py"
        lines.append({"type": "queue-operation", "operation": "enqueue", "timestamp": ts.format(t % 60), "sessionId": sid, "content": prompt})
        user = {
            "parentUuid": parent, "isSidechain": False, "type": "user", "message": {"role": "user", "content": prompt},
            "uuid": str(uuid.uuid4()), "timestamp": ts.format(t % 60), "permissionMode": "default", "userType": "external",
            "entrypoint": "sdk-py", "cwd": cwd, "sessionId": sid, "version": "2.1.197", "gitBranch": "main",
        }  # fmt: skip
        attachment = {"parentUuid": user["uuid"], "isSidechain": False, "attachment": {"type": "skill_listing", "content": "- x: y " * 40},
                      "type": "attachment", "uuid": str(uuid.uuid4()), "timestamp": ts.format(t % 60), "sessionId": sid, "cwd": cwd}  # fmt: skip
        answer = {
            "parentUuid": attachment["uuid"], "isSidechain": False, "type": "assistant", "uuid": str(uuid.uuid4()),
            "timestamp": ts.format(t % 60), "sessionId": sid, "cwd": cwd, "gitBranch": "main",
            "message": {"id": f"msg_{n}_{t}", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "Done. " * 60}],
                        "usage": {"input_tokens": 25, "output_tokens": 60}},
        }  # fmt: skip
        lines += [user, attachment, answer]
        parent = answer["uuid"]
        lines.append({"type": "last-prompt", "lastPrompt": prompt, "leafUuid": parent, "sessionId": sid})
    if n % 10 == 0:
        lines.append({"type": "custom-title", "customTitle": f"Session {n}", "sessionId": sid})
        lines.append({"type": "tag", "tag": "bench", "sessionId": sid})
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="claude_sync-bench-sessions-"))
    try:
        project = str(root / "project")
        os.mkdir(project)
        folder = root / "config" / "projects" / sanitize_path(os.path.realpath(project))
        folder.mkdir(parents=True)
        started = time.perf_counter()
        total = 0
        for n in range(args.sessions):
            sid = str(uuid.uuid4())
            text = transcript(sid, project, args.turns, n)
            total += len(text)
            (folder / f"{sid}.jsonl").write_text(text)
        print(f"generated {args.sessions} transcripts, {total / args.sessions / 1024:.1f} KiB each on average, "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
        os.environ["CLAUDE_CONFIG_DIR"] = str(root / "config")
        for label, call in (
            ("list_sessions(directory)", lambda: list_sessions(project, include_worktrees=False)),
            ("list_sessions()", lambda: list_sessions()),
            ("list_sessions(directory, limit=50)", lambda: list_sessions(project, limit=50, include_worktrees=False)),
        ):
            times = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                rows = call()
                times.append(time.perf_counter() - t0)
            assert len(rows) == min(args.sessions, 50 if "limit" in label else args.sessions), len(rows)
            print(f"{label:38s} median {statistics.median(times):.3f} s  (min {min(times):.3f}, max {max(times):.3f}) "
                  f"for {len(rows)} rows")  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
