"""A resume never runs a call that waits for a person (I/O: reads the transcript's tail).

``HoldCheck`` is a connection extension (``_wiring.connection_extensions`` plugs it in for
every connection whose options resume a session: ``resume``, ``continue_conversation``,
``fork_session``, a session store's resume). Its ``prepare`` runs on the connecting thread
before any CLI is spawned, after the session store's bridge has laid a stored session out on
disk: it finds the transcript the CLI would resume, reads its tail (``held.HeldTail``) and,
when the session holds deferred calls, raises ``ApprovalPendingError`` naming them — the CLI
never starts, the transcript and the claims are untouched, so the person's decision still
applies later. A tail it cannot read refuses too (fail closed).

Which transcript: ``<config>/projects/<cwd's project>/<resume>.jsonl`` (``<config>`` is
``CLAUDE_CONFIG_DIR``, else ``$HOME/.claude``, from the options' ``env`` over the process's; an
empty or relative ``CLAUDE_CONFIG_DIR`` is read from the CLI's ``cwd``, as the CLI does),
and a ``<resume>.jsonl`` in any other project folder (the CLI looks there too); ``resume``
naming a ``.jsonl`` file (any case, relative to the CLI's ``cwd``): that file; any other ``resume`` may be a session's title (the CLI
resumes by title too): every transcript on the machine. ``extra_args`` count alike
(``{"resume": sid}``, ``{"resume=sid": None}``, ``{"continue": None}``; ``from-pr`` and
``teleport``: every transcript). ``continue_conversation``: every transcript of the
project (the CLI takes the newest it counts as a conversation, skipping files this cannot
judge alike, so any held one refuses; pass ``resume=`` to go on with another session). A
session id found nowhere is left to the CLI, which reports it as before.

Only ``resume_approval`` passes the mark: inside ``deciding(session_id, tool_use_ids)`` (a
context manager on the caller's thread) the next connect on that thread to that session may
go on when every held call is one the decision names — once; any other held call still
refuses. It is not an option a user can set by accident, and it does not cross threads.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Tuple

from .._engine.extensions import ConnectionExtension
from .._options.options import ClaudeAgentOptions
from .._sessions.transcript import sanitize_path, valid_uuid
from .._sessions.transcript_files import canonical
from .._redaction.redactor import redacted_excerpt
from .held import HeldCall, HeldTail, UnreadableTail, held_calls
from .records import ApprovalPendingError

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan

__all__ = ["HoldCheck", "cli_config_dir", "cli_home", "deciding", "held_in_file", "read_lines_backwards", "refuse_undecided"]

FIRST_CHUNK_BYTES = 8 * 1024  # a held session's tail after its last assistant message is ~2-5 KiB
MAX_CHUNK_BYTES = 1 << 20


class _Allowance:
    """What one ``deciding`` block lets through: the session and its decided calls, once."""

    __slots__ = ("session_id", "tool_use_ids", "used")

    def __init__(self, session_id: str, tool_use_ids: FrozenSet[str]) -> None:
        self.session_id = session_id
        self.tool_use_ids = tool_use_ids
        self.used = False


_ALLOWANCE: contextvars.ContextVar[Optional[_Allowance]] = contextvars.ContextVar("claude_sync_decided_resume", default=None)


@contextlib.contextmanager
def deciding(session_id: str, tool_use_ids: Iterable[str]) -> Iterator[None]:
    """Within this block, one connect on this thread may resume ``session_id`` although it
    holds calls, if each held call is among ``tool_use_ids`` (``resume_approval``, which
    applies the decision to exactly those calls). Raises nothing."""
    token = _ALLOWANCE.set(_Allowance(session_id, frozenset(tool_use_ids)))
    try:
        yield
    finally:
        _ALLOWANCE.reset(token)


class HoldCheck(ConnectionExtension):
    """Refuses to spawn a CLI that would resume a session holding calls for a person."""

    def prepare(
        self, options: ClaudeAgentOptions, plan: OptionsPlan, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
        """Connecting thread, before the spawn. Returns ``(options, plan)`` unchanged.
        Raises ``ApprovalPendingError`` (held calls, or a tail it cannot read)."""
        env = {**environ, **(options.env or {})}
        cwd = canonical(os.fspath(options.cwd) if options.cwd is not None else os.getcwd())
        for path in _transcripts(options, cli_config_dir(env, cwd), cwd):
            if _is_regular(path):  # a FIFO or a device would block the read: the CLI says what it makes of it
                _refuse_if_held(path, options)
        return options, plan


def held_in_file(path: Path) -> List[HeldCall]:
    """The calls the transcript at ``path`` holds (its tail only). Raises ``UnreadableTail``
    and ``OSError``."""
    tail = HeldTail()
    for line in read_lines_backwards(path):
        if tail.feed(line):
            break
    return tail.held


def read_lines_backwards(path: Path, chunk: int = FIRST_CHUNK_BYTES) -> Iterator[bytes]:
    """The file's lines, last first, without their newlines, reading from the end ``chunk``
    bytes first, each later read twice the one before (at most ``MAX_CHUNK_BYTES``): a huge
    transcript costs only the part the caller consumes. A last line with no newline (a write
    cut short) raises ``UnreadableTail``. Raises ``OSError``."""
    with open(path, "rb") as file:
        position = file.seek(0, os.SEEK_END)
        pending = b""
        first = True
        while position > 0:
            size = min(chunk, position)
            chunk = min(chunk * 2, MAX_CHUNK_BYTES)
            position -= size
            file.seek(position)
            pending = file.read(size) + pending
            if first:
                first = False
                if not pending.endswith(b"\n"):
                    end = redacted_excerpt(pending.decode("utf-8", "replace"), 80, from_end=True)
                    raise UnreadableTail(f"its last line has no newline (a write cut short): {end!r}")
                pending = pending[:-1]
            lines = pending.split(b"\n")
            pending = lines[0]
            for line in reversed(lines[1:]):
                yield line
        if not first:
            yield pending  # the file's first line


def _refuse_if_held(path: Path, options: ClaudeAgentOptions) -> None:
    session_id = path.stem
    try:
        held = held_in_file(path)
    except (UnreadableTail, OSError) as exc:
        raise ApprovalPendingError(
            f"refusing to resume session {session_id}: its transcript {path} cannot be read to see whether it "
            f"holds a call waiting for a person ({exc}); nothing was started",
            session_id=session_id,
        ) from None
    if not held or _allowed(session_id, held, options):
        return
    names = "; ".join(call.describe() for call in held)
    other = (" continue_conversation may pick this session: pass resume=<the session you mean> to go on with"
             " another one." if options.continue_conversation else "")  # fmt: skip
    raise _pending(
        f"session {session_id} waits for a person's decision on {names}: a plain resume would run "
        f"{'it' if len(held) == 1 else 'them'} unasked, so nothing was started. Apply the decision with "
        f"resume_approval(pending, ApprovalDecision.allow() or ApprovalDecision.deny(message), policy=…, options=…) "
        f"(command line: claude-sync resume-approval FILE --allow/--deny).{other}",
        session_id, held, held[0],
    )


def refuse_undecided(entries: List[Dict[str, Any]], session_id: str, tool_use_ids: Iterable[str]) -> None:
    """Raise ``ApprovalPendingError`` when the transcript ``entries`` hold a call besides
    ``tool_use_ids`` (``resume_approval``, before it claims: the resume would run that call
    unasked, and the connect would refuse it after the claim was spent). Raises nothing else;
    an entry the walk cannot read refuses too."""
    decided = set(tool_use_ids)
    try:
        held = held_calls(json.dumps(entry).encode() for entry in reversed(entries))
    except UnreadableTail as exc:
        raise ApprovalPendingError(f"refusing to resume session {session_id}: its transcript cannot be read ({exc})", session_id=session_id) from None
    others = [call for call in held if call.tool_use_id not in decided]
    if others:
        raise _pending(
            f"session {session_id} also waits for a person's decision on {'; '.join(c.describe() for c in others)}, "
            f"which this decision does not name (it names {', '.join(sorted(decided))}): resuming would run "
            f"{'it' if len(others) == 1 else 'them'} unasked, so nothing was started and nothing was claimed",
            session_id, held, others[0],
        )


def _pending(message: str, session_id: str, held: List[HeldCall], named: HeldCall) -> ApprovalPendingError:
    held_dicts = [{"tool_use_id": c.tool_use_id, "tool_name": c.tool_name, "tool_input": c.tool_input} for c in held]
    return ApprovalPendingError(message, tool_use_id=named.tool_use_id, session_id=session_id, held=held_dicts)


def _allowed(session_id: str, held: List[HeldCall], options: ClaudeAgentOptions) -> bool:
    allowance = _ALLOWANCE.get()
    if allowance is None or allowance.used or allowance.session_id != session_id or options.fork_session:
        return False
    if any(call.tool_use_id not in allowance.tool_use_ids for call in held):
        return False
    allowance.used = True
    return True


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def cli_config_dir(env: Mapping[str, str], cwd: str) -> Path:
    """The config dir of a CLI started with ``env`` (its whole environment) in ``cwd``; without
    ``CLAUDE_CONFIG_DIR``, ``<cli_home>/.claude``. A ``CLAUDE_CONFIG_DIR`` that is set counts
    even when empty or relative: the CLI then takes it from its own ``cwd`` (measured on 2.1.197 and 2.1.333: ``""``
    put the transcripts under ``<cwd>/projects``, ``"conf"`` under ``<cwd>/conf/projects``)."""
    if "CLAUDE_CONFIG_DIR" in env:
        return Path(cwd) / env["CLAUDE_CONFIG_DIR"]  # an absolute value replaces cwd
    return Path(cwd) / cli_home(env) / ".claude"


def cli_home(env: Mapping[str, str]) -> str:
    """The home directory of a CLI started with ``env``: ``HOME`` (a relative one is taken from
    the CLI's ``cwd`` by the caller's join); when ``HOME`` is unset or empty, the account's home
    from the password database (measured on 2.1.197 and 2.1.333: ``HOME=""`` wrote under
    ``/root/.claude`` while this process's ``HOME`` was elsewhere)."""
    home = env.get("HOME")
    if home:
        return home
    try:
        import pwd  # POSIX only

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError, AttributeError):
        return os.path.expanduser("~")


