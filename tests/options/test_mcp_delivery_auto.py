"""``mcp_servers_delivery="auto"`` (the default): decided at spawn from ``claude --version``
(asked once per binary, only when there are external servers), ``"initialize"`` from CLI
2.1.326, ``"argv"`` before, without a version, with a config file path, a ``spawn_command`` or
a custom transport. Fake CLIs here (shell scripts); the real ones:
``tests/e2e/test_mcp_delivery_auto_e2e.py``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Tuple

import pytest

from claude_sync import ClaudeAgentOptions, create_sdk_mcp_server
from claude_sync._engine import spawn
from claude_sync._engine.extensions import Extensions
from claude_sync._options.argv import resolved_mcp_delivery

EXT = {"ext": {"type": "stdio", "command": "server", "env": {"TOKEN": "sk-auto-0123456789"}}}


@pytest.mark.parametrize(
    "servers, version, chosen",
    [(EXT, (2, 1, 326), "initialize"), (EXT, (2, 1, 400), "initialize"), (EXT, (2, 1, 325), "argv"),
     (EXT, (2, 1, 197), "argv"), (EXT, None, "argv"), ("/etc/mcp.json", (2, 1, 333), "argv")],
)  # fmt: skip
def test_auto_is_initialize_from_2_1_326(servers: Any, version: Optional[Tuple[int, ...]], chosen: str) -> None:
    assert resolved_mcp_delivery(ClaudeAgentOptions(mcp_servers=servers), version) == chosen
    for fixed in ("argv", "initialize"):
        if isinstance(servers, dict):
            assert resolved_mcp_delivery(ClaudeAgentOptions(mcp_servers=servers, mcp_servers_delivery=fixed), version) == fixed


def test_the_default_is_auto_and_other_values_are_refused() -> None:
    assert ClaudeAgentOptions().mcp_servers_delivery == "auto"
    with pytest.raises(ValueError, match="'auto', 'argv' or 'initialize'"):
        ClaudeAgentOptions(mcp_servers_delivery="stdin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'argv' or 'initialize'"):
        ClaudeAgentOptions(plugin_delivery="auto")  # type: ignore[arg-type]


def fake_cli(tmp_path: Path, answer: str, name: str = "claude") -> Path:
    """A CLI whose ``--version`` prints ``answer`` and counts its calls in ``calls``."""
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\necho x >> "{tmp_path}/calls"\n[ "$1" = --version ] && printf "%s\\n" "{answer}"\nexit 0\n')
    path.chmod(0o755)
    return path


def calls(tmp_path: Path) -> int:
    marks = tmp_path / "calls"
    return len(marks.read_text().splitlines()) if marks.exists() else 0


def planned(options: ClaudeAgentOptions, cli: Path) -> Any:
    return spawn.plan_spawn(options, None, dict(os.environ), None, Extensions([]), str(cli))


def test_a_new_cli_gets_the_servers_in_initialize_and_is_asked_once(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, "2.1.333 (Claude Code)")
    for _ in range(3):
        plan = planned(ClaudeAgentOptions(mcp_servers=EXT), cli)
        assert plan.initialize_fields["mcpServers"] == EXT
        assert "--await-initialize" in plan.argv and "--mcp-config" not in plan.argv
        assert not any("sk-auto" in str(item) for item in plan.argv)
    assert calls(tmp_path) == 1  # cached per binary


@pytest.mark.parametrize("answer", ["2.1.325 (Claude Code)", "Claude Code", "", "\udcff" * 3])
def test_an_older_or_unreadable_cli_gets_the_argv_memory_file(tmp_path: Path, answer: str) -> None:
    cli = fake_cli(tmp_path, answer.encode("utf-8", "surrogateescape").decode("latin-1"))
    plan = planned(ClaudeAgentOptions(mcp_servers=EXT), cli)
    assert "mcpServers" not in plan.initialize_fields and "--await-initialize" not in plan.argv
    assert "--mcp-config" in plan.argv
    assert not any("sk-auto" in str(item) for item in plan.argv_strings())


def test_the_version_is_not_asked_without_external_servers_nor_with_a_wrapper(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, "2.1.333 (Claude Code)")
    planned(ClaudeAgentOptions(), cli)
    planned(ClaudeAgentOptions(mcp_servers={"calc": create_sdk_mcp_server("calc")}), cli)
    wrapped = planned(ClaudeAgentOptions(mcp_servers=EXT, spawn_command=lambda argv, env: argv), cli)
    assert "--mcp-config" in wrapped.argv and calls(tmp_path) == 0


def test_a_cli_that_hangs_on_version_is_killed_and_read_as_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = tmp_path / "slow"
    cli.write_text("#!/bin/sh\nexec sleep 30\n")
    cli.chmod(0o755)
    monkeypatch.setattr(spawn, "VERSION_TIMEOUT", 0.3)
    assert spawn.cli_version_of(str(cli)) is None
    assert spawn.cli_version_of(str(tmp_path / "missing")) is None


def test_a_binary_replaced_in_place_is_asked_again(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, "2.1.325 (Claude Code)")
    assert spawn.cli_version_of(str(cli)) == (2, 1, 325)
    fake_cli(tmp_path, "2.1.326 (Claude Code)      ")  # another size
    assert spawn.cli_version_of(str(cli)) == (2, 1, 326)
