"""The pytest plugin (entry point ``pytest11``: active once claude_sync is installed).

Fixtures:

* ``claude_cli``: a fresh ``ScriptedCLI`` whose ``install()``/``options()`` write into the
  test's ``tmp_path``, with the kit's switch on for the test (``use_scripted_cli``): every
  ``query()``/``ClaudeSDKClient``/``run()``/``AgentPool`` run that has no transport plays its
  script in-process — the code under test needs no change — and, while it has no steps,
  fails with ``UnscriptedRunError`` instead of starting any CLI. ``claude_cli.transport()``
  and ``claude_cli.options(...)`` (a real subprocess through ``cli_path``) work as well.
  A passing test then **fails** (in its call phase, as pytest-httpx and respx do) when a run
  was refused (``UnscriptedRunError``, even one the code under test caught: a web view
  answering 500) or a script step was not followed (a wrong prompt: ``claude_cli.verify()``).
  A script left unplayed fails it too — at teardown when a run was still going when the test
  returned. ``@pytest.mark.claude_cli(assert_all_runs_scripted=False)`` lets a test mean its
  refused runs, ``assert_script_played=False`` its unfollowed script.
* ``claude_offline``: the **real** CLI against a started ``FakeAnthropicAPI`` (``.api``),
  with the caller's keys, providers and proxies taken out of the environment for the test.
  ``.options(**fields)`` gives ``ClaudeAgentOptions`` for it. Skipped (with the install
  command in the reason) when no CLI is found, failed instead when ``CI=true``.

Option: ``--claude-sync-block`` (ini ``claude_sync_block = true``) blocks the real CLI for the
whole test run, as ``CLAUDE_SYNC_TESTING=block`` does (it sets that variable, so child
processes are blocked too): a run with no script raises ``UnscriptedRunError``, and the test
in which it happened fails as above (same marker to opt out).

Assertion helpers live in ``claude_sync.testing`` (``texts``, ``tool_uses``, ``result_of``,
``assert_result``). Importing this module imports nothing of claude_sync beyond
``claude_sync.testing``'s lazy table; ``import claude_sync`` never imports pytest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Generator, List, Optional

import pytest

from .._wire.errors import UnscriptedRunError

if TYPE_CHECKING:
    from .. import ClaudeAgentOptions
    from .fake_api import FakeAnthropicAPI
    from .scripted import ScriptedCLI

__all__ = ["OfflineClaude", "claude_cli", "claude_offline"]

MARKER = "claude_cli"
"""``@pytest.mark.claude_cli(assert_all_runs_scripted=True, assert_script_played=True)``."""
_MARKER_FLAGS = ("assert_all_runs_scripted", "assert_script_played")
OPTION = "--claude-sync-block"
INI = "claude_sync_block"

_CALL_PASSED = pytest.StashKey[bool]()
_CLI_CHECK = pytest.StashKey[Callable[[bool], List[str]]]()
"""The ``claude_cli`` fixture's script check, for the call phase."""
_GUARDS = pytest.StashKey[List["_RefusalLog"]]()
"""The refusal logs watching the test (the ``claude_cli`` fixture's, the session's block)."""
_SESSION_GUARD = pytest.StashKey["_SessionBlock"]()


class _RefusalLog:
    """A stand-in that passes each run to ``inner`` and keeps every ``UnscriptedRunError`` it
    raised (connecting threads; the list append is atomic), so a run the code under test
    refused quietly still fails the test."""

    def __init__(self, inner: Callable[[ClaudeAgentOptions], Any], what: str, checks: Dict[str, bool]) -> None:
        self.inner = inner
        self.what = what
        self.checks = checks
        self.refused: List[BaseException] = []
        self.reported = 0
        """How many refusals a check already failed the test for (or the test allowed)."""

    def __call__(self, options: ClaudeAgentOptions) -> Any:
        try:
            return self.inner(options)
        except UnscriptedRunError as exc:
            self.refused.append(exc)
            raise

    def problem(self) -> Optional[str]:
        """The failure text for refusals not reported yet (None: none, or the test allows them)."""
        fresh = self.refused[self.reported :]
        self.reported = len(self.refused)
        if not fresh or not self.checks["assert_all_runs_scripted"]:
            return None
        return (
            f"{self.what}: {len(fresh)} run(s) had no script and were refused; the code under test "
            "may have caught the UnscriptedRunError (a web view answering 500). The first:\n"
            f"    {fresh[0]}\n"
            f"Script every run, or mark the test @pytest.mark.{MARKER}(assert_all_runs_scripted=False) "
            "if refusing it is the point."
        )


def _block_refusal(options: ClaudeAgentOptions) -> Any:
    from .switch import HOW_TO_SCRIPT

    raise UnscriptedRunError(
        f"{OPTION} (pytest) is on: this run has no script, and the real claude CLI is blocked "
        f"(nothing was started). {HOW_TO_SCRIPT}"
    )


