"""Descriptions of a dataclass/TypedDict and its fields, for the JSON Schema (pure).

Where a field's description comes from, first found wins:

1. ``Annotated[X, "text"]`` (read by the schema generator itself);
2. ``dataclasses.field(metadata={"description": "text"})``;
3. ``dataclasses.field(doc="text")`` (Python 3.14+);
4. the string literal written right under the field in the class body (an attribute
   docstring), read from the class's source with ``ast``.

The class's own docstring describes the object (not the one ``@dataclass`` makes up,
``"Invoice(total: float, …)"``). Source is read once per class; a class whose source cannot
be found (typed into a REPL, some notebook setups) simply gets no attribute docstrings.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from typing import Dict, List, Optional

from .._mcp.schema import ClassDocs

__all__ = ["describe_class"]


def describe_class(cls: type) -> ClassDocs:
    """``(class description, {field name: description})`` for a dataclass or TypedDict.

    Field names are the Python names. Never raises: missing source means no attribute
    docstrings.
    """
    docs: Dict[str, str] = {}
    for owner in _bases_first(cls):
        docs.update(_attribute_docstrings(owner))
    if dataclasses.is_dataclass(cls):
        for fld in dataclasses.fields(cls):
            text = fld.metadata.get("description") if fld.metadata else None
            if not isinstance(text, str):
                text = getattr(fld, "doc", None)  # dataclasses.field(doc=...) on 3.14+
            if isinstance(text, str) and text.strip():
                docs[fld.name] = inspect.cleandoc(text)
    return _class_doc(cls), docs


def _bases_first(cls: type) -> List[type]:
    """``cls`` and the classes its fields come from, bases first (a TypedDict's bases are
    in ``__orig_bases__``, not in its MRO)."""
    found: List[type] = []

    def visit(klass: type) -> None:
        if klass in found or klass in (object, dict) or not isinstance(klass, type):
            return
        for base in getattr(klass, "__orig_bases__", None) or klass.__bases__:
            visit(base)
        found.append(klass)

    visit(cls)
    return found


def _class_doc(cls: type) -> Optional[str]:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return None  # the signature @dataclass writes when the class has no docstring
    return inspect.cleandoc(doc)


def _attribute_docstrings(cls: type) -> Dict[str, str]:
    """``{name: docstring}`` of the class body's ``name: type`` lines followed by a string."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    body = next((node.body for node in tree.body if isinstance(node, ast.ClassDef)), [])
    docs: Dict[str, str] = {}
    for statement, following in zip(body, body[1:]):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        if (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs
