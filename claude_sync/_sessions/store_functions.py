"""The session functions over a ``SessionStore`` (``*_from_store``, ``*_via_store``) and
``import_session_to_store``. All run on the caller's thread and call the store directly.

A store names a session by ``{"project_key", "session_id"}``; ``project_key`` defaults to the
CLI's folder name for ``directory`` (the current directory when omitted), so a store filled
by mirroring a session run in that directory is read back by the same call. Results match
the file-based functions for the same transcript (same parsing, ``_sessions.transcript``).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .._redaction.redactor import redacted_logger
from .fork import (
    custom_title_entry,
    fork_entries,
    fork_source,
    tag_entry,
    title_from_entries,
)
from .summary import summary_to_info
from .transcript import (
    entries_to_jsonl,
    last_timestamp_ms,
    lite_from_jsonl,
    require_uuid,
    sanitize_path,
    session_info,
    valid_uuid,
)
from .transcript_edits import now_iso
from .transcript_files import agent_metadata, canonical, locate, newest_first
from .transcript_messages import (
    json_lines,
    session_messages,
    split_agent_metadata,
    subagent_messages,
)
from .types import (
    ForkSessionResult,
    SDKSessionInfo,
    SessionKey,
    SessionMessage,
    SessionStore,
    SessionStoreEntry,
    store_implements,
)

__all__ = [
    "delete_session_via_store",
    "fork_session_via_store",
    "get_session_info_from_store",
    "get_session_messages_from_store",
    "get_subagent_messages_from_store",
    "import_session_to_store",
    "list_sessions_from_store",
    "list_subagents_from_store",
    "project_key_for_directory",
    "rename_session_via_store",
    "tag_session_via_store",
]

logger = redacted_logger("claude_sync.sessions")

IMPORT_BATCH_ENTRIES = 500
IMPORT_BATCH_BYTES = 1 << 20


def project_key_for_directory(directory: Optional[str] = None) -> str:
    """The store's ``project_key`` for a project directory (default: the current one)."""
    return sanitize_path(canonical(str(directory) if directory is not None else "."))


def _key(session_id: str, directory: Optional[str], subpath: Optional[str] = None) -> SessionKey:
    key: SessionKey = {"project_key": project_key_for_directory(directory), "session_id": session_id}
    if subpath:
        key["subpath"] = subpath
    return key


def _info_from_entries(session_id: str, entries: List[Any], mtime: int, project: str) -> Optional[SDKSessionInfo]:
    info = session_info(session_id, lite_from_jsonl(entries_to_jsonl(entries), mtime), project)
    if info is not None:
        info.last_modified = mtime
    return info


def _infos_by_loading(store: SessionStore, rows: List[Tuple[str, int]], project: str, directory: Optional[str]) -> Dict[str, SDKSessionInfo]:
    """One ``load`` per session; a store error degrades that row to an empty summary."""
    out: Dict[str, SDKSessionInfo] = {}
    for sid, mtime in rows:
        try:
            entries = store.load(_key(sid, directory))
        except Exception as exc:  # noqa: BLE001 - a store is user code; one row must not end the list
            logger.warning("SessionStore.load failed for session %s while listing: %r", sid, exc)
            out[sid] = SDKSessionInfo(session_id=sid, summary="", last_modified=mtime)
            continue
        info = _info_from_entries(sid, entries, mtime, project) if entries else None
        if info is not None:
            out[sid] = info
    return out


def list_sessions_from_store(
    session_store: SessionStore, directory: Optional[str] = None, limit: Optional[int] = None, offset: int = 0
) -> List[SDKSessionInfo]:
    """``list_sessions`` for a store. Uses ``list_session_summaries`` when the store has it
    (loading only sessions whose summary is missing or stale, after paging), else one
    ``load`` per session. Raises ``ValueError`` if the store can list neither way."""
    project = canonical(str(directory) if directory is not None else ".")
    pk = sanitize_path(project)
    has_list = store_implements(session_store, "list_sessions")
    if store_implements(session_store, "list_session_summaries"):
        try:
            summaries = session_store.list_session_summaries(pk)
        except NotImplementedError:
            summaries = None
        if summaries is not None:
            return _list_with_summaries(session_store, summaries, has_list, pk, project, directory, limit, offset)
    if not has_list:
        raise ValueError("the session store implements neither list_session_summaries() nor list_sessions(): cannot list sessions")
    rows = [(e["session_id"], e["mtime"]) for e in session_store.list_sessions(pk)]
    return newest_first(list(_infos_by_loading(session_store, rows, project, directory).values()), limit, offset)


