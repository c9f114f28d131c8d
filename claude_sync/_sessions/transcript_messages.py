"""A transcript's conversation, sans I/O: lines in, ``SessionMessage`` objects out.

Every line is parsed (corrupt ones are counted, not fatal); the messages are the known
transcript types that carry a ``uuid``. The conversation is the chain from the newest leaf of
the main thread (not a sidechain, team or meta entry, when there is one) back along
``parentUuid``; tool calls and results that a parallel turn left on side branches are put
back next to their turn (``transcript_parallel``). ``logicalParentUuid`` (compaction) is not
followed: the compact summary stands in for what came before it. Same rules as the official
SDK's ``get_session_messages``; what is shown drops meta, sidechain and team entries.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from .transcript import is_message_entry
from .transcript_parallel import restore_parallel
from .types import SessionMessage

__all__ = [
    "build_chain",
    "parent_ids",
    "parse_entries",
    "session_messages",
    "split_agent_metadata",
    "subagent_messages",
    "transcript_entries",
]

Entry = Dict[str, Any]


NOT_JSON = object()
"""What ``json_lines`` gives for a line that is not JSON."""


def json_lines(lines: Iterable[str]) -> Iterator[Tuple[str, Any]]:
    """``(stripped line, its JSON value)`` for every non-blank transcript line; the value is
    ``NOT_JSON`` when the line does not parse (nested deeper than this Python's parser goes
    included: a ``RecursionError`` on 3.9)."""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = NOT_JSON
        yield line, value


def parse_entries(text: str) -> Tuple[List[Entry], int]:
    """Every line of a transcript as a dict, and how many lines were corrupt (skipped)."""
    entries: List[Entry] = []
    corrupt = 0
    for _, entry in json_lines(text.split("\n")):
        if isinstance(entry, dict):
            entries.append(entry)
        else:
            corrupt += 1
    return entries, corrupt


def transcript_entries(entries: Iterable[Any]) -> List[Entry]:
    """The message entries (``transcript.is_message_entry``)."""
    return [e for e in entries if is_message_entry(e)]


def _walk_to_root(leaf: Entry, by_uuid: Dict[str, Entry]) -> List[Entry]:
    chain: List[Entry] = []
    seen: Set[str] = set()
    current: Optional[Entry] = leaf
    while current is not None and current["uuid"] not in seen:
        seen.add(current["uuid"])
        chain.append(current)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    chain.reverse()
    return chain


def _nearest_message(entry: Entry, by_uuid: Dict[str, Entry]) -> Optional[Entry]:
    seen: Set[str] = set()
    current: Optional[Entry] = entry
    while current is not None and current["uuid"] not in seen:
        seen.add(current["uuid"])
        if current.get("type") in ("user", "assistant"):
            return current
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    return None


def build_chain(entries: List[Entry]) -> List[Entry]:
    """The conversation, root to leaf: from the newest leaf of the main chain (not a
    sidechain, team or meta entry, when there is one) back along ``parentUuid``; parallel
    tool calls and results left on side branches are put back (see ``transcript_parallel.restore_parallel``).
    ``logicalParentUuid`` (compaction) is not followed: the compact summary stands in for
    what came before it."""
    if not entries:
        return []
    by_uuid = {e["uuid"]: e for e in entries}
    position = {uid: i for i, uid in enumerate(by_uuid)}
    parents = {e.get("parentUuid") for e in entries}
    leaves = [leaf for leaf in (_nearest_message(e, by_uuid) for e in entries if e["uuid"] not in parents) if leaf]
    if not leaves:
        return []
    main = [e for e in leaves if not e.get("isSidechain") and not e.get("teamName") and not e.get("isMeta")]
    leaf = max(main or leaves, key=lambda e: position[e["uuid"]])
    chain = _walk_to_root(leaf, by_uuid)
    return restore_parallel(by_uuid, chain)


def _visible(entry: Entry) -> bool:
    return (
        entry.get("type") in ("user", "assistant")
        and not entry.get("isMeta") and not entry.get("isSidechain") and not entry.get("teamName")
    )  # fmt: skip


def _page(items: List[SessionMessage], limit: Optional[int], offset: int) -> List[SessionMessage]:
    if limit is not None and limit > 0:
        return items[offset : offset + limit]
    return items[offset:] if offset > 0 else items


def _message(entry: Entry, tool_use_id: Optional[str] = None, agent_id: Optional[str] = None) -> SessionMessage:
    return SessionMessage(
        type="user" if entry.get("type") == "user" else "assistant",
        uuid=str(entry.get("uuid", "")),
        session_id=str(entry.get("sessionId", "")),
        message=entry.get("message"),
        parent_tool_use_id=tool_use_id,
        parent_agent_id=agent_id,
    )


def session_messages(entries: List[Entry], limit: Optional[int] = None, offset: int = 0) -> List[SessionMessage]:
    """The visible user/assistant messages of a main transcript's chain, paged."""
    chain = build_chain(transcript_entries(entries))
    return _page([_message(e) for e in chain if _visible(e)], limit, offset)


def subagent_messages(
    entries: List[Entry],
    limit: Optional[int] = None,
    offset: int = 0,
    metadata: Optional[Dict[str, Any]] = None,
) -> List[SessionMessage]:
    """A subagent transcript's messages: linear, from its last message back to the root.
    ``metadata`` (the ``.meta.json`` sidecar) names the spawning tool use and agent."""
    messages = [e for e in transcript_entries(entries)]
    by_uuid = {e["uuid"]: e for e in messages}
    leaf = next((e for e in reversed(messages) if e.get("type") in ("user", "assistant")), None)
    if leaf is None:
        return []
    tool_use_id, agent_id = parent_ids(metadata)
    chain = [e for e in _walk_to_root(leaf, by_uuid) if e.get("type") in ("user", "assistant")]
    return _page([_message(e, tool_use_id, agent_id) for e in chain], limit, offset)


def parent_ids(metadata: Optional[Dict[str, Any]]) -> Tuple[Optional[str], Optional[str]]:
    """``(toolUseId, parentAgentId)`` of a subagent's metadata, each None when absent."""
    if not metadata:
        return None, None
    tool_use_id = metadata.get("toolUseId")
    agent_id = metadata.get("parentAgentId")
    return (tool_use_id if isinstance(tool_use_id, str) else None, agent_id if isinstance(agent_id, str) else None)


def split_agent_metadata(entries: List[Any]) -> Tuple[Optional[Dict[str, Any]], List[Any]]:
    """A store's subagent stream → (its last ``agent_metadata`` entry, the transcript lines)."""
    metadata: Optional[Dict[str, Any]] = None
    rest: List[Any] = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("type") == "agent_metadata":
            metadata = dict(entry)
        else:
            rest.append(entry)
    return metadata, rest
