"""The host dialogs: MCP elicitation (``on_elicitation``) and CLI user dialogs
(``on_user_dialog``) answered through the threaded shell against the scripted CLI (the real
CLI: ``tests/e2e/test_elicitation_e2e.py``), the adapters that check what the callbacks
return, and options holding such callbacks refusing to pickle."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ElicitationRequest,
    ElicitationResult,
    UserDialogRequest,
    UserDialogResult,
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


def test_options_with_host_callbacks_do_not_pickle_and_name_the_field() -> None:
    import pickle

    def fill(request: ElicitationRequest) -> ElicitationResult:
        return ElicitationResult("decline")

    with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.on_elicitation"):
        pickle.dumps(ClaudeAgentOptions(on_elicitation=fill))
    plain = ClaudeAgentOptions(title="t", tool_aliases={"A": "B"})
    assert pickle.loads(pickle.dumps(plain)) == plain
