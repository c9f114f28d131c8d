"""``ToolAnnotations``: MCP tool hints plus Claude Code's ``maxResultSizeChars`` (pure), the
official SDK's class without pydantic. ``mcp_tools`` turns them into a tool's ``tools/list``
entry (``annotations``, and ``_meta["anthropic/maxResultSizeChars"]``).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

__all__ = ["ToolAnnotations"]

ANNOTATION_ALIASES = {
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
    "max_result_size_chars": "maxResultSizeChars",
}


class ToolAnnotations:
    """Hints about a tool (MCP ``ToolAnnotations``) plus Claude Code's ``maxResultSizeChars``.

    The official SDK's class, without pydantic: every hint may be given in either spelling
    (``ToolAnnotations(read_only_hint=True)`` is ``ToolAnnotations(readOnlyHint=True)``; given
    both, the camelCase one wins) and read back in either (``.read_only_hint`` and
    ``.readOnlyHint``; an unset hint reads as None). Unknown keyword hints are kept and sent
    as given, as the official ``extra="allow"`` model does. ``model_dump(by_alias=True,
    exclude_none=True)`` gives the wire dict (camelCase, unset hints left out).

    ``maxResultSizeChars`` is not an MCP hint: it is the size (in characters) up to which
    Claude Code keeps this tool's result inline; it travels in the tool's ``_meta``.

    Raises (on construction):
        TypeError: a hint that is not a bool (or None), a ``title`` that is not a str, a
            ``maxResultSizeChars`` that is not a non-negative int.
    """

    __slots__ = ("_hints",)
    _hints: Dict[str, Any]

    def __init__(
        self,
        *,
        title: Optional[str] = None,
        readOnlyHint: Optional[bool] = None,  # noqa: N803 - the wire spelling
        read_only_hint: Optional[bool] = None,
        destructiveHint: Optional[bool] = None,  # noqa: N803
        destructive_hint: Optional[bool] = None,
        idempotentHint: Optional[bool] = None,  # noqa: N803
        idempotent_hint: Optional[bool] = None,
        openWorldHint: Optional[bool] = None,  # noqa: N803
        open_world_hint: Optional[bool] = None,
        maxResultSizeChars: Optional[int] = None,  # noqa: N803
        max_result_size_chars: Optional[int] = None,
        **extra: Any,
    ) -> None:
        given: Dict[str, Any] = {
            "title": title,
            "readOnlyHint": _either(readOnlyHint, read_only_hint),
            "destructiveHint": _either(destructiveHint, destructive_hint),
            "idempotentHint": _either(idempotentHint, idempotent_hint),
            "openWorldHint": _either(openWorldHint, open_world_hint),
            "maxResultSizeChars": _either(maxResultSizeChars, max_result_size_chars),
        }
        _check_hints(given)
        given.update(extra)
        object.__setattr__(self, "_hints", {k: v for k, v in given.items() if v is not None})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        wire = ANNOTATION_ALIASES.get(name, name)
        hints: Dict[str, Any] = object.__getattribute__(self, "_hints")
        if wire in hints or wire in _KNOWN_HINTS:
            return hints.get(wire)
        raise AttributeError(f"ToolAnnotations has no hint {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ToolAnnotations is immutable; make a new one")

    def model_dump(self, *, by_alias: bool = True, exclude_none: bool = True, **_: Any) -> Dict[str, Any]:
        """The hints as a dict: camelCase keys (snake_case with ``by_alias=False``); set
        hints only unless ``exclude_none=False``."""
        hints = dict(self._hints)
        if not exclude_none:
            hints = {**{k: None for k in _KNOWN_HINTS}, **hints}
        if not by_alias:
            snake = {v: k for k, v in ANNOTATION_ALIASES.items()}
            hints = {snake.get(k, k): v for k, v in hints.items()}
        return hints

    def to_dict(self) -> Dict[str, Any]:
        """The wire dict (camelCase, set hints only)."""
        return dict(self._hints)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ToolAnnotations):
            return self._hints == other._hints
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self._hints.items())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._hints.items())
        return f"ToolAnnotations({inner})"

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]:
        return (_annotations_from_wire, (dict(self._hints),))


def _annotations_from_wire(hints: Dict[str, Any]) -> ToolAnnotations:
    return ToolAnnotations(**hints)


_KNOWN_HINTS = (
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "maxResultSizeChars",
)


def _either(wire: Any, snake: Any) -> Any:
    return wire if wire is not None else snake


def _check_hints(given: Dict[str, Any]) -> None:
    """Raises TypeError naming the first hint of the wrong type."""
    for key, value in given.items():
        if value is None:
            continue
        if key == "title":
            if not isinstance(value, str):
                raise TypeError(f"ToolAnnotations: title must be a str, not {value!r}")
        elif key == "maxResultSizeChars":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TypeError(
                    f"ToolAnnotations: maxResultSizeChars must be a non-negative int, not {value!r}"
                )
        elif not isinstance(value, bool):
            raise TypeError(f"ToolAnnotations: {key} must be a bool, not {value!r}")
