"""The command line: ``python -m claude_sync.port [-w | --check] [--diff] [-v] PATH…``.

Ports each ``.py`` file named (folders: every ``.py`` file under them). By default it writes
nothing: it prints what it would change as a unified diff on stdout (a patch ``patch -p1`` /
``git apply`` take) and each flag as ``path:line:column: message`` on stderr, with a summary.
The line and column are those of the file as the run leaves it: of the ported file with
``-w``, of the file as it is otherwise.

* ``-w`` / ``--write``: write the ported files (with ``--diff``: and print the diff too). Each
  file is replaced atomically (``files.replace_file``): a write that fails leaves the file as
  it was.
* ``--check``: write and print nothing but the flags; fail while a file still needs porting
  or a flag remains (for CI).
* A file that cannot be read, parsed or written, or whose port would not compile or run (the
  flags say what to fix by hand first), is reported and never written.

Exit status (``EXIT_STATUS``): 0 nothing left to do; 1 a flag remains (with ``--check``: or a
file would change); 2 a file or folder could not be read, parsed, ported or written (or a
usage error); 141 stdout or stderr was closed early (``… | head``): the tool stops quietly,
files it had not reached yet are left as they are. The file's encoding, byte-order mark and
line endings are kept.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import os
import re
import stat
import sys
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from .engine import PortBug, RunCoroutines, UnparsableSource, port_source, run_coroutines
from .files import read_source, replace_file

__all__ = ["EXIT_STATUS", "claude_sync_has", "iter_python_files", "main", "unified_diff"]

SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})

ReportFn = Callable[[str], None]

EXIT_STATUS = """\
exit status: 0 nothing left to do; 1 a flag remains (with --check: or a file would change);
2 a file or folder could not be read, parsed, ported or written, or a usage error;
141 stdout or stderr was closed early (e.g. piped into head): stopped quietly."""

EXIT_PIPE_CLOSED = 141
"""128 + SIGPIPE, what a shell reports for a program a closed pipe ended."""


class _Stopped(Exception):
    """stdout or stderr was closed: stop at once."""


def main(
    argv: Optional[Sequence[str]] = None,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> int:
    """Run the command line (caller's thread); returns the exit status (``EXIT_STATUS``).
    Raises ``SystemExit`` only for a usage error (argparse, status 2)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    args = _parser().parse_args(argv)
    run = _Run(args, out, err)
    try:
        run.all([Path(p) for p in args.paths])
        run.say(run.summary())
        out.flush()
        err.flush()
    except (_Stopped, BrokenPipeError):
        _silence(out, err)
        return EXIT_PIPE_CLOSED
    if run.failed:
        return 2
    if run.flagged or (args.check and run.would_change):
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="python -m claude_sync.port",
        description=(
            "Port code written for claude_agent_sdk / claude_code_sdk (async) to claude_sync\n"
            "(sync, threads): rewrite what is mechanical, flag the rest with its sync equivalent\n"
            "(each flag also as a '# claude_sync.port:' comment in the ported text).\n"
            "Without -w it writes nothing and prints the changes as a unified diff."
        ),
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-w", "--write", action="store_true", help="write the ported files in place (atomically)"
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print the unified diff (the default without -w; with -w: as well as writing)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write and print nothing but flags; exit 1 while a file needs porting or a flag remains",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="also list every rewrite made")
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a .py file, or a folder to port every .py file under",
    )
    return parser


