"""What CLI 2.1.333 added to lines and requests a host reads, typed: ``written_at`` on every
message (an aware UTC ``datetime``, parsed only when asked for), ``ToolProgressMessage.description``,
``ResultMessage.code_mode_refusal``, the init additions, ``waiting_on_agents``, the
``can_use_tool`` ask provenance, ``HookMatcher.observes_only``. Each reads as None on a line of
an older CLI (2.1.197 sends none of them). The real CLIs: ``tests/e2e/test_cli_2_1_333_e2e.py``."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any, Dict

import pytest

from claude_sync import HookMatcher, SystemMessage
from claude_sync._callbacks.permissions import permission_call_from_request
from claude_sync._options.hook_registry import HookRegistry, check_observes_only_answer
from claude_sync._wire.messages import ToolProgressMessage
from claude_sync._wire.parse import parse_message

STAMP = "2026-11-30T17:08:29.123Z"

LINES: Dict[str, Dict[str, Any]] = {
    "assistant": {"type": "assistant", "message": {"content": [], "model": "m"}, "session_id": "s", "uuid": "u"},
    "user": {"type": "user", "message": {"content": "hi"}, "session_id": "s"},
    "result": {"type": "result", "subtype": "success", "is_error": False, "session_id": "s"},
    "tool_progress": {"type": "tool_progress", "tool_use_id": "t", "tool_name": "Bash", "session_id": "s"},
    "init": {"type": "system", "subtype": "init", "session_id": "s"},
    "task_notification": {"type": "system", "subtype": "task_notification", "task_id": "k", "status": "completed"},
    "stream_event": {"type": "stream_event", "event": {}, "session_id": "s", "uuid": "u"},
    "rate_limit_event": {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}},
    "conversation_reset": {"type": "conversation_reset", "new_conversation_id": "c", "uuid": "u", "session_id": "s"},
    "unknown": {"type": "brand_new_line", "session_id": "s"},
}


@pytest.mark.parametrize("kind", sorted(LINES))
def test_written_at_is_an_aware_utc_time_on_every_message_and_none_without_it(kind: str) -> None:
    older = parse_message(dict(LINES[kind]))
    assert older.written_at is None  # CLI 2.1.197: no written_at
    newer = parse_message({**LINES[kind], "written_at": STAMP})
    assert newer.written_at == datetime(2026, 11, 30, 17, 8, 29, 123000, tzinfo=timezone.utc)
    assert newer.written_at.utcoffset() == timedelta(0)
    again = type(newer).from_dict(newer.to_dict())  # the time is read from raw, not stored twice
    assert again == newer


@pytest.mark.parametrize(
    "value, words",
    [("yesterday", "not an ISO 8601 time"), (1764522509, "not an ISO 8601 time"), ("2026-11-30T17:08:29", "no time zone"),
     ("2026-11-30T17:08:29\udcff", "not an ISO 8601 time"), ("9" * 100_000, "not an ISO 8601 time")],
)  # fmt: skip
def test_a_written_at_that_is_not_such_a_time_raises_naming_it_and_raw_keeps_it(value: Any, words: str) -> None:
    line = {**LINES["result"], "written_at": value}
    message = parse_message(line)  # the per-line parse never looks at it
    with pytest.raises(ValueError, match=words):
        message.written_at
    assert message.raw["written_at"] == value


def test_an_offset_other_than_z_is_kept() -> None:
    message = parse_message({**LINES["user"], "written_at": "2026-11-30T18:08:29+01:00"})
    assert message.written_at == datetime(2026, 11, 30, 17, 8, 29, tzinfo=timezone.utc)


def test_the_new_fields_read_as_none_on_an_older_line_and_typed_on_a_newer_one() -> None:
    progress = parse_message(LINES["tool_progress"])
    assert isinstance(progress, ToolProgressMessage) and progress.description is None
    assert parse_message({**LINES["tool_progress"], "description": "Run the tests"}).description == "Run the tests"

    assert parse_message(LINES["result"]).code_mode_refusal is None
    assert parse_message({**LINES["result"], "code_mode_refusal": "not_opted_in"}).code_mode_refusal == "not_opted_in"

    init = parse_message(LINES["init"])
    assert isinstance(init, SystemMessage) and init.init is not None
    assert (init.init.code_mode, init.init.mcp_servers_denied_by_name, init.init.mcp_servers_left_out_by_lock) == (None, None, None)
    denied = [{"name": "web", "scope": "user"}]
    newer = parse_message({**LINES["init"], "code_mode": True, "mcp_servers_denied_by_name": denied,
                           "mcp_servers_left_out_by_lock": []})
    assert newer.init is not None
    assert (newer.init.code_mode, newer.init.mcp_servers_denied_by_name, newer.init.mcp_servers_left_out_by_lock) == (True, denied, [])

    assert parse_message(LINES["task_notification"]).waiting_on_agents is None
    assert parse_message({**LINES["task_notification"], "waiting_on_agents": True}).waiting_on_agents is True


PROVENANCE = {
    "hook_asked": True, "hook_ask_reason": "the hook wants a person", "plan_floor_ask_only": False,
    "ask_only_false_cause": "managed_hook", "managed_rules_only": True, "held_by_session_service": True,
}  # fmt: skip


def test_the_can_use_tool_ask_provenance_is_on_the_context_and_none_without_it() -> None:
    request = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}, "tool_use_id": "t"}
    _, _, older = permission_call_from_request(request, signal=None, request_id="r")
    assert all(getattr(older, name) is None for name in PROVENANCE)
    _, _, newer = permission_call_from_request({**request, **PROVENANCE}, signal=None, request_id="r")
    assert {name: getattr(newer, name) for name in PROVENANCE} == PROVENANCE


def test_a_provenance_value_of_another_type_reads_as_none_and_stays_in_raw() -> None:
    odd = {"hook_asked": "true", "hook_ask_reason": ["x"], "managed_rules_only": 1, "ask_only_false_cause": None}
    request = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, **odd}
    _, _, context = permission_call_from_request(request, signal=None, request_id="r")
    assert (context.hook_asked, context.hook_ask_reason, context.managed_rules_only, context.ask_only_false_cause) == (None,) * 4
    assert {k: context.raw[k] for k in odd} == odd


def _noop(*_: Any) -> Dict[str, Any]:
    return {}


def test_observes_only_is_sent_only_when_set_and_only_on_stop() -> None:
    registry = HookRegistry.from_options({
        "Stop": [HookMatcher(hooks=[_noop], timeout=5, observes_only=True)],
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[_noop])],
    })  # fmt: skip
    field = registry.initialize_hooks_field()
    assert field["Stop"] == [{"hookCallbackIds": ["hook_0"], "timeout": 5, "observesOnly": True}]
    assert "observesOnly" not in field["PreToolUse"][0] and registry.observes_only
    assert not HookRegistry.from_options({"Stop": [HookMatcher(hooks=[_noop])]}).observes_only
    with pytest.raises(ValueError, match=r"observes_only=True is for Stop hooks only \(the CLI ignores it on PreToolUse\)"):
        HookRegistry.from_options({"PreToolUse": [HookMatcher(hooks=[_noop], observes_only=True)]})
    with pytest.raises(TypeError, match="observes_only must be True, False or None"):
        HookRegistry.from_options({"Stop": [HookMatcher(hooks=[_noop], observes_only="yes")]})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer, reads",
    [({"claude_code_version": "2.1.333"}, True), ({"claude_code_version": "2.1.400"}, True),
     ({"claude_code_version": "2.1.332"}, False), ({}, False), ({"claude_code_version": ["2"]}, False),
     ({"claude_code_version": "x.y"}, False)],
)  # fmt: skip
def test_a_cli_too_old_for_observes_only_gets_a_warning_not_an_error(
    answer: Dict[str, Any], reads: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="claude_sync.hooks"):
        assert check_observes_only_answer(answer) is reads
    warned = [r.getMessage() for r in caplog.records if r.name == "claude_sync.hooks"]
    assert bool(warned) is not reads
    if warned:
        assert "predates it (CLI 2.1.333+ reads it)" in warned[0]
