"""One benchmark measurement in a fresh process: ``python worker.py ARGS_JSON``.

ARGS_JSON: ``{"column": "floor"|"claude_sync"|"official", "mode": "run"|"calls",
"cli": LAUNCHER, "spec": {fake CLI spec}, ...}``. Prints exactly one JSON object on the last
stdout line. Runs under the bench interpreter (floor, claude_sync — with the repo on
``PYTHONPATH``) or the official SDK's venv (official); imports only what its column needs.

Modes:

- ``run``: one timed run of the workload. Reports ``t_first`` (from the ``query()`` call — for
  the floor, from ``Popen`` — to the first message), ``cpu_stream`` (CPU seconds this process
  used, all threads, from the first message to the result), ``t_import_first`` (from the column's
  first import statement to the first message: what a fresh program waits for, whether a
  library imports eagerly or on first use), ``t_stream`` (first message → result),
  ``t_total``, ``messages`` (assistant messages seen), ``text_bytes`` (of the last assistant
  message), ``result`` text, ``callbacks`` (calls of our callback), peak RSS (``VmHWM``, KiB)
  and the most OS threads seen (``/proc/self/status``, sampled every 1024 messages and 64
  callbacks), ``usage_stream`` (``getrusage`` over the same span as ``cpu_stream``: user and
  system seconds, voluntary and involuntary context switches).
- ``calls``: Python+C function calls (``sys.setprofile`` + ``threading.setprofile``, events
  ``call`` and ``c_call``, every thread of this process) for a warm-up run, then two sizes
  ``n1`` < ``n2`` of the workload; ``per_item`` = (calls(n2) − calls(n1)) / (n2 − n1), so
  start-up and teardown cancel out. With ``"breakdown": k`` also the top-k functions of that
  difference.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

perf = time.perf_counter
cpu = time.process_time  # this process, all threads: robust to other load on the machine


try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]


def usage() -> Tuple[float, float, int, int]:
    """This process's (user s, system s, voluntary, involuntary context switches), all threads;
    zeros without the ``resource`` module (Windows)."""
    if resource is None:
        return (0.0, 0.0, 0, 0)
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime, r.ru_stime, r.ru_nvcsw, r.ru_nivcsw)


def proc_status() -> Dict[str, int]:
    fields: Dict[str, int] = {}
    with open("/proc/self/status") as handle:
        for text in handle:
            key, _, value = text.partition(":")
            if key in ("VmHWM", "VmRSS", "Threads"):
                fields[key] = int(value.split()[0])
    return fields


class Sampler:
    """Tracks the most OS threads seen; callers call ``sample()`` every ``every`` items."""

    def __init__(self, every: int) -> None:
        self.every = every
        self.max_threads = 0

    def sample(self) -> None:
        threads = proc_status().get("Threads", 0)
        if threads > self.max_threads:
            self.max_threads = threads


class Outcome:
    def __init__(self) -> None:
        self.t_import = 0.0
        self.t0 = 0.0
        self.t_first: Optional[float] = None
        self.t_result: Optional[float] = None
        self.cpu_first = 0.0
        self.cpu_result = 0.0
        self.ru_first = (0.0, 0.0, 0, 0)
        self.ru_result = (0.0, 0.0, 0, 0)
        self.t_end = 0.0
        self.messages = 0
        self.text_bytes = 0
        self.result: Optional[str] = None
        self.callbacks = 0
        self.error: Optional[str] = None

    def as_dict(self) -> Dict[str, Any]:
        def rel(t: Optional[float]) -> Optional[float]:
            return None if t is None else t - self.t0

        first = rel(self.t_first)
        result = rel(self.t_result)
        return {
            "t_import_first": None if self.t_first is None else self.t_first - self.t_import,
            "t_first": first,
            "t_stream": None if first is None or result is None else result - first,
            "cpu_stream": self.cpu_result - self.cpu_first,
            # the same span from getrusage: user s, system s, voluntary and involuntary
            # context switches (all threads)
            "usage_stream": [b - a for a, b in zip(self.ru_first, self.ru_result)],
            "t_total": self.t_end - self.t0,
            "messages": self.messages,
            "text_bytes": self.text_bytes,
            "result": self.result,
            "callbacks": self.callbacks,
            "error": self.error,
        }


# =============================================================================== floor


def run_floor(cli: str, workload: str, outcome: Outcome, sampler: Sampler) -> None:
    """Plain Python: Popen, a reader thread (readline + json.loads + SimpleQueue.put), a
    consumer doing get; CLI requests answered on a ThreadPoolExecutor (json.dumps + write)."""
    outcome.t_import = perf()
    import subprocess
    from concurrent.futures import ThreadPoolExecutor
    from queue import SimpleQueue

    loads = json.loads
    dumps = json.dumps
    queue: SimpleQueue[Any] = SimpleQueue()
    pending: Dict[str, List[Any]] = {}
    write_lock = threading.Lock()

    outcome.t0 = perf()
    proc = subprocess.Popen(
        [cli, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin = proc.stdin
    pool = ThreadPoolExecutor(4)

    def write(obj: Any) -> None:
        data = (dumps(obj) + "\n").encode()
        with write_lock:
            stdin.write(data)
            stdin.flush()

    def answer(frame: Dict[str, Any]) -> None:
        request = frame["request"]
        outcome.callbacks += 1
        if outcome.callbacks % sampler.every == 0:
            sampler.sample()
        if request["subtype"] == "can_use_tool":
            payload: Dict[str, Any] = {"behavior": "allow", "updatedInput": request["input"]}
        else:
            payload = {}
        write({"type": "control_response",
               "response": {"subtype": "success", "request_id": frame["request_id"], "response": payload}})  # fmt: skip

    def read() -> None:
        put = queue.put
        submit = pool.submit
        for raw in proc.stdout:  # type: ignore[union-attr]
            obj = loads(raw)
            kind = obj["type"]
            if kind == "control_response":
                response = obj["response"]
                waiter = pending.pop(response["request_id"], None)
                if waiter is not None:
                    waiter[1] = response
                    waiter[0].set()
            elif kind == "control_request":
                submit(answer, obj)
            else:
                put(obj)
        put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    init: Dict[str, Any] = {"subtype": "initialize", "hooks": None}
    if workload == "hook_callback":
        init["hooks"] = {"PreToolUse": [{"matcher": None, "hookCallbackIds": ["hook_0"]}]}
    waiter = [threading.Event(), None]
    pending["init_1"] = waiter
    write({"type": "control_request", "request_id": "init_1", "request": init})
    waiter[0].wait()
    write({"type": "user", "session_id": "", "message": {"role": "user", "content": "go"},
           "parent_tool_use_id": None})  # fmt: skip
    get = queue.get
    every = sampler.every
    seen = 0
    last: Any = None
    while True:
        obj = get()
        if obj is None:
            break
        if outcome.t_first is None:
            outcome.t_first = perf()
            outcome.cpu_first, outcome.ru_first = cpu(), usage()
        seen += 1
        if seen % every == 0:
            sampler.sample()
        kind = obj["type"]
        if kind == "assistant":
            outcome.messages += 1
            last = obj
        elif kind == "result":
            outcome.t_result = perf()
            outcome.cpu_result, outcome.ru_result = cpu(), usage()
            outcome.result = obj["result"]
            stdin.close()
    proc.wait()
    reader.join()
    pool.shutdown()
    proc.stdout.close()
    outcome.t_end = perf()
    if last is not None:
        outcome.text_bytes = len(last["message"]["content"][0]["text"])


# =============================================================================== claude_sync


def run_claude_sync(cli: str, workload: str, outcome: Outcome, sampler: Sampler) -> None:
    outcome.t_import = perf()
    from claude_sync import (
        AssistantMessage,
        ClaudeAgentOptions,
        HookMatcher,
        PermissionResultAllow,
        ResultMessage,
        query,
    )

    every = sampler.every
    kwargs: Dict[str, Any] = {}
    if workload in ("can_use_tool", "mixed"):
        allow = PermissionResultAllow()

        def can_use_tool(name: str, tool_input: Dict[str, Any], context: Any) -> Any:
            outcome.callbacks += 1
            if outcome.callbacks % every == 0:
                sampler.sample()
            return allow

        kwargs["can_use_tool"] = can_use_tool
    if workload == "hook_callback":

        def hook(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
            outcome.callbacks += 1
            if outcome.callbacks % every == 0:
                sampler.sample()
            return {}

        kwargs["hooks"] = {"PreToolUse": [HookMatcher(matcher=None, hooks=[hook])]}
    options = ClaudeAgentOptions(cli_path=cli, **kwargs)
    outcome.t0 = perf()
    seen = 0
    last: Any = None
    # query()'s default keeps no messages; KEEP_MESSAGES=1 measures keep_messages=True.
    for message in query("go", options=options, keep_messages=os.environ.get("KEEP_MESSAGES") == "1"):
        if outcome.t_first is None:
            outcome.t_first = perf()
            outcome.cpu_first, outcome.ru_first = cpu(), usage()
        seen += 1
        if seen % every == 0:
            sampler.sample()
        cls = message.__class__
        if cls is AssistantMessage:
            outcome.messages += 1
            last = message
        elif cls is ResultMessage:
            outcome.t_result = perf()
            outcome.cpu_result, outcome.ru_result = cpu(), usage()
            outcome.result = message.result
    outcome.t_end = perf()
    if last is not None:
        outcome.text_bytes = len(last.content[0].text)


# =============================================================================== official


def run_official(cli: str, workload: str, outcome: Outcome, sampler: Sampler) -> None:
    outcome.t_import = perf()
    import anyio
    from claude_agent_sdk import (
        AssistantMessage,
        ClaudeAgentOptions,
        HookMatcher,
        PermissionResultAllow,
        ResultMessage,
        query,
    )

    every = sampler.every
    kwargs: Dict[str, Any] = {}
    if workload in ("can_use_tool", "mixed"):

        async def can_use_tool(name: str, tool_input: Dict[str, Any], context: Any) -> Any:
            outcome.callbacks += 1
            if outcome.callbacks % every == 0:
                sampler.sample()
            return PermissionResultAllow()

        kwargs["can_use_tool"] = can_use_tool
    if workload == "hook_callback":

        async def hook(hook_input: Any, tool_use_id: Any, context: Any) -> Dict[str, Any]:
            outcome.callbacks += 1
            if outcome.callbacks % every == 0:
                sampler.sample()
            return {}

        kwargs["hooks"] = {"PreToolUse": [HookMatcher(matcher=None, hooks=[hook])]}
    options = ClaudeAgentOptions(cli_path=cli, **kwargs)

    async def main() -> None:
        outcome.t0 = perf()
        seen = 0
        last: Any = None
        async for message in query(prompt="go", options=options):
            if outcome.t_first is None:
                outcome.t_first = perf()
                outcome.cpu_first, outcome.ru_first = cpu(), usage()
            seen += 1
            if seen % every == 0:
                sampler.sample()
            cls = message.__class__
            if cls is AssistantMessage:
                outcome.messages += 1
                last = message
            elif cls is ResultMessage:
                outcome.t_result = perf()
                outcome.cpu_result, outcome.ru_result = cpu(), usage()
                outcome.result = message.result
        outcome.t_end = perf()
        if last is not None:
            outcome.text_bytes = len(last.content[0].text)

    anyio.run(main)


RUNNERS: Dict[str, Callable[[str, str, Outcome, Sampler], None]] = {
    "floor": run_floor,
    "claude_sync": run_claude_sync,
    "official": run_official,
}


def one_run(column: str, cli: str, spec: Dict[str, Any], sampler: Sampler) -> Outcome:
    os.environ["BENCH_FAKE_SPEC"] = json.dumps(spec)
    outcome = Outcome()
    try:
        RUNNERS[column](cli, spec["workload"], outcome, sampler)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        outcome.error = f"{type(exc).__name__}: {str(exc)[:300]}"
        outcome.t_end = perf()
    return outcome


# =============================================================================== modes


def mode_run(args: Dict[str, Any]) -> Dict[str, Any]:
    sampler = Sampler(1024 if args["spec"]["workload"] in ("stream", "mixed") else 64)
    sampler.sample()
    outcome = one_run(args["column"], args["cli"], args["spec"], sampler)
    sampler.sample()
    report = outcome.as_dict()
    status = proc_status()
    report["rss_peak_kib"] = status.get("VmHWM")
    report["threads_max"] = sampler.max_threads
    return report


class CallCounter:
    """Counts 'call' and 'c_call' profile events per thread (optionally per function)."""

    def __init__(self, breakdown: bool) -> None:
        import _thread

        self.per_thread: Dict[int, int] = {}
        self.functions: Dict[Any, int] = {}
        get_ident = _thread.get_ident
        per_thread = self.per_thread
        functions = self.functions

        def count(frame: Any, event: str, arg: Any) -> None:
            if event == "call" or event == "c_call":
                ident = get_ident()
                per_thread[ident] = per_thread.get(ident, 0) + 1

        def count_functions(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                key: Any = frame.f_code
            elif event == "c_call":
                key = arg
            else:
                return
            ident = get_ident()
            per_thread[ident] = per_thread.get(ident, 0) + 1
            functions[key] = functions.get(key, 0) + 1

        self.hook = count_functions if breakdown else count

    def start(self) -> None:
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]

    def total(self) -> int:
        return sum(self.per_thread.values())

    def snapshot(self) -> Dict[Any, int]:
        return dict(self.functions)


def describe(key: Any) -> str:
    code = getattr(key, "co_name", None)
    if code is not None:
        filename = key.co_filename
        for marker in ("claude_sync/", "claude_agent_sdk/", "site-packages/", "lib/python3"):
            if marker in filename:
                filename = filename[filename.index(marker) :]
                break
        else:
            filename = os.path.basename(filename)
        qualname = getattr(key, "co_qualname", key.co_name)
        return f"{filename}:{key.co_firstlineno}:{qualname}"
    owner = getattr(key, "__self__", None)
    name = getattr(key, "__qualname__", None) or getattr(key, "__name__", repr(key))
    if owner is not None and not isinstance(owner, type(sys)) and "." not in name:
        name = f"{type(owner).__name__}.{name}"
    return f"<C> {name}"


def mode_calls(args: Dict[str, Any]) -> Dict[str, Any]:
    column = args["column"]
    spec = dict(args["spec"])
    n1, n2 = int(args["n1"]), int(args["n2"])
    breakdown = int(args.get("breakdown") or 0)
    counter = CallCounter(bool(breakdown))
    sampler = Sampler(1 << 30)  # effectively never samples: no extra calls
    one_run(column, args["cli"], dict(spec, n=max(1, n1 // 10)), sampler)  # warm-up (lazy imports)
    counter.start()
    try:
        before = counter.total()
        first = one_run(column, args["cli"], dict(spec, n=n1), sampler)
        mid = counter.total()
        mid_functions = counter.snapshot() if breakdown else {}
        second = one_run(column, args["cli"], dict(spec, n=n2), sampler)
        after = counter.total()
    finally:
        counter.stop()
    calls1, calls2 = mid - before, after - mid
    report: Dict[str, Any] = {
        "n1": n1,
        "n2": n2,
        "calls_n1": calls1,
        "calls_n2": calls2,
        "per_item": (calls2 - calls1) / (n2 - n1),
        "error": first.error or second.error,
        "results": [first.result, second.result],
    }
    if breakdown:
        end_functions = counter.snapshot()
        # calls of run 2 minus calls of run 1, per function, per extra item
        diff: Dict[str, float] = {}
        start_functions: Dict[Any, int] = {}
        # run-1 counts are mid - (counts before run 1, i.e. only warm-up: zero, profiling was off)
        for key, value in end_functions.items():
            in_second = value - mid_functions.get(key, 0)
            in_first = mid_functions.get(key, 0) - start_functions.get(key, 0)
            per = (in_second - in_first) / (n2 - n1)
            if abs(per) >= 0.005:
                diff[describe(key)] = diff.get(describe(key), 0.0) + per
        top = sorted(diff.items(), key=lambda kv: -kv[1])[:breakdown]
        report["breakdown"] = [[name, round(value, 3)] for name, value in top]
    return report


def main() -> None:
    args = json.loads(sys.argv[1])
    mode = args.get("mode", "run")
    report = mode_calls(args) if mode == "calls" else mode_run(args)
    report["column"] = args["column"]
    report["python"] = sys.version.split()[0]
    sys.stdout.write("\n" + json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
