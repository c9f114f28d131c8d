"""A session that waits for a person is not resumed by anything but ``resume_approval``.

Pure: ``held.HeldTail`` on transcripts shaped as CLI 2.1.197 / 2.1.333 write them (a
``hook_deferred_tool`` attachment after the assistant message with the call). Shell: every
plain way into a held session (``ClaudeSDKClient`` / ``query`` with ``resume``,
``continue_conversation``, ``fork_session``, a session store) is refused with
``ApprovalPendingError`` before the scripted CLI starts, and leaves the transcript as it was.
Against the real CLIs: ``tests/e2e/test_held_sessions_e2e.py``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit, run_together

from claude_sync import (
    ApprovalError,
    ApprovalPendingError,
    InMemorySessionStore,
    project_key_for_directory,
    query,
)
from claude_sync._approvals.held import HeldCall, HeldTail, UnreadableTail, held_calls
from claude_sync._approvals.hold_check import deciding, held_in_file, read_lines_backwards
from claude_sync._sessions.transcript import sanitize_path
from claude_sync._sessions.transcript_files import canonical
from claude_sync.testing import ScriptedCLI

SESSION = "847d61dd-ba5a-4c2d-85dd-e0a7590e3acc"
CALL_ID = "toolu_fake_d96c0aeaab674ea59d09"
RM = {"command": "rm victim.txt"}


def held_transcript(*after: Dict[str, Any], call_id: str = CALL_ID, deferred: bool = True) -> List[Dict[str, Any]]:
    """A session stopped at a deferred ``rm`` (the shape CLI 2.1.197 wrote), then ``after``."""
    entries: List[Dict[str, Any]] = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": SESSION, "content": "go"},
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "go"}},
        {"type": "attachment", "uuid": "x1", "attachment": {"type": "skill_listing", "content": "-"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "x1",
         "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": RM}]}},
    ]  # fmt: skip
    if deferred:
        entries.append({"type": "attachment", "uuid": "d1", "parentUuid": "a1", "attachment": {
            "type": "hook_deferred_tool", "toolUseID": call_id, "toolName": "Bash", "toolInput": RM,
            "hookName": "settings", "hookEvent": "PreToolUse", "permissionMode": "default"}})  # fmt: skip
    entries.append({"type": "last-prompt", "lastPrompt": "go", "leafUuid": "d1", "sessionId": SESSION})
    return entries + list(after)


def result_for(call_id: str) -> Dict[str, Any]:
    return {"type": "user", "uuid": "r1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call_id, "content": "(Bash completed with no output)", "is_error": False}]}}  # fmt: skip


def lines(entries: List[Dict[str, Any]]) -> List[bytes]:
    return [json.dumps(e).encode() for e in reversed(entries)]


# ----------------------------------------------------------------------------- pure


def test_a_deferral_without_a_result_is_held_and_named() -> None:
    [call] = held_calls(lines(held_transcript()))
    assert (call.tool_use_id, call.tool_name, call.tool_input) == (CALL_ID, "Bash", RM)
    assert call.describe() == f'Bash call {CALL_ID} {{"command": "rm victim.txt"}}'
    assert HeldCall(CALL_ID, "Write", {"content": "x" * 500}).describe().endswith("…")


def test_a_call_that_got_its_result_or_a_later_turn_is_not_held() -> None:
    assert held_calls(lines(held_transcript(result_for(CALL_ID)))) == []
    later = [result_for(CALL_ID), {"type": "user", "message": {"role": "user", "content": "Continue from where you left off."}},
             {"type": "assistant", "message": {"id": "msg_2", "content": [{"type": "text", "text": "done"}]}}]  # fmt: skip
    assert held_calls(lines(held_transcript(*later))) == []


def test_an_open_tool_use_without_the_cli_s_deferral_mark_is_not_held() -> None:
    """Measured on 2.1.197 and 2.1.333: without the attachment the CLI drops the open call on
    resume (a session killed mid-tool resumes as before)."""
    assert held_calls(lines(held_transcript(deferred=False))) == []


def test_a_result_for_another_call_does_not_release_it_and_two_deferrals_are_both_held() -> None:
    two = held_transcript(result_for("toolu_other"))
    two.insert(5, {"type": "attachment", "attachment": {"type": "hook_deferred_tool", "toolUseID": "toolu_2", "toolName": "Write", "toolInput": {}}})
    assert [c.tool_use_id for c in held_calls(lines(two))] == [CALL_ID, "toolu_2"]


def test_the_walk_stops_before_the_last_assistant_message_and_never_reads_further() -> None:
    tail = HeldTail()
    walked = 0
    for line in lines(held_transcript()) + [b"\xff not even utf-8"]:
        walked += 1
        if tail.feed(line):
            break
    assert walked == 5 and [c.tool_use_id for c in tail.held] == [CALL_ID]  # stopped at the prompt "go"


@pytest.mark.parametrize(
    "bad, why",
    [(b"\xff\xfe{}", "not UTF-8"), (b'{"type": "attachment", "attach', "not JSON"), (b"[1, 2]", "JSON list"),
     (b"[" * 100_000, "not JSON"), (json.dumps({"type": "attachment", "attachment": {"type": "hook_deferred_tool"}}).encode(), "without a toolUseID")],
)  # fmt: skip
def test_a_tail_it_cannot_read_fails_closed(bad: bytes, why: str) -> None:
    with pytest.raises(UnreadableTail, match=why):
        held_calls([bad] + lines(held_transcript()))


def test_lone_surrogates_in_the_input_are_read() -> None:
    entries = held_transcript()
    entries[4]["attachment"]["toolInput"] = {"command": "rm \ud800"}
    [call] = held_calls(lines(entries))
    assert call.tool_input == {"command": "rm \ud800"}


# ----------------------------------------------------------------------------- the tail reader


def write(path: Path, entries: List[Dict[str, Any]], head: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + b"".join(json.dumps(e).encode() + b"\n" for e in entries))
    return path


@pytest.mark.parametrize("chunk", [1, 3, 7, 8 * 1024])
def test_lines_come_back_last_first_across_chunk_edges(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\n\ntwo\nthree\n")
    assert list(read_lines_backwards(path, chunk)) == [b"three", b"two", b"", b"one"]
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert list(read_lines_backwards(tmp_path / "empty.jsonl", chunk)) == []


def test_a_last_line_cut_short_fails_closed(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", held_transcript())
    path.write_bytes(path.read_bytes() + b'{"type": "assistant", "mess')
    with pytest.raises(UnreadableTail, match="no newline"):
        held_in_file(path)


def test_a_huge_transcript_costs_only_its_tail(tmp_path: Path) -> None:
    """64 MiB of bytes that are neither UTF-8 nor JSON before the held turn: never read."""
    path = write(tmp_path / "t.jsonl", held_transcript(), head=(b"\xff" * 1023 + b"\n") * 65536)
    assert [c.tool_use_id for c in held_in_file(path)] == [CALL_ID]


# ----------------------------------------------------------------------------- the shell


def held_session(tmp_path: Path, entries: Any = None) -> Dict[str, Any]:
    """A held transcript under a fresh HOME; the options' env and cwd point at it."""
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    path = write(home / ".claude" / "projects" / sanitize_path(canonical(str(work))) / f"{SESSION}.jsonl",
                 entries if entries is not None else held_transcript())  # fmt: skip
    return {"env": {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}, "cwd": str(work), "path": path}


