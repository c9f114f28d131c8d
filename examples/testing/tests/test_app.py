"""The service's tests, written only with ``claude_sync.testing``: the ``claude_cli`` fixture
is a scripted ``claude`` CLI, and while a test runs every ``query()`` of the app plays it —
no change to the app's code, and a run the test did not script fails instead of reaching the
real CLI. The plugin checks after each test that the app followed the script (answered every
question the CLI asked, as expected) and that no run was refused — even one the app caught.
``pytest.ini`` sets ``claude_sync_block = true``: no test, with the fixture or without, can
reach the real CLI."""

from __future__ import annotations

from typing import Any

import pytest
from app import create_app, triage

from claude_sync.testing import ScriptedCLI, UnscriptedRunError, use_scripted_cli


def ask(question: str) -> Any:
    return create_app().test_client().post("/ask", json={"question": question})


def test_the_view_returns_the_answer_and_its_cost(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user("What is 2 + 2?").text("4").result(total_cost_usd=0.0012)
    response = ask("What is 2 + 2?")
    assert response.status_code == 200
    assert response.get_json() == {"answer": "4", "cost_usd": 0.0012}


def test_the_policy_denies_writes(claude_cli: ScriptedCLI) -> None:
    (claude_cli.expect_user()
     .tool_use("Write", {"file_path": "notes.txt", "content": "hi"})
     .ask_permission(expect={"behavior": "deny", "message": "Write is not allowed: this service is read-only"})
     .tool_use("Read", {"file_path": "notes.txt"})
     .ask_permission(expect={"behavior": "allow"})
     .text("I could only read it.").result())
    assert ask("Write a note").get_json()["answer"] == "I could only read it."


def test_the_hook_keeps_env_files_out_of_reach(claude_cli: ScriptedCLI) -> None:
    (claude_cli.expect_user()
     .ask_hook("PreToolUse", tool_name="Read", tool_input={"file_path": "/srv/app/.env"},
               expect={"hookSpecificOutput": {"permissionDecision": "deny"}})
     .ask_hook("PreToolUse", tool_name="Read", tool_input={"file_path": "/srv/app/README"}, expect={})
     .text("done").result())
    assert ask("Show me the config").status_code == 200


def test_the_mcp_tool_counts_words(claude_cli: ScriptedCLI) -> None:
    (claude_cli.expect_user()
     .ask_mcp_tool("text", "word_count", {"text": "one two three"}, expect={"content": [{"type": "text", "text": "3"}]})
     .text("Three words.").result())
    assert ask("How many words?").get_json()["answer"] == "Three words."


def test_an_api_failure_is_a_502(claude_cli: ScriptedCLI) -> None:
    claude_cli.expect_user().api_error(529)
    response = ask("Anything")
    assert response.status_code == 502
    assert "529" in response.get_json()["error"]


def test_an_empty_question_never_reaches_claude(claude_cli: ScriptedCLI) -> None:
    response = ask("  ")
    assert response.status_code == 400
    assert claude_cli.runs == []  # no CLI was started


@pytest.mark.claude_cli(assert_all_runs_scripted=False)  # the refused run is the point here
def test_a_question_no_test_scripted_never_reaches_the_real_cli(claude_cli: ScriptedCLI) -> None:
    app = create_app()
    app.testing = True  # let the error through instead of a 500 page
    with pytest.raises(UnscriptedRunError):
        app.test_client().post("/ask", json={"question": "What is 2 + 2?"})


# ----------------------------------------------------------------------------- code that runs several times


def test_each_question_gets_its_own_answer(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("4")  # the first run of the app's query()
    claude_cli.answer("6")  # the second: each scripted run is played once
    assert ask("What is 2 + 2?").get_json()["answer"] == "4"
    assert ask("What is 3 + 3?").get_json()["answer"] == "6"


def test_the_pool_takes_the_script_of_each_ticket_by_its_prompt(claude_cli: ScriptedCLI) -> None:
    # three agents run at once, in any order: each takes the scripted run naming its prompt
    claude_cli.answer("praise", prompt="Love the new release!")
    claude_cli.answer("bug", prompt="The app crashes on start.")
    claude_cli.answer("question", prompt="How do I export my data?")
    tickets = ["The app crashes on start.", "How do I export my data?", "Love the new release!"]
    assert triage(tickets) == ["bug", "question", "praise"]


def test_a_pool_of_three_plays_three_scripts() -> None:
    # whole scripts of their own (a richer turn each), one per run, taken in order
    scripts = [ScriptedCLI().expect_user().thinking("Crash: a bug.").text("Bug").result(),
               ScriptedCLI().expect_user().text("Question").result(),
               ScriptedCLI().expect_user().text("Praise").result()]  # fmt: skip
    with use_scripted_cli(scripts):
        labels = triage(["one", "two", "three"])
    assert sorted(labels) == ["bug", "praise", "question"]  # concurrent: which ticket got which is not fixed
    for script in scripts:
        script.verify(runs=1)
