"""``archive_session`` / ``unarchive_session`` and the ``archived`` of a listing (the TS SDK's
``archiveSession``): the mark file beside the transcript, and the rule that a prompt typed
after the mark lifts it. What the real CLIs do with a marked session is in
``tests/e2e/test_sessions_e2e.py``."""

from __future__ import annotations

import json
import os
import stat
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import run_together
from transcript_lines import conversation, entry, folder, write

import claude_sync
from claude_sync import archive_session, get_session_info, list_sessions, unarchive_session
from claude_sync._sessions.archive import (
    archived_state,
    iso_with_offset_ms,
    parse_record,
    prompt_time_ms,
)

AT = "2025-06-01T00:00:00.000Z"
AT_MS = iso_with_offset_ms(AT)
LATER = "2025-06-01T00:00:00.001Z"
EARLIER = "2025-05-31T23:59:59.999Z"


def session(config: Path, project: Path, lines: List[Dict[str, Any]] = ()) -> str:  # type: ignore[assignment]
    sid = str(uuid.uuid4())
    write(folder(config, project) / f"{sid}.jsonl", conversation(sid) + list(lines))
    return sid


def mark(config: Path, project: Path, sid: str) -> Path:
    return folder(config, project) / sid / "archived.json"


def test_archive_writes_the_mark_the_ts_sdk_writes_and_the_listing_reports_it(config: Path, project: Path) -> None:
    sid = session(config, project)
    other = session(config, project)
    assert get_session_info(sid, str(project)).archived is None  # type: ignore[union-attr]
    archive_session(sid, str(project))
    path = mark(config, project, sid)
    record = json.loads(path.read_text())
    assert list(record) == ["archived", "at", "by"] and record["archived"] is True and record["by"] == "sdk"
    assert record["at"].endswith("Z") and iso_with_offset_ms(record["at"]) is not None
    assert path.read_text() == json.dumps(record, separators=(",", ":"))  # compact, as the TS SDK writes
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    rows = {info.session_id: info.archived for info in list_sessions(str(project))}
    assert rows == {sid: True, other: None}
    assert get_session_info(sid, str(project)).archived is True  # type: ignore[union-attr]
    assert get_session_info(sid).archived is True  # type: ignore[union-attr]  # every project searched
    unarchive_session(sid)
    assert json.loads(path.read_text())["archived"] is False
    assert get_session_info(sid, str(project)).archived is False  # type: ignore[union-attr]
    assert sorted(os.listdir(path.parent)) == ["archived.json"]  # no temp file left


