"""A CLI that exits during start-up (a bad flag, a broken install, a crash before it answers
``initialize``) is one error: ``ProcessError`` with its exit code and stderr, whatever moment
of the handshake the exit lands in (before our ``initialize`` is written, or after)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any, Callable

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, CLIConnectionError, ProcessError, query
from claude_sync.testing import ScriptedCLI

EXITS_AT_ONCE = '#!/bin/sh\necho "error: unknown option --bogus" >&2\nexit 1\n'
EXITS_AFTER_READING = '#!/bin/sh\nread line\necho "error: cannot parse initialize" >&2\nexit 2\n'
EXITS_CLEANLY = "#!/bin/sh\nexit 0\n"


def cli(tmp_path: Path, body: str) -> str:
    path = tmp_path / "claude"
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def run_query(options: ClaudeAgentOptions) -> None:
    list(query("hi", options=options))


def connect_client(options: ClaudeAgentOptions) -> None:
    with ClaudeSDKClient(options):
        pass


@pytest.mark.parametrize("start", [run_query, connect_client], ids=["query", "client"])
@pytest.mark.parametrize("body, code, stderr", [
    (EXITS_AT_ONCE, 1, "error: unknown option --bogus"),
    (EXITS_AFTER_READING, 2, "error: cannot parse initialize"),
    (EXITS_CLEANLY, 0, None),
])  # fmt: skip
def test_a_cli_that_exits_at_start_up_is_a_process_error(
    start: Callable[[ClaudeAgentOptions], None], body: str, code: int, stderr: Any, tmp_path: Path
) -> None:
    options = ClaudeAgentOptions(cli_path=cli(tmp_path, body), close_timeout=2.0, debug_stderr=open("/dev/null", "w"))
    texts = set()
    try:
        for _ in range(3):  # the exit races our initialize write: every ordering, one error
            with pytest.raises(ProcessError) as raised:
                start(options)
            error = raised.value
            assert not isinstance(error, CLIConnectionError)
            assert error.exit_code == code
            assert error.stderr == stderr
            assert str(error).startswith("Claude Code CLI exited during start-up")
            texts.add(str(error))
    finally:
        assert options.debug_stderr is not None
        options.debug_stderr.close()
    assert len(texts) == 1, texts


def test_the_scripted_cli_crashing_before_initialize(claude_cli: ScriptedCLI) -> None:
    claude_cli.settings["auto_initialize"] = False
    claude_cli.crash(7, stderr="no config")
    with pytest.raises(ProcessError) as raised:
        run_query(claude_cli.options())
    assert (raised.value.exit_code, raised.value.stderr) == (7, "no config")
