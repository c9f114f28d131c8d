"""Sphinx configuration for the claude_sync documentation (``python -m sphinx -W docs out``).

The API reference (``api/``) is generated at every build by ``apiref.py``: each
``api/<page>.rst`` includes ``_generated/api/<page>.rst``, written here, with an autodoc
directive for every public name of the package (``tests/package/test_docs.py`` checks that
every public name, method and attribute has a docstring and is in the built reference).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import apiref  # noqa: E402

import claude_sync  # noqa: E402

project = "claude_sync"
author = "claude_sync contributors"
copyright = "claude_sync contributors, MIT licence"  # noqa: A001
release = claude_sync.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True}
# Class docstrings document fields and TypedDict keys in an ``Attributes:`` (``Keys:``)
# section: napoleon turns each entry into an attribute of the reference, typed from the
# class's annotations.
napoleon_custom_sections = [("Keys", "Attributes")]
napoleon_attr_annotations = True
exclude_patterns = ["_build", "_generated", "protocol", "Thumbs.db", ".DS_Store"]
suppress_warnings = ["ref.python"]  # typing names inside annotations have no target here
nitpicky = False

try:
    import furo  # noqa: F401

    html_theme = "furo"
except ImportError:  # pragma: no cover - the docs extra installs furo
    html_theme = "alabaster"
html_title = f"claude_sync {release}"
# Long signatures: one parameter a line past this length; CSS wraps what is still too long.
maximum_signature_line_length = 88
html_static_path = ["_static"]
html_css_files = ["signatures.css"]

autodoc_mock_imports: list = []


def _import_or_mock(module: str, package: str) -> None:
    """Import an optional public module; when its package is not installed (the ``dask`` extra
    without ``distributed``), import it with that package mocked, so the reference still
    documents it."""
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != package:
            raise
        from sphinx.ext.autodoc.mock import mock

        with mock([package]):
            importlib.import_module(module)
        autodoc_mock_imports.append(package)


for _module, _package in apiref.OPTIONAL_SURFACES.items():
    _import_or_mock(_module, _package)

apiref.write_pages(HERE / "_generated" / "api")


def _plain_section_headers(app: object, what: str, name: str, obj: object, options: object, lines: list) -> None:
    """``Raises (on construction):`` → a sentence, then ``Raises:``, so napoleon (which runs
    after this) formats the section instead of docutils reading a broken definition list."""
    import re

    pattern = re.compile(r"^(\s*)(Raises|Returns|Args) \(([^)]*)\):\s*$")
    for index, line in enumerate(list(lines)):
        match = pattern.match(line)
        if match:
            indent, section, note = match.groups()
            lines[index : index + 1] = [f"{indent}{note[:1].upper()}{note[1:]}:", "", f"{indent}{section}:"]


def _public_bases(app: object, name: str, obj: object, options: object, bases: list) -> None:
    """``Bases:`` lines name public classes only (not ``WireRecord``, ``Record`` …)."""
    keep = {id(base) for base in apiref.shown_bases(obj)} if inspect.isclass(obj) else set()
    bases[:] = [base for base in bases if id(base) in keep]


def _class_attribute(obj: object, name: str, *default: object) -> object:
    """How autodoc reads a class's members: a method-like descriptor that wraps a function
    (``ScriptedCLI.answer`` works on the class and on an instance) is documented as that
    function, with its signature and docstring."""
    from sphinx.util.inspect import safe_getattr

    raw = obj.__dict__.get(name) if isinstance(obj, type) else None
    func = getattr(raw, "func", None)
    if inspect.isfunction(func) and inspect.ismethoddescriptor(raw) and not isinstance(raw, (classmethod, staticmethod)):
        return func
    return safe_getattr(obj, name, *default)


MEMBER_OBJTYPES = frozenset({"method", "classmethod", "staticmethod", "property", "attribute"})


def _members_out_of_the_toc(app: object, domain: str, objtype: str, content: Any) -> None:
    """The tables of contents (the sidebar's page list, "On this page") name sections,
    classes, functions and data, not every method and attribute: with those (~3000 of them)
    every page's navigation tree took most of the build's time. Members keep their anchors
    and index entries."""
    if domain == "py" and objtype in MEMBER_OBJTYPES:
        content.parent["no-contents-entry"] = True


def setup(app: Any) -> None:
    from sphinx import addnodes
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class NoHopelessFuzzySearch(SphinxPostTransform):
        """A cross-reference Sphinx looks up "fuzzily" (``str``, ``None``, ``Any`` in a
        signature or an attribute's type: ~10,000 of them) is compared with the name of
        every documented object, one by one, and ``str`` never matches. Here such a
        reference is looked up exactly, as an ordinary one is, when no documented name ends
        with ``.<target>`` — when the fuzzy search could not find anything either — so the
        result is the same; it runs just before the references are resolved."""

        default_priority = 9  # ReferencesResolver: 10

        def run(self, **kwargs: Any) -> None:
            objects = self.env.domains["py"].objects
            cached = getattr(self.env, "_claude_sync_tails", None)
            if cached is None or cached[0] != len(objects):
                tails = set()
                for name in objects:
                    parts = name.split(".")
                    tails.update(".".join(parts[i:]) for i in range(1, len(parts)))
                cached = (len(objects), tails)
                self.env._claude_sync_tails = cached  # type: ignore[attr-defined]
            tails = cached[1]
            for node in self.document.findall(addnodes.pending_xref):
                if node.get("refdomain") == "py" and node.hasattr("refspecific") and node["reftarget"] not in tails:
                    del node["refspecific"]

    app.add_post_transform(NoHopelessFuzzySearch)
    app.connect("object-description-transform", _members_out_of_the_toc)
    app.add_autodoc_attrgetter(type, _class_attribute)  # type: ignore[attr-defined]
    app.connect("autodoc-process-docstring", _plain_section_headers, priority=400)  # type: ignore[attr-defined]
    app.connect("autodoc-process-bases", _public_bases)  # type: ignore[attr-defined]
