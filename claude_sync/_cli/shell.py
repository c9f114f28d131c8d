"""``claude-sync`` itself: read the prompt, run ``query()``, stream what it says (I/O).

``main(argv)`` returns the exit status (see ``exit_codes``); the console script and
``python -m claude_sync`` pass it to ``sys.exit``. It runs on the main thread: the answer is
written to stdout as it arrives (text pieces, JSON lines, or the structured output at the
end) through a ``Console``, diagnostics go to stderr as ``claude-sync: <what happened>``
(never the answer's stdout), and a progress line is drawn on stderr when it is a terminal.
Ctrl-C, a closed stdout (``| head``) and a failed write (``> /dev/full``) end the run through
``query()``'s own cleanup, which stops the CLI. Every usage error (a bad flag, an unreadable
or too-deep schema, stdin that is not UTF-8, stdout closed) is found before any CLI starts.
``claude-sync doctor`` goes to ``doctor``; ``claude-sync serve`` and ``claude-sync pool …`` to
``_shared_pool.command``.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from .._shared_pool.switch import leasing_path
from ..query import query
from .._version import __version__
from .._wire.errors import ClaudeSDKError
from .._wire.messages import AssistantMessage, ResultMessage
from .._wire.protocol import StreamItem
from .._wire.text import TextDeltas
from .approvals import RESUME_COMMAND, approval_gate, pending_line, resume_main
from .arguments import (
    DOCTOR_COMMAND,
    OUTPUT_JSON,
    OUTPUT_STRUCTURED,
    POOL_COMMAND,
    SERVE_COMMAND,
    CliRequest,
    CliUsageError,
    build_parser,
    full_prompt,
    options_for,
    parse,
    prompt_from_stdin,
    schema_from_text,
    subcommand_split,
)
from .console import Console, silence_stdout
from .exit_codes import APPROVAL_PENDING, RESULT_ERROR, SUCCESS, USAGE, OutputError, exit_code_for
from .messages import error_lines
from .output import activity, json_line, structured_line, summary_line

if TYPE_CHECKING:  # pragma: no cover
    from .._approvals.gate import ApprovalGate

__all__ = ["MAX_INPUT_BYTES", "main"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""The most a schema file may hold (a larger one is a usage error, so ``--schema /dev/zero``
cannot fill the memory)."""


class NoStructuredOutput(ClaudeSDKError):
    """The run succeeded but its result carries no structured output (``--output-format``)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``claude-sync`` with ``argv`` (default ``sys.argv[1:]``); the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    subcommand = subcommand_split(parser, words, (DOCTOR_COMMAND, RESUME_COMMAND, SERVE_COMMAND, POOL_COMMAND))
    if subcommand is not None and subcommand[0] == DOCTOR_COMMAND:
        from .doctor import doctor_main

        return doctor_main(subcommand[1])
    if subcommand is not None and subcommand[0] in (SERVE_COMMAND, POOL_COMMAND):
        from .._shared_pool.command import pool_main, serve_main  # loaded for these subcommands only

        return (serve_main if subcommand[0] == SERVE_COMMAND else pool_main)(subcommand[1])
    if subcommand is not None:
        return resume_main(subcommand[1])
    console = Console(sys.stdout, sys.stderr, progress=False)
    try:
        request = parse(parser, words)
        if request.version:
            return _print_version(request, console)
        if sys.stdout is None:
            raise OutputError("stdout is closed (nothing to write the answer to)")
        prompt, schema = _read_inputs(request)
        options = options_for(request, schema)
        _check_shared_pool(options)
        gate = approval_gate(request.approve)
        options = options if gate is None else gate.options(options)
    except SystemExit as exc:  # argparse: --help, a usage error
        return exc.code if isinstance(exc.code, int) else USAGE
    except CliUsageError as exc:
        console.say(f"error: {exc} (see claude-sync --help)")
        return USAGE
    except (OutputError, BrokenPipeError) as exc:
        return _report(exc, console)
    console = Console(sys.stdout, sys.stderr, progress=not request.quiet)
    options = dataclasses.replace(options, stderr=console.cli_line)
    try:
        return _run(request, prompt, options, console, gate)
    except BaseException as exc:  # noqa: BLE001 - every ending becomes an exit status
        if not isinstance(exc, (ClaudeSDKError, KeyboardInterrupt, BrokenPipeError, OutputError)):
            raise
        return _report(exc, console)
    finally:
        console.close()


def _print_version(request: CliRequest, console: Console) -> int:
    """``--version``: this library, the ``claude`` it would run (and why), that CLI's version."""
    from .locate import cli_version, locate  # --version only

    found = locate(request.fields.get("cli_path"))
    lines = [f"claude-sync (claude_sync) {__version__}"]
    if found.path is None:
        lines.append(f"claude: not found: {found.why}")
    else:
        version, problem = cli_version(found.path)
        lines.append(f"claude: {found.path} ({found.why})")
        lines.append(f"claude version: {version or problem}")
    console.write("\n".join(lines) + "\n")
    return SUCCESS


