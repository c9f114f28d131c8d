"""Approvals on the command line (I/O: runs the CLI).

``claude-sync --approve 'Bash(rm:*)' PROMPT`` runs with an ``ApprovalGate``: when the run stops
at a call a rule names, the ``PendingApproval`` is printed on stdout as one JSON line (after
whatever the run printed) and the exit status is ``APPROVAL_PENDING`` (11).
``claude-sync resume-approval FILE --allow | --allow-input JSON | --deny REASON`` reads that
line back (``FILE`` ``-``: stdin), applies the decision and goes on: the answer is printed as
usual, or the next pending approval (exit 11 again). A decision that no longer applies (the
session moved on, another resume claimed it) exits ``APPROVAL_REFUSED`` (12), having run
nothing. Each run of ``resume-approval`` is one delivery of the decision and claims the
approval under its own claimant (a fresh uuid) just before the CLI starts, so two runs of the
same decision run the call once, and one that fails earlier (``--cli-path`` wrong) spends
nothing; ``--claimant NAME`` names the claimant, to retry a delivery that claimed and then
failed (the failure message says which). Without a session store the session is the local
transcript: resume on the machine (and as the user) that ran the first part, from the same
``--cwd``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, List, Optional, Sequence

from .._options.options import ClaudeAgentOptions
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage
from .arguments import CliParser, CliUsageError, parse_or_status, positive_number
from .console import Console, silence_stdout
from .exit_codes import (
    APPROVAL_PENDING,
    APPROVAL_REFUSED,
    RESULT_ERROR,
    SUCCESS,
    USAGE,
    OutputError,
    exit_code_for,
)
from .messages import error_lines

if TYPE_CHECKING:  # pragma: no cover
    from .._approvals.gate import ApprovalGate
    from .._approvals.records import ApprovalDecision

__all__ = ["RESUME_COMMAND", "approval_gate", "pending_line", "resume_main"]

RESUME_COMMAND = "resume-approval"
MAX_RECORD_BYTES = 16 * 1024 * 1024


def approval_gate(rules: Sequence[str]) -> Optional[ApprovalGate]:
    """The gate for ``--approve`` rules (None without any). Raises ``CliUsageError`` for a bad rule."""
    if not rules:
        return None
    from .._approvals.gate import ApprovalGate  # --approve only: a plain run loads no approvals code
    from .._approvals.policy import ApprovalPolicy

    try:
        return ApprovalGate(ApprovalPolicy(rules=list(rules)))
    except (TypeError, ValueError) as exc:
        raise CliUsageError(f"--approve: {exc}") from None


def pending_line(result: Optional[ResultMessage], options: ClaudeAgentOptions, gate: ApprovalGate) -> Optional[str]:
    """The pending approval's JSON line if ``result`` deferred a call, else None."""
    if result is None:
        return None
    from .._approvals.flow import pending_approval

    pending = pending_approval(result, options, gate)
    return None if pending is None else pending.to_json() + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog=f"claude-sync {RESUME_COMMAND}",
        description="Decide a pending approval that claude-sync --approve printed, and go on.",
        epilog=f"exit status: as claude-sync; {APPROVAL_PENDING} another call waits (its record is the last line "
               f"on stdout), {APPROVAL_REFUSED} the decision no longer applies (nothing ran).",
    )  # fmt: skip
    parser.add_argument("file", metavar="FILE", help='the pending approval (a JSON line); "-" reads stdin')
    decision = parser.add_mutually_exclusive_group(required=True)
    decision.add_argument("--allow", action="store_true", help="run the call as the model asked")
    decision.add_argument("--allow-input", metavar="JSON", help="run the call with this input instead (a JSON object)")
    decision.add_argument("--deny", metavar="REASON", help="do not run it; the model is told REASON")
    parser.add_argument("--approve", action="append", default=[], metavar="RULE",
                        help="which later calls wait again (default: every call of the same tool)")
    parser.add_argument("--cli-path", metavar="PATH", help="the claude binary to run")
    parser.add_argument("--timeout", type=positive_number, metavar="SECONDS", help="bound the resumed run")
    parser.add_argument("--claimant", metavar="NAME",
                        help="claim the approval as NAME (default: a fresh one per run); pass the name a failed "
                             "run printed to retry it")  # fmt: skip
    return parser


def resume_main(argv: Sequence[str]) -> int:
    """``claude-sync resume-approval ARGS``; the exit status (main thread)."""
    import shlex
    import uuid

    from .._approvals.flow import resume_approval
    from .._approvals.policy import ApprovalPolicy
    from .._approvals.records import ApprovalError, ApprovalRecordError, ApprovalStaleError, PendingApproval

    args = parse_or_status(_parser(), argv)
    if isinstance(args, int):
        return args
    console = Console(sys.stdout, sys.stderr, progress=False)
    try:
        pending = PendingApproval.from_json(_read_record(args.file))
        decision = _decision(args)
        rules: List[str] = args.approve or [pending.tool_name]
        policy = ApprovalPolicy(rules=rules)
    except (CliUsageError, ApprovalRecordError, TypeError, ValueError) as exc:
        console.say(f"error: {exc} (see claude-sync {RESUME_COMMAND} --help)")
        return USAGE
    options = ClaudeAgentOptions(cli_path=args.cli_path, stderr=console.cli_line)
    claimant = args.claimant if args.claimant is not None else str(uuid.uuid4())
    try:
        outcome = resume_approval(pending, decision, policy=policy, options=options, timeout=args.timeout,
                                  claimant=claimant)  # fmt: skip
        if sys.stdout is None:
            raise OutputError("stdout is closed")
        if isinstance(outcome, PendingApproval):
            console.write(outcome.to_json() + "\n")
            console.flush()
            return APPROVAL_PENDING
        text = outcome.text
        console.write(text + ("" if text.endswith("\n") or not text else "\n"))
        console.flush()
        return RESULT_ERROR if outcome.is_error else SUCCESS
    except ApprovalStaleError as exc:
        console.say(f"refused: {exc}")
        return APPROVAL_REFUSED
    except ApprovalRecordError as exc:  # e.g. a bad --claimant
        console.say(f"error: {exc} (see claude-sync {RESUME_COMMAND} --help)")
        return USAGE
    except (ApprovalError, ClaudeSDKError, OutputError, BrokenPipeError, KeyboardInterrupt) as exc:
        if isinstance(exc, (OutputError, BrokenPipeError)):
            silence_stdout(sys.stdout)
        for line in error_lines(exc):
            console.say(line)
        console.say(f"to retry this decision deliberately: claude-sync {RESUME_COMMAND} ... --claimant {shlex.quote(claimant)}")
        return exit_code_for(exc)
    finally:
        console.close()


def _read_record(name: str) -> bytes:
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise CliUsageError(f"cannot read the pending approval: {exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise CliUsageError("the pending approval is larger than 16 MiB")
    lines = [line for line in data.splitlines() if line.strip()]
    if not lines:
        raise CliUsageError("the pending approval file is empty")
    return lines[-1]  # the record is the last line claude-sync --approve printed


def _decision(args: argparse.Namespace) -> ApprovalDecision:
    from .._approvals.records import ApprovalDecision

    if args.deny is not None:
        return ApprovalDecision.deny(args.deny)
    if args.allow_input is not None:
        try:
            value = json.loads(args.allow_input)
        except (ValueError, RecursionError) as exc:
            raise CliUsageError(f"--allow-input is not JSON: {exc}") from None
        return ApprovalDecision.allow(value)
    return ApprovalDecision.allow()
