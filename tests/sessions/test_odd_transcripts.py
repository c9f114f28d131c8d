"""Odd transcripts the CLI (or a hand edit) can leave: an escaped lone surrogate, a line whose
``parentUuid``, ``logicalParentUuid`` or ``type`` is not a string (and every other field
of the wrong kind, exhaustively), a line nested deeper than Python's recursion limit. Each is
read, forked, imported and resumed from a store without raising; odd lines are skipped."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    InMemorySessionStore,
    SQLiteSessionStore,
    fork_session,
    fork_session_via_store,
    get_session_messages,
    get_session_messages_from_store,
    import_session_to_store,
    project_key_for_directory,
)
from claude_sync._sessions.store_resume import materialize
from claude_sync._sessions.transcript import sanitize_path

LONE_SURROGATE_TEXT = "broken \\ud83d emoji"
"""How the CLI writes a lone surrogate (JSON.stringify escapes it): valid JSON, not UTF-8 text."""


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    path = tmp_path / "project"
    path.mkdir()
    (config / "projects" / sanitize_path(os.path.realpath(path))).mkdir(parents=True)
    return path


def transcript_path(project: Path, sid: str) -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / sanitize_path(os.path.realpath(project)) / f"{sid}.jsonl"


def line(kind: str, text: str, parent: Optional[str], sid: str, **extra: Any) -> Dict[str, Any]:
    role = "user" if kind == "user" else "assistant"
    return {"type": kind, "uuid": str(uuid.uuid4()), "parentUuid": parent, "sessionId": sid,
            "timestamp": "2025-01-01T00:00:00.000Z", "message": {"role": role, "content": [{"type": "text", "text": text}]},
            **extra}  # fmt: skip


def four_turns(sid: str) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    parent = None
    for n in range(2):
        for kind in ("user", "assistant"):
            entry = line(kind, f"{kind} {n}", parent, sid)
            out.append(entry)
            parent = entry["uuid"]
    return out


def texts(messages: List[Any]) -> List[str]:
    return [m.message["content"][0]["text"] for m in messages]


def write_with_surrogate(project: Path) -> str:
    sid = str(uuid.uuid4())
    entries = four_turns(sid)
    lines = [json.dumps(e) for e in entries]
    lines[2] = lines[2].replace('"user 1"', f'"{LONE_SURROGATE_TEXT}"')
    transcript_path(project, sid).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sid


def test_a_lone_surrogate_survives_the_sqlite_store(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.db")
    try:
        sid = str(uuid.uuid4())
        entries = four_turns(sid)
        entries[2]["message"]["content"][0]["text"] = json.loads(f'"{LONE_SURROGATE_TEXT}"')
        key: Any = {"project_key": "p", "session_id": sid}
        store.append(key, entries)
        assert store.load(key) == entries
    finally:
        store.close()


def test_a_lone_surrogate_is_imported_forked_and_resumed(project: Path, tmp_path: Path) -> None:
    sid = write_with_surrogate(project)
    assert texts(get_session_messages(sid, str(project)))[2] == "broken \ud83d emoji"

    store = SQLiteSessionStore(tmp_path / "s.db")
    try:
        import_session_to_store(sid, store, directory=str(project))
        assert texts(get_session_messages_from_store(store, sid, str(project)))[2] == "broken \ud83d emoji"
        fork = fork_session_via_store(store, sid, str(project))
        assert len(get_session_messages_from_store(store, fork.session_id, str(project))) == 4

        local = fork_session(sid, str(project))
        assert texts(get_session_messages(local.session_id, str(project)))[2] == "broken \ud83d emoji"

        options = ClaudeAgentOptions(resume=sid, cwd=str(project), session_store=store)
        found = materialize(store, options, {"HOME": str(tmp_path / "nohome")})
        assert found is not None
        from claude_sync._engine.tempfiles import remove_private_dir

        try:
            written = next(found[0].rglob(f"{sid}.jsonl")).read_text(encoding="utf-8")
            assert json.loads(written.split("\n")[2])["message"]["content"][0]["text"] == "broken \ud83d emoji"
        finally:
            remove_private_dir(str(found[0]))
    finally:
        store.close()


def deep_line(depth: int = 5000) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("odd", ["parent_list", "parent_dict", "uuid_list", "deep", "deep_object"])
def test_one_odd_line_is_skipped_not_fatal(project: Path, odd: str, caplog: pytest.LogCaptureFixture) -> None:
    sid = str(uuid.uuid4())
    entries = four_turns(sid)
    odd_line: str
    if odd == "parent_list":
        odd_line = json.dumps(line("user", "odd", None, sid, parentUuid=[entries[1]["uuid"]]))
    elif odd == "parent_dict":
        odd_line = json.dumps(line("assistant", "odd", None, sid, parentUuid={"u": 1}))
    elif odd == "uuid_list":
        odd_line = json.dumps({**line("user", "odd", entries[3]["uuid"], sid), "uuid": ["x"]})
    elif odd == "deep":
        odd_line = deep_line()
    else:
        odd_line = '{"type":"user","x":' + "[" * 5000 + "]" * 5000 + "}"
    lines = [json.dumps(e) for e in entries]
    lines.insert(2, odd_line)
    transcript_path(project, sid).write_text("\n".join(lines) + "\n", encoding="utf-8")

    assert texts(get_session_messages(sid, str(project))) == ["user 0", "assistant 0", "user 1", "assistant 1"]
    fork = fork_session(sid, str(project))
    assert texts(get_session_messages(fork.session_id, str(project))) == ["user 0", "assistant 0", "user 1", "assistant 1"]
    store = InMemorySessionStore()
    import_session_to_store(sid, store, directory=str(project))
    assert texts(get_session_messages_from_store(store, sid, str(project))) == ["user 0", "assistant 0", "user 1", "assistant 1"]
    fork = fork_session_via_store(store, sid, str(project))
    assert len(get_session_messages_from_store(store, fork.session_id, str(project))) == 4
    assert project_key_for_directory(str(project))


ODD_VALUES: Dict[str, Any] = {
    "list": ["x"], "dict": {"u": 1}, "int": 7, "float": 1.5, "true": True, "false": False, "null": None,
    "empty": "", "nested_list": [[{"a": [1]}]], "unknown_uuid": "00000000-0000-4000-8000-000000000000",
}  # fmt: skip
"""Values of the wrong kind a hand edit or a broken writer can leave in a field."""
ODD_FIELDS = (
    "type", "uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "isSidechain", "message",
    "message.content", "message.role", "message.content.0", "message.content.0.text", "message.content.0.type",
    "isMeta", "isCompactSummary", "toolUseResult", "forkedFrom", "cwd", "customTitle", "aiTitle", "lastPrompt", "tag",
    "summary", "agentId", "teamName", "subtype", "content", "replacements", "leafUuid", "gitBranch",
)  # fmt: skip
"""Every field of a transcript line the library reads (dotted: inside ``message``)."""


def with_field(entry: Dict[str, Any], dotted: str, value: Any) -> Dict[str, Any]:
    entry = json.loads(json.dumps(entry))
    target: Any = entry
    *path, last = dotted.split(".")
    for step in path:
        target = target[int(step)] if isinstance(target, list) else target[step]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return entry


def test_fork_skips_a_line_whose_logical_parent_is_a_list(project: Path) -> None:
    """Issue 26 item 15: ``new_uuid.get(<list>)`` raised ``TypeError: unhashable type``."""
    sid = str(uuid.uuid4())
    entries = four_turns(sid)
    entries[3]["logicalParentUuid"] = [entries[1]["uuid"]]
    transcript_path(project, sid).write_text("\n".join(json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    fork = fork_session(sid, str(project))
    assert texts(get_session_messages(fork.session_id, str(project))) == texts(get_session_messages(sid, str(project)))
    store = InMemorySessionStore()
    import_session_to_store(sid, store, directory=str(project))
    fork = fork_session_via_store(store, sid, str(project))
    assert texts(get_session_messages_from_store(store, fork.session_id, str(project))) == ["user 0", "assistant 0", "user 1"]


def every_reader(project: Path, sid: str) -> None:
    """Every public function that reads or rewrites ``sid``: none may raise."""
    from claude_sync import (
        get_session_info,
        get_session_info_from_store,
        list_sessions,
        list_sessions_from_store,
        rename_session,
        tag_session,
    )

    directory = str(project)
    list_sessions(directory)
    get_session_info(sid, directory)
    get_session_messages(sid, directory)
    fork_session(sid, directory)
    rename_session(sid, "renamed", directory)
    tag_session(sid, "tagged", directory)
    store = InMemorySessionStore()
    import_session_to_store(sid, store, directory=directory)
    list_sessions_from_store(store, directory)
    get_session_info_from_store(store, sid, directory)
    get_session_messages_from_store(store, sid, directory)
    fork_session_via_store(store, sid, directory)


def metadata_lines(sid: str, leaf: str) -> List[Dict[str, Any]]:
    """The metadata lines a transcript can hold besides messages."""
    return [
        {"type": "custom-title", "customTitle": "a title", "sessionId": sid},
        {"type": "ai-title", "aiTitle": "an ai title", "sessionId": sid},
        {"type": "tag", "tag": "a tag", "sessionId": sid},
        {"type": "last-prompt", "lastPrompt": "the last prompt", "sessionId": sid},
        {"type": "summary", "summary": "a summary", "leafUuid": leaf},
        {"type": "content-replacement", "sessionId": sid, "replacements": [{"kind": "x"}], "uuid": str(uuid.uuid4())},
    ]


@pytest.mark.parametrize("field", ODD_FIELDS)
def test_every_field_of_the_wrong_kind_on_any_line_is_survived(project: Path, field: str) -> None:
    """Exhaustive over (field, odd value, which line): 29 fields x 10 values x 10 lines (4
    messages, 6 metadata lines), each transcript read, listed, forked, renamed, tagged,
    imported and forked again through a store."""
    failures: List[str] = []
    for name, value in ODD_VALUES.items():
        for index in range(10):
            sid = str(uuid.uuid4())
            entries = four_turns(sid)
            entries += metadata_lines(sid, entries[-1]["uuid"])
            if "." in field and index >= 4:
                continue  # inside ``message``: message lines only
            try:
                entries[index] = with_field(entries[index], field, value)
            except (IndexError, KeyError, TypeError):
                continue
            lines = [json.dumps(e) for e in entries]
            transcript_path(project, sid).write_text("\n".join(lines) + "\n", encoding="utf-8")
            try:
                every_reader(project, sid)
            except ValueError as exc:
                if "no messages to fork" not in str(exc):  # the one documented refusal
                    failures.append(f"{field}={name} on line {index}: {exc!r}")
            except Exception as exc:  # noqa: BLE001 - collected for the assert
                failures.append(f"{field}={name} on line {index}: {exc!r}")
    assert not failures, "\n".join(failures)
