"""Whole programs written for the async SDKs (``tests/port/programs/*.py``: our own, with
gather / wait_for / sleep / create_task / task groups / anyio / trio / claude_code_sdk), ported:
the output must equal the reviewed ``*.ported`` file, the flags must be exactly the places that
need a human, and nothing from asyncio / anyio / trio may survive unflagged."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from claude_sync.port import port_source

PROGRAMS = Path(__file__).with_name("programs")

EXPECTED_FLAGS: Dict[str, List[Tuple[int, str]]] = {
    "old_repl.py": [],
    "review_many.py": [(30, "asyncio.gather")],
    "trio_tools.py": [(27, "blocks the port"), (31, "trio.fail_after")],
    "watchdog.py": [
        (28, "asyncio.create_task"),
        (32, "asyncio.wait_for"),
        (39, "asyncio.CancelledError"),
        (41, "`await beat` awaited a coroutine made earlier"),
    ],
}


def async_library_lines(text: str) -> Set[int]:
    """Lines of the ported text that still use a name from asyncio / anyio / trio."""
    tree = ast.parse(text)
    imported = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] in ("asyncio", "anyio", "trio")
    }
    return {node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in imported}


def test_every_program_has_expectations() -> None:
    assert sorted(p.name for p in PROGRAMS.glob("*.py")) == sorted(EXPECTED_FLAGS)


@pytest.mark.parametrize("name", sorted(EXPECTED_FLAGS))
def test_program_ports_to_the_reviewed_text_with_exactly_the_expected_flags(name: str) -> None:
    result = port_source((PROGRAMS / name).read_text(), filename=name)
    assert result.text == (PROGRAMS / name).with_suffix(".ported").read_text()
    assert [(f.line, f.message.split("(")[0].split(":")[0]) for f in result.flags] == EXPECTED_FLAGS[name]
    compile(result.text, name, "exec")
    code = "".join(line for line in result.text.splitlines(keepends=True) if not line.lstrip().startswith("#"))
    assert "async " not in code and "await " not in code
    assert async_library_lines(result.text) <= {f.line for f in result.flags}, "an async-library use left unflagged"
    lines = result.text.splitlines()
    assert all(lines[f.line - 2].lstrip().startswith("# claude_sync.port: ") for f in result.flags), "each flag is marked"
    if not result.blockers:  # (a blocked text is never written: nothing ports it again)
        assert port_source(result.text).text == result.text, "porting again changes nothing"