class _SessionBlock:
    """What ``--claude-sync-block`` changed for the session, to put back at its end."""

    def __init__(self, guard: _RefusalLog, previous_stand_in: Any, previous_env: Optional[str]) -> None:
        self.guard = guard
        self.previous_stand_in = previous_stand_in
        self.previous_env = previous_env


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claude_sync")
    group.addoption(
        OPTION,
        action="store_true",
        default=None,
        help="block the real claude CLI for the whole run (as CLAUDE_SYNC_TESTING=block): a run with "
        "no script raises UnscriptedRunError and fails its test",
    )
    parser.addini(INI, type="bool", default=False, help=f"as {OPTION}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(assert_all_runs_scripted=True, assert_script_played=True): what the claude_cli "
        f"fixture (and {OPTION}) fail a passing test for; False lets a test mean it",
    )
    option = config.getoption(OPTION)
    if not (option if option is not None else config.getini(INI)):
        return
    from .._engine import stand_in

    guard = _RefusalLog(_block_refusal, OPTION, {"assert_all_runs_scripted": True})
    previous_env = os.environ.get(stand_in.ENV_VAR)
    os.environ[stand_in.ENV_VAR] = "block"  # child processes (a server the test starts) too
    config.stash[_SESSION_GUARD] = _SessionBlock(guard, stand_in.set_stand_in(guard), previous_env)


def pytest_unconfigure(config: pytest.Config) -> None:
    block = config.stash.get(_SESSION_GUARD, None)
    if block is None:
        return
    from .._engine import stand_in

    stand_in.set_stand_in(block.previous_stand_in)
    if block.previous_env is None:
        os.environ.pop(stand_in.ENV_VAR, None)
    else:
        os.environ[stand_in.ENV_VAR] = block.previous_env
    del config.stash[_SESSION_GUARD]


def _marker_checks(item: pytest.Item) -> Dict[str, bool]:
    """The marker's flags (all True without it). Raises ``pytest.UsageError`` for anything
    else than those two names with bool values."""
    checks = dict.fromkeys(_MARKER_FLAGS, True)
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return checks
    unknown = sorted(set(marker.kwargs) - set(_MARKER_FLAGS))
    if marker.args or unknown:
        raise pytest.UsageError(
            f"@pytest.mark.{MARKER} takes only the keywords {', '.join(_MARKER_FLAGS)}, "
            f"not {', '.join(map(repr, marker.args)) or ', '.join(unknown)} ({item.nodeid})"
        )
    for name, value in marker.kwargs.items():
        if not isinstance(value, bool):
            raise pytest.UsageError(f"@pytest.mark.{MARKER}({name}=…) takes True or False, not {value!r} ({item.nodeid})")
        checks[name] = value
    return checks


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """After a passing test body: fail it (a test failure, not a teardown error) for what
    its refusal logs and its ``claude_cli`` saw."""
    block = item.config.stash.get(_SESSION_GUARD, None)
    if block is not None:
        block.guard.reported = len(block.guard.refused)  # earlier tests' refusals are theirs
        block.guard.checks = _marker_checks(item)
        item.stash.setdefault(_GUARDS, []).append(block.guard)
    outcome = yield
    if outcome.excinfo is not None:
        return
    problems = [text for guard in item.stash.get(_GUARDS, []) for text in [guard.problem()] if text]
    cli_check = item.stash.get(_CLI_CHECK, None)
    if cli_check is not None:
        problems.extend(cli_check(False))
    if problems:
        failure = pytest.fail.Exception("\n".join(problems), pytrace=False)
        if hasattr(outcome, "force_exception"):
            outcome.force_exception(failure)
        else:  # pluggy < 1.1: an exception raised here fails the call all the same
            raise failure


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Remember whether the test body passed: only then does the teardown check run."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed


def _still_running(cli: ScriptedCLI) -> bool:
    return any(report.ended is None and report.failure is None for report in cli.runs)


def _script_problems(cli: ScriptedCLI, checks: Dict[str, bool]) -> List[str]:
    """What ``cli.verify()`` says, unless the test allows it (or nothing was scripted)."""
    if not checks["assert_script_played"] or not cli.steps:
        return []
    try:
        cli.verify()
    except AssertionError as exc:
        return [f"claude_cli: {exc}\n(mark the test @pytest.mark.{MARKER}(assert_script_played=False) if that is the point)"]
    return []


@pytest.fixture
def claude_cli(request: pytest.FixtureRequest, tmp_path: Path) -> Generator[ScriptedCLI, None, None]:
    """A ``ScriptedCLI`` for this test, checked after it (see the module docstring)."""
    from .._engine import stand_in
    from .scripted import ScriptedCLI
    from .switch import ScriptRouter

    checks = _marker_checks(request.node)
    cli = ScriptedCLI(directory=tmp_path)
    guard = _RefusalLog(ScriptRouter(cli, name="the claude_cli fixture"), "claude_cli", checks)
    verified: List[bool] = []

    def check_script(final: bool) -> List[str]:
        """The call phase's check (``final`` False; a run still going waits for teardown),
        or teardown's."""
        if verified or (not final and _still_running(cli)):
            return []
        verified.append(True)
        return _script_problems(cli, checks)

    request.node.stash.setdefault(_GUARDS, []).append(guard)
    request.node.stash[_CLI_CHECK] = check_script
    previous = stand_in.set_stand_in(guard)
    try:
        yield cli
    finally:
        stand_in.set_stand_in(previous)
    if not request.node.stash.get(_CALL_PASSED, False):
        return  # the body failed (the call check included), was skipped, or never ran
    problems = [text for text in [guard.problem()] + check_script(True) if text]  # what teardown added
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


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
