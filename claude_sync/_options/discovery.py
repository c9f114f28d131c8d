"""Where the ``claude`` binary is: ``find_cli`` and the places it looks (pure lookups).

``find_cli`` locates the binary through lookups the caller may replace (``which``,
``is_file``, ``home``, ``find_spec``), so tests can fake them; it starts nothing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Any, Callable, List, Optional, Union

from .._wire.errors import CLINotFoundError

__all__ = ["CLI_INSTALL_HINT", "cli_candidates", "find_cli"]

CLI_INSTALL_HINT = (
    "Install it with:\n"
    "  npm install -g @anthropic-ai/claude-code\n"
    "If it is installed but not on PATH, add its folder, e.g.:\n"
    '  export PATH="$HOME/node_modules/.bin:$PATH"\n'
    "or name the binary explicitly:\n"
    "  ClaudeAgentOptions(cli_path='/path/to/claude')"
)


def cli_candidates(home: Optional[Path]) -> List[Path]:
    """Where npm, yarn and the native installer usually put ``claude``, in search order."""
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
        for name in ("claude", "claude.exe"):
            path = Path(location) / "_bundled" / name
            if is_file(path):
                return str(path)
    return None


def find_cli(
    cli_path: Optional[Union[str, os.PathLike[str]]] = None,
    *,
    which: Callable[[str], Optional[str]] = shutil.which,
    is_file: Callable[[Path], bool] = _is_file,
    home: Union[Optional[Path], Callable[[], Optional[Path]]] = _default_home,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
) -> str:
    """Path of the ``claude`` binary to run.

    Order, as the official SDK's: ``cli_path`` if given (a file; a bare name is also looked up
    on ``PATH``); then the binary bundled in an installed ``claude_agent_sdk`` wheel (so a
    machine with both runs the CLI version that wheel was released with); then ``claude`` on
    ``PATH``; then the usual install folders (``cli_candidates``). The lookups are parameters
    so tests can fake them.

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
    raise CLINotFoundError(f"Claude Code CLI not found. {CLI_INSTALL_HINT}")


def _explicit_cli(
    path: str, which: Callable[[str], Optional[str]], is_file: Callable[[Path], bool]
) -> str:
    if is_file(Path(path)):
        return path
    if os.sep not in path and (os.altsep is None or os.altsep not in path):
        found = which(path)
        if found:
            return found
    raise CLINotFoundError(f"Claude Code CLI not found at cli_path={path!r}", cli_path=path)
