"""Which slash commands write where: each command as the only prompt of a fresh real CLI (a
fresh HOME and cwd, the fake API), and the files it changed beyond what a plain prompt
changes. The table behind ``reuse.SLASH_COMMAND_WRITES`` and the tutorial's list.

    python bench/slash_commands.py --cli PATH                     # the default command list
    python bench/slash_commands.py --cli PATH "/config theme=dark" "/heapdump"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claude_sync.testing import FakeAnthropicAPI, text  # noqa: E402
from claude_sync.testing.offline import find_offline_cli, hermetic_env  # noqa: E402

COMMANDS = [
    "/config", "/config permissionMode=acceptEdits", "/config model=opus", "/config outputStyle=Explanatory",
    "/config theme=dark verbose=true autoCompact=false thinking=false language=French",
    "/config gitignore=false checkpoints=false tips=false editor=vim", "/model opus", "/effort high", "/fast",
    "/color red", "/output-style Explanatory", "/rename renamed", "/autocompact off", "/mcp", "/doctor", "/heapdump",
    "/insights", "/usage", "/context", "/compact", "/init", "/reload-plugins", "/reload-skills", "/goal ship it",
    "/recap", "/agents", "/list-agents", "/update-config set permissions.defaultMode to acceptEdits",
    "/fewer-permission-prompts", "/review", "/security-review", "/debug", "/loop 1m hi", " /config permissionMode=plan",
]  # fmt: skip
BORING = re.compile(r"(projects/.*\.jsonl$|bundled-skills/|fswatch-probe|\.last-cleanup$|/subagents/|/tasks/|backups/)")


def snapshot(root: str) -> Dict[str, str]:
    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as handle:
                    out[os.path.relpath(path, root)] = hashlib.sha1(handle.read()).hexdigest()
            except OSError:
                pass
    return out


def run(cli: str, prompt: str) -> Dict[str, Any]:
    with FakeAnthropicAPI(responder=lambda r: text("ok")) as api:
        home = tempfile.mkdtemp(prefix="slash-")
        work = os.path.join(home, "work")
        os.mkdir(work)
        env = hermetic_env(home, api.base_url)
        before = snapshot(home)
        cli_process = subprocess.Popen([cli, "--output-format", "stream-json", "--input-format", "stream-json", "--verbose"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       env=env, cwd=work, text=True)  # fmt: skip
        assert cli_process.stdin is not None and cli_process.stdout is not None
        frame = {"type": "user", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": None, "session_id": ""}
        cli_process.stdin.write(json.dumps(frame) + "\n")
        cli_process.stdin.flush()
        selector = selectors.DefaultSelector()
        selector.register(cli_process.stdout, selectors.EVENT_READ)
        result = None
        deadline = time.monotonic() + 60
        while result is None and time.monotonic() < deadline:
            if selector.select(timeout=1):
                line = cli_process.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                result = message if message.get("type") == "result" else None
        cli_process.stdin.close()
        try:
            cli_process.wait(20)
        except subprocess.TimeoutExpired:
            cli_process.kill()
            cli_process.wait()
        after = snapshot(home)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and not BORING.search(k))
        api_requests = len(api.turn_requests())
        shutil.rmtree(home, ignore_errors=True)
    return {"command": prompt, "writes": changed, "api_requests": api_requests, "no_result_in_60s": result is None,
            "result": str((result or {}).get("result"))[:100]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=find_offline_cli())
    parser.add_argument("commands", nargs="*")
    args = parser.parse_args()
    rows: List[Dict[str, Any]] = []
    baseline = set(run(args.cli, "hi")["writes"])
    for command in args.commands or COMMANDS:
        row = run(args.cli, command)
        row["writes"] = [w for w in row["writes"] if w not in baseline]
        rows.append(row)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