def fields(found: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in found.items() if k != "path"}


def refused(kit: Kit, path: Path, before: bytes, error: ApprovalPendingError) -> None:
    assert kit.never_started()
    assert path.read_bytes() == before
    assert error.session_id == SESSION and error.tool_use_id == CALL_ID
    assert error.held == [{"tool_use_id": CALL_ID, "tool_name": "Bash", "tool_input": RM}]
    assert "rm victim.txt" in str(error) and "resume_approval" in str(error) and isinstance(error, ApprovalError)


@pytest.mark.parametrize("how", ["resume", "continue", "fork"])
def test_a_client_that_only_connects_to_a_held_session_starts_nothing(tmp_path: Path, how: str) -> None:
    found = held_session(tmp_path)
    before = found["path"].read_bytes()
    kit = Kit(ScriptedCLI.answer("hi"))
    extra = {"resume": {"resume": SESSION}, "continue": {"continue_conversation": True},
             "fork": {"resume": SESSION, "fork_session": True}}[how]  # fmt: skip
    with pytest.raises(ApprovalPendingError, match=f"session {SESSION} waits for a person") as caught:
        with kit.client(**fields(found), **extra):
            pass
    refused(kit, found["path"], before, caught.value)


@pytest.mark.parametrize("extra", [
    {"extra_args": {"resume": SESSION}}, {"extra_args": {"--resume": SESSION}}, {"extra_args": {f"resume={SESSION}": None}},
    {"extra_args": {"continue": None}}, {"extra_args": {"resume": None}}, {"extra_args": {"from-pr": "7"}},
    {"resume": "tidy job"}, {"resume": f" {SESSION}"}, {"resume": "ffffffff-0000-4000-8000-000000000000",
                                                     "extra_args": {"resume": SESSION}},
])  # fmt: skip
def test_a_held_session_reached_through_extra_args_or_a_title_starts_nothing(tmp_path: Path, extra: Dict[str, Any]) -> None:
    """The CLI resumes by ``--resume``/``--continue`` from ``extra_args`` and by a session's
    title as well (red team: each ran the held ``rm`` on 2.1.197 and 2.1.333)."""
    found = held_session(tmp_path)
    before = found["path"].read_bytes()
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError, match=f"session {SESSION} waits for a person") as caught:
        with kit.client(**fields(found), **extra):
            pass
    refused(kit, found["path"], before, caught.value)


