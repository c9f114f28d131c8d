"""The examples, run unchanged as subprocesses against the real CLI and the fake API.

Each example runs with the hermetic environment (``ANTHROPIC_BASE_URL`` pointing at the
fake, a scratch HOME …). ``mcp_calculator.py`` is pointed at the real binary through its
``CLAUDE_CLI_PATH`` variable; ``quick_start.py`` has no such knob, so it finds the binary as
``claude`` on a PATH that starts with a folder holding a link to it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
from helpers import require_package

from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import cli_is_at_least, hermetic_env

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
RESULT_LINE = re.compile(r"^\[success, \d+ turn\(s\), \$\d+\.\d{4}\]$")


def run_example(name: str, args: List[str], env: Dict[str, str], cwd: Path) -> List[str]:
    """Run ``examples/<name>`` with ``env``; its stdout lines (asserting a clean exit)."""
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        env=env,
        cwd=str(cwd),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout.splitlines()


def test_mcp_calculator_example(
    real_cli_path: str, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    fake_api.add(
        tool_use("mcp__calculator__add", {"a": 12, "b": 30}),
        tool_use("mcp__calculator__multiply", {"a": 42, "b": 2}),
        tool_use("mcp__calculator__divide", {"a": 1, "b": 0}),
        text("(12 + 30) * 2 = 84, and 1 / 0 is undefined."),
    )
    env = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CLI_PATH=real_cli_path, CLAUDE_CODE_MAX_RETRIES=0)
    lines = run_example("mcp_calculator.py", [], env, e2e_workdir)

    assert lines[:-1] == [
        "-> add(a=12, b=30)",
        "<- 42",
        "-> multiply(a=42, b=2)",
        "<- 84",
        "-> divide(a=1, b=0)",
        "<- error: Cannot divide by zero.",
        "(12 + 30) * 2 = 84, and 1 / 0 is undefined.",
    ]
    assert RESULT_LINE.match(lines[-1]), lines[-1]
    requests = fake_api.turn_requests()
    prompt = "What is (12 + 30) * 2? And what is 1 / 0?"
    # 2.1.197 puts a system reminder before the prompt in the same message; 2.1.330 does not
    last_user_text = requests[0].last_user_text
    assert last_user_text == prompt or last_user_text.endswith("\n" + prompt)
    listed = sorted(requests[0].tool_names)
    if cli_is_at_least(real_cli_path, "2.1.330"):  # lists a placeholder for deferred tools too
        listed.remove("DeferredToolPlaceholder")
    assert listed == [
        "mcp__calculator__add",
        "mcp__calculator__divide",
        "mcp__calculator__multiply",
    ]
    assert "Do all arithmetic with the calculator tools." in requests[0].system_text
    [divided] = requests[3].tool_results
    assert divided["is_error"] is True and "Cannot divide by zero." in str(divided["content"])
    fake_api.assert_no_surprises()


def test_quick_start_example(
    real_cli_path: str, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(real_cli_path)
    fake_api.add(text("2 + 2 = 4."))
    env = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES=0)
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    lines = run_example("quick_start.py", ["What", "is", "2 + 2?"], env, e2e_workdir)

    assert lines[0] == "2 + 2 = 4."
    assert RESULT_LINE.match(lines[1]) and lines[1].startswith("[success, 1 turn(s)"), lines
    assert len(lines) == 2
    [request] = fake_api.turn_requests()
    assert request.last_user_text.endswith("\nWhat is 2 + 2?")
    fake_api.assert_no_surprises()


def test_structured_outputs_example(
    real_cli_path: str, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    """The official example's wish, ``output_format=EmailExtraction``, run as written."""
    require_package("pydantic", import_it=False)  # the example script imports it
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(real_cli_path)
    answer = {"name": "Sarah Chen", "email": "sarah@company.com", "plan_interest": "Professional plan", "demo_requested": True}
    fake_api.add(tool_use("StructuredOutput", answer))
    # the example asks for bypassPermissions, which the CLI refuses to root outside a sandbox
    env = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES=0, IS_SANDBOX=1 if os.getuid() == 0 else None)
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    lines = run_example("structured_outputs.py", [], env, e2e_workdir)

    assert lines[:4] == ["Name: Sarah Chen", "Email: sarah@company.com", "Plan: Professional plan", "Demo: True"]
    # one API call; the CLI counts the StructuredOutput call as a second turn, even with max_turns=1
    assert RESULT_LINE.match(lines[4]) and lines[4].startswith("[success, 2 turn(s)"), lines
    [request] = fake_api.turn_requests()
    assert request.last_user_text.endswith("Sarah Chen (sarah@company.com) wants Professional plan, requested demo")
    [structured] = [t for t in request.tools if t["name"] == "StructuredOutput"]
    schema = structured["input_schema"]
    assert schema["required"] == ["name", "email", "plan_interest", "demo_requested"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["email"]["description"] == "Email address extracted from the text"
    fake_api.assert_no_surprises()


def test_try_offline_example(real_cli_path: str, e2e_workdir: Path, tmp_path: Path) -> None:
    """The README's first run command: it starts its own fake API and scratch HOME."""
    env = {name: value for name, value in os.environ.items() if not name.upper().startswith(("ANTHROPIC_", "CLAUDE"))}
    env["CLAUDE_SYNC_TEST_CLI"] = real_cli_path
    lines = run_example("try_offline.py", ["What is 2 + 2?"], env, e2e_workdir)

    assert lines[:5] == [
        "> What is 2 + 2?",
        "You asked 'What is 2 + 2?'. I am claude_sync's scripted fake model, not Claude: whatever the prompt, "
        "I ask for one shell command, to show the tool round trip.",
        "  [the model asks for Bash]",
        "  can_use_tool('Bash', 'echo 2 + 2 = $((2 + 2))') -> allow",
        "The shell says: 2 + 2 = 4",  # the CLI really ran the command
    ]
    assert re.match(r"^\[success, 2 turn\(s\), \d+ ms, CLI .+\]$", lines[5]), lines
    assert len(lines) == 6


def test_with_fake_api_runs_your_script_the_command_line_and_doctor(real_cli_path: str, e2e_workdir: Path, tmp_path: Path) -> None:
    """The README's way from the try to your own code: ``python -m
    claude_sync.testing.with_fake_api COMMAND``, the CLI found by discovery (here on PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(real_cli_path)
    env = {name: value for name, value in os.environ.items() if not name.upper().startswith(("ANTHROPIC_", "CLAUDE"))}
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    wrapper = [sys.executable, "-m", "claude_sync.testing.with_fake_api"]

    def run(*command: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run([*wrapper, *command], env=env, cwd=str(e2e_workdir), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip

    script = run(sys.executable, str(EXAMPLES / "quick_start.py"), "What is 2 + 2?")
    assert script.returncode == 0, script
    assert script.stdout.splitlines()[0] == (
        "(claude_sync's fake API, no model: you asked 'What is 2 + 2?'; a real model would answer here.)"
    ), script.stdout
    command_line = run(sys.executable, "-m", "claude_sync", "Name a colour.")
    assert command_line.returncode == 0 and "you asked 'Name a colour.'" in command_line.stdout, command_line
    doctor = run(sys.executable, "-m", "claude_sync", "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"ok    claude: {bin_dir / 'claude'} (the first claude on PATH)" in doctor.stdout
    assert "ok    round trip: answered \"(claude_sync's fake API" in doctor.stdout
    failed = run(str(tmp_path / "no-such-program"))
    assert failed.returncode == 127 and "could not start" in failed.stderr
    assert run(sys.executable, "-c", "import sys; sys.exit(7)").returncode == 7
