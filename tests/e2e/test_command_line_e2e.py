"""``claude-sync`` (``python -m claude_sync``) driving the real ``claude`` CLI against the
loopback fake Anthropic API: the answer streams to stdout, ``--output-format`` prints the
structured output, and an error result or the turn limit gives its own exit status.

The command runs as a process with the hermetic environment (``harness.hermetic_env``): the
CLI it starts inherits that environment, so nothing of the caller's account reaches it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync.testing import FakeAnthropicAPI, error, hermetic_env, text, tool_use

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def claude_sync(real_cli_path: str, api: FakeAnthropicAPI, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env: Dict[str, Any] = hermetic_env(tmp_path, api.base_url, CLAUDE_CODE_MAX_RETRIES=0)
    env["PYTHONPATH"] = str(ROOT)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    command: List[str] = [sys.executable, "-m", "claude_sync", "--cli-path", real_cli_path, "--cwd", str(work), *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_the_answer_streams_to_stdout(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(text("Four. ", chunk_size=3), text("unused"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--model", "claude-sonnet-4-5", "What is 2 + 2?")
    assert (done.returncode, done.stdout) == (0, "Four. \n"), done.stderr
    request = fake_api.turn_requests()[0]
    assert request.body["model"] == "claude-sonnet-4-5"
    assert "What is 2 + 2?" in json.dumps(request.body["messages"])


def test_output_format_prints_the_structured_output(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                    tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    fake_api.add(tool_use("StructuredOutput", {"n": 4}))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--output-format", str(tmp_path / "schema.json"), "2 + 2?")
    assert (done.returncode, json.loads(done.stdout)) == (0, {"n": 4}), done.stderr


def test_an_api_error_is_exit_5(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(error(401, "authentication_error", "invalid x-api-key"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--json", "hi")
    assert done.returncode == 5, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["type"] == "result" and result["is_error"] is True
    assert "ResultError" in done.stderr


def test_the_turn_limit_is_exit_6(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(tool_use("Bash", {"command": "echo hi"}), text("never asked for"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--max-turns", "1", "--allowed-tools", "Bash", "-v", "hi")
    assert done.returncode == 6, done.stderr
    assert "error_max_turns" in done.stderr
    assert "\nsession " in "\n" + done.stderr  # -v: the summary, even for an error result
    assert len(fake_api.turn_requests()) == 1
