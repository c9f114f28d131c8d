"""Immutable ``system`` message types: ``SystemMessage`` and its subclasses by ``subtype``.

The rules every message class follows are in the ``messages`` docstring.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field, fields
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Type

from .blocks import WireRecord, wire_field
from .record import construct, frozen_record

if TYPE_CHECKING:  # pragma: no cover
    from datetime import datetime

__all__ = [
    "TimestampedMessage",
    "written_at_of",
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
    "CommandsChangedMessage",
    "ThinkingTokensMessage",
    "MirrorErrorMessage",
    "SessionStateChangedMessage",
    "OversizedLineSkipped",
    "OVERSIZED_LINE_SUBTYPE",
    "SYSTEM_CLASSES",
]


def written_at_of(raw: Dict[str, Any]) -> Optional[datetime]:
    """The wire dict's ``written_at`` (CLI 2.1.333+: when the CLI wrote the line, its
    ``Date.toISOString()``: ``"2026-11-30T17:08:29.123Z"``) as an aware UTC ``datetime``; None
    when the line has none (older CLIs, and lines the CLI stamps otherwise). Raises
    ``ValueError`` naming the value when it is not an ISO 8601 time with a zone."""
    value = raw.get("written_at") if type(raw) is dict else None
    if value is None:
        return None
    from datetime import datetime  # on Python 3.9 it loads math: not at import time

    if type(value) is not str:
        raise ValueError(f"written_at is not an ISO 8601 time: {value!r}")
    try:
        moment = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        raise ValueError(f"written_at is not an ISO 8601 time: {value!r}") from None
    if moment.tzinfo is None:
        raise ValueError(f"written_at has no time zone: {value!r}")
    return moment


class TimestampedMessage(WireRecord):
    """Base of every message class: ``written_at``, read from ``raw`` when asked for (the
    parser never looks at it, so the per-line path pays nothing for it)."""

    __slots__ = ()

    @property
    def written_at(self) -> Optional[datetime]:
        """When the CLI wrote this line (``written_at``, CLI 2.1.333+), an aware UTC
        ``datetime``; None when the line has none (CLI 2.1.197 never sends it). Parsed on each
        access; raises ``ValueError`` when the CLI sent something that is not such a time
        (``raw["written_at"]`` still has it)."""
        return written_at_of(self.raw)  # type: ignore[attr-defined]  # every subclass has raw


@frozen_record
class SystemMessage(WireRecord):
    """A ``system`` line. ``data`` (also ``.raw``) is the whole wire dict.

    Known subtypes get a subclass with typed fields; any other subtype stays a plain
    ``SystemMessage``, so ``isinstance(m, SystemMessage)`` matches them all. ``system/init``
    is a plain ``SystemMessage`` too, exactly as in the official SDK (code that checks
    ``type(m).__name__ == "SystemMessage"`` holds); its typed fields are ``m.init``.

    Attributes:
        type: ``"system"``.
        subtype: The wire ``subtype`` (``init``, ``status``, ``api_retry`` … or one claude_sync does
            not model).
        data: The whole wire dict (also ``raw``), as in the official SDK.
    """

    type: str = field(default="system", init=False, repr=False, compare=False)
    subtype: str
    data: Dict[str, Any]

    @property
    def written_at(self) -> Optional[datetime]:
        """When the CLI wrote this line (``written_at``, CLI 2.1.333+), as
        ``TimestampedMessage.written_at``. Its own (SystemMessage is not a
        ``TimestampedMessage``), so its subclasses show it as SystemMessage's: Sphinx < 8 stops
        its ``:inherited-members:`` walk at the first documented base."""
        return written_at_of(self.data)

    @property
    def raw(self) -> Dict[str, Any]:
        """The wire dict (the same object as ``data``)."""
        return self.data

    @property
    def init(self) -> Optional[SystemInitMessage]:
        """For ``subtype == "init"``: the session metadata as a typed ``SystemInitMessage``
        (``m.init.model``, ``m.init.tools`` …), read from ``data`` on each access; None for
        any other subtype."""
        if self.subtype != "init":
            return None
        if isinstance(self, SystemInitMessage):
            return self
        return SystemInitMessage.of(self.data)


@frozen_record
class SystemInitMessage(SystemMessage):
    """The typed view of a ``system/init`` message: session metadata. The CLI sends one
    before every turn (2.1.197: not at connect).

    The stream yields init as a plain ``SystemMessage`` (as the official SDK does); its
    ``.init`` property returns this view, and ``SystemInitMessage.of(data)`` builds one from
    an init wire dict. ``subtype`` and ``data`` are those of the message it was read from.

    Attributes:
        session_id: The session this line belongs to.
        uuid: The id of this line.
        cwd: The CLI's working directory.
        model: The model the session uses.
        tools: The names of the tools the model may call (built-in and ``mcp__<server>__<tool>``).
        mcp_servers: Each MCP server's ``name`` and connection ``status`` (``SystemInitMcpServer``
            dicts).
        permission_mode: The permission mode in force (``permissionMode``).
        slash_commands: The slash commands the session knows.
        terminal_slash_commands: The slash commands among them that only make sense in a terminal
            (``exit``, ``statusline`` …; newer CLIs, absent when there are none).
        api_key_source: Where the CLI's credentials come from (``apiKeySource``: ``none``,
            ``ANTHROPIC_API_KEY`` …).
        claude_code_version: The CLI's version.
        output_style: The output style in force.
        agents: The subagents the session can start.
        skills: The skills the session has loaded.
        plugins: The plugins the session has loaded (``SystemInitPlugin`` dicts).
        plugin_errors: The plugins that failed to load: dicts with ``plugin``, ``type``, ``message``
            and, when a plugin directory did not load at all, ``path`` (newer CLIs; absent when none
            failed).
        betas: The API beta names in force (``ClaudeAgentOptions.betas``).
        capabilities: Protocol features this CLI supports, by name (e.g. ``interrupt_receipt_v1``),
            to detect a feature instead of comparing versions (newer CLIs).
        fast_mode_state: ``off``, ``cooldown`` or ``on`` (newer CLIs).
        fast_mode_disabled_reason: Why fast mode is not available (``not_first_party``,
            ``disabled_by_env``, ``model_not_allowed`` …; newer CLIs).
        code_mode: True when this turn runs in Claude Desktop's Code Mode (CLI 2.1.333+, which
            marks it internal; None otherwise and on older CLIs).
        mcp_servers_denied_by_name: The MCP servers (``{"name", "scope"}`` dicts) that the
            desktop app's ``deniedMcpServers`` refuses by name (CLI 2.1.333+, internal: only in
            a session the desktop app's Code tab started; None otherwise).
        mcp_servers_left_out_by_lock: The MCP servers (``{"name", "scope"}`` dicts) managed
            settings' ``strictPluginOnlyCustomization`` leaves out (CLI 2.1.333+, internal, as
            above; None otherwise).
    """

    session_id: Optional[str] = None
    uuid: Optional[str] = None
    cwd: Optional[str] = None
    model: Optional[str] = None
    tools: Optional[List[str]] = None
    mcp_servers: Optional[List[Dict[str, Any]]] = None
    permission_mode: Optional[str] = wire_field("permissionMode")
    slash_commands: Optional[List[str]] = None
    terminal_slash_commands: Optional[List[str]] = None
    api_key_source: Optional[str] = wire_field("apiKeySource")
    claude_code_version: Optional[str] = None
    output_style: Optional[str] = None
    agents: Optional[List[Any]] = None
    skills: Optional[List[Any]] = None
    plugins: Optional[List[Any]] = None
    plugin_errors: Optional[List[Any]] = None
    betas: Optional[List[str]] = None
    capabilities: Optional[List[str]] = None
    fast_mode_state: Optional[str] = None
    fast_mode_disabled_reason: Optional[str] = None
    code_mode: Optional[bool] = None
    mcp_servers_denied_by_name: Optional[List[Dict[str, Any]]] = None
    mcp_servers_left_out_by_lock: Optional[List[Dict[str, Any]]] = None

    @classmethod
    def of(cls, data: Dict[str, Any]) -> SystemInitMessage:
        """The typed view of a ``system/init`` wire dict (``SystemMessage.data``); a key the
        dict lacks is None. Raises ``TypeError`` if ``data`` is not a dict."""
        if not isinstance(data, dict):
            raise TypeError(f"SystemInitMessage.of() needs the init wire dict, got {type(data).__name__}")
        attrs: Dict[str, Any] = {"subtype": "init", "data": data}
        for name, key in _init_wire_keys():
            attrs[name] = data.get(key)
        return construct(cls, attrs)


_INIT_KEYS: List[Tuple[str, str]] = []


def _init_wire_keys() -> List[Tuple[str, str]]:
    """(field name, wire key) of every typed field of ``SystemInitMessage``, computed once."""
    if not _INIT_KEYS:
        _INIT_KEYS.extend(
            (spec.name, spec.metadata.get("wire", spec.name))
            for spec in fields(SystemInitMessage)
            if spec.init and spec.name not in ("subtype", "data")
        )
    return _INIT_KEYS


@frozen_record
class StatusMessage(SystemMessage):
    """``system/status``: ``status`` is ``"requesting"``, ``"compacting"`` or None.

    Also sent after ``set_permission_mode`` (``permission_mode``) and after ``/compact``
    (``compact_result`` ``"success"``/``"failed"``, ``compact_error``).

    Attributes:
        status: ``"requesting"``, ``"compacting"`` or None.
        permission_mode: The new permission mode, after ``set_permission_mode``
            (``permissionMode``).
        compact_result: ``"success"`` or ``"failed"`` after ``/compact``.
        compact_error: Why compacting failed.
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    status: Optional[str] = None
    permission_mode: Optional[str] = wire_field("permissionMode")
    compact_result: Optional[str] = None
    compact_error: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class APIRetryMessage(SystemMessage):
    """``system/api_retry``: an API call failed and will be retried after a delay.

    Attributes:
        attempt: Which retry this is (1 for the first).
        max_retries: How many retries the CLI will make in all (``CLAUDE_CODE_MAX_RETRIES``).
        retry_delay_ms: How long the CLI waits before this retry, in milliseconds.
        error_status: The HTTP status of the failed call (None when no response came).
        error: What failed, in the CLI's words.
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    attempt: Optional[int] = None
    max_retries: Optional[int] = None
    retry_delay_ms: Optional[float] = None
    error_status: Optional[int] = None
    error: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class CompactBoundaryMessage(SystemMessage):
    """``system/compact_boundary``: history before this point was compacted.

    Attributes:
        compact_metadata: What the CLI says about the compaction (its ``trigger`` and the token
            count before it).
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    compact_metadata: Optional[Dict[str, Any]] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class TaskStartedMessage(SystemMessage):
    """``system/task_started``: a subagent or background task began.

    Attributes:
        task_id: The task's id (the key of its later progress and notification lines).
        description: What the task does, in a few words.
        uuid: The id of this line.
        session_id: The session this line belongs to.
        tool_use_id: The tool call that started the task.
        task_type: The kind of task (a subagent, a background shell …).
        subagent_type: The subagent's type, for a subagent task.
        prompt: The prompt the subagent was given.
    """

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
    """``system/task_progress``: a running task's usage so far.

    Attributes:
        task_id: The task's id.
        description: What the task does.
        usage: Its usage so far (a ``TaskUsage`` dict: tokens, tool uses, duration).
        uuid: The id of this line.
        session_id: The session this line belongs to.
        tool_use_id: The tool call that started the task.
        last_tool_name: The tool the task used last.
    """

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

    Attributes:
        task_id: The task's id.
        patch: The task fields that changed, as the CLI sends them (``{}`` when the wire's
            ``patch`` is missing or not an object, as in the official SDK).
        status: ``patch["status"]`` when present (``pending``, ``running``, ``completed``,
            ``failed``, ``killed`` …).
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    task_id: Optional[str] = None
    patch: Optional[Dict[str, Any]] = None
    status: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class TaskNotificationMessage(SystemMessage):
    """``system/task_notification``: a task ended (``completed``, ``failed``, ``stopped``).

    Attributes:
        task_id: The task's id.
        status: ``completed``, ``failed`` or ``stopped``.
        output_file: The file holding the task's output, when it wrote one.
        summary: The task's summary of what it did.
        uuid: The id of this line.
        session_id: The session this line belongs to.
        tool_use_id: The tool call that started the task.
        usage: What the task used (a ``TaskUsage`` dict).
        waiting_on_agents: True when a subagent has not ended: it finished a turn and waits for
            agents it started or resumed, so ``summary`` is not its result (CLI 2.1.333+, which
            marks it internal and sends it only as true, with ``status`` ``completed``; None
            otherwise and on older CLIs).
    """

    task_id: Optional[str] = None
    status: Optional[str] = None
    output_file: Optional[str] = None
    summary: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    tool_use_id: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None
    waiting_on_agents: Optional[bool] = None


