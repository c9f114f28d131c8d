"""``resolve_settings()`` and ``ClaudeSDKClient.get_settings()`` against the real CLIs
(2.1.197 and 2.1.332 both answer ``get_settings``): the CLI's own merge of user, project,
local, ``settings=`` and ``managed_settings=`` sources, with no prompt and no model call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claude_sync import ClaudeSDKClient, ResolvedSettings, resolve_settings
from claude_sync.testing.fake_api import FakeAnthropicAPI

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def test_resolve_settings_reports_the_clis_merge_without_a_prompt(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    newest = cli_is_at_least(real_cli_path, "2.1.332")  # 2.1.197 cannot take managed_settings (no --await-initialize)
    managed = {"managed_settings": {"permissions": {"deny": ["Bash(rm:*)"]}}} if newest else {}
    options = e2e_options(settings={"theme": "dark"}, **managed)
    write_json(Path(options.env["CLAUDE_CONFIG_DIR"]) / "settings.json", {"model": "user-model", "cleanupPeriodDays": 5})
    write_json(e2e_workdir / ".claude" / "settings.json", {"model": "project-model"})
    write_json(e2e_workdir / ".claude" / "settings.local.json", {"includeCoAuthoredBy": False})
    resolved = resolve_settings(options, timeout=30)
    assert isinstance(resolved, ResolvedSettings)
    assert resolved.effective["model"] == "project-model" and resolved.effective["theme"] == "dark"
    assert resolved.provenance["model"] == "project" and resolved.provenance["cleanupPeriodDays"] == "user"
    assert resolved.provenance["theme"] == "flag" and resolved.provenance["includeCoAuthoredBy"] == "local"
    names = [s.source for s in resolved.sources]
    assert names[:4] == ["user", "project", "local", "flag"]
    assert resolved.applied["model"] == "project-model"
    if newest:  # managed_settings reaches the CLI through initialize
        assert names[-1] == "managed" and resolved.provenance["permissions"] == "managed"
        assert resolved.effective["permissions"]["deny"] == ["Bash(rm:*)"]
        assert resolved.served_settings_state == "ineligible"
    assert fake_api.turn_requests() == []  # the model was never called

    only_user = resolve_settings(e2e_options(setting_sources=["user"]), timeout=30)
    assert only_user.effective["model"] == "user-model" and "project" not in [s.source for s in only_user.sources]


def test_get_settings_follows_apply_flag_settings(e2e_options: Any) -> None:
    with ClaudeSDKClient(e2e_options()) as client:
        assert "flag" not in client.get_settings(timeout=30).provenance.values()
        client.apply_flag_settings({"model": "claude-from-flag"})
        resolved = client.get_settings(timeout=30)
    assert resolved.effective["model"] == "claude-from-flag" and resolved.provenance["model"] == "flag"