def _list_with_summaries(
    store: SessionStore, summaries: List[Any], has_list: bool, pk: str, project: str,
    directory: Optional[str], limit: Optional[int], offset: int,
) -> List[SDKSessionInfo]:  # fmt: skip
    known = {e["session_id"]: e["mtime"] for e in store.list_sessions(pk)} if has_list else None
    slots: List[Tuple[int, str, Optional[SDKSessionInfo]]] = []
    fresh = set()
    for summary in summaries:
        sid = summary["session_id"]
        if known is not None and (sid not in known or summary["mtime"] < known[sid]):
            continue  # gone, or stale: re-derived below from the entries
        fresh.add(sid)
        info = summary_to_info(summary, project)
        if info is not None:
            slots.append((summary["mtime"], sid, info))
    if known is not None:
        slots += [(mtime, sid, None) for sid, mtime in known.items() if sid not in fresh]
    slots.sort(key=lambda s: s[0], reverse=True)
    page = slots[offset:] if offset > 0 else slots
    page = page[:limit] if limit is not None and limit > 0 else page
    filled = _infos_by_loading(store, [(sid, mtime) for mtime, sid, info in page if info is None], project, directory)
    return [info or filled[sid] for _, sid, info in page if info is not None or sid in filled]


def get_session_info_from_store(
    session_store: SessionStore, session_id: str, directory: Optional[str] = None
) -> Optional[SDKSessionInfo]:
    """``get_session_info`` for a store (mtime: the last entry's timestamp, else now); None
    for an id that is not a UUID, without calling the store."""
    if not valid_uuid(session_id):
        return None
    entries = session_store.load(_key(session_id, directory))
    if not entries:
        return None
    mtime = last_timestamp_ms(entries) or int(time.time() * 1000)
    return _info_from_entries(session_id, entries, mtime, canonical(str(directory) if directory is not None else "."))


def get_session_messages_from_store(
    session_store: SessionStore, session_id: str, directory: Optional[str] = None, limit: Optional[int] = None, offset: int = 0
) -> List[SessionMessage]:
    """``get_session_messages`` for a store; ``[]`` for an id that is not a UUID."""
    if not valid_uuid(session_id):
        return []
    entries = session_store.load(_key(session_id, directory))
    raw: List[Any] = list(entries) if entries else []
    return session_messages(raw, limit, offset) if raw else []


def list_subagents_from_store(session_store: SessionStore, session_id: str, directory: Optional[str] = None) -> List[str]:
    """``list_subagents`` for a store; ``[]`` for an id that is not a UUID. Raises
    ``ValueError`` if the store has no ``list_subkeys``."""
    if not valid_uuid(session_id):
        return []
    if not store_implements(session_store, "list_subkeys"):
        raise ValueError("the session store does not implement list_subkeys(): cannot list subagents")
    ids: List[str] = []
    for subpath in session_store.list_subkeys({"project_key": project_key_for_directory(directory), "session_id": session_id}):
        last = subpath.rsplit("/", 1)[-1]
        if subpath.startswith("subagents/") and last.startswith("agent-") and last[6:] not in ids:
            ids.append(last[6:])
    return ids


def get_subagent_messages_from_store(
    session_store: SessionStore, session_id: str, agent_id: str, directory: Optional[str] = None,
    limit: Optional[int] = None, offset: int = 0,
) -> List[SessionMessage]:  # fmt: skip
    """``get_subagent_messages`` for a store (finds nested subagents via ``list_subkeys``);
    ``[]`` for a ``session_id`` that is not a UUID."""
    if not valid_uuid(session_id) or not agent_id:
        return []
    subpath: Optional[str] = f"subagents/agent-{agent_id}"
    if store_implements(session_store, "list_subkeys"):
        keys = session_store.list_subkeys({"project_key": project_key_for_directory(directory), "session_id": session_id})
        subpath = next((k for k in keys if k.startswith("subagents/") and k.rsplit("/", 1)[-1] == f"agent-{agent_id}"), None)
        if subpath is None:
            return []
    entries = session_store.load(_key(session_id, directory, subpath))
    if not entries:
        return []
    metadata, transcript = split_agent_metadata(list(entries))
    return subagent_messages(transcript, limit, offset, metadata) if transcript else []


