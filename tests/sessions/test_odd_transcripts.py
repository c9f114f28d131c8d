"""Odd transcripts the CLI (or a hand edit) can leave: an escaped lone surrogate, a line whose
``parentUuid`` is not a string, a line nested deeper than Python's recursion limit. Each is
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
