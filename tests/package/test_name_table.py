"""``claude_sync._NAMES`` is the one table of public names; everything else derives from it.

Run ``python tests/package/test_name_table.py --write`` after changing the table: it rewrites
the generated ``TYPE_CHECKING`` block of ``claude_sync/__init__.py``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Dict, Tuple

import claude_sync

INIT = Path(claude_sync.__file__)
HEADER = "if TYPE_CHECKING:  # generated from _NAMES (python tests/package/test_name_table.py --write)"


def generated_block(table: Dict[str, Tuple[str, ...]]) -> str:
    lines = [HEADER]
    for module in sorted(table):
        lines += [f"    from {module} import {name} as {name}" for name in sorted(table[module])]
    return "\n".join(lines) + "\n"


def current_block(text: str) -> str:
    start = text.index(HEADER)
    end = text.index("\n\n", start)
    return text[start : end + 1]


def test_the_type_checking_imports_are_generated_from_the_table() -> None:
    text = INIT.read_text()
    assert current_block(text) == generated_block(claude_sync._NAMES), (
        "run: python tests/package/test_name_table.py --write"
    )


def test_all_is_the_table() -> None:
    names = [name for names in claude_sync._NAMES.values() for name in names]
    assert claude_sync.__all__ == names + ["__version__"]
    assert len(set(names)) == len(names), "a name is in the table twice"


def test_every_name_is_the_object_its_module_defines() -> None:
    for module, names in claude_sync._NAMES.items():
        loaded = importlib.import_module(module, "claude_sync")
        for name in names:
            assert getattr(claude_sync, name) is getattr(loaded, name), name


def test_types_agrees_with_the_table() -> None:
    """``claude_sync.types`` (the official ``types`` module's names) gives the same objects."""
    import claude_sync.types as types

    shared = [name for name in types.__all__ if name in claude_sync.__all__]
    assert len(shared) > 100
    for name in shared:
        assert getattr(types, name) is getattr(claude_sync, name), name


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = INIT.read_text()
    INIT.write_text(text.replace(current_block(text), generated_block(claude_sync._NAMES)))
    print("rewrote the TYPE_CHECKING block of", INIT)
