"""More ways into a held session, tried from outside (issue 36, item 1, red team).

Each form below reaches the CLI's ``--resume``/``--continue`` without ``options.resume`` or
``options.continue_conversation`` naming the session plainly: a flag given through
``extra_args`` (four spellings), a session's title (the CLI resumes by title too), the working
directory through a symlink, a ``CLAUDE_CONFIG_DIR`` that is empty or relative (the CLI then
keeps its files under its ``cwd``: ``<cwd>/projects/…``, ``<cwd>/conf/projects/…``), a relative
``HOME`` (``<cwd>/relhome/.claude/…``), a copy of the transcript named ``copy.JSONL``. The held ``rm victim.txt`` must stay unrun, the model uncalled,
and the decision must still apply afterwards. (An upper-case session id: the CLI itself finds
no conversation.)
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import pytest

from claude_sync import (
    ApprovalPendingError,
    PendingApproval,
    run,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI

from .approval_scripts import held_rm, the_decision_still_applies

pytestmark = pytest.mark.e2e

Options = Callable[..., Any]
WAYS = ["extra-resume", "extra-continue", "extra-r", "extra-resume-equals", "title", "cwd-symlink", "config-empty",
        "config-relative", "home-relative", "file-upper-case"]


def resumed(how: str, options: Any, pending: PendingApproval, workdir: Path, tmp_path: Path) -> Any:
    sid = pending.session_id
    if how == "extra-resume":
        return dataclasses.replace(options, extra_args={"resume": sid})
    if how == "extra-continue":
        return dataclasses.replace(options, extra_args={"continue": None})
    if how == "extra-r":
        return dataclasses.replace(options, extra_args={"-resume": sid})
    if how == "extra-resume-equals":
        return dataclasses.replace(options, extra_args={f"resume={sid}": None})
    if how == "title":
        return dataclasses.replace(options, resume="tidy job")
    if how == "file-upper-case":  # the CLI loads a .JSONL file too
        [held] = list((tmp_path / "home" / ".claude" / "projects").glob(f"*/{sid}.jsonl"))
        held.rename(tmp_path / "copy.JSONL")  # the only copy while the plain resume is tried
        return dataclasses.replace(options, resume=str(tmp_path / "copy.JSONL"))
    if how.startswith(("config-", "home-")):  # the CLI reads these from its cwd
        return dataclasses.replace(options, resume=sid)
    link = tmp_path / "link"
    link.symlink_to(workdir)
    return dataclasses.replace(options, resume=sid, cwd=str(link))


@pytest.mark.parametrize("how", WAYS)
def test_another_way_in_never_runs_the_held_call(
    how: str, e2e_options: Options, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    config = {"config-empty": {"CLAUDE_CONFIG_DIR": ""}, "config-relative": {"CLAUDE_CONFIG_DIR": "conf"},
              "home-relative": {"HOME": "relhome"}}.get(how)
    options = e2e_options(config, allowed_tools=["Bash"], extra_args={"name": "tidy job"} if how == "title" else {})
    victim, pending = held_rm(fake_api, options, e2e_workdir)
    asked = len(fake_api.turn_requests())

    with pytest.raises(ApprovalPendingError, match="rm victim.txt") as caught:
        run("while we wait…", options=resumed(how, options, pending, e2e_workdir, tmp_path), timeout=120)
    assert caught.value.tool_use_id == pending.tool_use_id  # (a file's error names its stem as the session)
    assert victim.read_text() == "keep me"
    assert len(fake_api.turn_requests()) == asked  # the model was not called
    for copy in tmp_path.glob("copy.JSONL"):  # back where the decision's resume looks
        copy.rename(next((tmp_path / "home" / ".claude" / "projects").glob("*")) / f"{pending.session_id}.jsonl")

    the_decision_still_applies(fake_api, options, pending, victim)
