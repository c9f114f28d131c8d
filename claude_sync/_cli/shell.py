"""``claude-sync`` itself: read the prompt, run ``query()``, stream what it says (I/O).

``main(argv)`` returns the exit status (see ``exit_codes``); the console script and
``python -m claude_sync`` pass it to ``sys.exit``. It runs on the main thread: the answer is
written to stdout as it arrives (text pieces, JSON lines, or the structured output at the
end), errors go to stderr as ``claude-sync: <what happened>``. Ctrl-C and a closed stdout
(``| head``) end the run through ``query()``'s own cleanup, which stops the CLI.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, Iterable, Iterator, Optional, Sequence, Tuple

from .._query import query
from .._wire.errors import ClaudeSDKError
from .._wire.messages import ResultMessage
from .._wire.protocol import StreamItem
from .._wire.text import TextDeltas
from .arguments import (
    OUTPUT_JSON,
    OUTPUT_STRUCTURED,
    CliRequest,
    CliUsageError,
    build_parser,
    full_prompt,
    options_for,
    parse,
    prompt_from_stdin,
)
from .exit_codes import RESULT_ERROR, SUCCESS, USAGE, exit_code_for
from .output import json_line, structured_line, summary_line

__all__ = ["main"]


class NoStructuredOutput(ClaudeSDKError):
    """The run succeeded but its result carries no structured output (``--output-format``)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``claude-sync`` with ``argv`` (default ``sys.argv[1:]``); the exit status."""
    parser = build_parser()
    try:
        request = parse(parser, argv)
        prompt, schema = _read_inputs(request)
        options = options_for(request, schema)
    except SystemExit as exc:  # argparse: --help, --version, a usage error
        return exc.code if isinstance(exc.code, int) else USAGE
    except CliUsageError as exc:
        parser.print_usage(sys.stderr)
        _say(f"error: {exc}")
        return USAGE
    try:
        return _run(request, prompt, options)
    except BaseException as exc:  # noqa: BLE001 - every ending becomes an exit status
        if not isinstance(exc, (ClaudeSDKError, KeyboardInterrupt, BrokenPipeError)):
            raise
        return _report(exc)


def _read_inputs(request: CliRequest) -> Tuple[str, Optional[Dict[str, Any]]]:
    """The prompt (stdin read if needed) and the parsed schema file. Raises ``CliUsageError``."""
    stdin_text = None
    if prompt_from_stdin(request, sys.stdin is None or sys.stdin.isatty()):
        if sys.stdin is None:
            raise CliUsageError("no stdin to read the prompt from")
        stdin_text = sys.stdin.read()
    prompt = full_prompt(request, stdin_text)
    schema = None
    if request.schema_file is not None:
        try:
            with open(request.schema_file, encoding="utf-8") as handle:
                schema = json.load(handle)
        except OSError as exc:
            raise CliUsageError(f"cannot read the schema file: {exc}") from None
        except ValueError as exc:
            raise CliUsageError(f"the schema file {request.schema_file!r} is not JSON: {exc}") from None
    return prompt, schema


def _run(request: CliRequest, prompt: str, options: Any) -> int:
    """Stream one run to stdout. Raises what ``query()`` raises, and ``BrokenPipeError``."""
    seen = _Results()
    try:
        with query(prompt, options=options, timeout=request.timeout) as stream:
            if request.output == OUTPUT_JSON:
                _print_json_lines(seen.track(stream))
            elif request.output == OUTPUT_STRUCTURED:
                for _ in seen.track(stream):
                    pass
            else:
                _print_text(seen.track(stream))
    finally:
        if seen.last is not None and request.verbose:
            _say(summary_line(seen.last), prefix="")
    if request.output == OUTPUT_STRUCTURED:
        if seen.last is None or seen.last.structured_output is None:
            raise NoStructuredOutput("the run ended without structured output")
        _write(structured_line(seen.last) + "\n")
    return SUCCESS


class _Results:
    """The last ``ResultMessage`` of a stream, kept while it is iterated (main thread)."""

    def __init__(self) -> None:
        self.last: Optional[ResultMessage] = None

    def track(self, stream: Iterable[StreamItem]) -> Iterator[StreamItem]:
        for item in stream:
            if isinstance(item, ResultMessage):
                self.last = item
            yield item


def _print_json_lines(stream: Iterable[StreamItem]) -> None:
    for item in stream:
        _write(json_line(item) + "\n")


def _print_text(stream: Iterable[StreamItem]) -> None:
    """Write the answer's text as it arrives; end with a newline if it did not."""
    deltas = TextDeltas()
    last = ""
    try:
        for item in stream:
            for piece in deltas.feed(item):
                _write(piece)
                last = piece
    finally:
        if last and not last.endswith("\n"):
            _write("\n")


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _say(text: str, prefix: str = "claude-sync: ") -> None:
    sys.stderr.write(f"{prefix}{text}\n")
    sys.stderr.flush()


def _report(error: BaseException) -> int:
    """Tell stderr how the run ended; the exit status for it."""
    if isinstance(error, KeyboardInterrupt):
        _say("interrupted")
    elif isinstance(error, BrokenPipeError):
        _silence_stdout()
    else:
        _say(f"{type(error).__name__}: {error}")
    return RESULT_ERROR if isinstance(error, NoStructuredOutput) else exit_code_for(error)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again (the
    reader of the pipe is gone)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
