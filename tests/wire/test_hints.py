"""Hints for a newcomer's first failures (``_wire/hints.py``), on the real CLIs' texts."""

from __future__ import annotations

import pickle
from typing import Any, List, Optional

import pytest

from claude_sync import ResultError, ResultMessage
from claude_sync._wire import hints
from claude_sync._wire.protocol import result_error


def result(text: Optional[str] = None, *, subtype: str = "success", status: Optional[int] = None, errors: Optional[List[str]] = None) -> ResultMessage:
    return ResultMessage(subtype, 10, 0, True, 1, "s", result=text, api_error_status=status, errors=errors)


# What CLI 2.1.197 and 2.1.330 said against the fake API (tests/e2e/test_everyday_e2e.py
# checks the same cases live).
CASES = [
    ("not logged in", result("Not logged in · Please run /login"), hints.NOT_LOGGED_IN),
    ("invalid key", result("Invalid API key · Fix external API key", status=401), hints.INVALID_KEY),
    ("unreachable 2.1.197", result("API Error: Unable to connect to API (ConnectionRefused)"), hints.UNREACHABLE),
    ("unreachable 2.1.330", result("API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"), hints.UNREACHABLE),
    ("model not found", result("There's an issue with the selected model (claude-nope). It may not exist or you may not have access to it.", status=404), hints.MODEL_NOT_FOUND),
    ("budget", result(subtype="error_max_budget_usd", errors=["Reached maximum budget ($1e-7)"]), hints.BUDGET),
    ("max turns", result(subtype="error_max_turns", errors=["Reached maximum number of turns (1)"]), hints.MAX_TURNS),
    ("overloaded", result("API Error: 529 Overloaded. This is a server-side issue, usually temporary", status=529), hints.OVERLOADED),
]  # fmt: skip


@pytest.mark.parametrize("name, message, expected", CASES, ids=[c[0] for c in CASES])
def test_each_case_gets_its_hint(name: str, message: ResultMessage, expected: str) -> None:
    assert hints.hint_for(message) == expected


def test_no_hint_for_other_errors_or_successes() -> None:
    assert hints.hint_for(result("Something else went wrong")) is None
    assert hints.hint_for(ResultMessage("success", 1, 1, False, 1, "s", result="Not logged in")) is None


def test_the_result_error_keeps_the_cli_text_and_adds_one_hint_line() -> None:
    message = CASES[0][1]
    error = result_error(message, exit_code=1, stderr="tail line")
    lines = str(error).splitlines()
    assert lines[0] == "Not logged in · Please run /login (error result) (exit code 1)"
    assert lines[1] == f"Hint: {hints.NOT_LOGGED_IN}"
    assert lines[2:] == ["stderr tail:", "tail line"]
    assert error.hint == hints.NOT_LOGGED_IN
    clone = pickle.loads(pickle.dumps(error))
    assert isinstance(clone, ResultError) and str(clone) == str(error) and clone.hint == error.hint


ENDS = [
    (result("Invalid API key · Fix external API key", status=401), "Invalid API key · Fix external API key (API error 401)"),
    (result("API Error: 529 Overloaded", status=529), "API Error: 529 Overloaded (API error 529)"),
    (result(subtype="error_max_turns", errors=["Reached maximum number of turns (1)"]),
     "Reached maximum number of turns (1) (error_max_turns)"),
    (result(subtype="error_max_budget_usd", errors=["Reached maximum budget ($1e-7)"]),
     "Reached maximum budget ($1e-7) (error_max_budget_usd)"),
    (ResultMessage("error_during_execution", 1, 0, True, 1, "s", errors=["[Request interrupted by user]"],
                   terminal_reason="aborted_streaming"),
     "[Request interrupted by user] (error_during_execution: aborted_streaming)"),
    (result(subtype="error_something_new"), "The Claude Code run ended with an error result (error_something_new)"),
    (result(subtype="error_max_structured_output_retries", errors=["no fit"]),
     "no fit (error_max_structured_output_retries)"),
]  # fmt: skip


@pytest.mark.parametrize("message, first_line", ENDS, ids=[m.subtype + str(m.api_error_status or "") for m, _ in ENDS])
def test_the_error_says_how_the_run_ended_never_subtype_success(message: ResultMessage, first_line: str) -> None:
    """An API failure's subtype is "success": the error says its HTTP status instead; an
    error subtype is named as the CLI names it (what users search for)."""
    error = result_error(message)
    assert str(error).splitlines()[0] == first_line
    assert "success" not in str(error)


def test_the_result_renders_its_hint() -> None:
    message: Any = CASES[1][1]
    assert "Hint:" in message._repr_html_() and hints.INVALID_KEY in message._repr_markdown_()
