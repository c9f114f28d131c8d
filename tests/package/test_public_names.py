"""Every public name of the official claude-agent-sdk 0.2.187 exists here with the same kind.

The name lists in ``tests/data`` were taken once from the installed official package (see
``tests/data/README``); these tests never import it.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import claude_sync

DATA = Path(__file__).parents[1] / "data"
OFFICIAL_ALL: List[str] = (DATA / "official_all_0.2.187.txt").read_text().split()
OFFICIAL_TYPES: List[str] = (DATA / "official_types_0.2.187.txt").read_text().split()
SHAPES: Dict[str, Dict[str, Any]] = json.loads((DATA / "official_shapes_0.2.187.json").read_text())

OWNED_ELSEWHERE: frozenset = frozenset()  # ToolAnnotations came with the in-process MCP work
"""Official names that come with features built on other branches. Once those are merged,
every entry that resolves must leave this set (``test_owned_elsewhere_is_not_stale``)."""


def test_the_data_files_are_the_official_lists() -> None:
    assert len(OFFICIAL_ALL) == 159 and len(set(OFFICIAL_ALL)) == 159
    assert len(OFFICIAL_TYPES) == 155 and "HookInput" in OFFICIAL_TYPES
    assert set(OFFICIAL_ALL) | set(OFFICIAL_TYPES) == set(SHAPES)


def test_every_official_name_is_exported() -> None:
    missing = sorted(n for n in OFFICIAL_ALL if n not in claude_sync.__all__)
    assert set(missing) <= OWNED_ELSEWHERE, set(missing) - OWNED_ELSEWHERE
    for name in OFFICIAL_ALL:
        if name not in OWNED_ELSEWHERE:
            assert getattr(claude_sync, name) is not None, name


def test_every_official_types_name_is_in_claude_sync_types() -> None:
    import claude_sync.types as types

    missing = sorted(n for n in OFFICIAL_TYPES if n not in OWNED_ELSEWHERE and not hasattr(types, n))
    assert missing == []
    assert set(OFFICIAL_TYPES) - OWNED_ELSEWHERE <= set(types.__all__)


def test_owned_elsewhere_is_not_stale() -> None:
    stale = sorted(n for n in OWNED_ELSEWHERE if n in claude_sync.__all__)
    assert stale == [], "these are exported now: drop them from OWNED_ELSEWHERE"


def test_names_in_both_modules_are_the_same_objects() -> None:
    import claude_sync.types as types

    for name in OFFICIAL_TYPES:
        if name in OWNED_ELSEWHERE or name not in claude_sync.__all__:
            continue
        assert getattr(types, name) is getattr(claude_sync, name), name


def _ours(name: str) -> Any:
    import claude_sync.types as types

    return getattr(types, name) if hasattr(types, name) else getattr(claude_sync, name)


def _of_kind(kind: str) -> List[str]:
    return sorted(n for n, s in SHAPES.items() if s["kind"] == kind and n not in OWNED_ELSEWHERE)


@pytest.mark.parametrize("name", _of_kind("typeddict"))
def test_typeddicts_have_every_official_key(name: str) -> None:
    ours = _ours(name)
    if name == "HookContext":  # deliberately a dataclass (attribute access) that is a Mapping
        context = ours()
        assert all(context[key] is None for key in SHAPES[name]["keys"])
        return
    assert isinstance(ours, type) and issubclass(ours, dict), f"{name} is not a TypedDict"
    assert set(SHAPES[name]["keys"]) <= set(ours.__annotations__), name


@pytest.mark.parametrize("name", _of_kind("dataclass"))
def test_dataclasses_take_every_official_field_in_order(name: str) -> None:
    ours = _ours(name)
    fields = [f.name for f in dataclasses.fields(ours) if f.init]
    official = SHAPES[name]["fields"]
    if name == "ClaudeAgentOptions":
        # Built by keyword in practice (and ours has more fields), so only presence is checked.
        assert set(official) <= set(fields), set(official) - set(fields)
        return
    # Positional construction must mean the same: the official fields come first, in order.
    assert fields[: len(official)] == official, (fields, official)


def test_classes_keep_their_official_bases() -> None:
    for name, shape in SHAPES.items():
        if shape["kind"] != "class" or name in OWNED_ELSEWHERE:
            continue
        ours = _ours(name)
        ours_bases = {base.__name__ for base in getattr(ours, "__mro__", ())}
        for base in shape["bases"]:
            if base in ("object", "ABC", "Generic", "Protocol"):
                continue
            if base in ("MCPModel", "BaseModel"):  # mcp's pydantic models: ours need no pydantic
                continue
            protocol = getattr(claude_sync, base, None)
            if getattr(protocol, "_is_protocol", False):  # structural: conforming is enough
                continue
            assert base in ours_bases, (name, base)


def test_importing_claude_sync_does_not_load_the_type_hint_modules() -> None:
    code = (
        "import sys, claude_sync; "
        "print(sorted(m for m in sys.modules if m.startswith('claude_sync.') and m.rsplit('.', 1)[1] in ("
        "'hook_input_base', 'hook_inputs', 'hook_environment_inputs', 'hook_outputs', 'config_types', 'shapes')) "
        "+ sorted(m for m in ('typing_extensions', 'claude_sync.types') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "[]"


def test_types_all_lists_every_public_name_of_the_module() -> None:
    import claude_sync.types as types

    # "@py_builtins"/"@pytest_ar": pytest's assertion rewriting adds them to every module of a
    # distribution that registers a pytest11 plugin (ours does) — not names of ours.
    public = {n for n in vars(types) if not n.startswith(("_", "@"))} - {"Any", "annotations", "FROM_PACKAGE"}
    assert public - types.FROM_PACKAGE == set(types.__all__) - types.FROM_PACKAGE  # resolved ones are cached


def test_star_import_of_types_works() -> None:
    namespace: Dict[str, Any] = {}
    exec("from claude_sync.types import *", namespace)  # noqa: S102 - the import form users write
    assert "PreToolUseHookInput" in namespace and "ClaudeAgentOptions" in namespace