@pytest.mark.parametrize("config,where", [("", "."), ("conf", "conf"), ("./conf/", "conf")])
def test_an_empty_or_relative_config_dir_is_read_from_the_clis_cwd(tmp_path: Path, config: str, where: str) -> None:
    """The CLI takes ``CLAUDE_CONFIG_DIR=""`` and a relative one from its ``cwd`` (2.1.197 and
    2.1.333 wrote ``<cwd>/projects/…``); read as unset or from this process's cwd, the held
    transcript was not found and the CLI ran the held call."""
    found = held_session(tmp_path)
    work = Path(found["cwd"])
    moved = work / where / "projects" / found["path"].parent.name / found["path"].name
    moved.parent.mkdir(parents=True)
    found["path"].rename(moved)
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError, match=f"session {SESSION} waits for a person") as caught:
        with kit.client(**{**fields(found), "env": {**found["env"], "CLAUDE_CONFIG_DIR": config}}, resume=SESSION):
            pass
    refused(kit, moved, moved.read_bytes(), caught.value)


def test_an_empty_or_relative_home_is_read_as_the_cli_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HOME=""``: the CLI uses the account's home (not this process's ``HOME``); a relative
    ``HOME`` is taken from the CLI's ``cwd`` (2.1.197 and 2.1.333)."""
    import pwd

    found = held_session(tmp_path)
    work = Path(found["cwd"])
    relative = work / "relhome" / ".claude" / "projects" / found["path"].parent.name / found["path"].name
    relative.parent.mkdir(parents=True)
    found["path"].rename(relative)
    kit = Kit(ScriptedCLI.answer("hi"))
    env = {"HOME": "relhome"}
    with pytest.raises(ApprovalPendingError, match=f"session {SESSION} waits for a person"):
        with kit.client(**{**fields(found), "env": env}, resume=SESSION):
            pass
    from claude_sync._approvals.hold_check import cli_config_dir

    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    assert cli_config_dir({"HOME": ""}, str(work)) == Path(pwd.getpwuid(os.getuid()).pw_dir) / ".claude"
    assert cli_config_dir({"HOME": "/abs"}, str(work)) == Path("/abs/.claude")
    assert kit.never_started()


