"""What reaches the CLI and what comes back, against the real CLI (the pinned one and the
newest; where they differ the test says which does what): prompts delivered verbatim, frames
meant only for the SDK kept from the caller, ``/clear``'s conversation reset, and the CLI's
stderr going to ``debug_stderr``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import (
    ClaudeSDKClient,
    ConversationResetMessage,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    SystemMessage,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import cli_version

pytestmark = pytest.mark.e2e

NO_RETRY = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def run_turn(options: Any, prompt: str = "do it") -> List[Any]:
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        return list(client.receive_response(timeout=60))


def test_verbatim_prompts_are_delivered_as_written(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str, caplog: Any
) -> None:
    """``verbatim_prompts``: no ``@path`` expansion (CLI >= 2.1.248 honours
    ``client_composed``; older ones expand anyway, and connecting logs a warning saying so)."""
    (e2e_workdir / "secret.txt").write_text("TOP-SECRET-CONTENT")
    fake_api.add(text("fine"))
    with caplog.at_level("WARNING", logger="claude_sync.session"):
        run_turn(e2e_options(env=NO_RETRY, verbatim_prompts=True), prompt="look at @secret.txt")
    warned = any("verbatim_prompts" in r.getMessage() for r in caplog.records)
    assert warned == (cli_version(real_cli_path) < (2, 1, 248))
    (request,) = fake_api.turn_requests()
    sent = json.dumps(request.messages)
    assert "look at @secret.txt" in sent
    if cli_version(real_cli_path) >= (2, 1, 248):
        assert "TOP-SECRET-CONTENT" not in sent
    else:
        assert "TOP-SECRET-CONTENT" in sent  # the old CLI ignores client_composed


def test_session_state_frames_asked_for_the_sdk_are_not_shown(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    """We set ``CLAUDE_CODE_SDK_READS_SESSION_STATE=1`` as the official SDK does; the frames the
    CLI then sends only for the SDK (``sdk_host_only``) never reach the caller."""
    fake_api.add(text("hello"))
    messages = run_turn(e2e_options(env=NO_RETRY))
    host_only = [m for m in messages if isinstance(m, SystemMessage) and m.data.get("sdk_host_only") is True]
    assert host_only == []
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "hello"


def test_clear_yields_a_typed_conversation_reset_on_newer_clis(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """``/clear`` mid-session: CLI 2.1.330 sends ``conversation_reset`` (typed
    ``ConversationResetMessage``, ``trigger="clear"``, the outgoing ``session_id``) without
    calling the API; 2.1.197 sends none (and passes ``/clear`` on as a turn of its own).
    Either way later messages carry a new session id."""
    fake_api.add(text("one"), text("two"), text("three"))
    with ClaudeSDKClient(e2e_options(env=NO_RETRY)) as client:
        client.query("hi")
        first = list(client.receive_response(timeout=60))
        client.query("/clear")
        cleared = list(client.receive_response(timeout=60))
        client.query("again")
        after = list(client.receive_response(timeout=60))
    old_session = first[-1].session_id
    resets = [m for m in cleared if isinstance(m, ConversationResetMessage)]
    if cli_version(real_cli_path) >= (2, 1, 330):
        (reset,) = resets
        assert reset.trigger == "clear" and reset.session_id == old_session
        assert reset.new_conversation_id and reset.raw["type"] == "conversation_reset"
    else:
        assert resets == []
    assert isinstance(after[-1], ResultMessage) and after[-1].session_id != old_session


def test_cli_stderr_goes_to_debug_stderr_without_a_callback(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    """No ``stderr`` callback: the CLI's stderr lines are written to ``debug_stderr`` (default
    ``sys.stderr``, i.e. the terminal, as with the official SDK). A raising hook makes the CLI
    log "Error in hook callback hook_0" there."""
    import io

    def broken(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        raise ValueError("broken hook")

    sink = io.StringIO()
    fake_api.add(tool_use("Bash", {"command": "true"}), text("done"))
    allow = lambda n, i, c: PermissionResultAllow()  # noqa: E731
    hooks = {"PreToolUse": [HookMatcher(hooks=[broken], timeout=10)]}
    run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=allow, hooks=hooks, debug_stderr=sink))
    assert "hook_0" in sink.getvalue()
