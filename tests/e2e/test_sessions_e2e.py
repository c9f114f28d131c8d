"""Session functions and session stores against transcripts the real CLI writes (fake API).

Each test runs the real CLI (``e2e_options``: config dir ``tmp_path/home/.claude``), then
reads, edits or resumes what it wrote: listing and titles, fork then resume from the fork
point, delete, subagent transcripts (the fake model calls the Task tool), compaction, and a
session that lives only in a store resumed by the CLI.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, List

import pytest

from claude_sync import (
    InMemorySessionStore,
    ResultMessage,
    SessionStoreError,
    SQLiteSessionStore,
    SystemMessage,
    archive_session,
    delete_session,
    fork_session,
    get_session_info,
    get_session_messages,
    get_session_messages_from_store,
    get_subagent_messages,
    list_sessions,
    list_sessions_from_store,
    list_subagents,
    query,
    rename_session,
    tag_session,
    unarchive_session,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, content_text, text, tool_use

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

Options = Callable[..., Any]


@pytest.fixture()
def config_dir(e2e_options: Options, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI's config dir in these runs, also set for the session functions of this process."""
    path = Path(e2e_options().env["CLAUDE_CONFIG_DIR"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(path))
    return path


def run(options: Any, prompt: str) -> List[Any]:
    messages = list(query(prompt, options=options))
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]
    return messages


def texts_of(messages: List[Any]) -> List[str]:
    out = []
    for m in messages:
        content = m.message.get("content") if isinstance(m.message, dict) else None
        out.append(content_text(content))
    return out


def test_list_after_a_real_run_shows_it_with_its_title(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path
) -> None:
    fake_api.add(text("first answer"))
    sid = run(e2e_options(), "hello there")[-1].session_id
    [info] = list_sessions(str(e2e_workdir))
    assert (info.session_id, info.summary, info.first_prompt) == (sid, "hello there", "hello there")
    assert info.cwd == str(e2e_workdir.resolve()) and info.created_at and info.file_size
    rename_session(sid, "Greeting", directory=str(e2e_workdir))
    tag_session(sid, "demo", directory=str(e2e_workdir))
    fake_api.add(text("second answer"))
    run(e2e_options(resume=sid), "and again")  # the CLI appends to the renamed transcript
    info = get_session_info(sid, str(e2e_workdir))
    assert info is not None and (info.summary, info.custom_title, info.tag) == ("Greeting", "Greeting", "demo")
    assert texts_of(get_session_messages(sid, str(e2e_workdir))) == ["hello there", "first answer", "and again", "second answer"]
    assert list_sessions() == list_sessions(str(e2e_workdir))  # all projects: the same one session
    fake_api.assert_no_surprises()


def test_fork_then_resume_continues_from_the_fork_point(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path
) -> None:
    fake_api.add(text("answer A"), text("answer B"))
    sid = run(e2e_options(), "question A")[-1].session_id
    run(e2e_options(resume=sid), "question B")
    messages = get_session_messages(sid, str(e2e_workdir))
    assert texts_of(messages) == ["question A", "answer A", "question B", "answer B"]
    fork = fork_session(sid, str(e2e_workdir), up_to_message_id=messages[1].uuid)
    info = get_session_info(fork.session_id, str(e2e_workdir))
    assert info is not None and info.custom_title == "question A (fork)"  # no title yet: the first prompt
    fake_api.add(text("answer C"))
    resumed = run(e2e_options(resume=fork.session_id), "question C")
    assert resumed[-1].session_id == fork.session_id
    sent = "\n".join(content_text(m["content"]) for m in fake_api.turn_requests()[-1].messages)
    assert sent.index("question A") < sent.index("answer A") < sent.index("question C") and "question B" not in sent
    assert texts_of(get_session_messages(fork.session_id, str(e2e_workdir))) == ["question A", "answer A", "question C", "answer C"]
    assert texts_of(get_session_messages(sid, str(e2e_workdir)))[-1] == "answer B"  # the source is untouched


