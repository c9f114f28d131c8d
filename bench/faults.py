"""Soak, storm and kill figures (issue 22): the real CLI against the fake API, offline.

    python bench/faults.py                       # everything, the sizes of issue 22 (~15 min on 2 cores)
    python bench/faults.py --only soak --runs 200 --cli PATH
    python bench/faults.py --json out.json

Sections (each reports trials, failures, leaks, hangs):

- ``soak``: ``--runs`` (1,500) one-turn runs through ``AgentPool(max_workers=4, warm=2)``;
  errors, CLIs started/reused, this process's RSS at the start, the middle and the end.
- ``storm``: ``--cancels`` (800) runs submitted in waves of 100 against a slow API, each
  cancelled at a random moment (queued or running); every future must end cancelled or done.
- ``ctrl_c``: ``--ctrl-c`` (5) child processes each doing ``with AgentPool(...)`` with runs
  in flight, sent SIGINT; the child reports pending futures, threads and CLIs left.
- ``kill``: ``--kills`` (10) runs whose CLI is SIGKILLed while the API streams; the time
  from the kill to ``ProcessError``.
- ``edits``: ``--edits`` (600) ``rename_session``/``tag_session`` calls while a client keeps
  the CLI writing the same transcript; corrupt lines afterwards.

After every section: claude_sync threads, child processes, fds and files under the temp
dir left behind (leaks), and calls that did not return within their bound (hangs).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any, Callable, Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from claude_sync import (  # noqa: E402
    AgentPool,
    ClaudeSDKClient,
    ProcessError,
    rename_session,
    tag_session,
)
from claude_sync.testing import FakeAnthropicAPI, offline_options, scrubbed_environ, text  # noqa: E402
from claude_sync.testing.offline import find_offline_cli  # noqa: E402

HANG_BOUND = 120.0


def rss_mb() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def our_threads() -> List[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("claude_sync-"))


def children() -> List[int]:
    out: List[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def temp_entries() -> List[str]:
    """Our temp files: this process's private dir (``_engine.tempfiles``) and older layouts'."""
    mine = (f"claude_sync-{os.getpid()}-", "claude_sync-resume-")
    return sorted(n for n in os.listdir(tempfile.gettempdir()) if n.startswith(mine) or n.endswith(".json") and n.startswith("claude_sync-"))


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Leaks:
    """What a section left behind, compared with before it."""

    def __init__(self) -> None:
        self.fds = fds()
        self.temp = set(temp_entries())

    def report(self) -> Dict[str, Any]:
        wait_for(lambda: not our_threads() and not children(), 10)
        return {"threads": our_threads(), "children": children(), "fds": fds() - self.fds,
                "temp": sorted(set(temp_entries()) - self.temp)}  # fmt: skip


API_PROCESS = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from claude_sync.testing import FakeAnthropicAPI, text
with FakeAnthropicAPI(responder=lambda r: text("ok"), idle_timeout=None, lifetime=None) as api:
    print(api.base_url, flush=True)
    sys.stdin.read()  # until the bench closes our stdin
"""


