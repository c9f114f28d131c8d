"""Immutable message types (what iterating a stream yields), and the rules of every message
and block class.

Rules for the classes here, in ``blocks`` and in ``system_messages``:

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
* Classes are ``frozen_record`` dataclasses (``record.py``): immutable, with generic
  methods instead of generated ones, so defining ~40 of them stays cheap at import.
  The parser (``parse.py``) does not call ``__init__`` at all (it checks arguments field
  by field, too slow for a per-line hot path); it uses ``construct(cls, attrs)`` (in
  ``record``), which must receive every ``init`` field.
* ``to_dict()`` / ``to_json()`` / ``from_dict()`` / ``from_json()`` come from dataclasses-json,
  imported on first use only (see ``serde.py``). ``type(m).from_dict(m.to_dict()) == m``
  for every class, nested blocks included; ``message_from_dict`` picks the class itself.

Content blocks are in ``blocks``, ``system`` messages in ``system_messages``, and the
assistant merger in ``merge``. Pure module: no threads, no I/O, no clocks.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Optional, Type, Union

from .blocks import ContentBlock, TextBlock, WireRecord, blocks_from_dicts, raw_field, wire_field
from .record import frozen_record
from .serde import decoder_metadata
from .system_messages import SYSTEM_CLASSES, SystemMessage, TimestampedMessage

__all__ = [
    "UserMessage",
    "AssistantMessage",
    "ResultMessage",
    "StreamEvent",
    "RateLimitInfo",
    "RateLimitEvent",
    "PromptSuggestionMessage",
    "ToolProgressMessage",
    "AuthStatusMessage",
    "ConversationResetMessage",
    "DeferredToolUse",
    "UnknownMessage",
    "Message",
    "MESSAGE_CLASSES",
    "message_from_dict",
]


@frozen_record
class UserMessage(TimestampedMessage):
    """A ``user`` line: a prompt echo (``isReplay``), a tool result, or CLI-made text.

    ``content`` is a string or a list of blocks, as on the wire. ``tool_use_result`` is the
    CLI's structured tool output (a dict for Bash/Write, a list for MCP tools, an
    ``"Error: …"`` string for failures). ``is_synthetic`` marks text the CLI wrote itself
    (e.g. ``[structured-output-enforce] …``); ``[Request interrupted by user]`` arrives as a
    plain user text message.

    Attributes:
        type: ``"user"``.
        content: The text, or the list of content blocks (``ToolResultBlock`` for a tool result,
            ``TextBlock`` …), as on the wire.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        parent_tool_use_id: The ``id`` of the ``Task``/``Agent`` tool call this belongs to when a
            subagent produced it; None at the top level.
        tool_use_result: The CLI's structured tool output for a tool result (a dict for Bash/Write,
            a list for MCP tools, an ``"Error: …"`` string for failures); None otherwise.
        origin: Who the turn came from when not the human at the keyboard (a ``MessageOrigin`` dict:
            a channel, a peer, a task notification …); None otherwise, and None when the wire's
            ``origin`` is not an object with a string ``kind``.
        is_replay: True for the CLI's echo of a prompt it was given (``isReplay``).
        is_synthetic: True for text the CLI wrote itself rather than the user (``isSynthetic``).
        session_id: The session this line belongs to.
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="user", init=False, repr=False, compare=False)
    content: Union[str, List[ContentBlock]] = field(metadata=decoder_metadata(blocks_from_dicts))
    uuid: Optional[str] = None
    parent_tool_use_id: Optional[str] = None
    tool_use_result: Any = None
    origin: Optional[Dict[str, Any]] = None
    is_replay: bool = False
    is_synthetic: bool = False
    session_id: Optional[str] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class AssistantMessage(TimestampedMessage):
    """An ``assistant`` line.

    The real CLI sends **one line per content block**, all sharing ``message_id``, with
    ``stop_reason`` null; use ``AssistantMessageMerger`` for whole messages and
    ``ResultMessage.stop_reason`` for the real stop reason. ``error`` (top level on the
    wire) is set on the synthetic message the CLI writes after an API failure:
    ``authentication_failed``, ``rate_limit``, ``server_error``, ``unknown`` …

    Attributes:
        type: ``"assistant"``.
        content: The content blocks of this line: with the real CLI one block (``TextBlock``,
            ``ThinkingBlock``, ``ToolUseBlock`` …) per line.
        model: The model that wrote it (``claude-sonnet-4-5…``; ``<synthetic>`` for a message the
            CLI made after an API failure).
        parent_tool_use_id: The ``id`` of the ``Task``/``Agent`` tool call this belongs to when a
            subagent produced it; None at the top level.
        error: Set on the synthetic message after an API failure: ``authentication_failed``,
            ``rate_limit``, ``server_error``, ``unknown`` …; None otherwise.
        usage: The Messages API ``usage`` dict of the message (input/output/cache tokens) as the CLI
            reports it.
        message_id: The API message id (``message.id``), shared by all lines of one message.
        stop_reason: The API stop reason; the real CLI sends null on these lines (read
            ``ResultMessage.stop_reason``).
        session_id: The session this line belongs to.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        user_message_uuid: The uuid of the user message this answers (newer CLIs).
        user_message_uuids: The uuids of the user messages this answers, when the turn took several
            (newer CLIs).
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="assistant", init=False, repr=False, compare=False)
    content: List[ContentBlock] = field(metadata=decoder_metadata(blocks_from_dicts))
    model: str
    parent_tool_use_id: Optional[str] = None
    error: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None
    message_id: Optional[str] = None
    stop_reason: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None
    user_message_uuid: Optional[str] = None
    user_message_uuids: Optional[List[str]] = None
    raw: Dict[str, Any] = raw_field()

    @property
    def text(self) -> str:
        """The message's text: its ``TextBlock`` texts joined by a blank line (as
        ``text_stream()`` joins blocks); thinking and tool calls are left out, "" when it has
        no text. Not a field: computed on each access."""
        return "\n\n".join(block.text for block in self.content if isinstance(block, TextBlock))


@frozen_record
class DeferredToolUse(WireRecord):
    """A tool call a ``PreToolUse`` hook deferred (``permissionDecision: "defer"``): the run
    stopped before it; ``ResultMessage.deferred_tool_use`` says which call to resume with.

    Attributes:
        id: The ``tool_use`` id of the deferred call.
        name: The tool's name.
        input: The tool's input, as the model gave it.
    """

    id: str
    name: str
    input: Dict[str, Any]


_NOT_SERIALISED = {"dataclasses_json": {"exclude": lambda _value: True}}
"""Field metadata keeping a field out of dataclasses-json's ``to_dict()``."""


