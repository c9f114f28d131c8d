"""The session functions that change transcripts: rename, tag, delete, fork (caller's thread).

Writes never leave a partial transcript. A fork is written to a temp file in the same folder,
fsynced and renamed into place. Rename and tag append one short line with a single
``O_APPEND`` write, which is atomic with respect to the CLI appending to the same file (so
they are safe while the session runs; rewriting the file instead would lose lines the CLI
appends meanwhile); a file whose last line is unterminated gets a newline first. Where the
files are and how sessions are found: ``transcripts``.
"""

from __future__ import annotations

import errno
import os
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Optional

from .fork import custom_title_entry, fork_entries, fork_source, source_title, tag_entry
from .transcript import HEAD_TAIL_BYTES, json_line, require_uuid
from .transcript_files import candidate_dirs, locate, logger, not_found
from .transcript_messages import parse_entries
from .types import ForkSessionResult

__all__ = ["delete_session", "fork_session", "rename_session", "tag_session"]


def append_line(path: Path, entry: Dict[str, Any]) -> bool:
    """Append one JSON line with a single ``O_APPEND`` write. False if the file is missing
    or empty (not this folder's session); other OS errors propagate."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return False
        raise
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return False
        line = json_line(entry) + "\n"
        if os.pread(fd, 1, size - 1) != b"\n":
            line = "\n" + line  # never glue our line onto a cut-off one
        data = line.encode("utf-8")
        if os.write(fd, data) != len(data):
            raise OSError(errno.EIO, f"short write appending to {path}")
        return True
    finally:
        os.close(fd)


def _append_to_session(session_id: str, entry: Dict[str, Any], directory: Optional[str]) -> None:
    name = f"{session_id}.jsonl"
    for folder, _ in candidate_dirs(directory):
        if append_line(folder / name, entry):
            return
    raise not_found(session_id, directory)


def rename_session(session_id: str, title: str, directory: Optional[str] = None) -> None:
    """Give a session a title (a ``custom-title`` line; the last one wins).

    Raises ``ValueError`` (not a UUID, blank title), ``FileNotFoundError``."""
    require_uuid(session_id)
    _append_to_session(session_id, custom_title_entry(session_id, title), directory)


def tag_session(session_id: str, tag: Optional[str], directory: Optional[str] = None) -> None:
    """Tag a session (``None`` clears the tag). Raises ``ValueError``, ``FileNotFoundError``."""
    require_uuid(session_id)
    _append_to_session(session_id, tag_entry(session_id, tag), directory)


def delete_session(session_id: str, directory: Optional[str] = None) -> None:
    """Delete a session's transcript and its subagent folder. Raises ``ValueError``,
    ``FileNotFoundError``."""
    found = locate(session_id, directory)
    if found is None:
        raise not_found(session_id, directory)
    try:
        found[0].unlink()
    except FileNotFoundError:
        raise not_found(session_id, directory) from None
    shutil.rmtree(found[0].with_suffix(""), ignore_errors=True)


def write_new_file(path: Path, text: str) -> None:
    """Create ``path`` with ``text`` via a temp file in the same folder and a rename, so no
    reader ever sees it half written. Raises ``FileExistsError`` if ``path`` exists."""
    if path.exists():
        raise FileExistsError(f"{path} already exists")
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fork_session(
    session_id: str, directory: Optional[str] = None, up_to_message_id: Optional[str] = None, title: Optional[str] = None
) -> ForkSessionResult:
    """Copy a session (up to ``up_to_message_id``, inclusive) into a new one with fresh ids.

    Raises ``ValueError`` (ids not UUIDs, nothing to fork, message not found),
    ``FileNotFoundError``."""
    require_uuid(session_id)
    if up_to_message_id:
        require_uuid(up_to_message_id, "up_to_message_id")
    found = locate(session_id, directory)
    if found is None:
        raise not_found(session_id, directory)
    raw = found[0].read_bytes()
    entries, corrupt = parse_entries(raw.decode("utf-8", "replace"))
    if corrupt:
        logger.warning("Skipped %d corrupt line(s) in %s", corrupt, found[0])
    messages, replacements = fork_source(entries, session_id)

    def derive() -> Optional[str]:
        return source_title(raw[:HEAD_TAIL_BYTES].decode("utf-8", "replace"), raw[-HEAD_TAIL_BYTES:].decode("utf-8", "replace"))

    fork_id, lines = fork_entries(
        messages, replacements, session_id,
        up_to_message_id=up_to_message_id, title=title, derive_title=derive,
        new_id=lambda: str(uuid.uuid4()), now=now_iso(),
    )  # fmt: skip
    text = "".join(json_line(e) + "\n" for e in lines)
    write_new_file(found[0].parent / f"{fork_id}.jsonl", text)
    return ForkSessionResult(session_id=fork_id)
