"""``archive_session`` / ``unarchive_session`` (the caller's thread, no threads).

The mark's format and the rule that a later prompt lifts it are in ``archive``; listings read
it in ``transcript_files``. Archiving
changes neither the transcript nor a process running the session: ``resume`` and
``continue_conversation`` still pick it up (CLI 2.1.197 and 2.1.332; ``--continue`` takes an
archived newest session like any other), and its next typed prompt unarchives it.

Writes: the mark is written whole to a temp file in the session's folder (created ``0700``
if missing; the file ``0600``), fsynced and renamed over ``archived.json``, so a reader (the
CLI included) never sees half a mark, and of two concurrent calls the later rename wins. The
session is searched as ``rename_session`` does (``directory``, its git worktrees, or every
project); the mark goes beside every copy found, as the TS SDK does. Session stores hold
transcript entries only, so there is no store variant (the TS SDK refuses a ``sessionStore``
here too).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import List, Optional

from .archive import ARCHIVE_FILE, record_text
from .transcript import require_uuid
from .transcript_edits import now_iso
from .transcript_files import candidate_dirs, not_found

__all__ = ["archive_session", "unarchive_session"]


def archive_session(session_id: str, directory: Optional[str] = None) -> None:
    """Mark a session archived (``archived.json`` beside its transcript): ``list_sessions``
    and ``get_session_info`` still return it, with ``archived=True``, until a prompt is sent
    in it or ``unarchive_session``. The transcript is not changed, a running session is not
    stopped, and ``resume`` still works. The TS SDK's ``archiveSession``.

    Raises ``ValueError`` (not a UUID), ``FileNotFoundError`` (no non-empty transcript of it
    under ``directory``, or under any project), ``OSError`` when the mark cannot be written."""
    _mark(session_id, True, directory)


def unarchive_session(session_id: str, directory: Optional[str] = None) -> None:
    """Lift the mark: listings then say ``archived=False``. The TS SDK's
    ``unarchiveSession``; raises as ``archive_session`` does."""
    _mark(session_id, False, directory)


def _transcripts(session_id: str, directory: Optional[str]) -> List[Path]:
    name = f"{session_id}.jsonl"
    found = []
    for folder, _ in candidate_dirs(directory):
        try:
            if (folder / name).stat().st_size > 0:
                found.append(folder / name)
        except OSError:
            continue
    return found


def _mark(session_id: str, archived: bool, directory: Optional[str]) -> None:
    if not isinstance(session_id, str):
        raise TypeError(f"session_id must be a str, not {type(session_id).__name__}")
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str path or None, not {type(directory).__name__}")
    require_uuid(session_id)
    transcripts = _transcripts(session_id, None if directory is None else os.fspath(directory))
    if not transcripts:
        raise not_found(session_id, None if directory is None else os.fspath(directory))
    text = record_text(archived, now_iso())
    for transcript in transcripts:
        _write_mark(transcript.with_suffix(""), text)


def _write_mark(folder: Path, text: str) -> None:
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    temp = folder / f".{ARCHIVE_FILE}.{uuid.uuid4().hex}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, folder / ARCHIVE_FILE)
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
