"""Lazy dataclasses-json support for the message types.

``dataclasses_json`` (and the ``marshmallow`` it pulls in) costs 60–90 ms to import, more
than the whole ``import claude_sync`` budget, and nothing on the per-line hot path needs it.
So the message classes do not inherit ``DataClassJsonMixin`` directly. They inherit
``SerdeMixin``, whose four methods import dataclasses-json on first use and then hand the
work to ``DataClassJsonMixin``'s own implementations (called as plain functions with our
instance or class). Behaviour is exactly dataclasses-json's; only the import is deferred.

Field-level dataclasses-json options are written as plain field metadata
(``{"dataclasses_json": {"decoder": fn}}``, which is what ``dataclasses_json.config()``
returns), so declaring them imports nothing either.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Type, TypeVar

__all__ = ["SerdeMixin", "decoder_metadata"]

_T = TypeVar("_T", bound="SerdeMixin")


def _json_mixin() -> Any:
    """``dataclasses_json.DataClassJsonMixin``, imported on first use.

    Raises ``ImportError`` if dataclasses-json is not installed.
    """
    from dataclasses_json import DataClassJsonMixin

    return DataClassJsonMixin


def decoder_metadata(decoder: Callable[[Any], Any]) -> Dict[str, Any]:
    """Field metadata telling dataclasses-json to decode a field with ``decoder``."""
    return {"dataclasses_json": {"decoder": decoder}}


class SerdeMixin:
    """``to_dict`` / ``to_json`` / ``from_dict`` / ``from_json`` with a deferred import, and
    ``__json__`` (``to_dict()`` for kombu's JSON encoder: Celery's default serializer).

    Keys are the Python field names (``model_usage``, not the wire's ``modelUsage``); the
    output is meant for saved transcripts and is read back with ``from_dict``. To rebuild a
    message from a *wire* dict use ``claude_sync._wire.parse.parse_message`` instead;
    ``message_from_dict`` rebuilds any message from ``to_dict()`` output.
    """

    __slots__ = ()

    def to_dict(self, encode_json: bool = False) -> Dict[str, Any]:
        """This object as a dict of plain values (nested dataclasses become dicts)."""
        result: Dict[str, Any] = _json_mixin().to_dict(self, encode_json=encode_json)
        return result

    def to_json(self, **json_dumps_kwargs: Any) -> str:
        """``to_dict()`` as a JSON string; keyword arguments go to ``json.dumps``."""
        text: str = _json_mixin().to_json(self, **json_dumps_kwargs)
        return text

    def __json__(self) -> Dict[str, Any]:
        """``to_dict()`` with every value in its JSON form: what a JSON encoder that looks for
        ``__json__`` (kombu's, so Celery's default serializer) writes for this object."""
        return self.to_dict(encode_json=True)

    @classmethod
    def from_dict(cls: Type[_T], kvs: Dict[str, Any], *, infer_missing: bool = False) -> _T:
        """Rebuild an instance from ``to_dict()`` output.

        Raises ``KeyError`` when a required field is missing (unless ``infer_missing``),
        and whatever a field decoder raises for a malformed value.
        """
        decode = _json_mixin().from_dict.__func__
        instance: _T = decode(cls, kvs, infer_missing=infer_missing)
        return instance

    @classmethod
    def from_json(cls: Type[_T], text: str, *, infer_missing: bool = False) -> _T:
        """Rebuild an instance from ``to_json()`` output (raises like ``from_dict``)."""
        return cls.from_dict(json.loads(text), infer_missing=infer_missing)
