"""A leased one-shot process, phase by phase: imported / connected / result / closed, and the
process's wall from outside — leased (a ``claude-sync serve`` this script starts and stops by
pid) against cold, one CLI.

    python -m claude_sync.testing.with_fake_api python bench/leased_connect.py --cli DIR [--n 10]

``DIR``: the CLI's ``.bin`` directory (put first on PATH, as a user's shell would). Every
process gets the same environment (a different env would be a different plan). Bytecode on:
run ``python -m compileall -q claude_sync`` first and keep ``PYTHONDONTWRITEBYTECODE`` unset.
One leased process runs untimed first so the pool holds a reset CLI (the steady state).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import time
t0 = time.monotonic()
from claude_sync import ClaudeSDKClient, ClaudeAgentOptions, ResultMessage
t1 = time.monotonic()
client = ClaudeSDKClient(ClaudeAgentOptions(max_turns=1))
client.connect()
t2 = time.monotonic()
client.query("hello")
text = [m for m in client.receive_response() if isinstance(m, ResultMessage)][-1].result
t3 = time.monotonic()
client.close()
t4 = time.monotonic()
import json, sys
sys.stdout.write(json.dumps({"imported": t1 - t0, "connected": t2 - t1, "result": t3 - t2, "closed": t4 - t3,
                             "ok": bool(text)}) + "\n")
"""


def one(env: dict) -> dict:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"the child failed: {done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall"] = wall
    return figures


def series(env: dict, n: int) -> dict:
    rows = [one(env) for _ in range(n)]
    return {key: statistics.median(row[key] for row in rows) for key in ("wall", "imported", "connected", "result", "closed")}


def main() -> int:
    global ROOT
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True, help="the directory holding the claude executable")
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--root", default=ROOT, help="the checkout whose claude_sync is measured")
    args = parser.parse_args()
    ROOT = os.path.abspath(args.root)
    env = dict(os.environ, PATH=args.cli + os.pathsep + os.environ.get("PATH", ""), PYTHONPATH=ROOT)
    env.pop("CLAUDE_SYNC_SHARED_POOL", None)
    directory = tempfile.mkdtemp(prefix="lc-", dir="/tmp")
    sock = os.path.join(directory, "pool.sock")
    cold = series(env, args.n)
    pool = subprocess.Popen([sys.executable, "-m", "claude_sync", "serve", "--socket", sock, "--spares", "1"],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        leased_env = dict(env, CLAUDE_SYNC_SHARED_POOL=sock)
        deadline = time.monotonic() + 30
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        one(leased_env)  # warms the pool: a reset CLI for this plan
        time.sleep(1.0)
        leased = series(leased_env, args.n)
    finally:
        pool.send_signal(signal.SIGTERM)
        try:
            pool.wait(30)
        except subprocess.TimeoutExpired:
            pool.kill()
            pool.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{'':8}{'wall':>8}{'import':>8}{'connect':>8}{'result':>8}{'close':>8}   (median ms of {args.n})")
    for name, row in (("cold", cold), ("leased", leased)):
        print(f"{name:8}" + "".join(f"{row[k] * 1000:8.1f}" for k in ("wall", "imported", "connected", "result", "closed")))
    print(f"leased/cold wall: {leased['wall'] / cold['wall']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