def _stamped(entry: Dict[str, Any]) -> SessionStoreEntry:
    stamped: Any = {**entry, "uuid": str(uuid.uuid4()), "timestamp": now_iso()}
    return stamped  # type: ignore[no-any-return]


def rename_session_via_store(session_store: SessionStore, session_id: str, title: str, directory: Optional[str] = None) -> None:
    """``rename_session`` for a store. Raises ``ValueError``."""
    entry = custom_title_entry(require_uuid(session_id), title)
    session_store.append(_key(session_id, directory), [_stamped(entry)])


def tag_session_via_store(session_store: SessionStore, session_id: str, tag: Optional[str], directory: Optional[str] = None) -> None:
    """``tag_session`` for a store. Raises ``ValueError``."""
    entry = tag_entry(require_uuid(session_id), tag)
    session_store.append(_key(session_id, directory), [_stamped(entry)])


def delete_session_via_store(session_store: SessionStore, session_id: str, directory: Optional[str] = None) -> None:
    """``delete_session`` for a store; a no-op for a store without ``delete`` (append-only)."""
    require_uuid(session_id)
    if store_implements(session_store, "delete"):
        session_store.delete(_key(session_id, directory))


def fork_session_via_store(
    session_store: SessionStore, session_id: str, directory: Optional[str] = None,
    up_to_message_id: Optional[str] = None, title: Optional[str] = None,
) -> ForkSessionResult:  # fmt: skip
    """``fork_session`` for a store. Raises ``ValueError``, ``FileNotFoundError`` (not in the store)."""
    require_uuid(session_id)
    if up_to_message_id:
        require_uuid(up_to_message_id, "up_to_message_id")
    loaded = session_store.load(_key(session_id, directory))
    if not loaded:
        raise FileNotFoundError(f"session {session_id} not found in the session store")
    raw: List[Any] = list(loaded)
    messages, replacements = fork_source(raw, session_id)
    fork_id, entries = fork_entries(
        messages, replacements, session_id,
        up_to_message_id=up_to_message_id, title=title, derive_title=lambda: title_from_entries(raw),
        new_id=lambda: str(uuid.uuid4()), now=now_iso(),
    )  # fmt: skip
    out: Any = entries
    session_store.append(_key(fork_id, directory), out)
    return ForkSessionResult(session_id=fork_id)


def import_session_to_store(
    session_id: str, store: SessionStore, *, directory: Optional[str] = None,
    include_subagents: bool = True, batch_size: int = IMPORT_BATCH_ENTRIES,
) -> None:  # fmt: skip
    """Copy a local transcript (and its subagents' with their metadata) into ``store``, in
    batches of ``batch_size`` entries or 1 MiB. The ``project_key`` is the folder the file was
    found in, as mirroring would use. Corrupt lines are skipped and logged.

    Raises ``ValueError`` (not a UUID), ``FileNotFoundError``."""
    found = locate(session_id, directory)
    if found is None:
        raise FileNotFoundError(f"session {session_id} not found")
    path = found[0]
    pk = path.parent.name
    batch_size = batch_size if batch_size > 0 else IMPORT_BATCH_ENTRIES
    _import_file(path, {"project_key": pk, "session_id": session_id}, store, batch_size)
    if not include_subagents:
        return
    session_dir = path.with_suffix("")
    for file in sorted((session_dir / "subagents").rglob("*.jsonl")):
        subpath = "/".join(file.relative_to(session_dir).with_suffix("").parts)
        key: SessionKey = {"project_key": pk, "session_id": session_id, "subpath": subpath}
        _import_file(file, key, store, batch_size)
        metadata = agent_metadata(file)
        if metadata is not None:
            meta_entry: Any = {**metadata, "type": "agent_metadata"}
            store.append(key, [meta_entry])


def _import_file(path: Path, key: SessionKey, store: SessionStore, batch_size: int) -> None:
    batch: List[Any] = []
    size = 0
    corrupt = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line, entry in json_lines(handle):
            if not isinstance(entry, dict):  # not JSON, or JSON the CLI never writes as a line
                corrupt += 1
                continue
            batch.append(entry)
            size += len(line)
            if len(batch) >= batch_size or size >= IMPORT_BATCH_BYTES:
                store.append(key, batch)
                batch, size = [], 0
    if batch:
        store.append(key, batch)
    if corrupt:
        logger.warning("Skipped %d corrupt line(s) importing %s", corrupt, path)
