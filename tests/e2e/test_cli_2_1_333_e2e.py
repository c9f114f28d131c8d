"""Against the real CLIs (the pinned 2.1.197 and the newest): what CLI 2.1.333 added for a
host, typed, and None / "needs CLI ≥ …" on the older one. ``written_at`` on the lines of a
turn, the init and result additions, the ``can_use_tool`` ask provenance (a ``PreToolUse``
hook that asks beside an ask rule), a ``Stop`` hook's ``observes_only``,
``set_mcp_servers(connect_in_background=True)``, and the host control requests
(``update_queued_message``, the peer-delivery pair, ``set_host_prompt_open``)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    ControlRequestError,
    HookMatcher,
    PermissionResultDeny,
    SystemMessage,
    ToolPermissionContext,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import FAST_FAIL, STDIO_SERVER, cli_is_at_least
from .harness import client_turn as run_turn

pytestmark = pytest.mark.e2e


def test_written_at_and_the_init_and_result_additions(e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str) -> None:
    fake_api.add(text("answer"))
    started = datetime.now(timezone.utc)
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL)) as client:
        messages = run_turn(client, "hello")
    ended = datetime.now(timezone.utc)
    result = messages[-1]
    [assistant] = [m for m in messages if isinstance(m, AssistantMessage)]
    [init] = [m.init for m in messages if isinstance(m, SystemMessage) and m.init is not None]
    stamped = [result, init]
    if cli_is_at_least(real_cli_path, "2.1.333"):
        for message in stamped:
            assert message.written_at is not None and message.written_at.tzinfo is not None, message.raw
            assert started - timedelta(seconds=2) <= message.written_at <= ended + timedelta(seconds=2)
        assert init.written_at <= result.written_at  # the order it wrote them
        # A line that carries its own string "timestamp" (the assistant's) is not stamped again.
        assert assistant.written_at is None and isinstance(assistant.raw["timestamp"], str)
    else:
        assert [m.written_at for m in stamped + [assistant]] == [None, None, None]
    # Claude Desktop's Code Mode only: absent here on both CLIs
    assert (init.code_mode, init.mcp_servers_denied_by_name, init.mcp_servers_left_out_by_lock) == (None, None, None)
    assert result.code_mode_refusal is None


def test_the_ask_provenance_of_a_hook_that_asked_beside_an_ask_rule(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str, e2e_workdir: Path
) -> None:
    fake_api.add(tool_use("Bash", {"command": "echo hi", "description": "say hi"}, id="toolu_ask"), text("done"))
    contexts: List[ToolPermissionContext] = []

    def ask(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                       "permissionDecisionReason": "the hook wants a person"}}

    def decide(tool_name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> PermissionResultDeny:
        contexts.append(context)
        return PermissionResultDeny(message="not now")

    options = e2e_options(
        env=FAST_FAIL,
        can_use_tool=decide,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[ask])]},
        settings=json.dumps({"permissions": {"ask": ["Bash(echo:*)"]}}),
    )
    with ClaudeSDKClient(options) as client:
        run_turn(client, "say hi")
    [context] = contexts
    provenance = {name: getattr(context, name) for name in (
        "hook_asked", "hook_ask_reason", "plan_floor_ask_only", "ask_only_false_cause", "managed_rules_only",
        "held_by_session_service")}  # fmt: skip
    if cli_is_at_least(real_cli_path, "2.1.333"):
        assert provenance["hook_asked"] is True and provenance["hook_ask_reason"] == "the hook wants a person", context.raw
    else:
        assert set(provenance.values()) == {None}, context.raw


def test_a_stop_hook_that_only_observes(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake_api.add(text("answer"))
    seen: List[str] = []

    def note(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        seen.append(hook_input["hook_event_name"])
        return {}

    options = e2e_options(env=FAST_FAIL, hooks={"Stop": [HookMatcher(hooks=[note], timeout=30, observes_only=True)]})
    with caplog.at_level(logging.WARNING, logger="claude_sync.hooks"):
        with ClaudeSDKClient(options) as client:
            run_turn(client, "hello")
    assert seen == ["Stop"]  # called on both CLIs
    warned = [r.getMessage() for r in caplog.records if r.name == "claude_sync.hooks"]
    if cli_is_at_least(real_cli_path, "2.1.333"):
        assert warned == []
    else:
        assert len(warned) == 1 and "predates it (CLI 2.1.333+ reads it)" in warned[0]


def test_set_mcp_servers_in_the_background(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str, tmp_path: Path
) -> None:
    stdio = tmp_path / "stdio_server.py"
    stdio.write_text(STDIO_SERVER)
    ext = {"type": "stdio", "command": sys.executable, "args": [str(stdio)]}
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL)) as client:
        changed = client.set_mcp_servers({"ext": ext}, connect_in_background=True)
        assert changed.added == ["ext"] and changed.errors == {}
        if cli_is_at_least(real_cli_path, "2.1.333"):
            assert changed.pending == ["ext"], changed.raw
        else:
            assert changed.pending is None and "pending" not in changed.raw


def test_the_host_control_requests(e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str) -> None:
    fake_api.add(text("answer"))
    newest = cli_is_at_least(real_cli_path, "2.1.333")
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL)) as client:
        capabilities = [m.init.capabilities for m in run_turn(client, "hi") if isinstance(m, SystemMessage) and m.init]
        if newest:
            assert client.set_host_prompt_open(True) is None
            assert client.set_host_prompt_open(False) is None
            # offline, Anthropic's flag for it is off: the CLI does not offer it, and says so
            assert "update_queued_message_v1" not in capabilities[0]
            with pytest.raises(ControlRequestError, match="needs CLI ≥ 2.1.332 that offers it: its system/init capabilities"):
                client.update_queued_message("0b6f0a52-0000-4000-8000-000000000000", priority="next")
            off = {"session": None, "account": False}
            assert client.set_peer_delivery(shows_held_messages=False) == {"always_deliver": off}
            assert client.decide_held_peer_message("hold-none", "drop") == {"outcome": "gone", "always_deliver": off}
        else:
            for needs, call in (
                ("2.1.333", lambda: client.set_host_prompt_open(True)),
                ("2.1.332", lambda: client.update_queued_message("u", priority="next")),
                ("2.1.332", lambda: client.set_peer_delivery(account=False)),
                ("2.1.332", lambda: client.decide_held_peer_message("h", "drop")),
            ):
                with pytest.raises(ControlRequestError, match=f"needs CLI ≥ {needs}"):
                    call()


def test_a_hooks_ask_code_and_the_mcp_status_connectors_flag(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """``permissionDecisionReasonCode`` (typed on ``PreToolUseHookSpecificOutput``) beside an
    ask from the host's own hook reaches the CLI, which passes a code it knows on to the
    ``can_use_tool`` request (2.1.333; 2.1.197 ignores the key); ``get_mcp_status()`` carries
    ``connectorsPending`` only while claude.ai connectors load: never here, on either CLI."""
    fake_api.add(tool_use("Bash", {"command": "echo hi", "description": "say hi"}, id="toolu_code"), text("done"))
    contexts: List[ToolPermissionContext] = []

    def ask(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                       "permissionDecisionReason": "first run of a workflow",
                                       "permissionDecisionReasonCode": "workflow_first_run"}}  # fmt: skip

    def decide(tool_name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> PermissionResultDeny:
        contexts.append(context)
        return PermissionResultDeny(message="not now")

    options = e2e_options(env=FAST_FAIL, can_use_tool=decide, hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[ask])]})
    with ClaudeSDKClient(options) as client:
        status = client.get_mcp_status()
        run_turn(client, "say hi")
    assert "connectorsPending" not in status and isinstance(status["mcpServers"], list)
    [context] = contexts
    codes = {key: value for key, value in context.raw.items() if "reason_code" in key}
    if cli_is_at_least(real_cli_path, "2.1.333"):
        assert codes == {"decision_reason_code": "workflow_first_run"}, context.raw
    else:
        assert codes == {}, context.raw
