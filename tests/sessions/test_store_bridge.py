"""A running session with a ``session_store`` (the testing kit's scripted CLI, as a subprocess): mirroring, flush semantics, failing
and slow stores, resume from a store, ``load_timeout_ms``."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit, ask, fake_opentelemetry, hook_request, responses, turn_script

from claude_sync import ClaudeSDKClient, InMemorySessionStore, ResultMessage, SystemMessage, query
from claude_sync._sessions.store_bridge import StoreBridge, file_key
from claude_sync._sessions.store_functions import project_key_for_directory
from claude_sync._wire.errors import SessionStoreError
from claude_sync.testing import ScriptedCLI


def mirror(config: Path, sid: str, *entries: Dict[str, Any], subpath: str = "") -> Dict[str, Any]:
    """The CLI's ``transcript_mirror`` line for ``entries`` of a session under ``config``."""
    pk = project_key_for_directory(os.getcwd())
    path = config / "projects" / pk / (f"{sid}/{subpath}.jsonl" if subpath else f"{sid}.jsonl")
    return {"type": "transcript_mirror", "filePath": str(path), "entries": list(entries)}


def _bridge(client: ClaudeSDKClient) -> StoreBridge:
    """The session store's bridge among the client's connection extensions (exactly one)."""
    assert client.session is not None
    (bridge,) = [e for e in client.session.extensions if isinstance(e, StoreBridge)]
    return bridge


def line(sid: str, n: int) -> Dict[str, Any]:
    return {"type": "user", "uuid": str(uuid.uuid4()), "sessionId": sid, "n": n, "message": {"role": "user", "content": f"m{n}"}}


def key(sid: str, subpath: str = "") -> Any:
    k: Dict[str, str] = {"project_key": project_key_for_directory(os.getcwd()), "session_id": sid}
    if subpath:
        k["subpath"] = subpath
    return k


def test_file_key() -> None:
    assert file_key("/c/projects/pk/s.jsonl", "/c/projects") == {"project_key": "pk", "session_id": "s"}
    assert file_key("/c/projects/pk/s/subagents/w/agent-a.jsonl", "/c/projects") == {
        "project_key": "pk", "session_id": "s", "subpath": "subagents/w/agent-a"
    }  # fmt: skip
    assert file_key("/elsewhere/pk/s.jsonl", "/c/projects") is None
    assert file_key("/c/projects/pk/s/notes.txt", "/c/projects") is None


def test_file_key_sees_through_a_symlinked_config_dir(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "projects" / "pk").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    got = file_key(str(real / "projects" / "pk" / "s.jsonl"), str(tmp_path / "link" / "projects"))
    assert got == {"project_key": "pk", "session_id": "s"}


def test_mirrored_turn_is_in_the_store_when_its_result_arrives(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    cli = (ScriptedCLI(directory=tmp_path).expect_user()
           .emit(mirror(tmp_path, sid, line(sid, 1)))
           .emit(mirror(tmp_path, sid, line(sid, 2)))
           .emit(mirror(tmp_path, sid, line(sid, 3), subpath="subagents/agent-x"))
           .text("hi").result())  # fmt: skip
    store = InMemorySessionStore()
    seen_at_result: List[Any] = []
    for message in query("go", options=cli.options(session_store=store, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})):
        assert not (isinstance(message, SystemMessage) and message.subtype == "mirror_error"), message
        if isinstance(message, ResultMessage):
            seen_at_result = [e["n"] for e in store.get_entries(key(sid))]
    assert seen_at_result == [1, 2]
    assert [e["n"] for e in store.get_entries(key(sid, "subagents/agent-x"))] == [3]
    assert "--session-mirror" in cli.last_run.argv


