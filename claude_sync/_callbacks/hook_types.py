"""Hook types: ``HookMatcher``, what a hook callback gets, the event names (pure data).

``HookMatcher`` is built once per session, so it is a record (cheap to define, see
``record``); ``HookContext`` is built per call and keeps ``@dataclass``'s ``__init__``. The
adapters between these and the wire are in ``hooks``; the registry of the options' hooks in
``claude_sync._options.hook_registry``.
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
that one lists 10 of the CLI's 34 events, so it would reject valid hooks in type checks."""

KNOWN_HOOK_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup",
    "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
    "ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged",
    "FileChanged", "DirectoryAdded", "MessageDisplay", "PreSkillShellCommand",
)  # fmt: skip
"""The 34 hook events of CLI 2.1.332, in its order (2.1.330 and 2.1.331 know 33: not
``PreSkillShellCommand``; 2.1.197 knows 30: not ``PreModelSwitch``, ``PostModelSwitch``,
``DirectoryAdded`` either). A CLI does not call a hook for an event it does not know: such a hook
is registered without error and never fires. Typed inputs: ``hook_inputs``; outputs: ``hook_outputs``."""


@dataclass
class HookContext(Mapping[str, Any]):
    """Passed to every hook callback. ``signal`` is set when the CLI cancels the request.

    Also readable as the official SDK's dict: ``context["signal"]``, ``context.get(...)``,
    ``dict(context)`` (keys ``signal``, ``request_id``, ``callback_id``).

    Attributes:
        signal: Set when the CLI cancels the request (the hook's ``timeout`` expired,
            ``interrupt()``, ``close()``).
        request_id: The control request's id.
        callback_id: The id the CLI knows this hook function by.
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
"""The type of a hook function: ``(hook_input: dict, tool_use_id: str | None, context: HookContext) ->
dict | None``, run on the callback pool. It returns the CLI's hook output (``continue_``/``async_``
are written ``continue``/``async``) or None for ``{}``."""


@record
class HookMatcher(Record):
    """Hooks for one event: ``matcher`` filters tool names (regex / ``|`` list; None = all).

    ``timeout`` is in seconds and is enforced by the CLI: on expiry it cancels the request
    and, for tool hooks, denies the tool. Without it the CLI waits 600 s.

    Attributes:
        matcher: Which tool names the hooks run for: a regex or a ``|`` list (``"Write|Edit"``);
            None for all (and for events without tools).
        hooks: The hook functions, called in order: ``(hook_input, tool_use_id, context) -> dict |
            None``.
        timeout: Seconds the CLI waits for each hook before cancelling it (and, for tool hooks,
            denying the tool); None: the CLI's 600 s.
        on_failure: What the CLI does when a hook fails (raises, times out, answers badly):
            ``"continue"`` as if it had not run, ``"block"`` fail closed (the tool or event is
            blocked). Connecting with ``"block"`` raises ``CLIConnectionError`` if the CLI cannot
            honour it. None: the CLI's default (continue).
        observes_only: ``Stop`` only: True says these hooks only take note of the turn's end
            (they always answer ``{}``), so when one misses ``timeout`` the CLI writes no "the
            host didn't respond" notice into the transcript. The CLI still calls them and waits
            up to ``timeout``. CLI 2.1.333+ (internal there; TS runtime ``observesOnly``); an
            older CLI ignores it and writes the notice, and connecting then logs a warning.
            ``ValueError`` at connect for another event. None: not sent.
    """

    matcher: Optional[str] = None
    hooks: List[HookCallback] = field(default_factory=list)
    timeout: Optional[float] = None
    on_failure: Optional[Literal["continue", "block"]] = None
    observes_only: Optional[bool] = None
