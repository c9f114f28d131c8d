"""Immutable ``system`` message types: ``SystemMessage`` and its subclasses by ``subtype``.

The rules every message class follows are in the ``messages`` docstring.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Type

from .blocks import WireRecord, wire_field
from .record import frozen_record

__all__ = [
    "SystemMessage",
    "SystemInitMessage",
    "StatusMessage",
    "APIRetryMessage",
    "CompactBoundaryMessage",
    "TaskStartedMessage",
    "TaskProgressMessage",
    "TaskUpdatedMessage",
    "TaskNotificationMessage",
    "HookEventMessage",
    "HookStartedMessage",
    "HookProgressMessage",
    "HookResponseMessage",
    "InformationalMessage",
    "ThinkingTokensMessage",
    "MirrorErrorMessage",
    "SessionStateChangedMessage",
    "SYSTEM_CLASSES",
]


@frozen_record
class SystemMessage(WireRecord):
    """A ``system`` line. ``data`` (also ``.raw``) is the whole wire dict.

    Known subtypes get a subclass with typed fields; any other subtype stays a plain
    ``SystemMessage``, so ``isinstance(m, SystemMessage)`` matches them all.
    """

    type: str = field(default="system", init=False, repr=False, compare=False)
    subtype: str
    data: Dict[str, Any]

    @property
    def raw(self) -> Dict[str, Any]:
        """The wire dict (the same object as ``data``)."""
        return self.data


@frozen_record
class SystemInitMessage(SystemMessage):
    """``system/init``: session metadata. The CLI 2.1.197 sends one before every turn (not at connect)."""

    session_id: Optional[str] = None
    uuid: Optional[str] = None
    cwd: Optional[str] = None
    model: Optional[str] = None
    tools: Optional[List[str]] = None
    mcp_servers: Optional[List[Dict[str, Any]]] = None
    permission_mode: Optional[str] = wire_field("permissionMode")
    slash_commands: Optional[List[str]] = None
    api_key_source: Optional[str] = wire_field("apiKeySource")
    claude_code_version: Optional[str] = None
    output_style: Optional[str] = None
    agents: Optional[List[Any]] = None
    skills: Optional[List[Any]] = None
    plugins: Optional[List[Any]] = None
    fast_mode_state: Optional[str] = None


@frozen_record
class StatusMessage(SystemMessage):
    """``system/status``: ``status`` is ``"requesting"``, ``"compacting"`` or None.

    Also sent after ``set_permission_mode`` (``permission_mode``) and after ``/compact``
    (``compact_result`` ``"success"``/``"failed"``, ``compact_error``).
    """

    status: Optional[str] = None
    permission_mode: Optional[str] = wire_field("permissionMode")
    compact_result: Optional[str] = None
    compact_error: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class APIRetryMessage(SystemMessage):
    """``system/api_retry``: an API call failed and will be retried after a delay."""

    attempt: Optional[int] = None
    max_retries: Optional[int] = None
    retry_delay_ms: Optional[float] = None
    error_status: Optional[int] = None
    error: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class CompactBoundaryMessage(SystemMessage):
    """``system/compact_boundary``: history before this point was compacted."""

    compact_metadata: Optional[Dict[str, Any]] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class TaskStartedMessage(SystemMessage):
    """``system/task_started``: a subagent or background task began."""

    task_id: Optional[str] = None
    description: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    tool_use_id: Optional[str] = None
    task_type: Optional[str] = None
    subagent_type: Optional[str] = None
    prompt: Optional[str] = None


@frozen_record
class TaskProgressMessage(SystemMessage):
    """``system/task_progress``: a running task's usage so far."""

    task_id: Optional[str] = None
    description: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    tool_use_id: Optional[str] = None
    last_tool_name: Optional[str] = None


@frozen_record
class TaskUpdatedMessage(SystemMessage):
    """``system/task_updated``: ``patch`` holds the changed task fields.

    ``status`` is ``patch["status"]`` when present (``completed``, ``failed``, ``killed`` …).
    """

    task_id: Optional[str] = None
    patch: Optional[Dict[str, Any]] = None
    status: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class TaskNotificationMessage(SystemMessage):
    """``system/task_notification``: a task ended (``completed``, ``failed``, ``stopped``)."""

    task_id: Optional[str] = None
    status: Optional[str] = None
    output_file: Optional[str] = None
    summary: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    tool_use_id: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None


@frozen_record
class HookEventMessage(SystemMessage):
    """A hook lifecycle line (sent with ``include_hook_events``); see the three subclasses.

    ``hook_event_name`` is the wire ``hook_event`` (``PreToolUse``, ``Stop`` …).
    """

    hook_event_name: str = wire_field("hook_event", "")
    session_id: Optional[str] = None
    uuid: Optional[str] = None
    hook_id: Optional[str] = None
    hook_name: Optional[str] = None


@frozen_record
class HookStartedMessage(HookEventMessage):
    """``system/hook_started``: a hook began running."""


@frozen_record
class HookProgressMessage(HookEventMessage):
    """``system/hook_progress``: output a running hook has produced so far."""

    stdout: Optional[str] = None
    stderr: Optional[str] = None
    output: Optional[str] = None


@frozen_record
class HookResponseMessage(HookEventMessage):
    """``system/hook_response``: a hook finished (``outcome``: success, error, cancelled)."""

    output: Optional[str] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    exit_code: Optional[int] = None
    outcome: Optional[str] = None


@frozen_record
class InformationalMessage(SystemMessage):
    """``system/informational``: a notice, e.g. a UserPromptSubmit hook blocked the prompt."""

    content: Optional[str] = None
    level: Optional[str] = None
    prevent_continuation: Optional[bool] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class ThinkingTokensMessage(SystemMessage):
    """``system/thinking_tokens``: a live estimate of thinking tokens while streaming."""

    estimated_tokens: Optional[int] = None
    estimated_tokens_delta: Optional[int] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class SessionStateChangedMessage(SystemMessage):
    """``system/session_state_changed`` (CLI 2.1.330): ``state`` is ``running``, ``idle`` or
    ``requires_action``. Frames with ``sdk_host_only`` exist only because we set
    ``CLAUDE_CODE_SDK_READS_SESSION_STATE`` (as the official SDK does): the session keeps
    their state (``Session.session_state``) and never delivers them; the others (asked for
    with ``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS``) are delivered."""

    state: Optional[str] = None
    sdk_host_only: bool = False
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class MirrorErrorMessage(SystemMessage):
    """``system/mirror_error``: copying the transcript to the ``session_store`` failed for
    ``key`` (a ``SessionKey`` dict); the session itself goes on. Made by the SDK, not the CLI."""

    key: Optional[Dict[str, Any]] = None
    error: str = ""


SYSTEM_CLASSES: Dict[str, Type[SystemMessage]] = {
    "init": SystemInitMessage,
    "status": StatusMessage,
    "api_retry": APIRetryMessage,
    "compact_boundary": CompactBoundaryMessage,
    "task_started": TaskStartedMessage,
    "task_progress": TaskProgressMessage,
    "task_updated": TaskUpdatedMessage,
    "task_notification": TaskNotificationMessage,
    "hook_started": HookStartedMessage,
    "hook_progress": HookProgressMessage,
    "hook_response": HookResponseMessage,
    "informational": InformationalMessage,
    "thinking_tokens": ThinkingTokensMessage,
    "mirror_error": MirrorErrorMessage,
    "session_state_changed": SessionStateChangedMessage,
}
"""System ``subtype`` → subclass; other subtypes are plain ``SystemMessage``."""