SESSION_FLAGS_EVERYWHERE = frozenset({"from-pr", "teleport"})
"""``extra_args`` flags that resume a session this cannot name from the options (a PR's, a
teleported one): every transcript on the machine is checked."""


def _transcripts(options: ClaudeAgentOptions, config: Path, cwd: str) -> List[Path]:
    """The transcripts the CLI could resume for ``options`` (maybe none: the CLI reports it),
    ``extra_args`` included (``{"resume": sid}``, ``{"resume=sid": None}``, ``{"continue": None}``
    reach the CLI's ``--resume``/``--continue`` as well)."""
    projects = config / "projects"
    project = projects / sanitize_path(cwd)
    resumes, continuing, everywhere = _session_flags(options)
    found: List[Path] = []
    for resume in resumes:
        found += _resumed(resume, projects, project, cwd)
    if continuing:
        found += _newest_first(project)
    if everywhere:
        found += _every_transcript(projects)
    return list(dict.fromkeys(found))


def _session_flags(options: ClaudeAgentOptions) -> Tuple[List[str], bool, bool]:
    """The ``--resume`` values, whether ``--continue`` (or a ``--resume`` without a value) is
    given, and whether a flag resumes a session found elsewhere — from the options and from
    ``extra_args`` alike (``extra_args_argv`` writes each name as ``--name``)."""
    resumes = [options.resume] if options.resume else []
    continuing, everywhere = bool(options.continue_conversation), False
    for name, value in (options.extra_args or {}).items():
        flag = str(name).lstrip("-")
        if "=" in flag:
            flag, value = flag.split("=", 1)
        if flag == "resume":
            if value is None or not str(value):
                continuing = True  # --resume without a value picks a session itself
            else:
                resumes.append(str(value))
        elif flag == "continue":
            continuing = True
        elif flag in SESSION_FLAGS_EVERYWHERE:
            everywhere = True
    return resumes, continuing, everywhere