def _deferred_from_dict(value: Any) -> Optional[DeferredToolUse]:
    return None if value is None else DeferredToolUse(value["id"], value["name"], value["input"])


@frozen_record
class ResultMessage(TimestampedMessage):
    """A ``result`` line: the end of one turn, with cost and usage.

    Do not read ``subtype`` alone: API failures arrive as ``subtype == "success"`` with
    ``is_error`` true and ``api_error_status`` set; aborted or limited runs as
    ``error_during_execution`` / ``error_max_turns`` / … with ``errors`` and no ``result``.

    Attributes:
        type: ``"result"``.
        subtype: ``"success"``, ``"error_during_execution"``, ``"error_max_turns"``,
            ``"error_max_budget_usd"`` …; an API failure is ``"success"`` with ``is_error``.
        duration_ms: Wall time of the turn, in milliseconds, as the CLI measured it.
        duration_api_ms: Time spent waiting for the API, in milliseconds.
        is_error: Whether the turn failed (``query()`` then raises ``ResultError`` after yielding
            this message, unless ``raise_on_error_result=False``).
        num_turns: How many model turns (API round trips) the run took.
        session_id: The session this line belongs to.
        stop_reason: The API stop reason of the last model turn (``end_turn``, ``max_tokens``,
            ``tool_use`` …).
        total_cost_usd: What the session has cost so far, in US dollars, as the CLI computes it.
        usage: Token counts of the turn (the Messages API ``usage`` shape, summed).
        result: The final text of the turn (None for most error subtypes).
        structured_output: The validated JSON value when ``output_format`` asked for structured
            output; None otherwise.
        model_usage: Per model name, a ``ModelUsage`` dict (tokens, cost, context window)
            (``modelUsage`` on the wire).
        permission_denials: The tool calls that were denied during the turn (tool name, id and
            input), as the CLI lists them.
        deferred_tool_use: The tool call a ``PreToolUse`` hook deferred, which stopped the run; None
            otherwise.
        errors: The CLI's error texts for the error subtypes; None otherwise.
        api_error_status: The HTTP status of the API failure that ended the turn (401, 429, 529 …);
            None otherwise.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        terminal_reason: Why the run ended, as newer CLIs say (``completed``, ``aborted_streaming``,
            ``aborted_tools``, ``max_turns``, ``api_error`` …).
        origin: Who the turn came from (a ``MessageOrigin`` dict), when the CLI says so (newer
            CLIs); None when the wire's ``origin`` is not an object with a string ``kind``.
        user_message_uuid: The uuid of the user message this answers (newer CLIs).
        user_message_uuids: The uuids of the user messages this answers, when the turn took several
            (newer CLIs).
        code_mode_refusal: On the zeroed result of a resume that Claude Desktop's Code Mode
            refused: why, as a closed value (CLI 2.1.333+, which marks it internal; None otherwise
            and on older CLIs).
        parsed_output: (ours) ``structured_output`` as an instance of the ``output_format`` class
            (dataclass, pydantic model; a checked dict for a TypedDict), set by the library when
            ``ClaudeAgentOptions.output_format`` is a class and the value fits it; None otherwise (no
            class, no value, or a value the class refuses: ``claude_sync.parse_output`` says why).
            Derived data: left out of ``==``, ``repr()`` and ``to_dict()``.
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
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
    deferred_tool_use: Optional[DeferredToolUse] = field(
        default=None, metadata=decoder_metadata(_deferred_from_dict)
    )
    errors: Optional[List[str]] = None
    api_error_status: Optional[int] = None
    uuid: Optional[str] = None
    terminal_reason: Optional[str] = None
    origin: Optional[Dict[str, Any]] = None
    user_message_uuid: Optional[str] = None
    user_message_uuids: Optional[List[str]] = None
    code_mode_refusal: Optional[str] = None
    parsed_output: Any = field(default=None, repr=False, compare=False, metadata=_NOT_SERIALISED)
    raw: Dict[str, Any] = raw_field()


@frozen_record
class StreamEvent(TimestampedMessage):
    """A ``stream_event`` line (``include_partial_messages``): one raw Messages-API SSE event.

    Attributes:
        type: ``"stream_event"``.
        uuid: The id of this event line.
        session_id: The session this line belongs to.
        event: The raw server-sent event of the Messages API (``message_start``,
            ``content_block_delta`` …).
        parent_tool_use_id: The ``id`` of the ``Task``/``Agent`` tool call this belongs to when a
            subagent produced it; None at the top level.
        user_message_uuid: The uuid of the user message this answers (newer CLIs).
        user_message_uuids: The uuids of the user messages this answers, when the turn took several
            (newer CLIs).
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="stream_event", init=False, repr=False, compare=False)
    uuid: str
    session_id: str
    event: Dict[str, Any]
    parent_tool_use_id: Optional[str] = None
    user_message_uuid: Optional[str] = None
    user_message_uuids: Optional[List[str]] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class RateLimitInfo(WireRecord):
    """The ``rate_limit_info`` of a ``RateLimitEvent`` (wire keys are camelCase).

    Attributes:
        status: ``"allowed"``, ``"allowed_warning"`` or ``"rejected"``.
        resets_at: When the limit resets, in Unix seconds (``resetsAt``).
        rate_limit_type: Which limit: ``five_hour``, ``seven_day``, ``seven_day_opus``,
            ``seven_day_sonnet``, ``overage`` (``rateLimitType``).
        utilization: How much of the limit is used, from 0 to 1, when the CLI says.
        overage_status: The state of paid overage usage, when the CLI says (``overageStatus``).
        overage_resets_at: When the overage limit resets, in Unix seconds (``overageResetsAt``).
        overage_disabled_reason: Why overage is off, when it is (``overageDisabledReason``).
        raw: The wire dict it was parsed from.
    """

    status: str
    resets_at: Optional[int] = wire_field("resetsAt")
    rate_limit_type: Optional[str] = wire_field("rateLimitType")
    utilization: Optional[float] = None
    overage_status: Optional[str] = wire_field("overageStatus")
    overage_resets_at: Optional[int] = wire_field("overageResetsAt")
    overage_disabled_reason: Optional[str] = wire_field("overageDisabledReason")
    raw: Dict[str, Any] = raw_field()