def test_an_archived_session_resumes_continues_and_a_prompt_unarchives_it(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path, real_cli_path: str
) -> None:
    """``archive_session`` marks a session; the CLI still resumes it (and ``--continue`` still
    takes it when it is the newest), and the prompt sent in it unarchives it: CLI 2.1.332
    rewrites the mark (``{"archived":false,…,"by":"cli"}``), 2.1.197 leaves the file, and the
    listing reads the later prompt either way."""
    fake_api.add(text("older"), text("newest"), text("continued"), text("again"))
    older = run(e2e_options(), "older session")[-1].session_id
    sid = run(e2e_options(), "newest session")[-1].session_id
    archive_session(sid, str(e2e_workdir))
    mark = next((config_dir / "projects").rglob(f"{sid}/archived.json"))
    assert json.loads(mark.read_text())["archived"] is True
    assert {i.session_id: i.archived for i in list_sessions(str(e2e_workdir))} == {sid: True, older: None}
    continued = run(e2e_options(continue_conversation=True), "go on")[-1].session_id
    assert continued == sid  # --continue does not skip an archived newest session
    info = get_session_info(sid, str(e2e_workdir))
    assert info is not None and info.archived is False  # the prompt lifted the mark
    record = json.loads(mark.read_text())
    if cli_is_at_least(real_cli_path, "2.1.332"):
        assert record["archived"] is False and record["by"] == "cli"
    else:
        assert record["archived"] is True and record["by"] == "sdk"  # 2.1.197 does not know the mark
    archive_session(sid)
    run(e2e_options(resume=sid), "resumed while archived")  # --resume of an archived session works
    assert get_session_info(sid).archived is False  # type: ignore[union-attr]
    unarchive_session(sid, str(e2e_workdir))
    assert json.loads(mark.read_text())["archived"] is False
    assert texts_of(get_session_messages(sid))[-2:] == ["resumed while archived", "again"]  # transcript intact


def test_delete_removes_it(e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path) -> None:
    fake_api.add(tool_use("Task", {"description": "look", "prompt": "say sub", "subagent_type": "general-purpose"}),
                 text("sub answer"), text("main done"))  # fmt: skip
    sid = run(e2e_options(allowed_tools=["Task"]), "delegate please")[-1].session_id
    [agent] = list_subagents(sid, str(e2e_workdir))
    main = get_session_messages(sid, str(e2e_workdir))
    [tool_use_id] = [b["id"] for m in main if m.type == "assistant" for b in m.message["content"] if b["type"] == "tool_use"]
    sub = get_subagent_messages(sid, agent, str(e2e_workdir))
    # 2.1.330 runs the agent in the background: which scripted reply it gets is a race
    assert texts_of(sub)[0] == "say sub" and [m.type for m in sub] == ["user", "assistant"]
    assert {m.session_id for m in sub} == {sid}
    assert {m.parent_tool_use_id for m in sub} == {tool_use_id}
    delete_session(sid, str(e2e_workdir))
    assert list_sessions(str(e2e_workdir)) == [] and get_session_info(sid) is None
    assert not list((config_dir / "projects").rglob(f"{sid}*"))


