"""``claude-sync`` speaks to a shell user: flags in its hints (never ``ClaudeAgentOptions``),
diagnostics on stderr only, a progress line on a terminal's stderr (none when piped or with
``--quiet``), an inline JSON schema, CLI flags passed through (``--cli-arg``),
``--no-slash-commands``, and a ``--version`` that names the ``claude`` it would run.
"""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from claude_sync import __version__
from claude_sync._cli.shell import main
from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]


def run(cli: ScriptedCLI, *argv: str, monkeypatch: pytest.MonkeyPatch, stdin: Optional[str] = None) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
    return main(["--cli-path", cli.install(), *argv])


def command_env() -> dict:  # type: ignore[type-arg]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


# ----------------------------------------------------------------------------- words for a shell


def test_the_turn_limit_names_the_flag_and_its_own_exit_status(claude_cli: ScriptedCLI,
                                                                capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().result(is_error=True, subtype="error_max_turns", errors=["Reached maximum number of turns (1)"])
    assert run(claude_cli, "--max-turns", "1", "hi", monkeypatch=monkeypatch) == 6
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("claude-sync: error result (error_max_turns): Reached maximum number of turns (1)\n"
                   "claude-sync: hint: the run reached --max-turns: raise it to let the agent take more turns\n")


def test_not_logged_in_goes_to_stderr_not_into_the_answer(claude_cli: ScriptedCLI, tmp_path: Path) -> None:
    """What 2.1.197 and 2.1.33x send without a login: a synthetic assistant message with
    ``error`` set, then an error result. ``x=$(claude-sync …)`` must not capture it."""
    not_logged_in = "Not logged in · Please run /login"
    claude_cli.expect_user().emit({
        "type": "assistant", "parent_tool_use_id": None, "session_id": "scripted-session", "error": "authentication_failed",
        "message": {"id": "m1", "type": "message", "role": "assistant", "model": "<synthetic>",
                    "content": [{"type": "text", "text": not_logged_in}], "stop_reason": "stop_sequence",
                    "stop_sequence": "", "usage": {"input_tokens": 0, "output_tokens": 0}},
    }).result(not_logged_in, is_error=True)  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "claude_sync", "--cli-path", claude_cli.install(), "hi"],
                          capture_output=True, env=command_env(), timeout=60, check=False)
    assert (done.returncode, done.stdout) == (5, b"")
    err = done.stderr.decode()
    assert err.startswith(f"claude-sync: error result: {not_logged_in}\n")
    assert "hint: you are not logged in: run `claude` once in a terminal" in err and "ClaudeAgentOptions" not in err


def test_a_missing_cli_names_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["hi"]) == 3
    err = capsys.readouterr().err
    assert "--cli-path" in err and "cli_path=" not in err and "ClaudeAgentOptions" not in err


# ----------------------------------------------------------------------------- the progress line


def spawn_on_a_terminal(*argv: str) -> Tuple[subprocess.Popen[bytes], int]:
    """``python -m claude_sync`` with stderr on a pseudo-terminal (stdout piped); the master fd."""
    master, slave = os.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "claude_sync", *argv], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=slave, env=command_env())
    finally:
        os.close(slave)
    return process, master


