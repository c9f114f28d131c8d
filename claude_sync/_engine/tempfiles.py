"""Private temp files handed to the CLI (``--mcp-config``, ``--settings``), private temp
directories (a resume from a session store: a config dir with ``.credentials.json``), and
their removal.

They may hold secrets (MCP headers, env of MCP servers, the login), so files are created
``0600`` by ``tempfile.mkstemp`` and directories ``0700`` by ``tempfile.mkdtemp``; they are
removed when their session closes. Every file or directory made here is also in a registry
until removed; an ``atexit`` hook removes whatever is left when the interpreter
exits, so a client that was never closed, or whose close was cut short (a second Ctrl-C, an
exception), leaves nothing behind. (A process killed by a signal runs no ``atexit`` hook.)

Any thread may call these functions.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from typing import Set

__all__ = [
    "make_private_dir", "make_private_file", "remove_all_private_files", "remove_private_dir", "remove_private_file",
]

_registry: Set[str] = set()
_lock = threading.Lock()


def make_private_file(content: str, suffix: str) -> str:
    """Write ``content`` to a new ``claude_sync-*<suffix>`` file readable by us only; its path.

    Raises ``OSError`` if the temp directory is not writable."""
    fd, path = tempfile.mkstemp(prefix="claude_sync-", suffix=suffix)
    with _lock:
        _registry.add(path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(content)
    return path


def remove_private_file(path: str) -> None:
    """Delete one file made by ``make_private_file`` (idempotent; never raises)."""
    with _lock:
        _registry.discard(path)
    try:
        os.unlink(path)
    except OSError:
        pass


def make_private_dir(prefix: str) -> str:
    """Make a new ``<prefix>*`` directory usable by us only; its path. Remove it with
    ``remove_private_dir`` (or it goes at interpreter exit).

    Raises ``OSError`` if the temp directory is not writable."""
    path = tempfile.mkdtemp(prefix=prefix)
    with _lock:
        _registry.add(path)
    return path


def remove_private_dir(path: str) -> None:
    """Delete one directory made by ``make_private_dir`` and all it holds (idempotent; never
    raises)."""
    with _lock:
        _registry.discard(path)
    shutil.rmtree(path, ignore_errors=True)


def remove_all_private_files() -> None:
    """Delete every file and directory still registered (the ``atexit`` hook)."""
    with _lock:
        paths = list(_registry)
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            remove_private_dir(path)
        else:
            remove_private_file(path)


atexit.register(remove_all_private_files)
