"""``claude-sync`` as a process against what a shell can do to it: text it cannot encode (lone
surrogates from the model, ``PYTHONIOENCODING=ascii``), inputs that are no prompt (stdin not
UTF-8, a schema nested 100,000 deep, ``--timeout nan``), and a stdout that is closed or full.
Each ends in one line on stderr and a documented exit status, never a traceback, and a usage
error starts no CLI (``--cli-path`` names a scripted CLI whose runs are counted).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]


def env_with(**extra: str) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("PYTHONIOENCODING", None)
    env.update(extra)
    return env


def claude_sync(*argv: str, stdin: bytes = b"", stdout: Optional[int] = subprocess.PIPE, shell_suffix: str = "",
                **env: str) -> subprocess.CompletedProcess[bytes]:
    command: List[str] = [sys.executable, "-m", "claude_sync", *argv]
    if shell_suffix:  # e.g. ">&-": a redirection only a shell can make
        command = ["/bin/sh", "-c", 'exec "$@" ' + shell_suffix, "sh", *command]
    return subprocess.run(command, input=stdin, stdout=stdout, stderr=subprocess.PIPE, env=env_with(**env),
                          timeout=60, check=False)


def one_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert "Traceback" not in text, text
    assert text.count("\n") == 1 and text.startswith("claude-sync: "), text
    return text


# ----------------------------------------------------------------------------- what the model wrote


def test_a_lone_surrogate_in_the_text_is_replaced_and_the_rest_kept(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("half an emoji \ud83d and the rest").text("second block").result()
    done = claude_sync("--cli-path", claude_cli.install(), "hi")
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode() == "half an emoji \ufffd and the rest\n\nsecond block\n"


def test_a_lone_surrogate_stays_escaped_in_json_lines(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("half an emoji \ud83d and the rest").result("done \udc00")
    done = claude_sync("--cli-path", claude_cli.install(), "--json", "hi")
    assert (done.returncode, done.stderr) == (0, b"")
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]  # every line valid JSON
    assert lines[1]["message"]["content"][0]["text"] == "half an emoji \ud83d and the rest"
    assert lines[-1]["result"] == "done \udc00"
    assert b"\\ud83d" in done.stdout


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"}])
def test_text_the_locale_cannot_encode_is_escaped_not_fatal(env: Dict[str, str], claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("café ☕ \ud83d end").result()
    done = claude_sync("--cli-path", claude_cli.install(), "hi", **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(b" end\n") and done.stdout.startswith(b"caf")


def test_json_lines_stay_valid_in_an_ascii_locale(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("café ☕ \ud83d").result()
    done = claude_sync("--cli-path", claude_cli.install(), "--json", "hi", PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr
    done.stdout.decode("ascii")
    texts = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert texts[1]["message"]["content"][0]["text"] == "café ☕ \ud83d"


def test_a_lone_surrogate_in_an_error_reaches_stderr(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().result(is_error=True, subtype="error_during_execution", errors=["broke at \ud83d here"])
    done = claude_sync("--cli-path", claude_cli.install(), "hi", PYTHONIOENCODING="utf-8:strict")
    assert done.returncode == 5
    assert "broke at \ufffd here" in done.stderr.decode()


# ----------------------------------------------------------------------------- usage errors start nothing


def deep_json(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("argv, says", [
    (["--timeout", "nan"], "--timeout: must be a finite number > 0"),
    (["--timeout", "-5"], "--timeout: must be a finite number > 0"),
    (["--timeout", "0"], "--timeout: must be a finite number > 0"),
    (["--timeout", "inf"], "--timeout: must be a finite number > 0"),
    (["--max-budget-usd", "nan"], "--max-budget-usd: must be a finite number > 0"),
    (["--schema", deep_json(10_000)], "nested too deep"),
    (["--cli-arg=--output-format=text"], "claude-sync sets --output-format itself"),
    (["--cli-arg=-p"], "--cli-arg takes --FLAG or --FLAG=VALUE"),
    (["--cli-arg=--bad flag"], "--cli-arg takes --FLAG or --FLAG=VALUE"),
    (["--cli-arg", "--debug"], "write it with =, e.g. --cli-arg=--add-dir=../lib"),
    (["--max-turns", "-1"], "--max-turns must be"),
])  # fmt: skip
def test_bad_values_are_usage_errors(argv: List[str], says: str, tmp_path: Path) -> None:
    claude_cli = ScriptedCLI(directory=tmp_path).answer("never asked")
    done = claude_sync("--cli-path", claude_cli.install(), *argv, "hi")
    assert done.returncode == 2, done.stderr
    err = done.stderr.decode()
    assert "Traceback" not in err and says in err, err
    assert claude_cli.runs == []


def test_a_schema_file_nested_100000_deep_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(deep_json(100_000))
    claude_cli = ScriptedCLI(directory=tmp_path).answer("never asked")
    done = claude_sync("--cli-path", claude_cli.install(), "--schema", str(tmp_path / "deep.json"), "hi")
    assert done.returncode == 2
    assert "nested too deep" in done.stderr.decode() and "Traceback" not in done.stderr.decode()
    assert claude_cli.runs == []


def test_a_schema_file_that_never_ends_is_a_usage_error(tmp_path: Path) -> None:
    claude_cli = ScriptedCLI(directory=tmp_path).answer("never asked")
    done = claude_sync("--cli-path", claude_cli.install(), "--schema", "/dev/zero", "hi")
    assert done.returncode == 2 and "larger than" in done.stderr.decode()


@pytest.mark.parametrize("data, says", [(b"caf\xe9 latin-1\n", "byte 0xe9 at offset 3"), (b"\xff\xfe", "byte 0xff")])
def test_stdin_that_is_not_utf8_is_a_usage_error(data: bytes, says: str, tmp_path: Path) -> None:
    claude_cli = ScriptedCLI(directory=tmp_path).answer("never asked")
    done = claude_sync("--cli-path", claude_cli.install(), "-", stdin=data)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "stdin is not UTF-8 text" in err and says in err and "Traceback" not in err
    assert claude_cli.runs == []


def test_a_prompt_word_that_is_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    claude_cli = ScriptedCLI(directory=tmp_path).answer("never asked")
    command = [sys.executable.encode(), b"-m", b"claude_sync", b"--cli-path", claude_cli.install().encode(), b"caf\xe9"]
    done = subprocess.run(command, capture_output=True, env=env_with(), timeout=60, check=False)
    assert done.returncode == 2
    assert "the prompt is not UTF-8 text" in done.stderr.decode()
    assert claude_cli.runs == []


def test_a_utf8_prompt_on_stdin_reaches_the_cli(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("ok", prompt="Grüße ☕\n")
    done = claude_sync("--cli-path", claude_cli.install(), stdin="\ufeffGrüße ☕\n".encode())  # a BOM is dropped
    assert (done.returncode, done.stdout) == (0, b"ok\n"), done.stderr


# ----------------------------------------------------------------------------- stdout closed or full


def test_a_closed_stdout_is_exit_9_before_any_cli_starts(tmp_path: Path) -> None:
    claude_cli = ScriptedCLI(directory=tmp_path).answer("nobody reads this")
    done = claude_sync("--cli-path", claude_cli.install(), "hi", stdout=None, shell_suffix=">&-")
    assert done.returncode == 9
    assert "stdout is closed" in one_line(done.stderr)
    assert claude_cli.runs == []


def test_a_full_stdout_is_exit_9_and_stops_the_cli(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().text("a" * 100).expect_interrupt(timeout=30).interrupted()
    with open("/dev/full", "w") as full:
        done = claude_sync("--cli-path", claude_cli.install(), "hi", stdout=full.fileno())
    assert done.returncode == 9
    assert "cannot write to stdout: No space left on device" in one_line(done.stderr)
    assert claude_cli.last_run.ended is not None  # the CLI was stopped, not left running


def test_version_to_a_full_stdout_is_exit_9() -> None:
    with open("/dev/full", "w") as full:
        done = claude_sync("--cli-path", "/nonexistent/claude", "--version", stdout=full.fileno())
    assert done.returncode == 9 and "No space left on device" in one_line(done.stderr)


def test_a_closed_stderr_loses_only_the_diagnostics(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().result("it failed", is_error=True, subtype="error_during_execution")
    command = ["/bin/sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-m", "claude_sync",
               "--cli-path", claude_cli.install(), "hi"]
    done = subprocess.run(command, capture_output=True, env=env_with(), timeout=60, check=False)
    assert (done.returncode, done.stdout) == (5, b"")


def test_a_utf8_prompt_word_in_the_c_locale_reaches_the_cli(claude_cli: ScriptedCLI) -> None:
    """Under ``LC_ALL=C`` (no UTF-8 mode) Python decodes argv as ASCII and keeps the rest as
    lone surrogates; the UTF-8 bytes are recovered, not refused."""
    claude_cli.answer("ok", prompt="Grüße ☕")
    command = [sys.executable, "-m", "claude_sync", "--cli-path", claude_cli.install(), "Grüße ☕"]
    done = subprocess.run(command, capture_output=True, timeout=60, check=False,
                          env=env_with(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0"))
    assert (done.returncode, done.stdout) == (0, b"ok\n"), done.stderr
