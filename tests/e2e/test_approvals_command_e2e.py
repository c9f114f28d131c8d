"""``claude-sync --approve RULE`` and ``claude-sync resume-approval`` on the real CLI (fake API):
the run stops at the call and prints its pending approval as the last stdout line (exit 11); a
later command decides it and goes on; a late decision is refused (exit 12), nothing runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import PendingApproval
from claude_sync.testing import FakeAnthropicAPI, hermetic_env, text, tool_use

from .approval_scripts import subagent_asks_for_a_held_call

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def claude_sync(cli: str, api: FakeAnthropicAPI, tmp_path: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env: Dict[str, Any] = hermetic_env(tmp_path, api.base_url, CLAUDE_CODE_MAX_RETRIES=0)
    env["PYTHONPATH"] = str(ROOT)
    command: List[str] = [sys.executable, "-m", "claude_sync", *argv]
    return subprocess.run(command, env=env, input=stdin, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("decision", ["--allow", "--deny"])
def test_approve_then_resume_approval(decision: str, real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    fake_api.add(tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("all done"))
    first = claude_sync(real_cli_path, fake_api, tmp_path, "--cli-path", real_cli_path, "--cwd", str(work),
                        "--approve", "Bash(echo:*)", "record that it ran")  # fmt: skip
    assert first.returncode == 11, first.stderr
    pending = PendingApproval.from_json(first.stdout.splitlines()[-1])
    assert pending.tool_input == {"command": "echo ran >> ran.txt"} and not (work / "ran.txt").exists()
    (tmp_path / "pending.json").write_text(first.stdout)
    args = [decision] + (["not today"] if decision == "--deny" else [])
    second = claude_sync(real_cli_path, fake_api, tmp_path, "resume-approval", str(tmp_path / "pending.json"), *args,
                         "--cli-path", real_cli_path)  # fmt: skip
    assert (second.returncode, second.stdout) == (0, "all done\n"), second.stderr
    assert (work / "ran.txt").exists() is (decision == "--allow")
    again = claude_sync(real_cli_path, fake_api, tmp_path, "resume-approval", "-", "--allow", "--cli-path", real_cli_path,
                        stdin=first.stdout)  # fmt: skip
    assert again.returncode == 12 and "moved on" in again.stderr and again.stdout == ""
    fake_api.assert_no_surprises()


def test_bad_input_is_a_usage_error_before_any_cli(fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-claude")
    for argv, stdin in [
        (["resume-approval", "-", "--allow", "--cli-path", missing], "not json"),
        (["resume-approval", "-", "--allow", "--cli-path", missing], ""),
        (["resume-approval", str(tmp_path / "nope.json"), "--allow"], ""),
        (["resume-approval", "-", "--allow", "--deny", "x"], "{}"),
        (["resume-approval", "-", "--allow-input", "[1]", "--cli-path", missing], '{"x": 1}'),
        (["--approve", "Bash(rm", "--cli-path", missing, "hi"], ""),
        (["--approve", " , ", "--cli-path", missing, "hi"], ""),
    ]:  # fmt: skip
        done = claude_sync(missing, fake_api, tmp_path, *argv, stdin=stdin)
        assert done.returncode == 2 and done.stdout == "", (argv, done.stderr)


def test_approve_with_an_output_format_writes_the_record_and_a_failed_delivery_spends_nothing(
    real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    """``--approve … --output-format SCHEMA``: the run that stopped for a person exits 11 with
    its record (it exited 5 without one). ``resume-approval`` with a mistyped ``--cli-path``
    fails before any CLI starts and spends no claim: the next delivery runs the call; two
    deliveries at once run it once."""
    work = tmp_path / "work"
    work.mkdir()
    fake_api.add(tool_use("Bash", {"command": "echo ran >> ran.txt"}), text("all done"))
    schema = '{"type": "object", "properties": {"done": {"type": "boolean"}}}'
    first = claude_sync(real_cli_path, fake_api, tmp_path, "--cli-path", real_cli_path, "--cwd", str(work),
                        "--approve", "Bash(echo:*)", "--output-format", schema, "record that it ran")  # fmt: skip
    assert first.returncode == 11, first.stderr
    PendingApproval.from_json(first.stdout.splitlines()[-1])
    record = tmp_path / "pending.json"
    record.write_text(first.stdout)
    typo = claude_sync(real_cli_path, fake_api, tmp_path, "resume-approval", str(record), "--allow",
                       "--cli-path", real_cli_path + "-typo")  # fmt: skip
    assert typo.returncode == 3 and "--claimant" in typo.stderr, typo.stderr
    env: Dict[str, Any] = dict(hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES=0), PYTHONPATH=str(ROOT))
    racers = [subprocess.Popen([sys.executable, "-m", "claude_sync", "resume-approval", str(record), "--allow",
                                "--cli-path", real_cli_path], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) for _ in range(2)]  # fmt: skip
    outcomes = sorted((p.wait(timeout=120), p.communicate()[0]) for p in racers)
    assert outcomes == [(0, "all done\n"), (12, "")], [p.stderr for p in racers]
    assert (work / "ran.txt").read_text() == "ran\n"
    fake_api.assert_no_surprises()


def test_a_subagents_held_call_is_an_error_naming_it(real_cli_path: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with FakeAnthropicAPI(responder=subagent_asks_for_a_held_call) as api:
        done = claude_sync(real_cli_path, api, tmp_path, "--cli-path", real_cli_path, "--cwd", str(work),
                           "--approve", "Bash(echo:*)", "go")  # fmt: skip
    assert done.returncode == 1 and "toolu_sub" in done.stderr and "subagent" in done.stderr, done.stderr
    assert not (work / "ran.txt").exists()