@pytest.mark.parametrize("name", ["copy.JSONL", "copy.Jsonl", "sub/copy"])
def test_a_transcript_file_named_by_resume_is_checked_whatever_its_suffix(tmp_path: Path, name: str) -> None:
    """The CLI loads ``--resume /path/copy.JSONL`` (2.1.197 and 2.1.333 ran its held call);
    a relative path is the CLI's, from its ``cwd``."""
    found = held_session(tmp_path)
    copy = Path(found["cwd"]) / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    found["path"].rename(copy)  # the only copy: not found by a scan of the projects
    kit = Kit(ScriptedCLI.answer("hi"))
    for resume in (str(copy), name):
        with pytest.raises(ApprovalPendingError, match="rm victim.txt"):
            with kit.client(**fields(found), resume=resume):
                pass
    assert kit.never_started()


def test_extra_args_that_choose_no_session_start_as_before(tmp_path: Path) -> None:
    found = held_session(tmp_path)
    kit = Kit(ScriptedCLI.answer("hi"))
    with kit.client(**fields(found), extra_args={"name": "resume", "debug-to-stderr": None}) as client:
        client.query("hello")
        assert [m for m in client.receive_response()]


def test_a_follow_up_query_with_resume_is_refused_too(tmp_path: Path) -> None:
    found = held_session(tmp_path)
    before = found["path"].read_bytes()
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError) as caught:
        with kit.query("while we wait…", **fields(found), resume=SESSION) as stream:
            list(stream)
    refused(kit, found["path"], before, caught.value)


def test_a_held_session_in_a_store_is_refused_on_another_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_sync._sessions import store_resume

    made: List[str] = []
    original = store_resume.make_private_dir

    def recorded(prefix: str) -> str:
        made.append(original(prefix))
        return made[-1]

    monkeypatch.setattr(store_resume, "make_private_dir", recorded)
    found = held_session(tmp_path)
    store = InMemorySessionStore()
    store.append({"project_key": project_key_for_directory(found["cwd"]), "session_id": SESSION}, held_transcript())  # type: ignore[arg-type]
    found["path"].unlink()  # this machine has no local copy
    kit = Kit(ScriptedCLI.answer("hi"))
    for extra in ({"resume": SESSION}, {"continue_conversation": True}):
        with pytest.raises(ApprovalPendingError, match="rm victim.txt"):
            with kit.client(**fields(found), session_store=store, **extra):
                pass
    assert kit.never_started() and not found["path"].exists()
    assert len(made) == 2 and not any(Path(p).exists() for p in made)  # the store's copies were laid out, then removed


def test_unheld_unknown_and_decided_sessions_start_as_before(tmp_path: Path) -> None:
    found = held_session(tmp_path, held_transcript(result_for(CALL_ID)))
    kit = Kit(ScriptedCLI.answer("hi"))
    with kit.client(**fields(found), resume=SESSION):
        pass
    with kit.client(**fields(found), resume="0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01"):  # nowhere: the CLI says so
        pass
    held = held_session(tmp_path / "held")
    with deciding(SESSION, [CALL_ID]), kit.client(**fields(held), resume=SESSION):
        pass
    assert len(kit.cli.runs) == 3


def test_the_allowance_is_exact_once_and_stays_on_its_thread(tmp_path: Path) -> None:
    found = held_session(tmp_path)
    kit = Kit(ScriptedCLI.answer("hi"))
    with deciding(SESSION, ["toolu_other"]), pytest.raises(ApprovalPendingError):
        kit.client(**fields(found), resume=SESSION).connect()
    with deciding("0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01", [CALL_ID]), pytest.raises(ApprovalPendingError):
        kit.client(**fields(found), resume=SESSION).connect()
    with deciding(SESSION, [CALL_ID]), pytest.raises(ApprovalPendingError):
        kit.client(**fields(found), resume=SESSION, fork_session=True).connect()  # a fork is not the decided session
    errors: List[BaseException] = []
    with deciding(SESSION, [CALL_ID]):
        with kit.client(**fields(found), resume=SESSION):
            pass
        with pytest.raises(ApprovalPendingError):  # used once
            kit.client(**fields(found), resume=SESSION).connect()

        def other_thread() -> None:
            try:
                kit.client(**fields(found), resume=SESSION).connect()
            except ApprovalPendingError as exc:
                errors.append(exc)

        thread = threading.Thread(target=other_thread, name="claude_sync-test-other")
        thread.start()
        thread.join(30)
    assert len(errors) == 1 and len(kit.cli.runs) == 1


