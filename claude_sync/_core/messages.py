"""Immutable message and content-block types (what iterating a stream yields).

Rules of this module:

* Every class is a ``@frozen_record``: messages cross threads, so they never change
  after the reader thread built them. Dict and list *values* (``usage``, ``raw`` …) are
  shared with the parsed JSON; treat them as read-only too.
* Every message and block keeps the wire dict it came from in ``.raw`` (``SystemMessage``:
  ``.raw`` is ``.data``, the whole wire dict, as in the official SDK). ``raw`` is left out
  of ``==`` and ``repr()``: two messages are equal when their modelled fields are, and a
  repr stays readable. The exceptions are ``UnknownMessage`` and ``UnknownBlock``, whose
  ``raw`` *is* their content, so there it counts for both.
* Field names follow the official ``claude-agent-sdk`` where the meaning is the same
  (``model_usage`` for the wire's ``modelUsage``, ``message_id`` for ``message.id`` …).
  Every class also has a ``type`` field (the wire ``type``: ``"assistant"``, ``"text"``,
  ``"web_search_tool_result"`` …). It is a constant of the class, not a constructor
  argument, except on the classes whose wire type varies (``UnknownMessage``,
  ``UnknownBlock``, ``ServerToolResultBlock``).
* Classes are ``frozen_record`` dataclasses (``_record.py``): immutable, with generic
  methods instead of generated ones, so defining ~40 of them stays cheap at import.
  The parser (``_parse.py``) does not call ``__init__`` at all (it checks arguments field
  by field, too slow for a per-line hot path); it uses ``construct(cls, attrs)``, which
  must receive every ``init`` field.
* ``to_dict()`` / ``to_json()`` / ``from_dict()`` / ``from_json()`` come from dataclasses-json,
  imported on first use only (see ``_serde.py``). ``type(m).from_dict(m.to_dict()) == m``
  for every class, nested blocks included; ``message_from_dict`` picks the class itself.

Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Type, TypeVar, Union

from .record import FrozenRecord, frozen_record
from .serde import SerdeMixin, decoder_metadata

__all__ = [
    # content blocks
    "TextBlock",
    "ThinkingBlock",
    "RedactedThinkingBlock",
    "ToolUseBlock",
    "ToolResultBlock",
    "ServerToolUseBlock",
    "ServerToolResultBlock",
    "ImageBlock",
    "UnknownBlock",
    "ContentBlock",
    # messages
    "UserMessage",
    "AssistantMessage",
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
    "ResultMessage",
    "StreamEvent",
    "RateLimitInfo",
    "RateLimitEvent",
    "PromptSuggestionMessage",
    "ToolProgressMessage",
    "AuthStatusMessage",
    "UnknownMessage",
    "Message",
    # helpers
    "AssistantMessageMerger",
    "message_from_dict",
]

_T = TypeVar("_T")

_object_new = object.__new__
_object_setattr = object.__setattr__


def construct(cls: Type[_T], attrs: Dict[str, Any]) -> _T:
    """A ``cls`` instance whose attributes are exactly ``attrs``, bypassing ``__init__``.

    ``attrs`` becomes the instance's ``__dict__`` (not copied): pass a fresh dict holding
    every ``init`` field of ``cls``. The parse hot path uses it instead of the frozen
    ``__init__`` (which would pay one ``object.__setattr__`` per field).
    """
    instance = _object_new(cls)
    _object_setattr(instance, "__dict__", attrs)
    return instance


def _raw() -> Any:
    """The ``raw`` field: the wire dict, kept out of ``==`` and ``repr()``."""
    return field(default_factory=dict, repr=False, compare=False)


def _wire(name: str, default: Any = None) -> Any:
    """A field read from the wire key ``name`` (the parser's generic readers use this)."""
    return field(default=default, metadata={"wire": name})


def _as_is(value: Any) -> Any:
    """Decoder that keeps a loosely typed wire value unchanged (no Union guessing)."""
    return value


class _Record(SerdeMixin, FrozenRecord):
    """Base of every message and block: immutable, cheap to define, lazily serialisable."""

    __slots__ = ()


# ----------------------------------------------------------------------------- blocks


@frozen_record
class TextBlock(_Record):
    """Plain text (``{"type": "text", "text": …}``)."""

    type: str = field(default="text", init=False, repr=False, compare=False)
    text: str
    raw: Dict[str, Any] = _raw()


@frozen_record
class ThinkingBlock(_Record):
    """Extended thinking; ``signature`` verifies it when it is sent back to the API."""

    type: str = field(default="thinking", init=False, repr=False, compare=False)
    thinking: str
    signature: str
    raw: Dict[str, Any] = _raw()


@frozen_record
class RedactedThinkingBlock(_Record):
    """Thinking the API returned encrypted; ``data`` is opaque."""

    type: str = field(default="redacted_thinking", init=False, repr=False, compare=False)
    data: str
    raw: Dict[str, Any] = _raw()


@frozen_record
class ToolUseBlock(_Record):
    """The model asks to run tool ``name`` with ``input``; ``id`` names the call."""

    type: str = field(default="tool_use", init=False, repr=False, compare=False)
    id: str
    name: str
    input: Dict[str, Any]
    raw: Dict[str, Any] = _raw()


@frozen_record
class ToolResultBlock(_Record):
    """The result of tool call ``tool_use_id``: a string, a list of wire blocks, or None."""

    type: str = field(default="tool_result", init=False, repr=False, compare=False)
    tool_use_id: str
    content: Union[str, List[Dict[str, Any]], None] = field(
        default=None, metadata=decoder_metadata(_as_is)
    )
    is_error: Optional[bool] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class ServerToolUseBlock(_Record):
    """A tool the API runs itself (``web_search``, ``web_fetch``, ``code_execution`` …)."""

    type: str = field(default="server_tool_use", init=False, repr=False, compare=False)
    id: str
    name: str
    input: Dict[str, Any]
    raw: Dict[str, Any] = _raw()


@frozen_record
class ServerToolResultBlock(_Record):
    """The result of a server tool call; one class for every ``*_tool_result`` wire type.

    ``type`` keeps the wire type (``web_search_tool_result``, ``web_fetch_tool_result``,
    ``code_execution_tool_result``, ``advisor_tool_result`` …); ``content`` is passed
    through as sent (a list of results or an error dict, depending on the tool).
    """

    tool_use_id: str
    content: Any
    type: str = ""
    raw: Dict[str, Any] = _raw()


@frozen_record
class ImageBlock(_Record):
    """An image; ``source`` is the wire source dict (``{"type": "base64", …}`` or a URL)."""

    type: str = field(default="image", init=False, repr=False, compare=False)
    source: Dict[str, Any]
    raw: Dict[str, Any] = _raw()


@frozen_record
class UnknownBlock(_Record):
    """A block type not modelled here (``document``, ``mcp_tool_use`` …): its wire dict."""

    type: str
    raw: Dict[str, Any] = field(default_factory=dict)


ContentBlock = Union[
    TextBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ServerToolUseBlock,
    ServerToolResultBlock,
    ImageBlock,
    UnknownBlock,
]

_BLOCK_CLASSES: Dict[str, Type[Any]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "redacted_thinking": RedactedThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
    "server_tool_use": ServerToolUseBlock,
    "image": ImageBlock,
}


def _block_class(block_type: Any) -> Type[Any]:
    """The block class for a wire ``type`` (``*_tool_result`` → ``ServerToolResultBlock``)."""
    cls = _BLOCK_CLASSES.get(block_type)
    if cls is not None:
        return cls
    if isinstance(block_type, str) and block_type.endswith("_tool_result"):
        return ServerToolResultBlock
    return UnknownBlock


def _block_from_dict(data: Any) -> Any:
    """One ``to_dict()``-shaped block back to its class, chosen by its ``type`` key.

    Raises ``TypeError`` when ``data`` is not a dict (dataclasses-json raises ``KeyError``
    for missing required fields).
    """
    if isinstance(data, SerdeMixin):
        return data
    if not isinstance(data, dict):
        raise TypeError(f"a content block must be a dict, got {type(data).__name__}")
    return _block_class(data.get("type")).from_dict(data)


def _blocks_from_dicts(value: Any) -> Any:
    """Decoder for ``content`` fields: a string stays a string, a list becomes blocks."""
    if isinstance(value, list):
        return [_block_from_dict(item) for item in value]
    return value


# ----------------------------------------------------------------------------- messages


@frozen_record
class UserMessage(_Record):
    """A ``user`` line: a prompt echo (``isReplay``), a tool result, or CLI-made text.

    ``content`` is a string or a list of blocks, as on the wire. ``tool_use_result`` is the
    CLI's structured tool output (a dict for Bash/Write, a list for MCP tools, an
    ``"Error: …"`` string for failures). ``is_synthetic`` marks text the CLI wrote itself
    (e.g. ``[structured-output-enforce] …``); ``[Request interrupted by user]`` arrives as a
    plain user text message.
    """

    type: str = field(default="user", init=False, repr=False, compare=False)
    content: Union[str, List[ContentBlock]] = field(metadata=decoder_metadata(_blocks_from_dicts))
    uuid: Optional[str] = None
    parent_tool_use_id: Optional[str] = None
    tool_use_result: Any = None
    origin: Optional[Dict[str, Any]] = None
    is_replay: bool = False
    is_synthetic: bool = False
    session_id: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class AssistantMessage(_Record):
    """An ``assistant`` line.

    The real CLI sends **one line per content block**, all sharing ``message_id``, with
    ``stop_reason`` null; use ``AssistantMessageMerger`` for whole messages and
    ``ResultMessage.stop_reason`` for the real stop reason. ``error`` (top level on the
    wire) is set on the synthetic message the CLI writes after an API failure:
    ``authentication_failed``, ``rate_limit``, ``server_error``, ``unknown`` …
    """

    type: str = field(default="assistant", init=False, repr=False, compare=False)
    content: List[ContentBlock] = field(metadata=decoder_metadata(_blocks_from_dicts))
    model: str
    parent_tool_use_id: Optional[str] = None
    error: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None
    message_id: Optional[str] = None
    stop_reason: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class SystemMessage(_Record):
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
    permission_mode: Optional[str] = _wire("permissionMode")
    slash_commands: Optional[List[str]] = None
    api_key_source: Optional[str] = _wire("apiKeySource")
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
    permission_mode: Optional[str] = _wire("permissionMode")
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

    hook_event_name: str = _wire("hook_event", "")
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
class ResultMessage(_Record):
    """A ``result`` line: the end of one turn, with cost and usage.

    Do not read ``subtype`` alone: API failures arrive as ``subtype == "success"`` with
    ``is_error`` true and ``api_error_status`` set; aborted or limited runs as
    ``error_during_execution`` / ``error_max_turns`` / … with ``errors`` and no ``result``.
    """

    type: str = field(default="result", init=False, repr=False, compare=False)
    subtype: str
    duration_ms: int
    duration_api_ms: int
    is_error: bool
    num_turns: int
    session_id: str
    stop_reason: Optional[str] = None
    total_cost_usd: Optional[float] = None
    usage: Optional[Dict[str, Any]] = None
    result: Optional[str] = None
    structured_output: Any = None
    model_usage: Optional[Dict[str, Any]] = None
    permission_denials: Optional[List[Any]] = None
    errors: Optional[List[str]] = None
    api_error_status: Optional[int] = None
    uuid: Optional[str] = None
    terminal_reason: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class StreamEvent(_Record):
    """A ``stream_event`` line (``include_partial_messages``): one raw Messages-API SSE event."""

    type: str = field(default="stream_event", init=False, repr=False, compare=False)
    uuid: str
    session_id: str
    event: Dict[str, Any]
    parent_tool_use_id: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class RateLimitInfo(_Record):
    """The ``rate_limit_info`` of a ``RateLimitEvent`` (wire keys are camelCase)."""

    status: str
    resets_at: Optional[int] = _wire("resetsAt")
    rate_limit_type: Optional[str] = _wire("rateLimitType")
    utilization: Optional[float] = None
    overage_status: Optional[str] = _wire("overageStatus")
    overage_resets_at: Optional[int] = _wire("overageResetsAt")
    overage_disabled_reason: Optional[str] = _wire("overageDisabledReason")
    raw: Dict[str, Any] = _raw()


@frozen_record
class RateLimitEvent(_Record):
    """A ``rate_limit_event`` line: the subscription rate-limit state changed."""

    type: str = field(default="rate_limit_event", init=False, repr=False, compare=False)
    rate_limit_info: RateLimitInfo
    uuid: str
    session_id: str
    raw: Dict[str, Any] = _raw()


@frozen_record
class PromptSuggestionMessage(_Record):
    """A ``prompt_suggestion`` line (``promptSuggestions``), sent after a ``result``."""

    type: str = field(default="prompt_suggestion", init=False, repr=False, compare=False)
    suggestion: str
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class ToolProgressMessage(_Record):
    """A ``tool_progress`` line: a tool has been running for ``elapsed_time_seconds``."""

    type: str = field(default="tool_progress", init=False, repr=False, compare=False)
    tool_use_id: str
    tool_name: str
    parent_tool_use_id: Optional[str] = None
    elapsed_time_seconds: Optional[float] = None
    task_id: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class AuthStatusMessage(_Record):
    """An ``auth_status`` line (not seen from CLI 2.1.197, modelled for completeness)."""

    type: str = field(default="auth_status", init=False, repr=False, compare=False)
    is_authenticating: bool = _wire("isAuthenticating", False)
    output: Optional[List[str]] = None
    error: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@frozen_record
class UnknownMessage(_Record):
    """A line whose ``type`` is not modelled here (forward compatibility): its wire dict."""

    type: str
    raw: Dict[str, Any] = field(default_factory=dict)


Message = Union[
    UserMessage,
    AssistantMessage,
    SystemMessage,
    ResultMessage,
    StreamEvent,
    RateLimitEvent,
    PromptSuggestionMessage,
    ToolProgressMessage,
    AuthStatusMessage,
    UnknownMessage,
]

MESSAGE_CLASSES: Dict[str, Type[Any]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "system": SystemMessage,
    "result": ResultMessage,
    "stream_event": StreamEvent,
    "rate_limit_event": RateLimitEvent,
    "prompt_suggestion": PromptSuggestionMessage,
    "tool_progress": ToolProgressMessage,
    "auth_status": AuthStatusMessage,
}
"""Wire ``type`` → class, for every modelled type."""

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
}
"""System ``subtype`` → subclass; other subtypes are plain ``SystemMessage``."""