def test_a_prompt_typed_after_the_mark_lifts_it_one_before_or_at_it_does_not(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    base = conversation(sid)
    path = folder(config, project) / f"{sid}.jsonl"
    write(path, base)
    mark(config, project, sid).parent.mkdir()
    mark(config, project, sid).write_text(json.dumps({"archived": True, "at": AT, "by": "sdk"}))
    assert get_session_info(sid).archived is True  # type: ignore[union-attr]
    for ts in (EARLIER, AT):
        write(path, base + [entry("user", "late?", None, sid, ts=ts)])
        assert get_session_info(sid).archived is True, ts  # type: ignore[union-attr]
    write(path, base + [entry("user", "now", None, sid, ts=LATER)])
    assert get_session_info(sid).archived is False  # type: ignore[union-attr]
    assert json.loads(mark(config, project, sid).read_text())["archived"] is True  # the file is not rewritten


def prompt(content: Any, ts: str = LATER, **extra: Any) -> Dict[str, Any]:
    return {"type": "user", "timestamp": ts, "message": {"role": "user", "content": content}, **extra}


@pytest.mark.parametrize(
    "line, counts",
    [
        (prompt("hello"), True),
        (prompt([{"type": "text", "text": "hello"}]), True),
        (prompt([{"type": "image", "source": {}}]), True),
        (prompt("hello", origin={"kind": "human"}), True),
        (prompt("hello", promptSource="sdk"), True),
        (prompt("<command-message>init</command-message>"), True),
        (prompt("hello", origin={"kind": "task-notification"}), False),
        (prompt([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]), False),
        (prompt("hello", isMeta=True), False),
        (prompt("hello", isSidechain=True), False),
        (prompt("hello", isCompactSummary=True), False),
        (prompt("hello", toolUseResult={"x": 1}), False),
        (prompt("hello", turnOrigin="robot"), False),
        (prompt("<command-name>/clear</command-name>"), False),
        (prompt("   "), False),
        (prompt("hello", ts="not a time"), None),
        ({"type": "assistant", "timestamp": LATER, "message": {"content": "hello"}}, False),
        ({"type": "attachment", "timestamp": LATER, "attachment": {"type": "queued_command", "prompt": "queued"}}, True),
        ({"type": "attachment", "timestamp": LATER, "attachment": {"type": "queued_command", "prompt": "q", "isMeta": True}}, False),
        ({"type": "attachment", "timestamp": LATER, "attachment": {"type": "queued_command", "prompt": "q", "origin": {"kind": "cron"}}}, False),
    ],
)
def test_which_lines_count_as_a_prompt(line: Dict[str, Any], counts: Any) -> None:
    when = prompt_time_ms(line)
    if counts is None:
        assert when is None
    else:
        assert (when is not None and when > AT_MS) is counts  # type: ignore[operator]


@pytest.mark.parametrize(
    "data",
    [
        b"", b"not json", b"[]", b'{"archived":"yes","at":"2025-06-01T00:00:00Z"}', b'{"archived":true}',
        b'{"archived":true,"at":"2025-06-01"}', b'{"archived":true,"at":"2025-06-01T00:00:00"}',
        b'{"archived":true,"at":"2025-02-30T00:00:00Z"}',
        b'{"archived":true,"at":"2025-06-01T00:00:00Z","pad":"' + b"x" * 4096 + b'"}',
        b'{"archived":true,"at":"\xff\xfe"}', b'{"archived":true,"at":"\\ud800"}',
    ],
)
def test_what_is_no_mark(data: bytes) -> None:
    assert parse_record(data) is None
    assert archived_state(parse_record(data), "", "") is None


def test_marks_that_parse() -> None:
    assert parse_record(b'{"archived":true,"at":"2025-06-01T02:00:00+02:00","by":"\xff"}') == (True, AT_MS // 1000 * 1000)
    assert parse_record(b'{"archived":false,"at":"2025-06-01T00:00:00.0009Z"}') == (False, AT_MS)
    assert parse_record(b'{"archived":true,"at":"2025-06-01T00:00:00.999999Z"}') == (True, AT_MS + 999)  # type: ignore[operator]


def test_odd_mark_files_read_as_no_mark_and_never_block(config: Path, project: Path) -> None:
    sid = session(config, project)
    where = mark(config, project, sid)
    where.parent.mkdir()
    os.mkfifo(where)  # a FIFO is not waited on
    assert get_session_info(sid).archived is None  # type: ignore[union-attr]
    where.unlink()
    where.mkdir()
    assert get_session_info(sid).archived is None  # type: ignore[union-attr]
    where.rmdir()
    where.write_bytes(b"\x80\x81 not utf-8")
    assert [info.archived for info in list_sessions()] == [None]
    where.unlink()
    where.mkdir()  # a directory where the mark goes: the rename fails, loudly
    with pytest.raises(IsADirectoryError):
        archive_session(sid)
    assert where.is_dir()  # the directory stands; no temp file was left beside it
    assert sorted(os.listdir(where.parent)) == ["archived.json"]


def test_bad_arguments_are_typed_errors_naming_the_value(config: Path, project: Path) -> None:
    session(config, project)
    for bad in ("../../etc/passwd", "a/b", "x" * 36, "", "00000000-0000-0000-0000-00000000000g"):
        with pytest.raises(ValueError, match="session_id"):
            archive_session(bad)
    with pytest.raises(TypeError, match="session_id must be a str, not int"):
        unarchive_session(7)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="directory must be a str path or None, not int"):
        archive_session(str(uuid.uuid4()), 3)  # type: ignore[arg-type]
    missing = str(uuid.uuid4())
    with pytest.raises(FileNotFoundError, match=missing):
        archive_session(missing)
    with pytest.raises(FileNotFoundError, match="in the project directory for"):
        archive_session(missing, str(project))
    assert not any(p.name == missing for p in config.rglob("*"))  # nothing created for a missing session


def test_an_empty_transcript_is_no_session(config: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    (folder(config, project) / f"{sid}.jsonl").write_bytes(b"")
    with pytest.raises(FileNotFoundError):
        archive_session(sid)


def test_concurrent_archive_and_unarchive_leave_one_whole_mark(config: Path, project: Path) -> None:
    sid = session(config, project)

    def flip(n: int) -> None:
        for _ in range(40):
            (archive_session if n % 2 == 0 else unarchive_session)(sid, str(project))

    assert run_together(flip, 8) == []
    assert parse_record(mark(config, project, sid).read_bytes()) is not None
    assert sorted(os.listdir(mark(config, project, sid).parent)) == ["archived.json"]


def test_the_names_are_public() -> None:
    assert claude_sync.archive_session is archive_session and "unarchive_session" in claude_sync.__all__
