"""Issue 19: a one-shot ``query()`` whose options the CLI calls back (hooks, ``can_use_tool``,
in-process MCP) keeps stdin open until the run is over, not just its first result — the
official SDK's run end (its ``TestStdinStaysOpenUntilIdle`` unit tests), on a scripted CLI.
The pure state machine is tested in ``tests/wire/test_run_end.py``; the real CLIs in
``tests/e2e/test_run_end_e2e.py``."""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional

from helpers import results, texts

from claude_sync import ClaudeAgentOptions, HookMatcher, query
from claude_sync.testing import ScriptedCLI


def state(value: str, host_only: bool = True) -> Dict[str, Any]:
    frame: Dict[str, Any] = {"type": "system", "subtype": "session_state_changed", "state": value, "session_id": "s", "uuid": f"u-{value}"}
    if host_only:
        frame["sdk_host_only"] = True
    return frame


def task(subtype: str, task_id: str = "t1", **fields: Any) -> Dict[str, Any]:
    return {"type": "system", "subtype": subtype, "task_id": task_id, "session_id": "s", "uuid": f"u-{subtype}", **fields}


STARTED = task("task_started", task_type="local_agent", description="background agent")
NOTIFIED = task("task_notification", status="completed", summary="done")


class Hooks:
    """A ``PreToolUse`` hook that records its calls."""

    def __init__(self) -> None:
        self.calls: List[str] = []

    def __call__(self, hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        self.calls.append(hook_input["tool_name"])
        return {}

    def options(self, **fields: Any) -> ClaudeAgentOptions:
        return ClaudeAgentOptions(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[self])]}, close_timeout=5.0, **fields)


def woken_turn(cli: ScriptedCLI) -> ScriptedCLI:
    """The turn a finished background agent wakes, with a hook call the client must answer."""
    return cli.stall(0.3).ask_hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, timeout=5).text("woken").result()


def test_a_task_settled_before_the_result_keeps_stdin_open_until_idle() -> None:
    """The official #1190 case: nothing tracked is in flight at the first result, yet the CLI
    still reports ``running``; the woken turn's hook is answered; stdin closes at ``idle``."""
    cli = ScriptedCLI().expect_user().emit(state("running")).emit(STARTED).emit(NOTIFIED).text("first").result()
    woken_turn(cli).emit(state("idle"))
    hooks = Hooks()
    messages = list(query("go", options=hooks.options(), transport=cli.transport()))
    assert texts(messages) == ["first", "woken"] and len(results(messages)) == 2
    assert hooks.calls == ["Bash"]
    assert not [m for m in messages if getattr(m, "subtype", None) == "session_state_changed"]  # host-only frames
    cli.verify()
    assert cli.last_run.ended == "eof"


def test_without_state_reports_an_agent_in_flight_at_the_result_keeps_stdin_open() -> None:
    """A CLI that reports no session state (2.1.197): the task ledger decides."""
    cli = ScriptedCLI().expect_user().emit(STARTED).text("first").result().emit(NOTIFIED)
    woken_turn(cli)
    hooks = Hooks()
    messages = list(query("go", options=hooks.options(), transport=cli.transport()))
    assert len(results(messages)) == 2 and hooks.calls == ["Bash"]
    cli.verify()
    assert cli.last_run.ended == "eof"


def test_without_callbacks_or_state_the_first_result_still_ends_input() -> None:
    cli = ScriptedCLI().expect_user().text("only").result()
    assert texts(list(query("go", transport=cli.transport()))) == ["only"]
    cli.verify()
    assert cli.last_run.ended == "eof"


def test_a_run_that_never_goes_idle_ends_at_the_ceiling() -> None:
    """``CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`` (the CLI's own wait for background work)
    bounds the wait for ``idle`` between turns."""
    cli = ScriptedCLI().expect_user().emit(state("running")).text("first").result()
    hooks = Hooks()
    started = time.monotonic()
    messages = list(query("go", options=hooks.options(env={"CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS": "400"}), transport=cli.transport()))
    took = time.monotonic() - started
    assert len(results(messages)) == 1
    assert 0.4 <= took < 3.0, took
    cli.verify()
    assert cli.last_run.ended == "eof"


def test_idle_before_any_result_does_not_end_the_run_and_delivered_state_frames_are_kept() -> None:
    """Frames the caller opted into (``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS``: not
    ``sdk_host_only``) are delivered, and drive the run end the same way."""
    cli = ScriptedCLI().expect_user().emit(state("idle", host_only=False)).emit(state("running", host_only=False))
    cli.text("first").result()
    woken_turn(cli).emit(state("idle", host_only=False))
    hooks = Hooks()
    messages = list(query("go", options=hooks.options(), transport=cli.transport()))
    assert [m.data["state"] for m in messages if getattr(m, "subtype", None) == "session_state_changed"] == ["idle", "running", "idle"]
    assert len(results(messages)) == 2 and hooks.calls == ["Bash"]
    cli.verify()
