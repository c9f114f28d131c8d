"""``delete_session`` as TS 0.3.333's ``deleteSession``: a record of the delete under
``<config>/state/deleted-transcripts/`` (the names TS and CLI 2.1.333 use: checked against
TS 0.3.333 itself, see the closing note of issue 38), the transcript, then the subagent folder;
a delete that stopped at the folder is finished by a second call; without a transcript or a
record, ``FileNotFoundError``."""

from __future__ import annotations

import errno
import hashlib
import logging
import shutil
import stat
import uuid
from pathlib import Path
from typing import Any, List, Tuple

import pytest
from transcript_lines import conversation, folder, write

from claude_sync import delete_session


def a_session(config: Path, project: Path) -> Tuple[str, Path]:
    sid = str(uuid.uuid4())
    here = folder(config, project)
    write(here / f"{sid}.jsonl", conversation(sid, 1))
    (here / sid / "subagents").mkdir(parents=True)
    write(here / sid / "subagents" / "agent-a.jsonl", conversation(sid, 1))
    return sid, here


def test_a_delete_keeps_its_record_where_ts_does_and_a_second_call_returns(config: Path, project: Path) -> None:
    sid, here = a_session(config, project)
    delete_session(sid, str(project))
    assert not (here / f"{sid}.jsonl").exists() and not (here / sid).exists()
    records = config / "state" / "deleted-transcripts"
    expected = {hashlib.sha256(key.lower().encode()).hexdigest() for key in (f"{here.name}/{sid}.jsonl", f"{sid}.jsonl")}
    assert {p.name for p in records.iterdir()} == expected
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 and p.stat().st_size == 0 for p in records.iterdir())
    assert stat.S_IMODE(records.stat().st_mode) == stat.S_IMODE(records.parent.stat().st_mode) == 0o700
    delete_session(sid, str(project))  # as TS: the record says it was deleted here
    delete_session(sid)  # and so without the directory
    with pytest.raises(FileNotFoundError, match=str(uuid.UUID(int=7))):
        delete_session(str(uuid.UUID(int=7)), str(project))


def test_a_folder_that_could_not_be_removed_is_removed_by_a_second_call(
    config: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid, here = a_session(config, project)

    def refuse(path: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    real = shutil.rmtree
    monkeypatch.setattr(shutil, "rmtree", refuse)
    with pytest.raises(PermissionError, match=f"transcript is deleted, but its subagent folder .*{sid}.* call delete_session again"):
        delete_session(sid, str(project))
    assert not (here / f"{sid}.jsonl").exists() and (here / sid / "subagents" / "agent-a.jsonl").exists()
    monkeypatch.setattr(shutil, "rmtree", real)
    delete_session(sid, str(project))
    assert not (here / sid).exists()


def test_without_a_record_a_half_done_delete_is_not_found_and_the_reason_is_logged(
    config: Path, project: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sid, here = a_session(config, project)
    (config / "state").write_text("not a folder")  # no record can be kept
    real = shutil.rmtree
    monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with caplog.at_level(logging.WARNING):
        with pytest.raises(OSError, match="could not be removed"):
            delete_session(sid, str(project))
    assert any("cannot finish this delete" in r.getMessage() for r in caplog.records)
    monkeypatch.setattr(shutil, "rmtree", real)
    with pytest.raises(FileNotFoundError):
        delete_session(sid, str(project))  # as TS: no record, "not found"; the folder is the caller's now
    assert (here / sid).exists()


def test_a_folder_something_keeps_writing_to_is_tried_three_times(config: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sid, here = a_session(config, project)
    real = shutil.rmtree
    tries: List[int] = []

    def busy(path: Any, *args: Any, **kwargs: Any) -> None:
        tries.append(1)
        if len(tries) < 3:
            raise OSError(errno.ENOTEMPTY, "Directory not empty", str(path))
        real(path)

    monkeypatch.setattr(shutil, "rmtree", busy)
    delete_session(sid, str(project))
    assert len(tries) == 3 and not (here / sid).exists()


def test_a_linked_subagent_folder_loses_the_link_only(config: Path, project: Path, tmp_path: Path) -> None:
    sid, here = a_session(config, project)
    elsewhere = tmp_path / "keep"
    shutil.move(str(here / sid), str(elsewhere))
    (here / sid).symlink_to(elsewhere)
    delete_session(sid, str(project))
    assert not (here / sid).is_symlink() and (elsewhere / "subagents" / "agent-a.jsonl").exists()
