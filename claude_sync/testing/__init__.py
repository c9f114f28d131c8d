"""``claude_sync.testing``: test your own code without an account or a network.

Nothing here is imported by ``import claude_sync``, and nothing here imports pytest unless
you use the pytest plugin. Each public name loads its module on first use (PEP 562), so
``from claude_sync.testing import X`` costs only what ``X`` needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Dict

_LAZY: Dict[str, str] = {
    # name -> module (relative to this package) that defines it; one entry per public name
    "run_session_store_conformance": ".conformance",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    """Resolve a public name on first use; anything else is an AttributeError."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'claude_sync.testing' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
