"""Read-only JSON containers: a cached schema can be handed out without copying (pure).

``freeze(value)`` turns nested dicts and lists into ``ReadOnlyDict``/``ReadOnlyList``: real
``dict``/``list`` subclasses, so ``json.dumps``, ``==`` and ``isinstance`` work as before,
whose mutating methods raise ``TypeError``. ``copy.copy``, ``copy.deepcopy`` and pickling
give plain, mutable ``dict``/``list`` objects (``deepcopy`` at every level).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, NoReturn

__all__ = ["ReadOnlyDict", "ReadOnlyList", "freeze"]

_HOW = "it is shared (cached per class) and read-only: take copy.deepcopy(schema) to change it"


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"cannot change this {type(self).__name__}: {_HOW}")


class ReadOnlyDict(Dict[str, Any]):
    """A ``dict`` that refuses changes (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> Dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: Dict[int, Any]) -> Dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class ReadOnlyList(List[Any]):
    """A ``list`` that refuses changes (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __copy__(self) -> List[Any]:
        return list(self)

    def __deepcopy__(self, memo: Dict[int, Any]) -> List[Any]:
        return [copy.deepcopy(value, memo) for value in self]

    def __reduce__(self) -> Any:
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """``value`` with every dict and list (at any depth) made read-only; other values as
    they are. The input is not changed."""
    if isinstance(value, dict):
        return ReadOnlyDict((key, freeze(item)) for key, item in value.items())
    if isinstance(value, list):
        return ReadOnlyList(freeze(item) for item in value)
    return value
