"""``frozen_record`` and ``record``: dataclasses that are cheap to *define*.

``@dataclass(frozen=True)`` generates ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` and ``__delattr__`` by compiling source code for every class (one ``exec``
per method before Python 3.13): about 1.1 ms per class here. claude_sync defines ~50 such
classes, which alone would cost ~50 ms of ``import claude_sync``.

``frozen_record`` still makes a real dataclass (``dataclasses.fields``, ``replace``,
``asdict`` and dataclasses-json all work), but with ``init=False, repr=False, eq=False``,
and the six methods come from ``FrozenRecord``: generic implementations driven by a
per-class field spec computed on first use. Type checkers see an ordinary frozen dataclass
(PEP 681 ``dataclass_transform``). Instances on the parse hot path are built without
``__init__`` at all (see ``construct`` below).

``record`` is the same for the mutable dataclasses users build and may change (options,
permission results): generic ``__init__``, ``__repr__``, ``__eq__`` from ``Record``,
unhashable like ``@dataclass``.

Semantics match ``@dataclass(frozen=True)`` (``@dataclass`` for ``record``): keyword or positional construction in field
order, defaults and default factories, ``init=False`` fields set from their defaults,
``TypeError`` for missing/unexpected arguments, ``FrozenInstanceError`` on assignment,
``repr``/``compare`` field flags honoured, equality only between instances of the same class.
"""

from __future__ import annotations

import inspect
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Dict, Tuple, Type, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda decorated: decorated


__all__ = ["FrozenRecord", "Record", "construct", "frozen_record", "record"]

_T = TypeVar("_T")
_object_new = object.__new__
_object_setattr = object.__setattr__


class _Spec:
    """What the generic methods need to know about one record class."""

    __slots__ = ("init_names", "required", "defaults", "factories", "fixed", "repr_names", "compare_names")

    def __init__(self, cls: type) -> None:
        all_fields = fields(cls)
        init_fields = [f for f in all_fields if f.init]
        self.init_names: Tuple[str, ...] = tuple(f.name for f in init_fields)
        self.required = frozenset(
            f.name for f in init_fields if f.default is MISSING and f.default_factory is MISSING
        )
        self.defaults: Dict[str, Any] = {f.name: f.default for f in init_fields if f.default is not MISSING}
        self.factories: Dict[str, Callable[[], Any]] = {
            f.name: f.default_factory
            for f in init_fields
            if f.default_factory is not MISSING
        }
        self.fixed: Dict[str, Any] = {
            f.name: f.default for f in all_fields if not f.init and f.default is not MISSING
        }
        self.repr_names = tuple(f.name for f in all_fields if f.repr)
        self.compare_names = tuple(f.name for f in all_fields if f.compare)


_SPECS: Dict[type, _Spec] = {}


def _spec(cls: type) -> _Spec:
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = _Spec(cls)
    return spec


class _LazySignature:
    """``cls.__signature__``, computed on first access and cached per class.

    ``inspect.signature``, ``help()`` and IPython/Jupyter completion read ``__signature__``
    first; without it they would show the generic ``(*args, **kwargs)``. Building a
    ``Signature`` costs ~0.15 ms a class, so it is never done at import. None on the
    bases (``Record`` …), which are not dataclasses.
    """

    def __get__(self, instance: Any, owner: type) -> Any:
        signature = _SIGNATURES.get(owner)
        if signature is None:
            if "__dataclass_fields__" not in owner.__dict__:
                return None
            signature = _SIGNATURES[owner] = _init_signature(owner)
        return signature


_SIGNATURES: Dict[type, Any] = {}


class _AnnotationText(str):
    """An annotation shown as written in the source (``Optional[int]``, not a quoted
    string and not ``typing.Optional[int]`` with every module spelled out)."""

    def __repr__(self) -> str:
        return str(self)


def _init_signature(cls: type) -> Any:
    """The ``__init__`` signature of a record class: its ``init`` fields in order, with
    their defaults (a factory's value) and annotations as written."""
    parameters = []
    for spec in fields(cls):
        if not spec.init:
            continue
        default: Any = inspect.Parameter.empty
        if spec.default is not MISSING:
            default = spec.default
        elif spec.default_factory is not MISSING:
            default = spec.default_factory()
        annotation: Any = spec.type
        if isinstance(annotation, str):
            annotation = _AnnotationText(annotation)
        parameters.append(
            inspect.Parameter(spec.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)
        )
    return inspect.Signature(parameters, return_annotation=None)


class Record:
    """Generic dataclass methods: ``__init__``, ``__repr__``, ``__eq__`` (see the module
    docstring); unhashable, as a mutable ``@dataclass`` is. ``__signature__`` (computed on
    first use) gives ``inspect.signature``, ``help()`` and completion the real fields."""

    __slots__ = ()
    __signature__: Any = _LazySignature()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        spec = _spec(type(self))
        if len(args) > len(spec.init_names):
            raise TypeError(
                f"{type(self).__name__}() takes {len(spec.init_names)} positional arguments but {len(args)} were given"
            )
        values = dict(zip(spec.init_names, args))
        for name, value in kwargs.items():
            if name not in spec.init_names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            values[name] = value
        missing = [name for name in spec.init_names if name in spec.required and name not in values]
        if missing:
            raise TypeError(f"{type(self).__name__}() missing required argument(s): {', '.join(missing)}")
        state = dict(spec.fixed)
        for name in spec.init_names:
            if name in values:
                state[name] = values[name]
            elif name in spec.factories:
                state[name] = spec.factories[name]()
            else:
                state[name] = spec.defaults[name]
        _object_setattr(self, "__dict__", state)
        post_init = getattr(self, "__post_init__", None)
        if post_init is not None:
            post_init()

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in _spec(type(self)).repr_names)
        return f"{type(self).__qualname__}({parts})"

    def _compare_key(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _spec(type(self)).compare_names)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compare_key() == other._compare_key()

    __hash__ = None  # type: ignore[assignment]


class FrozenRecord(Record):
    """``Record`` made immutable and hashable, as ``@dataclass(frozen=True)`` is."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._compare_key())


@dataclass_transform(field_specifiers=(field,))
def record(cls: Type[_T]) -> Type[_T]:
    """Make ``cls`` (which must inherit ``Record`` but not ``FrozenRecord``) a mutable
    dataclass, cheaply. Raises ``TypeError`` otherwise."""
    if not issubclass(cls, Record) or issubclass(cls, FrozenRecord):
        raise TypeError(f"{cls.__name__} must inherit Record (and not FrozenRecord) to use record")
    return dataclass(init=False, repr=False, eq=False)(cls)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen_record(cls: Type[_T]) -> Type[_T]:
    """Make ``cls`` (which must inherit ``FrozenRecord``) an immutable dataclass, cheaply.

    Raises ``TypeError`` if ``cls`` does not inherit ``FrozenRecord``.
    """
    if not issubclass(cls, FrozenRecord):
        raise TypeError(f"{cls.__name__} must inherit FrozenRecord to use frozen_record")
    return dataclass(init=False, repr=False, eq=False)(cls)


def construct(cls: Type[_T], attrs: Dict[str, Any]) -> _T:
    """A ``cls`` instance whose attributes are exactly ``attrs``, bypassing ``__init__``.

    ``attrs`` becomes the instance's ``__dict__`` (not copied): pass a fresh dict holding
    every ``init`` field of ``cls``. The parse hot path uses it instead of the frozen
    ``__init__`` (which would pay one ``object.__setattr__`` per field).
    """
    instance = _object_new(cls)
    _object_setattr(instance, "__dict__", attrs)
    return instance