def message_from_dict(data: Dict[str, Any]) -> Message:
    """Rebuild any message from its ``to_dict()`` output, choosing the class by ``type``.

    For saved transcripts. (A *wire* dict goes to ``parse_message`` instead.) Raises
    ``TypeError`` if ``data`` is not a dict, ``KeyError`` if a required field is missing.
    """
    if not isinstance(data, dict):
        raise TypeError(f"message_from_dict() needs a dict, got {type(data).__name__}")
    kind = data.get("type")
    cls = MESSAGE_CLASSES.get(kind, UnknownMessage) if isinstance(kind, str) else UnknownMessage
    subtype = data.get("subtype")
    if cls is SystemMessage and isinstance(subtype, str):
        cls = SYSTEM_CLASSES.get(subtype, SystemMessage)
    message: Message = cls.from_dict(data)
    return message


# ----------------------------------------------------------------------------- merging

_PROGRESS_TYPES = (StreamEvent, ThinkingTokensMessage, ToolProgressMessage)
"""Live progress messages the CLI interleaves *between* the block lines of one assistant
message (a block's ``assistant`` line comes before its ``content_block_stop`` event). They
pass through the merger without ending the message being merged."""


class AssistantMessageMerger:
    """Re-assembles whole assistant messages from the CLI's one-line-per-block stream.

    Feed messages in stream order; ``feed()`` returns what is ready, in order:

    * consecutive ``AssistantMessage``\\ s with the same ``message_id`` are held and come out
      as one message holding all their blocks, in order, when a different ``message_id``
      arrives, when any other message arrives, or on ``flush()``;
    * ``StreamEvent``, ``ThinkingTokensMessage`` and ``ToolProgressMessage`` pass through at
      once *without* ending the held message (the CLI interleaves them with its block
      lines). A ``message_stop`` stream event does end it, right after the event;
    * an ``AssistantMessage`` without ``message_id`` is never merged;
    * every other message ends the held message and then passes through.

    A merged message takes every field except ``content`` from its **last** line, and its
    ``raw`` is that last line's dict with ``message.content`` replaced by the raw dicts of
    all the blocks, so ``parse_message(merged.raw) == merged``. A message made of a single
    line is returned as is. Not thread-safe; one merger per stream. Pure.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: List[AssistantMessage] = []

    @property
    def pending(self) -> bool:
        """Whether block lines are held waiting for the rest of their message."""
        return bool(self._held)

    def feed(self, message: Message) -> List[Message]:
        """Take the next message; return the messages that are ready, in stream order."""
        if isinstance(message, AssistantMessage):
            return self._feed_assistant(message)
        if isinstance(message, _PROGRESS_TYPES):
            if isinstance(message, StreamEvent) and self._ends_held_message(message):
                return [message, *self.flush()]
            return [message]
        ready = self.flush()
        ready.append(message)
        return ready

    def take_held(self) -> List[AssistantMessage]:
        """Return the held block lines unmerged, and forget them (to re-queue them)."""
        held, self._held = self._held, []
        return held

    def flush(self) -> List[Message]:
        """Return the held message (merged), if any, and forget it. Call at end of stream."""
        if not self._held:
            return []
        merged = merge_assistant_lines(self._held)
        self._held = []
        return [merged]

    def _feed_assistant(self, message: AssistantMessage) -> List[Message]:
        if message.message_id is None:
            ready = self.flush()
            ready.append(message)
            return ready
        if self._held and self._held[0].message_id != message.message_id:
            ready = self.flush()
            self._held.append(message)
            return ready
        self._held.append(message)
        return []

    def _ends_held_message(self, event: StreamEvent) -> bool:
        return (
            bool(self._held)
            and event.event.get("type") == "message_stop"
            and event.parent_tool_use_id == self._held[-1].parent_tool_use_id
        )


def merge_assistant_lines(lines: List[AssistantMessage]) -> AssistantMessage:
    """One ``AssistantMessage`` from the block lines of one message (see the merger).

    ``lines`` must be non-empty; a single line is returned unchanged.
    """
    last = lines[-1]
    if len(lines) == 1:
        return last
    content: List[ContentBlock] = [block for line in lines for block in line.content]
    raw = dict(last.raw)
    raw_message = raw.get("message")
    raw["message"] = dict(raw_message if isinstance(raw_message, dict) else {})
    raw["message"]["content"] = [block.raw for block in content]
    attrs = dict(vars(last))
    attrs["content"] = content
    attrs["raw"] = raw
    return construct(AssistantMessage, attrs)
