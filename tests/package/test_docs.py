"""The documentation covers the whole public API (issue 23): every public name has a docstring
and a place on exactly one reference page; every public method, property and attribute of a
public class is documented (``docs/apiref.py`` says what counts); and the built site —
``sphinx -W``, as CI builds it — lists every one of them in its ``objects.inv``. The tutorial
pages are all in the table of contents and send nobody back to the README."""

from __future__ import annotations

import importlib.util
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Set

import pytest
from helpers import require_package

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _apiref() -> ModuleType:
    spec = importlib.util.spec_from_file_location("claude_sync_docs_apiref", DOCS / "apiref.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building the class
    spec.loader.exec_module(module)
    return module


apiref: Any = _apiref()
ENTRIES = apiref.entries()
CLASSES = [entry for entry in ENTRIES if apiref.is_our_class(entry.obj)]


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.qualname for entry in ENTRIES])
def test_every_public_name_is_documented(entry: Any) -> None:
    assert apiref.doc_for(entry).strip(), (
        f"{entry.qualname} has no docstring (for an alias or constant: a string right after its "
        f"assignment in {entry.home})"
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.qualname for entry in ENTRIES])
def test_every_public_name_has_a_reference_page(entry: Any) -> None:
    assert apiref.section_of(entry) is not None, (
        f"{entry.qualname} is defined in {entry.home}, which no reference section takes: add the "
        "module to SECTIONS (or the name to NAME_SECTIONS) in docs/apiref.py"
    )


@pytest.mark.parametrize("entry", CLASSES, ids=[entry.qualname for entry in CLASSES])
def test_every_public_method_and_attribute_is_documented(entry: Any) -> None:
    missing = apiref.undocumented_members(entry)
    assert not missing, (
        "undocumented (a method or property needs a docstring; an attribute, field or TypedDict key "
        "an entry in the 'Attributes:' / 'Keys:' section of the class docstring):\n  " + "\n  ".join(missing)
    )


@pytest.mark.parametrize("surface", sorted(apiref.OPTIONAL_SURFACES))
def test_an_optional_module_is_covered_when_its_package_is_there(surface: str) -> None:
    require_package(apiref.OPTIONAL_SURFACES[surface], import_it=False)
    assert any(entry.surface == surface for entry in ENTRIES)


def test_an_undocumented_method_or_attribute_is_caught() -> None:
    class Sample:
        """A class that forgets two of its members.

        Attributes:
            described: has its line.
        """

        described = 1
        forgotten = 2

        def method(self) -> None:
            pass

        def explained(self) -> None:
            """Says what it does."""

    Sample.__module__ = "claude_sync.sample"  # counted as one of ours (no such source file: members by vars())
    entry = apiref.Entry("sample", "Sample", Sample, Sample.__module__)
    assert [line.split(" (")[0] for line in apiref.undocumented_members(entry)] == [
        "sample.Sample.forgotten",
        "sample.Sample.method",
    ]


def test_attribute_sections_are_read_like_napoleon_reads_them() -> None:
    doc = """Summary.

    Attributes:
        plain: one line
        typed (int): and a second
            line for it.
        empty:

    Keys:
        key: a TypedDict key.
    """
    assert apiref.documented_attributes(doc) == {
        "plain": "one line", "typed": "and a second line for it.", "empty": "", "key": "a TypedDict key.",
    }


def test_every_page_includes_its_generated_part_and_is_in_the_toctree() -> None:
    index = (DOCS / "api" / "index.rst").read_text(encoding="utf-8")
    for page, title in apiref.PAGES:
        text = (DOCS / "api" / f"{page}.rst").read_text(encoding="utf-8")
        assert text.startswith(f"{title}\n{'=' * len(title)}\n"), page
        assert text.count(f".. include:: ../_generated/api/{page}.rst") == 1, page
        assert f"\n   {page}\n" in index, page
    assert "\n   api/index\n" in (DOCS / "index.rst").read_text(encoding="utf-8")


