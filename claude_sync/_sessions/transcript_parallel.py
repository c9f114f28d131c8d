"""Putting back the parts of a parallel tool turn that the ``parentUuid`` walk skips (pure).

The CLI writes one assistant entry per content block: a response with N parallel tool calls
is N assistant entries sharing ``message.id``, chained one after another. Each tool result's
``parentUuid`` is the entry of the call it answers, so the results hang off different
parents; the next turn continues from one of them, and walking back from the leaf keeps
only that branch. For every response on the chain this collects its entries and results
the walk missed and inserts them after the response's last entry on the chain: the
response's own entries first, then the results, each group in timestamp order (stable, so
ties keep file order). Same behaviour as the official SDK's ``getSessionMessages``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

__all__ = ["restore_parallel"]

Entry = Dict[str, Any]


def _response_id(entry: Entry) -> Optional[str]:
    if entry.get("type") != "assistant":
        return None
    message = entry.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) and value else None


def _block_ids(entry: Entry, block_type: str, id_field: str) -> List[str]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [
        b[id_field] for b in content
        if isinstance(b, dict) and b.get("type") == block_type and isinstance(b.get(id_field), str)
    ]  # fmt: skip


def _is_result(entry: Entry) -> bool:
    return (
        entry.get("type") == "user"
        and isinstance(entry.get("parentUuid"), str)
        and bool(entry["parentUuid"])
        and _has_result_block(entry)
    )


def _has_result_block(entry: Entry) -> bool:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _same_writer(a: Entry, b: Entry) -> bool:
    return bool(a.get("isSidechain")) == bool(b.get("isSidechain")) and a.get("agentId") == b.get("agentId")


def _timestamp(entry: Entry) -> str:
    value = entry.get("timestamp")
    return value if isinstance(value, str) else ""


class _Index:
    """Responses, call owners and results of a whole transcript."""

    def __init__(self, by_uuid: Dict[str, Entry]) -> None:
        self.by_uuid = by_uuid
        self.responses: Dict[str, List[Entry]] = {}
        self.call_owner: Dict[str, Optional[Entry]] = {}  # None: two responses claim the id
        self.results_of: Dict[str, List[Entry]] = {}
        results: List[Entry] = []
        for entry in by_uuid.values():
            rid = _response_id(entry)
            if rid:
                self.responses.setdefault(rid, []).append(entry)
                for call in _block_ids(entry, "tool_use", "id"):
                    owner = self.call_owner.get(call, entry)
                    same = owner is not None and _response_id(owner) == rid
                    self.call_owner[call] = entry if call not in self.call_owner or same else None
            elif _is_result(entry):
                results.append(entry)
        for result in results:
            self._file(result["parentUuid"], result)
            source = result.get("sourceToolAssistantUUID")
            if isinstance(source, str) and source in by_uuid and _same_writer(result, by_uuid[source]):
                self._file(source, result)
            for call in _block_ids(result, "tool_result", "tool_use_id"):
                owner = self.call_owner.get(call)
                if owner is not None and _same_writer(result, owner):
                    self._file(owner["uuid"], result)

    def _file(self, assistant_uuid: str, result: Entry) -> None:
        self.results_of.setdefault(assistant_uuid, []).append(result)


def restore_parallel(by_uuid: Dict[str, Entry], chain: List[Entry]) -> List[Entry]:
    """``chain`` with each parallel response's missing entries and results inserted."""
    anchors: Dict[str, Entry] = {}
    for entry in chain:
        rid = _response_id(entry)
        if rid:
            anchors[rid] = entry  # the response's last entry on the chain
    if not anchors:
        return chain
    index = _Index(by_uuid)
    seen: Set[str] = {e["uuid"] for e in chain}
    answered: Optional[Set[str]] = None
    inserts: Dict[str, List[Entry]] = {}
    for rid, anchor in anchors.items():
        group = index.responses.get(rid, [anchor])
        members = {m["uuid"] for m in group}
        missing = [m for m in group if m["uuid"] not in seen]
        own: List[Entry] = []
        strays: List[Entry] = []
        taken: Set[str] = set()
        for member in group:
            for result in index.results_of.get(member["uuid"], ()):
                if result["uuid"] in seen or result["uuid"] in taken:
                    continue
                taken.add(result["uuid"])
                (own if result["parentUuid"] in members else strays).append(result)
        if strays:
            if answered is None:
                answered = {c for e in chain for c in _block_ids(e, "tool_result", "tool_use_id")}
            own += _open_call_answers(strays, own, members, answered, index, list(by_uuid))
        if not missing and not own:
            continue
        recovered = sorted(missing, key=_timestamp) + sorted(own, key=_timestamp)
        seen.update(e["uuid"] for e in recovered)
        inserts[anchor["uuid"]] = recovered
    if not inserts:
        return chain
    out: List[Entry] = []
    for entry in chain:
        out.append(entry)
        out.extend(inserts.get(entry["uuid"], ()))
    return out


def _open_call_answers(
    strays: List[Entry], own: List[Entry], members: Set[str], answered_on_chain: Set[str],
    index: _Index, order: List[str],
) -> List[Entry]:  # fmt: skip
    """The stray results (filed under this response but hanging off another parent) that
    answer one of its calls nobody answered yet, in file order."""
    answered = set(answered_on_chain)
    for result in own:
        answered.update(_block_ids(result, "tool_result", "tool_use_id"))
    position = {uid: i for i, uid in enumerate(order)}
    kept: List[Entry] = []
    for result in sorted(strays, key=lambda e: position[e["uuid"]]):
        calls = _block_ids(result, "tool_result", "tool_use_id")
        opens = any(
            call not in answered and (owner := index.call_owner.get(call)) is not None and owner["uuid"] in members
            for call in calls
        )
        if opens:
            answered.update(calls)
            kept.append(result)
    return kept