def read_terminal(master: int, until: Optional[bytes], timeout: float = 30) -> bytes:
    """What the terminal shows up to ``until`` (None: until the other side closes)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while until is None or until not in seen:
        ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"{until!r} not on the terminal within {timeout}s (got {seen!r})")
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every writer is gone
            chunk = b""
        if not chunk:
            if until is None:
                return seen
            raise AssertionError(f"the terminal closed before {until!r} (got {seen!r})")
        seen += chunk
    return seen


def tool_script(claude_cli: ScriptedCLI, flag: Path) -> str:
    claude_cli.expect_user().text("Let me check.").tool_use("Bash", {"command": "make test"})
    claude_cli.wait_for_file(flag, timeout=30).tool_result("ok").text("All green.").result()
    return claude_cli.install()


def test_a_terminal_gets_a_progress_line_while_a_tool_runs(claude_cli: ScriptedCLI, tmp_path: Path) -> None:
    flag = tmp_path / "tool-may-finish"
    process, master = spawn_on_a_terminal("--cli-path", tool_script(claude_cli, flag), "run the tests")
    try:
        shown = read_terminal(master, b"running Bash: make test")
        flag.touch()
        shown += read_terminal(master, None)
        out, _ = process.communicate(timeout=30)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == 0
    assert out == b"Let me check.\n\nAll green.\n"  # the answer alone: no progress on stdout
    assert shown.endswith(b"\r\x1b[K")  # the line is erased at the end
    assert b"claude-sync:" not in shown


def test_quiet_draws_no_progress_line(claude_cli: ScriptedCLI, tmp_path: Path) -> None:
    flag = tmp_path / "tool-may-finish"
    flag.touch()
    process, master = spawn_on_a_terminal("--quiet", "--cli-path", tool_script(claude_cli, flag), "run the tests")
    try:
        shown = read_terminal(master, None)
        out, _ = process.communicate(timeout=30)
    finally:
        os.close(master)
    assert (process.returncode, out, shown) == (0, b"Let me check.\n\nAll green.\n", b"")


def test_piped_stderr_gets_no_progress_line(claude_cli: ScriptedCLI, tmp_path: Path) -> None:
    flag = tmp_path / "tool-may-finish"
    flag.touch()
    done = subprocess.run([sys.executable, "-m", "claude_sync", "--cli-path", tool_script(claude_cli, flag), "go"],
                          capture_output=True, env=command_env(), timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"Let me check.\n\nAll green.\n", b"")


# ----------------------------------------------------------------------------- inputs and flags


def test_an_inline_json_schema(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    claude_cli.expect_user().result("", structured_output={"n": 4})
    assert run(claude_cli, "--schema", " " + json.dumps(schema), "2 + 2?", monkeypatch=monkeypatch) == 0
    assert json.loads(capsys.readouterr().out) == {"n": 4}
    assert claude_cli.last_run.initialize is not None and claude_cli.last_run.initialize["jsonSchema"] == schema


@pytest.mark.parametrize("text, says", [("{not json", "is not JSON"), ('{"a": 1', "is not JSON")])
def test_inline_json_that_is_not_json_is_a_usage_error(text: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cli-path", "/nonexistent/claude", "--schema", text, "hi"]) == 2
    assert says in capsys.readouterr().err


def test_cli_args_pass_through(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("ok")
    code = run(claude_cli, "--cli-arg=--add-dir=/srv/lib", "--cli-arg=--debug", "--cli-arg=--name=-x", "hi",
               monkeypatch=monkeypatch)
    assert code == 0
    argv = claude_cli.last_run.argv
    assert argv[argv.index("--add-dir") + 1] == "/srv/lib"
    assert "--debug" in argv and "--name=-x" in argv


def test_no_slash_commands_sends_the_prompt_as_text(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("just text to me", prompt=" /config permissionMode=acceptEdits")
    assert run(claude_cli, "--no-slash-commands", "/config permissionMode=acceptEdits", monkeypatch=monkeypatch) == 0


def test_slash_commands_are_sent_as_they_are_by_default(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("ran it", prompt="/cost")
    assert run(claude_cli, "/cost", monkeypatch=monkeypatch) == 0


# ----------------------------------------------------------------------------- --version


def fake_claude(tmp_path: Path, version_line: str) -> str:
    path = tmp_path / "claude"
    path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    path.chmod(0o755)
    return str(path)


def test_version_names_the_cli_and_its_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = fake_claude(tmp_path, "2.1.250 (Claude Code)")
    assert main(["--version", "--cli-path", cli]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"claude-sync (claude_sync) {__version__}", f"claude: {cli} (named by --cli-path)",
                     "claude version: 2.1.250 (Claude Code)"]


def test_version_finds_claude_on_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cli = fake_claude(tmp_path, "2.1.300 (Claude Code)")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert f"claude: {cli} (the first claude on PATH)" in out and "2.1.300" in out


def test_version_without_a_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version", "--cli-path", str(tmp_path / "none")]) == 0
    lines: List[str] = capsys.readouterr().out.splitlines()
    assert lines[0] == f"claude-sync (claude_sync) {__version__}"
    assert lines[1].startswith("claude: not found: --cli-path")
