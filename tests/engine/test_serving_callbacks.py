"""Permission and hook callbacks through the threaded shell, against ``claude_sync.testing``'s
scripted CLI (in-process through ``ScriptedCLI.transport()`` for most tests; as a real
subprocess, through ``cli_path``, where the process and its pipes matter).

The scripted CLI sends CLI→SDK ``control_request``\\ s (``ask_control``) and records every
frame we write (``RunReport.received``); these tests check the exact wire answers, that callbacks run on
the pool concurrently and never hold up the message stream, the cancellation races
(``control_cancel_request`` before / during / after a callback, ``interrupt()``, ``close()``),
and re-entrancy (a callback calling the client).

Negatives ("no response was sent") are proven with a marker request sent after the event:
with ``callback_workers=1`` the marker's answer is written only after the earlier job ended,
so an answer that was going to be written would already be in the log.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import pytest
from helpers import BOTH, Kit, Step, ask, hook_request, responses, texts, turn_script

from claude_sync import (
    ClaudeSDKClient,
    HookContext,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ResultMessage,
    ToolPermissionContext,
    query,
)
from claude_sync.testing import ScriptedCLI

ECHO = {
    "auto_answers": {subtype: ScriptedCLI.ECHO for subtype in ("get_settings", "set_permission_mode", "mcp_status")},
    "initialize_response": {"commands": [], "fake": True},
}

# The can_use_tool request of docs/protocol/REAL_CLI_2.1.197.md §4 b (Bash `touch`, b1), with the fields the
# CLI sends in the other cases added: decision_reason(_type) (b5, Write outside cwd) and
# agent_id (c8, a subagent's tool), and the three suggestion kinds never seen from the CLI
# but defined by it (replaceRules, removeRules, removeDirectories).
REAL_CAN_USE_TOOL = {
    "subtype": "can_use_tool",
    "tool_name": "Bash",
    "display_name": "Bash",
    "input": {"command": "touch created_by_bash.txt", "description": "Create an empty file"},
    "description": "Create an empty file",
    "permission_suggestions": [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "touch created_by_bash.txt"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        {"type": "addDirectories", "directories": ["/scratch/work"], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        {
            "type": "replaceRules",
            "rules": [{"toolName": "Read"}],
            "behavior": "deny",
            "destination": "projectSettings",
        },
        {
            "type": "removeRules",
            "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}],
            "behavior": "ask",
            "destination": "userSettings",
        },
        {"type": "removeDirectories", "directories": ["/old"], "destination": "cliArg"},
    ],
    "blocked_path": "/scratch/work/created_by_bash.txt",
    "decision_reason": "Path is outside allowed working directories",
    "decision_reason_type": "workingDir",
    "agent_id": "agent-7",
    "tool_use_id": "toolu_01ABC",
}


def can_use_tool_request(tool_name: str, tool_input: Optional[Dict[str, Any]] = None, tool_use_id: str = "toolu_x") -> Dict[str, Any]:
    return {
        "subtype": "can_use_tool",
        "tool_name": tool_name,
        "input": {"command": "ls"} if tool_input is None else tool_input,
        "permission_suggestions": [],
        "tool_use_id": tool_use_id,
    }


def cancel(request_id: str) -> Step:
    return lambda cli: cli.emit({"type": "control_cancel_request", "request_id": request_id})


def wait_response(request_id: str) -> Step:
    return lambda cli: cli.expect_answer(request_id, timeout=20)


def text(content: str, message_id: Optional[str] = None) -> Step:
    return lambda cli: cli.text(content, message_id=message_id)


def wait_file(path: Any) -> Step:
    return lambda cli: cli.wait_for_file(path, timeout=30)


def run_turn(cli: Kit, **options: Any) -> Tuple[Dict[str, Dict[str, Any]], List[Any]]:
    """Connect, send one prompt, read the response, check the script was followed; return
    (our answers, the messages)."""
    with cli.client(**options) as client:
        client.query("go")
        messages = list(client.receive_response(timeout=30))
    cli.cli.verify()
    return responses(cli), messages


def must(event: threading.Event, what: str, timeout: float = 10.0) -> None:
    assert event.wait(timeout), f"timed out waiting for: {what}"


# ============================================================================ can_use_tool


@BOTH
def test_allow_with_no_updated_input_sends_the_original_input_as_the_official_sdk_does(scripted: Any) -> None:
    seen: List[Tuple[str, Dict[str, Any], ToolPermissionContext]] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        seen.append((name, dict(tool_input), context))
        return PermissionResultAllow()

    request = can_use_tool_request("Bash", {"command": "touch x", "description": "d"}, "toolu_1")
    cli = scripted(turn_script(ask("p1", request)))
    answers, messages = run_turn(cli, can_use_tool=can_use_tool)
    assert answers["p1"] == {
        "subtype": "success",
        "request_id": "p1",
        "response": {
            "behavior": "allow",
            "updatedInput": {"command": "touch x", "description": "d"},
        },  # byte for byte the official SDK's answer: no toolUseID
    }
    assert [(name, tool_input) for name, tool_input, _ in seen] == [("Bash", {"command": "touch x", "description": "d"})]
    assert seen[0][2].request_id == "p1" and seen[0][2].signal is not None
    assert isinstance(messages[-1], ResultMessage)


def test_allow_with_changed_input_and_updated_permissions(scripted: Any) -> None:
    rule = PermissionUpdate(
        type="addRules",
        rules=[PermissionRuleValue(tool_name="Bash", rule_content="echo safe")],
        behavior="allow",
        destination="session",
    )

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        return PermissionResultAllow(updated_input={"command": "echo safe"}, updated_permissions=[rule])

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash", {"command": "rm -rf /"}, "toolu_2"))))
    answers, _ = run_turn(cli, can_use_tool=can_use_tool)
    assert answers["p1"]["response"] == {
        "behavior": "allow",
        "updatedInput": {"command": "echo safe"},
        "updatedPermissions": [
            {
                "type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "echo safe"}],
                "behavior": "allow",
                "destination": "session",
            }
        ],
    }


@pytest.mark.parametrize("interrupt", [False, True])
def test_deny_sends_message_and_interrupt(scripted: Any, interrupt: bool) -> None:
    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        return PermissionResultDeny(message="Not allowed in tests", interrupt=interrupt)

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash", tool_use_id="toolu_3"))))
    answers, _ = run_turn(cli, can_use_tool=can_use_tool)
    assert answers["p1"] == {
        "subtype": "success",
        "request_id": "p1",
        # as the official SDK: "interrupt" only when true, no toolUseID
        "response": {"behavior": "deny", "message": "Not allowed in tests", **({"interrupt": True} if interrupt else {})},
    }


class Boom(Exception):
    pass


@pytest.mark.parametrize(
    "bad, reason",
    [
        (Boom("kaput"), "Boom: kaput"),
        (None, "got NoneType"),
        ({"behavior": "allow", "updated_input": {}}, "does not take: updated_input"),
        (True, "got bool"),
        (PermissionResultAllow(updated_input="not a dict"), "updated_input must be a dict"),  # type: ignore[arg-type]
    ],
    ids=["raises", "returns-None", "returns-bad-dict", "returns-bool", "bad-updated-input"],
)
def test_a_failing_callback_fails_closed_and_the_session_goes_on(scripted: Any, bad: Any, reason: str, caplog: Any) -> None:
    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        if name == "Bad":
            if isinstance(bad, Exception):
                raise bad
            return bad
        return PermissionResultAllow()

    cli = scripted(
        turn_script(
            ask("p1", can_use_tool_request("Bad", tool_use_id="toolu_bad")),
            ask("p2", can_use_tool_request("Good", tool_use_id="toolu_good")),
        )
    )
    answers, messages = run_turn(cli, can_use_tool=can_use_tool)
    denied = answers["p1"]
    assert denied["subtype"] == "success"  # a deny the model can read, not a protocol error
    assert denied["response"]["behavior"] == "deny"
    assert denied["response"]["interrupt"] is False
    assert denied["response"]["toolUseID"] == "toolu_bad"
    assert "can_use_tool" in denied["response"]["message"] and reason in denied["response"]["message"]
    # the session keeps serving: the next request is answered normally
    assert answers["p2"]["response"]["behavior"] == "allow"
    assert isinstance(messages[-1], ResultMessage)
    assert any("the tool is denied" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")


def test_context_is_fully_populated_from_the_real_wire_request(scripted: Any) -> None:
    contexts: List[ToolPermissionContext] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        contexts.append(context)
        return PermissionResultAllow(updated_permissions=context.suggestions)

    cli = scripted(turn_script(ask("perm-1", REAL_CAN_USE_TOOL)))
    answers, _ = run_turn(cli, can_use_tool=can_use_tool)
    (context,) = contexts
    assert context.tool_use_id == "toolu_01ABC"
    assert context.agent_id == "agent-7"
    assert context.blocked_path == "/scratch/work/created_by_bash.txt"
    assert context.decision_reason == "Path is outside allowed working directories"
    assert context.decision_reason_type == "workingDir"
    assert context.display_name == "Bash"
    assert context.description == "Create an empty file"
    assert context.title is None  # not on the wire of 2.1.197
    assert context.request_id == "perm-1"
    assert context.raw == REAL_CAN_USE_TOOL
    assert context.signal is not None and not context.signal.is_set()
    assert [s.type for s in context.suggestions] == [
        "addRules", "addDirectories", "setMode", "replaceRules", "removeRules", "removeDirectories",
    ]  # fmt: skip
    add, dirs, mode, replace, remove, rmdirs = context.suggestions
    assert add.rules == [PermissionRuleValue("Bash", "touch created_by_bash.txt")]
    assert (add.behavior, add.destination) == ("allow", "localSettings")
    assert (dirs.directories, dirs.destination) == (["/scratch/work"], "session")
    assert (mode.mode, mode.destination) == ("acceptEdits", "session")
    assert replace.rules == [PermissionRuleValue("Read", None)] and replace.behavior == "deny"
    assert remove.rules == [PermissionRuleValue("Bash", "rm:*")] and remove.destination == "userSettings"
    assert rmdirs.directories == ["/old"] and rmdirs.destination == "cliArg"
    # handed back as updated_permissions, the suggestions go out exactly as they came in
    assert answers["perm-1"]["response"]["updatedPermissions"] == REAL_CAN_USE_TOOL["permission_suggestions"]
    assert answers["perm-1"]["response"]["updatedInput"] == REAL_CAN_USE_TOOL["input"]


def test_deny_all_permissions_denies_without_a_callback(scripted: Any) -> None:
    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash", tool_use_id="toolu_4"))))
    answers, _ = run_turn(cli, deny_all_permissions=True)
    response = answers["p1"]["response"]
    assert response["behavior"] == "deny" and response["interrupt"] is False
    assert response["toolUseID"] == "toolu_4"
    assert "deny_all_permissions=True" in response["message"] and "Bash" in response["message"]


def test_no_callback_configured_fails_closed(scripted: Any) -> None:
    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash", tool_use_id="toolu_5"))))
    answers, _ = run_turn(cli)
    assert answers["p1"]["response"]["behavior"] == "deny"
    assert "no can_use_tool callback" in answers["p1"]["response"]["message"]


def test_malformed_permission_request_gets_an_error_response(scripted: Any) -> None:
    called = threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        called.set()
        return PermissionResultAllow()

    cli = scripted(turn_script(ask("p1", {"subtype": "can_use_tool", "tool_name": "Bash", "input": "ls"}, error=True)))
    answers, _ = run_turn(cli, can_use_tool=can_use_tool)
    assert answers["p1"]["subtype"] == "error" and "must be an object" in answers["p1"]["error"]
    assert not called.is_set()


@BOTH
def test_can_use_tool_with_permission_prompt_tool_name_is_rejected_before_spawning(scripted: Any) -> None:
    cli = scripted(ScriptedCLI())
    options = cli.options(can_use_tool=lambda *a: PermissionResultAllow(), permission_prompt_tool_name="stdio")
    client = ClaudeSDKClient(options)
    with pytest.raises(ValueError, match="mutually exclusive"):
        client.connect()
    client.close()
    with pytest.raises(ValueError, match="mutually exclusive"):
        list(query("hi", options=options))
    assert cli.never_started()  # the scripted CLI never started


# ============================================================================ hooks


def test_hooks_are_registered_in_initialize_with_ids_matcher_and_timeout(scripted: Any) -> None:
    def noop(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> None:
        return None

    hooks = {
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[noop, noop], timeout=5), HookMatcher(hooks=[noop])],
        "UserPromptSubmit": [HookMatcher(hooks=[noop], timeout=2.5)],
    }
    cli = scripted(ScriptedCLI())
    with cli.client(hooks=hooks):
        pass
    (init,) = [f["request"] for f in cli.stdin_frames() if f.get("type") == "control_request" and f["request"]["subtype"] == "initialize"]
    assert init["hooks"] == {
        "PreToolUse": [
            {"hookCallbackIds": ["hook_0", "hook_1"], "matcher": "Bash", "timeout": 5},
            {"hookCallbackIds": ["hook_2"]},
        ],
        "UserPromptSubmit": [{"hookCallbackIds": ["hook_3"], "timeout": 2.5}],
    }


def test_no_hooks_no_hooks_field(scripted: Any) -> None:
    cli = scripted(ScriptedCLI())
    with cli.client():
        pass
    init = [f["request"] for f in cli.stdin_frames() if f.get("type") == "control_request"][0]
    assert init["subtype"] == "initialize" and "hooks" not in init


def test_hook_outputs_are_converted_and_none_is_empty(scripted: Any) -> None:
    calls: List[Tuple[Dict[str, Any], Optional[str], HookContext]] = []

    def python_keys(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        calls.append((hook_input, tool_use_id, context))
        return {
            "continue_": False,
            "async_": True,
            "stopReason": "enough",
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "continue_": "nested stays"},
        }

    def nothing(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> None:
        calls.append((hook_input, tool_use_id, context))

    hooks = {"PreToolUse": [HookMatcher(hooks=[python_keys, nothing], timeout=5)]}
    cli = scripted(turn_script(ask("h1", hook_request("hook_0", tool_use_id="toolu_A")), ask("h2", hook_request("hook_1", tool_use_id="toolu_B"))))
    answers, _ = run_turn(cli, hooks=hooks)
    assert answers["h1"] == {
        "subtype": "success",
        "request_id": "h1",
        "response": {
            "continue": False,
            "async": True,
            "stopReason": "enough",
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "continue_": "nested stays"},
        },
    }
    assert answers["h2"] == {"subtype": "success", "request_id": "h2", "response": {}}
    (in1, id1, ctx1), (in2, id2, ctx2) = calls
    assert in1 == hook_request("hook_0", tool_use_id="toolu_A")["input"] and id1 == "toolu_A"
    assert (ctx1.callback_id, ctx1.request_id) == ("hook_0", "h1")
    assert (ctx2.callback_id, ctx2.request_id, id2) == ("hook_1", "h2", "toolu_B")
    assert ctx1.signal is not None and not ctx1.signal.is_set()


@pytest.mark.parametrize(
    "outcome, text",
    [(Boom("hook exploded"), "Boom: hook exploded"), ("a string", "must return a dict")],
    ids=["raises", "wrong-type"],
)
def test_a_failing_hook_gets_an_error_response_and_the_session_goes_on(scripted: Any, outcome: Any, text: str, caplog: Any) -> None:
    def bad(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Any:
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def good(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        return {"continue_": True}

    hooks = {"PreToolUse": [HookMatcher(hooks=[bad, good], timeout=5)]}
    cli = scripted(turn_script(ask("h1", hook_request("hook_0"), error=True), ask("h2", hook_request("hook_1"))))
    answers, messages = run_turn(cli, hooks=hooks)
    assert answers["h1"]["subtype"] == "error"
    assert answers["h1"]["error"].startswith("Hook hook_0 (PreToolUse) failed: ")
    assert text in answers["h1"]["error"]
    assert answers["h2"]["response"] == {"continue": True}
    assert isinstance(messages[-1], ResultMessage)
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len([e for e in errors if "hook_0" in e]) == 1, errors  # logged once, not twice


def test_unknown_hook_callback_id_gets_an_error_response(scripted: Any) -> None:
    hooks = {"Stop": [HookMatcher(hooks=[lambda *a: None], timeout=5)]}
    cli = scripted(turn_script(ask("h1", hook_request("cb_nope", event="Stop"), error=True)))
    answers, _ = run_turn(cli, hooks=hooks)
    assert answers["h1"]["subtype"] == "error" and "cb_nope" in answers["h1"]["error"]


# ============================================================================ concurrency


@BOTH
def test_permission_and_hook_callbacks_run_concurrently_on_the_pool(scripted: Any) -> None:
    """The CLI sends can_use_tool and the PermissionRequest hook ~1 ms apart (§c). Each
    callback waits at a 2-party barrier: it only opens if both run at the same time."""
    barrier = threading.Barrier(2, timeout=10)
    threads: List[str] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        threads.append(threading.current_thread().name)
        barrier.wait()
        return PermissionResultAllow()

    def permission_request_hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        threads.append(threading.current_thread().name)
        barrier.wait()
        return {}

    hooks = {"PermissionRequest": [HookMatcher(hooks=[permission_request_hook], timeout=30)]}
    cli = scripted(
        turn_script(
            ask("p1", can_use_tool_request("Bash"), wait=False),
            ask("h1", hook_request("hook_0", event="PermissionRequest"), wait=False),
            wait_response("p1"),
            wait_response("h1"),
        )
    )
    answers, _ = run_turn(cli, can_use_tool=can_use_tool, hooks=hooks)
    assert not barrier.broken
    assert answers["p1"]["response"]["behavior"] == "allow"
    assert answers["h1"] == {"subtype": "success", "request_id": "h1", "response": {}}
    assert len(set(threads)) == 2 and all(name.startswith("claude_sync-callback-") for name in threads)


def test_sequential_permission_round_trips_reuse_one_pool_thread(scripted: Any) -> None:
    """The CLI asks again only after our answer: the worker counts itself idle before it
    writes that answer, so the next request finds it instead of starting a new thread."""
    threads: List[str] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        threads.append(threading.current_thread().name)
        return PermissionResultAllow()

    cli = scripted(turn_script(*[ask(f"p{i}", can_use_tool_request("Bash", tool_use_id=f"toolu_{i}")) for i in range(30)]))
    answers, _ = run_turn(cli, can_use_tool=can_use_tool, callback_workers=4)
    assert len(answers) == 30 and all(a["response"]["behavior"] == "allow" for a in answers.values())
    assert set(threads) == {"claude_sync-callback-0"}


def test_a_slow_callback_does_not_delay_messages_emitted_after_it(scripted: Any) -> None:
    started, release = threading.Event(), threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        started.set()
        must(release, "the test to release the callback", 20)
        return PermissionResultAllow()

    cli = scripted(
        turn_script(
            ask("p1", can_use_tool_request("Bash"), wait=False),
            text("emitted after the request"),
            wait_response("p1"),
            text("after the answer", "msg_2"),
        )
    )
    received: List[str] = []
    with cli.client(can_use_tool=can_use_tool) as client:
        client.query("go")
        for message in client.receive_response(timeout=30):
            received += texts([message])
            if texts([message]) == ["emitted after the request"]:
                must(started, "the callback to start")
                assert not release.is_set()  # delivered while the callback still blocks
                assert "p1" not in responses(cli)
                release.set()
    assert received == ["emitted after the request", "after the answer"]
    assert responses(cli)["p1"]["response"]["behavior"] == "allow"


# ============================================================================ cancellation


def test_cancel_before_the_callback_starts_it_never_runs_and_nothing_is_sent(scripted: Any) -> None:
    """One worker, busy with a blocker: the cancelled request waits in the queue, so the
    cancel lands before it starts. It is dropped without calling the callback."""
    calls: List[str] = []
    blocking, release = threading.Event(), threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        calls.append(name)
        if name == "Blocker":
            blocking.set()
            must(release, "the test to release the blocker", 20)
        return PermissionResultAllow()

    cli = scripted(
        turn_script(
            ask("blocker", can_use_tool_request("Blocker"), wait=False),
            ask("victim", can_use_tool_request("Victim"), wait=False),
            cancel("victim"),
            text("cancel sent"),  # read after the cancel: the reader has routed it
            wait_response("blocker"),
            ask("marker", can_use_tool_request("Marker")),
        )
    )
    try:
        with cli.client(can_use_tool=can_use_tool, callback_workers=1) as client:
            client.query("go")
            for message in client.receive_response(timeout=30):
                if texts([message]) == ["cancel sent"]:
                    must(blocking, "the blocker to occupy the only worker")
                    assert calls == ["Blocker"]
                    release.set()
    finally:
        release.set()
    assert calls == ["Blocker", "Marker"]
    assert sorted(responses(cli)) == ["blocker", "marker"]


def test_cancel_while_the_callback_runs_sets_its_signal_and_nothing_is_sent(scripted: Any, tmp_path: Any) -> None:
    saw_signal: List[bool] = []
    gate = tmp_path / "gate-started"

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        if name == "Slow":
            gate.touch()  # lets the scripted CLI send its cancel now
            assert context.signal is not None
            saw_signal.append(context.signal.wait(20))
            return PermissionResultAllow()  # answered anyway: must not reach the CLI
        return PermissionResultAllow()

    cli = scripted(
        turn_script(
            ask("slow", can_use_tool_request("Slow"), wait=False),
            wait_file(gate),
            cancel("slow"),
            ask("marker", can_use_tool_request("Marker")),
        )
    )
    answers, messages = run_turn(cli, can_use_tool=can_use_tool, callback_workers=1)
    assert saw_signal == [True]
    assert sorted(answers) == ["marker"]  # the marker ran after "slow" ended on the one worker
    assert isinstance(messages[-1], ResultMessage)


def test_cancel_during_a_hook_sets_its_signal_and_nothing_is_sent(scripted: Any, tmp_path: Any) -> None:
    saw_signal: List[bool] = []
    gate = tmp_path / "gate-hook"

    def slow_hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        gate.touch()
        assert context.signal is not None
        saw_signal.append(context.signal.wait(20))
        return {"decision": "block"}

    def marker(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> None:
        return None

    hooks = {"PreToolUse": [HookMatcher(hooks=[slow_hook, marker], timeout=2)]}
    cli = scripted(
        turn_script(
            ask("h1", hook_request("hook_0"), wait=False),
            wait_file(gate),
            cancel("h1"),
            ask("h2", hook_request("hook_1")),
        )
    )
    answers, _ = run_turn(cli, hooks=hooks, callback_workers=1)
    assert saw_signal == [True]
    assert sorted(answers) == ["h2"]


def test_cancel_after_completion_is_harmless(scripted: Any) -> None:
    signals: List[Any] = []

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        signals.append(context.signal)
        return PermissionResultAllow()

    cli = scripted(
        turn_script(
            ask("done", can_use_tool_request("Fast")),
            cancel("done"),
            cancel("never-existed"),
            ask("marker", can_use_tool_request("Marker")),
        )
    )
    answers, messages = run_turn(cli, can_use_tool=can_use_tool)
    assert sorted(answers) == ["done", "marker"]
    assert answers["done"]["response"]["behavior"] == "allow"
    assert not signals[0].is_set()  # a finished callback's token is left alone
    assert isinstance(messages[-1], ResultMessage)


def test_interrupt_sets_the_signal_of_an_in_flight_callback(scripted: Any) -> None:
    """API.md: the signal is set on ``control_cancel_request``, on interrupt and on close.
    The scripted CLI does not cancel on interrupt (the real one does), so this checks that
    ``client.interrupt()`` itself sets it."""
    started, saw = threading.Event(), threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        started.set()
        assert context.signal is not None
        if context.signal.wait(10):
            saw.set()
        return PermissionResultDeny(message="interrupted")

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash"))))
    with cli.client(can_use_tool=can_use_tool) as client:
        client.query("go")
        must(started, "the callback to start")
        client.interrupt(timeout=10)
        must(saw, "the callback to see its signal set by interrupt()", 5)
        list(client.receive_response(timeout=30))


def test_interrupt_is_written_before_an_answer_its_signal_provokes(scripted: Any, monkeypatch: Any) -> None:
    """A callback that returns as soon as its signal is set (here: an allow) must not get that
    answer onto stdin ahead of the ``interrupt`` itself, or the CLI would run the tool before
    it learns of the interrupt. The interrupting thread is slowed down just before it sends
    (fault injection, as if it were descheduled) to make the order deterministic."""
    from claude_sync._engine import connection as _session

    started, answered = threading.Event(), threading.Event()
    original_request = _session.Session.request

    def slow_interrupt(self: Any, subtype: str, *args: Any, **kwargs: Any) -> Any:
        if subtype == "interrupt":
            answered.wait(1.0)  # the callback, if already signalled, answers meanwhile
        return original_request(self, subtype, *args, **kwargs)

    monkeypatch.setattr(_session.Session, "request", slow_interrupt)

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        started.set()
        assert context.signal is not None
        context.signal.wait(10)
        answered.set()
        return PermissionResultAllow()

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash"))))
    with cli.client(can_use_tool=can_use_tool) as client:
        client.query("go")
        must(started, "the callback to start")
        client.interrupt(timeout=10)
        list(client.receive_response(timeout=30))
    order = [
        f["request"]["subtype"] if f["type"] == "control_request" else f["response"]["request_id"]
        for f in cli.stdin_frames()
        if f["type"] in ("control_request", "control_response")
    ]
    assert order.index("interrupt") < order.index("p1"), order


@BOTH
def test_close_sets_the_signal_and_is_bounded_while_a_callback_ignores_it(scripted: Any) -> None:
    started, saw_signal, release, returned = (threading.Event() for _ in range(4))

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        started.set()
        assert context.signal is not None
        if context.signal.wait(20):
            saw_signal.set()
        must(release, "the test to release the callback", 20)  # ignores the signal for a while
        returned.set()
        return PermissionResultAllow()

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash"))))
    client = cli.client(can_use_tool=can_use_tool, close_timeout=0.5)
    try:
        client.connect()
        client.query("go")
        must(started, "the callback to start")
        began = time.monotonic()
        client.close()
        elapsed = time.monotonic() - began
        assert saw_signal.is_set()
        assert not returned.is_set()  # close did not wait for the callback to finish
        assert elapsed < 4.0, f"close took {elapsed:.2f}s"
    finally:
        release.set()
        client.close()
    must(returned, "the callback to return")  # then its thread ends: the leak check sees none


# ============================================================================ re-entrancy


def test_a_callback_may_call_client_methods_without_deadlock(scripted: Any) -> None:
    holder: Dict[str, ClaudeSDKClient] = {}
    seen: Dict[str, Any] = {}

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        client = holder["client"]
        seen["info"] = client.get_server_info()
        seen["echo"] = client.send_control_request("get_settings", {"asked_from": "callback"}, timeout=10)
        seen["mode"] = client.set_permission_mode("acceptEdits", timeout=10)
        return PermissionResultAllow()

    def hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: HookContext) -> Dict[str, Any]:
        seen["hook_echo"] = holder["client"].send_control_request("mcp_status", timeout=10)
        return {}

    hooks = {"PostToolUse": [HookMatcher(hooks=[hook], timeout=10)]}
    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash")), ask("h1", hook_request("hook_0", event="PostToolUse")), **ECHO))
    with cli.client(can_use_tool=can_use_tool, hooks=hooks, callback_workers=1) as client:
        holder["client"] = client
        client.query("go")
        list(client.receive_response(timeout=30))
    assert seen["info"]["fake"] is True
    assert seen["echo"] == {"echo": {"subtype": "get_settings", "asked_from": "callback"}}
    assert seen["mode"] == {"echo": {"subtype": "set_permission_mode", "mode": "acceptEdits"}}
    assert seen["hook_echo"] == {"echo": {"subtype": "mcp_status"}}
    answers = responses(cli)
    assert answers["p1"]["response"]["behavior"] == "allow" and answers["h1"]["response"] == {}


@BOTH
def test_a_callback_may_close_the_client(scripted: Any) -> None:
    """close() from a pool thread must not join itself or hang."""
    holder: Dict[str, ClaudeSDKClient] = {}
    closed = threading.Event()

    def can_use_tool(name: str, tool_input: Dict[str, Any], context: ToolPermissionContext) -> Any:
        holder["client"].close()
        closed.set()
        return PermissionResultDeny(message="closing")

    cli = scripted(turn_script(ask("p1", can_use_tool_request("Bash"))))
    client = cli.client(can_use_tool=can_use_tool, close_timeout=1.0)
    holder["client"] = client
    try:
        client.connect()
        client.query("go")
        messages = list(client.receive_response(timeout=30))  # ends quietly: we closed it
        must(closed, "close() called from the callback to return")
        assert not any(isinstance(m, ResultMessage) for m in messages)
        assert client.session is not None and client.session.closed
    finally:
        client.close()
