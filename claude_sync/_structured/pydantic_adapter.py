"""pydantic v2 models as output classes, without pydantic being our dependency.

A class can only be a pydantic model if pydantic is already imported (the class's own
module imported it), so ``is_pydantic_model`` looks in ``sys.modules`` and never imports
pydantic itself. The schema is the model's own ``model_json_schema()``, the instance its own
``model_validate_json()``: pydantic's rules, not ours.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, Optional, Tuple

__all__ = ["PydanticMismatch", "is_pydantic_model", "pydantic_schema", "validate_pydantic"]


class PydanticMismatch(Exception):
    """``model_validate`` refused the value: ``location`` (keys and indexes, from the
    model's root) and pydantic's ``message``."""

    def __init__(self, location: Tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message


def _base_model() -> Optional[type]:
    pydantic = sys.modules.get("pydantic")
    base = getattr(pydantic, "BaseModel", None) if pydantic is not None else None
    return base if isinstance(base, type) else None


def is_pydantic_model(tp: Any) -> bool:
    """Whether ``tp`` is a pydantic model class (v1 or v2); never imports pydantic."""
    if not isinstance(tp, type):
        return False
    base = _base_model()
    if base is not None and issubclass(tp, base):
        return True
    v1 = sys.modules.get("pydantic.v1")
    v1_base = getattr(v1, "BaseModel", None) if v1 is not None else None
    return isinstance(v1_base, type) and issubclass(tp, v1_base)


def pydantic_schema(cls: type) -> Dict[str, Any]:
    """The model's JSON Schema (validation mode), as pydantic writes it.

    Raises:
        TypeError: the model is a pydantic v1 one (``pydantic.v1``, or pydantic < 2), or
            pydantic cannot express a field (a callable, an arbitrary class…).
    """
    if not hasattr(cls, "model_json_schema"):
        raise TypeError(
            f"{cls.__qualname__} is a pydantic v1 model; output_format takes pydantic v2 models"
        )
    try:
        schema: Dict[str, Any] = cls.model_json_schema(mode="validation")
    except Exception as exc:  # noqa: BLE001 - pydantic's errors for inexpressible fields vary
        raise TypeError(f"{cls.__qualname__}: pydantic cannot write a JSON Schema for it: {exc}") from None
    return schema


def validate_pydantic(cls: type, value: Any) -> Any:
    """``value`` validated by the model in pydantic's JSON mode (the value came as JSON:
    ``"green"`` is ``Color.GREEN`` there, as the schema says, while Python mode wants the
    member itself).

    Raises:
        PydanticMismatch: pydantic refused the value (its first error).
    """
    import pydantic

    try:
        return cls.model_validate_json(json.dumps(value))  # type: ignore[attr-defined]
    except pydantic.ValidationError as exc:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": str(exc)}
        raise PydanticMismatch(tuple(first.get("loc") or ()), str(first.get("msg"))) from None
