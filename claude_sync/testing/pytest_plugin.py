"""The pytest plugin (entry point ``pytest11``: active once claude_sync is installed).

Fixtures:

* ``claude_cli``: a fresh ``ScriptedCLI`` whose ``install()``/``options()`` write into the
  test's ``tmp_path``, with the kit's switch on for the test (``use_scripted_cli``): every
  ``query()``/``ClaudeSDKClient``/``run()``/``AgentPool`` run that has no transport plays its
  script in-process — the code under test needs no change — and, while it has no steps,
  fails with ``UnscriptedRunError`` instead of starting any CLI. ``claude_cli.transport()``
  and ``claude_cli.options(...)`` (a real subprocess through ``cli_path``) work as well.
  After a passing test the plugin calls ``claude_cli.verify()``, so a script your code did
  not follow fails the test even if nothing else noticed.
* ``claude_offline``: the **real** CLI against a started ``FakeAnthropicAPI`` (``.api``),
  with the caller's keys, providers and proxies taken out of the environment for the test.
  ``.options(**fields)`` gives ``ClaudeAgentOptions`` for it. Skipped (with the install
  command in the reason) when no CLI is found, failed instead when ``CI=true``.

Assertion helpers live in ``claude_sync.testing`` (``texts``, ``tool_uses``, ``result_of``,
``assert_result``). Importing this module imports nothing of claude_sync beyond
``claude_sync.testing``'s lazy table; ``import claude_sync`` never imports pytest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Generator, Optional

import pytest

if TYPE_CHECKING:
    from .. import ClaudeAgentOptions
    from .fake_api import FakeAnthropicAPI
    from .scripted import ScriptedCLI

__all__ = ["OfflineClaude", "claude_cli", "claude_offline"]

_CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Remember whether the test body failed (teardown checks stay quiet then)."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        item.stash[_CALL_FAILED] = True


@pytest.fixture
def claude_cli(request: pytest.FixtureRequest, tmp_path: Path) -> Generator[ScriptedCLI, None, None]:
    """A ``ScriptedCLI`` for this test, verified after it (see the module docstring)."""
    from .._engine import stand_in
    from .scripted import ScriptedCLI
    from .switch import ScriptRouter

    cli = ScriptedCLI(directory=tmp_path)
    previous = stand_in.set_stand_in(ScriptRouter(cli, name="the claude_cli fixture"))
    try:
        yield cli
    finally:
        stand_in.set_stand_in(previous)
    if request.node.stash.get(_CALL_FAILED, False) or not cli.steps:
        return
    cli.verify()


class OfflineClaude:
    """What ``claude_offline`` gives a test: the fake API and options for the real CLI.

    Attributes:
        api: The started ``FakeAnthropicAPI``: script its replies, read the requests the CLI made.
        cli_path: The real CLI that runs (``find_offline_cli()``).
        home: The test's scratch directory: the CLI's HOME and working directory live under it.
    """

    def __init__(self, api: FakeAnthropicAPI, cli_path: str, home: Path) -> None:
        self.api = api
        self.cli_path = cli_path
        self.home = home

    def options(self, *, env: Optional[Dict[str, Any]] = None, **fields: Any) -> ClaudeAgentOptions:
        """``ClaudeAgentOptions`` for the real CLI against ``api`` (``offline_options``)."""
        from .offline import offline_options

        fields.setdefault("close_timeout", 10.0)
        fields.setdefault("initialize_timeout", 60.0)
        return offline_options(self.api, self.home, cli_path=self.cli_path, env=env, **fields)


@pytest.fixture
def claude_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Generator[OfflineClaude, None, None]:
    """The real CLI + a started fake API (skipped when no CLI is installed, unless CI=true)."""
    from .fake_api import FakeAnthropicAPI
    from .offline import (
        INSTALL_COMMAND,
        PINNED_CLI_VERSION,
        default_cli_path,
        find_offline_cli,
        is_stripped,
    )

    path = find_offline_cli()
    if not path or not os.access(path, os.X_OK):
        reason = (f"claude_offline needs the real claude CLI {PINNED_CLI_VERSION} "
                  f"(not found at {path or default_cli_path()}); install it: {INSTALL_COMMAND}")
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    for name in list(os.environ):
        if is_stripped(name) and not name.upper().startswith("CLAUDE_SYNC_"):
            monkeypatch.delenv(name, raising=False)
    api = FakeAnthropicAPI().start()
    try:
        yield OfflineClaude(api, str(path), tmp_path)
    finally:
        api.stop()
