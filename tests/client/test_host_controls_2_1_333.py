"""The control methods CLI 2.1.332/2.1.333 added for a host (``update_queued_message``,
``decide_held_peer_message``, ``set_peer_delivery``, ``set_host_prompt_open``) and
``set_mcp_servers(connect_in_background=True)``: the payload each sends, the answer, bad
arguments refused before anything is sent, and a CLI that lacks one named with the CLI it
needs. Against the scripted CLI (the real CLIs: ``tests/e2e/test_cli_2_1_333_e2e.py``)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ControlRequestError
from claude_sync.testing import ScriptedCLI


def sent(script: ScriptedCLI, subtype: str) -> List[Dict[str, Any]]:
    return [
        dict(f["request"])
        for f in script.last_run.received
        if isinstance(f, dict) and f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]


def test_each_method_sends_the_clis_payload_and_returns_its_answer() -> None:
    peer = {"outcome": "delivered", "always_deliver": {"session": None, "account": False}}
    script = (
        ScriptedCLI()
        .expect_control("update_queued_message", response={"outcome": "applied"})
        .expect_control("update_queued_message", response={"outcome": "too_late"})
        .expect_control("decide_held_peer_message", response=peer)
        .expect_control("set_peer_delivery", response={"always_deliver": peer["always_deliver"]})
        .expect_control("set_peer_delivery", response={"always_deliver": peer["always_deliver"]})
        .expect_control("set_host_prompt_open", response={})
        .expect_control("mcp_set_servers", response={"added": ["web"], "removed": [], "errors": {}, "pending": ["web"]})
        .expect_control("mcp_set_servers", response={"added": ["web"], "removed": [], "errors": {}})
    )
    web = {"type": "http", "url": "http://127.0.0.1:9/mcp"}
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        assert client.update_queued_message("u-1", priority="now") == "applied"
        assert client.update_queued_message("u-2", priority="later", before_message_uuid="u-1") == "too_late"
        always = {"scope": "mine", "made_in": "prompting"}
        assert client.decide_held_peer_message("hold-1", "deliver", always=always) == peer
        assert client.set_peer_delivery(shows_held_messages=True, account=False)["always_deliver"]["account"] is False
        client.set_peer_delivery(session=None)
        assert client.set_host_prompt_open(True) is None
        background = client.set_mcp_servers({"web": web}, connect_in_background=True)
        assert background.pending == ["web"] and background.added == ["web"]
        assert client.set_mcp_servers({"web": web}).pending is None  # a CLI that waited: no pending
    script.verify()
    assert sent(script, "update_queued_message") == [
        {"subtype": "update_queued_message", "message_uuid": "u-1", "priority": "now"},
        {"subtype": "update_queued_message", "message_uuid": "u-2", "priority": "later", "before_message_uuid": "u-1"},
    ]
    assert sent(script, "decide_held_peer_message") == [
        {"subtype": "decide_held_peer_message", "hold_id": "hold-1", "decision": "deliver", "always": always}
    ]
    assert sent(script, "set_peer_delivery") == [
        {"subtype": "set_peer_delivery", "shows_held_messages": True, "account": False},
        {"subtype": "set_peer_delivery", "session": None},  # None ends the choice; left out keeps it
    ]
    assert sent(script, "set_host_prompt_open") == [{"subtype": "set_host_prompt_open", "open": True}]
    first, second = sent(script, "mcp_set_servers")
    assert first["connect_in_background"] is True and "connect_in_background" not in second


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda c: c.update_queued_message("", priority="now"), ValueError, "non-empty str"),
        (lambda c: c.update_queued_message("u", priority="soon"), ValueError, "now, next, later"),
        (lambda c: c.update_queued_message("u"), ValueError, "give priority, before_message_uuid or both"),
        (lambda c: c.update_queued_message("u", priority="now", before_message_uuid="v"), ValueError, "no before_message_uuid"),
        (lambda c: c.update_queued_message("u", before_message_uuid=7), ValueError, "must be a str"),
        (lambda c: c.decide_held_peer_message("h", "keep"), ValueError, "'deliver' or 'drop'"),
        (lambda c: c.decide_held_peer_message("h", "drop", always={"scope": "mine"}), ValueError, "only with decision='deliver'"),
        (lambda c: c.decide_held_peer_message("", "drop"), ValueError, "hold_id"),
        (lambda c: c.set_peer_delivery(account="yes"), TypeError, "account must be a bool"),
        (lambda c: c.set_host_prompt_open(1), TypeError, "open must be a bool"),
        (lambda c: c.set_mcp_servers({}, connect_in_background="yes"), TypeError, "connect_in_background must be a bool"),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused_before_anything_is_sent(call: Any, error: type, words: str) -> None:
    script = ScriptedCLI()
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        with pytest.raises(error, match=words):
            call(client)
    script.verify()
    assert not [f for f in script.last_run.received if isinstance(f, dict) and f.get("type") == "control_request"
                and f["request"]["subtype"] != "initialize"]


@pytest.mark.parametrize(
    "subtype, call, needs",
    [
        ("update_queued_message", lambda c: c.update_queued_message("u", priority="next"), "2.1.332"),
        ("decide_held_peer_message", lambda c: c.decide_held_peer_message("h", "drop"), "2.1.332"),
        ("set_peer_delivery", lambda c: c.set_peer_delivery(account=True), "2.1.332"),
        ("set_host_prompt_open", lambda c: c.set_host_prompt_open(False), "2.1.333"),
    ],
)
def test_a_cli_without_the_request_gets_an_error_naming_the_cli_it_needs(subtype: str, call: Any, needs: str) -> None:
    script = ScriptedCLI().expect_control(subtype, error=f"Unsupported control request subtype: {subtype}")
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        with pytest.raises(ControlRequestError, match=f"{subtype}: this Claude Code CLI does not have it .*it needs CLI ≥ {needs}") as info:
            call(client)
        assert info.value.subtype == subtype
    script.verify()


def test_the_clis_own_refusal_is_passed_on_unchanged() -> None:
    """2.1.333 refuses the peer pair where peer messaging is off: its words, not "needs CLI"."""
    words = "set_peer_delivery is accepted only on stdin, from the app that started this session"
    script = ScriptedCLI().expect_control("set_peer_delivery", error=words)
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        with pytest.raises(ControlRequestError, match="accepted only on stdin") as info:
            client.set_peer_delivery(shows_held_messages=False)
        assert "needs CLI" not in str(info.value)
    script.verify()
