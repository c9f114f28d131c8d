"""What the CLI must read from us besides argv and stdin — ``--mcp-config`` and ``--settings``
content, a config dir to resume a stored session from (with ``.credentials.json``) — and how
none of it outlives its CLI.

They may hold secrets (MCP headers, env of MCP servers, the login), so:

- **By fd, never on disk** (``memory_file``): on Linux the ``--mcp-config`` JSON goes into an
  anonymous memory file (``memfd_create``) that the CLI inherits and reads as ``/dev/fd/N``.
  Our copy of the fd is closed as soon as the CLI is spawned, so the content lives exactly
  as long as the CLI (and any process the CLI leaves holding the fd). Measured on CLI 2.1.197
  and 2.1.331: both read ``--mcp-config /dev/fd/N`` (and a JSON text, which would be visible
  in ``ps``); ``--settings /dev/fd/N`` works on 2.1.331 only (2.1.197 resolves the path to
  ``/memfd:… (deleted)`` and refuses it), so settings stay a file.
- **Files and directories** (``make_private_file``, ``make_private_dir``) live in one private
  directory per process, ``<tmp>/claude_sync-<pid>-<start>-<random>`` (``0700``; files
  ``0600``), created on first use and removed when its last entry goes. They are removed when
  their session closes, and an ``atexit`` hook removes whatever is left when the interpreter
  exits. A process killed by a signal runs no ``atexit`` hook: the first use of this module in
  any later process (same user, same temp dir) sweeps every such directory whose owner is
  gone. *Gone* is not judged by the PID in the name — a host in another PID namespace sharing
  the temp dir (containers sharing ``/tmp``) sees another process, or none, under that PID —
  but by a lock: the owner holds an exclusive ``flock`` on ``<dir>/.owner.lock`` for as long
  as the directory is its own (the kernel drops it when the process ends, however it ends),
  and the sweep removes only a directory whose lock it can take, holding it while it removes.
  The lock file is put in place already locked (made under a temporary name, locked, then
  renamed), so a directory without one is being made or is not of this layout, and is left
  alone. The fd is close-on-exec (a CLI does not inherit it) and a forked child closes its
  copy (``os.register_at_fork``), so only the owner holds the lock. Where there is no
  ``fcntl`` (Windows) nothing is swept.
What remains possible: after ``kill -9`` of the host, a resume dir (credentials without the
refresh token) or a settings file stays on disk, readable by the same user only, until the
next claude_sync process of that user sweeps it or the temp dir is cleaned; a memory file
stays in memory while a process the CLI started (a Bash tool's background job) holds the fd;
anything that runs as the same user can read these while they exist, as it can read
``~/.claude/.credentials.json`` itself. Temp files of claude_sync versions before this layout
(``claude_sync-*.json``, ``claude_sync-resume-*`` directly in the temp dir) are not swept.

Any thread may call these functions.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from typing import Any, Dict, List, Optional, Set, Tuple

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment,unused-ignore]

__all__ = [
    "LOCK_NAME", "make_private_dir", "make_private_file", "memory_file", "process_start_time",
    "remove_all_private_files", "remove_private_dir", "remove_private_file", "remove_private_files", "sweep_orphans",
]  # fmt: skip

_OWNED = re.compile(r"^claude_sync-(\d+)-(\d+)-[A-Za-z0-9_]+$")
"""The name of a per-process directory: ``claude_sync-<pid>-<start time>-<random>`` (for
people reading ``ls``; ownership is the lock)."""
LOCK_NAME = ".owner.lock"
"""The file in a per-process directory whose ``flock`` the owner holds for its lifetime."""

_registry: Dict[str, int] = {}  # path -> the pid that made it (a forked child leaves its parent's alone)
_lock = threading.Lock()
_state: Dict[str, Any] = {"dir": None, "owner": None, "lock_fd": None}  # this process's directory
_swept: Set[Tuple[int, str]] = set()  # (pid, temp dir) already swept: once per process


def process_start_time(pid: int) -> Optional[int]:
    """When ``pid`` started (clock ticks after boot, ``/proc/<pid>/stat`` field 22), or None
    when it does not run or the system has no ``/proc``. Only names directories."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    try:
        return int(stat.rsplit(b")", 1)[1].split()[19])  # the name in (…) may hold spaces
    except (IndexError, ValueError):
        return None


def _owner_tag() -> str:
    pid = os.getpid()
    return f"{pid}-{process_start_time(pid) or 0}"


def _remove_if_ownerless(path: str) -> bool:
    """Remove the per-process directory ``path`` if its owner's lock can be taken (the owner
    is gone), holding the lock while removing; True if removed. A directory without a lock
    file is left alone."""
    assert fcntl is not None
    try:
        fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # no lock file (being made, another layout), or not ours to open
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: the owner lives (in whatever PID namespace)
            return False
        shutil.rmtree(path, ignore_errors=True)
        return not os.path.lexists(path)
    finally:
        os.close(fd)


def sweep_orphans(directory: Optional[str] = None) -> List[str]:
    """Remove the per-process directories in ``directory`` (default: the temp dir) that
    belong to us (same uid) and whose owner is gone (its lock can be taken); the paths
    removed. Nothing where there is no ``fcntl``. Never raises."""
    directory = directory or tempfile.gettempdir()
    mine = _state["dir"]
    removed: List[str] = []
    if fcntl is None:  # pragma: no cover - Windows
        return removed
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        path = os.path.join(directory, name)
        if _OWNED.match(name) is None or path == mine:
            continue
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not os.path.isdir(path) or os.path.islink(path) or (uid is not None and info.st_uid != uid):
            continue
        if _remove_if_ownerless(path):
            removed.append(path)
    return removed