def _resumed(resume: str, projects: Path, project: Path, cwd: str) -> List[Path]:
    """The transcripts ``--resume resume`` may load. The CLI takes a session id, a ``.jsonl``
    file, or a session's **title** (measured on 2.1.197 and 2.1.333: ``--resume "tidy job"``
    resumed the session named so, and ran its held call): anything that is not a session id
    may be a title, so every transcript on the machine is checked (pass the id to resume one
    session while another is held). A file it names (from the CLI's ``cwd`` when relative) is
    checked whatever the case of its suffix: the CLI loaded ``copy.JSONL`` and ran its held call."""
    named = Path(cwd) / resume
    if ("/" in resume or resume.lower().endswith(".jsonl")) and named.is_file():
        return [named]
    if not valid_uuid(resume):
        return _every_transcript(projects)
    found = [project / f"{resume}.jsonl"] if (project / f"{resume}.jsonl").is_file() else []
    return found + [p for p in sorted(projects.glob(f"*/{resume}.jsonl")) if p.parent != project]


def _every_transcript(projects: Path) -> List[Path]:
    try:
        return sorted(projects.glob("*/*.jsonl"))
    except OSError:
        return []


def _newest_first(project: Path) -> List[Path]:
    """Every transcript of the project, newest first. ``--continue`` takes the newest the CLI
    counts as a conversation, and it skips files this cannot judge the same way (measured on
    2.1.333: a newer file with only a metadata line, or not named by a session id, was
    passed over for the held session behind it), so all of them are checked."""
    found: List[Tuple[float, str]] = []
    try:
        candidates = list(project.glob("*.jsonl"))
    except OSError:
        return []
    for path in candidates:
        try:
            found.append((path.stat().st_mtime, str(path)))
        except OSError:
            continue
    return [Path(name) for _, name in sorted(found, reverse=True)]