def test_messages_after_a_real_compaction(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path
) -> None:
    fake_api.add(text("before"), text("still before"))
    sid = run(e2e_options(), "early question")[-1].session_id
    run(e2e_options(resume=sid), "second question")  # the CLI does not compact a single turn
    run(e2e_options(resume=sid), "/compact")
    fake_api.add(text("after compact"))
    run(e2e_options(resume=sid), "later question")
    got = texts_of(get_session_messages(sid, str(e2e_workdir)))
    assert got[0].startswith("This session is being continued")  # the compact summary stands in
    assert "early question" not in got and got[-2:] == ["later question", "after compact"]
    info = get_session_info(sid, str(e2e_workdir))
    assert info is not None and info.first_prompt == "early question" and info.summary == "later question"


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_session_resumed_from_a_store_continues_the_conversation(
    kind: str, e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path, tmp_path: Path
) -> None:
    store: Any = InMemorySessionStore() if kind == "memory" else SQLiteSessionStore(tmp_path / "s.db")
    try:
        fake_api.add(text("the code word is PLUM"))
        first = run(e2e_options(session_store=store), "remember the code word")
        assert not [m for m in first if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
        sid = first[-1].session_id
        directory = str(e2e_workdir)
        local = texts_of(get_session_messages(sid, directory))
        assert texts_of(get_session_messages_from_store(store, sid, directory)) == local
        [row] = list_sessions_from_store(store, directory)
        assert (row.session_id, row.summary) == (sid, "remember the code word")
        delete_session(sid, directory)  # now the session lives only in the store
        fake_api.add(text("it was PLUM"))
        resumed = run(e2e_options(session_store=store, resume=sid), "what was the code word?")
        assert resumed[-1].session_id == sid
        sent = "\n".join(content_text(m["content"]) for m in fake_api.turn_requests()[-1].messages)
        assert sent.index("remember the code word") < sent.index("the code word is PLUM") < sent.index("what was the code word?")
        assert texts_of(get_session_messages_from_store(store, sid, directory)) == [
            "remember the code word", "the code word is PLUM", "what was the code word?", "it was PLUM"
        ]  # fmt: skip
        assert get_session_info(sid, directory) is None  # the resume ran in a temporary config dir, now gone
        assert not list(Path(e2e_options().env["TMPDIR"]).rglob("claude_sync-resume-*"))
    finally:
        if kind == "sqlite":
            store.close()


def test_the_cli_mirror_frames_cover_every_transcript_line(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path
) -> None:
    """What the store receives is the local file, line for line (subagent files included)."""
    store = InMemorySessionStore()
    fake_api.add(tool_use("Task", {"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
                 text("sub"), text("done"))  # fmt: skip
    sid = run(e2e_options(session_store=store, allowed_tools=["Task"]), "go")[-1].session_id
    folder = next((config_dir / "projects").iterdir())
    local = [json.loads(line) for line in (folder / f"{sid}.jsonl").read_text().splitlines()]
    key: Any = {"project_key": folder.name, "session_id": sid}
    # 2.1.330 also writes api-request* debugging lines to the file, and does not mirror them
    assert store.get_entries(key) == [e for e in local if not str(e.get("type")).startswith("api-request")]
    [subpath] = store.list_subkeys(key)
    agent_file = folder / sid / f"{subpath}.jsonl"
    mirrored = [e for e in store.get_entries({**key, "subpath": subpath}) if e.get("type") != "agent_metadata"]
    on_disk = [json.loads(line) for line in agent_file.read_text().splitlines()]
    assert mirrored == [e for e in on_disk if not str(e.get("type")).startswith("api-request")]


class BrokenStore(InMemorySessionStore):
    """Appends always fail; loads hang until released (or fail when ``fail_loads``)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def append(self, key: Any, entries: Any) -> None:
        raise ConnectionError("store unreachable")

    def load(self, key: Any) -> Any:
        self.release.wait(60)
        return super().load(key)


def test_a_broken_store_loses_no_local_transcript_and_hangs_nothing(
    e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, config_dir: Path
) -> None:
    store = BrokenStore()
    try:
        fake_api.add(text("still answered"))
        messages = run(e2e_options(session_store=store), "hello")
        errors = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
        assert errors and "store unreachable" in errors[0].data["error"]
        sid = messages[-1].session_id
        assert texts_of(get_session_messages(sid, str(e2e_workdir))) == ["hello", "still answered"]
        started = time.monotonic()
        with pytest.raises(SessionStoreError, match="load_timeout_ms=500"):
            run(e2e_options(session_store=store, resume=str(uuid.uuid4()), load_timeout_ms=500), "again")
        assert time.monotonic() - started < 10
    finally:
        store.release.set()
