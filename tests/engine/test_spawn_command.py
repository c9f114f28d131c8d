"""``options.spawn_command``: what claude_sync accepts back from it (``spawn.custom_command``),
and that a failing one leaves no memory file open (the leak check after each test counts fds)."""

from __future__ import annotations

import os
import shutil
from typing import Any, List

import pytest

from claude_sync import ClaudeAgentOptions, CLINotFoundError, SpawnCommand
from claude_sync._engine.spawn import custom_command, start_transport

ARGV = ["/opt/claude", "--verbose"]
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp/h"}


def test_the_callable_gets_what_was_built_and_its_answer_is_used() -> None:
    seen: List[SpawnCommand] = []

    def spawn(command: SpawnCommand) -> SpawnCommand:
        seen.append(command)
        return command.replace(argv=["env", "-i", *command.argv], cwd="/")

    argv, env, cwd = custom_command(spawn, ARGV, ENV, "/work")
    assert seen == [SpawnCommand(argv=ARGV, env=ENV, cwd="/work")]
    assert argv == [shutil.which("env", path=ENV["PATH"]), "-i", *ARGV] and env == ENV and cwd == "/"
    assert os.path.isabs(argv[0])


@pytest.mark.parametrize(
    ("returned", "error", "message"),
    [
        (None, TypeError, "must return a SpawnCommand"),
        (["sh"], TypeError, "must return a SpawnCommand"),
        (SpawnCommand(argv=[], env=ENV), ValueError, "empty argv"),
        (SpawnCommand(argv=["sh", "a\0b"], env=ENV), ValueError, "NUL"),
        (SpawnCommand(argv=["sh", b"x"], env=ENV), TypeError, "argv that is not a list of str"),  # type: ignore[list-item]
        (SpawnCommand(argv="sh", env=ENV), TypeError, "argv that is not a list of str"),  # type: ignore[arg-type]
        (SpawnCommand(argv=["sh"], env={"A": 1}), TypeError, "env that is not a dict"),  # type: ignore[dict-item]
        (SpawnCommand(argv=["sh"], env=ENV, cwd=b"/"), TypeError, "cwd"),  # type: ignore[arg-type]
        (SpawnCommand(argv=["no-such-wrapper-here"], env=ENV), CLINotFoundError, "not on its PATH"),
    ],
)
def test_a_bad_answer_is_named(returned: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        custom_command(lambda command: returned, ARGV, ENV, None)


def test_the_callable_must_be_a_plain_function() -> None:
    with pytest.raises(TypeError, match="spawn_command"):
        ClaudeAgentOptions(spawn_command="unshare")  # type: ignore[arg-type]


def test_a_raising_spawn_command_closes_the_memory_files(tmp_path: Any) -> None:
    """The MCP config travels as an inherited memory file; the callable raising before the
    spawn must not leak it (the leak check after this test counts our fds)."""
    from claude_sync._options.command import build_spawn_plan

    def spawn(command: SpawnCommand) -> SpawnCommand:
        assert any(arg.startswith("/dev/fd/") for arg in command.argv)
        raise RuntimeError("no sandbox today")

    options = ClaudeAgentOptions(
        spawn_command=spawn, mcp_servers={"ext": {"type": "stdio", "command": "true"}}, cwd=str(tmp_path)
    )
    plan = build_spawn_plan(options, "/bin/true", environ={})
    temp_files: List[str] = []
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(RuntimeError, match="no sandbox today"):
        start_transport(options, plan, None, temp_files)
    assert set(os.listdir("/proc/self/fd")) == before
    assert temp_files == []