def _private_dir() -> str:
    """This process's directory, made (and the temp dir swept once) on first use. Call with
    ``_lock`` held. Raises ``OSError`` if the temp directory is not writable."""
    owner = _owner_tag()
    current = _state["dir"]
    if current is not None and _state["owner"] == owner and os.path.isdir(current):
        return str(current)
    parent = tempfile.gettempdir()
    if (os.getpid(), parent) not in _swept:
        _swept.add((os.getpid(), parent))
        sweep_orphans(parent)
    _release_dir_lock()
    current = tempfile.mkdtemp(prefix=f"claude_sync-{owner}-", dir=parent)
    if fcntl is not None:
        _state["lock_fd"] = _lock_new_dir(current)
    _state["dir"], _state["owner"] = current, owner
    return current


def _lock_new_dir(path: str) -> int:
    """Make ``path``'s lock file already locked (locked under a temporary name, then renamed
    into place, so no sweeper ever sees it unlocked); the fd (close-on-exec), held for as long
    as the directory is ours. Raises ``OSError``."""
    assert fcntl is not None
    fd, staging = tempfile.mkstemp(prefix=".lock-", dir=path)  # not inheritable (PEP 446)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(staging, os.path.join(path, LOCK_NAME))
    except BaseException:
        os.close(fd)
        shutil.rmtree(path, ignore_errors=True)
        raise
    return fd


def _release_dir_lock() -> None:
    fd, _state["lock_fd"] = _state["lock_fd"], None
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def _drop_dir_if_empty() -> None:
    """Remove this process's directory once nothing registered is left in it and it holds
    nothing but its lock file (``_lock`` held). The lock file goes first (a sweeper then
    leaves the directory alone), the lock is released last."""
    current = _state["dir"]
    if current is None or any(path.startswith(current + os.sep) for path in _registry):
        return
    try:
        left = os.listdir(current)
    except OSError:
        left = []
    if [name for name in left if name != LOCK_NAME]:
        return  # something else put a file there: the directory stays ours (and locked) until exit
    try:
        os.unlink(os.path.join(current, LOCK_NAME))
    except OSError:
        pass
    try:
        os.rmdir(current)
    except OSError:
        pass
    _release_dir_lock()
    _state["dir"] = None


def make_private_file(content: str, suffix: str) -> str:
    """Write ``content`` to a new ``*<suffix>`` file readable by us only; its path.

    Raises ``OSError`` if the temp directory is not writable."""
    with _lock:
        fd, path = tempfile.mkstemp(prefix="arg-", suffix=suffix, dir=_private_dir())
        _registry[path] = os.getpid()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(content)
    return path


def remove_private_file(path: str) -> None:
    """Delete one file made by ``make_private_file`` (idempotent; never raises)."""
    with _lock:
        _registry.pop(path, None)
        try:
            os.unlink(path)
        except OSError:
            pass
        _drop_dir_if_empty()


def remove_private_files(paths: List[str]) -> None:
    """Delete the files of ``paths`` (made by ``make_private_file``), last first, emptying the
    list as it goes: a call cut short by Ctrl-C is resumed by the next one. Never raises."""
    while paths:
        remove_private_file(paths[-1])
        paths.pop()


def make_private_dir(prefix: str) -> str:
    """Make a new ``<prefix>*`` directory usable by us only; its path. Remove it with
    ``remove_private_dir`` (or it goes at interpreter exit).

    Raises ``OSError`` if the temp directory is not writable."""
    with _lock:
        path = tempfile.mkdtemp(prefix=prefix, dir=_private_dir())
        _registry[path] = os.getpid()
    return path


def remove_private_dir(path: str) -> None:
    """Delete one directory made by ``make_private_dir`` and all it holds (idempotent; never
    raises)."""
    with _lock:
        _registry.pop(path, None)
        shutil.rmtree(path, ignore_errors=True)
        _drop_dir_if_empty()


def memory_file(content: str) -> Optional[int]:
    """A close-on-exec fd of an anonymous memory file holding ``content`` (UTF-8), for a child
    to inherit (``pass_fds``) and read as ``/dev/fd/N``; None where there is no
    ``memfd_create`` (not Linux). The caller closes the fd once the child is spawned.

    Raises ``OSError`` when the kernel refuses the memory file."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    fd: int = create("claude_sync", getattr(os, "MFD_CLOEXEC", 1))
    try:
        data = content.encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def remove_all_private_files() -> None:
    """Delete every file and directory this process made that is still registered, and this
    process's directory (the ``atexit`` hook)."""
    with _lock:
        paths = [path for path, pid in _registry.items() if pid == os.getpid()]
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            remove_private_dir(path)
        else:
            remove_private_file(path)
    with _lock:
        _drop_dir_if_empty()


atexit.register(remove_all_private_files)


def _after_fork_in_child() -> None:
    """In a forked child: a fresh lock (a parent thread may have held it at the fork), and
    no directory yet — the child closes its copy of the parent's lock fd (the parent keeps
    holding the lock; a child that outlives it must not keep the parent's directory alive)
    and makes its own. The parent's entries in ``_registry`` carry the parent's pid and are
    left alone."""
    global _lock
    _lock = threading.Lock()
    _release_dir_lock()
    _state["dir"], _state["owner"] = None, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
