"""Permission callbacks and hooks through the library, against the real CLI and the fake API.

Every test runs the real ``claude`` binary (``--permission-mode default``, and the
``--permission-prompt-tool stdio`` the library adds for ``can_use_tool``) against the loopback
fake Anthropic API, which scripts the model's tool calls. What the CLI does with each answer
is the authority here; the exact wire facts each test pins are in its docstring. The
``§b1``-style tags name the scenarios of ``docs/protocol/REAL_CLI_2.1.197.md`` §4.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from claude_sync import (
    AssistantMessage,
    ClaudeSDKClient,
    HookContext,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)
from claude_sync.testing.fake_api import FakeAnthropicAPI, Reply, text, tool_use

from .harness import cli_is_at_least

pytestmark = pytest.mark.e2e

NO_RETRY = {"CLAUDE_CODE_MAX_RETRIES": "0"}
Calls = List[Tuple[str, Dict[str, Any], ToolPermissionContext]]


# ============================================================================ helpers


def bash(command: str) -> Reply:
    return tool_use("Bash", {"command": command, "description": "Run a test command"})


def run_turn(options: Any, prompt: str = "do it") -> List[Any]:
    """One turn with ``ClaudeSDKClient``: every message up to and including the result."""
    with ClaudeSDKClient(options) as client:
        client.query(prompt)
        return list(client.receive_response(timeout=60))


def result_of(messages: List[Any]) -> ResultMessage:
    assert isinstance(messages[-1], ResultMessage), messages[-1]
    return messages[-1]


def tool_results(messages: List[Any]) -> List[ToolResultBlock]:
    return [
        block
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]


def user_texts(messages: List[Any]) -> List[str]:
    found: List[str] = []
    for m in messages:
        if not isinstance(m, UserMessage):
            continue
        if isinstance(m.content, str):
            found.append(m.content)
        else:
            found += [b.text for b in m.content if isinstance(b, TextBlock)]
    return found


def result_text(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return "".join(part.get("text", "") for part in block.content or [] if isinstance(part, dict))


def recording_allow(calls: Calls, **allow: Any) -> Callable[..., Any]:
    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        calls.append((name, dict(tool_input), context))
        return PermissionResultAllow(**allow)

    return can_use_tool


def must(event: threading.Event, what: str, timeout: float = 30.0) -> None:
    assert event.wait(timeout), f"timed out waiting for: {what}"


def same_path(a: Optional[str], b: Path) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(str(b))


# ============================================================================ can_use_tool


def test_allow_runs_a_non_read_only_bash(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """§b1: ``touch`` is not read-only, so the CLI asks. The request carries ``display_name``,
    ``description``, ``blocked_path`` (the file), ``tool_use_id`` and three suggestions
    (addRules localSettings with the exact command, addDirectories session, setMode
    acceptEdits session); our allow with ``updatedInput`` = the original input runs it."""
    touch = bash("touch allowed.txt")
    fake_api.add(touch, text("file created"))
    calls: Calls = []
    options = e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=recording_allow(calls))
    messages = run_turn(options)

    assert (e2e_workdir / "allowed.txt").is_file()
    ((name, tool_input, context),) = calls
    assert name == "Bash" and tool_input["command"] == "touch allowed.txt"
    assert context.tool_use_id == touch.tool_use_ids[0]
    assert context.display_name == "Bash"
    assert context.description == "Run a test command"
    assert same_path(context.blocked_path, e2e_workdir / "allowed.txt")
    assert context.agent_id is None and context.decision_reason is None
    assert context.signal is not None and not context.signal.is_set()
    assert [s.type for s in context.suggestions] == ["addRules", "addDirectories", "setMode"]
    rules, directories, mode = context.suggestions
    assert [(r.tool_name, r.rule_content) for r in rules.rules or []] == [("Bash", "touch allowed.txt")]
    assert (rules.behavior, rules.destination) == ("allow", "localSettings")
    assert same_path((directories.directories or [None])[0], e2e_workdir)
    assert (mode.mode, mode.destination) == ("acceptEdits", "session")

    (block,) = tool_results(messages)
    assert block.tool_use_id == touch.tool_use_ids[0] and block.is_error is False
    result = result_of(messages)
    assert result.subtype == "success" and result.is_error is False
    assert result.result == "file created" and result.permission_denials == []
    fake_api.assert_no_surprises()


def test_allow_with_a_changed_command_runs_the_changed_one(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """§b2: a changed ``updatedInput`` is executed silently (nothing on the wire says so)."""
    fake_api.add(bash("touch original.txt"), text("done"))
    calls: Calls = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        calls.append((name, dict(tool_input), context))
        return PermissionResultAllow(updated_input={**tool_input, "command": "touch changed_by_sdk.txt"})

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert (e2e_workdir / "changed_by_sdk.txt").is_file()
    assert not (e2e_workdir / "original.txt").exists()
    assert len(calls) == 1
    (block,) = tool_results(messages)
    assert block.is_error is False
    assert result_of(messages).subtype == "success"


def test_the_ts_docs_wire_dicts_allow_and_deny_and_any_other_dict_fails_closed(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """The two answers the TypeScript docs teach, returned as plain dicts: the allow runs its
    ``updatedInput``, the deny reaches the model as the tool_result, and a dict of any other
    shape (here snake_case) is denied with our fail-closed message naming the bad key."""
    fake_api.add(bash("touch one.txt"), bash("touch two.txt"), bash("touch three.txt"), text("done"))
    answers = iter([
        {"behavior": "allow", "updatedInput": {"command": "touch one_changed.txt", "description": "d"}},
        {"behavior": "deny", "message": "two is not allowed"},
        {"behavior": "allow", "updated_input": {"command": "touch three.txt"}},
    ])  # fmt: skip

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        return next(answers)

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert (e2e_workdir / "one_changed.txt").is_file()
    assert not (e2e_workdir / "one.txt").exists() and not (e2e_workdir / "two.txt").exists()
    assert not (e2e_workdir / "three.txt").exists()
    first, second, third = tool_results(messages)
    assert first.is_error is False
    assert second.is_error is True and result_text(second) == "two is not allowed"
    assert third.is_error is True and "updated_input" in result_text(third) and "can_use_tool" in result_text(third)
    assert result_of(messages).subtype == "success"


def test_deny_gives_an_error_tool_result_and_a_permission_denial(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """§b3: the tool_result is ``{"content": <our message>, "is_error": true}``, the loop goes
    on (the next API call carries that error), the result is ``success`` and lists the tool in
    ``permission_denials: [{tool_name, tool_use_id, tool_input}]``."""
    touch = bash("touch denied.txt")
    fake_api.add(touch, text("understood"))

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        return PermissionResultDeny(message="Not allowed in tests")

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert not (e2e_workdir / "denied.txt").exists()
    (block,) = tool_results(messages)
    assert block.is_error is True and result_text(block) == "Not allowed in tests"
    result = result_of(messages)
    assert result.subtype == "success" and result.is_error is False and result.result == "understood"
    assert result.permission_denials == [
        {"tool_name": "Bash", "tool_use_id": touch.tool_use_ids[0], "tool_input": {"command": "touch denied.txt", "description": "Run a test command"}}
    ]
    second = fake_api.turn_requests()[1]
    assert [(b["tool_use_id"], b.get("is_error")) for b in second.tool_results] == [(touch.tool_use_ids[0], True)]
    fake_api.assert_no_surprises()


def test_deny_with_interrupt_aborts_the_turn_and_query_raises_result_error(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """§b4, through ``query()``. The CLI answers a deny with ``interrupt: true`` by:

    1. a ``user`` tool_result (is_error) "The user doesn't want to proceed with this tool use…"
       (the CLI's own text: our deny ``message`` is not shown), ``tool_use_result`` "User
       rejected tool use",
    2. a ``user`` text ``[Request interrupted by user for tool use]``,
    3. ``result`` ``subtype="error_during_execution"``, ``is_error=true``,
       ``terminal_reason="aborted_tools"``, ``stop_reason="tool_use"``,
       ``errors=["[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=tool_use"]``,
       no ``result`` field, and the tool in ``permission_denials``;
    4. no second API call; exit code 1 once stdin is closed.

    ``query()`` yields that ``ResultMessage`` and then raises ``ResultError`` (not
    ``ProcessError`` for the exit code 1: an exit after an error result is expected)."""
    touch = bash("touch never.txt")
    fake_api.add(touch)

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        return PermissionResultDeny(message="Stop everything", interrupt=True)

    seen: List[Any] = []
    options = e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool)
    with pytest.raises(ResultError) as raised:
        with query("do it", options=options) as stream:
            for message in stream:
                seen.append(message)
    result = result_of(seen)
    assert (result.subtype, result.is_error, result.terminal_reason) == ("error_during_execution", True, "aborted_tools")
    assert result.result is None
    assert result.errors and result.errors[0].startswith("[ede_diagnostic]")
    assert result.stop_reason == "tool_use"
    assert [d["tool_use_id"] for d in result.permission_denials or []] == touch.tool_use_ids
    assert raised.value.subtype == "error_during_execution"
    (block,) = tool_results(seen)
    assert block.is_error is True and block.tool_use_id == touch.tool_use_ids[0]
    assert result_text(block).startswith("The user doesn't want to proceed with this tool use")
    assert "Stop everything" not in result_text(block)
    assert "[Request interrupted by user for tool use]" in user_texts(seen)
    assert not (e2e_workdir / "never.txt").exists()
    assert len(fake_api.turn_requests()) == 1
    fake_api.assert_no_surprises()


@pytest.mark.parametrize("accept_suggestions", [True, False], ids=["with-suggestions", "without"])
def test_updated_permissions_stop_the_cli_from_asking_again(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, accept_suggestions: bool
) -> None:
    """§b6: allow with ``updated_permissions`` = the request's suggestions, and the second,
    identical Bash call is not asked again (one callback call); without them it is asked
    twice. Side effect of accepting the ``localSettings`` rule: the CLI writes
    ``<cwd>/.claude/settings.local.json`` with ``permissions.allow: ["Bash(touch twice.txt)"]``."""
    fake_api.add(bash("touch twice.txt"), bash("touch twice.txt"), text("both done"))
    calls: Calls = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        calls.append((name, dict(tool_input), context))
        return PermissionResultAllow(updated_permissions=context.suggestions if accept_suggestions else None)

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert len(calls) == (1 if accept_suggestions else 2)
    assert [b.is_error for b in tool_results(messages)] == [False, False]
    assert result_of(messages).result == "both done"
    settings = e2e_workdir / ".claude" / "settings.local.json"
    if accept_suggestions:
        assert "Bash(touch twice.txt)" in json.loads(settings.read_text())["permissions"]["allow"]
    else:
        assert not settings.exists()
    fake_api.assert_no_surprises()


def test_a_raising_callback_denies_the_tool_and_the_session_finishes(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """Fail-closed: the library answers a deny (not an error) whose message names the
    failure; the CLI records it as a permission denial and the turn goes on to ``success``."""
    touch = bash("touch raised.txt")
    fake_api.add(touch, text("moving on"))

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        raise RuntimeError("policy service unreachable")

    messages = run_turn(e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool))
    assert not (e2e_workdir / "raised.txt").exists()
    (block,) = tool_results(messages)
    assert block.is_error is True
    assert "can_use_tool" in result_text(block) and "RuntimeError: policy service unreachable" in result_text(block)
    result = result_of(messages)
    assert result.subtype == "success" and result.result == "moving on"
    assert [d["tool_use_id"] for d in result.permission_denials or []] == [touch.tool_use_ids[0]]
    fake_api.assert_no_surprises()


# ============================================================================ hooks


def test_pre_tool_use_hook_deny_blocks_the_tool_without_asking(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """§c2: ``permissionDecision: "deny"`` from PreToolUse → no ``can_use_tool`` request; the
    tool_result is ``{"content": <the reason>, "is_error": true}`` (CLI 2.1.330 prefixes the
    reason with "PreToolUse:Bash hook error: "); the result is success. The hook input carries
    ``tool_name``, ``tool_input``, ``tool_use_id`` and the common fields."""
    touch = bash("touch hooked.txt")
    fake_api.add(touch, text("blocked, fine"))
    calls: Calls = []
    hook_calls: List[Tuple[Dict[str, Any], Optional[str], HookContext]] = []

    def deny_bash(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        hook_calls.append((hook_input, tool_use_id, context))
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Blocked by the test hook",
            }
        }

    options = e2e_options(
        env=NO_RETRY,
        permission_mode="default",
        can_use_tool=recording_allow(calls),
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_bash], timeout=10)]},
    )
    messages = run_turn(options)
    assert calls == []
    assert not (e2e_workdir / "hooked.txt").exists()
    (block,) = tool_results(messages)
    reason = "Blocked by the test hook"
    if cli_is_at_least(real_cli_path, "2.1.330"):
        reason = f"PreToolUse:Bash hook error: {reason}"
    assert block.is_error is True and result_text(block) == reason
    ((hook_input, tool_use_id, context),) = hook_calls
    assert tool_use_id == touch.tool_use_ids[0] == hook_input["tool_use_id"]
    assert hook_input["hook_event_name"] == "PreToolUse" and hook_input["tool_name"] == "Bash"
    assert hook_input["tool_input"]["command"] == "touch hooked.txt"
    assert {"session_id", "transcript_path", "cwd", "permission_mode"} <= set(hook_input)
    assert context.callback_id == "hook_0"
    assert result_of(messages).subtype == "success"
    fake_api.assert_no_surprises()


def test_a_raising_hook_fails_open(e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path) -> None:
    """§c6: a hook that raises → the library answers ``control_response`` ``subtype:"error"``
    ("Hook hook_0 (PreToolUse) failed: ValueError: …"); the CLI treats it as no decision:
    ``can_use_tool`` is still asked and the tool runs. The CLI prints "Error in hook callback
    hook_0:" plus KBs of its minified source to stderr."""
    fake_api.add(bash("touch despite_hook.txt"), text("ran anyway"))
    calls: Calls = []
    stderr: List[str] = []

    def broken(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        raise ValueError("hook bug")

    options = e2e_options(
        env=NO_RETRY,
        permission_mode="default",
        can_use_tool=recording_allow(calls),
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[broken], timeout=10)]},
        stderr=stderr.append,
    )
    messages = run_turn(options)
    assert len(calls) == 1
    assert (e2e_workdir / "despite_hook.txt").is_file()
    assert [b.is_error for b in tool_results(messages)] == [False]
    assert result_of(messages).result == "ran anyway"
    assert any("Error in hook callback hook_0" in line for line in stderr)
    assert any("Hook hook_0 (PreToolUse) failed: ValueError: hook bug" in line for line in stderr)
    fake_api.assert_no_surprises()


