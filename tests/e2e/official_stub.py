"""Copied as ``conftest.py`` next to the official SDK's ported unit tests (by
``test_official_ported.py``), to tell the tests that use only public API from those that do not.

What is left of ``claude_agent_sdk`` after the port is its private modules (the tool flags every
such import and leaves it as it was). Here that package is served by stubs: importing from it
works, but any use of what was imported (a call, an attribute set, ``isinstance``, arithmetic,
``mock.patch`` of it …) raises ``PrivateApiUsed``, and so does any private ``_name`` imported
from ``claude_sync`` (the port maps ``claude_agent_sdk.types`` to ``claude_sync.types``, which has
no such names). The runner counts a test that raised it as out of scope, not as a failure.
``sniffio`` (which event loop runs?) is stubbed the same way.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = {"claude_agent_sdk", "sniffio"}


class PrivateApiUsed(Exception):
    """The test used the official SDK's private API (no claude_sync counterpart)."""


def _fail(name):
    raise PrivateApiUsed(f"{name} is private to the official SDK")


class _StubMeta(type):
    def __call__(cls, *args, **kwargs):
        _fail(cls.__qualname__)

    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _stub(f"{cls.__qualname__}.{attr}")

    def __setattr__(cls, attr, value):
        _fail(f"{cls.__qualname__}.{attr}")

    def __instancecheck__(cls, instance):
        _fail(cls.__qualname__)

    def __subclasscheck__(cls, subclass):
        _fail(cls.__qualname__)

    def __eq__(cls, other):
        _fail(cls.__qualname__)

    __hash__ = type.__hash__


def _failing_operator(name):
    def operator(cls, *args):
        _fail(cls.__qualname__)

    operator.__name__ = name
    return operator


for _name in (
    "__iter__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__floordiv__", "__mod__", "__lt__", "__le__", "__gt__", "__ge__", "__len__", "__contains__",
    "__getitem__", "__enter__", "__int__", "__float__", "__index__", "__bool__",
):
    setattr(_StubMeta, _name, _failing_operator(_name))


def _stub(name):
    stub = _StubMeta.__new__(_StubMeta, name.rsplit(".", 1)[-1], (), {})
    type.__setattr__(stub, "__qualname__", name)
    return stub


class _StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _stub(f"{self.__name__}.{attr}")

    def __setattr__(self, attr, value):
        if attr.startswith("__") or isinstance(value, types.ModuleType):
            super().__setattr__(attr, value)  # the import system's own bookkeeping
            return
        _fail(f"{self.__name__}.{attr}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


sys.meta_path.insert(0, _Finder())


def _serve_private_names(module_name):
    module = importlib.import_module(module_name)
    original = getattr(module, "__getattr__", None)

    def __getattr__(name):
        if original is not None:
            try:
                return original(name)
            except AttributeError:
                pass
        if name.startswith("_") and not name.startswith("__"):
            return _stub(f"claude_agent_sdk:{name}")
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__


for _module in ("claude_sync", "claude_sync.types", "claude_sync.testing"):
    _serve_private_names(_module)