@frozen_record
class RateLimitEvent(TimestampedMessage):
    """A ``rate_limit_event`` line: the subscription rate-limit state changed.

    Attributes:
        type: ``"rate_limit_event"``.
        rate_limit_info: The new rate-limit state.
        uuid: The id of this line.
        session_id: The session this line belongs to.
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="rate_limit_event", init=False, repr=False, compare=False)
    rate_limit_info: RateLimitInfo
    uuid: str
    session_id: str
    raw: Dict[str, Any] = raw_field()


@frozen_record
class PromptSuggestionMessage(TimestampedMessage):
    """A ``prompt_suggestion`` line (``promptSuggestions``), sent after a ``result``.

    Attributes:
        type: ``"prompt_suggestion"``.
        suggestion: A prompt the user might send next.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        session_id: The session this line belongs to.
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="prompt_suggestion", init=False, repr=False, compare=False)
    suggestion: str
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ToolProgressMessage(TimestampedMessage):
    """A ``tool_progress`` line: a tool has been running for ``elapsed_time_seconds``.

    Attributes:
        type: ``"tool_progress"``.
        tool_use_id: The ``tool_use`` id of the running call.
        tool_name: The tool that is running.
        parent_tool_use_id: The ``id`` of the ``Task``/``Agent`` tool call this belongs to when a
            subagent produced it; None at the top level.
        elapsed_time_seconds: How long it has been running.
        task_id: The background task running it, if any.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        session_id: The session this line belongs to.
        description: What the call does, in the CLI's words (CLI 2.1.333+; None on older CLIs).
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="tool_progress", init=False, repr=False, compare=False)
    tool_use_id: str
    tool_name: str
    parent_tool_use_id: Optional[str] = None
    elapsed_time_seconds: Optional[float] = None
    task_id: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    description: Optional[str] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class AuthStatusMessage(TimestampedMessage):
    """An ``auth_status`` line (not seen from CLI 2.1.197, modelled for completeness).

    Attributes:
        type: ``"auth_status"``.
        is_authenticating: Whether a login is in progress (``isAuthenticating``).
        output: Lines of the login flow's output.
        error: What went wrong, when the login failed.
        uuid: The id of this line in the transcript (None when the CLI sent none).
        session_id: The session this line belongs to.
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="auth_status", init=False, repr=False, compare=False)
    is_authenticating: bool = wire_field("isAuthenticating", False)
    output: Optional[List[str]] = None
    error: Optional[str] = None
    uuid: Optional[str] = None
    session_id: Optional[str] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class ConversationResetMessage(TimestampedMessage):
    """A ``conversation_reset`` line (CLI 2.1.330, e.g. after ``/clear``): the conversation was
    replaced without ending the connection.

    Later ``ResultMessage`` totals (``total_cost_usd`` …) start again from zero, and later
    messages carry a new ``session_id``; ``session_id`` here is the outgoing one and
    ``new_conversation_id`` an opaque id for the fresh conversation (not a session id).

    Attributes:
        type: ``"conversation_reset"``.
        new_conversation_id: An opaque id of the fresh conversation (not a session id).
        uuid: The id of this line.
        session_id: The outgoing session's id; later messages carry a new one.
        trigger: What discarded the conversation: ``clear``, ``plan_mode_exit``, ``fresh_session`` …
        raw: The wire dict this message was parsed from (left out of ``==`` and ``repr()``).
    """

    type: str = field(default="conversation_reset", init=False, repr=False, compare=False)
    new_conversation_id: str
    uuid: str
    session_id: str
    trigger: Optional[str] = None
    raw: Dict[str, Any] = raw_field()


@frozen_record
class UnknownMessage(TimestampedMessage):
    """A line whose ``type`` is not modelled here (forward compatibility): its wire dict.

    Attributes:
        type: The wire ``type`` claude_sync does not know.
        raw: The whole wire dict (it counts for ``==`` and ``repr()`` here).
    """

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
    ConversationResetMessage,
    UnknownMessage,
]
"""Any message a stream yields: ``UserMessage``, ``AssistantMessage``, ``SystemMessage`` (and its
subclasses), ``ResultMessage``, ``StreamEvent``, ``RateLimitEvent``, ``PromptSuggestionMessage``,
``ToolProgressMessage``, ``AuthStatusMessage``, ``ConversationResetMessage``, ``UnknownMessage``."""

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
    "conversation_reset": ConversationResetMessage,
}
"""Wire ``type`` → class, for every modelled type."""


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

