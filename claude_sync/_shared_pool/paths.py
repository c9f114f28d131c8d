"""Where the shared pool's socket lives, the checks on its directory, and the pool's lock file.

The socket path: ``$CLAUDE_SYNC_SHARED_POOL`` when it is a path (contains ``/``), else
``$XDG_RUNTIME_DIR/claude_sync/pool.sock`` when ``XDG_RUNTIME_DIR`` is set and is ours (a
directory, not a symlink, owned by our uid, no group/other bits), else
``<tempfile.gettempdir()>/claude_sync-<uid>/pool.sock``. The socket's directory is created
``0700`` by the pool (the last component only); at every use — the pool's start, every lease —
it must not be a symlink, must be owned by our uid and must have no group/other mode bits, or it
is refused (``PoolUnavailable`` naming the problem): anyone who could write there could put a
socket of their own in the pool's place.

One pool per socket: the pool holds an exclusive ``flock`` on the lock file (``LOCK_NAME``) next to the socket
for its whole life (the kernel drops it however the pool dies), with its pid written in it.

Any thread; these functions touch the file system only (no threads, no sockets).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Mapping, Optional, Tuple, Union

from .errors import PoolUnavailable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no pool
    fcntl = None  # type: ignore[assignment,unused-ignore]

__all__ = [
    "ENV_VAR", "LOCK_NAME", "SOCKET_NAME", "check_dir", "default_socket_path", "lock_path", "lock_holder",
    "prepare_dir", "resolve_socket_path", "take_lock",
]  # fmt: skip

ENV_VAR = "CLAUDE_SYNC_SHARED_POOL"
SOCKET_NAME = "pool.sock"
LOCK_NAME = "pool.lock"
MAX_PATH_BYTES = 107
"""The longest path a Unix socket address holds on Linux (``sun_path`` is 108 bytes, NUL included)."""


def _uid() -> int:
    return os.geteuid()


def default_socket_path(environ: Mapping[str, str]) -> str:
    """The socket path when none is named: under ``$XDG_RUNTIME_DIR`` when it is set and ours,
    else under the temp dir (``claude_sync-<uid>``). Never raises."""
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and _is_ours(runtime):
        return os.path.join(runtime, "claude_sync", SOCKET_NAME)
    import tempfile  # the default path only: a path given by the option or the environment needs none

    return os.path.join(tempfile.gettempdir(), f"claude_sync-{_uid()}", SOCKET_NAME)


def _is_ours(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == _uid() and not info.st_mode & 0o077


def resolve_socket_path(environ: Mapping[str, str], option: Union[None, bool, str]) -> Optional[str]:
    """The socket path leasing uses, or None when leasing is off. ``option`` (the
    ``shared_pool`` option): False → off; True → the default path; a str → that path; None →
    the environment variable ``CLAUDE_SYNC_SHARED_POOL`` decides (unset, ``""``, ``"0"`` →
    off; ``"1"`` → the default path; a value with a ``/`` → that path). Raises ``ValueError``
    for another value of the variable or an empty option string, ``TypeError`` for an option
    of another type."""
    if option is False:
        return None
    if option is True:
        return default_socket_path(environ)
    if isinstance(option, str):
        if not option:
            raise ValueError("shared_pool must be True, False, None or a socket path, not ''")
        return os.path.abspath(option)
    if option is not None:
        raise TypeError(f"shared_pool must be True, False, None or a socket path, not {type(option).__name__}")
    value = environ.get(ENV_VAR, "")
    if value in ("", "0"):
        return None
    if value == "1":
        return default_socket_path(environ)
    if "/" in value:
        return os.path.abspath(value)
    raise ValueError(f"{ENV_VAR} must be '', '0', '1' or a socket path (with a '/'), not {value!r}")


def check_dir(directory: str) -> None:
    """Refuse a socket directory someone else could write to: raises ``PoolUnavailable`` when
    it is missing, a symlink, not a directory, owned by another uid, or open to group/other."""
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        raise PoolUnavailable(f"no pool: the socket directory {directory} does not exist") from None
    except OSError as exc:
        raise PoolUnavailable(f"the socket directory {directory} cannot be read: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise PoolUnavailable(f"refused: the socket directory {directory} is a symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise PoolUnavailable(f"refused: {directory} is not a directory")
    if info.st_uid != _uid():
        raise PoolUnavailable(f"refused: the socket directory {directory} is owned by uid {info.st_uid}, not {_uid()}")
    if info.st_mode & 0o077:
        raise PoolUnavailable(
            f"refused: the socket directory {directory} is open to group/other (mode {oct(info.st_mode & 0o777)}; "
            "it must be 0700)"
        )


def prepare_dir(socket_path: str) -> str:
    """The pool's start: create the socket's directory ``0700`` when missing (its parent must
    exist), then ``check_dir`` it. Returns the directory. Raises ``PoolUnavailable`` (a refused
    directory, a path too long for a socket address)."""
    if len(os.fsencode(socket_path)) > MAX_PATH_BYTES:
        raise PoolUnavailable(f"refused: the socket path {socket_path} is longer than {MAX_PATH_BYTES} bytes")
    directory = os.path.dirname(os.path.abspath(socket_path))
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise PoolUnavailable(f"cannot create the socket directory {directory}: {exc.strerror}") from None
    check_dir(directory)
    return directory


def lock_path(socket_path: str) -> str:
    """The lock file (``LOCK_NAME``) next to the socket."""
    return os.path.join(os.path.dirname(os.path.abspath(socket_path)), LOCK_NAME)


def take_lock(socket_path: str) -> Tuple[Optional[int], Optional[int]]:
    """Take the pool's lock: ``(fd, None)`` — the fd (close-on-exec) holds it, our pid is
    written in the file — or ``(None, pid)`` when another pool holds it (its pid from the file,
    None when unreadable). Raises ``PoolUnavailable`` when the lock file cannot be opened or
    there is no ``fcntl``."""
    if fcntl is None:  # pragma: no cover
        raise PoolUnavailable("no flock on this platform: no shared pool")
    path = lock_path(socket_path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise PoolUnavailable(f"cannot open the lock file {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None, lock_holder(socket_path)
        raise PoolUnavailable(f"cannot lock {path}: {exc.strerror}") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    return fd, None


def lock_holder(socket_path: str) -> Optional[int]:
    """The pid written in the lock file, or None (no file, not a number)."""
    try:
        with open(lock_path(socket_path), "rb") as handle:
            text = handle.read(32)
        return int(text.strip() or b"x")
    except (OSError, ValueError):
        return None
