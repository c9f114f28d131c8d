"""The documentation covers every public name: each has a docstring (or, for a type alias or
constant, a line in ``docs/conf.py``'s ``ALIAS_DOCS``) and a directive in the API reference.
CI builds the site with ``sphinx -W`` (``.ci/run``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

import claude_sync

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _conf() -> ModuleType:
    spec = importlib.util.spec_from_file_location("claude_sync_docs_conf", DOCS / "conf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PUBLIC = [name for name in claude_sync.__all__ if name != "__version__"]
_CONF = _conf()


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_documented(name: str) -> None:
    assert _CONF.doc_for(name).strip(), (
        f"claude_sync.{name} has no docstring (nor a string after its assignment, nor a line in "
        "docs/conf.py ALIAS_DOCS)"
    )


def test_the_reference_has_every_public_name_once() -> None:
    text = _CONF.api_directives()
    names = re.findall(r"^\.\. (?:autoclass|autofunction|data):: claude_sync\.(\w+)$", text, re.M)
    assert sorted(names) == sorted(PUBLIC)
    assert (DOCS / "api.rst").read_text().count(".. include:: _generated/api_names.rst") == 1


def test_every_tutorial_page_is_in_the_toctree() -> None:
    index = (DOCS / "index.rst").read_text()
    for page in sorted((DOCS / "tutorial").glob("*.rst")):
        assert f"tutorial/{page.stem}" in index, page.name
