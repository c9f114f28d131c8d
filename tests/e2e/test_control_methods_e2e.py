"""Against the real CLI (the pinned one and the newest): options the CLI takes only through
``initialize`` (tool aliases, title, plan-mode instructions, prompt suggestions, progress
summaries) and the typed control methods of ``ClaudeSDKClient``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, List

import pytest

from claude_sync import (
    ClaudeSDKClient,
    ControlRequestError,
    PromptSuggestionMessage,
    ResultMessage,
    create_sdk_mcp_server,
)
from claude_sync._controls import NEWEST_CHECKED_CLI
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import FAST_FAIL, STDIO_SERVER, cli_is_at_least
from .harness import client_turn as run_turn

pytestmark = pytest.mark.e2e

# ----------------------------------------------------------------------------- initialize options


def test_tool_aliases_redirect_a_tool_call_and_prompt_suggestions_arrive(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path
) -> None:
    fake_api.add(
        tool_use("Frobnicate", {"command": "touch aliased.txt", "description": "touch"}, id="toolu_alias"),
        text("first"),
        text("second"),
    )
    options = e2e_options(
        env=FAST_FAIL,
        tool_aliases={"Frobnicate": "Bash"},
        allowed_tools=["Bash"],
        title="claude_sync e2e",
        plan_mode_instructions="Plan in one line.",
        prompt_suggestions=True,
        agent_progress_summaries=True,
    )
    with ClaudeSDKClient(options) as client:
        run_turn(client, "one")
        run_turn(client, "two")
        # After a turn with two assistant messages the CLI predicts the next prompt, after
        # the result (the first turn's suggestion may still be queued: take the first one).
        stream = client.receive_messages(timeout=30)
        suggestion = next(m for m in stream if isinstance(m, PromptSuggestionMessage))
        stream.close()
    assert (e2e_workdir / "aliased.txt").exists()  # "Frobnicate" ran as Bash
    assert suggestion.suggestion == "run the tests"  # the fake API's canned suggestion
    assert {r.kind for r in fake_api.side_requests()} == {"side:prompt_suggestion"}


# ----------------------------------------------------------------------------- control methods


def test_typed_control_methods(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, tmp_path: Path
) -> None:
    (e2e_workdir / "hello.txt").write_text("hello file\n")
    stdio = tmp_path / "stdio_server.py"
    stdio.write_text(STDIO_SERVER)
    fake_api.add(text("answer"))
    calc = create_sdk_mcp_server("calc")
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL, mcp_servers={"calc": calc})) as client:
        client.apply_flag_settings({"model": "claude-sonnet-4-5"})

        read = client.read_file("hello.txt")
        assert (read.contents, read.truncated, read.encoding) == ("hello file\n", False, "utf-8")
        assert read.abs_path == str(e2e_workdir / "hello.txt")
        head = client.read_file("hello.txt", encoding="base64", max_bytes=3)
        assert (head.contents, head.truncated, head.encoding) == ("aGVs", True, "base64")
        with pytest.raises(ControlRequestError):
            client.read_file("missing.txt")

        ext = {"type": "stdio", "command": sys.executable, "args": [str(stdio)]}
        changed = client.set_mcp_servers({"ext": ext})
        assert (changed.added, changed.removed, changed.errors) == (["ext"], [], {})

        reloaded = client.reload_plugins()
        assert reloaded.error_count == 0 and isinstance(reloaded.commands, list)
        assert reloaded.commands and all("name" in command for command in reloaded.commands)

        assert client.background_tasks("toolu_none") is False  # no such foreground task
        usage = client.get_usage(skip_behaviors=True)
        assert usage.session["total_cost_usd"] == 0 and usage.rate_limits_available is False

        run_turn(client, "one")
        status = {s["name"]: s["status"] for s in client.get_mcp_status()["mcpServers"]}
    assert status == {"ext": "connected", "calc": "connected"}  # our in-process server stayed
    [turn] = fake_api.turn_requests()
    assert turn.model == "claude-sonnet-4-5"  # apply_flag_settings took effect


# ----------------------------------------------------------------------------- newer requests (issue 19)


def test_server_info_properties_and_the_newer_control_requests(
    e2e_options: Any, real_cli_path: str, e2e_workdir: Path
) -> None:
    """Both CLIs: ``account``, ``commands``, ``models``, ``agents`` in the initialize answer,
    ``reload_skills`` and ``set_mcp_permission_mode_override``. 2.1.331 only:
    ``reload_output_styles``, ``update_settings`` (writes .claude/settings.local.json),
    ``mcp_read_resource``; 2.1.197 answers them "Unsupported control request subtype"."""
    newest = cli_is_at_least(real_cli_path, "2.1.331")
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL)) as client:
        assert client.account_info.api_key_source == "ANTHROPIC_API_KEY" and client.account_info.token_source == "none"
        assert "default" in [m.value for m in client.supported_models]
        assert "Explore" in [a.name for a in client.supported_agents]
        commands = client.supported_commands
        assert commands and all(c.name for c in commands)
        skills = client.reload_skills()
        assert skills and {s.name for s in skills} & {c.name for c in commands}
        warning = client.set_mcp_permission_mode_override("not-connected", "default")
        assert warning is not None and "not-connected" in warning  # stored until it connects
        cleared = client.set_mcp_permission_mode_override("not-connected", None)
        assert cleared is None or isinstance(cleared, str)
        if newest:
            assert "default" in client.reload_output_styles()
            client.update_settings({"outputStyle": "Explanatory"})
            assert '"outputStyle": "Explanatory"' in (e2e_workdir / ".claude" / "settings.local.json").read_text()
            with pytest.raises(ControlRequestError, match="Server not found: nope"):
                client.read_mcp_resource("nope", "ui://nope/app")
        else:
            for call in (client.reload_output_styles, lambda: client.update_settings({"outputStyle": "x"}),
                         lambda: client.read_mcp_resource("nope", "ui://nope/app")):  # fmt: skip
                with pytest.raises(ControlRequestError, match=f"this Claude Code CLI does not have it .*CLI {NEWEST_CHECKED_CLI} does"):
                    call()


@pytest.mark.parametrize("seeded", [False, True], ids=["unseeded", "seeded"])
def test_seed_read_state_lets_an_edit_through_without_a_read(
    seeded: bool, e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """CLI 2.1.197 refuses an ``Edit`` of a file never ``Read`` in the session; after
    ``seed_read_state(path, mtime_ms)`` with the file's mtime it goes through. 2.1.332 takes
    the request and lets that ``Edit`` through either way."""
    import os

    target = e2e_workdir / "notes.txt"
    target.write_text("hello world\n")
    edit = {"file_path": str(target), "old_string": "hello", "new_string": "goodbye"}
    fake_api.add(tool_use("Edit", edit), text("edited"))
    with ClaudeSDKClient(e2e_options(env={"CLAUDE_CODE_MAX_RETRIES": "0"}, allowed_tools=["Edit"])) as client:
        if seeded:
            client.seed_read_state(str(target), os.stat(target).st_mtime_ns // 1_000_000, timeout=30)
        client.query("edit it")
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage)
    (result,) = fake_api.turn_requests()[1].tool_results
    if seeded or cli_is_at_least(real_cli_path, "2.1.332"):  # 2.1.332 lets this Edit through unread
        assert target.read_text() == "goodbye world\n" and not result.get("is_error")
    else:
        assert target.read_text() == "hello world\n" and result.get("is_error") is True
        assert "read" in str(result["content"]).lower()


def test_reinitialize_sends_initialize_again_and_the_hooks_still_fire_once(
    e2e_options: Any, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    """Both CLIs answer a second ``initialize``; 2.1.332 says it re-registered the hooks.
    Either way the ``PreToolUse`` hook is called once per tool call afterwards, and the fresh
    answer is the server info."""
    from claude_sync import HookMatcher

    calls: List[str] = []

    def hook(hook_input: Any, tool_use_id: Any, context: Any) -> Any:
        calls.append(hook_input["hook_event_name"])
        return {}

    fake_api.add(tool_use("Bash", {"command": "true"}), text("done"))
    hooks = {"PreToolUse": [HookMatcher(hooks=[hook], timeout=10)]}
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL, hooks=hooks, allowed_tools=["Bash"])) as client:
        first = client.get_server_info()
        answer = client.reinitialize(timeout=30)
        assert client.get_server_info() is answer and answer is not first
        assert [c["name"] for c in answer["commands"]] == [c["name"] for c in first["commands"]]  # type: ignore[index]
        if cli_is_at_least(real_cli_path, "2.1.332"):
            assert answer["hooks_applied"] is True
        run_turn(client, "go")
    assert calls == ["PreToolUse"]


def test_supported_commands_follow_commands_changed(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    """A skill written after connect and ``reload_skills()``: CLI 2.1.332 pushes
    ``system/commands_changed`` in the next turn (a ``CommandsChangedMessage``), and
    ``supported_commands`` (the server info) has the new skill from then on."""
    from claude_sync import CommandsChangedMessage

    if not cli_is_at_least(real_cli_path, "2.1.331"):
        pytest.skip("CLI 2.1.197 has no reload_skills")
    fake_api.add(text("ok"))
    with ClaudeSDKClient(e2e_options(env=FAST_FAIL)) as client:
        assert "fresh" not in [c.name for c in client.supported_commands]
        skill = e2e_workdir / ".claude" / "skills" / "fresh"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: fresh\ndescription: a fresh skill\n---\nHi\n")
        assert "fresh" in [s.name for s in client.reload_skills(timeout=30)]
        messages = run_turn(client, "go")
        pushed = [m for m in messages if isinstance(m, CommandsChangedMessage)]
        assert pushed and "fresh" in [c["name"] for c in pushed[-1].commands or []]
        assert "fresh" in [c.name for c in client.supported_commands]
