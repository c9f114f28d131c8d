"""Issue 26 item 7, against the real CLI: the testing switch judges the endpoint a CLI will
call (``stand_in.endpoint``), and that is the one the real CLI does call — options env,
settings as JSON text or a file, the user / project / local settings files, and
``setting_sources`` keeping one of them unread."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest

from claude_sync import query
from claude_sync._engine.stand_in import blocks, endpoint
from claude_sync.testing import UnscriptedRunError
from claude_sync.testing.fake_api import FakeAnthropicAPI

from .harness import OptionsFactory

CASES = ["options_env", "flag_json", "flag_file", "user_file", "project_file", "local_file", "user_file_unread"]


@pytest.fixture
def elsewhere() -> Iterator[FakeAnthropicAPI]:
    """A second fake API: where settings send the CLI (standing in for the paid API)."""
    api = FakeAnthropicAPI()
    api.start()
    try:
        yield api
    finally:
        api.stop()


@pytest.mark.parametrize("case", CASES)
def test_the_judged_endpoint_is_the_one_the_cli_calls(
    case: str,
    e2e_options: OptionsFactory,
    fake_api: FakeAnthropicAPI,
    elsewhere: FakeAnthropicAPI,
    e2e_workdir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = e2e_options(env={"CLAUDE_CODE_MAX_RETRIES": "0"}, max_turns=1)  # its env aims at fake_api
    settings = json.dumps({"env": {"ANTHROPIC_BASE_URL": elsewhere.base_url}})
    if case == "flag_json":
        options.settings = settings
    elif case == "flag_file":
        (tmp_path / "flag.json").write_text(settings)
        options.settings = str(tmp_path / "flag.json")
    elif case in ("user_file", "user_file_unread"):
        Path(options.env["CLAUDE_CONFIG_DIR"], "settings.json").write_text(settings)
        if case == "user_file_unread":
            options.setting_sources = ["project", "local"]
    elif case in ("project_file", "local_file"):
        (e2e_workdir / ".claude").mkdir()
        (e2e_workdir / ".claude" / ("settings.json" if case == "project_file" else "settings.local.json")).write_text(settings)
    judged, why = endpoint(options, os.environ)

    list(query("hi", options=options, timeout=120))
    called = [api.base_url for api in (fake_api, elsewhere) if api.turn_requests()]
    assert called == [judged], why

    other = elsewhere.base_url
    elsewhere.stop()  # now it stands for an endpoint the switch must not allow
    monkeypatch.setenv("CLAUDE_SYNC_TESTING", "block")
    assert blocks(options, os.environ) is (judged == other)
    if judged == other:
        with pytest.raises(UnscriptedRunError, match="is not a running FakeAnthropicAPI"):
            list(query("hi", options=options, timeout=120))
