"""``claude-sync doctor``: is the ``claude`` this command would run there, recent enough,
logged in and answering? (I/O: runs the CLI.)

It prints one line per finding on stdout (``ok`` / ``warn`` / ``FAIL`` / ``info``): which
``claude`` runs and why (``--cli-path``, the ``claude-agent-sdk`` wheel's bundled CLI, ``PATH``,
an install folder), its version against the range this release was tested with, where its
credentials come from, a one-turn round trip (one small API request: "Reply with OK") with
its timings, and the environment that changes the CLI's behaviour (secrets redacted). It
exits with the status of the first ``FAIL`` (3 not found, 4 does not run, 10 too old, 5 the
round trip ended in an error result — not logged in, key refused, API unreachable — or with an
empty answer, 8 it timed out), else 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, List, Optional, Sequence

from .._controls import NEWEST_CHECKED_CLI
from .._options.options import ClaudeAgentOptions
from ..query import query
from .._version import __version__
from .._wire.errors import ClaudeSDKError, ResultError
from .._wire.messages import ResultMessage, StreamEvent
from .._wire.system_messages import SystemMessage
from .arguments import CliParser, parse_or_status, positive_number
from .console import Console, silence_stdout
from .diagnosis import FAIL, INFO, OK, Finding, environment_findings, version_finding
from .exit_codes import CLI_NOT_FOUND, PROCESS_FAILED, RESULT_ERROR, SUCCESS, OutputError, exit_code_for
from .locate import cli_version, locate
from .messages import INSTALL_HINT, error_lines

__all__ = ["ROUND_TRIP_PROMPT", "doctor_main"]

ROUND_TRIP_PROMPT = "Reply with the single word OK."
ROUND_TRIP_TIMEOUT = 120.0


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="claude-sync doctor",
        description="Check the claude CLI that claude-sync would run: found, version, login, a one-turn "
                    "round trip (one small API request), and the environment that changes it.",
        epilog="exit status: 0 all ok (warnings allowed); otherwise the first problem's: 3 not found, "
               "4 does not run, 10 too old, 5 the round trip ended in an error (not logged in, key refused, "
               "API unreachable) or answered nothing, 8 it timed out, 2 usage error, 9 stdout not writable.",
    )  # fmt: skip
    parser.add_argument("--cli-path", metavar="PATH", help="the claude binary to check")
    parser.add_argument("--timeout", type=positive_number, default=ROUND_TRIP_TIMEOUT, metavar="SECONDS",
                        help=f"bound the round trip (default {ROUND_TRIP_TIMEOUT:g})")
    return parser


def doctor_main(argv: Sequence[str]) -> int:
    """``claude-sync doctor ARGS``; the exit status (main thread)."""
    args = parse_or_status(_parser(), argv)
    if isinstance(args, int):
        return args
    console = Console(sys.stdout, sys.stderr, progress=False)
    try:
        if sys.stdout is None:
            raise OutputError("stdout is closed (nothing to write the report to)")
        findings = _examine(args.cli_path, args.timeout, console)
    except (OutputError, BrokenPipeError) as exc:
        silence_stdout(sys.stdout)
        if isinstance(exc, OutputError):
            console.say(error_lines(exc)[0])
        return exit_code_for(exc)
    failed = [finding for finding in findings if finding.level == FAIL]
    return failed[0].code or PROCESS_FAILED if failed else SUCCESS


def _examine(cli_path: Optional[str], timeout: float, console: Console) -> List[Finding]:
    """Every finding, each printed as soon as it is known. Raises ``OutputError``."""
    findings: List[Finding] = []

    def note(finding: Finding) -> None:
        findings.append(finding)
        for number, line in enumerate(finding.text.splitlines() or [""]):
            head = f"{finding.level:<5} {finding.topic}: " if number == 0 else " " * 6
            console.write(head + line + "\n")

    console.write(f"claude-sync doctor (claude_sync {__version__}, Python {sys.version.split()[0]})\n")
    found = locate(cli_path)
    if found.path is None:
        note(Finding(FAIL, "claude", f"not found: {found.why}\n{INSTALL_HINT}", CLI_NOT_FOUND))
    else:
        note(Finding(OK, "claude", f"{found.path} ({found.why})"))
        version, problem = cli_version(found.path)
        if version is None:
            note(Finding(FAIL, "version", problem, PROCESS_FAILED))
        else:
            note(version_finding(version, NEWEST_CHECKED_CLI))
            for finding in _round_trip(found.path, timeout):
                note(finding)
    for finding in environment_findings(os.environ):
        note(finding)
    failed = [finding for finding in findings if finding.level == FAIL]
    if failed:
        console.write(f"exit status {failed[0].code}: {failed[0].topic}\n")
    return findings


def _round_trip(path: str, timeout: float) -> List[Finding]:
    """One turn through ``query()``: where the credentials come from (``apiKeySource``), and
    the answer with its timings, or the error that ended it."""
    findings: List[Finding] = []
    stderr: List[str] = []
    options = ClaudeAgentOptions(cli_path=path, max_turns=1, include_partial_messages=True,
                                 stderr=stderr.append, slash_commands=False)
    started = time.monotonic()
    marks: List[str] = []
    result: Optional[ResultMessage] = None
    try:
        with query(ROUND_TRIP_PROMPT, options=options, timeout=timeout) as stream:
            for item in stream:
                _mark(item, started, marks, findings)
                if isinstance(item, ResultMessage):
                    result = item
    except ResultError as exc:
        if exc.subtype != "error_max_turns":  # a tool call in the one turn: the trip still worked
            text = "\n".join(error_lines(exc))
            findings.append(Finding(FAIL, "round trip", text, exit_code_for(exc)))
            return findings
    except ClaudeSDKError as exc:
        text = "\n".join(error_lines(exc) + [line for line in stderr[-5:] if line.strip()])
        findings.append(Finding(FAIL, "round trip", text, exit_code_for(exc)))
        return findings
    took = f"{time.monotonic() - started:.1f} s"
    answer = (result.result or "").strip()[:60] if result is not None else ""
    if not answer:  # a CLI that answers nothing does not work, whatever the subtype says
        what = "no result message" if result is None else f"an empty answer ({result.subtype}, {result.num_turns} turn(s))"
        findings.append(Finding(FAIL, "round trip", f"{what} after {took}: the model said nothing", RESULT_ERROR))
        return findings
    api = f", API {result.duration_api_ms / 1000:.1f} s" if result is not None and result.duration_api_ms else ""
    cost = f", ${result.total_cost_usd:.4f}" if result is not None and result.total_cost_usd else ""
    findings.append(Finding(OK, "round trip", f"answered {answer!r}: " + ", ".join(marks + [f"done in {took}"])
                            + api + cost))
    return findings


def _mark(item: Any, started: float, marks: List[str], findings: List[Finding]) -> None:
    """Record the first init (credentials, start time) and the first streamed token."""
    elapsed = f"{time.monotonic() - started:.1f} s"
    if isinstance(item, SystemMessage) and item.init is not None and not any(m.startswith("started") for m in marks):
        marks.append(f"started in {elapsed}")
        source = item.init.api_key_source
        where = {"none": "no API key (a claude.ai login, or none: the round trip tells)"}.get(str(source), str(source))
        findings.append(Finding(INFO if source == "none" else OK, "login", f"credentials: {where}"))
    elif isinstance(item, StreamEvent) and not any(m.startswith("first token") for m in marks):
        if item.event.get("type") == "content_block_delta":
            marks.append(f"first token after {elapsed}")

