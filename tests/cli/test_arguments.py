"""The command line's pure half: arguments → request and options, errors → exit status."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List

import pytest

from claude_sync import (
    CLIConnectionError,
    CLINotFoundError,
    ControlTimeoutError,
    MessageParseError,
    ProcessError,
    ReceiveTimeoutError,
    ResultError,
)
from claude_sync._cli import exit_codes
from claude_sync._cli.arguments import (
    OUTPUT_JSON,
    OUTPUT_STRUCTURED,
    OUTPUT_TEXT,
    CliUsageError,
    build_parser,
    full_prompt,
    options_for,
    prompt_from_stdin,
    request_from,
)


def request(argv: List[str]):  # type: ignore[no-untyped-def]
    return request_from(build_parser().parse_args(argv))


def test_flags_become_options() -> None:
    req = request([
        "--resume", "sess-1", "--model", "opus", "--max-turns", "3", "--max-budget-usd", "0.5", "--max-retries", "2",
        "--permission-mode", "acceptEdits", "--allowed-tools", "Read,Bash(git add, commit)",
        "--allowed-tools", "Write", "--cwd", "/tmp", "--cli-path", "/bin/claude", "--system-prompt", "Be brief",
        "what", "is", "this",
    ])  # fmt: skip
    options = options_for(req)
    assert req.prompt == "what is this"
    assert (options.resume, options.model, options.max_turns, options.max_budget_usd) == ("sess-1", "opus", 3, 0.5)
    assert options.permission_mode == "acceptEdits" and options.max_retries == 2
    assert options.allowed_tools == ["Read", "Bash(git add, commit)", "Write"]
    assert (options.cwd, options.cli_path, options.system_prompt) == ("/tmp", "/bin/claude", "Be brief")


def test_unset_flags_leave_the_defaults() -> None:
    options = options_for(request(["hi"]))
    assert (options.resume, options.model, options.max_turns, options.cli_path, options.system_prompt) == (None,) * 5
    assert options.allowed_tools == [] and not options.continue_conversation


def test_append_system_prompt_keeps_claude_codes() -> None:
    options = options_for(request(["--append-system-prompt", "Answer in French", "hi"]))
    assert options.system_prompt == {"type": "preset", "preset": "claude_code", "append": "Answer in French"}


def test_continue() -> None:
    assert options_for(request(["-c", "hi"])).continue_conversation is True


@pytest.mark.parametrize("argv", [["--resume", "a", "--continue", "x"], ["--system-prompt", "a", "--append-system-prompt", "b", "x"],
                                  ["--max-turns", "many", "x"], ["--permission-mode", "yolo", "x"], ["--bogus", "x"]])
def test_bad_arguments_exit_2(argv: List[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args(argv)
    assert raised.value.code == exit_codes.USAGE
    err = capsys.readouterr().err
    assert err.startswith("claude-sync: error: ") and err.count("\n") == 1


def test_output_modes() -> None:
    assert request(["hi"]).output == OUTPUT_TEXT
    assert request(["--json", "hi"]).output == OUTPUT_JSON
    assert request(["--output-format", "s.json", "hi"]).output == OUTPUT_STRUCTURED
    assert request(["--schema", "s.json", "hi"]).schema_file == "s.json"
    assert request(["--json", "--output-format", "s.json", "hi"]).output == OUTPUT_JSON


def test_text_output_streams_partial_messages_and_the_schema_becomes_output_format() -> None:
    assert options_for(request(["hi"])).include_partial_messages is True
    assert options_for(request(["--json", "hi"])).include_partial_messages is False
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    options = options_for(request(["--output-format", "s.json", "hi"]), schema)
    assert options.output_format == {"type": "json_schema", "schema": schema}


def test_a_schema_that_is_not_an_object_is_a_usage_error() -> None:
    with pytest.raises(CliUsageError, match="JSON object"):
        options_for(request(["--output-format", "s.json", "hi"]), [1, 2])  # type: ignore[arg-type]


def test_a_value_the_options_refuse_is_a_usage_error() -> None:
    with pytest.raises(CliUsageError, match="^--max-turns must be an int >= 0"):
        options_for(request(["--max-turns", "-1", "hi"]))


@pytest.mark.parametrize(
    "argv, tty, reads",
    [(["hi"], True, False), (["hi"], False, False), ([], False, True), (["-"], True, True), (["-"], False, True),
     (["review", "-"], True, True)],
)
def test_when_stdin_is_read(argv: List[str], tty: bool, reads: bool) -> None:
    assert prompt_from_stdin(request(argv), stdin_is_tty=tty) is reads


def test_no_prompt_from_a_terminal_is_a_usage_error() -> None:
    with pytest.raises(CliUsageError, match="no prompt"):
        prompt_from_stdin(request([]), stdin_is_tty=True)


def test_stdin_after_the_words_or_alone() -> None:
    assert full_prompt(request(["review", "this", "-"]), "diff text") == "review this\n\ndiff text"
    assert full_prompt(request(["-"]), "all of it\n") == "all of it\n"
    assert full_prompt(request(["just", "words"]), None) == "just words"
    with pytest.raises(CliUsageError, match="empty"):
        full_prompt(request([]), "  \n")
    with pytest.raises(CliUsageError, match="last word"):
        request(["a", "-", "b"])


def result_error(subtype: str) -> ResultError:
    return ResultError("x", data={"subtype": subtype, "is_error": True})


@pytest.mark.parametrize(
    "error, code",
    [
        (CLINotFoundError("no"), 3),
        (CLIConnectionError("lost"), 4),
        (ProcessError("crashed", exit_code=1), 4),
        (result_error("success"), 5),
        (result_error("error_during_execution"), 5),
        (result_error("error_max_structured_output_retries"), 5),
        (result_error("error_max_turns"), 6),
        (result_error("error_max_budget_usd"), 7),
        (ReceiveTimeoutError("slow", kind="total", timeout=1.0), 8),
        (ControlTimeoutError("slow"), 8),
        (MessageParseError("odd"), 1),
        (KeyboardInterrupt(), 130),
        (BrokenPipeError(), 141),
    ],
)
def test_every_error_class_has_its_exit_status(error: BaseException, code: int) -> None:
    assert exit_codes.exit_code_for(error) == code


def test_the_docs_list_the_exit_codes_as_help_does() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "tutorial" / "command_line.rst").read_text()
    assert textwrap.indent(exit_codes.exit_codes_text(), "    ") in page


def test_exit_codes_are_distinct_and_listed_in_help() -> None:
    codes = [code for code, _ in exit_codes.EXIT_CODES]
    assert len(codes) == len(set(codes))
    text = build_parser().format_help()
    for code, meaning in exit_codes.EXIT_CODES:
        assert f"{code:<4} {meaning}" in text
