"""The pytest plugin's fixtures, used the way a user would (loaded by tests/conftest.py here,
by the ``pytest11`` entry point once claude_sync is installed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from claude_sync import PermissionResultDeny, query
from claude_sync.testing import ScriptedCLI, assert_result, result_of, texts, tool_uses

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


def test_claude_cli_in_process(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("4")
    messages = list(query("2 + 2?", transport=claude_cli.transport()))
    assert texts(messages) == ["4"]
    assert_result(messages, result="4", is_error=False, num_turns=1)
    # the plugin verifies the script after the test


def test_claude_cli_as_a_subprocess(claude_cli: ScriptedCLI) -> None:
    def no(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
        return PermissionResultDeny(message="read-only")

    claude_cli.expect_user().tool_use("Write", {"file_path": "x"}).ask_permission(expect={"behavior": "deny"}).result()
    messages = list(query("write x", options=claude_cli.options(can_use_tool=no)))
    assert tool_uses(messages) == [("Write", {"file_path": "x"})]
    assert claude_cli.last_run.argv[:2] == ["--output-format", "stream-json"]


def test_assertion_helpers_say_what_differs() -> None:
    cli = ScriptedCLI.answer("4")
    messages = list(query("2 + 2?", transport=cli.transport()))
    with pytest.raises(AssertionError, match="result: expected '5', got '4'"):
        assert_result(messages, result="5")
    with pytest.raises(AssertionError, match="no ResultMessage among the 0 messages"):
        result_of([])


def test_the_plugin_fails_a_passing_test_whose_script_was_not_followed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(
        """
        from claude_sync import query

        def test_user(claude_cli):
            claude_cli.answer("4").expect_user("never sent")
            try:
                list(query("2 + 2?", transport=claude_cli.transport()))
            except Exception:
                pass  # the user's code swallowed the error: the plugin still catches it
        """
    )
    result = pytester.runpytest_subprocess("-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*step 4 of 4 (expect_user 'never sent')*"])


@pytest.mark.parametrize("ci, outcome", [("", "skipped=1"), ("true", "errors=1")])
def test_claude_offline_without_a_cli_is_skipped_or_failed_on_ci_naming_the_install(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, outcome: str
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("CLAUDE_SYNC_TEST_CLI", str(pytester.path / "no-such-claude"))
    monkeypatch.setenv("CI", ci)
    pytester.makepyfile("def test_user(claude_offline):\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest_subprocess("-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider", "-rsf")
    result.assert_outcomes(**{outcome.split("=")[0]: 1})
    result.stdout.fnmatch_lines(["*claude_offline needs the real claude CLI*install it: npm install*"])


def test_import_claude_sync_imports_neither_pytest_nor_the_kit() -> None:
    import subprocess

    code = (
        "import sys, claude_sync; kit = 'claude_sync.testing' in sys.modules; "
        "import claude_sync.testing; print(kit, 'pytest' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, cwd=str(ROOT))
    assert done.stdout.strip() == "False False"


def test_every_public_name_of_the_kit_resolves() -> None:
    import claude_sync.testing as kit

    for name in kit.__all__:
        assert getattr(kit, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        kit.nope  # noqa: B018
