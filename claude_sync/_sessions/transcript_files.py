"""The session functions over the CLI's transcript files (the caller's thread, no threads).

Where the files are: ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``) ``/projects/<folder>/``
``<session_id>.jsonl``, where ``<folder>`` is the project directory's real path with every
non-alphanumeric character replaced by ``-`` (see ``_sessions.transcript.sanitize_path``).
Subagent transcripts live under ``<folder>/<session_id>/subagents/**/agent-<id>.jsonl``.
With a ``directory``, the project's git worktrees are searched too (``git worktree list``).

Safety: a reader given a session id that is not a UUID returns None / ``[]`` without
touching any file (as the official SDK does); the functions that change transcripts raise
``ValueError`` naming the value instead. Every path is
built from the projects directory, a folder name that has no separator, and a UUID: nothing
a caller passes can point outside the config dir. Corrupt lines are skipped and logged.
The functions that change transcripts are in ``transcript_edits``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import unicodedata
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from .._redaction.redactor import redacted_logger
from .archive import ARCHIVE_FILE, RECORD_LIMIT, archived_state, parse_record
from .transcript import (
    HEAD_TAIL_BYTES,
    MAX_SANITIZED_LENGTH,
    Lite,
    require_uuid,
    sanitize_path,
    session_info,
    valid_uuid,
)
from .transcript_messages import parse_entries, session_messages, subagent_messages
from .types import SDKSessionInfo, SessionMessage

__all__ = [
    "get_session_info",
    "get_session_messages",
    "get_subagent_messages",
    "list_sessions",
    "list_subagents",
    "locate",
    "projects_dir",
]

logger = redacted_logger("claude_sync.sessions")

GIT_TIMEOUT = 5.0


# ---------------------------------------------------------------------------- where


def config_dir(env: Optional[Mapping[str, str]] = None) -> Path:
    """The CLI's config dir: ``CLAUDE_CONFIG_DIR`` from ``env`` (then the process), else ``~/.claude``."""
    value = (env or {}).get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(unicodedata.normalize("NFC", value or str(Path.home() / ".claude")))


def projects_dir(env: Optional[Mapping[str, str]] = None) -> Path:
    return config_dir(env) / "projects"


def canonical(directory: str) -> str:
    """A project directory as the CLI names it: real path, NFC."""
    try:
        return unicodedata.normalize("NFC", os.path.realpath(directory))
    except OSError:
        return unicodedata.normalize("NFC", directory)


def find_project_dir(project_path: str) -> Optional[Path]:
    """The folder of ``project_path``'s sessions, or None. Long paths end in a hash the CLI
    computes differently from us, so past 200 characters any ``<prefix>-*`` folder matches."""
    root = projects_dir()
    name = sanitize_path(project_path)
    exact = root / name
    if exact.is_dir():
        return exact
    if len(name) <= MAX_SANITIZED_LENGTH:
        return None
    prefix = name[:MAX_SANITIZED_LENGTH] + "-"
    try:
        return next((d for d in root.iterdir() if d.name.startswith(prefix) and d.is_dir()), None)
    except OSError:
        return None