class RemoteApi:
    """The fake API in a process of its own (it keeps every request it served: in this
    process it would count in the RSS of a soak)."""

    def __enter__(self) -> RemoteApi:
        self.process = subprocess.Popen([sys.executable, "-c", API_PROCESS, str(ROOT)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def soak(cli: str, work: Path, runs: int) -> Dict[str, Any]:
    errors: List[str] = []
    started = time.monotonic()
    with RemoteApi() as api:
        leaks = Leaks()
        samples = {"start": rss_mb()}
        options = offline_options(api, work, cli_path=cli)  # type: ignore[arg-type]
        with AgentPool(options, max_workers=4, warm=2) as pool:
            window: List[Any] = []  # at most 16 runs in flight; results are checked and dropped
            for n in range(runs + 16):
                if n < runs:
                    window.append((n, pool.submit(f"say ok {n}")))
                if len(window) > 16 or n >= runs:
                    if not window:
                        break
                    index, future = window.pop(0)
                    try:
                        if future.result(HANG_BOUND).text != "ok":
                            errors.append(f"run {index}: unexpected text")
                    except Exception as exc:  # noqa: BLE001 - counted
                        errors.append(f"run {index}: {exc!r}"[:200])
                    if index == runs // 2:
                        samples["middle"] = rss_mb()
        stats = pool.stats()
    samples["end"] = rss_mb()
    return {"trials": runs, "failures": len(errors), "errors": errors[:5], "seconds": round(time.monotonic() - started, 1),
            "rss_mb": {k: round(v, 1) for k, v in samples.items()}, "started": stats["started"],
            "reused": stats["reused"], "leaks": leaks.report()}  # fmt: skip


def storm(cli: str, work: Path, cancels: int, rng: random.Random) -> Dict[str, Any]:
    leaks = Leaks()
    outcomes = {"cancelled": 0, "done": 0, "failed": 0, "pending": 0}
    started = time.monotonic()
    with FakeAnthropicAPI(responder=lambda r: text("a b c d e f g h", delay=0.1), idle_timeout=None, lifetime=None) as api:
        options = offline_options(api, work, cli_path=cli)
        with AgentPool(options, max_workers=4, warm=2) as pool:
            for wave in range(max(1, cancels // 100)):
                futures = [pool.submit(f"wave {wave} run {n}") for n in range(100)]
                for future in rng.sample(futures, len(futures)):
                    time.sleep(rng.random() * 0.02)
                    future.cancel()
                for future in futures:
                    try:
                        future.result(HANG_BOUND)
                        outcomes["done"] += 1
                    except CancelledError:
                        outcomes["cancelled"] += 1
                    except TimeoutError:
                        outcomes["pending"] += 1
                    except Exception:  # noqa: BLE001 - counted
                        outcomes["failed"] += 1
    return {"trials": cancels, "failures": outcomes["pending"] + outcomes["failed"], **outcomes,
            "seconds": round(time.monotonic() - started, 1), "leaks": leaks.report()}  # fmt: skip


CTRL_C_CHILD = r"""
import json, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from claude_sync import AgentPool
from claude_sync.testing import FakeAnthropicAPI, offline_options, scrubbed_environ, text

futures = []
with scrubbed_environ(), FakeAnthropicAPI(responder=lambda r: text("a b c d e f", delay=0.2)) as api:
    options = offline_options(api, sys.argv[2], cli_path=sys.argv[3])
    try:
        with AgentPool(options, max_workers=3) as pool:
            futures += [pool.submit(f"run {n}") for n in range(12)]
            while sum(f.running() for f in futures) < 2:
                time.sleep(0.05)
            print("running", flush=True)
            time.sleep(60)  # SIGINT lands here
    except KeyboardInterrupt:
        pass
    deadline = time.monotonic() + 5  # threads that end on their own shortly (the spawner) may
    while time.monotonic() < deadline and any(t.name.startswith("claude_sync-") for t in threading.enumerate()):
        time.sleep(0.05)
    left = [t.name for t in threading.enumerate() if t.name.startswith("claude_sync-")]
    kids = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        kids += (task / "children").read_text().split()
    print(json.dumps({"pending": sum(not f.done() for f in futures), "threads": left, "children": kids}), flush=True)
"""


def ctrl_c(cli: str, work: Path, trials: int) -> Dict[str, Any]:
    failures, hangs, exits = 0, 0, []
    reports = []
    for _ in range(trials):
        child = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD, str(ROOT), str(work), cli],
                                 stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert child.stdout is not None
        if child.stdout.readline().strip() != "running":
            failures += 1
            child.kill()
            child.wait()
            continue
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            out, _ = child.communicate(timeout=HANG_BOUND)
        except subprocess.TimeoutExpired:
            hangs += 1
            child.kill()
            child.communicate()
            continue
        exits.append(round(time.monotonic() - sent, 2))
        report = json.loads(out.strip().splitlines()[-1])
        reports.append(report)
        if report["pending"] or report["threads"] or report["children"]:
            failures += 1
    return {"trials": trials, "failures": failures, "hangs": hangs, "exit_seconds": exits,
            "pending_futures": sum(r["pending"] for r in reports),
            "leaked_threads": sum(len(r["threads"]) for r in reports),
            "leaked_children": sum(len(r["children"]) for r in reports)}  # fmt: skip


def kill(cli: str, work: Path, trials: int) -> Dict[str, Any]:
    leaks = Leaks()
    latencies: List[float] = []
    failures = 0
    with FakeAnthropicAPI(responder=lambda r: text("one two three four five six seven", delay=0.5),
                          idle_timeout=None, lifetime=None) as api:  # fmt: skip
        options = offline_options(api, work, cli_path=cli, include_partial_messages=True)
        for _ in range(trials):
            killed = 0.0
            try:
                with ClaudeSDKClient(options) as client:
                    client.query("talk slowly")
                    for message in client.receive_response(timeout=HANG_BOUND):
                        if killed == 0.0 and type(message).__name__ == "StreamEvent":
                            pid = client.session.pid  # type: ignore[union-attr]
                            killed = time.monotonic()
                            os.kill(pid, signal.SIGKILL)
                failures += 1  # the turn ended without an error
            except ProcessError:
                latencies.append(round(time.monotonic() - killed, 3))
            except Exception:  # noqa: BLE001 - counted
                failures += 1
    return {"trials": trials, "failures": failures, "latency_s_max": max(latencies, default=None),
            "latency_s": latencies, "leaks": leaks.report()}  # fmt: skip


def edits(cli: str, work: Path, count: int) -> Dict[str, Any]:
    leaks = Leaks()
    done: Dict[str, Any] = {"edits": 0, "errors": 0, "error_texts": []}
    with FakeAnthropicAPI(responder=lambda r: text("x " * 50, delay=0.001), idle_timeout=None, lifetime=None) as api:
        options = offline_options(api, work, cli_path=cli)
        os.environ["CLAUDE_CONFIG_DIR"] = options.env["CLAUDE_CONFIG_DIR"]  # where the session functions look
        directory = str(options.cwd)
        with ClaudeSDKClient(options) as client:
            client.query("first")
            session_id = [m for m in client.receive_response(timeout=HANG_BOUND)][-1].session_id
            # 2.1.197 creates the transcript ~75 ms after the first result: edits before that
            # rightly fail with FileNotFoundError
            config = Path(options.env["CLAUDE_CONFIG_DIR"])
            wait_for(lambda: any(config.rglob(f"{session_id}.jsonl")), 10)
            stop = threading.Event()

            def editor() -> None:
                for n in range(count):
                    try:
                        (rename_session if n % 2 else tag_session)(session_id, f"edit-{n}", directory)
                        done["edits"] += 1
                    except Exception as exc:  # noqa: BLE001 - counted
                        done["errors"] += 1
                        done["error_texts"].append(repr(exc)[:200])
                    time.sleep(0.005)  # spread over many CLI turns
                stop.set()

            thread = threading.Thread(target=editor, name="bench-editor")
            thread.start()
            turns = 0
            while not stop.is_set():
                client.query(f"turn {turns}")
                list(client.receive_response(timeout=HANG_BOUND))
                turns += 1
            thread.join(HANG_BOUND)
    del os.environ["CLAUDE_CONFIG_DIR"]
    path = next(Path(options.env["CLAUDE_CONFIG_DIR"]).rglob(f"{session_id}.jsonl"))
    corrupt = 0
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            try:
                json.loads(line)
            except ValueError:
                corrupt += 1
    return {"trials": count, "failures": done["errors"] + corrupt, "edits": done["edits"], "cli_turns": turns,
            "corrupt_lines": corrupt, "errors": done["error_texts"][:3], "leaks": leaks.report()}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=find_offline_cli())
    parser.add_argument("--only", action="append", choices=["soak", "storm", "ctrl_c", "kill", "edits"])
    parser.add_argument("--runs", type=int, default=1500)
    parser.add_argument("--cancels", type=int, default=800)
    parser.add_argument("--ctrl-c", type=int, default=5)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--edits", type=int, default=600)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--json")
    args = parser.parse_args()
    if not args.cli:
        sys.exit("no claude CLI: pass --cli or set CLAUDE_SYNC_TEST_CLI")
    sections = args.only or ["soak", "storm", "ctrl_c", "kill", "edits"]
    rng = random.Random(args.seed)
    results: Dict[str, Any] = {"cli": args.cli}
    with scrubbed_environ(), tempfile.TemporaryDirectory(prefix="faults-bench-") as scratch:
        for name in sections:
            work = Path(scratch) / name
            work.mkdir()
            if name == "soak":
                results[name] = soak(args.cli, work, args.runs)
            elif name == "storm":
                results[name] = storm(args.cli, work, args.cancels, rng)
            elif name == "ctrl_c":
                results[name] = ctrl_c(args.cli, work, args.ctrl_c)
            elif name == "kill":
                results[name] = kill(args.cli, work, args.kills)
            else:
                results[name] = edits(args.cli, work, args.edits)
            print(json.dumps({name: results[name]}), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
