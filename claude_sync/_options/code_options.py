"""``ClaudeCodeOptions``: the options of the old ``claude_code_sdk``, with that SDK's defaults.

The old SDK passed no system prompt flag unless asked, so the CLI ran with Claude Code's own
full system prompt (measured against the fake API: 5,828 characters on CLI 2.1.197, 7,167 on
2.1.331); ``ClaudeAgentOptions`` defaults to the short SDK prompt instead (136). A bare alias
would silently change what old programs tell the model, so ``ClaudeCodeOptions`` keeps the
old meaning and warns (``DeprecationWarning``) with what to write instead:

==============================================  ===========================================
``ClaudeCodeOptions(...)``                      ``ClaudeAgentOptions(system_prompt=...)``
==============================================  ===========================================
no ``system_prompt``                            ``{"type": "preset", "preset": "claude_code"}``
``append_system_prompt=Y``                      the preset with ``"append": Y``
``system_prompt=X``                             ``X``
``system_prompt=X, append_system_prompt=Y``     ``X + "\\n\\n" + Y`` (what the CLI makes of the
                                                old ``--system-prompt X
                                                --append-system-prompt Y``)
==============================================  ===========================================

Every other field is ``ClaudeAgentOptions``'s.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Dict, Optional

from .options import ClaudeAgentOptions

__all__ = ["ClaudeCodeOptions", "old_system_prompt"]

CLAUDE_CODE_PRESET: Dict[str, str] = {"type": "preset", "preset": "claude_code"}


def old_system_prompt(system_prompt: Any, append_system_prompt: Optional[str]) -> Any:
    """The ``ClaudeAgentOptions.system_prompt`` that means what the old SDK's pair meant
    (see the module table). Raises ``TypeError`` for an ``append_system_prompt`` that is not
    a str."""
    if append_system_prompt is not None and not isinstance(append_system_prompt, str):
        raise TypeError(f"append_system_prompt must be a str, got {type(append_system_prompt).__name__}")
    if system_prompt is None:
        preset: Dict[str, Any] = dict(CLAUDE_CODE_PRESET)
        if append_system_prompt:
            preset["append"] = append_system_prompt
        return preset
    if append_system_prompt and isinstance(system_prompt, str):
        return f"{system_prompt}\n\n{append_system_prompt}"
    if append_system_prompt:
        raise TypeError("append_system_prompt goes with a str system_prompt (or none); put it in the preset's 'append'")
    return system_prompt


def _advice(system_prompt: Any) -> str:
    shown = repr(system_prompt)
    shown = shown if len(shown) <= 100 else "..."
    return (
        "ClaudeCodeOptions is the old claude_code_sdk name; write "
        f"ClaudeAgentOptions(system_prompt={shown}) instead (ClaudeAgentOptions alone gives the "
        "model a short SDK prompt, not Claude Code's; the preset keeps Claude Code's, and its "
        "'append' replaces append_system_prompt)"
    )


class _Signature:
    """``inspect.signature(ClaudeCodeOptions)``: the fields, keyword-only, and
    ``append_system_prompt`` (for ``help()`` and completion)."""

    def __get__(self, instance: Any, owner: type) -> Any:
        keyword = inspect.Parameter.KEYWORD_ONLY
        fields = [p.replace(kind=keyword) for p in inspect.signature(ClaudeAgentOptions).parameters.values()]
        extra = inspect.Parameter("append_system_prompt", keyword, default=None, annotation="Optional[str]")
        return inspect.Signature([*fields, extra])


class ClaudeCodeOptions(ClaudeAgentOptions):
    """Deprecated: the old ``claude_code_sdk`` options with that SDK's defaults (Claude Code's
    full system prompt unless ``system_prompt`` is given; ``append_system_prompt`` added to
    it). Keyword arguments only; every other field is ``ClaudeAgentOptions``'s. Warns
    (``DeprecationWarning``) with the ``ClaudeAgentOptions`` to write instead."""

    __signature__: Any = _Signature()

    def __init__(self, *args: Any, append_system_prompt: Optional[str] = None, **kwargs: Any) -> None:
        if args:
            raise TypeError("ClaudeCodeOptions() takes keyword arguments only (its old field order is not ours)")
        system_prompt = old_system_prompt(kwargs.pop("system_prompt", None), append_system_prompt)
        warnings.warn(_advice(system_prompt), DeprecationWarning, stacklevel=2)
        super().__init__(system_prompt=system_prompt, **kwargs)
