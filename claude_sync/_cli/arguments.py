"""The command line of ``claude-sync``: the parser, and what the parsed arguments mean (pure).

``build_parser()`` is the one description of the flags (``--help`` prints it with the exit
codes); ``request_from(namespace)`` turns parsed arguments into a ``CliRequest`` — where the
prompt comes from, what to print, and the ``ClaudeAgentOptions`` fields — and
``options_for(request, schema)`` builds the options. Nothing here reads files or streams;
the shell (``shell``) does, and asks ``prompt_from_stdin`` whether to read stdin.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
from dataclasses import field
from typing import Any, Dict, List, NoReturn, Optional, Sequence, Tuple, Union, get_args

from .._callbacks.permission_types import PermissionMode
from .._options.options import ClaudeAgentOptions
from .._wire.record import FrozenRecord, frozen_record
from .exit_codes import exit_codes_text

__all__ = [
    "CliParser",
    "CliRequest",
    "CliUsageError",
    "DOCTOR_COMMAND",
    "OUTPUT_JSON",
    "OUTPUT_STRUCTURED",
    "OUTPUT_TEXT",
    "STDIN_AFTER",
    "STDIN_IF_PIPED",
    "STDIN_NOT_READ",
    "STDIN_WHOLE",
    "build_parser",
    "full_prompt",
    "options_for",
    "parse",
    "positive_number",
    "prompt_from_stdin",
    "request_from",
    "schema_from_text",
    "subcommand_split",
    "usage_text",
    "utf8_text",
]

OUTPUT_TEXT = "text"
OUTPUT_JSON = "json"
OUTPUT_STRUCTURED = "structured"

STDIN_NOT_READ = "not read"  # the prompt is the words
STDIN_WHOLE = "whole prompt"  # PROMPT is "-"
STDIN_AFTER = "after the words"  # the words end with "-"
STDIN_IF_PIPED = "if piped"  # no PROMPT: stdin when it is not a terminal

PERMISSION_MODES = get_args(PermissionMode)

DESCRIPTION = """\
Ask Claude Code and stream the answer to stdout.

  claude-sync "What is 2 + 2?"
  git diff | claude-sync "Review this diff" -      (stdin appended to the prompt)
  claude-sync --json "List the files" | jq -c 'select(.type == "result")'
  claude-sync --output-format schema.json "Extract the names" < notes.txt
  claude-sync --schema '{"type": "object"}' "Describe this repo as JSON"
  claude-sync doctor                               (which claude runs, and does it work?)
  claude-sync --approve 'Bash(rm:*)' "Tidy up" > pending.json   (exit 11: a call waits)
  claude-sync resume-approval pending.json --allow | --deny REASON
  claude-sync serve --max-clis 4                   (a warm pool shared by this user's processes)
  claude-sync pool status | stop

The prompt is PROMPT; with no PROMPT (or PROMPT "-") it is read from stdin (as UTF-8) when
stdin is not a terminal. With PROMPT and a trailing "-", stdin is added after the prompt.
A PROMPT that is just the word "doctor" (or "resume-approval", "serve", "pool") is asked with:
claude-sync -- doctor
"""

DOCTOR_COMMAND = "doctor"
SERVE_COMMAND = "serve"
"""``claude-sync serve [--socket PATH] [--max-clis N] …``: run the shared pool (``_shared_pool.command``)."""
POOL_COMMAND = "pool"
"""``claude-sync pool status [--json] | stop``: ask the shared pool (``_shared_pool.command``)."""
"""``claude-sync doctor [--cli-path PATH] [--timeout S]``: check the CLI instead (``doctor``)."""



EPILOG_TAIL = """\
environment: the claude CLI is found as by the library (an installed claude-agent-sdk's
bundled CLI, then claude on PATH, then the usual install folders) unless --cli-path is given;
it inherits this process's environment (ANTHROPIC_API_KEY, your login …).
When stderr is a terminal a progress line (waiting, running Bash …) is drawn there; piped,
stderr only gets errors; --quiet turns the progress line off.
"""

_PROTOCOL_FLAGS = frozenset({"print", "output-format", "input-format", "help", "version"})
"""CLI flags ``--cli-arg`` may not pass: claude_sync sets them itself (stream-json both ways),
and any other value breaks the conversation."""

_CLI_ARG = re.compile(r"--([A-Za-z0-9][A-Za-z0-9-]*)(?:=(.*))?", re.S)

_FLAG_OF_FIELD = {
    "max_turns": "--max-turns", "max_budget_usd": "--max-budget-usd", "max_retries": "--max-retries",
    "model": "--model", "resume": "--resume", "cwd": "--cwd", "cli_path": "--cli-path",
    "permission_mode": "--permission-mode", "allowed_tools": "--allowed-tools",
    "system_prompt": "--system-prompt", "extra_args": "--cli-arg", "output_format": "--output-format",
}  # fmt: skip
"""The flag that sets each ``ClaudeAgentOptions`` field, to name in a usage error."""


class CliUsageError(ValueError):
    """The arguments make no runnable request (no prompt, conflicting flags)."""


class CliParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (``claude-sync: error: …``), exit 2,
    and a long option must be written out (no abbreviations: ``--allow`` is not
    ``--allowed-tools``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument --cli-arg: expected one argument"):
            message += " (write it with =, e.g. --cli-arg=--add-dir=../lib)"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


@frozen_record
class CliRequest(FrozenRecord):
    """One invocation, decided: ``prompt`` (the words, None if there are none), ``stdin``
    (``STDIN_*``: whether and how stdin makes the prompt), ``output`` (``OUTPUT_TEXT`` / ``OUTPUT_JSON`` /
    ``OUTPUT_STRUCTURED``), ``schema_file`` (a JSON schema file to read for ``output_format``),
    ``schema`` (an inline JSON schema, already parsed), ``timeout`` (seconds for the whole
    run), ``verbose`` (a summary line on stderr), ``quiet`` (no progress line), ``version``
    (print the versions and exit), ``fields`` (``ClaudeAgentOptions`` keyword arguments) and
    ``approve`` (``--approve`` rules: calls that stop the run for a person)."""

    prompt: Optional[str]
    stdin: str = STDIN_NOT_READ
    output: str = OUTPUT_TEXT
    schema_file: Optional[str] = None
    schema: Optional[Dict[str, Any]] = None
    timeout: Optional[float] = None
    verbose: bool = False
    quiet: bool = False
    version: bool = False
    fields: Dict[str, Any] = field(default_factory=dict)
    approve: Tuple[str, ...] = ()


def build_parser() -> argparse.ArgumentParser:
    """The ``claude-sync`` argument parser (``--help`` lists the exit codes)."""
    parser = CliParser(
        prog="claude-sync",
        description=DESCRIPTION,
        epilog=f"{exit_codes_text()}\n\n{EPILOG_TAIL}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="*", metavar="PROMPT",
                        help='what to ask; "-" (or nothing, with stdin piped) reads stdin')
    out = parser.add_argument_group("output")
    out.add_argument("--json", action="store_true",
                     help="print every message as one JSON line (the CLI's own wire form)")
    out.add_argument("--output-format", "--schema", dest="schema_file", metavar="SCHEMA",
                     help="a JSON schema (a file, or the JSON itself when it starts with {): the answer "
                          "must match it; print the structured output as JSON")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="at the end, print session id, turns, cost and duration to stderr")
    out.add_argument("-q", "--quiet", action="store_true",
                     help="no progress line on stderr (it is only drawn when stderr is a terminal)")
    run = parser.add_argument_group("the run")
    session = run.add_mutually_exclusive_group()
    session.add_argument("-r", "--resume", metavar="SESSION_ID", help="continue the session with this id")
    session.add_argument("-c", "--continue", dest="continue_conversation", action="store_true",
                         help="continue the most recent session in this directory")
    run.add_argument("-m", "--model", help="the model (e.g. sonnet, opus, or a full model name)")
    run.add_argument("--max-turns", type=int, metavar="N", help="stop after N turns (exit status 6)")
    run.add_argument("--max-budget-usd", type=positive_number, metavar="USD",
                     help="stop after spending USD (exit status 7)")
    prompts = run.add_mutually_exclusive_group()
    prompts.add_argument("--system-prompt", metavar="TEXT", help="replace Claude Code's system prompt")
    prompts.add_argument("--append-system-prompt", metavar="TEXT", help="add to Claude Code's system prompt")
    run.add_argument("--permission-mode", choices=PERMISSION_MODES, help="how tool use is approved")
    run.add_argument("--allowed-tools", action="append", metavar="TOOLS", default=[],
                     help='tools allowed without asking, comma-separated or repeated (e.g. "Read,Bash(git *)")')
    run.add_argument("--cwd", metavar="DIR", help="the CLI's working directory")
    run.add_argument("--max-retries", type=int, metavar="N",
                     help="retry a failed API request at most N times (the CLI's default: 10)")
    run.add_argument("--timeout", type=positive_number, metavar="SECONDS", help="bound the whole run (exit status 8)")
    run.add_argument("--approve", action="append", default=[], metavar="RULES",
                     help="calls that wait for a person, in the --allowed-tools syntax (e.g. 'Bash(rm:*)'): the run "
                          "stops before one and prints its pending approval as JSON (exit status 11)")
    run.add_argument("--cli-path", metavar="PATH", help="the claude binary to run")
    run.add_argument("--no-slash-commands", dest="slash_commands", action="store_false",
                     help='send a prompt starting with "/" to the model as text instead of running it as a '
                          "Claude Code command (e.g. /config, which writes your settings)")
    run.add_argument("--cli-arg", action="append", default=[], metavar="--FLAG[=VALUE]",
                     help="pass a flag to the claude CLI as it is, e.g. --cli-arg=--add-dir=../lib "
                          "(repeat for more; written with = so the value cannot be read as a prompt)")
    parser.add_argument("--version", action="store_true",
                        help="print this version, the claude CLI it would run and that CLI's version")
    return parser


def subcommand_split(parser: argparse.ArgumentParser, words: Sequence[str], names: Sequence[str]) -> Optional[Tuple[str, List[str]]]:
    """``(name, the other words)`` when the first word that is not an option or an option's
    value is one of ``names`` (a subcommand after global options: ``--cli-path X doctor``),
    and no ``--`` comes before it; else None. The options before it go to the subcommand, whose
    own parser refuses those it does not take."""
    takes_value = {flag for action in parser._actions for flag in action.option_strings if action.nargs != 0}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return None
        if not word.startswith("-") or word == "-":
            if word in names:
                return word, list(words[:index]) + list(words[index + 1:])
            return None
        index += 2 if word in takes_value else 1
    return None


def positive_number(text: str) -> float:
    """argparse type: a finite number > 0 (``nan``, ``inf``, ``0`` and ``-5`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text!r}")
    return value


def usage_text(message: str) -> str:
    """An options error in shell words: ``ClaudeAgentOptions.max_turns`` → ``--max-turns``."""
    return re.sub(r"ClaudeAgentOptions\.(\w+)", lambda m: _FLAG_OF_FIELD.get(m.group(1), m.group(0)), message)


def request_from(args: argparse.Namespace) -> CliRequest:
    """The request the parsed ``args`` describe. Raises ``CliUsageError``."""
    prompt, stdin = _prompt_parts(list(args.prompt))
    if args.json:
        output = OUTPUT_JSON
    elif args.schema_file is not None:
        output = OUTPUT_STRUCTURED
    else:
        output = OUTPUT_TEXT
    schema_file, schema = args.schema_file, None
    if schema_file is not None and schema_file.lstrip().startswith("{"):
        schema_file, schema = None, schema_from_text(args.schema_file, "the --output-format JSON")
    prompt = None if prompt is None else utf8_text("the prompt", prompt)
    return CliRequest(
        prompt=prompt,
        output=output,
        stdin=stdin,
        schema_file=schema_file,
        schema=schema,
        timeout=args.timeout,
        verbose=args.verbose,
        quiet=args.quiet,
        version=args.version,
        fields=_option_fields(args),
        approve=_approve_rules(args.approve),
    )


def schema_from_text(text: str, where: str) -> Dict[str, Any]:
    """The JSON object ``text`` holds (``where`` names it in errors). Raises ``CliUsageError``
    for text that is not JSON, nested too deep to read, or not an object."""
    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise CliUsageError(f"{where} is not JSON: {exc}") from None
    except RecursionError:
        raise CliUsageError(f"{where} is nested too deep to read") from None
    if not isinstance(schema, dict):
        raise CliUsageError(f"{where} must hold a JSON object, not {type(schema).__name__}")
    return schema


def utf8_text(what: str, value: str) -> str:
    """``value`` (a command-line word) as text: Python decodes ``argv`` with the locale's
    encoding and keeps what it cannot decode as lone surrogates, so under ``LC_ALL=C`` a UTF-8
    "Grüße" arrives as ``"Gr\\udcc3\\udcbc…"``; the bytes are recovered and read as UTF-8.
    Raises ``CliUsageError`` when they are not UTF-8 (no JSON reader takes such text)."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliUsageError(f"{what} is not UTF-8 text (at byte {exc.start})") from None


def _prompt_parts(words: List[str]) -> Tuple[Optional[str], str]:
    """``(prompt, stdin)`` from the positional words: ``-`` alone means the whole prompt is
    stdin, nothing means stdin if it is piped, a trailing ``-`` appends stdin to the words."""
    if "-" in words[:-1]:
        raise CliUsageError('"-" (read stdin) may only be the last word of the prompt')
    if not words:
        return None, STDIN_IF_PIPED
    if words == ["-"]:
        return None, STDIN_WHOLE
    if words[-1] == "-":
        return " ".join(words[:-1]), STDIN_AFTER
    return " ".join(words), STDIN_NOT_READ


def _option_fields(args: argparse.Namespace) -> Dict[str, Any]:
    fields: Dict[str, Any] = {}
    for name in ("resume", "model", "max_turns", "max_budget_usd", "max_retries", "permission_mode", "cwd", "cli_path"):
        value = getattr(args, name)
        if value is not None:
            fields[name] = value
    if args.continue_conversation:
        fields["continue_conversation"] = True
    if args.system_prompt is not None:
        fields["system_prompt"] = args.system_prompt
    if args.append_system_prompt is not None:
        fields["system_prompt"] = {"type": "preset", "preset": "claude_code", "append": args.append_system_prompt}
    tools = [tool.strip() for value in args.allowed_tools for tool in _split_tools(value)]
    if tools:
        fields["allowed_tools"] = tools
    if not args.slash_commands:
        fields["slash_commands"] = False
    if args.cli_arg:
        fields["extra_args"] = _cli_args(args.cli_arg)
    for name, value in fields.items():
        if isinstance(value, str) and name not in ("cwd", "cli_path"):
            fields[name] = utf8_text(_FLAG_OF_FIELD.get(name, name), value)
    return fields


def _cli_args(values: List[str]) -> Dict[str, Optional[str]]:
    """``["--add-dir=../lib", "--debug"]`` → ``{"add-dir": "../lib", "debug": None}``.
    Raises ``CliUsageError`` for a value that is not ``--flag[=value]`` or names a flag
    claude_sync sets itself."""
    extra: Dict[str, Optional[str]] = {}
    for value in values:
        match = _CLI_ARG.fullmatch(value)
        if match is None:
            raise CliUsageError(f"--cli-arg takes --FLAG or --FLAG=VALUE (a long flag of claude), not {value!r}")
        name, flag_value = match.group(1), match.group(2)
        if name in _PROTOCOL_FLAGS:
            raise CliUsageError(f"--cli-arg={value}: claude-sync sets --{name} itself (the CLI must speak stream-json)")
        extra[name] = None if flag_value is None else utf8_text(f"--cli-arg={value}", flag_value)
    return extra


def _approve_rules(values: List[str]) -> Tuple[str, ...]:
    """The ``--approve`` rules. Raises ``CliUsageError`` for an ``--approve`` without any."""
    rules = tuple(rule.strip() for value in values for rule in _split_tools(value))
    if values and not rules:
        raise CliUsageError("--approve needs a rule, e.g. --approve 'Bash(rm:*)'")
    return rules


def _split_tools(value: str) -> List[str]:
    """``"Read,Bash(git add, commit)"`` → ``["Read", "Bash(git add, commit)"]``: commas inside
    parentheses belong to the rule."""
    parts: List[str] = []
    depth = 0
    current = ""
    for char in value:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    parts.append(current)
    return [part for part in parts if part.strip()]


def prompt_from_stdin(request: CliRequest, stdin_is_tty: bool) -> bool:
    """Whether the shell must read stdin. Raises ``CliUsageError`` when the prompt would come
    from a terminal (nothing given and nothing piped)."""
    if request.stdin == STDIN_NOT_READ:
        return False
    if request.stdin == STDIN_IF_PIPED and stdin_is_tty:
        raise CliUsageError('no prompt: pass PROMPT, or pipe it on stdin ("-" reads stdin)')
    return True


def full_prompt(request: CliRequest, stdin_text: Optional[str]) -> str:
    """The prompt to send, from the request and what was read from stdin. Raises
    ``CliUsageError`` for an empty prompt."""
    parts = [part for part in (request.prompt, stdin_text) if part is not None]
    prompt = "\n\n".join(parts)
    if not prompt.strip():
        raise CliUsageError("the prompt is empty")
    return prompt


def options_for(request: CliRequest, schema: Optional[Dict[str, Any]] = None) -> ClaudeAgentOptions:
    """``ClaudeAgentOptions`` for the request; ``schema`` (the parsed schema file) becomes
    ``output_format``. Text output turns on partial messages so the answer streams.
    Raises ``CliUsageError`` for a value the options refuse (e.g. ``--max-turns -1``)."""
    fields: Dict[str, Any] = dict(request.fields)
    schema = request.schema if schema is None else schema
    if schema is not None:
        if not isinstance(schema, dict):
            raise CliUsageError(f"the schema file must hold a JSON object, not {type(schema).__name__}")
        fields["output_format"] = {"type": "json_schema", "schema": schema}
    if request.output == OUTPUT_TEXT:
        fields["include_partial_messages"] = True
    try:
        return ClaudeAgentOptions(**fields)
    except (TypeError, ValueError) as exc:
        raise CliUsageError(usage_text(str(exc))) from None
    except RecursionError:
        raise CliUsageError("the schema is nested too deep to use") from None


def parse_or_status(parser: argparse.ArgumentParser, argv: Sequence[str]) -> Union[argparse.Namespace, int]:
    """A subcommand's arguments, or the exit status argparse chose (``--help``: 0, a usage
    error: 2) instead of its ``SystemExit``. Main thread."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def parse(parser: argparse.ArgumentParser, argv: Optional[Sequence[str]]) -> CliRequest:
    """``request_from(parser.parse_args(argv))``; a usage error exits 2 through the parser
    (``SystemExit``), as argparse does for its own errors."""
    args = parser.parse_args(argv)
    try:
        if args.version:
            return CliRequest(prompt=None, version=True, fields=_option_fields(args))
        return request_from(args)
    except CliUsageError as exc:
        parser.error(str(exc))
        raise  # unreachable: parser.error exits
