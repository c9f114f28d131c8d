"""Everyday use against the real CLI + fake API: text streams, the wire log, the live
display, and the hints newcomers get for the usual failures."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any, Dict, List

import pytest

from claude_sync import ClaudeSDKClient, ResultError, query
from claude_sync._wire import hints
from claude_sync.testing.fake_api import FakeAnthropicAPI, error, text, tool_use

pytestmark = pytest.mark.e2e


def test_query_text_stream_yields_deltas(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("The answer is four.", chunk_size=4))
    pieces: List[str] = list(query("What is 2 + 2?", options=e2e_options()).text_stream())
    assert "".join(pieces) == "The answer is four."
    assert len(pieces) > 1  # streamed, not one block


def test_text_stream_joins_blocks_around_a_tool_call(fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Any) -> None:
    (e2e_workdir / "notes.txt").write_text("42\n")
    fake_api.add(tool_use("Read", {"file_path": str(e2e_workdir / "notes.txt")}), text("It says 42."))
    pieces = list(query("Read notes.txt", options=e2e_options(allowed_tools=["Read"])).text_stream())
    assert "".join(pieces) == "It says 42."


def test_client_text_stream_per_turn(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("one", chunk_size=1), text("two"))
    with ClaudeSDKClient(e2e_options(include_partial_messages=True)) as client:
        client.query("first")
        first = list(client.text_stream(timeout=60))
        client.query("second")
        second = list(client.text_stream(timeout=60))
    assert first == ["o", "n", "e"]
    assert "".join(second) == "two"


# ----------------------------------------------------------------------------- hints


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


HINT_CASES = [
    ("not logged in", {"env": {"ANTHROPIC_API_KEY": None}}, [], hints.NOT_LOGGED_IN, "Not logged in"),
    ("invalid key", {}, [error(401, "authentication_error", "invalid x-api-key")], hints.INVALID_KEY, "Invalid API key"),
    ("unreachable", {"closed_port": True}, [], hints.UNREACHABLE, "API Error"),
    ("model not found", {"model": "claude-nope"}, [error(404, "not_found_error", "model: claude-nope")] * 3, hints.MODEL_NOT_FOUND, "claude-nope"),
    ("budget exceeded", {"max_budget_usd": 0.0000001}, [text("a"), text("b")], hints.BUDGET, "budget"),
]  # fmt: skip


@pytest.mark.parametrize("name, setup, script, hint, cli_text", HINT_CASES, ids=[c[0] for c in HINT_CASES])
def test_newcomer_failures_raise_with_a_hint(
    name: str, setup: Dict[str, Any], script: List[Any], hint: str, cli_text: str,
    fake_api: FakeAnthropicAPI, e2e_options: Any, tmp_path: Path,
) -> None:  # fmt: skip
    fields = {k: v for k, v in setup.items() if k not in ("env", "closed_port")}
    env: Dict[str, Any] = {"CLAUDE_CODE_MAX_RETRIES": "0", **setup.get("env", {})}
    options = e2e_options(env=env, **fields)
    if setup.get("closed_port"):
        options.env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{_free_port()}"
    for item in script:
        fake_api.add(item)
    with pytest.raises(ResultError) as info:
        list(query("hi", options=options))
    message = str(info.value)
    assert f"\nHint: {hint}" in message
    assert cli_text in message.splitlines()[0]  # the CLI's own words come first
    assert info.value.hint == hint  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- show()


def test_show_marks_hook_and_permission_decisions(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    import io

    from claude_sync import HookMatcher, PermissionResultDeny, show

    fake_api.add(tool_use("Bash", {"command": "echo hi"}), tool_use("Bash", {"command": "rm -rf x"}), text("All done."))

    def pre_bash(hook_input: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        safe = "echo" in hook_input["tool_input"]["command"]
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow" if safe else "ask"}}

    options = e2e_options(
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_bash], timeout=10)]},
        can_use_tool=lambda name, tool_input, context: PermissionResultDeny(message="not rm"),
    )
    out = io.StringIO()
    shown = show(query("tidy up", options=options), file=out)
    text_out = out.getvalue()
    assert "-> Bash(command='echo hi')\n\n[hook PreToolUse: allow]\n<- result: hi" in text_out
    assert "[hook PreToolUse: ask]" in text_out and "[Bash: permission denied: not rm]" in text_out
    assert "All done." in text_out and "done · 3 turns" in text_out
    assert "\x1b" not in text_out
    assert repr(shown).startswith("<Transcript: ")
