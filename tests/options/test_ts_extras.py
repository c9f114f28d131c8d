"""What the TypeScript SDK has and both Python SDKs lack: the elicitation / user-dialog host
callbacks and the typed control methods, through the threaded shell against the fake CLI
(the real CLI is in ``tests/e2e/test_ts_extras_e2e.py``), and the pure adapters."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ElicitationRequest,
    ElicitationResult,
    McpSetServersResult,
    ReadFileResult,
    ReloadPluginsResult,
    UsageResult,
    UserDialogRequest,
    UserDialogResult,
    create_sdk_mcp_server,
)
from claude_sync._callbacks.dialogs import elicitation_result_to_wire, user_dialog_result_to_wire
from claude_sync.testing import ScriptedCLI

ELICITATION = {
    "subtype": "elicitation",
    "mcp_server_name": "forms",
    "message": "Your name?",
    "mode": "form",
    "requested_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
    "title": "Sign in",
}
DIALOG = {
    "subtype": "request_user_dialog",
    "dialog_kind": "refusal_fallback_prompt",
    "payload": {"model": "m"},
    "tool_use_id": "toolu_1",
}


def ask(request_id: str, request: Dict[str, Any], *, expect_error: bool = False) -> ScriptedCLI:
    """A turn in which the scripted CLI asks ``request`` and waits for our answer."""
    return (
        ScriptedCLI()
        .expect_user()
        .ask_control(request, request_id=request_id, wait=False)
        .expect_answer(request_id, timeout=10, expect_error=expect_error or None)
        .text("done")
        .result()
    )


def run(script: ScriptedCLI, **options: Any) -> ClaudeSDKClient:
    options.setdefault("close_timeout", 2.0)
    client = ClaudeSDKClient(ClaudeAgentOptions(**options), transport=script.transport())
    with client:
        client.query("go")
        list(client.receive_response(timeout=30))
    return client


def frames(script: ScriptedCLI) -> List[Dict[str, Any]]:
    return [f for f in script.last_run.received if isinstance(f, dict)]


def answer_of(script: ScriptedCLI, request_id: str) -> Dict[str, Any]:
    [response] = [
        f["response"]
        for f in frames(script)
        if f.get("type") == "control_response" and f["response"]["request_id"] == request_id
    ]
    return dict(response)


# ----------------------------------------------------------------------------- elicitation


def test_on_elicitation_gets_a_typed_request_on_a_pool_thread() -> None:
    seen: List[Any] = []

    def fill(request: ElicitationRequest) -> ElicitationResult:
        seen.append((threading.current_thread().name, request))
        return ElicitationResult("accept", {"name": "Ada"})

    script = ask("e1", ELICITATION)
    run(script, on_elicitation=fill)

    assert answer_of(script, "e1") == {
        "subtype": "success",
        "request_id": "e1",
        "response": {"action": "accept", "content": {"name": "Ada"}},
    }
    [(thread, request)] = seen
    assert thread.startswith("claude_sync-callback")
    assert (request.server_name, request.message, request.mode, request.title) == (
        "forms", "Your name?", "form", "Sign in"
    )
    assert request.requested_schema == ELICITATION["requested_schema"]
    assert request.request_id == "e1" and request.signal is not None and request.raw == ELICITATION


@pytest.mark.parametrize(
    "callback",
    [None, lambda request: 1 / 0, lambda request: {"action": "maybe"}, lambda request: None],
    ids=["no callback", "raises", "bad action", "returns None"],
)
def test_elicitation_is_declined_without_a_usable_answer(callback: Any) -> None:
    script = ask("e1", ELICITATION)
    run(script, on_elicitation=callback)
    assert answer_of(script, "e1")["response"] == {"action": "decline"}


# ----------------------------------------------------------------------------- user dialogs


def test_on_user_dialog_answers_with_its_result() -> None:
    seen: List[UserDialogRequest] = []

    def render(request: UserDialogRequest) -> UserDialogResult:
        seen.append(request)
        return UserDialogResult("completed", {"choice": "fallback"})

    script = ask("d1", DIALOG)
    run(script, on_user_dialog=render, supported_dialog_kinds=["refusal_fallback_prompt"])

    assert answer_of(script, "d1")["response"] == {"behavior": "completed", "result": {"choice": "fallback"}}
    [request] = seen
    assert (request.dialog_kind, request.payload, request.tool_use_id) == (
        "refusal_fallback_prompt", {"model": "m"}, "toolu_1"
    )
    initialize = frames(script)[0]["request"]
    assert initialize["supportedDialogKinds"] == ["refusal_fallback_prompt"]


def test_a_raising_dialog_callback_answers_cancelled() -> None:
    def render(request: UserDialogRequest) -> Any:
        raise RuntimeError("no UI here")

    script = ask("d1", DIALOG)
    run(script, on_user_dialog=render)
    assert answer_of(script, "d1")["response"] == {"behavior": "cancelled"}


def test_without_on_user_dialog_the_dialog_gets_an_error_answer() -> None:
    script = ask("d1", DIALOG, expect_error=True)
    run(script)
    assert answer_of(script, "d1")["subtype"] == "error"  # the CLI discards it: dialog stays pending


def test_result_adapters_check_what_callbacks_return() -> None:
    assert elicitation_result_to_wire({"action": "cancel"}) == {"action": "cancel"}
    assert elicitation_result_to_wire(ElicitationResult("decline")) == {"action": "decline"}
    with pytest.raises(ValueError, match="content must be a dict"):
        elicitation_result_to_wire({"action": "accept", "content": "Ada"})
    with pytest.raises(TypeError, match="ElicitationResult or a dict"):
        elicitation_result_to_wire("accept")
    assert user_dialog_result_to_wire({"behavior": "completed"}) == {"behavior": "completed", "result": None}
    assert user_dialog_result_to_wire(UserDialogResult("cancelled", 5)) == {"behavior": "cancelled"}
    with pytest.raises(ValueError, match="'completed' or 'cancelled'"):
        user_dialog_result_to_wire({"behavior": "done"})


# ----------------------------------------------------------------------------- control methods


def sent(script: ScriptedCLI, subtype: str) -> Dict[str, Any]:
    [request] = [
        f["request"]
        for f in frames(script)
        if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]
    return dict(request)


def test_typed_control_methods_send_the_ts_payloads_and_type_the_answers() -> None:
    usage = {"session": {"total_cost_usd": 0.5}, "subscription_type": None, "rate_limits_available": False,
             "rate_limits": None, "behaviors": None}
    plugins = {"commands": [{"name": "x"}], "agents": [], "plugins": [], "mcpServers": [], "error_count": 1}
    changed = {"added": ["web"], "removed": [], "errors": {"bad": "refused"}}
    script = (
        ScriptedCLI()
        .expect_control("apply_flag_settings", response={})
        .expect_control("mcp_set_servers", response=changed)
        .expect_control("reload_plugins", response=plugins)
        .expect_control("read_file", response={"contents": "aGk=", "absPath": "/w/a.bin", "encoding": "base64"})
        .expect_control("background_tasks", response={"backgrounded": False})
        .expect_control("get_usage", response=usage)
    )
    calc = create_sdk_mcp_server("calc")
    web = {"type": "http", "url": "http://127.0.0.1:9/mcp"}
    options = ClaudeAgentOptions(mcp_servers={"calc": calc}, close_timeout=2.0)
    with ClaudeSDKClient(options, transport=script.transport()) as client:
        assert client.apply_flag_settings({"model": "m", "effortLevel": None}) is None
        assert client.set_mcp_servers({"web": web}) == McpSetServersResult(["web"], [], {"bad": "refused"}, raw=changed)
        reloaded = client.reload_plugins(add_plugins=[{"type": "local", "path": "/p"}], refuse_if_busy=True)
        assert isinstance(reloaded, ReloadPluginsResult)
        assert reloaded.commands == [{"name": "x"}] and reloaded.error_count == 1 and reloaded.held is None
        read = client.read_file("a.bin", max_bytes=10, encoding="base64")
        assert isinstance(read, ReadFileResult)
        assert (read.contents, read.abs_path, read.encoding, read.truncated) == ("aGk=", "/w/a.bin", "base64", False)
        assert client.background_tasks("toolu_9") is False
        got = client.get_usage(skip_behaviors=True)
        assert isinstance(got, UsageResult) and got.session == {"total_cost_usd": 0.5}
    script.verify()

    assert sent(script, "apply_flag_settings")["settings"] == {"model": "m", "effortLevel": None}
    # our in-process server is named again, so the CLI keeps it
    assert sent(script, "mcp_set_servers")["servers"] == {"web": web, "calc": {"type": "sdk", "name": "calc"}}
    assert sent(script, "reload_plugins") == {
        "subtype": "reload_plugins", "add_plugins": [{"type": "local", "path": "/p"}], "refuse_if_busy": True
    }
    assert sent(script, "read_file") == {"subtype": "read_file", "path": "a.bin", "max_bytes": 10, "encoding": "base64"}
    assert sent(script, "background_tasks") == {"subtype": "background_tasks", "tool_use_id": "toolu_9"}
    assert sent(script, "get_usage") == {"subtype": "get_usage", "skip_behaviors": True}


def test_set_mcp_servers_refuses_a_new_in_process_server() -> None:
    client = ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=ScriptedCLI().transport())
    with client:
        with pytest.raises(ValueError, match="'calc' is an in-process server"):
            client.set_mcp_servers({"calc": create_sdk_mcp_server("calc")})
        with pytest.raises(ValueError, match="encoding must be"):
            client.read_file("x", encoding="latin-1")


def test_options_with_host_callbacks_do_not_pickle_and_name_the_field() -> None:
    import pickle

    def fill(request: ElicitationRequest) -> ElicitationResult:
        return ElicitationResult("decline")

    with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.on_elicitation"):
        pickle.dumps(ClaudeAgentOptions(on_elicitation=fill))
    plain = ClaudeAgentOptions(title="t", tool_aliases={"A": "B"})
    assert pickle.loads(pickle.dumps(plain)) == plain