def test_a_transcript_it_cannot_read_refuses_naming_why(tmp_path: Path) -> None:
    found = held_session(tmp_path)
    found["path"].write_bytes(found["path"].read_bytes() + b"\xff\xfe\n")
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError, match="cannot be read.*not UTF-8") as caught:
        kit.client(**fields(found), resume=SESSION).connect()
    assert caught.value.held == [] and kit.never_started()


def test_concurrent_resumes_are_all_refused_and_change_nothing(tmp_path: Path) -> None:
    found = held_session(tmp_path)
    before = found["path"].read_bytes()
    kit = Kit(ScriptedCLI.answer("hi"))

    def resume(_: int) -> None:
        with pytest.raises(ApprovalPendingError):
            with query("again", options=kit.options(**fields(found), resume=SESSION), transport=kit.cli.transport()) as stream:
                list(stream)

    assert run_together(resume, 8) == []
    assert kit.never_started() and found["path"].read_bytes() == before


def test_the_error_pickles_with_what_it_names() -> None:
    import pickle

    error = ApprovalPendingError("m", "toolu_1", session_id=SESSION, held=[{"tool_use_id": "toolu_1"}])
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.tool_use_id, copy.session_id, copy.held) == ("m", "toolu_1", SESSION, [{"tool_use_id": "toolu_1"}])



def test_the_command_line_refuses_a_held_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    import io
    import sys

    from claude_sync._cli.shell import main

    found = held_session(tmp_path)
    monkeypatch.setenv("HOME", found["env"]["HOME"])
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    cli = ScriptedCLI.answer("hi")
    for flags in (["--resume", SESSION], ["--continue"], [f"--cli-arg=--resume={SESSION}"], ["--cli-arg=--continue"],
                  ["--resume", "tidy job"]):
        assert main(["--cli-path", cli.install(tmp_path / "cli"), "--cwd", found["cwd"], *flags, "while we wait"]) == 1
        assert "rm victim.txt" in capsys.readouterr().err
    assert not cli.runs


@pytest.mark.parametrize("decoy", ["0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01.jsonl", "notes.jsonl"])
def test_continue_is_refused_behind_a_newer_file_the_cli_would_pass_over(tmp_path: Path, decoy: str) -> None:
    """2.1.333 skipped a newer file holding only a metadata line, or not named by a session id,
    and continued the held session behind it (the ``rm`` ran): every transcript is checked."""
    import os

    found = held_session(tmp_path)
    newer = found["path"].parent / decoy
    newer.write_text(json.dumps({"type": "last-prompt", "lastPrompt": "x", "sessionId": newer.stem}) + "\n")
    os.utime(found["path"], (1_000_000, 1_000_000))  # the held one is the oldest by far
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError, match="pass resume=<the session you mean>"):
        kit.client(**fields(found), continue_conversation=True).connect()
    assert kit.never_started()


def test_a_fifo_or_a_device_in_place_of_the_transcript_is_not_read(tmp_path: Path) -> None:
    """Opening a FIFO would block the connect: it is left to the CLI, as a missing one is."""
    import os

    found = held_session(tmp_path)
    fifo = found["path"].parent / "0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01.jsonl"
    os.mkfifo(fifo)
    (found["path"].parent / "1b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01.jsonl").symlink_to("/dev/zero")
    kit = Kit(ScriptedCLI.answer("hi"))
    with kit.client(**fields(found), resume=fifo.stem):
        pass
    with pytest.raises(ApprovalPendingError, match="rm victim.txt"):  # the held one is still found behind them
        kit.client(**fields(found), continue_conversation=True).connect()
    assert len(kit.cli.runs) == 1