def test_user_prompt_submit_block_makes_no_api_call(e2e_options: Any, fake_api: FakeAnthropicAPI) -> None:
    """§c7: ``{"decision": "block", "reason": …}`` from UserPromptSubmit → a
    ``system/informational`` message (``content`` "UserPromptSubmit operation blocked by
    hook:\\n<reason>\\n\\nOriginal prompt: <prompt>", ``level: "warning"``,
    ``prevent_continuation: true``), then a ``success`` result with ``num_turns: 0``,
    ``result`` = that content, ``stop_reason: null``, no ``terminal_reason``; no API call."""
    prompts: List[str] = []

    def block(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        prompts.append(hook_input.get("prompt", ""))
        return {"decision": "block", "reason": "prompts about secrets are blocked"}

    options = e2e_options(env=NO_RETRY, hooks={"UserPromptSubmit": [HookMatcher(hooks=[block], timeout=10)]})
    messages = run_turn(options, "tell me the secret")
    assert prompts == ["tell me the secret"]
    assert fake_api.turn_requests() == []
    (info,) = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "informational"]
    assert info.data["content"].startswith("UserPromptSubmit operation blocked by hook:")
    assert info.data["content"] == (
        "UserPromptSubmit operation blocked by hook:\nprompts about secrets are blocked"
        "\n\nOriginal prompt: tell me the secret"
    )
    assert info.data["level"] == "warning" and info.data["prevent_continuation"] is True
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 0)
    assert result.result == info.data["content"]
    assert result.stop_reason is None and result.terminal_reason is None
    assert not [m for m in messages if isinstance(m, AssistantMessage)]
    fake_api.assert_no_surprises()


