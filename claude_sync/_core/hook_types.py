"""Hook types: ``HookMatcher``, what a hook callback gets, and the hook input shapes (pure data).

``HookMatcher`` is built once per session, so it is a record (cheap to define, see
``record``); ``HookContext`` is built per call and keeps ``@dataclass``'s ``__init__``. The
registry and the adapters between these and the wire are in ``hooks``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, TypedDict

from .permission_types import CancellationSignal
from .record import Record, record

__all__ = [
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookMatcher",
    "KNOWN_HOOK_EVENTS",
]

HookEvent = str
"""Any hook event name the CLI knows (2.1.197 knows 30; see ``KNOWN_HOOK_EVENTS``)."""

KNOWN_HOOK_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
    "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop",
    "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
)  # fmt: skip


@dataclass
class HookContext:
    """Passed to every hook callback. ``signal`` is set when the CLI cancels the request."""

    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    callback_id: Optional[str] = None


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


class BaseHookInput(TypedDict, total=False):
    session_id: str
    transcript_path: str
    cwd: str
    prompt_id: str
    hook_event_name: str
    permission_mode: str
    effort: Dict[str, Any]


class PreToolUseHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    tool_use_id: str


class PostToolUseHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    tool_response: Any
    tool_use_id: str
    duration_ms: float


class PostToolBatchHookInput(BaseHookInput, total=False):
    tool_calls: List[Dict[str, Any]]


class PermissionRequestHookInput(BaseHookInput, total=False):
    tool_name: str
    tool_input: Dict[str, Any]
    permission_suggestions: List[Dict[str, Any]]


class UserPromptSubmitHookInput(BaseHookInput, total=False):
    prompt: str


class StopHookInput(BaseHookInput, total=False):
    stop_hook_active: bool
    last_assistant_message: Any
    background_tasks: Any
    session_crons: Any


class SubagentStartHookInput(BaseHookInput, total=False):
    agent_id: str
    agent_type: str


class SubagentStopHookInput(SubagentStartHookInput, total=False):
    agent_transcript_path: str
    last_assistant_message: Any


class PreCompactHookInput(BaseHookInput, total=False):
    trigger: str
    custom_instructions: Optional[str]


class PostCompactHookInput(BaseHookInput, total=False):
    compact_summary: str


class MessageDisplayHookInput(BaseHookInput, total=False):
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str