def test_resume_approval_refuses_before_its_claim_when_another_call_is_held(tmp_path: Path) -> None:
    """Both CLIs write one ``hook_deferred_tool`` per deferred call of a message; a record that
    names one of them must not resume the session (the other would run unasked), and must not
    spend its claim on trying."""
    from claude_sync import ApprovalDecision, ApprovalPolicy, ClaudeAgentOptions, PendingApproval, resume_approval

    entries = held_transcript()
    entries.insert(5, {"type": "attachment", "attachment": {"type": "hook_deferred_tool", "toolUseID": "toolu_2",
                                                            "toolName": "Bash", "toolInput": {"command": "rm b.txt"}}})  # fmt: skip
    entries[3]["message"]["content"].append({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "rm b.txt"}})
    store = InMemorySessionStore()
    key = {"project_key": project_key_for_directory(str(tmp_path)), "session_id": SESSION}
    store.append(key, entries)  # type: ignore[arg-type]
    pending = PendingApproval(session_id=SESSION, tool_use_id=CALL_ID, tool_name="Bash", tool_input=RM, cwd=str(tmp_path),
                              permission_mode=None, reason="r", asked_at="2026-12-02T05:00:00.000+00:00")  # fmt: skip
    options = ClaudeAgentOptions(session_store=store, cli_path=str(tmp_path / "no-such-claude"))
    with pytest.raises(ApprovalPendingError, match=r"also waits .*rm b\.txt.*nothing was claimed") as caught:
        resume_approval(pending, ApprovalDecision.allow(), policy=ApprovalPolicy(rules=["Bash(rm:*)"]), options=options)
    assert [c["tool_use_id"] for c in caught.value.held] == [CALL_ID, "toolu_2"]
    assert store.list_subkeys(key) == []  # no claim was made


SECRET = "s3cr3t-VALUE-0123456789abcdef"


@pytest.mark.parametrize("pad", range(70, 110, 3))
def test_a_held_call_named_in_the_refusal_never_shows_part_of_a_known_secret(tmp_path: Path, pad: int) -> None:
    """The input is cut to 120 characters for the message; the cut came before the redaction,
    so a secret cut in two showed its first part (red team: ``s3cr3t-VA…``)."""
    command = {"command": "x" * pad + f" curl -H 'X-Key: {SECRET}' https://h"}
    entries = held_transcript()
    entries[3]["message"]["content"][0]["input"] = command
    entries[4]["attachment"]["toolInput"] = command
    found = held_session(tmp_path, entries)
    found["env"]["MY_API_TOKEN"] = SECRET
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError) as caught:
        with kit.client(**fields(found), resume=SESSION):
            pass
    text = str(caught.value)
    assert not any(SECRET[:k] in text for k in range(4, len(SECRET) + 1)), text
    assert caught.value.held[0]["tool_input"] == command  # the attribute keeps the data as it was


@pytest.mark.parametrize("cut", range(0, 30, 4))
def test_a_cut_short_tail_never_shows_part_of_a_known_secret(tmp_path: Path, cut: int) -> None:
    found = held_session(tmp_path)
    found["env"]["MY_API_TOKEN"] = SECRET
    with found["path"].open("a") as file:
        file.write(json.dumps({"type": "user", "message": {"content": f"token {SECRET} " + "y" * (60 + cut)}})[:-2])
    kit = Kit(ScriptedCLI.answer("hi"))
    with pytest.raises(ApprovalPendingError, match="cut short") as caught:
        with kit.client(**fields(found), resume=SESSION):
            pass
    assert not any(SECRET[k:] in str(caught.value) for k in range(0, len(SECRET) - 3)), str(caught.value)
