"""``mcp_servers_delivery="auto"`` (the default) against the real CLIs: CLI 2.1.326 and newer
get the external MCP servers in ``initialize`` (TS 0.3.333's default; their ``env`` never on
the command line), older ones (2.1.197) an ``--mcp-config`` memory file; either way the
server connects and its secret is on no command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from claude_sync import ClaudeSDKClient, ResultMessage
from claude_sync._engine.spawn import cli_version_of
from claude_sync.testing.fake_api import FakeAnthropicAPI, text

from .harness import STDIO_SERVER, cli_is_at_least

pytestmark = pytest.mark.e2e

SECRET = "sk-delivery-e2e-0123456789abcdef"


def test_auto_delivery_takes_initialize_from_2_1_326_and_argv_before(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path
) -> None:
    stdio = tmp_path / "stdio_server.py"
    stdio.write_text(STDIO_SERVER)
    ext = {"type": "stdio", "command": sys.executable, "args": [str(stdio)], "env": {"EXT_TOKEN": SECRET}}
    fake_api.add(text("answer"))
    options = e2e_options(env={"CLAUDE_CODE_MAX_RETRIES": "0"}, mcp_servers={"ext": ext})
    assert options.mcp_servers_delivery == "auto"
    with ClaudeSDKClient(options) as client:
        answer = client.get_server_info() or {}
        argv = Path(f"/proc/{client.session.pid}/cmdline").read_bytes().split(b"\0")
        client.query("hi")
        assert isinstance(list(client.receive_response(timeout=60))[-1], ResultMessage)
        status = {s["name"]: s["status"] for s in client.get_mcp_status()["mcpServers"]}
    assert status["ext"] == "connected"
    assert not any(SECRET.encode() in part for part in argv)
    newer = cli_is_at_least(real_cli_path, "2.1.326")
    assert (b"--await-initialize" in argv) is newer and (b"--mcp-config" in argv) is not newer
    assert answer.get("mcp_servers_applied") is (True if newer else None)
    assert cli_version_of(real_cli_path) is not None