@frozen_record
class HookEventMessage(SystemMessage):
    """A hook lifecycle line (sent with ``include_hook_events``): ``system/hook_started`` and
    ``system/hook_response`` arrive as exactly this class, as in the official SDK (a check of
    ``type(m).__name__`` holds). ``system/hook_progress`` arrives as a plain ``SystemMessage``,
    also as there (its output is in ``data``).

    Today's finer names still match by ``isinstance``: ``HookStartedMessage``,
    ``HookResponseMessage`` (a ``HookEventMessage`` of that subtype) and
    ``HookProgressMessage`` (a ``SystemMessage`` of subtype ``hook_progress``).

    Attributes:
        hook_event_name: The hook event (``PreToolUse``, ``Stop`` …): the first non-empty of the
            wire's ``hook_event``, ``hook_name``, ``hook_event_name``, else ``""`` (as the
            official SDK).
        session_id: The session this line belongs to.
        uuid: The id of this line.
        hook_id: The id of this hook run (shared by its started, progress and response lines).
        hook_name: The hook's name, as the CLI shows it.
        output: A finished hook's combined output (``hook_response``; else None).
        stdout: What it printed on stdout (``hook_response``; else None).
        stderr: What it printed on stderr (``hook_response``; else None).
        exit_code: The hook command's exit status (None for a callback hook).
        outcome: ``success``, ``error`` or ``cancelled`` (``hook_response``; else None).
    """

    hook_event_name: str = wire_field("hook_event", "")
    session_id: Optional[str] = None
    uuid: Optional[str] = None
    hook_id: Optional[str] = None
    hook_name: Optional[str] = None
    output: Optional[str] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    exit_code: Optional[int] = None
    outcome: Optional[str] = None