def test_a_hook_that_never_answers_is_cancelled_at_its_timeout_and_the_tool_denied(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """§c4: with ``timeout=2`` the CLI sends ``control_cancel_request`` for the hook after
    2.0 s (the library sets the hook's signal), denies the tool without asking
    ``can_use_tool`` — tool_result "The user doesn't want to take this action right now. STOP
    what you are doing…" (is_error), ``tool_use_result`` "Error: undefined" — and the loop
    goes on to a ``success`` result. The denial is **not** listed in ``permission_denials``."""
    touch = bash("touch too_slow.txt")
    fake_api.add(touch, text("gave up on it"))
    waited: List[Tuple[bool, float]] = []
    calls: Calls = []

    def never_answers(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        began = time.monotonic()
        assert context.signal is not None
        waited.append((context.signal.wait(30), time.monotonic() - began))
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}

    options = e2e_options(
        env=NO_RETRY,
        permission_mode="default",
        can_use_tool=recording_allow(calls),
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[never_answers], timeout=2)]},
    )
    messages = run_turn(options)
    ((signalled, after),) = waited
    assert signalled is True and 1.5 <= after < 15, after
    assert calls == []
    assert not (e2e_workdir / "too_slow.txt").exists()
    (block,) = tool_results(messages)
    assert block.is_error is True
    if cli_is_at_least(real_cli_path, "2.1.330"):  # the CLI words the denial differently
        assert result_text(block).startswith("PreToolUse hook did not respond before its timeout")
    else:
        assert result_text(block).startswith("The user doesn't want to take this action right now")
    result = result_of(messages)
    assert result.subtype == "success" and result.result == "gave up on it"
    assert result.permission_denials == []
    fake_api.assert_no_surprises()


