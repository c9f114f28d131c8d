"""One measurement of ``bench/agents.py``, in a fresh interpreter (claude_sync's or the
official SDK's venv). Usage: ``python agents_worker.py '<json args>'``; prints one JSON line.

Args: ``mode`` (below), ``cli``, ``cwd``, ``n`` (runs), ``reps``. The environment is the
hermetic one (pointed at the fake API) already: options add nothing to it.

Modes:
- ``cold_first``: ``reps`` times, a fresh ``query()``: seconds from the call to the first
  message; and the CPU seconds (this process + the reaped CLI) of one whole cold run.
- ``warm_first``: an ``AgentPool(max_workers=1, warm=1)``; once its CLI is parked, ``reps``
  times: lease it (``pool.client()``), send the prompt, seconds to the first message; and
  ``reps`` times: ``submit`` to a reused CLI, seconds to the result.
- ``pool``: ``n`` one-turn runs on ``AgentPool(max_workers=4)`` (pool built inside the timing).
- ``pool_warm``: the same on ``AgentPool(max_workers=4, warm=4)`` once its 4 CLIs are parked:
  the steady state (CPU of the live CLIs read from /proc).
- ``threads``: ``n`` threads, each iterating its own ``query()``.
- ``official``: the official SDK, ``asyncio.gather`` over ``n`` ``query()`` calls.
- ``reset``: one warm ``ClaudeSDKClient``; ``reps`` rounds, each of ``RESET_BATCH`` turns,
  ``RESET_BATCH`` × (``/clear`` + a turn), ``RESET_BATCH`` × ``/clear`` alone,
  ``RESET_BATCH`` × (``/clear`` and the prompt written together, both answers read after):
  CPU per operation of the CLI (its /proc counters, children included) and of this process.
  What ``AgentPool`` pays for its reset, apart from the turn itself.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
from typing import Any, Dict, List


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def tree_cpu() -> float:
    """CPU seconds of this process, its reaped children, and its live descendants (from
    /proc: utime + stime, plus what they reaped), so CLIs still running count too."""
    total = cpu_seconds()
    tick = os.sysconf("SC_CLK_TCK")
    parents: Dict[int, int] = {}
    cpu: Dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
            cpu[int(entry)] = sum(int(x) for x in fields[11:15]) / tick
    members = {os.getpid()}
    grew = True
    while grew:
        before = len(members)
        members |= {pid for pid, parent in parents.items() if parent in members}
        grew = len(members) != before
    return total + sum(cpu.get(pid, 0.0) for pid in members - {os.getpid()})


def ours(args: Dict[str, Any]) -> Any:
    from claude_sync import ClaudeAgentOptions

    return ClaudeAgentOptions(cli_path=args["cli"], cwd=args["cwd"], close_timeout=10, initialize_timeout=120)


def cold_first(args: Dict[str, Any]) -> Dict[str, Any]:
    from claude_sync import query

    firsts: List[float] = []
    cpus: List[float] = []
    for _ in range(args["reps"]):
        cpu0 = cpu_seconds()
        start = time.perf_counter()
        with query("say ok", options=ours(args)) as stream:
            for index, _message in enumerate(stream):
                if index == 0:
                    firsts.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - cpu0)
    return {"first_message_s": firsts, "cpu_per_run_s": cpus}


def warm_first(args: Dict[str, Any]) -> Dict[str, Any]:
    from claude_sync import AgentPool

    firsts: List[float] = []
    reused: List[float] = []
    with AgentPool(ours(args), max_workers=1, warm=1) as pool:
        for _ in range(args["reps"]):
            wait_parked(pool)
            start = time.perf_counter()
            with pool.client() as client:
                client.query("say ok")
                for index, _message in enumerate(client.receive_response(timeout=120)):
                    if index == 0:
                        firsts.append(time.perf_counter() - start)
        wait_parked(pool)
        pool.submit("say ok").result(120)  # the parked CLI has served one run: now it is a reused one
        for _ in range(args["reps"]):
            wait_parked(pool)
            start = time.perf_counter()
            pool.submit("say ok").result(120)
            reused.append(time.perf_counter() - start)
        stats = pool.stats()
    return {"first_message_s": firsts, "reused_result_s": reused, "stats": stats}


def wait_parked(pool: Any) -> None:
    deadline = time.monotonic() + 120
    while pool.stats()["parked"] < 1 or pool.stats()["busy"]:
        if time.monotonic() > deadline:
            raise TimeoutError("no parked CLI within 120 s")
        time.sleep(0.01)


def many_pool(args: Dict[str, Any]) -> Dict[str, Any]:
    from claude_sync import AgentPool

    with AgentPool(ours(args), max_workers=args.get("pool_size", 4)) as pool:
        results = list(pool.map(["say ok"] * args["n"], timeout=600))
    stats = pool.stats()
    assert all(r.text for r in results)
    return {"runs": len(results), "stats": stats}


def many_pool_warm(args: Dict[str, Any]) -> Dict[str, Any]:
    """Steady state: the same runs once 4 warm CLIs are parked; wall and CPU (CLIs included,
    read live from /proc) from the first submit to the last result."""
    from claude_sync import AgentPool

    size = args.get("pool_size", 4)
    with AgentPool(ours(args), max_workers=size, warm=size) as pool:
        deadline = time.monotonic() + 300
        while pool.stats()["parked"] < size:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{size} warm CLIs not parked within 300 s")
            time.sleep(0.01)
        own0 = resource.getrusage(resource.RUSAGE_SELF)
        cpu0 = tree_cpu()
        start = time.perf_counter()
        results = list(pool.map(["say ok"] * args["n"], timeout=600))
        wall = time.perf_counter() - start
        cpu = tree_cpu() - cpu0
        own1 = resource.getrusage(resource.RUSAGE_SELF)
    assert all(r.text for r in results)
    own = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
    return {"runs": len(results), "steady_wall_s": wall, "steady_cpu_s": cpu, "steady_client_cpu_s": own,
            "stats": pool.stats()}


def many_threads(args: Dict[str, Any]) -> Dict[str, Any]:
    from claude_sync import ResultMessage, query

    done: List[int] = []

    def one() -> None:
        for message in query("say ok", options=ours(args)):
            if isinstance(message, ResultMessage):
                done.append(1)

    threads = [threading.Thread(target=one, name=f"bench-{i}") for i in range(args["n"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    return {"runs": len(done)}


def many_official(args: Dict[str, Any]) -> Dict[str, Any]:
    import asyncio

    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    async def one() -> int:
        options = ClaudeAgentOptions(cli_path=args["cli"], cwd=args["cwd"])
        count = 0
        async for message in query(prompt="say ok", options=options):
            count += isinstance(message, ResultMessage)
        return count

    async def main() -> int:
        return sum(await asyncio.gather(*[one() for _ in range(args["n"])]))

    return {"runs": asyncio.run(main())}


RESET_BATCH = 5
"""Operations per timed batch of the ``reset`` mode (the CLI's CPU counters tick in 10 ms)."""


def proc_cpu(pid: int) -> float:
    """CPU seconds of a live process and its reaped children (utime, stime, cutime, cstime)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def reset_cost(args: Dict[str, Any]) -> Dict[str, Any]:
    from claude_sync import ClaudeSDKClient

    client = ClaudeSDKClient(ours(args))
    client.connect()

    def turn(prompt: str = "say ok") -> None:
        client.query(prompt, timeout=120)
        for _message in client.receive_response(timeout=120):
            pass

    def pipelined() -> None:
        client.query("/clear", timeout=120)
        client.query("say ok", timeout=120)
        for _ in range(2):
            for _message in client.receive_response(timeout=120):
                pass

    ops = {
        "turn": turn,
        "clear_turn": lambda: (turn("/clear"), turn()),
        "clear": lambda: turn("/clear"),
        "pipelined": pipelined,
    }
    out: Dict[str, List[List[float]]] = {name: [] for name in ops}
    try:
        turn()
        turn("/clear")
        pid = client.session.pid if client.session is not None else None
        assert pid is not None
        for _ in range(args["reps"]):
            for name, op in ops.items():
                cli0, own0 = proc_cpu(pid), cpu_seconds()
                for _ in range(RESET_BATCH):
                    op()
                out[name].append([(proc_cpu(pid) - cli0) / RESET_BATCH, (cpu_seconds() - own0) / RESET_BATCH])
    finally:
        client.close()
    return {"reset": out}


MODES = {
    "reset": reset_cost,
    "cold_first": cold_first,
    "warm_first": warm_first,
    "pool": many_pool,
    "pool_warm": many_pool_warm,
    "threads": many_threads,
    "official": many_official,
}


def main() -> None:
    args = json.loads(sys.argv[1])
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    out = MODES[args["mode"]](args)
    out.update(wall_s=time.perf_counter() - start, cpu_s=cpu_seconds() - cpu0, pid=os.getpid())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