class _SubtypeView(type(HookEventMessage)):  # type: ignore[misc]
    """Metaclass of the per-subtype hook names: ``isinstance(m, C)`` also holds for a decoded
    message of ``C._view_of`` whose ``subtype`` is ``C._view_subtype`` (the official SDK decodes
    all of them into one class; these names keep today's ``isinstance`` checks working)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if type.__instancecheck__(cls, instance):
            return True
        view_of = cls.__dict__.get("_view_of")
        return view_of is not None and isinstance(instance, view_of) and instance.subtype == cls._view_subtype


@frozen_record
class HookStartedMessage(HookEventMessage, metaclass=_SubtypeView):
    """``system/hook_started`` — a hook began running. Decoded as a ``HookEventMessage``;
    ``isinstance(m, HookStartedMessage)`` holds for it."""

    _view_of = HookEventMessage
    _view_subtype = "hook_started"


@frozen_record
class HookProgressMessage(HookEventMessage, metaclass=_SubtypeView):
    """``system/hook_progress`` — output a running hook has produced so far. Decoded as a plain
    ``SystemMessage`` (as in the official SDK: read ``m.data["stdout"]``, ``["stderr"]``,
    ``["output"]``); ``isinstance(m, HookProgressMessage)`` holds for it."""

    _view_of = SystemMessage
    _view_subtype = "hook_progress"


@frozen_record
class HookResponseMessage(HookEventMessage, metaclass=_SubtypeView):
    """``system/hook_response`` — a hook finished (``outcome``: success, error, cancelled).
    Decoded as a ``HookEventMessage``; ``isinstance(m, HookResponseMessage)`` holds for it."""

    _view_of = HookEventMessage
    _view_subtype = "hook_response"


@frozen_record
class InformationalMessage(SystemMessage):
    """``system/informational``: a notice, e.g. a UserPromptSubmit hook blocked the prompt.

    Attributes:
        content: The notice's text.
        level: Its level (``info``, ``warning`` …).
        prevent_continuation: Whether the notice stopped the turn (e.g. a hook blocked the prompt).
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    content: Optional[str] = None
    level: Optional[str] = None
    prevent_continuation: Optional[bool] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class CommandsChangedMessage(SystemMessage):
    """``system/commands_changed``: the session's slash commands and skills changed (a skill
    appeared, ``reload_skills`` …); ``commands`` is the whole new list, and
    ``supported_commands`` follows it from then on.

    Attributes:
        commands: Every command now (``{"name", "description", "argumentHint"}`` dicts).
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    commands: Optional[List[Dict[str, Any]]] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class ThinkingTokensMessage(SystemMessage):
    """``system/thinking_tokens``: a live estimate of thinking tokens while streaming.

    Attributes:
        estimated_tokens: The estimated thinking tokens of the current message so far.
        estimated_tokens_delta: The estimate's change since the previous line.
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    estimated_tokens: Optional[int] = None
    estimated_tokens_delta: Optional[int] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class SessionStateChangedMessage(SystemMessage):
    """``system/session_state_changed`` (CLI 2.1.330): ``state`` is ``running``, ``idle`` or
    ``requires_action``. Frames with ``sdk_host_only`` exist only because we set
    ``CLAUDE_CODE_SDK_READS_SESSION_STATE`` (as the official SDK does): the session's run-end
    bookkeeping keeps their state (``RunEnd.state``) and never delivers them; the others (asked for
    with ``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS``) are delivered.

    Attributes:
        state: ``running``, ``idle`` or ``requires_action``.
        sdk_host_only: Whether the frame was meant for the SDK host only (never delivered).
        session_id: The session this line belongs to.
        uuid: The id of this line.
    """

    state: Optional[str] = None
    sdk_host_only: bool = False
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@frozen_record
class MirrorErrorMessage(SystemMessage):
    """``system/mirror_error``: copying the transcript to the ``session_store`` failed for
    ``key`` (a ``SessionKey`` dict); the session itself goes on. Made by the SDK, not the CLI.

    Attributes:
        key: The ``SessionKey`` dict of the transcript that could not be copied.
        error: What the store raised, as text.
    """

    key: Optional[Dict[str, Any]] = None
    error: str = ""