def _read_inputs(request: CliRequest) -> Tuple[str, Optional[Dict[str, Any]]]:
    """The prompt (stdin read if needed) and the parsed schema file. Raises ``CliUsageError``."""
    stdin_text = None
    if prompt_from_stdin(request, sys.stdin is None or sys.stdin.isatty()):
        stdin_text = _read_stdin()
    prompt = full_prompt(request, stdin_text)
    schema = None
    if request.schema_file is not None:
        where = f"the schema file {request.schema_file!r}"
        try:
            with open(request.schema_file, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise CliUsageError(f"cannot read the schema file: {exc}") from None
        if len(data) > MAX_INPUT_BYTES:
            raise CliUsageError(f"{where} is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
        schema = schema_from_text(_utf8(data, where), where)
    return prompt, schema


def _read_stdin() -> str:
    """All of stdin, as UTF-8 (a leading byte-order mark dropped). Raises ``CliUsageError``."""
    stream = sys.stdin
    if stream is None:
        raise CliUsageError("no stdin to read the prompt from (it is closed)")
    try:
        data: Any = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
    except OSError as exc:
        raise CliUsageError(f"cannot read the prompt from stdin: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # a text stream without a buffer
        raise CliUsageError(f"stdin is not UTF-8 text: {exc.reason}") from None
    return _utf8(data, "stdin") if isinstance(data, bytes) else str(data)


def _utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliUsageError(
            f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _check_shared_pool(options: Any) -> None:
    """A ``CLAUDE_SYNC_SHARED_POOL`` that means nothing is a usage error, before any run
    (main thread). Raises ``CliUsageError``."""
    try:
        leasing_path(options)
    except ValueError as exc:
        raise CliUsageError(str(exc)) from None


def _run(request: CliRequest, prompt: str, options: Any, console: Console, gate: Optional[ApprovalGate] = None) -> int:
    """Stream one run to stdout; with ``--approve`` (``gate``), a run that stopped for a person
    ends with its pending approval's JSON line (exit ``APPROVAL_PENDING``; with
    ``--output-format SCHEMA`` too: no typed output is expected then). Raises what
    ``query()`` raises, ``ApprovalDroppedError`` (a held call the run could not stop at),
    ``BrokenPipeError`` and ``OutputError``."""
    seen = _Results(console)
    console.start("starting claude")
    previous = _on_ctrl_c(console)
    try:
        with query(prompt, options=options, timeout=request.timeout) as stream:
            if request.output == OUTPUT_JSON:
                for item in seen.track(stream):
                    console.write(json_line(item, console.encoding) + "\n")
            elif request.output == OUTPUT_STRUCTURED:
                for _ in seen.track(stream):
                    pass
            else:
                _print_text(seen.track(stream), console)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        console.status(None)
        if seen.last is not None and request.verbose:
            console.say(summary_line(seen.all, time.monotonic() - seen.started), prefix="")
    waiting = None if gate is None else pending_line(seen.last, options, gate)
    if request.output == OUTPUT_STRUCTURED and waiting is None:  # a run that stopped for a person has none
        if seen.last is None or seen.last.structured_output is None:
            raise NoStructuredOutput("the run ended without structured output")
        console.write(structured_line(seen.last, console.encoding) + "\n")
    if waiting is not None:
        console.write(waiting)
    console.flush()
    return SUCCESS if waiting is None else APPROVAL_PENDING


def _on_ctrl_c(console: Console) -> Any:
    """On the main thread, make Ctrl-C also tell the progress line that the CLI is being
    stopped (``query()`` waits for it, a second or two); the previous handler, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        return None  # someone else's handler: leave it alone

    def interrupted(signum: int, frame: Any) -> None:
        console.stopping = True  # a plain store: safe in a signal handler, read by the redraw thread
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    return previous


class _Results:
    """Every ``ResultMessage`` of a stream (a run a background agent woke again ends more than
    once), kept while it is iterated, and the progress line kept up to date (main thread)."""

    def __init__(self, console: Console) -> None:
        self.last: Optional[ResultMessage] = None
        self.all: List[ResultMessage] = []
        self.started = time.monotonic()
        self._console = console

    def track(self, stream: Iterable[StreamItem]) -> Iterator[StreamItem]:
        for item in stream:
            if isinstance(item, ResultMessage):
                self.last = item
                self.all.append(item)
                self._console.status(None)
            else:
                doing = activity(item)
                if doing is not None:
                    self._console.status(doing)
            yield item


def _print_text(stream: Iterable[StreamItem], console: Console) -> None:
    """Write the answer's text as it arrives; end with a newline if it did not. The CLI's
    synthetic message after an API failure ("Not logged in · Please run /login") is not the
    answer: it is said on stderr with the error result instead."""
    deltas = TextDeltas()
    last = ""
    try:
        for item in stream:
            if isinstance(item, AssistantMessage) and item.error is not None:
                continue
            for piece in deltas.feed(item):
                console.write(piece)
                last = piece
    finally:
        if last and not last.endswith("\n"):
            console.write("\n")


def _report(error: BaseException, console: Console) -> int:
    """Tell stderr how the run ended; the exit status for it."""
    if isinstance(error, BrokenPipeError):
        silence_stdout(sys.stdout)
    else:
        if isinstance(error, OutputError):
            silence_stdout(sys.stdout)
        for line in error_lines(error):
            console.say(line)
    return RESULT_ERROR if isinstance(error, NoStructuredOutput) else exit_code_for(error)
