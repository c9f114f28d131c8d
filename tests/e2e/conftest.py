"""Fixtures for e2e tests that drive **the library** (``query()``, ``ClaudeSDKClient``) against
the real ``claude`` CLI, which talks to the loopback ``FakeAnthropicAPI``.

* ``real_cli_path``: the pinned real binary (``harness.require_test_cli()``: fails under
  ``CI=true`` when it is missing, skips otherwise).
* ``fake_api``: a started ``FakeAnthropicAPI`` with an empty script; the test scripts it with
  ``fake_api.add(text(…), tool_use(…), …)`` before the CLI asks. Stopped (threads joined)
  after the test.
* ``e2e_workdir``: ``tmp_path / "work"``, created; the CLI's cwd.
* ``e2e_options(env=None, **fields) -> ClaudeAgentOptions``: options pointed at the real CLI,
  the hermetic environment of ``harness.hermetic_env`` aimed at ``fake_api`` (``env`` adds
  variables on top, e.g. ``{"CLAUDE_CODE_MAX_RETRIES": "0"}``), ``cwd=e2e_workdir`` and short
  test timeouts. ``fields`` are any ``ClaudeAgentOptions`` fields and override the defaults.

Why the parent environment is scrubbed too: the library builds the child's environment as
``os.environ`` (minus ``CLAUDECODE``) overlaid with ``options.env``, so ``options.env`` can
add and replace but never remove. Variables ``hermetic_env`` strips (``ANTHROPIC_*``,
``CLAUDE*``, proxies, ``NODE_OPTIONS`` …) would therefore leak from the test runner into the
CLI. ``e2e_options`` removes them from ``os.environ`` for the duration of the test
(``monkeypatch``), which makes the child's environment exactly the hermetic one plus the
library's own ``CLAUDE_CODE_ENTRYPOINT`` / ``CLAUDE_AGENT_SDK_VERSION``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest

from claude_sync import ClaudeAgentOptions
from claude_sync.testing.fake_api import FakeAnthropicAPI

from .harness import OptionsFactory, _is_stripped, hermetic_env, require_test_cli

E2E_CLOSE_TIMEOUT = 5.0
E2E_INITIALIZE_TIMEOUT = 30.0
E2E_CONTROL_TIMEOUT = 30.0

@pytest.fixture
def real_cli_path() -> str:
    """The real CLI binary (fails under CI=true when missing, skips elsewhere)."""
    return require_test_cli()


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropicAPI]:
    """A started, empty-scripted fake Anthropic API; stopped after the test."""
    api = FakeAnthropicAPI()
    api.start()
    try:
        yield api
    finally:
        api.stop()


@pytest.fixture
def e2e_workdir(tmp_path: Path) -> Path:
    """The CLI's working directory for the test (``tmp_path/work``)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return work


@pytest.fixture
def e2e_options(
    real_cli_path: str,
    fake_api: FakeAnthropicAPI,
    e2e_workdir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> OptionsFactory:
    """``e2e_options(env=None, **fields)``: ``ClaudeAgentOptions`` for the real CLI against
    ``fake_api`` (see the module docstring). Also scrubs the parent environment."""
    for name in list(os.environ):
        if _is_stripped(name):
            monkeypatch.delenv(name, raising=False)

    def make(env: Optional[Dict[str, Any]] = None, **fields: Any) -> ClaudeAgentOptions:
        child_env = hermetic_env(tmp_path, fake_api.base_url, **(env or {}))
        fields.setdefault("cwd", str(e2e_workdir))
        fields.setdefault("close_timeout", E2E_CLOSE_TIMEOUT)
        fields.setdefault("initialize_timeout", E2E_INITIALIZE_TIMEOUT)
        fields.setdefault("control_timeout", E2E_CONTROL_TIMEOUT)
        return ClaudeAgentOptions(cli_path=real_cli_path, env=child_env, **fields)

    return make