OVERSIZED_LINE_SUBTYPE = "oversized_line_skipped"


@frozen_record
class OversizedLineSkipped(SystemMessage):
    """Stands in the message stream where a stdout line over ``max_buffer_size`` was skipped
    (``system/oversized_line_skipped``, made by the SDK, not the CLI — so every item of a
    stream is a ``Message``). ``size`` is the line's length in bytes, ``limit`` the cap,
    ``prefix`` its first bytes (decoded leniently). The line itself is gone; the session went
    on. Build one with ``OversizedLineSkipped.of(size, limit, prefix)``.

    Attributes:
        size: The skipped line's length in bytes.
        limit: The cap it went over (``ClaudeAgentOptions.max_buffer_size``), in bytes.
        prefix: The line's first bytes, decoded leniently (undecodable bytes replaced).
    """

    size: int = 0
    limit: int = 0
    prefix: str = ""

    @classmethod
    def of(cls, size: int, limit: int, prefix: str) -> OversizedLineSkipped:
        """The marker for a skipped line, with its ``data`` (the dict a wire line would be)."""
        data = {"type": "system", "subtype": OVERSIZED_LINE_SUBTYPE, "size": size, "limit": limit, "prefix": prefix}
        return cls(subtype=OVERSIZED_LINE_SUBTYPE, data=data, size=size, limit=limit, prefix=prefix)


SYSTEM_CLASSES: Dict[str, Type[SystemMessage]] = {
    "status": StatusMessage,
    "api_retry": APIRetryMessage,
    "compact_boundary": CompactBoundaryMessage,
    "task_started": TaskStartedMessage,
    "task_progress": TaskProgressMessage,
    "task_updated": TaskUpdatedMessage,
    "task_notification": TaskNotificationMessage,
    "hook_started": HookEventMessage,  # as in the official SDK; hook_progress: a plain SystemMessage
    "hook_response": HookEventMessage,
    "informational": InformationalMessage,
    "commands_changed": CommandsChangedMessage,
    "thinking_tokens": ThinkingTokensMessage,
    "mirror_error": MirrorErrorMessage,
    "session_state_changed": SessionStateChangedMessage,
    OVERSIZED_LINE_SUBTYPE: OversizedLineSkipped,
}
"""System ``subtype`` → subclass; other subtypes (``init`` among them, as in the official SDK)
are plain ``SystemMessage``."""

