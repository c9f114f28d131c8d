"""Drop-in parity with claude-agent-sdk 0.2.187, checked against the real CLI and the fake API.

Run against the pinned CLI and against 2.1.330 (``CLAUDE_SYNC_TEST_CLI``); where the two
behave differently the test says which does what.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import (
    ClaudeSDKClient,
    CLIConnectionError,
    ConversationResetMessage,
    HookMatcher,
    PermissionResultAllow,
    PermissionRuleValue,
    PermissionUpdate,
    ResultMessage,
    SystemMessage,
    ToolPermissionContext,
)

from .fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e

NO_RETRY = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def cli_version(path: str) -> tuple:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    return tuple(int(part) for part in out.split()[0].split("."))


def run_turn(options: Any, prompt: str = "do it") -> List[Any]:
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        return list(client.receive_response(timeout=60))


def test_an_always_allow_rule_without_destination_is_kept(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """The ported "always allow": ``PermissionUpdate(addRules)`` with no destination. We send
    ``destination: "session"`` (CLI 2.1.330 drops every update of an answer when one lacks
    it), so the second identical Bash call is not asked about, and nothing is written to the
    settings files."""
    command = "touch twice.txt"
    fake_api.add(tool_use("Bash", {"command": command}), tool_use("Bash", {"command": command}), text("both done"))
    calls: List[str] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        calls.append(name)
        rule = PermissionUpdate(type="addRules", rules=[PermissionRuleValue("Bash", command)], behavior="allow")
        return PermissionResultAllow(updated_permissions=[rule])

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert calls == ["Bash"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "both done"
    assert not (e2e_workdir / ".claude").exists()
    fake_api.assert_no_surprises()


def test_fail_closed_hooks_connect_only_where_the_cli_honours_them(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """``HookMatcher(on_failure="block")`` → ``initialize.hooks[].onFailure``. A CLI whose
    answer lacks ``hook_on_failure_supported`` would fail open, so connecting raises."""

    def hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        return {}

    options = e2e_options(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook], timeout=10, on_failure="block")]})
    client = ClaudeSDKClient(options)
    try:
        client.connect()
    except CLIConnectionError as error:
        assert "on_failure" in str(error)
        supported = False
    else:
        supported = True
        info = client.get_server_info() or {}
        assert info.get("hook_on_failure_supported") is True
    finally:
        client.close()
    print(f"CLI {cli_version(real_cli_path)}: fail-closed hooks supported = {supported}")


def test_a_raising_fail_closed_hook_blocks_the_tool(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """Where the CLI honours ``on_failure="block"``, a hook that raises blocks the tool (the
    default fails open: ``test_callbacks_e2e.test_a_raising_hook_fails_open``)."""

    def hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        raise ValueError("policy engine down")

    fake_api.add(tool_use("Bash", {"command": "touch blocked.txt"}), text("ok"))
    asked: List[str] = []

    def allow_all(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        asked.append(name)
        return PermissionResultAllow()

    options = e2e_options(
        env=NO_RETRY,
        permission_mode="default",
        can_use_tool=allow_all,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook], timeout=10, on_failure="block")]},
    )
    try:
        messages = run_turn(options)
    except CLIConnectionError:
        assert cli_version(real_cli_path) < (2, 1, 330), "2.1.330 honours on_failure"
        return
    assert not (e2e_workdir / "blocked.txt").exists()
    assert asked == []
    assert isinstance(messages[-1], ResultMessage)


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


def test_real_hook_inputs_have_the_typed_required_keys(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """What the CLI sends a hook carries every required key of our TypedDict for the event."""
    import typing

    import claude_sync.types as types

    seen: List[Dict[str, Any]] = []

    def record(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        seen.append(dict(hook_input))
        return {}

    fake_api.add(tool_use("Bash", {"command": "true"}), text("done"))
    events = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")
    hooks = {event: [HookMatcher(hooks=[record], timeout=10)] for event in events}
    allow = lambda n, i, c: PermissionResultAllow()  # noqa: E731
    run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=allow, hooks=hooks))
    by_event = {typing.get_args(typing.get_type_hints(m)["hook_event_name"])[0]: m for m in typing.get_args(types.HookInput)}
    assert {h["hook_event_name"] for h in seen} == set(events)
    for hook_input in seen:
        typed = by_event[hook_input["hook_event_name"]]
        assert typed.__required_keys__ <= set(hook_input), (typed.__name__, sorted(typed.__required_keys__ - set(hook_input)))


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


def test_directory_added_hook_gets_its_typed_input(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """``register_repo_root`` (a control request) fires the ``DirectoryAdded`` hook on CLI
    2.1.330 with ``directory`` and ``source="register_repo_root"``; 2.1.197 answers the
    request but has no such event (nothing is asserted there)."""
    import threading

    import claude_sync.types as types

    seen: List[Dict[str, Any]] = []
    fired = threading.Event()

    def record(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        seen.append(dict(hook_input))
        fired.set()
        return {}

    package = e2e_workdir / "pkg"
    package.mkdir()
    options = e2e_options(hooks={"DirectoryAdded": [HookMatcher(hooks=[record], timeout=10)]})
    with ClaudeSDKClient(options) as client:
        answer = client.send_control_request("register_repo_root", {"directory": str(package)})
        assert answer.get("directory") == str(package)
        if cli_version(real_cli_path) >= (2, 1, 330):
            assert fired.wait(30), "no DirectoryAdded hook call"
    if cli_version(real_cli_path) >= (2, 1, 330):
        (hook_input,) = seen
        assert hook_input["hook_event_name"] == "DirectoryAdded"
        assert (hook_input["directory"], hook_input["source"]) == (str(package), "register_repo_root")
        assert types.DirectoryAddedHookInput.__required_keys__ <= set(hook_input)
