"""Hook types: ``HookMatcher``, what a hook callback gets, the event names (pure data).

``HookMatcher`` is built once per session, so it is a record (cheap to define, see
``record``); ``HookContext`` is built per call and keeps ``@dataclass``'s ``__init__``. The
registry and the adapters between these and the wire are in ``hooks``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional

from .._wire.record import Record, record
from .permission_types import CancellationSignal

__all__ = [
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookMatcher",
    "KNOWN_HOOK_EVENTS",
]

HookEvent = str
"""Any hook event name (see ``KNOWN_HOOK_EVENTS``). A ``str``, not the official ``Literal``:
that one lists 10 of the CLI's 33 events, so it would reject valid hooks in type checks."""

KNOWN_HOOK_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup",
    "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
    "ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged",
    "FileChanged", "DirectoryAdded", "MessageDisplay",
)  # fmt: skip
"""The 33 hook events of CLI 2.1.330, in its order (2.1.197 knows 30: not ``PreModelSwitch``,
``PostModelSwitch``, ``DirectoryAdded``). Typed inputs: ``hook_inputs``; outputs: ``hook_outputs``."""


@dataclass
class HookContext(Mapping[str, Any]):
    """Passed to every hook callback. ``signal`` is set when the CLI cancels the request.

    Also readable as the official SDK's dict: ``context["signal"]``, ``context.get(...)``,
    ``dict(context)`` (keys ``signal``, ``request_id``, ``callback_id``).
    """

    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    callback_id: Optional[str] = None

    def __getitem__(self, key: str) -> Any:
        if key not in _HOOK_CONTEXT_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_HOOK_CONTEXT_KEYS)

    def __len__(self) -> int:
        return len(_HOOK_CONTEXT_KEYS)


_HOOK_CONTEXT_KEYS = ("signal", "request_id", "callback_id")


HookCallback = Callable[[Dict[str, Any], Optional[str], HookContext], Optional[Dict[str, Any]]]


@record
class HookMatcher(Record):
    """Hooks for one event: ``matcher`` filters tool names (regex / ``|`` list; None = all).

    ``timeout`` is in seconds and is enforced by the CLI: on expiry it cancels the request
    and, for tool hooks, denies the tool. Without it the CLI waits 600 s.
    """

    matcher: Optional[str] = None
    hooks: List[HookCallback] = field(default_factory=list)
    timeout: Optional[float] = None
    on_failure: Optional[Literal["continue", "block"]] = None
    """What the CLI does when a hook fails (raises, times out, answers badly): ``"continue"``
    as if it had not run, ``"block"`` fail closed (the tool / event is blocked). Connecting
    with ``"block"`` raises ``CLIConnectionError`` if the CLI cannot honour it."""
