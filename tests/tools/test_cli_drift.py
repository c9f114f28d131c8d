"""``tools/cli_drift.py``: what an installed CLI has that the library does not type.

The pure readers on small samples of both bundle dialects (names, schema keys, dispatched
subtypes, hidden options); then the real CLIs (the pinned one and the newest checked one,
both installed by ``.ci/run``): nothing untyped on the newest, a library without
``PreSkillShellCommand`` is caught on it and not on 2.1.197, one without issue 38's fields on
2.1.333 and not on 2.1.197, ``--against`` names the difference, a CLI whose bundle has no
schemas exits 2.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Set

import pytest

from claude_sync._controls import NEWEST_CHECKED_CLI
from claude_sync.testing.offline import PINNED_CLI_VERSION, default_cli_path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "cli_drift.py"


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_drift", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cli_drift"] = module
    spec.loader.exec_module(module)
    return module


drift = load_tool()


def installed_cli(version: str) -> str:
    path = default_cli_path(version)
    if not path.exists():
        reason = f"CLI {version} not installed at {path} (bash .ci/install_cli.sh installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return str(path)


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=300, check=False
    )


# ----------------------------------------------------------------------------- pure readers

NEW_DIALECT = (
    b'x=["PreToolUse","PostToolUse","Stop"],y=["PreToolUse","PostToolUse","Stop","NewEvent"];'
    b'a=u({type:P("system"),subtype:P("brand_new"),session_id:r(),uuid:r()});'
    b'b=u({type:P("result"),subtype:P("success"),usage:u({nested:r(),"q}":1}),note:r().describe("a, b: {c}"),total:v()});'
    b'c=u({subtype:P("do_thing"),x:r()});d=u({type:P("block"),text:r()});'
)
OLD_DIALECT = b'a=H.object({type:H.literal("system"),subtype:H.literal("older"),session_id:H.string()});'


def test_the_readers_take_both_minified_dialects() -> None:
    assert drift.hook_events(NEW_DIALECT) == {"PreToolUse", "PostToolUse", "Stop", "NewEvent"}
    assert drift.system_subtypes(NEW_DIALECT) == {"brand_new"}
    assert drift.system_subtypes(OLD_DIALECT) == {"older"}
    assert drift.message_types(NEW_DIALECT) == {"system"}  # "block" has no session_id/uuid
    assert drift.result_fields(NEW_DIALECT) == {"type", "subtype", "usage", "note", "total"}
    assert drift.control_subtypes(NEW_DIALECT) == {"do_thing"}


FIELDS_SAMPLE = (
    b'a=u({type:x("tool_progress"),tool_use_id:o(),uuid:m(),session_id:o(),description:o().optional()});'
    b'b=u({type:x("tool_progress"),uuid:m(),session_id:o(),heartbeat:M()});'
    b'c=u({type:x("system"),subtype:x("init"),cwd:o(),code_mode:x(!0).optional(),uuid:m(),session_id:o()});'
    b'd=f(()=>u({subtype:x("can_use_tool"),tool_name:o(),hook_asked:x(!0).optional().describe("a, b: {c}")}));'
    b'e=f(()=>u({matcher:o().optional(),hookCallbackIds:I(o()),observesOnly:M().optional()}));'
    b'if(ee.request.subtype==="side_question"){}else if(ee.request.subtype=="stage_file"){}'
    b'n.addOption(new Xs("--instruction-dirs <json>","SDK use only").argParser(Wo).hideHelp()),'
    b'n.addOption(new Xs("--shown <x>","listed")),n.option("--other","x").addOption(new Xs("-d2e, --debug-to-stderr","x").hideHelp())'
)


def test_the_field_readers_take_every_schema_of_a_name_and_the_hook_matcher() -> None:
    """The keys a CLI update adds to a schema (2.1.333: ``description`` on ``tool_progress``,
    ``hook_asked`` on ``can_use_tool``, ``observesOnly`` on a hook matcher) are names too."""
    assert drift.message_schemas(FIELDS_SAMPLE)["tool_progress"] == {
        "type", "tool_use_id", "uuid", "session_id", "description", "heartbeat"
    }
    assert drift.system_schemas(FIELDS_SAMPLE)["init"] == {"type", "subtype", "cwd", "code_mode", "uuid", "session_id"}
    controls = drift.control_schemas(FIELDS_SAMPLE)
    assert controls["can_use_tool"] == {"subtype", "tool_name", "hook_asked"}
    assert controls["hook_matcher"] == {"matcher", "hookCallbackIds", "observesOnly"}
    assert drift.control_subtypes(FIELDS_SAMPLE) == {"can_use_tool", "side_question", "stage_file"}
    assert drift.hidden_options(FIELDS_SAMPLE) == {"--instruction-dirs", "--debug-to-stderr"}
    typed = {"message_types": {"tool_progress"}, "system_subtypes": {"init"}, "control_subtypes": {"can_use_tool"}}
    inventory = drift.cli_inventory(FIELDS_SAMPLE, "  --shown <x>  listed\n", typed)
    assert inventory["message_fields"] == {f"tool_progress.{k}" for k in ("tool_use_id", "uuid", "session_id", "description", "heartbeat")}
    assert "init.code_mode" in inventory["system_fields"] and "can_use_tool.hook_asked" in inventory["control_fields"]
    assert "hook_matcher.observesOnly" in inventory["control_fields"]
    assert inventory["hidden_options"] == {"--instruction-dirs", "--debug-to-stderr"} and inventory["options"] == {"--shown"}


RESPONSES_SAMPLE = (
    b'a=f(()=>u({subtype:x("mcp_status")}).describe("Requests the status.")),'
    b'b=f(()=>u({mcpServers:I(u({name:o()})),connectorsPending:x(!0).optional().describe("a, b: {c}")}).describe("Response containing the status.")),'
    b'c=ve(()=>H.object({subtype:H.literal("initialize"),hooks:H.unknown()}).describe("Init.")),'
    b'd=ve(()=>H.object({commands:H.array(H.object({name:H.string()})),pid:H.number()}).describe("Response from session initialization.")),'
    b'e=f(()=>u({subtype:x("get_settings")}).describe("Returns the settings.")),g=f(()=>u({subtype:x("other"),k:o()}).describe("Response that is a request."));'
    b'h=u({hookEventName:x("PreToolUse"),permissionDecision:o().optional(),permissionDecisionReasonCode:j(opo).optional()}),'
    b'i=H.object({hookEventName:H.literal("Stop"),additionalContext:H.string().optional()})'
)


def test_the_response_and_hook_output_readers_take_both_dialects() -> None:
    """A key a CLI update adds to a control response (2.1.333: ``connectorsPending`` on
    ``mcp_status``) or to a hook's output (``permissionDecisionReasonCode`` on ``PreToolUse``)
    is a name too; an object that carries a ``subtype`` is a request, never a response."""
    assert drift.control_response_schemas(RESPONSES_SAMPLE) == {
        "mcp_status": {"mcpServers", "connectorsPending"},
        "initialize": {"commands", "pid"},
    }
    assert drift.hook_output_schemas(RESPONSES_SAMPLE) == {
        "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReasonCode"},
        "Stop": {"hookEventName", "additionalContext"},
    }
    typed = {"message_types": set(), "system_subtypes": set(), "control_subtypes": {"mcp_status"}, "hook_events": {"PreToolUse"}}
    inventory = drift.cli_inventory(RESPONSES_SAMPLE, "", typed)
    assert inventory["control_response_fields"] == {"mcp_status.mcpServers", "mcp_status.connectorsPending"}
    assert inventory["hook_output_fields"] == {"PreToolUse.permissionDecision", "PreToolUse.permissionDecisionReasonCode"}
    assert drift.object_end(b"{a:{b:1},c:'}'}x", 0) == 15 and drift.object_end(b"{a:1", 0) == -1


def test_the_library_side_reads_typed_dict_keys_and_their_hook_event() -> None:
    source = (
        "class A(TypedDict):\n    hookEventName: Literal['PreToolUse']\n    permissionDecision: NotRequired[str]\n"
        "class B(typing_extensions.TypedDict):\n    connectorsPending: NotRequired[bool]\n"
        "class C:\n    not_a_key: int\n"
    )
    assert drift.typed_dicts(source) == [({"hookEventName", "permissionDecision"}, "PreToolUse"), ({"connectorsPending"}, None)]
    library = drift.library_inventory()
    assert "PreToolUse.permissionDecisionReasonCode" in library["hook_output_fields"]
    assert "mcp_status.connectorsPending" in library["control_response_fields"]


def test_own_keys_skips_nested_objects_and_strings_and_refuses_an_open_object() -> None:
    text = b'{a:1,b:{c:2,d:"e,f:"},g:`h${1}`,i:[{j:1}],k:\'l\'}'
    assert drift.own_keys(text, 0) == ["a", "b", "g", "i", "k"]
    with pytest.raises(ValueError, match="does not close"):
        drift.own_keys(b"{a:1,b:{", 0)
    with pytest.raises(ValueError, match="no object"):
        drift.own_keys(b"[1]", 0)


def test_help_options_fold_aliases_and_camel_case() -> None:
    help_text = (
        "Options:\n  -d, --debug [filter]   Enable debug\n"
        "  --allowedTools, --allowed-tools <tools...>  Comma list\n"
        "                        continued --not-an-option\n  -h, --help  Display help\n"
    )
    assert drift.help_options(help_text) == {"--debug", "--allowed-tools"}


def test_the_allow_list_needs_a_reason_per_row_and_known_kinds(tmp_path: Path) -> None:
    bad = tmp_path / "allow.json"
    bad.write_text(json.dumps({"options": {"--x": ""}}))
    with pytest.raises(ValueError, match="no reason"):
        drift.load_allow(bad)
    bad.write_text(json.dumps({"widgets": {"x": "why"}}))
    with pytest.raises(ValueError, match="unknown kind"):
        drift.load_allow(bad)
    allow = drift.load_allow()
    assert allow and all(reason.strip() for rows in allow.values() for reason in rows.values())


def test_untyped_is_what_neither_the_library_nor_the_allow_list_covers() -> None:
    cli = {"hook_events": {"A", "B"}, "options": {"--ui-thing", "--typed"}}
    library = {"hook_events": {"A"}, "options": {"--typed"}}
    assert drift.untyped(cli, library, {"options": {"--ui-*": "terminal only"}}) == {"hook_events": ["B"]}


def test_a_cli_whose_bundle_has_no_schemas_exits_2(tmp_path: Path) -> None:
    """A binary the readers do not understand is an error, never "nothing new"."""
    fake = tmp_path / "claude"
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "9.9.9 (Claude Code)"\n'
                    '[ "$1" = --help ] && printf "  --only-this  x\\n"\nexit 0\n')
    fake.chmod(0o755)
    done = run_tool("--cli", str(fake))
    assert done.returncode == 2, done
    assert "found no hook_events" in done.stderr


# ----------------------------------------------------------------------------- the real CLIs


def test_the_newest_cli_has_nothing_untyped() -> None:
    done = run_tool("--cli", installed_cli(NEWEST_CHECKED_CLI), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["version"] == NEWEST_CHECKED_CLI and report["untyped"] == {}


def test_a_library_without_pre_skill_shell_command_is_caught_on_the_newest_cli_only() -> None:
    """The library as it was before issue 28 (33 events) against both real CLIs."""
    library: Dict[str, Set[str]] = drift.library_inventory()
    library["hook_events"] = library["hook_events"] - {"PreSkillShellCommand"}
    allow = drift.load_allow()
    _, newest = drift.read_cli(installed_cli(NEWEST_CHECKED_CLI), typed=library)
    _, pinned = drift.read_cli(installed_cli(PINNED_CLI_VERSION), typed=library)
    assert drift.untyped(newest, library, allow) == {"hook_events": ["PreSkillShellCommand"]}
    assert "hook_events" not in drift.untyped(pinned, library, allow)
    assert len(newest["hook_events"]) == 34 and len(pinned["hook_events"]) == 30


ISSUE_38 = {
    "result_fields": {"code_mode_refusal", "written_at"},
    "message_fields": {"tool_progress.description", "tool_progress.written_at", "assistant.written_at"},
    "system_fields": {"init.code_mode", "init.mcp_servers_denied_by_name", "init.mcp_servers_left_out_by_lock",
                      "task_notification.waiting_on_agents", "init.written_at"},
    "control_subtypes": {"set_host_prompt_open"},
    "control_fields": {"can_use_tool.hook_asked", "can_use_tool.hook_ask_reason", "can_use_tool.plan_floor_ask_only",
                       "can_use_tool.ask_only_false_cause", "can_use_tool.managed_rules_only",
                       "can_use_tool.held_by_session_service", "hook_matcher.observesOnly",
                       "mcp_set_servers.connect_in_background"},
    "control_response_fields": {"mcp_status.connectorsPending"},
    "hook_output_fields": {"PreToolUse.permissionDecisionReasonCode"},
}  # fmt: skip
"""What CLI 2.1.333 added that issue 38 typed (2.1.332 and 2.1.197 have none of it)."""


def test_a_library_without_issue_38s_fields_is_caught_on_2_1_333_only() -> None:
    """The library as it was before issue 38 (these names untyped, ``--instruction-dirs``
    without its row): the check lists each on 2.1.333, none on the pinned 2.1.197 (nor on
    2.1.332, which has none of them either: ``--against`` in the closing note of issue 38)."""
    library = {kind: set(names) for kind, names in drift.library_inventory().items()}
    for kind, names in ISSUE_38.items():
        library[kind] -= names
    allow = drift.load_allow()
    allow["hidden_options"] = {k: v for k, v in allow["hidden_options"].items() if k != "--instruction-dirs"}
    _, newest = drift.read_cli(installed_cli(NEWEST_CHECKED_CLI), typed=library)
    _, older = drift.read_cli(installed_cli(PINNED_CLI_VERSION), typed=library)
    report = drift.untyped(newest, library, allow)
    assert {kind: set(names) for kind, names in report.items()} == {**ISSUE_38, "hidden_options": {"--instruction-dirs"}}
    assert drift.untyped(older, library, allow) == {}


def test_against_names_what_the_newer_cli_brought() -> None:
    done = run_tool(
        "--cli", installed_cli(NEWEST_CHECKED_CLI), "--against", installed_cli(PINNED_CLI_VERSION), "--json"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    differences: Dict[str, Any] = json.loads(done.stdout)["against"]["differences"]
    assert differences["hook_events"] == {
        "only_first": ["DirectoryAdded", "PostModelSwitch", "PreModelSwitch", "PreSkillShellCommand"],
        "only_second": [],
    }
    assert "reload_output_styles" in differences["control_subtypes"]["only_first"]
