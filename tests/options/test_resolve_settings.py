"""``ResolvedSettings.from_wire`` (the CLI's ``get_settings`` answer, typed) and
``resolve_settings``' argument checks. Against the real CLIs: ``tests/e2e/test_resolve_settings_e2e.py``."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from claude_sync import ResolvedSettings, ResolvedSettingsSource, resolve_settings

ANSWER_2_1_332: Dict[str, Any] = {  # what CLI 2.1.332 answered (user, project, --settings, managed_settings)
    "effective": {"cleanupPeriodDays": 5, "model": "proj-model", "permissions": {"allow": ["Bash(ls)"], "deny": ["Bash(rm:*)"]}, "theme": "dark"},
    "sources": [
        {"source": "userSettings", "settings": {"cleanupPeriodDays": 5, "model": "user-model"}},
        {"source": "projectSettings", "settings": {"permissions": {"allow": ["Bash(ls)"]}, "model": "proj-model"}},
        {"source": "flagSettings", "settings": {"theme": "dark"}},
        {"source": "policySettings", "settings": {"permissions": {"deny": ["Bash(rm:*)"]}}},
    ],
    "served_settings_state": "ineligible",
    "applied": {"model": "proj-model", "effort": "high", "advisor": None, "ultracode": False},
}


def test_sources_take_the_ts_names_and_provenance_is_the_highest_source_holding_the_key() -> None:
    resolved = ResolvedSettings.from_wire(ANSWER_2_1_332)
    assert [s.source for s in resolved.sources] == ["user", "project", "flag", "managed"]
    assert resolved.sources[0] == ResolvedSettingsSource(source="user", settings={"cleanupPeriodDays": 5, "model": "user-model"})
    assert resolved.provenance == {"cleanupPeriodDays": "user", "model": "project", "permissions": "managed", "theme": "flag"}
    assert resolved.effective["model"] == "proj-model" and resolved.applied["effort"] == "high"
    assert resolved.served_settings_state == "ineligible" and resolved.errors == []
    assert resolved.raw == ANSWER_2_1_332


def test_an_odd_or_older_answer_gets_defaults_never_an_error() -> None:
    older = ResolvedSettings.from_wire({"effective": {}, "sources": [], "applied": {"model": "m", "effort": "high"}})
    assert older.served_settings_state is None and older.errors == [] and older.provenance == {}
    odd = ResolvedSettings.from_wire(
        {"effective": ["x"], "sources": [7, {"source": 3}, {"source": "newTier", "settings": "x"}], "errors": [{"file": "f"}, 1], "served_settings_state": 2}
    )
    assert odd.effective == {} and [s.source for s in odd.sources] == ["newTier"] and odd.sources[0].settings == {}
    assert odd.errors == [{"file": "f"}] and odd.served_settings_state is None


def test_resolve_settings_takes_only_options() -> None:
    with pytest.raises(TypeError, match="options must be ClaudeAgentOptions or None, not dict"):
        resolve_settings({"cwd": "."})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="timeout must be a number of seconds or None, got str"):
        resolve_settings(timeout="5")  # type: ignore[arg-type]
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0"):
            resolve_settings(timeout=bad)
