"""Issue 10 item 14: a client never closed, or whose close was cut short, leaves no MCP-config
temp file (which may hold MCP headers) once the interpreter exits.

Each case runs in a fresh interpreter with its own ``TMPDIR``, connects a client over the fake
CLI with an MCP server that has headers, and exits without a (complete) close.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient

spec = json.loads(sys.argv[2])
options = ClaudeAgentOptions(
    cli_path=spec["cli"], env=spec["env"], close_timeout=2.0, initialize_timeout=20.0,
    mcp_servers={"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                            "headers": {"Authorization": "Bearer header-secret"}}},
)
client = ClaudeSDKClient(options)
client.connect()
tmp = os.environ["TMPDIR"]
print(json.dumps(sorted(os.listdir(tmp))), flush=True)
if spec["mode"] == "cut_short":
    # A second Ctrl-C lands inside close(), before the temp files are removed.
    transport = client.session.transport
    def interrupted(grace):
        raise KeyboardInterrupt
    transport.stop = interrupted
    try:
        client.close()
    except KeyboardInterrupt:
        pass
    transport.stop = type(transport).stop.__get__(transport)  # the atexit reaper still works
KEEP = client  # never closed: alive until the interpreter exits
"""


@pytest.mark.parametrize("mode", ["never_closed", "cut_short"])
def test_mcp_config_temp_file_is_removed_at_interpreter_exit(fake_cli: Any, tmp_path: Path, mode: str) -> None:
    cli = fake_cli([{"op": "wait_eof"}])
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    spec = {
        "cli": str(cli.path),
        "env": {"FAKE_CLI_SCRIPT": str(cli.script_path), "FAKE_CLI_LOG": str(cli.log_path)},
        "mode": mode,
    }
    env = dict(os.environ, TMPDIR=str(tmpdir))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), json.dumps(spec)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    during = json.loads(done.stdout.splitlines()[0])
    assert any(name.startswith("claude_sync-") and name.endswith(".json") for name in during), during
    assert sorted(os.listdir(tmpdir)) == [], "temp files left after the interpreter exited"