def test_eager_mirror_appends_before_the_turn_ends(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    gate = tmp_path / "gate"
    cli = (ScriptedCLI(directory=tmp_path).expect_user().emit(mirror(tmp_path, sid, line(sid, 1)))
           .wait_for_file(gate, timeout=30).text("hi").result())  # fmt: skip
    store = InMemorySessionStore()
    options = cli.options(session_store=store, session_store_flush="eager", env={"CLAUDE_CONFIG_DIR": str(tmp_path)})
    with ClaudeSDKClient(options) as client:
        client.query("go")
        deadline = time.monotonic() + 30
        while not store.get_entries(key(sid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [e["n"] for e in store.get_entries(key(sid))] == [1]  # the turn has not ended yet
        gate.touch()
        assert isinstance(list(client.receive_response())[-1], ResultMessage)


class Failing(InMemorySessionStore):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def append(self, key: Any, entries: Any) -> None:
        self.calls += 1
        raise RuntimeError("store is down")


def test_a_failing_store_is_reported_and_the_session_goes_on(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    cli = ScriptedCLI(directory=tmp_path).expect_user().emit(mirror(tmp_path, sid, line(sid, 1))).text("ok").result()
    store = Failing()
    messages = list(query("go", options=cli.options(session_store=store, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})))
    errors = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
    assert len(errors) == 1 and "store is down" in errors[0].data["error"] and errors[0].data["session_id"] == sid
    assert isinstance(messages[-1], ResultMessage)
    assert store.calls == 4  # two retries at the turn, and a last try of the backlog at close


class Down(InMemorySessionStore):
    """Appends fail while ``down`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.down = threading.Event()

    def append(self, key: Any, entries: Any) -> None:
        if self.down.is_set():
            raise ConnectionError("store is down")
        super().append(key, entries)


def test_entries_a_failing_store_missed_reach_it_with_the_next_flush(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    cli = (ScriptedCLI(directory=tmp_path)
           .expect_user().emit(mirror(tmp_path, sid, line(sid, 1), line(sid, 2))).text("one").result()
           .expect_user().emit(mirror(tmp_path, sid, line(sid, 3))).text("two").result())  # fmt: skip
    store = Down()
    store.down.set()
    with ClaudeSDKClient(cli.options(session_store=store, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})) as client:
        client.query("first")
        first = list(client.receive_response())
        [error] = [m for m in first if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
        assert "2 entries kept to retry with the next flush" in error.data["error"]
        assert store.get_entries(key(sid)) == []
        store.down.clear()
        client.query("second")
        second = list(client.receive_response())
        assert not [m for m in second if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
        assert [e["n"] for e in store.get_entries(key(sid))] == [1, 2, 3]  # no gap, in order


def test_entries_still_failing_at_close_are_reported_lost(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sid = str(uuid.uuid4())
    cli = ScriptedCLI(directory=tmp_path).expect_user().emit(mirror(tmp_path, sid, line(sid, 1))).text("ok").result()
    store = Down()
    store.down.set()
    with ClaudeSDKClient(cli.options(session_store=store, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})) as client:
        client.query("go")
        assert isinstance(list(client.receive_response())[-1], ResultMessage)
    lost = [r.getMessage() for r in caplog.records if "never reached the session store" in r.getMessage()]
    assert len(lost) == 1 and lost[0].startswith("1 mirrored entries of") and "still failing" in lost[0]


class Slow(InMemorySessionStore):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def append(self, key: Any, entries: Any) -> None:
        self.release.wait(60)
        super().append(key, entries)


def test_a_slow_store_delays_the_result_at_most_control_timeout(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    cli = ScriptedCLI(directory=tmp_path).expect_user().emit(mirror(tmp_path, sid, line(sid, 1))).text("ok").result()
    store = Slow()
    options = cli.options(session_store=store, control_timeout=0.5, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})
    messages: List[Any] = []
    try:
        for message in query("go", options=options):
            messages.append(message)
            if isinstance(message, ResultMessage):
                store.release.set()  # the result came although append() still blocked
    finally:
        store.release.set()
    kinds = [m.subtype for m in messages if isinstance(m, SystemMessage)]
    assert "mirror_error" in kinds and isinstance(messages[-1], ResultMessage)
    assert [e["n"] for e in store.get_entries(key(sid))] == [1]  # landed once released, before close returned


def test_a_stuck_store_holds_back_only_the_first_result_until_it_answers_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sid = str(uuid.uuid4())
    cli = ScriptedCLI(directory=tmp_path)
    for n in range(1, 5):
        cli.expect_user().emit(mirror(tmp_path, sid, line(sid, n))).text(f"turn {n}").result()
    store = Slow()
    options = cli.options(session_store=store, control_timeout=1.0, env={"CLAUDE_CONFIG_DIR": str(tmp_path)})
    waits: List[float] = []
    messages: List[Any] = []
    stored_at_result = 0
    try:
        with ClaudeSDKClient(options) as client:
            for n in range(1, 5):
                if n == 4:
                    store.release.set()  # the store answers again: the fourth result waits for it
                    assert wait_for(lambda: len(store.get_entries(key(sid))) == 3)
                started = time.monotonic()
                client.query(f"turn {n}")
                for message in client.receive_response():
                    if isinstance(message, ResultMessage):
                        waits.append(time.monotonic() - started)
                        stored_at_result = len(store.get_entries(key(sid)))
                    messages.append(message)
    finally:
        store.release.set()
    errors = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "mirror_error"]
    assert len(errors) == 1 and "no longer wait" in errors[0].data["error"], errors
    assert waits[0] >= 1.0 and max(waits[1:3]) < 0.9, waits  # only the first turn waited the full bound
    assert stored_at_result == 4  # once it answered again, the result waited for the store
    assert [e["n"] for e in store.get_entries(key(sid))] == [1, 2, 3, 4]
    assert sum("no longer wait" in r.getMessage() for r in caplog.records) == 1
    assert any("answers again" in r.getMessage() for r in caplog.records)


def wait_for(condition: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_resume_from_a_store_materializes_the_session(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    store = InMemorySessionStore()
    store.append(key(sid), [line(sid, 1), line(sid, 2)])
    store.append(key(sid, "subagents/agent-q"), [{"type": "agent_metadata", "toolUseId": "t"}, line(sid, 3)])
    store.append(key(sid, "../../escape"), [line(sid, 4)])
    home = tmp_path / "home"
    home.mkdir()
    (home / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "a", "refreshToken": "r"}}')
    (home / "settings.json").write_text('{"enabledPlugins": {"x": true}, "model": "m"}')
    cli = ScriptedCLI(directory=tmp_path).expect_user().text("ok").result()
    options = cli.options(session_store=store, resume=sid, env={"CLAUDE_CONFIG_DIR": str(home)})
    with ClaudeSDKClient(options) as client:
        bridge = _bridge(client)
        temp = bridge.temp_dir
        project = temp / "projects" / key(sid)["project_key"]
        assert [x["n"] for x in map(json.loads, (project / f"{sid}.jsonl").read_text().splitlines())] == [1, 2]
        assert (project / sid / "subagents" / "agent-q.jsonl").exists()
        assert json.loads((project / sid / "subagents" / "agent-q.meta.json").read_text()) == {"toolUseId": "t"}
        assert not list(temp.rglob("escape*"))
        assert "refreshToken" not in (temp / ".credentials.json").read_text()
        assert json.loads((temp / "settings.json").read_text()) == {"model": "m"}
        client.query("next")
        list(client.receive_response())
    assert not temp.exists()
    assert f"--resume={sid}" in cli.last_run.argv


def test_a_resume_from_the_store_keeps_the_callers_trace_context(tmp_path: Path, monkeypatch: Any) -> None:
    """The store's ``prepare`` re-plans the options (CLAUDE_CONFIG_DIR, --resume); the trace
    context, added after it, reaches the CLI too."""
    sid = str(uuid.uuid4())
    store = InMemorySessionStore()
    store.append(key(sid), [line(sid, 1)])
    fake_opentelemetry(monkeypatch, "00-feed-beef-01")
    cli = ScriptedCLI(directory=tmp_path)
    with ClaudeSDKClient(cli.options(session_store=store, resume=sid)) as client:
        assert client.session is not None and client.session.spawn_plan is not None
        env, temp = client.session.spawn_plan.env, _bridge(client).temp_dir
    assert temp is not None and env["CLAUDE_CONFIG_DIR"] == str(temp)
    assert env["TRACEPARENT"] == "00-feed-beef-01"
    assert f"--resume={sid}" in cli.last_run.argv


def test_resume_of_a_session_the_store_lacks_goes_to_the_cli_unchanged(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    cli = ScriptedCLI(directory=tmp_path)
    with ClaudeSDKClient(cli.options(session_store=InMemorySessionStore(), resume=sid)) as client:
        assert _bridge(client).temp_dir is None
    assert f"--resume={sid}" in cli.last_run.argv


class SlowLoad(InMemorySessionStore):
    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.release = threading.Event()
        self.fail = fail

    def load(self, key: Any) -> Any:
        if self.fail:
            raise OSError("disk on fire")
        self.release.wait(60)
        return super().load(key)


def test_a_slow_load_fails_the_connect_within_load_timeout_ms(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    store = SlowLoad()
    started = time.monotonic()
    try:
        with pytest.raises(SessionStoreError, match="load_timeout_ms=300"):
            ClaudeSDKClient(cli.options(session_store=store, resume=str(uuid.uuid4()), load_timeout_ms=300)).connect()
        assert time.monotonic() - started < 10
    finally:
        store.release.set()
    assert cli.runs == []  # the CLI never started


def test_a_failing_load_is_a_session_store_error(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    with pytest.raises(SessionStoreError, match="disk on fire"):
        list(query("x", options=cli.options(session_store=SlowLoad(fail=True), resume=str(uuid.uuid4()))))
    with pytest.raises(RuntimeError):  # ported code catching the official RuntimeError still works
        list(query("x", options=cli.options(session_store=SlowLoad(fail=True), resume=str(uuid.uuid4()))))


def test_store_options_the_store_cannot_serve(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    with pytest.raises(ValueError, match="session_store_flush"):
        list(query("x", options=cli.options(session_store=InMemorySessionStore(), session_store_flush="sometimes")))
    for bad in (-1, 1e16, float("nan"), float("inf"), True):  # 1e16 ms: more than the platform can wait
        with pytest.raises(ValueError, match="load_timeout_ms must be"):
            list(query("x", options=cli.options(session_store=InMemorySessionStore(), load_timeout_ms=bad)))
    with pytest.raises(ValueError, match="enable_file_checkpointing"):
        list(query("x", options=cli.options(session_store=InMemorySessionStore(), enable_file_checkpointing=True)))

    class NoList:
        def append(self, key: Any, entries: Any) -> None: ...

        def load(self, key: Any) -> Any:
            return None

    with pytest.raises(ValueError, match="list_sessions"):
        list(query("x", options=cli.options(session_store=NoList(), continue_conversation=True)))


def test_continue_conversation_resumes_the_newest_non_sidechain_session_of_the_store(tmp_path: Path) -> None:
    old, new, side = (str(uuid.uuid4()) for _ in range(3))
    store = InMemorySessionStore()
    store.append(key(old), [line(old, 1)])
    store.append(key(new), [line(new, 2)])
    store.append(key(side), [dict(line(side, 3), isSidechain=True)])  # newest, but a subagent's
    cli = ScriptedCLI(directory=tmp_path)
    with ClaudeSDKClient(cli.options(session_store=store, continue_conversation=True)):
        pass
    argv = cli.last_run.argv
    assert f"--resume={new}" in argv and "--continue" not in argv


def test_a_resumed_transcript_the_store_missed_is_kept_locally(tmp_path: Path) -> None:
    temp = tmp_path / "claude_sync-resume-x"
    (temp / "projects" / "pk").mkdir(parents=True)
    (temp / "projects" / "pk" / "s.jsonl").write_text('{"type":"user"}\n')
    real = tmp_path / "config" / "projects"
    reports: List[Any] = []
    bridge = StoreBridge(Failing(), lambda k, e: reports.append(e), projects=str(temp / "projects"), eager=False,
                         flush_timeout=5, temp_dir=temp, real_projects=real)  # fmt: skip
    bridge.start(0)
    bridge.enqueue(str(temp / "projects" / "pk" / "s.jsonl"), [{"type": "user"}])
    assert bridge.flush(30) and len(reports) == 1  # finished: failed after its retries
    bridge.close(5)
    assert (real / "pk" / "s.jsonl").read_text() == '{"type":"user"}\n' and not temp.exists()


def test_hooks_keep_working_on_a_resume_from_a_store(tmp_path: Path) -> None:
    from claude_sync import HookMatcher

    sid = str(uuid.uuid4())
    store = InMemorySessionStore()
    store.append(key(sid), [line(sid, 1)])
    calls: List[Any] = []

    def hook(data: Any, tool_use_id: Any, context: Any) -> Dict[str, Any]:
        calls.append(data["tool_name"])
        return {}

    cli = Kit(turn_script(ask("r1", hook_request("hook_0"))), "subprocess", tmp_path)  # the scripted CLI, spawned
    options = cli.options(session_store=store, resume=sid, hooks={"PreToolUse": [HookMatcher(hooks=[hook])]})
    list(query("go", options=options))
    assert calls == ["Bash"] and responses(cli)["r1"]["subtype"] == "success"
    init = next(f for f in cli.stdin_frames() if f.get("request", {}).get("subtype") == "initialize")
    assert "hook_0" in json.dumps(init["request"]["hooks"])
    assert f"--resume={sid}" in cli.cli.last_run.argv
