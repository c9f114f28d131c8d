"""Which ``claude`` the command line would run, why that one, and its version (I/O: runs
``claude --version``).

``locate(cli_path)`` repeats the library's search (``find_cli``) and says which rule picked
the binary: ``--cli-path``, the official ``claude-agent-sdk`` wheel's bundled CLI, ``claude``
on ``PATH``, one of the usual install folders, or the pinned CLI claude_sync's installer cached. ``cli_version(path, timeout)`` runs
``<path> --version`` (bounded) and returns its first line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from .._options.discovery import PINNED_CLI_VERSION, find_cli, pinned_cli
from .._wire.errors import CLINotFoundError

__all__ = ["Located", "cli_version", "locate"]

VERSION_TIMEOUT = 30.0


@dataclass(frozen=True)
class Located:
    """The outcome of the search: ``path`` (None when nothing was found), ``why`` (the rule
    that picked it, or why nothing was found)."""

    path: Optional[str]
    why: str


def _bundled_only(path: Path) -> bool:
    return path.parent.name == "_bundled" and path.is_file()


def _home() -> Optional[Path]:
    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):
        return None


def locate(cli_path: Optional[str]) -> Located:
    """The ``claude`` that a run with ``--cli-path cli_path`` (None: not given) would start."""
    try:
        path = find_cli(cli_path)
    except CLINotFoundError as exc:
        if cli_path is not None:
            return Located(None, f"--cli-path {cli_path!r} is not a file, nor a command on PATH")
        return Located(None, str(exc).split(".", 1)[0] + " (not in an installed claude-agent-sdk, on PATH, "
                       "nor in the usual install folders, nor a safe pinned "
                       f"{PINNED_CLI_VERSION} in claude_sync's cache)")
    if cli_path is not None:
        return Located(path, "named by --cli-path")
    try:
        bundled: Optional[str] = find_cli(which=lambda name: None, home=None, is_file=_bundled_only,
                                          pinned=lambda home: None)
    except CLINotFoundError:
        bundled = None
    if bundled == path:
        return Located(path, "the CLI bundled in the installed claude-agent-sdk wheel (it comes before PATH)")
    if shutil.which("claude") == path:
        return Located(path, "the first claude on PATH")
    if pinned_cli(_home()) == path:
        return Located(path, f"the pinned CLI {PINNED_CLI_VERSION} that claude_sync's installer cached; owned by "
                       "you or root, writable by no one else; not on PATH")
    return Located(path, "a usual install folder (claude is not on PATH)")


def cli_version(path: str, timeout: float = VERSION_TIMEOUT) -> Tuple[Optional[str], str]:
    """``(first line of <path> --version, "")``, or ``(None, why it failed)``. Bounded by
    ``timeout``; the process is killed (by its PID, through ``subprocess.run``) if it overruns."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        return None, f"`{path} --version` did not answer within {timeout:g} s"
    except OSError as exc:
        return None, f"`{path} --version` could not run: {exc.strerror or exc}"
    out = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not out:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"`{path} --version` exited with status {done.returncode}" + (f": {err[-1]}" if err else "")
    return out.splitlines()[0], ""

