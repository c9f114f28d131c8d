"""What ``claude-sync`` tells stderr when a run ends badly, in a shell user's words (pure).

The library's errors speak Python (``ClaudeAgentOptions.max_turns``, ``cli_path=``) and name
the CLI's own exit code (``(exit code 1)``) where the command exits with another status;
``error_lines(error)`` says the same in flags (``--max-turns``, ``--cli-path``) and names whose
exit status it is. Each line is printed after ``claude-sync: ``.
"""

from __future__ import annotations

import re
from typing import Dict, List

from .._options.discovery import PINNED_CLI_VERSION
from .._wire import hints
from .._wire.errors import (
    CLIConnectionError,
    CLINotFoundError,
    ControlTimeoutError,
    ProcessError,
    ReceiveTimeoutError,
    ResultError,
    StructuredOutputError,
)
from .arguments import usage_text
from .exit_codes import OutputError

__all__ = ["CLI_HINTS", "INSTALL_HINT", "error_lines", "hint_line"]

INSTALL_HINT = (
    f"install the pinned CLI {PINNED_CLI_VERSION} from a claude_sync checkout (bash .ci/install_cli.sh; "
    "found from then on), or the newest (npm install -g @anthropic-ai/claude-code), or name it with --cli-path PATH"
)

CLI_HINTS: Dict[str, str] = {
    hints.NOT_LOGGED_IN: (
        "you are not logged in: run `claude` once in a terminal and log in (/login), or set ANTHROPIC_API_KEY"
    ),
    hints.INVALID_KEY: "the API key was refused: check ANTHROPIC_API_KEY, or unset it to use your `claude` login",
    hints.MODEL_NOT_FOUND: (
        "check --model: the name may be wrong or your account may not have access to that model"
    ),
    hints.BUDGET: "the run reached --max-budget-usd: raise it (or leave it out) to let the run go further",
    hints.MAX_TURNS: "the run reached --max-turns: raise it to let the agent take more turns",
}
"""The library's hints (``claude_sync._wire.hints``) as a shell user acts on them."""

_EXIT_CODE = re.compile(r" \(exit code (-?\d+)\)$")


def hint_line(hint: str) -> str:
    """``hint: …`` in flags: a known hint from ``CLI_HINTS``, another naming the
    ``ClaudeAgentOptions`` field its flag stands for."""
    return "hint: " + CLI_HINTS.get(hint, usage_text(hint))


def error_lines(error: BaseException) -> List[str]:
    """The lines (without the ``claude-sync: `` prefix) that say how the run ended."""
    if isinstance(error, KeyboardInterrupt):
        return ["interrupted"]
    if isinstance(error, OutputError):
        return [f"cannot write to stdout: {error}"]
    if isinstance(error, StructuredOutputError):  # the library's words name the schema, not Python
        return [_EXIT_CODE.sub("", str(error).split("\n", 1)[0])]
    if isinstance(error, ResultError):
        return _result_lines(error)
    if isinstance(error, CLINotFoundError):
        if error.cli_path is not None:
            return [f"the claude CLI was not found at {error.cli_path!r} (--cli-path)"]
        return [f"the claude CLI was not found: {INSTALL_HINT}"]
    if isinstance(error, ProcessError):
        return _process_lines(error)
    if isinstance(error, ReceiveTimeoutError):
        if error.timeout is None:
            return [f"timed out: {error}"]
        if error.kind == "total":
            return [f"--timeout {error.timeout:g} s elapsed before the run ended; the CLI was stopped"]
        return [f"the CLI sent nothing for {error.timeout:g} s; it was stopped"]
    if isinstance(error, ControlTimeoutError):
        return [f"the claude CLI did not answer in time: {error}"]
    if isinstance(error, CLIConnectionError):
        return [f"the claude CLI could not be started or talked to: {usage_text(str(error))}"]
    return [usage_text(str(error)) or type(error).__name__]


def _result_lines(error: ResultError) -> List[str]:
    """``error result (error_max_turns): Reached maximum number of turns (1)`` and a hint.
    The CLI's own exit code is left out: the command's status says which error it was."""
    what = error.result if error.result and error.result.strip() else "; ".join(error.errors)
    detail = [error.subtype] if error.subtype and error.subtype != "success" else []  # API errors: "success"
    if error.api_error_status is not None:
        detail.append(f"API status {error.api_error_status}")
    first = "error result" + (f" ({', '.join(detail)})" if detail else "") + (f": {what}" if what else "")
    lines = first.splitlines() or [first]
    if error.hint:
        lines.append(hint_line(error.hint))
    return lines


def _process_lines(error: ProcessError) -> List[str]:
    """``the claude CLI exited with status 3: …`` — whose status it is, said outright. The
    CLI's stderr is left out: its lines were already passed to stderr as they came."""
    first = str(error).split("\n", 1)[0]
    first = _EXIT_CODE.sub("", first)
    if error.exit_code is None:
        return [f"the claude CLI failed: {first}"]
    if error.exit_code < 0:
        return [f"the claude CLI was killed by signal {-error.exit_code}: {first}"]
    return [f"the claude CLI exited with status {error.exit_code}: {first}"]
