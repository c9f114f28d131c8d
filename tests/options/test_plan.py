"""The options are interpreted once: ``interpret_options`` → ``OptionsPlan``, which the spawn
plan and the request handlers both consume (no second reading with other rules)."""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional

import pytest

from claude_sync._callbacks.hook_types import HookMatcher
from claude_sync._callbacks.permission_types import PermissionResultAllow
from claude_sync._mcp.server import create_sdk_mcp_server
from claude_sync._mcp.tools import tool
from claude_sync._options.command import (
    build_env,
    build_spawn_plan,
    interpret_options,
    partition_mcp_servers,
)
from claude_sync._options.options import ClaudeAgentOptions
from claude_sync._wire.blocks import BLOCK_CLASSES, block_class
from claude_sync._wire.parse import parse_message
from claude_sync._wire.protocol import ControlRequestReceived
from claude_sync._wiring import build_handlers, build_session

CLI = "/opt/claude/bin/claude"


def allow(*_: Any) -> PermissionResultAllow:
    return PermissionResultAllow()


class TypedSdkWithoutHandle:
    """Says it is an in-process server, but nothing could answer the CLI for it."""

    type = "sdk"
    name = "ghost"


# ----------------------------------------------------------------------------- SDK MCP servers


def test_partition_picks_sdk_servers_by_the_one_rule() -> None:
    server = create_sdk_mcp_server("calc")
    files = {"type": "stdio", "command": "mcp-files"}
    external, in_process = partition_mcp_servers({"calc": server, "files": files})
    # the official config dict counts by its instance
    assert in_process == {"calc": server["instance"]} and external == {"files": files}
    assert partition_mcp_servers({}) == ({}, {})


def test_partition_refuses_what_no_handler_could_serve() -> None:
    with pytest.raises(ValueError, match="create_sdk_mcp_server"):
        partition_mcp_servers({"remote": {"type": "sdk", "name": "remote"}})  # a dict
    with pytest.raises(TypeError, match=r"mcp_servers\['ghost'\] has type 'sdk' but no handle"):
        partition_mcp_servers({"ghost": TypedSdkWithoutHandle()})


def test_an_sdk_typed_object_without_handle_is_refused_instead_of_announced() -> None:
    options = ClaudeAgentOptions(mcp_servers={"ghost": TypedSdkWithoutHandle()})
    with pytest.raises(TypeError, match=r"mcp_servers\['ghost'\] has type 'sdk' but no handle"):
        build_spawn_plan(options, CLI, environ={})
    with pytest.raises(TypeError, match="no handle"):
        build_session(options)


def _mcp_request(server_name: str, message: Dict[str, Any]) -> ControlRequestReceived:
    return ControlRequestReceived(
        request_id="req_1",
        subtype="mcp_message",
        request={"subtype": "mcp_message", "server_name": server_name, "message": message},
    )


def test_every_announced_sdk_server_is_served() -> None:
    @tool("add", "Add", {"a": int, "b": int})
    def add(args: Dict[str, Any]) -> str:
        return str(args["a"] + args["b"])

    servers = {"calc": create_sdk_mcp_server("calc", tools=[add]), "key": create_sdk_mcp_server("other")}
    plan = interpret_options(ClaudeAgentOptions(mcp_servers=servers))
    handlers = build_handlers(plan)
    announced = plan.initialize_fields["sdkMcpServers"]
    assert announced == ["calc", "key"] and list(plan.sdk_mcp_servers) == announced
    for name in announced:
        event = _mcp_request(name, {"jsonrpc": "2.0", "id": 0, "method": "tools/list"})
        signal = threading.Event()
        route = handlers["mcp_message"].route
        assert route is not None
        route(event, signal)
        answer = handlers["mcp_message"].serve(event, signal)
        assert answer is not None and "result" in answer["mcp_response"], (name, answer)


def test_no_sdk_servers_no_mcp_handlers() -> None:
    handlers = build_handlers(interpret_options(ClaudeAgentOptions()))
    assert set(handlers) == {"can_use_tool", "elicitation"}  # elicitations are declined


# ----------------------------------------------------------------------------- permissions


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(can_use_tool=allow, permission_prompt_tool_name="mcp__p__ask"),
        dict(can_use_tool=allow, deny_all_permissions=True),
        dict(deny_all_permissions=True, permission_prompt_tool_name="mcp__p__ask"),
    ],
    ids=["callback+tool", "callback+deny_all", "deny_all+tool"],
)
def test_permission_contradictions_are_refused_by_every_entry_point(kwargs: Dict[str, Any]) -> None:
    options = ClaudeAgentOptions(**kwargs)
    with pytest.raises(ValueError, match="mutually exclusive"):
        interpret_options(options)
    with pytest.raises(ValueError, match="mutually exclusive"):
        build_session(options)  # before anything starts