def test_interrupt_while_a_permission_callback_blocks_cancels_it_and_aborts_the_turn(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    """§l: ``interrupt`` while ``can_use_tool`` is pending. The callback's signal is set
    (``interrupt()`` sets it, and the CLI sends ``control_cancel_request`` for the pending
    request before its ack of the interrupt). The turn ends like a deny with interrupt: tool_result
    "The user doesn't want to proceed…", ``[Request interrupted by user for tool use]``,
    ``error_during_execution`` / ``aborted_tools``. The callback's late allow is ignored (the
    tool never runs) and the next turn works."""
    touch = bash("touch interrupted.txt")
    fake_api.add(touch)
    started, saw_signal = threading.Event(), threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        started.set()
        assert context.signal is not None
        if context.signal.wait(30):
            saw_signal.set()
        return PermissionResultAllow()  # too late: must be ignored

    options = e2e_options(env=NO_RETRY, permission_mode="default", can_use_tool=can_use_tool)
    with ClaudeSDKClient(options) as client:
        client.query("do it")
        must(started, "the permission callback to start")
        client.interrupt(timeout=30)
        must(saw_signal, "the callback's signal to be set")
        aborted = list(client.receive_response(timeout=60))
        fake_api.add(text("second turn works"))
        client.query("again")
        second = list(client.receive_response(timeout=60))
    result = result_of(aborted)
    assert (result.subtype, result.is_error) == ("error_during_execution", True)
    # The CLI's own label for where the interrupt found it: "aborted_tools" as a rule; seen once
    # under a loaded 2-core CI run on 2.1.197, "aborted_streaming" (its stream loop had not yet
    # left the message whose tool was being asked about). Either way nothing ran (below).
    assert result.terminal_reason in ("aborted_tools", "aborted_streaming"), result.raw
    assert any(isinstance(b, ToolUseBlock) for m in aborted if isinstance(m, AssistantMessage) for b in m.content)
    assert not (e2e_workdir / "interrupted.txt").exists()
    assert "[Request interrupted by user for tool use]" in user_texts(aborted)
    assert result_of(second).result == "second turn works"
    fake_api.assert_no_surprises()
