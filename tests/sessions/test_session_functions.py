"""Session functions over transcript files written here (the e2e tests use real CLI ones)."""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from transcript_lines import conversation, entry, folder, write

import claude_sync
from claude_sync import (
    delete_session,
    fork_session,
    get_session_info,
    get_session_messages,
    get_subagent_messages,
    list_sessions,
    list_subagents,
    rename_session,
    tag_session,
)
from claude_sync._sessions.transcript import sanitize_path


def test_list_shows_the_first_prompt_then_the_title_and_tag(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    write(folder(config, project) / f"{sid}.jsonl", conversation(sid))
    [info] = list_sessions(str(project))
    assert (info.session_id, info.summary, info.first_prompt, info.custom_title) == (sid, "question 0", "question 0", None)
    assert (info.git_branch, info.cwd, info.tag) == ("main", "/somewhere", None)
    assert info.created_at == 1735689600000 and info.file_size and info.file_size > 0
    rename_session(sid, "  My title ", directory=str(project))
    tag_session(sid, "exp\u200b1", directory=str(project))
    info2 = get_session_info(sid, str(project))
    assert info2 is not None and (info2.summary, info2.custom_title, info2.tag) == ("My title", "My title", "exp1")
    tag_session(sid, None)  # no directory: searches every project
    assert list_sessions()[0].tag is None


def test_listing_skips_sidechains_metadata_only_corrupt_and_foreign_files(config: Path, project: Path) -> None:
    here = folder(config, project)
    good, side, meta, bad = (str(uuid.uuid4()) for _ in range(4))
    write(here / f"{good}.jsonl", ["{not json", *conversation(good)])
    write(here / f"{side}.jsonl", [entry("user", "sub", None, side, isSidechain=True)])
    write(here / f"{meta}.jsonl", [{"type": "permission-mode", "sessionId": meta}])
    (here / f"{bad}.jsonl").write_bytes(b"\xff\xfe garbage \x00\n")
    (here / "notes.jsonl").write_text("{}\n")
    (here / f"{uuid.uuid4()}.jsonl").write_text("")
    assert [s.session_id for s in list_sessions(str(project))] == [good]
    assert [m.message["content"][0]["text"] for m in get_session_messages(good, str(project))] == [
        "question 0", "answer 0", "question 1", "answer 1"
    ]  # fmt: skip


def test_list_sorts_newest_first_and_pages(config: Path, project: Path) -> None:
    here = folder(config, project)
    ids = [str(uuid.uuid4()) for _ in range(5)]
    for n, sid in enumerate(ids):
        write(here / f"{sid}.jsonl", conversation(sid, 1))
        os.utime(here / f"{sid}.jsonl", (1_700_000_000 + n, 1_700_000_000 + n))
    newest = list(reversed(ids))
    assert [s.session_id for s in list_sessions(str(project))] == newest
    assert [s.session_id for s in list_sessions(str(project), limit=2, offset=1)] == newest[1:3]
    assert list_sessions(str(project / "elsewhere")) == []


def test_a_session_id_that_is_not_a_uuid_is_a_value_error_naming_it_for_mutations(config: Path) -> None:
    for call in (
        lambda: rename_session("nope", "t"),
        lambda: tag_session("nope", "t"),
        lambda: delete_session("nope"),
        lambda: fork_session("nope"),
    ):
        with pytest.raises(ValueError, match="nope"):
            call()
    with pytest.raises(ValueError, match="up_to_message_id"):
        fork_session(str(uuid.uuid4()), up_to_message_id="bad")


def test_readers_given_a_non_uuid_id_return_nothing_and_touch_no_file(
    config: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the official SDK: None / [] for a bad id, and not one path looked at."""
    from claude_sync._sessions import transcript_files

    def no_disk(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a reader looked for files for a non-UUID id")

    monkeypatch.setattr(transcript_files, "candidate_dirs", no_disk)
    for bad in ("../../etc/passwd", "../x", "nope", ""):
        assert get_session_info(bad) is None and get_session_info(bad, str(project)) is None
        assert get_session_messages(bad) == [] and get_session_messages(bad, str(project)) == []
        assert list_subagents(bad) == [] and get_subagent_messages(bad, "a1") == []


def test_missing_sessions(config: Path) -> None:
    sid = str(uuid.uuid4())
    assert get_session_messages(sid) == [] and get_session_info(sid) is None and list_subagents(sid) == []
    for call in (lambda: rename_session(sid, "t"), lambda: delete_session(sid), lambda: fork_session(sid)):
        with pytest.raises(FileNotFoundError, match=sid):
            call()
    with pytest.raises(ValueError, match="title"):
        rename_session(sid, "   ")
    with pytest.raises(ValueError, match="tag"):
        tag_session(sid, "\u200b ")


def test_fork_copies_up_to_a_message_with_new_ids_and_a_title(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    lines = conversation(sid, 3)
    write(folder(config, project) / f"{sid}.jsonl", [*lines, {"type": "custom-title", "customTitle": "Orig", "sessionId": sid}])
    fork = fork_session(sid, str(project), up_to_message_id=lines[3]["uuid"])
    assert isinstance(fork, claude_sync.ForkSessionResult) and fork.session_id != sid
    messages = get_session_messages(fork.session_id, str(project))
    assert [m.message["content"][0]["text"] for m in messages] == ["question 0", "answer 0", "question 1", "answer 1"]
    assert {m.session_id for m in messages} == {fork.session_id}
    assert not {m.uuid for m in messages} & {e["uuid"] for e in lines}
    info = get_session_info(fork.session_id, str(project))
    assert info is not None and info.custom_title == "Orig (fork)"
    raw = [json.loads(x) for x in (folder(config, project) / f"{fork.session_id}.jsonl").read_text().splitlines()]
    assert raw[0]["forkedFrom"] == {"sessionId": sid, "messageUuid": lines[0]["uuid"]}
    assert raw[1]["parentUuid"] == raw[0]["uuid"]
    assert fork_session(sid, title="Named").session_id != fork.session_id
    with pytest.raises(ValueError, match="not found"):
        fork_session(sid, up_to_message_id=str(uuid.uuid4()))
    assert not [p for p in folder(config, project).iterdir() if p.name.startswith(".")]  # no temp file left


def test_delete_removes_the_transcript_and_its_subagents(config: Path, project: Path) -> None:
    here = folder(config, project)
    sid = str(uuid.uuid4())
    write(here / f"{sid}.jsonl", conversation(sid))
    sub = here / sid / "subagents"
    sub.mkdir(parents=True)
    agent_lines = conversation(sid, 1)
    write(sub / "agent-abc.jsonl", [dict(e, isSidechain=True, agentId="abc") for e in agent_lines])
    (sub / "agent-abc.meta.json").write_text(json.dumps({"toolUseId": "toolu_1", "agentType": "general"}))
    nested = sub / "workflows" / "run1"
    nested.mkdir(parents=True)
    write(nested / "agent-def.jsonl", conversation(sid, 1))
    assert list_subagents(sid, str(project)) == ["abc", "def"]
    msgs = get_subagent_messages(sid, "abc", str(project))
    assert [m.parent_tool_use_id for m in msgs] == ["toolu_1", "toolu_1"] and msgs[0].parent_agent_id is None
    assert len(get_subagent_messages(sid, "def")) == 2 and get_subagent_messages(sid, "zzz") == []
    delete_session(sid, str(project))
    assert not (here / f"{sid}.jsonl").exists() and not (here / sid).exists()
    assert list_sessions(str(project)) == []


def test_parallel_tool_calls_come_back_whole(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    user = entry("user", "go", None, sid)
    a1 = {"type": "assistant", "uuid": "a1", "parentUuid": user["uuid"], "sessionId": sid, "timestamp": "2025-01-01T00:00:01Z",
          "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}}
    a2 = {**a1, "uuid": "a2", "parentUuid": "a1", "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]}}
    r1 = {"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": sid, "timestamp": "2025-01-01T00:00:02Z",
          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "one"}]}}
    r2 = {**r1, "uuid": "r2", "parentUuid": "a2", "timestamp": "2025-01-01T00:00:03Z",
          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "two"}]}}
    final = {"type": "assistant", "uuid": "a3", "parentUuid": "r2", "sessionId": sid, "timestamp": "2025-01-01T00:00:04Z",
             "message": {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "done"}]}}  # fmt: skip
    write(folder(config, project) / f"{sid}.jsonl", [user, a1, a2, r1, r2, final])
    assert [m.uuid for m in get_session_messages(sid)] == [user["uuid"], "a1", "a2", "r1", "r2", "a3"]


def test_concurrent_renames_and_appends_never_tear_a_line(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    path = folder(config, project) / f"{sid}.jsonl"
    write(path, conversation(sid))

    def renamer(n: int) -> None:
        for i in range(20):
            rename_session(sid, f"title {n}-{i}", str(project))

    def cli_like_appender() -> None:
        for i in range(40):
            with open(path, "a") as handle:
                handle.write(json.dumps({"type": "last-prompt", "lastPrompt": f"p{i}", "sessionId": sid}) + "\n")

    threads = [threading.Thread(target=renamer, args=(n,)) for n in range(4)] + [threading.Thread(target=cli_like_appender)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    # A rename that reads the last byte while another append is half-visible adds its own
    # leading newline (never glue onto a cut-off line): a blank line at most, which every
    # JSONL reader here skips (~1 run in 10 under load). No line is ever torn or lost.
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    assert all(json.loads(line) for line in lines)  # every line whole
    assert len(lines) == 4 + 80 + 40


def test_long_project_paths_use_the_cli_hash() -> None:
    # the CLI's own folder name for a 240-character path, from a real run's projects dir layout
    long_path = "/" + "a" * 239
    name = sanitize_path(long_path)
    assert len(name) > 200 and name.startswith("-" + "a" * 199 + "-")
    assert sanitize_path("/home/u/my project.x") == "-home-u-my-project-x"


def test_a_transcript_from_a_newer_cli_is_read_unknown_lines_skipped(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    future = [dict(e, version="99.0.0", newField={"x": 1}) for e in conversation(sid)]
    future.insert(1, {"type": "hologram", "uuid": str(uuid.uuid4()), "parentUuid": future[0]["uuid"], "sessionId": sid})
    future.append({"type": "api-request-blob", "hash": "h", "message": {"content": "x"}})
    write(folder(config, project) / f"{sid}.jsonl", future)
    assert [s.summary for s in list_sessions(str(project))] == ["question 0"]
    assert [m.message["content"][0]["text"] for m in get_session_messages(sid)] == ["question 0", "answer 0", "question 1", "answer 1"]


def test_corrupt_lines_are_logged(config: Path, project: Path, caplog: pytest.LogCaptureFixture) -> None:
    sid = str(uuid.uuid4())
    write(folder(config, project) / f"{sid}.jsonl", [*conversation(sid), "{truncated", "[1, 2]"])
    with caplog.at_level("WARNING", logger="claude_sync.sessions"):
        assert len(get_session_messages(sid)) == 4
    assert "Skipped 2 corrupt line(s)" in caplog.text


def test_a_line_being_written_is_left_out_quietly(config: Path, project: Path, caplog: pytest.LogCaptureFixture) -> None:
    sid = str(uuid.uuid4())
    path = folder(config, project) / f"{sid}.jsonl"
    write(path, conversation(sid))
    with open(path, "a") as handle:
        handle.write('{"type":"assistant","uuid":"half-writ')
    with caplog.at_level("WARNING", logger="claude_sync.sessions"):
        assert len(get_session_messages(sid)) == 4
    assert "corrupt" not in caplog.text


def test_sessions_of_git_worktrees_are_listed_with_the_repository(config: Path, tmp_path: Path) -> None:
    import subprocess

    repo, tree = tmp_path / "repo", tmp_path / "repo-wt"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True, timeout=30)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=repo, check=True, timeout=30)
    subprocess.run([*git, "worktree", "add", "-q", str(tree)], cwd=repo, check=True, timeout=30)
    in_repo, in_tree = str(uuid.uuid4()), str(uuid.uuid4())
    write(folder(config, repo) / f"{in_repo}.jsonl", conversation(in_repo))
    write(folder(config, tree) / f"{in_tree}.jsonl", conversation(in_tree))
    assert {s.session_id for s in list_sessions(str(repo))} == {in_repo, in_tree}
    assert {s.session_id for s in list_sessions(str(repo), include_worktrees=False)} == {in_repo}
    assert len(get_session_messages(in_tree, str(repo))) == 4  # found through the worktree
    rename_session(in_tree, "from the repo", str(repo))
    info = get_session_info(in_tree, str(repo))
    assert info is not None and info.custom_title == "from the repo" and info.cwd == "/somewhere"
