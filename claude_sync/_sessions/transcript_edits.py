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
import hashlib
import os
import shutil
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from .fork import custom_title_entry, fork_entries, fork_source, source_title, tag_entry
from .transcript import HEAD_TAIL_BYTES, json_line, require_uuid
from .transcript_files import candidate_dirs, config_dir, locate, logger, not_found
from .transcript_messages import parse_entries
from .types import ForkSessionResult

__all__ = ["delete_session", "deletion_records", "fork_session", "rename_session", "tag_session"]


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
    """Delete a session's transcript and its subagent folder, as TS 0.3.333's ``deleteSession``.

    First a record of the delete is kept (``deletion_records``: CLI 2.1.333 reads it too, and
    does not write the deleted transcript again), then the transcript goes, then the
    ``<session id>/`` folder. When that folder cannot be removed, this raises after the
    transcript is gone; a second call finds the record, removes the folder and returns (a call
    after a finished delete returns too, as TS's). Without a transcript and a record:
    ``FileNotFoundError``. Raises ``ValueError`` for an id that is not a UUID, and the
    ``OSError`` that stopped the folder's removal, saying what to do.
    """
    name = f"{require_uuid(session_id)}.jsonl"
    for folder, _ in candidate_dirs(directory):
        transcript = folder / name
        try:
            if transcript.stat().st_size == 0:
                continue
        except (FileNotFoundError, NotADirectoryError):
            continue
        keep_deletion_records(transcript)
        transcript.unlink(missing_ok=True)
        _remove_subagent_folder(folder / session_id, session_id)
        return
    finished = False
    for folder, _ in candidate_dirs(directory):
        if not deletion_records(folder / name)[0].exists():
            continue
        if not any(path.is_symlink() for path in (folder.parent, folder)):  # never through a link
            _remove_subagent_folder(folder / session_id, session_id)
            finished = True
    if not finished:
        raise not_found(session_id, directory)


def deletion_records(transcript: Path) -> Tuple[Path, Path]:
    """Where TS 0.3.333 and CLI 2.1.333 keep the record of a deleted transcript:
    ``<config>/state/deleted-transcripts/<sha256 hex>`` of ``"<project folder>/<id>.jsonl"``
    and of ``"<id>.jsonl"``, lower-cased (empty files; their mtime is the delete's time)."""
    records = config_dir() / "state" / "deleted-transcripts"
    keys = (f"{transcript.parent.name}/{transcript.name}", transcript.name)
    first, second = (records / hashlib.sha256(key.lower().encode("utf-8", "surrogateescape")).hexdigest() for key in keys)
    return first, second


def keep_deletion_records(transcript: Path) -> None:
    """Write ``deletion_records(transcript)`` (folder 0700, files 0600, mtime now). A record
    that cannot be written is logged, not raised (as TS, the delete goes on): a second call
    then cannot finish a half-done delete."""
    for record in deletion_records(transcript):
        try:
            record.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # state/: 0700 as TS makes it
            record.parent.mkdir(mode=0o700, exist_ok=True)
            os.close(os.open(record, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
            os.utime(record, follow_symlinks=False)
        except OSError as exc:
            logger.warning("could not keep the record %s of deleting %s (%s): a second delete_session "
                           "cannot finish this delete if it stops half-way", record, transcript, exc)


def _remove_subagent_folder(folder: Path, session_id: str) -> None:
    """Remove ``folder`` (a link: the link only), three tries for a folder something is
    writing to. Raises the last ``OSError`` (same class) with what to do about it."""
    for attempt in range(1, 4):
        try:
            if folder.is_symlink() or not folder.is_dir():
                folder.unlink(missing_ok=True)
            else:
                shutil.rmtree(folder)
            return
        except OSError as exc:
            if attempt < 3 and exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                time.sleep(0.05 * attempt)  # a running CLI may still be writing into it
                continue
            raise type(exc)(
                exc.errno,
                f"session {session_id}: its transcript is deleted, but its subagent folder {folder} could not be "
                f"removed ({exc.strerror or exc}); fix that and call delete_session again to finish",
            ) from exc


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
