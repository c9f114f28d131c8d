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
from claude_sync.testing.offline import FAKE_API_KEY

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
    assert "claude-sync: error result (API status 401)" in done.stderr


def test_the_turn_limit_is_exit_6(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(tool_use("Bash", {"command": "echo hi"}), text("never asked for"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--max-turns", "1", "--allowed-tools", "Bash", "-v", "hi")
    assert done.returncode == 6, done.stderr
    assert "error_max_turns" in done.stderr
    assert "\nsession " in "\n" + done.stderr  # -v: the summary, even for an error result
    assert len(fake_api.turn_requests()) == 1


def settings_file(tmp_path: Path) -> Path:
    """The user's ``settings.json`` of the hermetic environment (``CLAUDE_CONFIG_DIR``)."""
    return tmp_path / "home" / ".claude" / "settings.json"


def prompt_texts(api: FakeAnthropicAPI) -> List[str]:
    """Every text block of every message of every turn request."""
    texts: List[str] = []
    for request in api.turn_requests():
        for message in request.body["messages"]:
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            texts += [block["text"] for block in blocks if block.get("type") == "text"]
    return texts


def test_a_lone_surrogate_from_the_model_is_written_safely(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                           tmp_path: Path) -> None:
    """The model's text holds half an emoji; the CLI sends it on as ``"\\ud83d"`` (measured on
    2.1.197 and 2.1.332). Text output shows U+FFFD and goes on; ``--json`` keeps it escaped."""
    fake_api.add(text("half \ud83d and the rest"), text("half \ud83d and the rest"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "hi")
    assert (done.returncode, done.stdout) == (0, "half \ufffd and the rest\n"), done.stderr
    as_json = claude_sync(real_cli_path, fake_api, tmp_path, "--json", "hi")
    assert as_json.returncode == 0, as_json.stderr
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert lines[-1]["result"] == "half \ud83d and the rest"


def test_a_refused_key_is_said_on_stderr_not_printed_as_the_answer(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                                   tmp_path: Path) -> None:
    fake_api.add(error(401, "authentication_error", "invalid x-api-key"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "hi")
    assert (done.returncode, done.stdout) == (5, ""), done.stderr
    assert "claude-sync: error result (API status 401)" in done.stderr
    assert "hint: the API key was refused: check ANTHROPIC_API_KEY" in done.stderr
    assert "ClaudeAgentOptions" not in done.stderr


def test_no_slash_commands_keeps_config_from_writing_the_settings(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                                  tmp_path: Path) -> None:
    """``/config permissionMode=acceptEdits`` as a prompt writes the user's settings.json on
    2.1.197 and 2.1.332 (no API request at all); with ``--no-slash-commands`` it goes to the
    model as text and the settings stay as they were."""
    fake_api.add(text("I read your text"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--no-slash-commands", "/config permissionMode=acceptEdits")
    assert (done.returncode, done.stdout) == (0, "I read your text\n"), done.stderr
    assert not settings_file(tmp_path).exists()
    assert " /config permissionMode=acceptEdits" in prompt_texts(fake_api)

    ran = claude_sync(real_cli_path, fake_api, tmp_path, "/config permissionMode=acceptEdits")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(settings_file(tmp_path).read_text())["permissions"]["defaultMode"] == "acceptEdits"
    assert len(fake_api.turn_requests()) == 1  # the command ran locally: no request


def test_cli_args_reach_the_cli(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(text("ok"))
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--cli-arg=--model=claude-haiku-4-5", "hi")
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    assert fake_api.turn_requests()[0].body["model"] == "claude-haiku-4-5"


# ----------------------------------------------------------------------------- doctor


def doctor(real_cli_path: str, api: FakeAnthropicAPI, tmp_path: Path, **env: Any) -> subprocess.CompletedProcess[str]:
    environ: Dict[str, Any] = hermetic_env(tmp_path, api.base_url, CLAUDE_CODE_MAX_RETRIES=0, **env)
    environ["PYTHONPATH"] = str(ROOT)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "claude_sync", "doctor", "--cli-path", real_cli_path],
                          env=environ, cwd=str(work), capture_output=True, text=True, timeout=180, check=False)


def test_doctor_on_a_working_cli(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(text("OK"))
    done = doctor(real_cli_path, fake_api, tmp_path, HTTPS_PROXY="http://alice:hunter2@127.0.0.1:9")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"ok    claude: {real_cli_path} (named by --cli-path)" in lines
    assert any(line.startswith(("ok    version: 2.1.", "warn  version: 2.1.")) for line in lines)
    assert "ok    login: credentials: ANTHROPIC_API_KEY" in lines
    trip = next(line for line in lines if line.startswith("ok    round trip: answered 'OK': started in "))
    assert "first token after" in trip and "done in" in trip
    assert "info  environment: HTTPS_PROXY=http://alice:<redacted>@127.0.0.1:9" in lines
    assert "hunter2" not in done.stdout and FAKE_API_KEY not in done.stdout
    assert "Reply with the single word OK." in json.dumps(fake_api.turn_requests()[0].body["messages"])


def test_doctor_on_a_refused_key(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    fake_api.add(error(401, "authentication_error", "invalid x-api-key"))
    done = doctor(real_cli_path, fake_api, tmp_path)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "FAIL  round trip: error result (API status 401)" in done.stdout
    assert "hint: the API key was refused" in done.stdout
    assert done.stdout.rstrip().endswith("exit status 5: round trip")


def test_doctor_when_logged_out(real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path) -> None:
    """No API key and no login: the CLI answers "Not logged in" without a request."""
    done = doctor(real_cli_path, fake_api, tmp_path, ANTHROPIC_API_KEY=None)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "info  login: credentials: no API key" in done.stdout
    assert "FAIL  round trip: error result: Not logged in" in done.stdout
    assert "hint: you are not logged in: run `claude` once in a terminal and log in (/login)" in done.stdout
    assert fake_api.turn_requests() == []


def test_not_logged_in_is_said_on_stderr_not_captured_as_the_answer(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                                    tmp_path: Path) -> None:
    """No key and no login: both CLIs send "Not logged in · Please run /login" as a synthetic
    assistant message (``error`` set) and an error result; ``x=$(claude-sync …)`` gets nothing."""
    env: Dict[str, Any] = hermetic_env(tmp_path, fake_api.base_url, CLAUDE_CODE_MAX_RETRIES=0, ANTHROPIC_API_KEY=None)
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "claude_sync", "--cli-path", real_cli_path, "hi"]
    done = subprocess.run(command, env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stdout) == (5, ""), done.stderr
    assert done.stderr.startswith("claude-sync: error result: Not logged in")
    assert "hint: you are not logged in" in done.stderr


def test_version_names_the_real_cli_and_its_version(real_cli_path: str, fake_api: FakeAnthropicAPI,
                                                    tmp_path: Path) -> None:
    done = claude_sync(real_cli_path, fake_api, tmp_path, "--version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == f"claude: {real_cli_path} (named by --cli-path)"
    assert lines[2].startswith("claude version: 2.1.") and lines[2].endswith("(Claude Code)")
    assert fake_api.turn_requests() == []
