"""The command line: ``python -m claude_sync.port [--check | --diff] [-v] PATH…``.

Ports each ``.py`` file named (folders: every ``.py`` file under them) in place, printing each
flag as ``path:line:column: message`` on stderr with a summary at the end.

* ``--diff``: print a unified diff on stdout instead of writing.
* ``--check``: write nothing; fail while a file still needs porting or a flag remains.
* A file that cannot be read or parsed is reported and never written.

Exit status: 2 when a file could not be read, parsed, ported or written; else 1 when a flag remains
(or, with ``--check``, a file would change); else 0. The file's encoding, byte-order mark and
line endings are kept.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import io
import os
import sys
import tokenize
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence, TextIO, Tuple

from .engine import PortBug, PortResult, UnparsableSource, port_source

__all__ = ["claude_sync_has", "iter_python_files", "main"]

SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


def main(argv: Optional[Sequence[str]] = None, stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    args = _parser().parse_args(argv)
    failed = flagged = would_change = changed = files = 0
    for path in iter_python_files([Path(p) for p in args.paths], err):
        files += 1
        outcome = _port_file(path, args, out, err)
        if outcome is None:
            failed += 1
            continue
        result, wrote = outcome
        flagged += len(result.flags)
        would_change += result.changed
        changed += wrote
    err.write(_summary(args, files, changed, would_change, flagged, failed))
    if failed:
        return 2
    if flagged or (args.check and would_change):
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m claude_sync.port",
        description=(
            "Port code written for claude_agent_sdk / claude_code_sdk (async) to claude_sync "
            "(sync, threads): rewrite what is mechanical, flag the rest with its sync equivalent."
        ),
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 while a file needs porting or a flag remains")
    mode.add_argument("--diff", action="store_true", help="print a unified diff instead of writing")
    parser.add_argument("-v", "--verbose", action="store_true", help="also list every rewrite made")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .py file, or a folder to port every .py file under")
    return parser


def iter_python_files(paths: Sequence[Path], err: TextIO) -> Iterator[Path]:
    """The files named, and the ``.py`` files under the folders named (hidden folders,
    ``__pycache__`` and the like skipped), each once, in order."""
    seen = set()
    for path in paths:
        if path.is_dir():
            found = sorted(_walk(path))
        elif path.exists():
            found = [path]
        else:
            err.write(f"{path}: no such file or folder\n")
            found = []
        for item in found:
            if item.resolve() not in seen:
                seen.add(item.resolve())
                yield item


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS]
        for name in names:
            if name.endswith(".py"):
                yield Path(root) / name


def _port_file(path: Path, args: argparse.Namespace, out: TextIO, err: TextIO) -> Optional[Tuple[PortResult, bool]]:
    """Port one file; None when it could not be read or ported (reported on ``err``)."""
    try:
        raw = path.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as error:
        err.write(f"{path}: cannot read: {error}\n")
        return None
    try:
        result = port_source(text, filename=str(path), exists=claude_sync_has)
    except (UnparsableSource, PortBug) as error:
        err.write(f"{error} (file left unchanged)\n")
        return None
    for finding in result.flags:
        err.write(f"{path}:{finding.line}:{finding.column}: {finding.message}\n")
    if args.verbose:
        for finding in result.rewrites:
            err.write(f"{path}:{finding.line}:{finding.column}: rewrote {finding.message}\n")
    wrote = False
    if args.diff and result.changed:
        out.writelines(
            difflib.unified_diff(
                result.original.splitlines(keepends=True),
                result.text.splitlines(keepends=True),
                fromfile=str(path) if path.is_absolute() else f"a/{path}",
                tofile=str(path) if path.is_absolute() else f"b/{path}",
            )
        )
    elif args.check and result.changed:
        err.write(f"{path}: would be ported\n")
    elif result.changed and not (args.diff or args.check):
        try:
            path.write_bytes(result.text.encode(encoding))
        except (OSError, UnicodeEncodeError) as error:
            err.write(f"{path}: cannot write: {error}\n")
            return None
        wrote = True
    return result, wrote


def _summary(args: argparse.Namespace, files: int, changed: int, would_change: int, flagged: int, failed: int) -> str:
    verb = "would change" if (args.check or args.diff) else "changed"
    count = would_change if (args.check or args.diff) else changed
    parts = [f"{files} file{'s' if files != 1 else ''}, {count} {verb}"]
    parts.append(f"{flagged} place{'s' if flagged != 1 else ''} to port by hand")
    if failed:
        parts.append(f"{failed} not ported (see above)")
    return "claude_sync.port: " + ", ".join(parts) + "\n"


_NAMES: Dict[Tuple[str, str], bool] = {}


def claude_sync_has(module: str, name: str) -> bool:
    """Whether the claude_sync module ``module`` has ``name`` (an attribute or a submodule)."""
    key = (module, name)
    if key not in _NAMES:
        try:
            loaded = importlib.import_module(module)
            _NAMES[key] = hasattr(loaded, name) or importlib.util.find_spec(f"{module}.{name}") is not None
        except ImportError:
            _NAMES[key] = False
    return _NAMES[key]


