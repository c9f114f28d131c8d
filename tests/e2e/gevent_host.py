"""A gevent host (as under ``gunicorn -k gevent``): run by ``test_gevent_e2e.py`` in its own
interpreter so the monkey-patching never reaches the other tests.

``python gevent_host.py <repo root> <json spec>``: patches everything, then runs ``count``
greenlets at once, each a ``query()`` against the real CLI whose turn asks permission for an
in-process MCP tool (``can_use_tool`` allows it) and runs it. A heartbeat greenlet measures
the longest stretch the hub was blocked. Prints one JSON object with what each run saw.
"""

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

import gevent  # noqa: E402

sys.path.insert(0, sys.argv[1])

from claude_sync import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    PermissionResultAllow,
    ResultMessage,
    SdkMcpServer,
    TextBlock,
    ToolPermissionContext,
    query,
    tool,
)

SPEC = json.loads(sys.argv[2])


@tool("add", "Add two numbers", {"a": int, "b": int})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    gevent.sleep(0.05)  # a tool that yields to the hub, as real I/O would
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


def run(index: int) -> Dict[str, Any]:
    asked: List[str] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        asked.append(name)
        return PermissionResultAllow()

    options = ClaudeAgentOptions(
        cli_path=SPEC["cli"], env=SPEC["env"], cwd=SPEC["cwd"], permission_mode="default",
        can_use_tool=can_use_tool, mcp_servers={"calc": SdkMcpServer("calc", tools=[add])},
        close_timeout=5.0, initialize_timeout=60.0, control_timeout=60.0,
    )  # fmt: skip
    texts: List[str] = []
    result = None
    try:
        for message in query(f"please add {index} and 100", options=options, timeout=120.0):
            if isinstance(message, AssistantMessage):
                texts += [b.text for b in message.content if isinstance(b, TextBlock)]
            elif isinstance(message, ResultMessage):
                result = {"subtype": message.subtype, "is_error": message.is_error, "result": message.result}
    except BaseException as exc:  # noqa: BLE001 - reported to the test
        return {"index": index, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
    return {"index": index, "asked": asked, "texts": texts, "result": result}


def _children() -> List[int]:
    import os

    pids: List[int] = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as handle:
                pids += [int(p) for p in handle.read().split()]
        except OSError:
            continue
    return pids


def main() -> None:
    gaps: List[float] = []
    stop = False

    def heartbeat() -> None:
        last = time.monotonic()
        while not stop:
            gevent.sleep(0.02)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    beat = gevent.spawn(heartbeat)
    runs = [gevent.spawn(run, i) for i in range(SPEC["count"])]
    gevent.joinall(runs, timeout=SPEC["deadline"])
    stop = True
    beat.join(2)
    out = {
        "runs": [g.value if g.ready() else {"error": "did not finish"} for g in runs],
        "max_hub_block": max(gaps) if gaps else None,
        "patched_queue": monkey.is_module_patched("queue"),
        "children_left": _children(),
    }
    print(json.dumps(out), flush=True)


main()
