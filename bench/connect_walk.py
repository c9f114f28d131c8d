"""Walk (c) of ``docs/architecture.rst``, measured: which modules a ``connect()`` runs.

    python bench/connect_walk.py                       # the pinned CLI, this checkout
    python bench/connect_walk.py --cli PATH            # another CLI
    PYTHONPATH=../other python bench/connect_walk.py   # another checkout, same script

Every ``claude_sync`` function called on the connecting thread during a *second*
``ClaudeSDKClient.connect()`` (the first one loads the modules), the testing kit excluded,
recorded with ``sys.setprofile``: the modules, their folders, and the folder changes in call
order (a call from a module in one folder to a module in another, returns included: each
call event whose module is in another folder than the previous call event's). Two option
sets: plain, and with a permission callback, a hook and an SDK MCP server. The real CLI
answers ``initialize`` against the fake API (no model request is made). Deterministic for a
given tree and CLI: no timing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any, Dict, List, Optional

BENCH = Path(__file__).resolve().parent
sys.path += [str(BENCH.parent), str(BENCH.parent / "tests")]  # after PYTHONPATH: another checkout can be measured

import claude_sync  # noqa: E402
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, HookMatcher, create_sdk_mcp_server, tool  # noqa: E402
from claude_sync.testing.fake_api import FakeAnthropicAPI, text  # noqa: E402
from claude_sync.testing.offline import hermetic_env  # noqa: E402
from tests.e2e.harness import default_cli_path  # noqa: E402

PACKAGE = Path(claude_sync.__file__).resolve().parent


@tool("add", "Add two numbers", {"a": int, "b": int})
def add(args: Dict[str, Any]) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


def module_of(filename: str) -> Optional[str]:
    """The ``claude_sync`` module a code object belongs to (None: elsewhere, or the kit)."""
    try:
        parts = list(Path(filename).resolve().relative_to(PACKAGE).with_suffix("").parts)
    except ValueError:
        return None
    if parts and parts[-1] == "__init__":
        parts.pop()
    if parts and parts[0] == "testing":
        return None
    return ".".join(["claude_sync", *parts])


def folder_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else "(top level)"


def connect_calls(options: ClaudeAgentOptions) -> List[str]:
    """The modules of the call events of one ``connect()``, consecutive repeats merged."""
    with ClaudeSDKClient(options):
        pass  # the first connect: imports
    seen: List[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            module = module_of(frame.f_code.co_filename)
            if module is not None and (not seen or seen[-1] != module):
                seen.append(module)

    client = ClaudeSDKClient(options)
    sys.setprofile(profile)
    try:
        client.connect()
    finally:
        sys.setprofile(None)
        client.close()
    return seen


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(default_cli_path()))
    opts = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="claude_sync-walk-"))
    with FakeAnthropicAPI(responder=lambda request: text("unused")) as api:
        base: Dict[str, Any] = dict(cli_path=opts.cli, env=hermetic_env(work, api.base_url), cwd=str(work))
        full: Dict[str, Any] = dict(
            base,
            can_use_tool=lambda name, tool_input, context: None,
            hooks={"PreToolUse": [HookMatcher(hooks=[lambda hook_input, tool_use_id, context: {}])]},
            mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])},
        )
        for label, fields in (("plain options", base), ("can_use_tool + hook + SDK MCP server", full)):
            calls = connect_calls(ClaudeAgentOptions(**fields))
            modules = sorted(set(calls))
            folders = sorted({folder_of(m) for m in modules})
            changes = sum(1 for a, b in zip(calls, calls[1:]) if folder_of(a) != folder_of(b))
            print(f"{label}: {len(modules)} modules in {len(folders)} folders, {changes} folder changes")
            print(f"  folders: {', '.join(folders)}")
            print(f"  modules: {' '.join(m[len('claude_sync.'):] or m for m in modules)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
