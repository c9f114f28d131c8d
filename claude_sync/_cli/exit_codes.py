"""The exit status of ``claude-sync`` for every outcome, and which error maps to which (pure).

A script tests ``$?`` against these; ``--help`` and the docs print ``EXIT_CODES``. Distinct
classes get distinct codes: the CLI missing (install it), the CLI process failing (look at its
stderr), the run ending in an error result (read the message), the turn or budget limit hit
(raise it), a timeout, stdout that cannot be written (closed, full), a usage error
(argparse's 2) and Ctrl-C (130, as shells report SIGINT).
"""

from __future__ import annotations

from typing import List, Tuple

from .._wire.errors import (
    CLIConnectionError,
    CLINotFoundError,
    ControlTimeoutError,
    ProcessError,
    ReceiveTimeoutError,
    ResultError,
)

__all__ = [
    "APPROVAL_PENDING",
    "APPROVAL_REFUSED",
    "BROKEN_PIPE",
    "BUDGET_EXHAUSTED",
    "CLI_NOT_FOUND",
    "CLI_TOO_OLD",
    "ERROR",
    "EXIT_CODES",
    "INTERRUPTED",
    "MAX_TURNS",
    "OutputError",
    "OUTPUT_FAILED",
    "PROCESS_FAILED",
    "RESULT_ERROR",
    "SUCCESS",
    "TIMED_OUT",
    "USAGE",
    "exit_code_for",
    "exit_codes_text",
]

SUCCESS = 0
ERROR = 1
USAGE = 2
CLI_NOT_FOUND = 3
PROCESS_FAILED = 4
RESULT_ERROR = 5
MAX_TURNS = 6
BUDGET_EXHAUSTED = 7
TIMED_OUT = 8
OUTPUT_FAILED = 9
CLI_TOO_OLD = 10
APPROVAL_PENDING = 11
APPROVAL_REFUSED = 12
INTERRUPTED = 130
BROKEN_PIPE = 141

EXIT_CODES: List[Tuple[int, str]] = [
    (SUCCESS, "success: the run ended with a success result"),
    (ERROR, "any other claude_sync error (a protocol or parse failure)"),
    (USAGE, "usage error: bad arguments, no prompt, an unreadable schema, stdin not UTF-8"),
    (CLI_NOT_FOUND, "the claude CLI was not found (install it, or pass --cli-path)"),
    (PROCESS_FAILED, "the claude CLI could not start, crashed or exited abnormally"),
    (RESULT_ERROR, "the run ended with an error result (API error, not logged in, no structured output)"),
    (MAX_TURNS, "the run hit --max-turns"),
    (BUDGET_EXHAUSTED, "the run hit --max-budget-usd"),
    (TIMED_OUT, "--timeout elapsed, or the CLI did not answer in time"),
    (OUTPUT_FAILED, "stdout could not be written (closed, or a full disk); the CLI was stopped"),
    (CLI_TOO_OLD, "doctor: the claude CLI is older than this release supports"),
    (APPROVAL_PENDING, "--approve: a call waits for a person; its pending approval is the last stdout line"),
    (APPROVAL_REFUSED, "resume-approval: the decision no longer applies (moved on, or claimed); nothing ran"),
    (INTERRUPTED, "interrupted (Ctrl-C); the CLI was stopped"),
    (BROKEN_PIPE, "stdout was closed early (e.g. piped into head); the CLI was stopped"),
]
"""Every exit status with its meaning, in the order ``--help`` lists them."""

class OutputError(Exception):
    """stdout could not be written: it is closed (``>&-``), the disk is full (``/dev/full``),
    or another I/O error (a closed pipe is ``BrokenPipeError`` instead: exit 141)."""


_LIMIT_SUBTYPES = {"error_max_turns": MAX_TURNS, "error_max_budget_usd": BUDGET_EXHAUSTED}


def exit_code_for(error: BaseException) -> int:
    """The exit status for the exception that ended a run (``ERROR`` for an unknown one)."""
    if isinstance(error, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(error, BrokenPipeError):
        return BROKEN_PIPE
    if isinstance(error, OutputError):
        return OUTPUT_FAILED
    if isinstance(error, ResultError):
        return _LIMIT_SUBTYPES.get(error.subtype or "", RESULT_ERROR)
    if isinstance(error, CLINotFoundError):
        return CLI_NOT_FOUND
    if isinstance(error, (ProcessError, CLIConnectionError)):
        return PROCESS_FAILED
    if isinstance(error, (ReceiveTimeoutError, ControlTimeoutError)):
        return TIMED_OUT
    return ERROR


def exit_codes_text() -> str:
    """The table of ``EXIT_CODES`` as ``--help`` prints it."""
    lines = ["exit status:"]
    lines += [f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES]
    return "\n".join(lines)
