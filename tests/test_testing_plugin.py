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
ROOT = Path(__file__).resolve().parents[1]


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


def test_import_claude_sync_does_not_import_pytest() -> None:
    import subprocess

    code = "import sys, claude_sync, claude_sync.testing; print('pytest' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"
