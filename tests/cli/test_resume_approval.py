"""``claude-sync resume-approval``'s claim: taken just before a CLI starts (a mistyped
``--cli-path`` spends nothing), unique per run, and ``--claimant NAME`` retries one deliberately.
The session is a local transcript under ``CLAUDE_CONFIG_DIR``; the "CLI" a spy that only notes
that it was started."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import List

import pytest

from claude_sync import PendingApproval
from claude_sync._cli.approvals import resume_main
from claude_sync._sessions.transcript import sanitize_path

SESSION = "0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01"


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    work = tmp_path / "work"
    work.mkdir()
    folder = config / "projects" / sanitize_path(os.path.realpath(work))
    folder.mkdir(parents=True)
    call = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "rm x"}}
    entries = [{"type": "user", "uuid": "u1", "message": {"role": "user", "content": "clean up"}},
               {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [call]}}]  # fmt: skip
    (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    pending = PendingApproval(session_id=SESSION, tool_use_id="toolu_01", tool_name="Bash", tool_input={"command": "rm x"},
                              cwd=str(work), permission_mode=None, reason="r", asked_at="t")  # fmt: skip
    path = tmp_path / "pending.json"
    path.write_text(pending.to_json() + "\n")
    return path


def claim_files(tmp_path: Path) -> List[Path]:
    return sorted((tmp_path / "config").rglob("approvals/claim-*.json"))


def spy_cli(tmp_path: Path) -> Path:
    path = tmp_path / "spy-claude"
    path.write_text('#!/bin/sh\necho started >> "$0.ran"\n')
    path.chmod(0o755)
    return path


def test_a_mistyped_cli_path_spends_nothing_and_a_failed_claim_is_retried_by_name(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):
        assert resume_main([str(record), "--allow", "--cli-path", str(tmp_path / "claude-typo")]) == 3
        assert "--claimant" in capsys.readouterr().err
    assert claim_files(tmp_path) == []
    spy = spy_cli(tmp_path)
    assert resume_main([str(record), "--allow", "--cli-path", str(spy), "--claimant", "delivery 1"]) == 4  # the spy exits
    err = capsys.readouterr().err
    assert "--claimant 'delivery 1'" in err
    [claimed] = claim_files(tmp_path)
    assert json.loads(claimed.read_text())["claimant"] == "delivery 1"
    assert resume_main([str(record), "--allow", "--cli-path", str(spy)]) == 12  # another delivery: refused
    assert "delivery 1" in capsys.readouterr().err
    assert Path(f"{spy}.ran").read_text() == "started\n"
    assert resume_main([str(record), "--allow", "--cli-path", str(spy), "--claimant", "delivery 1"]) == 4
    assert Path(f"{spy}.ran").read_text() == "started\nstarted\n"  # the deliberate retry got past its claim


@pytest.mark.parametrize("name", ["", "   ", "x" * 501])
def test_a_bad_claimant_is_a_usage_error(record: Path, tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert resume_main([str(record), "--allow", "--cli-path", str(spy_cli(tmp_path)), "--claimant", name]) == 2
    assert "claimant" in capsys.readouterr().err and claim_files(tmp_path) == []
