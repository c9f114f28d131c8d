"""``claude-sync doctor`` without a real CLI: a missing CLI, one that does not run, one too old
(a tiny script that prints a version), the environment it reports (secrets redacted), and a
stdout it cannot write. The round trip against the real CLI is in the e2e suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List

import pytest

from claude_sync._cli.diagnosis import FAIL, OK, WARN, environment_findings, version_finding
from claude_sync._cli.shell import main

if TYPE_CHECKING:
    from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "claude"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def doctor(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ: Dict[str, str] = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    environ.update(env)
    return subprocess.run([sys.executable, "-m", "claude_sync", "doctor", *argv], capture_output=True, text=True,
                          env=environ, timeout=120, check=False)


def test_a_missing_cli_is_exit_3(tmp_path: Path) -> None:
    done = doctor("--cli-path", str(tmp_path / "none"))
    assert done.returncode == 3, done.stderr
    assert f"FAIL  claude: not found: --cli-path '{tmp_path / 'none'}' is not a file" in done.stdout
    assert done.stdout.rstrip().endswith("exit status 3: claude")


def test_no_cli_anywhere_is_exit_3(tmp_path: Path) -> None:
    done = doctor(PATH=str(tmp_path), HOME=str(tmp_path))
    assert done.returncode == 3
    assert "FAIL  claude: not found: Claude Code CLI not found" in done.stdout
    assert "npm install -g @anthropic-ai/claude-code" in done.stdout


def test_a_cli_that_does_not_run_is_exit_4(tmp_path: Path) -> None:
    cli = script(tmp_path, "echo 'claude: broken install' >&2; exit 1")
    done = doctor("--cli-path", cli)
    assert done.returncode == 4
    assert f"FAIL  version: `{cli} --version` exited with status 1: claude: broken install" in done.stdout


def test_an_old_cli_is_exit_10(tmp_path: Path) -> None:
    cli = script(tmp_path, "echo '2.0.5 (Claude Code)'")
    done = doctor("--cli-path", cli, "--timeout", "30")
    assert done.returncode == 10, done.stdout + done.stderr
    assert f"ok    claude: {cli} (named by --cli-path)" in done.stdout
    assert "FAIL  version: 2.0.5 is older than 2.1.197, the oldest this release supports" in done.stdout
    assert "FAIL  round trip:" in done.stdout  # it is no CLI at all: tried, reported, the first problem wins


def test_the_cli_on_path_is_named_with_the_reason(tmp_path: Path) -> None:
    cli = script(tmp_path, "echo '2.0.5 (Claude Code)'")
    done = doctor("--timeout", "30", PATH=f"{tmp_path}:/usr/bin:/bin")
    assert f"ok    claude: {cli} (the first claude on PATH)" in done.stdout


@pytest.mark.parametrize("reported, level", [
    ("2.1.197 (Claude Code)", OK), ("2.1.250 (Claude Code)", OK), ("2.1.196 (Claude Code)", FAIL),
    ("1.0.0", FAIL), ("2.2.0 (Claude Code)", WARN), ("nonsense", WARN),
])  # fmt: skip
def test_the_version_against_the_tested_range(reported: str, level: str) -> None:
    assert version_finding(reported, "2.1.331").level == level


def test_the_environment_is_reported_with_secrets_redacted() -> None:
    environ = {
        "HTTPS_PROXY": "http://alice:hunter2@proxy.example:8080", "ANTHROPIC_API_KEY": "sk-ant-api03-secretsecret",
        "ANTHROPIC_BASE_URL": "https://gateway.example", "AWS_SECRET_ACCESS_KEY": "abcd1234", "HOME": "/root",
        "CLAUDE_CODE_USE_BEDROCK": "1", "NODE_OPTIONS": "--max-old-space-size=4096",
    }  # fmt: skip
    lines: List[str] = [finding.text for finding in environment_findings(environ)]
    report = "\n".join(lines)
    for secret in ("hunter2", "secretsecret", "abcd1234"):
        assert secret not in report
    assert "HTTPS_PROXY=http://alice:<redacted>@proxy.example:8080" in lines
    assert "ANTHROPIC_BASE_URL=https://gateway.example" in lines and "CLAUDE_CODE_USE_BEDROCK=1" in lines
    assert not any(line.startswith("HOME=") for line in lines)
    assert "no proxy variables set" in "\n".join(f.text for f in environment_findings({}))


def test_a_full_stdout_is_exit_9(tmp_path: Path) -> None:
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "claude_sync", "doctor", "--cli-path", str(tmp_path / "none")],
                              stdout=full, stderr=subprocess.PIPE, env=environ, timeout=60, check=False)
    assert done.returncode == 9
    assert done.stderr.decode() == "claude-sync: cannot write to stdout: No space left on device\n"


def test_doctor_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--timeout", "nan"]) == 2
    assert capsys.readouterr().err.startswith("claude-sync doctor: error: argument --timeout")


def test_the_bundled_cli_of_an_installed_sdk_wheel_comes_first(tmp_path: Path) -> None:
    """An installed ``claude-agent-sdk`` (here a stand-in package with ``_bundled/claude``) is
    found before ``claude`` on PATH, as the library finds it; the doctor says so."""
    bundled = tmp_path / "site" / "claude_agent_sdk" / "_bundled"
    bundled.mkdir(parents=True)
    (bundled.parent / "__init__.py").write_text("raise ImportError('never imported: only found')\n")
    cli = script(bundled, "echo '2.0.5 (Claude Code)'")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    script(on_path, "echo '2.1.250 (Claude Code)'")
    done = doctor("--timeout", "30", PATH=f"{on_path}:/usr/bin:/bin",
                  PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path / "site")]))
    assert f"ok    claude: {cli} (the CLI bundled in the installed claude-agent-sdk wheel" in done.stdout, done.stdout


def _scripted_cli_reporting_a_version(tmp_path: Path, steps: "ScriptedCLI") -> str:
    """A scripted CLI that also answers ``--version`` as the pinned CLI does."""
    inner = steps.install(tmp_path)
    outer = tmp_path / "claude-with-version"
    outer.write_text(f'#!/bin/sh\n[ "$1" = --version ] && {{ echo "2.1.197 (Claude Code)"; exit 0; }}\nexec {inner} "$@"\n')
    outer.chmod(0o755)
    return str(outer)


def test_an_empty_answer_is_not_ok(tmp_path: Path) -> None:
    from claude_sync.testing import ScriptedCLI

    cli = _scripted_cli_reporting_a_version(tmp_path, ScriptedCLI().expect_user().result(result=""))
    done = doctor("--cli-path", cli, "--timeout", "60")
    assert done.returncode == 5, done.stdout + done.stderr
    assert "FAIL  round trip: an empty answer (success, 1 turn(s)) after" in done.stdout
    assert "ok    round trip" not in done.stdout
    answered = _scripted_cli_reporting_a_version(tmp_path / "ok", ScriptedCLI().answer("OK"))
    done = doctor("--cli-path", answered, "--timeout", "60")
    assert done.returncode == 0 and "ok    round trip: answered 'OK'" in done.stdout, done.stdout


@pytest.mark.parametrize("command", ["doctor", "resume-approval"])
def test_a_subcommand_after_global_options_runs_the_subcommand(command: str, tmp_path: Path) -> None:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    missing = str(tmp_path / "none")
    words = {"doctor": [], "resume-approval": [str(tmp_path / "pending.json"), "--allow"]}[command]
    done = subprocess.run([sys.executable, "-m", "claude_sync", "--cli-path", missing, command, *words],
                          capture_output=True, text=True, env=environ, timeout=120, check=False)  # fmt: skip
    if command == "doctor":
        assert done.returncode == 3 and f"FAIL  claude: not found: --cli-path '{missing}'" in done.stdout, done
    else:  # its own error: the file is missing (never a prompt sent to a model)
        assert done.returncode == 2 and "pending.json" in done.stderr and "resume-approval" in done.stderr, done
    refused = subprocess.run([sys.executable, "-m", "claude_sync", "--json", "doctor"],
                             capture_output=True, text=True, env=environ, timeout=120, check=False)  # fmt: skip
    assert refused.returncode == 2 and "unrecognized arguments: --json" in refused.stderr, refused


def test_long_options_are_not_abbreviated(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--allow", "Read", "hello"]) == 2
    assert "unrecognized arguments: --allow" in capsys.readouterr().err
    assert main(["doctor", "--time", "5"]) == 2
    assert "unrecognized arguments: --time" in capsys.readouterr().err
