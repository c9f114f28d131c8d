"""The pytest plugin's fixtures, used the way a user would (loaded by tests/conftest.py here,
by the ``pytest11`` entry point once claude_sync is installed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from helpers import require_package

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
    """A failure of the test itself, not an error at its teardown."""
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
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*step 4 of 4 (expect_user 'never sent')*", "*assert_script_played=False*"])


def test_the_plugin_fails_a_test_whose_run_is_played_twice_or_left_unplayed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(
        """
        from claude_sync import run

        def safe_run(prompt):
            try:
                return run(prompt).text
            except Exception:
                return None  # the user's code swallows the error: the plugin still fails the test

        def test_played_twice(claude_cli):
            claude_cli.answer("once")
            assert [safe_run("a"), safe_run("b")] == ["once", None]

        def test_left_unplayed(claude_cli):
            claude_cli.answer("1")
            claude_cli.answer("2")
            assert safe_run("a") == "1"

        def test_both_played(claude_cli):
            claude_cli.answer("1")
            claude_cli.answer("2")
            assert [safe_run("a"), safe_run("b")] == ["1", "2"]
        """
    )
    result = pytester.runpytest_subprocess("-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(["*_ test_played_twice _*", "*had no script and were refused*",
                                 "*no script left for this run (1 run(s) played: all 1 scripted run(s) were played already)*"])
    result.stdout.fnmatch_lines(["*1 scripted run(s) never played, the first: scripted run 2 of 2*"])


FLASK_APP = """
import pytest
from claude_sync import ClaudeSDKError, run

flask = pytest.importorskip("flask")
app = flask.Flask(__name__)

@app.post("/ask")
def ask():
    try:
        return {"answer": run(flask.request.json["question"]).text}
    except ClaudeSDKError:
        return {"error": "the assistant is unavailable"}, 503   # swallowed: the test cannot see it
"""


def run_user_tests(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> pytest.RunResult:
    require_package("flask")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("CLAUDE_SYNC_TESTING", raising=False)
    pytester.makepyfile(webapp=FLASK_APP)
    return pytester.runpytest_subprocess("-p", "claude_sync.testing.pytest_plugin", "-p", "no:cacheprovider", "-rA", *args)


def test_a_test_that_forgot_its_script_fails_though_the_app_swallowed_the_refusal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_view="""
        import pytest
        from webapp import app

        def test_forgot(claude_cli):
            response = app.test_client().post("/ask", json={"question": "2 + 2?"})
            assert response.status_code in (200, 503)

        def test_scripted(claude_cli):
            claude_cli.answer("4")
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).json == {"answer": "4"}

        @pytest.mark.claude_cli(assert_all_runs_scripted=False)
        def test_means_it(claude_cli):
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).status_code == 503

        def test_pool_forgot(claude_cli):  # refused on a pool's worker thread, swallowed
            from claude_sync import AgentPool

            with AgentPool(max_workers=1) as pool:
                assert pool.submit("2 + 2?").exception(30) is not None

        @pytest.mark.claude_cli(assert_script_played=False)
        def test_means_a_wrong_prompt(claude_cli):
            claude_cli.answer("4", prompt="another question")
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).status_code == 503
        """
    )
    result = run_user_tests(pytester, monkeypatch)
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*claude_cli: 1 run(s) had no script and were refused*",
            "*the claude_cli fixture is on but its scripted CLI has no steps*",
            "*assert_all_runs_scripted=False*",
            "FAILED test_view.py::test_forgot*",
            "FAILED test_view.py::test_pool_forgot*",
        ]
    )
    assert "Traceback" not in result.stdout.str() and "ERROR" not in result.stdout.str()


def test_a_script_left_unplayed_by_a_run_still_going_fails_at_teardown(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client a fixture holds open past the test body: the verdict waits for teardown."""
    pytester.makepyfile(
        test_client="""
        import pytest
        from claude_sync import ClaudeSDKClient

        @pytest.fixture
        def client(claude_cli):
            claude_cli.answer("4").expect_user("never asked")
            with ClaudeSDKClient() as client:
                yield client

        def test_one_turn(client):
            client.query("2 + 2?")
            assert [m for m in client.receive_response()]
        """
    )
    result = run_user_tests(pytester, monkeypatch)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_one_turn*", "*claude_cli: scripted CLI: step 4 of 4 (expect_user 'never asked')*"])


@pytest.mark.parametrize("how", ["flag", "ini"])
def test_claude_sync_block_fails_any_test_whose_run_was_refused(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    pytester.makepyfile(
        test_block="""
        import os
        import pytest
        from webapp import app

        def test_forgot():
            assert os.environ["CLAUDE_SYNC_TESTING"] == "block"   # child processes are blocked too
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).status_code == 503

        @pytest.mark.claude_cli(assert_all_runs_scripted=False)
        def test_means_it():
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).status_code == 503

        def test_scripted(claude_cli):
            claude_cli.answer("4")
            assert app.test_client().post("/ask", json={"question": "2 + 2?"}).json == {"answer": "4"}

        def test_after():
            assert "CLAUDE_SYNC_TESTING" in os.environ
        """
    )
    if how == "ini":
        pytester.makeini("[pytest]\nclaude_sync_block = true\n")
    result = run_user_tests(pytester, monkeypatch, *(["--claude-sync-block"] if how == "flag" else []))
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["*--claude-sync-block: 1 run(s) had no script and were refused*", "FAILED test_block.py::test_forgot*"]
    )


def test_without_the_block_option_nothing_is_blocked_or_set(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_env="import os\n\ndef test_env():\n    assert 'CLAUDE_SYNC_TESTING' not in os.environ\n")
    run_user_tests(pytester, monkeypatch).assert_outcomes(passed=1)


def test_a_misspelt_marker_is_an_error_not_ignored(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(
        test_marker="""
        import pytest

        @pytest.mark.claude_cli(assert_all_runs_scripted="no")
        def test_bool(claude_cli):
            pass

        @pytest.mark.claude_cli(assert_all_scripted=False)
        def test_name(claude_cli):
            pass
        """
    )
    result = run_user_tests(pytester, monkeypatch)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*takes True or False, not 'no'*", "*takes only the keywords*not assert_all_scripted*"])


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
