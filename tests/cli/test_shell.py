"""``claude-sync`` end to end against the kit's scripted CLI run as a subprocess
(``--cli-path``): what it prints, what it sends, and the exit status of every outcome.

Most tests call ``main()`` in this process (stdout/stderr captured, stdin replaced); the ones
about the entry points, Ctrl-C and a closed pipe run ``python -m claude_sync`` as a process.
"""

from __future__ import annotations

import configparser
import io
import json
import os
import select
import signal
import subprocess
import sys
import time
from importlib import import_module
from pathlib import Path
from typing import IO, List, Optional

import pytest

from claude_sync import __version__
from claude_sync._cli.program import run_program
from claude_sync._cli.shell import main
from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]


def run(cli: ScriptedCLI, *argv: str, stdin: Optional[str] = None, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
    return main(["--cli-path", cli.install(), *argv])


# ----------------------------------------------------------------------------- output


def test_the_answer_streams_as_text(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user("What is 2 + 2?").text("Let me think.").tool_use("Bash", {"command": "expr 2 + 2"})
    claude_cli.tool_result("4").text("It is 4.").result()
    assert run(claude_cli, "What is 2 + 2?", monkeypatch=monkeypatch) == 0
    out, err = capsys.readouterr()
    assert out == "Let me think.\n\nIt is 4.\n"
    assert err == ""
    assert "--include-partial-messages" in claude_cli.last_run.argv


def test_json_prints_every_message_as_the_cli_sent_it(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("four")
    assert run(claude_cli, "--json", "2 + 2?", monkeypatch=monkeypatch) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["type"] for line in lines] == ["system", "assistant", "result"]
    assert lines[1]["message"]["content"] == [{"type": "text", "text": "four"}]
    assert lines[2]["result"] == "four" and lines[2]["session_id"] == "scripted-session"


def test_output_format_prints_the_structured_output(claude_cli: ScriptedCLI, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    claude_cli.expect_user().result("", structured_output={"n": 4, "why": "2 + 2 ist vier"})
    assert run(claude_cli, "--output-format", str(tmp_path / "schema.json"), "2 + 2?", monkeypatch=monkeypatch) == 0
    assert json.loads(capsys.readouterr().out) == {"n": 4, "why": "2 + 2 ist vier"}
    assert claude_cli.last_run.initialize is not None
    assert claude_cli.last_run.initialize["jsonSchema"] == schema


def test_a_result_without_structured_output_is_exit_5(claude_cli: ScriptedCLI, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "schema.json").write_text("{}")
    claude_cli.answer("plain text, no structure")
    assert run(claude_cli, "--schema", str(tmp_path / "schema.json"), "hi", monkeypatch=monkeypatch) == 5
    out, err = capsys.readouterr()
    assert out == "" and "without structured output" in err


def test_verbose_prints_the_session_for_resume(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().text("ok").result(num_turns=2, total_cost_usd=0.0123)
    assert run(claude_cli, "-v", "hi", monkeypatch=monkeypatch) == 0
    assert capsys.readouterr().err.startswith("session scripted-session · 2 turns · 10 in / 5 out tokens · $0.0123 · wall ")


# ----------------------------------------------------------------------------- flags and the prompt


def test_flags_reach_the_cli(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("ok")
    code = run(claude_cli, "--resume", "0f6c3d52-1d6a-4a8e-9d3f-2b7e5c1a9e10", "--model", "opus",
               "--max-turns", "3", "--permission-mode", "plan", "--allowed-tools", "Read,Grep", "hi",
               monkeypatch=monkeypatch)
    assert code == 0
    argv = claude_cli.last_run.argv
    assert "--resume=0f6c3d52-1d6a-4a8e-9d3f-2b7e5c1a9e10" in argv
    for flag, value in [("--model", "opus"), ("--max-turns", "3"), ("--permission-mode", "plan"),
                        ("--allowedTools", "Read,Grep")]:
        assert argv[argv.index(flag) + 1] == value


@pytest.mark.parametrize("argv", [[], ["-"]])
def test_the_prompt_from_stdin(argv: List[str], claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("read it", prompt="a prompt\nfrom a pipe\n")
    assert run(claude_cli, *argv, stdin="a prompt\nfrom a pipe\n", monkeypatch=monkeypatch) == 0
    assert capsys.readouterr().out == "read it\n"


def test_stdin_appended_to_the_words(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("looks fine", prompt="Review this diff\n\n+ one line\n")
    assert run(claude_cli, "Review this diff", "-", stdin="+ one line\n", monkeypatch=monkeypatch) == 0


def test_words_ignore_a_pipe_without_dash(claude_cli: ScriptedCLI, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.answer("ok", prompt="just this")
    assert run(claude_cli, "just this", stdin="not this", monkeypatch=monkeypatch) == 0


# ----------------------------------------------------------------------------- exit status


def test_cli_not_found_is_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cli-path", str(tmp_path / "no-claude-here"), "hi"]) == 3
    assert "the claude CLI was not found at" in capsys.readouterr().err


def test_a_crashing_cli_is_exit_4(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().text("half an answer").crash(3, stderr="segfault in the tokenizer")
    assert run(claude_cli, "hi", monkeypatch=monkeypatch) == 4
    out, err = capsys.readouterr()
    assert out == "half an answer\n"
    assert "the claude CLI exited with status 3" in err
    assert err.count("segfault in the tokenizer") == 1  # passed on as the CLI wrote it, not repeated


def test_an_error_result_is_exit_5(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().api_error(401)
    assert run(claude_cli, "hi", monkeypatch=monkeypatch) == 5
    out, err = capsys.readouterr()
    assert out == ""  # the CLI's "API Error: 401 …" message is no answer: stderr only
    assert err.startswith("claude-sync: error result (API status 401): API Error: 401")
    assert "hint: the API key was refused: check ANTHROPIC_API_KEY" in err and "ClaudeAgentOptions" not in err


@pytest.mark.parametrize("subtype, code", [("error_max_turns", 6), ("error_max_budget_usd", 7),
                                           ("error_during_execution", 5)])
def test_limits_have_their_own_exit_status(subtype: str, code: int, claude_cli: ScriptedCLI,
                                           capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().result(is_error=True, subtype=subtype, errors=[f"stopped: {subtype}"])
    assert run(claude_cli, "--json", "hi", monkeypatch=monkeypatch) == code
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[-1])["subtype"] == subtype  # the result was printed first
    assert subtype in err


def test_timeout_is_exit_8(claude_cli: ScriptedCLI, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    claude_cli.expect_user().text("thinking hard").stall(30)  # a timed-out run is abandoned: killed, no interrupt
    started = time.monotonic()
    assert run(claude_cli, "--timeout", "1", "hi", monkeypatch=monkeypatch) == 8
    assert time.monotonic() - started < 10
    assert "--timeout 1 s elapsed" in capsys.readouterr().err


@pytest.mark.parametrize("argv, stdin, says", [
    (["--max-turns", "-1", "hi"], None, "--max-turns must be an int >= 0"),
    (["--output-format", "/nonexistent/schema.json", "hi"], None, "cannot read the schema file"),
    ([], "   ", "the prompt is empty"),
    (["--nope", "hi"], None, "unrecognized arguments"),
])  # fmt: skip
def test_usage_errors_are_exit_2_and_start_nothing(argv: List[str], stdin: Optional[str], says: str,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
    assert main(["--cli-path", "/nonexistent/claude", *argv]) == 2  # exit 3 had it tried to start one
    err = capsys.readouterr().err
    assert says in err and err.startswith("claude-sync: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("value", ["yes", "true", "pool.sock"])
def test_a_shared_pool_switch_that_means_nothing_is_exit_2(value: str, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_SYNC_SHARED_POOL", value)
    assert main(["--cli-path", "/nonexistent/claude", "hi"]) == 2  # exit 3 had it tried to start one
    err = capsys.readouterr().err
    assert err.startswith("claude-sync: error: CLAUDE_SYNC_SHARED_POOL must be") and repr(value) in err


def test_a_schema_file_that_is_not_json_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "schema.json").write_text("{not json")
    assert main(["--cli-path", "/nonexistent/claude", "--schema", str(tmp_path / "schema.json"), "hi"]) == 2
    assert "is not JSON" in capsys.readouterr().err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out
    assert main(["--help"]) == 0
    assert "exit status:" in capsys.readouterr().out


# ----------------------------------------------------------------------------- as a process


def command_env() -> dict:  # type: ignore[type-arg]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def spawn(*argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "claude_sync", *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=command_env(), cwd=str(ROOT))


def read_until(stream: IO[bytes], marker: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([stream], [], [], max(0.0, left))
        if not ready:
            raise AssertionError(f"{marker!r} not printed within {timeout}s (got {seen!r})")
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            raise AssertionError(f"stdout ended before {marker!r} (got {seen!r})")
        seen += chunk
    return seen


def test_python_m_claude_sync_runs_the_command(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("four")
    done = subprocess.run([sys.executable, "-m", "claude_sync", "--cli-path", claude_cli.install(), "2 + 2?"],
                          capture_output=True, env=command_env(), timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"four\n", b"")


def test_the_console_script_entry_point_is_the_program() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    scripts = [line.strip() for line in config["options.entry_points"]["console_scripts"].splitlines() if line.strip()]
    assert scripts == ["claude-sync = claude_sync._cli.program:run_program"]
    module, _, name = scripts[0].split(" = ")[1].partition(":")
    assert getattr(import_module(module), name) is run_program


def test_ctrl_c_stops_the_cli_and_exits_130(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("started").expect_interrupt(timeout=30).interrupted()
    process = spawn("--cli-path", claude_cli.install(), "count to a million")
    try:
        assert process.stdout is not None
        read_until(process.stdout, b"started", timeout=30)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == 130
    assert err == b"claude-sync: interrupted\n"
    assert claude_cli.last_run.ended is not None  # the CLI played its script to the end: it was stopped


def test_a_closed_stdout_stops_the_cli_quietly(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().numbered_texts(20000, batch=200).expect_interrupt(timeout=30).interrupted()
    process = spawn("--cli-path", claude_cli.install(), "count")
    try:
        assert process.stdout is not None and process.stderr is not None
        read_until(process.stdout, b"\n\n1\n\n", timeout=30)
        process.stdout.close()  # like `| head -1` exiting
        err = process.stderr.read()
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
    assert process.returncode == 141
    assert err == b""
