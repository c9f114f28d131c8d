"""Reading a Python file's text as the interpreter would, and replacing a file atomically.

* ``read_source(path)``: the bytes, their encoding (coding cookie or byte-order mark, as
  ``tokenize.detect_encoding`` finds it; UTF-8 otherwise) and the decoded text.
* ``replace_file(path, data)``: the new bytes go to a temporary file beside the file (same
  folder, so the same file system), which gets the file's mode (and owner and group, where
  the process may set them), is flushed to disk, then renamed over the file; the folder is
  flushed too. A failure at any step (disk full, file-size limit, a read-only folder) removes
  the temporary file and leaves the file byte for byte as it was. A symbolic link is followed:
  its target is replaced and the link stays. A file with other hard links is replaced under
  this name only (the other names keep the old text; ``Replaced.other_links`` says how many).

The caller's thread does all of it; every failure is an ``OSError`` (see ``replace_file``).
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Tuple

__all__ = ["Replaced", "read_source", "replace_file"]

TEMP_SUFFIX = ".port-tmp"
"""Ends the name of the temporary file ``replace_file`` writes (``.<name>.<random>.port-tmp``)."""


def read_source(path: Path) -> Tuple[bytes, str, str]:
    """``(raw bytes, encoding, text)`` of a Python file. Raises ``OSError`` (unreadable),
    ``SyntaxError`` (a bad coding cookie or byte-order mark), ``LookupError`` (an unknown
    encoding) or ``UnicodeDecodeError`` (bytes that are not in the encoding)."""
    raw = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw, encoding, raw.decode(encoding)


@dataclass(frozen=True)
class Replaced:
    """What ``replace_file`` did.

    Attributes:
        target: The file replaced (the link's target when the path was a symbolic link).
        other_links: Hard links the file had besides this name; they keep the old text.
        owner_kept: False when the file belonged to another user or group and this process
            could not give the new file the same owner (it then belongs to this process).
    """

    target: Path
    other_links: int
    owner_kept: bool


def replace_file(path: Path, data: bytes) -> Replaced:
    """Replace the contents of ``path`` with ``data`` atomically (see the module docstring).

    Raises ``OSError`` when the file cannot be examined, the temporary file cannot be made or
    written (``ENOSPC``, ``EFBIG``, ``EACCES`` …) or the rename fails; the file is then as it
    was and no temporary file is left.
    """
    target = Path(os.path.realpath(path))
    before = os.stat(target)
    if not stat.S_ISREG(before.st_mode):
        raise IsADirectoryError(f"{target} is not a regular file")
    handle, temp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=str(target.parent)
    )
    try:
        with os.fdopen(handle, "wb") as temp:
            owner_kept = _copy_owner(temp.fileno(), before)
            os.chmod(temp_name, stat.S_IMODE(before.st_mode))
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    _sync_folder(target.parent)
    return Replaced(target, before.st_nlink - 1, owner_kept)


def _copy_owner(fd: int, before: os.stat_result) -> bool:
    current = os.fstat(fd)
    if (current.st_uid, current.st_gid) == (before.st_uid, before.st_gid) or not hasattr(
        os, "fchown"
    ):
        return True  # (no owners to set on Windows)
    try:
        os.fchown(fd, before.st_uid, before.st_gid)
    except PermissionError:
        try:  # the group alone, when this user is in it
            os.fchown(fd, -1, before.st_gid)
        except PermissionError:
            pass
        return False
    return True


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk (POSIX; a folder cannot be opened on Windows)."""
    try:
        fd = os.open(str(folder), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename itself is done
    finally:
        os.close(fd)
