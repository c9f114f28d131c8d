"""Hooks and permission rules against the real CLI (the pinned one and the newest; where they
differ the test says which does what): fail-closed hooks, the keys of real hook inputs, the
``DirectoryAdded`` hook, and an "always allow" rule sent without a destination."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import (
    ClaudeSDKClient,
    CLIConnectionError,
    HookMatcher,
    PermissionResultAllow,
    PermissionRuleValue,
    PermissionUpdate,
    ResultMessage,
    ToolPermissionContext,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import cli_version

pytestmark = pytest.mark.e2e

NO_RETRY = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def run_turn(options: Any, prompt: str = "do it") -> List[Any]:
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        return list(client.receive_response(timeout=60))


def test_an_always_allow_rule_without_destination_is_kept(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """The "always allow" answer: ``PermissionUpdate(addRules)`` with no destination. We send
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


def write_shell_skill(workdir: Path, line: str) -> None:
    """A project skill ``/hello`` whose text holds the shell line ``!`line``` (allowed by its
    ``allowed-tools``, so only a hook can stop it)."""
    skill = workdir / ".claude" / "skills" / "hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: hello\ndescription: says hello\nallowed-tools: Bash(touch:*)\n---\n"
        f"Run this:\n!`{line}`\nDone.\n"
    )


@pytest.mark.parametrize("decision", ["deny", "allow"])
def test_a_skill_shell_line_goes_through_the_pre_skill_shell_command_hook(
    decision: str, e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """``/hello`` runs the skill's ``!`touch ran.txt``` line while it expands. CLI 2.1.332 first
    calls the ``PreSkillShellCommand`` hook with the typed input; ``deny`` keeps the line from
    running and the model reads the reason in its place. Older CLIs have no such event: the
    hook is registered, never called, and the line runs."""
    import typing

    import claude_sync.types as types

    write_shell_skill(e2e_workdir, "touch ran.txt")
    seen: List[Dict[str, Any]] = []

    def hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        seen.append(dict(hook_input))
        output: types.PreSkillShellCommandHookSpecificOutput = {
            "hookEventName": "PreSkillShellCommand",
            "permissionDecision": "deny" if decision == "deny" else "allow",
            "permissionDecisionReason": "no shell in skills here",
        }
        return {"hookSpecificOutput": output}

    fake_api.add(text("ok"))
    hooks = {"PreSkillShellCommand": [HookMatcher(matcher="Bash", hooks=[hook], timeout=10)]}
    messages = run_turn(e2e_options(env=NO_RETRY, hooks=hooks), prompt="/hello")
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "ok"
    (request,) = fake_api.turn_requests()
    sent = str(request.body)
    if cli_version(real_cli_path) < (2, 1, 332):
        assert seen == [] and (e2e_workdir / "ran.txt").exists()
        return
    (hook_input,) = seen
    assert types.PreSkillShellCommandHookInput.__required_keys__ <= set(hook_input)
    assert set(hook_input) <= set(typing.get_type_hints(types.PreSkillShellCommandHookInput))
    assert hook_input["hook_event_name"] == "PreSkillShellCommand"
    assert (hook_input["tool_name"], hook_input["tool_input"]) == ("Bash", {"command": "touch ran.txt"})
    assert (hook_input["command_name"], hook_input["invoked_by"]) == ("hello", "user")
    if decision == "deny":
        assert not (e2e_workdir / "ran.txt").exists()
        assert "[not run: blocked by hook: no shell in skills here]" in sent
    else:
        assert (e2e_workdir / "ran.txt").exists()


def test_settings_given_as_a_dict_reach_the_cli(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """``settings={...}`` (a dict, as the TS SDK's ``Settings`` object): its allow rule lets the
    Bash call run with no one to ask, and its deny rule stops the other."""
    fake_api.add(tool_use("Bash", {"command": "touch made.txt"}), tool_use("Bash", {"command": "rm -f x"}), text("done"))
    settings = {"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"]}}
    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", settings=settings))
    assert (e2e_workdir / "made.txt").exists()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "done"
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Bash"]