class _Run:
    """One command line run: the files, the counts, the output (caller's thread)."""

    def __init__(self, args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
        if args.check and (args.write or args.diff):
            _parser().error("--check writes and prints nothing: it cannot go with -w or --diff")
        self.args = args
        self.out = out
        self.err = err
        self.files = self.changed = self.would_change = self.flagged = self.failed = 0
        self.coroutines = RunCoroutines()

    def say(self, text: str) -> None:
        try:
            self.err.write(text)
        except BrokenPipeError as error:
            raise _Stopped from error

    def all(self, paths: Sequence[Path]) -> None:
        files = list(iter_python_files(paths, self._cannot_list))
        self.coroutines = run_coroutines(_module_texts(files))
        for path in files:
            self.files += 1
            self.port(path)

    def _cannot_list(self, message: str) -> None:
        self.failed += 1
        self.say(message + "\n")

    def port(self, path: Path) -> None:
        try:
            raw, encoding, text = read_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as error:
            self._fail(f"{path}: cannot read: {error}")
            return
        try:
            result = port_source(text, filename=str(path), exists=claude_sync_has, run=self.coroutines)
        except (UnparsableSource, PortBug) as error:
            self._fail(f"{error} (file left unchanged)")
            return
        writes = self.args.write and not result.blockers
        for finding in result.flags:  # at the line of the file as this run leaves it
            line, column = (
                (finding.line, finding.column)
                if writes
                else (finding.original_line, finding.original_column)
            )
            self.say(f"{path}:{line}:{column}: {finding.message}\n")
        if self.args.verbose:
            for finding in result.rewrites:
                line, column = (
                    (finding.line, finding.column)
                    if writes
                    else (finding.original_line, finding.original_column)
                )
                self.say(f"{path}:{line}:{column}: rewrote {finding.message}\n")
        self.flagged += len(result.flags)
        if result.blockers:
            self._fail(
                f"{path}: not ported: the ported text would not run; port the "
                f"{len(result.blockers)} place(s) flagged 'blocks the port' by hand first (file left unchanged)"
            )
            return
        if not result.changed:
            return
        self.would_change += 1
        try:
            new = result.text.encode(encoding)
        except UnicodeEncodeError as error:
            self._fail(
                f"{path}: cannot write: the ported text is not {encoding}: {error} (file left unchanged)"
            )
            return
        if self.args.check:
            self.say(f"{path}: would be ported\n")
        elif self.args.diff or not self.args.write:
            self._print_diff(path, raw, new)
        if self.args.write:
            self._write(path, new)

    def _print_diff(self, path: Path, old: bytes, new: bytes) -> None:
        shown = str(path) if path.is_absolute() else None
        patch = unified_diff(old, new, shown or f"a/{path}", shown or f"b/{path}")
        try:
            binary = getattr(self.out, "buffer", None)
            if binary is not None:
                self.out.flush()
                binary.write(patch)
                binary.flush()
            else:
                self.out.write(patch.decode("utf-8", errors="surrogateescape"))
        except BrokenPipeError as error:
            raise _Stopped from error

    def _write(self, path: Path, new: bytes) -> None:
        try:
            replaced = replace_file(path, new)
        except OSError as error:
            self._fail(f"{path}: cannot write: {error} (file left unchanged)")
            return
        self.changed += 1
        if replaced.target != Path(os.path.abspath(path)):
            self.say(f"{path}: wrote the link's target {replaced.target}\n")
        if replaced.other_links:
            self.say(
                f"{path}: had {replaced.other_links} other hard link(s): they keep the old text\n"
            )
        if not replaced.owner_kept:
            self.say(f"{path}: now owned by this user (the file's owner could not be kept)\n")

    def _fail(self, message: str) -> None:
        self.failed += 1
        self.say(message + "\n")

    def summary(self) -> str:
        writing = self.args.write
        verb = "changed" if writing else "would change"
        count = self.changed if writing else self.would_change
        parts = [f"{self.files} file{'s' if self.files != 1 else ''}, {count} {verb}"]
        parts.append(f"{self.flagged} place{'s' if self.flagged != 1 else ''} to port by hand")
        if self.failed:
            parts.append(f"{self.failed} not ported (see above)")
        if not writing and not self.args.check and self.would_change:
            parts.append("nothing written (-w writes)")
        return "claude_sync.port: " + ", ".join(parts) + "\n"


def _silence(out: TextIO, err: TextIO) -> None:
    """After a closed pipe: point the real stdout/stderr at /dev/null so the interpreter's
    last flush at exit raises nothing."""
    for stream, real in ((out, sys.stdout), (err, sys.stderr)):
        if stream is not real:
            continue
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


LINE = re.compile(rb"[^\n]*\n|[^\n]+")


def unified_diff(old: bytes, new: bytes, fromfile: str, tofile: str) -> bytes:
    """A unified diff of two files' bytes that ``patch`` and ``git apply`` accept: lines end
    at ``\\n`` only (a ``\\r`` stays part of its line), and a last line without one is
    followed by ``\\ No newline at end of file``."""
    old_lines = LINE.findall(old)
    new_lines = LINE.findall(new)
    pieces: List[bytes] = []
    for line in difflib.diff_bytes(
        difflib.unified_diff,
        old_lines,
        new_lines,
        os.fsencode(fromfile),
        os.fsencode(tofile),
        lineterm=b"\n",
    ):
        pieces.append(line)
        if line[:1] in (b" ", b"-", b"+") and not line.endswith(b"\n"):
            pieces.append(b"\n\\ No newline at end of file\n")
    return b"".join(pieces)


def iter_python_files(paths: Sequence[Path], report: ReportFn) -> Iterator[Path]:
    """The files named, and the ``.py`` files under the folders named (hidden folders,
    ``__pycache__`` and the like skipped), each once (by real path), in order. What cannot
    be listed or is not a regular file goes to ``report`` (a message without a newline)."""
    seen = set()
    for path in paths:
        if str(path) == "-":
            report("-: reading standard input is not supported: give a file or folder")
            continue
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            report(
                f"{path}: no such file or folder"
                + (" (a broken link)" if path.is_symlink() else "")
            )
            continue
        except OSError as error:
            report(f"{path}: cannot read: {error}")
            continue
        if stat.S_ISDIR(mode):
            found = sorted(_walk(path, report))
        elif stat.S_ISREG(mode):
            found = [path]
        else:
            report(f"{path}: not a regular file or folder")
            continue
        for item in found:
            key = os.path.realpath(item)
            if key not in seen:
                seen.add(key)
                yield item


def _walk(folder: Path, report: ReportFn) -> Iterator[Path]:
    def cannot_list(error: OSError) -> None:
        report(f"{error.filename}: cannot read folder: {error.strerror}")

    for root, dirs, names in os.walk(folder, onerror=cannot_list):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS]
        for name in names:
            path = Path(root) / name
            if not name.endswith(".py"):
                continue
            if path.is_file():
                yield path
            else:
                report(f"{path}: not a regular file (or a broken link)")


_NAMES: Dict[Tuple[str, str], bool] = {}


def _module_texts(files: Sequence[Path]) -> Iterator[Tuple[str, str]]:
    """``(module name, text)`` of each readable file (a package's ``__init__.py`` by its folder's
    name): what ``run_coroutines`` reads. One it cannot read is left to its own port."""
    for path in files:
        try:
            text = read_source(path)[2]
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            continue
        yield (path.parent.name if path.name == "__init__.py" else path.stem), text


def claude_sync_has(module: str, name: str) -> bool:
    """Whether the claude_sync module ``module`` has ``name`` (an attribute or a submodule)."""
    key = (module, name)
    if key not in _NAMES:
        try:
            loaded = importlib.import_module(module)
            _NAMES[key] = (
                hasattr(loaded, name) or importlib.util.find_spec(f"{module}.{name}") is not None
            )
        except ImportError:
            _NAMES[key] = False
    return _NAMES[key]