def worktree_paths(cwd: str) -> List[str]:
    """The git worktrees of the repository holding ``cwd`` ([] outside git or without git)."""
    try:
        done = subprocess.run(
            ["git", "worktree", "list", "--porcelain"],
            cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [unicodedata.normalize("NFC", line[9:]) for line in done.stdout.split("\n") if line.startswith("worktree ")]


def _all_project_dirs() -> List[Path]:
    try:
        return [d for d in projects_dir().iterdir() if d.is_dir()]
    except OSError:
        return []


def candidate_dirs(directory: Optional[str]) -> Iterator[Tuple[Path, Optional[str]]]:
    """Project folders to look in, with the project path each stands for: the directory's,
    then its worktrees' (lazily: git runs only if the first miss), or every folder."""
    if not directory:
        for every in _all_project_dirs():
            yield every, None
        return
    path = canonical(directory)
    folder = find_project_dir(path)
    if folder is not None:
        yield folder, path
    for tree in worktree_paths(path):
        if tree != path:
            found = find_project_dir(tree)
            if found is not None:
                yield found, tree


def locate(session_id: str, directory: Optional[str]) -> Optional[Tuple[Path, Optional[str]]]:
    """The non-empty transcript of ``session_id`` and its project path, or None."""
    name = f"{require_uuid(session_id)}.jsonl"
    for folder, project in candidate_dirs(directory):
        candidate = folder / name
        try:
            if candidate.stat().st_size > 0:
                return candidate, project
        except OSError:
            continue
    return None


def not_found(session_id: str, directory: Optional[str]) -> FileNotFoundError:
    where = f" in the project directory for {directory}" if directory else f" under {projects_dir()}"
    return FileNotFoundError(f"session {session_id} not found{where}")


# ---------------------------------------------------------------------------- reading


def read_lite(path: Path) -> Optional[Lite]:
    """Both ends of a transcript, its size and mtime; None if unreadable or empty."""
    try:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            head_bytes = handle.read(HEAD_TAIL_BYTES)
            if not head_bytes:
                return None
            head = head_bytes.decode("utf-8", "replace")
            if stat.st_size <= HEAD_TAIL_BYTES:
                tail = head
            else:
                handle.seek(stat.st_size - HEAD_TAIL_BYTES)
                tail = handle.read(HEAD_TAIL_BYTES).decode("utf-8", "replace")
    except OSError as exc:
        logger.debug("Skipping unreadable transcript %s: %s", path, exc)
        return None
    return Lite(head, tail, stat.st_size, int(stat.st_mtime * 1000))


def read_archived(transcript: Path, lite: Lite) -> Optional[bool]:
    """The ``archived`` a listing reports for ``transcript`` (its windows are ``lite``; see
    ``archive``): None when there is no mark, or it is unreadable, not a regular file (a FIFO
    is not waited on) or not a mark. Never raises."""
    try:
        fd = os.open(transcript.with_suffix("") / ARCHIVE_FILE, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        data = os.read(fd, RECORD_LIMIT + 1) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        data = None
    finally:
        os.close(fd)
    return None if data is None else archived_state(parse_record(data), lite.head, lite.tail)


def _sessions_in(folder: Path, project: Optional[str]) -> List[SDKSessionInfo]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith(".jsonl") or not valid_uuid(name[:-6]):
            continue
        lite = read_lite(folder / name)
        if lite is None:
            continue
        try:
            info = session_info(name[:-6], lite, project)
        except Exception as exc:  # noqa: BLE001 - one odd file must not end a listing
            logger.warning("Skipping transcript %s: %r", folder / name, exc)
            continue
        if info is not None:
            info.archived = read_archived(folder / name, lite)
            out.append(info)
    return out


def newest_first(sessions: List[SDKSessionInfo], limit: Optional[int], offset: int) -> List[SDKSessionInfo]:
    """One row per session id (the newest), newest first, then ``offset`` and ``limit``."""
    by_id: Dict[str, SDKSessionInfo] = {}
    for info in sessions:
        known = by_id.get(info.session_id)
        if known is None or info.last_modified > known.last_modified:
            by_id[info.session_id] = info
    rows = sorted(by_id.values(), key=lambda s: s.last_modified, reverse=True)
    rows = rows[offset:] if offset > 0 else rows
    return rows[:limit] if limit is not None and limit > 0 else rows


def list_sessions(
    directory: Optional[str] = None, limit: Optional[int] = None, offset: int = 0, include_worktrees: bool = True
) -> List[SDKSessionInfo]:
    """Sessions of ``directory`` (and its git worktrees), or of every project; newest first."""
    if not directory:
        rows = [info for folder in _all_project_dirs() for info in _sessions_in(folder, None)]
        return newest_first(rows, limit, offset)
    path = canonical(directory)
    trees = worktree_paths(path) if include_worktrees else []
    folder = find_project_dir(path)
    rows = _sessions_in(folder, path) if folder is not None else []
    if len(trees) > 1:
        seen = {folder.name} if folder is not None else set()
        for tree in sorted(trees, key=lambda t: len(sanitize_path(t)), reverse=True):
            other = find_project_dir(tree)
            if other is not None and other.name not in seen:
                seen.add(other.name)
                rows += _sessions_in(other, tree)
    return newest_first(rows, limit, offset)


def get_session_info(session_id: str, directory: Optional[str] = None) -> Optional[SDKSessionInfo]:
    """One session's listing row; None if not found, not a UUID, a sidechain, or nothing to show."""
    if not valid_uuid(session_id):
        return None
    found = locate(session_id, directory)
    if found is None:
        return None
    lite = read_lite(found[0])
    info = session_info(session_id, lite, found[1]) if lite is not None else None
    if info is not None and lite is not None:
        info.archived = read_archived(found[0], lite)
    return info


def read_entries(path: Path) -> List[Dict[str, Any]]:
    """Every JSON object line of a transcript; corrupt lines are skipped with a warning. An
    unterminated last line is one the CLI is writing right now: left out, without a warning."""
    text = path.read_bytes().decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text, _, partial = text.rpartition("\n")
        logger.debug("Left out the unfinished last line of %s (%d characters)", path, len(partial))
    entries, corrupt = parse_entries(text)
    if corrupt:
        logger.warning("Skipped %d corrupt line(s) in %s", corrupt, path)
    return entries


def get_session_messages(
    session_id: str, directory: Optional[str] = None, limit: Optional[int] = None, offset: int = 0
) -> List[SessionMessage]:
    """The conversation of a session, oldest first ([] if not found or the id is not a UUID)."""
    if not valid_uuid(session_id):
        return []
    found = locate(session_id, directory)
    if found is None:
        return []
    try:
        entries = read_entries(found[0])
    except OSError as exc:
        logger.warning("Could not read %s: %s", found[0], exc)
        return []
    return session_messages(entries, limit, offset)


def _agent_files(session_id: str, directory: Optional[str]) -> List[Tuple[str, Path]]:
    if not valid_uuid(session_id):
        return []
    found = locate(session_id, directory)
    if found is None:
        return []
    out: List[Tuple[str, Path]] = []
    for root, dirs, files in os.walk(found[0].with_suffix("") / "subagents"):
        dirs.sort()
        for name in sorted(files):
            if name.startswith("agent-") and name.endswith(".jsonl"):
                out.append((name[6:-6], Path(root) / name))
    return out


def list_subagents(session_id: str, directory: Optional[str] = None) -> List[str]:
    """The ids of the subagents a session ran ([] if none, not found, or the id is not a UUID)."""
    return [agent for agent, _ in _agent_files(session_id, directory)]


def agent_metadata(transcript: Path) -> Optional[Dict[str, Any]]:
    """The ``agent-<id>.meta.json`` sidecar of a subagent transcript; None if absent or unusable."""
    sidecar = transcript.with_name(transcript.name[: -len(".jsonl")] + ".meta.json")
    try:
        value = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def get_subagent_messages(
    session_id: str, agent_id: str, directory: Optional[str] = None, limit: Optional[int] = None, offset: int = 0
) -> List[SessionMessage]:
    """A subagent's conversation, each message naming the tool use that spawned it ([] if
    not found or ``session_id`` is not a UUID)."""
    if not agent_id:
        return []
    match = next((path for found, path in _agent_files(session_id, directory) if found == agent_id), None)
    if match is None:
        return []
    try:
        entries = read_entries(match)
    except OSError as exc:
        logger.warning("Could not read %s: %s", match, exc)
        return []
    return subagent_messages(entries, limit, offset, agent_metadata(match))
