"""``managed_settings`` and the ``"initialize"`` deliveries of MCP servers and plugins against
the real CLI: 2.1.332 waits for ``initialize`` (``--await-initialize``), takes them and says so;
2.1.197 does not know the flag and exits, which connecting reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from claude_sync import ClaudeSDKClient, ProcessError, ResultMessage
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import STDIO_SERVER, cli_is_at_least

pytestmark = pytest.mark.e2e
FAST_FAIL = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def test_managed_settings_deny_a_tool_the_options_allow(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    options = e2e_options(env=FAST_FAIL, allowed_tools=["Bash"], managed_settings={"permissions": {"deny": ["Bash"]}})
    if not cli_is_at_least(real_cli_path, "2.1.332"):
        with pytest.raises(ProcessError, match="await-initialize"):
            ClaudeSDKClient(options).connect()
        return
    fake_api.add(tool_use("Bash", {"command": "touch made.txt"}), text("done"))
    with ClaudeSDKClient(options) as client:
        assert client.get_server_info()["managed_settings_applied"] is True  # type: ignore[index]
        client.query("go")
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage) and not (e2e_workdir / "made.txt").exists()
    assert "Bash" not in [t["name"] for t in fake_api.turn_requests()[0].tools]  # the policy removed it
    (result,) = fake_api.turn_requests()[1].tool_results
    assert result.get("is_error") is True and "Bash is disabled" in str(result["content"])


def test_mcp_servers_and_plugins_delivered_in_initialize(
    e2e_options: Any, fake_api: FakeAnthropicAPI, tmp_path: Path, real_cli_path: str
) -> None:
    """The stdio server's config (with an env value) is not on the command line; its tool
    answers. The plugin is loaded (``plugins_applied``)."""
    if not cli_is_at_least(real_cli_path, "2.1.332"):
        pytest.skip("CLI 2.1.197 has no --await-initialize (the managed-settings test checks the error)")
    script = tmp_path / "server.py"
    script.write_text(STDIO_SERVER)
    plugin = tmp_path / "plug"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "plug", "version": "0.1.0"}))
    stdio = {"type": "stdio", "command": sys.executable, "args": [str(script)], "env": {"SECRET_TOKEN": "s3cret-value"}, "alwaysLoad": True}
    fake_api.add(tool_use("mcp__ext__echo", {"s": "hi"}), text("done"))
    options = e2e_options(
        env=FAST_FAIL, mcp_servers={"ext": stdio}, mcp_servers_delivery="initialize",
        plugins=[{"type": "local", "path": str(plugin)}], plugin_delivery="initialize",
        allowed_tools=["mcp__ext__echo"],
    )  # fmt: skip
    with ClaudeSDKClient(options) as client:
        info = client.get_server_info() or {}
        assert info["mcp_servers_applied"] is True and info["plugins_applied"] is True
        cmdline = Path(f"/proc/{client.session.pid}/cmdline").read_bytes()  # type: ignore[union-attr]
        assert b"--await-initialize" in cmdline and b"--mcp-config" not in cmdline and b"s3cret" not in cmdline
        client.query("echo")
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "done"
    (result,) = fake_api.turn_requests()[1].tool_results
    assert "ext:hi" in json.dumps(result["content"])