@pytest.mark.parametrize(
    ("kwargs", "prompt_tool"),
    [
        (dict(), None),
        (dict(can_use_tool=allow), "stdio"),
        (dict(deny_all_permissions=True), "stdio"),
        (dict(permission_prompt_tool_name="mcp__p__ask"), "mcp__p__ask"),
    ],
)
def test_the_flag_and_the_handler_follow_one_routing(kwargs: Dict[str, Any], prompt_tool: Optional[str]) -> None:
    plan = interpret_options(ClaudeAgentOptions(**kwargs))
    assert plan.permissions.prompt_tool == prompt_tool
    argv = plan.cli_args
    if prompt_tool is None:
        assert "--permission-prompt-tool" not in argv
    else:
        assert argv[argv.index("--permission-prompt-tool") + 1] == prompt_tool
    event = ControlRequestReceived(
        request_id="req_1",
        subtype="can_use_tool",
        request={"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "tool_use_id": "t1"},
    )
    answer = build_handlers(plan)["can_use_tool"].serve(event, threading.Event())
    assert answer is not None
    assert answer["behavior"] == ("allow" if kwargs.get("can_use_tool") else "deny")


# ----------------------------------------------------------------------------- hooks


def test_the_hook_ids_announced_are_the_ones_served() -> None:
    seen: List[str] = []

    def hook(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        seen.append(context.callback_id)
        return {}

    options = ClaudeAgentOptions(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hook])]})
    plan = interpret_options(options)
    announced = plan.initialize_fields["hooks"]
    assert announced == {"PreToolUse": [{"hookCallbackIds": ["hook_0"], "matcher": "Bash"}]}
    event = ControlRequestReceived(
        request_id="req_2",
        subtype="hook_callback",
        request={"subtype": "hook_callback", "callback_id": "hook_0", "input": {}},
    )
    assert build_handlers(plan)["hook_callback"].serve(event, threading.Event()) == {}
    assert seen == ["hook_0"]


# ----------------------------------------------------------------------------- the spawn plan


def test_the_spawn_plan_is_made_from_the_interpretation_not_a_second_reading() -> None:
    options = ClaudeAgentOptions(mcp_servers={"calc": create_sdk_mcp_server("calc")}, model="m")
    plan = interpret_options(options)
    spawn = build_spawn_plan(options, CLI, environ={"PATH": "/bin"}, interpreted=plan)
    assert spawn.argv == [CLI, *plan.cli_args]
    assert spawn.initialize_fields is plan.initialize_fields
    assert spawn.sdk_mcp_servers is plan.sdk_mcp_servers


def test_the_env_overlay_gives_the_same_environment_as_build_env() -> None:
    options = ClaudeAgentOptions(env={"K": "V", "PATH": "/mine"}, cwd="/w", enable_file_checkpointing=True)
    environ = {"PATH": "/bin", "CLAUDECODE": "1", "HOME": "/h"}
    spawn = interpret_options(options).spawn_plan(CLI, environ=environ)
    assert spawn.env == build_env(options, environ, "/w")
    assert "CLAUDECODE" not in spawn.env and spawn.env["PATH"] == "/mine"


# ----------------------------------------------------------------------------- block types

SAMPLE_BLOCKS = [
    {"type": "text", "text": "t"},
    {"type": "thinking", "thinking": "hm", "signature": "s"},
    {"type": "redacted_thinking", "data": "d"},
    {"type": "tool_use", "id": "tu", "name": "Bash", "input": {}},
    {"type": "tool_result", "tool_use_id": "tu", "content": "ok"},
    {"type": "server_tool_use", "id": "st", "name": "web_search", "input": {}},
    {"type": "web_search_tool_result", "tool_use_id": "st", "content": []},
    {"type": "image", "source": {"type": "base64", "data": ""}},
    {"type": "brand_new_block", "x": 1},
]


def test_parser_and_deserialiser_agree_on_every_block_type() -> None:
    assert {block["type"] for block in SAMPLE_BLOCKS} >= set(BLOCK_CLASSES)
    message = parse_message({"type": "assistant", "message": {"model": "m", "content": SAMPLE_BLOCKS}})
    for block in message.content:
        assert type(block) is block_class(block.raw["type"]), block.raw["type"]
