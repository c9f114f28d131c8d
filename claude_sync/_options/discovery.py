"""Where the ``claude`` binary is: ``find_cli`` and the places it looks (pure lookups).

``find_cli`` locates the binary through lookups the caller may replace (``which``,
``is_file``, ``home``, ``find_spec``, ``pinned``), so tests can fake them; it starts nothing.

The last place it looks is the pinned CLI claude_sync's own installer puts in a cache
(``bash .ci/install_cli.sh``, which ``scripts/try.sh`` runs): ``pinned_cli`` takes it only when
it has the known layout of that version and nobody but its owner (you, or root) can change it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Union

from .._wire.errors import CLINotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

__all__ = ["CLI_INSTALL_HINT", "PINNED_CLI_VERSION", "cli_candidates", "find_cli", "pinned_cli", "pinned_cli_path"]

PINNED_CLI_VERSION = "2.1.197"
"""The Claude Code CLI version this release pins: what its installer (``.ci/install_cli.sh``)
installs and what the end-to-end tests drive."""

CLI_INSTALL_HINT = (
    f"Install the CLI version claude_sync pins ({PINNED_CLI_VERSION}), found from then on, "
    "from a claude_sync checkout:\n"
    "  bash .ci/install_cli.sh\n"
    "(into ~/.cache/claude_sync/cli; needs node and npm), or the newest with:\n"
    "  npm install -g @anthropic-ai/claude-code\n"
    "If it is installed but not on PATH, add its folder, e.g.:\n"
    '  export PATH="$HOME/node_modules/.bin:$PATH"\n'
    "or name the binary explicitly:\n"
    "  ClaudeAgentOptions(cli_path='/path/to/claude')"
)


def cli_candidates(home: Optional[Path]) -> List[Path]:
    """Where npm, yarn and the native installer usually put ``claude``, in search order."""
    from pathlib import Path  # looked up past PATH only: a short process with claude on PATH skips pathlib

    candidates = [Path("/usr/local/bin/claude")]
    if home is not None:
        candidates = [
            home / ".npm-global/bin/claude",
            Path("/usr/local/bin/claude"),
            home / ".local/bin/claude",
            home / "node_modules/.bin/claude",
            home / ".yarn/bin/claude",
            home / ".claude/local/claude",
        ]
    candidates.append(Path("/opt/homebrew/bin/claude"))
    return candidates


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that answers False instead of raising (e.g. an unreadable folder)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _default_home() -> Optional[Path]:
    from pathlib import Path

    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry
        return None


def _bundled_cli(find_spec: Callable[[str], Any], is_file: Callable[[Path], bool]) -> Optional[str]:
    """The binary shipped in an installed ``claude_agent_sdk`` wheel, found without importing
    the package (``find_spec`` of a top-level name runs none of its code)."""
    try:
        spec = find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        return None
    locations = getattr(spec, "submodule_search_locations", None) or []
    for location in locations:
        from pathlib import Path  # an installed claude_agent_sdk only

        for name in ("claude", "claude.exe"):
            path = Path(location) / "_bundled" / name
            if is_file(path):
                return str(path)
    return None


def pinned_cli_path(home: Optional[Path], version: str = PINNED_CLI_VERSION) -> Optional[Path]:
    """Where ``.ci/install_cli.sh`` puts ``version``: ``$CLAUDE_SYNC_CLI_CACHE`` (default
    ``<home>/.cache/claude_sync/cli``) ``/<version>/node_modules/.bin/claude``; None without
    either."""
    from pathlib import Path

    cache = os.environ.get("CLAUDE_SYNC_CLI_CACHE")
    if not cache and home is None:
        return None
    root = Path(cache) if cache else Path(home or "") / ".cache" / "claude_sync" / "cli"
    return root / version / "node_modules" / ".bin" / "claude"


def _safe_owner(info: os.stat_result) -> bool:
    """Owned by us or root, and writable by nobody else (a sticky folder such as /tmp, owned
    by root, only lets each user replace their own entries: allowed as an ancestor)."""
    if info.st_uid not in (os.geteuid(), 0):
        return False
    others_write = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return not others_write or (stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_ISVTX) and info.st_uid == 0)


def _why_unsafe(path: Path) -> Optional[str]:
    """Why ``path`` (and every folder above it up to ``/``) is not safe to run, or None."""
    for item in [path, *path.parents]:
        try:
            info = item.lstat()
        except OSError as exc:
            return f"{item}: {exc.strerror or exc}"
        if not _safe_owner(info):
            return f"{item} can be changed by a user other than you or root"
    return None


def pinned_cli(home: Optional[Path], version: str = PINNED_CLI_VERSION) -> Optional[str]:
    """The pinned CLI from claude_sync's installer cache, or None when it is absent or unsafe.

    Taken only when all of this holds: ``pinned_cli_path(home, version)`` is a link or file
    whose target lies inside ``<cache>/<version>/node_modules/@anthropic-ai/claude-code/`` (the
    layout npm gives that package), that package's ``package.json`` says ``"version":
    "<version>"``, and the target and every folder above it, the cache included, are owned by
    you or root and writable by no one else (no other user can swap the binary). POSIX only;
    never raises (an unreadable file is a None).
    """
    from pathlib import Path

    link = pinned_cli_path(home, version)
    if link is None or os.name != "posix":
        return None
    package = link.parents[1] / "@anthropic-ai" / "claude-code"
    try:
        target = Path(os.path.realpath(link))
        real_package = Path(os.path.realpath(package))
        if real_package not in target.parents or not target.is_file():
            return None
        with open(real_package / "package.json", encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(manifest, dict) or manifest.get("version") != version:
        return None
    if _why_unsafe(target) is not None or _why_unsafe(link.parent) is not None:
        return None
    return str(link)


def find_cli(
    cli_path: Optional[Union[str, os.PathLike[str]]] = None,
    *,
    which: Callable[[str], Optional[str]] = shutil.which,
    is_file: Callable[[Path], bool] = _is_file,
    home: Union[Optional[Path], Callable[[], Optional[Path]]] = _default_home,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
    pinned: Callable[[Optional[Path]], Optional[str]] = pinned_cli,
) -> str:
    """Path of the ``claude`` binary to run.

    Order, as the official SDK's: ``cli_path`` if given (a file; a bare name is also looked up
    on ``PATH``); then the binary bundled in an installed ``claude_agent_sdk`` wheel (so a
    machine with both runs the CLI version that wheel was released with); then ``claude`` on
    ``PATH``; then the usual install folders (``cli_candidates``); last, the pinned CLI that
    claude_sync's own installer cached (``pinned_cli``: only when its layout is the known one
    and no other user can change it). The lookups are parameters so tests can fake them.

    Raises ``CLINotFoundError``: naming ``cli_path`` when it was given and does not exist,
    else with install instructions.
    """
    if cli_path is not None:
        return _explicit_cli(os.fspath(cli_path), which, is_file)
    bundled = _bundled_cli(find_spec, is_file)
    if bundled is not None:
        return bundled
    found = which("claude")
    if found:
        return found
    home_dir = home() if callable(home) else home
    for candidate in cli_candidates(home_dir):
        if is_file(candidate):
            return str(candidate)
    cached = pinned(home_dir)
    if cached is not None:
        return cached
    raise CLINotFoundError(f"Claude Code CLI not found. {CLI_INSTALL_HINT}")


def _explicit_cli(
    path: str, which: Callable[[str], Optional[str]], is_file: Callable[[Path], bool]
) -> str:
    from pathlib import Path

    if is_file(Path(path)):
        return path
    if os.sep not in path and (os.altsep is None or os.altsep not in path):
        found = which(path)
        if found:
            return found
    raise CLINotFoundError(f"Claude Code CLI not found at cli_path={path!r}", cli_path=path)