def test_every_tutorial_page_is_in_the_toctree() -> None:
    index = (DOCS / "index.rst").read_text()
    for page in sorted((DOCS / "tutorial").glob("*.rst")):
        assert f"tutorial/{page.stem}" in index, page.name


def test_no_page_sends_the_reader_to_the_readme() -> None:
    pages = [p for p in DOCS.rglob("*.rst") if not {"_build", "_generated", "protocol"} & set(p.parts)]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bthe README\b|\bREADME's\b", text, re.I), f"{page.relative_to(DOCS)} points to the README"


def _inventory(path: Path) -> Set[str]:
    from sphinx.util.inventory import InventoryFile

    with path.open("rb") as stream:
        inventory = InventoryFile.load(stream, "", posixpath.join)
    names: Set[str] = set()
    for objects in (inventory.data if hasattr(inventory, "data") else inventory).values():
        names.update(objects)
    return names


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built as CI builds it (``sphinx -W --keep-going``), from this checkout."""
    require_package("sphinx", import_it=False)
    out = tmp_path_factory.mktemp("docs_html")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True, text=True, timeout=600, env=env, cwd=str(ROOT), stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, f"sphinx -W failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return out


def test_the_built_reference_lists_every_public_name_and_member(built_site: Path) -> None:
    listed = _inventory(built_site / "objects.inv")
    missing = [name for name in apiref.expected_objects() if name not in listed]
    assert not missing, f"{len(missing)} public names or members are not in the built reference:\n  " + "\n  ".join(missing[:80])


def test_a_class_names_what_it_inherits_from_public_and_shared_bases() -> None:
    by_name = {entry.name: entry for entry in ENTRIES}
    serde = "claude_sync._wire.serde.SerdeMixin"
    assert [(base, [m.name for m in members]) for base, members in apiref.inherited_members(by_name["ResultMessage"].obj)] == [
        (serde, ["to_dict", "to_json", "from_dict", "from_json"])
    ]
    assert [base for base, _ in apiref.inherited_members(by_name["SystemInitMessage"].obj)] == ["claude_sync.SystemMessage", serde]
    assert [m.name for _, m_list in apiref.inherited_members(by_name["UsageError"].obj) for m in m_list] == ["init_kwargs"]
    # Never what the class documents itself, nor members of bases from outside claude_sync.
    for entry in ENTRIES:
        if apiref.is_our_class(entry.obj):
            own = {m.name for m in apiref.public_members(entry.obj)}
            inherited = [m.name for _, members in apiref.inherited_members(entry.obj) for m in members]
            assert not own & set(inherited) and len(inherited) == len(set(inherited)), entry.qualname


def _entry_html(site: Path, page: str, qualname: str) -> str:
    """The HTML of one top-level entry of a reference page: from its anchor to the next
    top-level class, exception, function or data entry."""
    text = (site / "api" / f"{page}.html").read_text(encoding="utf-8")
    start = text.index(f'id="{qualname}"')
    ends = [text.find(f'<dl class="py {kind}"', start) for kind in ("class", "exception", "function", "data")]
    return text[start : min([end for end in ends if end != -1] or [len(text)])]


def test_every_inherited_member_is_linked_from_the_class_entry(built_site: Path) -> None:
    unlinked = []
    for entry in ENTRIES:
        if not apiref.is_our_class(entry.obj) or not apiref.own_doc(entry.obj):
            continue
        inherited = apiref.inherited_members(entry.obj)
        if not inherited:
            continue
        page, _section = apiref.section_of(entry)  # type: ignore[misc]
        html = _entry_html(built_site, page, entry.qualname)
        for base, members in inherited:
            for member in members:
                if not re.search(rf'href="[^"]*#{re.escape(base)}\.{member.name}"', html):
                    unlinked.append(f"{entry.qualname}: {base}.{member.name}")
    assert not unlinked, f"{len(unlinked)} inherited members are not linked from their class's entry:\n  " + "\n  ".join(unlinked[:40])


def test_the_index_page_says_how_to_install() -> None:
    text = (DOCS / "index.rst").read_text(encoding="utf-8")
    assert "pip install -e ." in text and "git clone" in text
