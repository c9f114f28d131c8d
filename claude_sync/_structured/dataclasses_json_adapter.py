"""dataclasses-json for output dataclasses: JSON key names now, decoding on first use.

Key names follow the class's dataclasses-json configuration, read from plain attributes so
nothing is imported for a schema: a field's ``config(field_name=…)`` / ``config(letter_case=…)``
(field metadata) wins over the class's ``@dataclass_json(letter_case=…)``
(``dataclass_json_config``). ``dataclass_builder`` imports dataclasses-json (and marshmallow)
the first time a value is decoded.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Optional, Type, TypeVar

__all__ = ["custom_decoder", "dataclass_builder", "json_field_name"]

T = TypeVar("T")


def _field_config(fld: dataclasses.Field[Any]) -> Dict[str, Any]:
    config = fld.metadata.get("dataclasses_json") if fld.metadata else None
    return config if isinstance(config, dict) else {}


def json_field_name(cls: type, fld: dataclasses.Field[Any]) -> str:
    """The JSON key of ``fld`` as dataclasses-json reads and writes it."""
    letter_case = _field_config(fld).get("letter_case")
    if letter_case is None:
        class_config = getattr(cls, "dataclass_json_config", None)
        if isinstance(class_config, dict):
            letter_case = class_config.get("letter_case")
    if callable(letter_case):
        return str(letter_case(fld.name))
    return fld.name


def custom_decoder(fld: dataclasses.Field[Any]) -> Optional[Callable[[Any], Any]]:
    """The field's own dataclasses-json ``decoder`` (``config(decoder=…)``), if any."""
    decoder = _field_config(fld).get("decoder")
    return decoder if callable(decoder) else None


def dataclass_builder() -> Callable[[Type[T], Dict[str, Any]], T]:
    """``build(cls, values)``: ``cls`` built by dataclasses-json from ``values`` (JSON key
    names; nested values already decoded, which dataclasses-json passes through); missing
    fields get their defaults. Getting it imports dataclasses-json (``ImportError`` when the
    install is broken); calling it raises what dataclasses-json and the class's
    ``__init__``/``__post_init__`` raise."""
    from dataclasses_json import DataClassJsonMixin

    decode: Any = DataClassJsonMixin.from_dict.__func__  # type: ignore[attr-defined]

    def build(cls: Type[T], values: Dict[str, Any]) -> T:
        instance: T = decode(cls, values, infer_missing=False)
        return instance

    return build
