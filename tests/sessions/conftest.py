"""Fixtures of the session tests: ``config`` (a fresh ``CLAUDE_CONFIG_DIR``) and ``project``
(a working directory whose path needs quoting)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return home


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    path = tmp_path / "my project"
    path.mkdir()
    return path
