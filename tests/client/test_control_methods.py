"""The typed control methods of ``ClaudeSDKClient`` (``apply_flag_settings``,
``set_mcp_servers``, ``reload_plugins``, ``read_file``, ``background_tasks``, ``get_usage``):
the payload each sends and the typed answer, against the scripted CLI (the real CLI:
``tests/e2e/test_control_methods_e2e.py``)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ControlRequestError,
    McpSetServersResult,
    ReadFileResult,
    ReloadPluginsResult,
    SlashCommand,
    UsageError,
    UsageResult,
    create_sdk_mcp_server,
)
from claude_sync._controls import NEWEST_CHECKED_CLI
from claude_sync.testing import ScriptedCLI


def frames(script: ScriptedCLI) -> List[Dict[str, Any]]:
    return [f for f in script.last_run.received if isinstance(f, dict)]


def sent(script: ScriptedCLI, subtype: str) -> Dict[str, Any]:
    [request] = [
        f["request"]
        for f in frames(script)
        if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]
    return dict(request)


def test_typed_control_methods_send_their_payloads_and_type_the_answers() -> None:
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




# ----------------------------------------------------------------------------- newer requests (issue 19)


SERVER_INFO = {
    "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
    "commands": [{"name": "review", "description": "Review a PR", "argumentHint": "<pr>"}, "not a dict"],
    "models": [{"value": "default", "displayName": "Default (recommended)", "description": "Opus"}],
    "agents": [{"name": "Explore", "description": "Fast search", "model": "haiku"}],
}


def test_the_server_info_as_typed_properties() -> None:
    client = ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=ScriptedCLI(initialize_response=SERVER_INFO).transport())
    with pytest.raises(UsageError):
        client.supported_models  # noqa: B018 - before connect
    with client:
        account = client.account_info
        assert (account.token_source, account.api_key_source, account.api_provider, account.email) == (
            "none", "ANTHROPIC_API_KEY", "firstParty", None
        )
        assert client.supported_commands == [SlashCommand("review", "Review a PR", "<pr>", raw=SERVER_INFO["commands"][0])]
        assert [(m.value, m.display_name) for m in client.supported_models] == [("default", "Default (recommended)")]
        assert [(a.name, a.model) for a in client.supported_agents] == [("Explore", "haiku")]


def test_newer_requests_send_their_payloads_and_type_the_answers() -> None:
    skills = {"skills": [{"name": "dataviz", "description": "charts", "argumentHint": ""}]}
    resource = {"contents": [{"uri": "ui://w/app", "mimeType": "text/html", "text": "<p>hi</p>", "_meta": {"ui": {}}}]}
    script = (
        ScriptedCLI()
        .expect_control("update_settings", response={})
        .expect_control("reload_skills", response=skills)
        .expect_control("reload_output_styles", response={"available_output_styles": ["default", "Concise"]})
        .expect_control("mcp_read_resource", response=resource)
        .expect_control("set_mcp_permission_mode_override", response={"warning": "not yet known"})
        .expect_control("set_mcp_permission_mode_override", response={})
    )
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        assert client.update_settings({"outputStyle": "Concise"}) is None
        assert [s.name for s in client.reload_skills()] == ["dataviz"]
        assert client.reload_output_styles() == ["default", "Concise"]
        (content,) = client.read_mcp_resource("web", "ui://w/app")
        assert (content.uri, content.mime_type, content.text, content.blob, content.meta) == (
            "ui://w/app", "text/html", "<p>hi</p>", None, {"ui": {}}
        )
        assert client.set_mcp_permission_mode_override("web", "default") == "not yet known"
        assert client.set_mcp_permission_mode_override("web", None) is None
    script.verify()
    assert sent(script, "update_settings") == {"subtype": "update_settings", "source": "localSettings", "settings": {"outputStyle": "Concise"}}
    assert sent(script, "mcp_read_resource") == {"subtype": "mcp_read_resource", "serverName": "web", "uri": "ui://w/app"}


def test_newer_requests_refuse_bad_arguments_and_name_a_cli_that_lacks_them() -> None:
    script = ScriptedCLI().expect_control("reload_output_styles", error="Unsupported control request subtype: reload_output_styles")
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        with pytest.raises(ValueError, match="source must be one of localSettings, userSettings"):
            client.update_settings({"outputStyle": "x"}, source="policySettings")
        with pytest.raises(TypeError, match="str values"):
            client.update_settings({"effortLevel": 3})  # type: ignore[dict-item]
        with pytest.raises(ValueError, match="'default', 'auto' or None"):
            client.set_mcp_permission_mode_override("web", "bypassPermissions")
        with pytest.raises(ControlRequestError, match=f"reload_output_styles: this Claude Code CLI does not have it .*CLI {NEWEST_CHECKED_CLI} does") as info:
            client.reload_output_styles()
        assert info.value.subtype == "reload_output_styles"
    script.verify()


def test_seed_read_state_sends_the_path_and_millisecond_mtime_and_refuses_other_units() -> None:
    script = ScriptedCLI().expect_control("seed_read_state", response={})
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        for bad, error in ((1.5, TypeError), (True, TypeError), (-1, ValueError), ("12", TypeError)):
            with pytest.raises(error, match="mtime_ms"):
                client.seed_read_state("/a.txt", bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="path must be a str"):
            client.seed_read_state(b"/a.txt", 1)  # type: ignore[arg-type]
        assert client.seed_read_state("/a.txt", 1_700_000_000_123) is None
    script.verify()
    assert sent(script, "seed_read_state") == {"subtype": "seed_read_state", "path": "/a.txt", "mtime": 1_700_000_000_123}


def test_the_client_and_the_query_stream_share_one_implementation_of_each_control_method() -> None:
    """``_controls.ControlMethods`` is the one place: neither class overrides one of them, and
    the base declares nothing it leaves to them at run time (no ``NotImplementedError`` stubs)."""
    import inspect

    from claude_sync._controls import ControlMethods
    from claude_sync.query import QueryStream

    shared = [name for name in vars(ControlMethods) if not name.startswith("__")]
    assert "send_control_request" in shared and "set_model" in shared and "get_usage" in shared
    for name in shared:
        assert getattr(ClaudeSDKClient, name) is getattr(QueryStream, name) is getattr(ControlMethods, name), name
    assert "NotImplementedError" not in inspect.getsource(ControlMethods)


@pytest.mark.parametrize(
    "timeout, error",
    [("5", TypeError), (True, TypeError), ([1], TypeError), (0, ValueError), (-1.0, ValueError),
     (float("nan"), ValueError), (float("inf"), ValueError), (1e10, ValueError), pytest.param(10**400, ValueError, id="10**400")],
)  # fmt: skip
def test_a_control_timeout_that_is_not_seconds_is_refused_before_anything_is_sent(timeout: Any, error: type) -> None:
    script = ScriptedCLI().expect_control("set_model", response={})
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=script.transport()) as client:
        with pytest.raises(error, match=r"control request 'set_model': timeout must be"):
            client.set_model("m", timeout=timeout)
        with pytest.raises(error, match=r"control request 'interrupt': timeout must be"):
            client.interrupt(timeout=timeout)
        assert not [f for f in frames(script) if f.get("type") == "control_request" and f["request"]["subtype"] != "initialize"]
        client.set_model("m", timeout=5)  # an int is seconds too
    assert sent(script, "set_model") == {"subtype": "set_model", "model": "m"}
