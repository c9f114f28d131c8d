"""``tools/cli_drift.py``: what an installed CLI has that the library does not type.

The pure readers on small samples of both bundle dialects; then the real CLIs (the pinned one
and the newest checked one, both installed by ``.ci/run``): nothing untyped on the newest, a
library without ``PreSkillShellCommand`` is caught on it and not on 2.1.197, ``--against``
names the difference, a CLI whose bundle has no schemas exits 2.
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
    _, newest = drift.read_cli(installed_cli(NEWEST_CHECKED_CLI))
    _, pinned = drift.read_cli(installed_cli(PINNED_CLI_VERSION))
    assert drift.untyped(newest, library, allow) == {"hook_events": ["PreSkillShellCommand"]}
    assert "hook_events" not in drift.untyped(pinned, library, allow)
    assert len(newest["hook_events"]) == 34 and len(pinned["hook_events"]) == 30


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
