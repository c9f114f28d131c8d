"""What the TypeScript SDK offers and both Python SDKs lack (pure): the initialize-only options,
the ``elicitation`` / ``request_user_dialog`` host callbacks, and typed answers of the control
requests behind ``ClaudeSDKClient.apply_flag_settings`` … ``get_usage``.

Initialize-only options (``ClaudeAgentOptions``' TS-SDK block) → ``initialize`` fields::

    tool_aliases              toolAliases            {model's tool name: tool to run instead}
    plan_mode_instructions    planModeInstructions   replaces the plan-mode workflow body
    title                     title                  the session's title (no generated one)
    prompt_suggestions        promptSuggestions      a ``prompt_suggestion`` after each result
    agent_progress_summaries  agentProgressSummaries ``summary`` on subagents' task_progress
    supported_dialog_kinds    supportedDialogKinds   dialog kinds ``on_user_dialog`` renders
    per_task_stop_affordance  perTaskStopAffordance  an interrupt spares background tasks

Unset (None / False) options send nothing, so the CLI's defaults apply. CLI 2.1.197 and 2.1.330
accept the first five; ``supportedDialogKinds`` and ``perTaskStopAffordance`` are newer.

Host callbacks (run on the callback pool like ``can_use_tool``; the adapters here are pure):

* ``on_elicitation(ElicitationRequest) -> ElicitationResult | dict``: an MCP server asks the
  user for input. Without a callback, or when it raises or returns something else, the answer
  is ``{"action": "decline"}`` (what the TypeScript SDK answers without one).
* ``on_user_dialog(UserDialogRequest) -> UserDialogResult | dict``: the CLI asks the host to
  render a blocking dialog (only kinds declared in ``supported_dialog_kinds``). When it raises
  or returns something else the answer is ``{"behavior": "cancelled"}`` (the CLI then applies
  the dialog's default). Without a callback the CLI's request gets an error answer, which the
  CLI discards (the dialog stays pending until its deadline), as the TypeScript SDK leaves it.

Why over 400 lines: the typed requests and results of the TS-SDK extras (elicitation, user
dialogs, six control calls) are small records, each with its wire adapter next to it.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Union

from .._wire.record import FrozenRecord, frozen_record

if TYPE_CHECKING:  # pragma: no cover
    from .._callbacks.permission_types import CancellationSignal
    from .options import ClaudeAgentOptions

__all__ = [
    "DECLINE_ELICITATION",
    "CANCELLED_DIALOG",
    "ElicitationRequest",
    "ElicitationResult",
    "HostCallbacks",
    "McpSetServersResult",
    "OnElicitation",
    "OnUserDialog",
    "ReadFileResult",
    "ReloadPluginsResult",
    "UsageResult",
    "UserDialogRequest",
    "UserDialogResult",
    "check_ts_extra_options",
    "elicitation_request_from_wire",
    "elicitation_result_to_wire",
    "ts_extra_initialize_fields",
    "user_dialog_request_from_wire",
    "user_dialog_result_to_wire",
]

DECLINE_ELICITATION: Dict[str, Any] = {"action": "decline"}
CANCELLED_DIALOG: Dict[str, Any] = {"behavior": "cancelled"}
_ELICITATION_ACTIONS = ("accept", "decline", "cancel")


# --------------------------------------------------------------------------- initialize


def ts_extra_initialize_fields(options: ClaudeAgentOptions) -> Dict[str, Any]:
    """The ``initialize`` fields of the TS-SDK options that are set (see the module table).

    Raises ``TypeError`` / ``ValueError`` as ``check_ts_extra_options``.
    """
    check_ts_extra_options(options)
    fields: Dict[str, Any] = {}
    if options.tool_aliases:
        fields["toolAliases"] = dict(options.tool_aliases)
    if options.plan_mode_instructions is not None:
        fields["planModeInstructions"] = options.plan_mode_instructions
    if options.title is not None:
        fields["title"] = options.title
    if options.prompt_suggestions:
        fields["promptSuggestions"] = True
    if options.agent_progress_summaries:
        fields["agentProgressSummaries"] = True
    if options.supported_dialog_kinds is not None:
        fields["supportedDialogKinds"] = list(options.supported_dialog_kinds)
    if options.per_task_stop_affordance:
        fields["perTaskStopAffordance"] = True
    return fields


def check_ts_extra_options(options: ClaudeAgentOptions) -> None:
    """Raises ``TypeError`` for a value of the wrong type and ``ValueError`` for
    ``supported_dialog_kinds`` without ``on_user_dialog`` (nothing would answer the dialogs;
    the TypeScript SDK refuses this too)."""
    aliases = options.tool_aliases
    if aliases is not None and (
        not isinstance(aliases, Mapping)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in aliases.items())
    ):
        raise TypeError(f"tool_aliases must map tool names (str) to tool names, not {aliases!r}")
    for name in ("plan_mode_instructions", "title"):
        value = getattr(options, name)
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    kinds = options.supported_dialog_kinds
    if kinds is not None:
        if isinstance(kinds, str) or not all(isinstance(k, str) for k in kinds):
            raise TypeError(f"supported_dialog_kinds must be a list of str, not {kinds!r}")
        if kinds and options.on_user_dialog is None:
            raise ValueError(
                "supported_dialog_kinds needs on_user_dialog: the CLI would ask this process "
                "to render those dialogs and nothing would answer"
            )
    for name in ("on_elicitation", "on_user_dialog"):
        value = getattr(options, name)
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be callable, not {type(value).__name__}")


# --------------------------------------------------------------------------- elicitation


@frozen_record
class ElicitationRequest(FrozenRecord):
    """An MCP server asks the user for input (the CLI's ``elicitation`` request).

    ``mode`` is ``"form"`` (fill ``requested_schema``, a JSON Schema) or ``"url"`` (open ``url``;
    ``elicitation_id`` correlates it). ``title`` / ``display_name`` / ``description`` come from
    the server's permission-display metadata. ``signal`` is set when the CLI withdraws the
    request or the session closes. ``raw`` is the whole request.
    """

    server_name: str
    message: str
    mode: Optional[str] = None
    url: Optional[str] = None
    elicitation_id: Optional[str] = None
    requested_schema: Optional[Dict[str, Any]] = None
    title: Optional[str] = None
    display_name: Optional[str] = None
    description: Optional[str] = None
    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@frozen_record
class ElicitationResult(FrozenRecord):
    """The user's answer: ``action`` is ``"accept"`` (with ``content`` for a form),
    ``"decline"`` or ``"cancel"`` (MCP ``ElicitResult``)."""

    action: str
    content: Optional[Dict[str, Any]] = None


OnElicitation = Callable[[ElicitationRequest], Union[ElicitationResult, Dict[str, Any]]]
"""The ``on_elicitation`` callback: a plain function run on the callback pool that answers an
MCP server's elicitation (accept with content, decline, or cancel); raising declines."""


def elicitation_request_from_wire(
    request: Mapping[str, Any], signal: Optional[CancellationSignal], request_id: Optional[str]
) -> ElicitationRequest:
    """The callback's argument from the CLI's request (missing fields become None)."""

    def text(key: str) -> Optional[str]:
        value = request.get(key)
        return value if isinstance(value, str) else None

    schema = request.get("requested_schema")
    return ElicitationRequest(
        server_name=text("mcp_server_name") or "",
        message=text("message") or "",
        mode=text("mode"),
        url=text("url"),
        elicitation_id=text("elicitation_id"),
        requested_schema=schema if isinstance(schema, dict) else None,
        title=text("title"),
        display_name=text("display_name"),
        description=text("description"),
        signal=signal,
        request_id=request_id,
        raw=dict(request),
    )


def elicitation_result_to_wire(result: Any) -> Dict[str, Any]:
    """The control response for what ``on_elicitation`` returned.

    Raises ``TypeError`` for anything but an ``ElicitationResult`` / dict, ``ValueError`` for an
    unknown ``action`` or a ``content`` that is not a dict (the caller answers with a decline).
    """
    action: Any
    content: Any
    if isinstance(result, ElicitationResult):
        action, content = result.action, result.content
    elif isinstance(result, Mapping):
        action, content = result.get("action"), result.get("content")
    else:
        raise TypeError(
            f"on_elicitation must return an ElicitationResult or a dict, not {type(result).__name__}"
        )
    if action not in _ELICITATION_ACTIONS:
        raise ValueError(f"elicitation action must be one of {_ELICITATION_ACTIONS}, not {action!r}")
    if content is not None and not isinstance(content, Mapping):
        raise ValueError(f"elicitation content must be a dict, not {type(content).__name__}")
    answer: Dict[str, Any] = {"action": action}
    if content is not None:
        answer["content"] = dict(content)
    return answer


# --------------------------------------------------------------------------- user dialogs


@frozen_record
class UserDialogRequest(FrozenRecord):
    """The CLI asks the host to render a blocking dialog (``request_user_dialog``).

    ``dialog_kind`` names it (e.g. ``"refusal_fallback_prompt"``; new kinds may appear);
    ``payload`` is its kind-specific data; ``tool_use_id`` is set when a tool call is waiting
    on it. ``signal`` is set when the CLI withdraws the dialog or the session closes.
    """

    dialog_kind: str
    payload: Dict[str, Any] = field(default_factory=dict)
    tool_use_id: Optional[str] = None
    signal: Optional[CancellationSignal] = None
    request_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@frozen_record
class UserDialogResult(FrozenRecord):
    """The host's answer: ``behavior`` ``"completed"`` with the dialog's ``result``, or
    ``"cancelled"`` (the CLI applies the dialog's default)."""

    behavior: str
    result: Any = None


OnUserDialog = Callable[[UserDialogRequest], Union[UserDialogResult, Dict[str, Any]]]
"""The ``on_user_dialog`` callback: a plain function run on the callback pool that answers the
CLI's ``request_user_dialog``; raising answers cancelled."""


def user_dialog_request_from_wire(
    request: Mapping[str, Any], signal: Optional[CancellationSignal], request_id: Optional[str]
) -> UserDialogRequest:
    """The callback's argument from the CLI's request."""
    kind = request.get("dialog_kind")
    payload = request.get("payload")
    tool_use_id = request.get("tool_use_id")
    return UserDialogRequest(
        dialog_kind=kind if isinstance(kind, str) else "",
        payload=dict(payload) if isinstance(payload, Mapping) else {},
        tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None,
        signal=signal,
        request_id=request_id,
        raw=dict(request),
    )


def user_dialog_result_to_wire(result: Any) -> Dict[str, Any]:
    """The control response for what ``on_user_dialog`` returned.

    Raises ``TypeError`` for anything but a ``UserDialogResult`` / dict and ``ValueError`` for an
    unknown ``behavior`` (the caller then answers ``cancelled``).
    """
    behavior: Any
    if isinstance(result, UserDialogResult):
        behavior, value, has_value = result.behavior, result.result, True
    elif isinstance(result, Mapping):
        behavior, value, has_value = result.get("behavior"), result.get("result"), "result" in result
    else:
        raise TypeError(
            f"on_user_dialog must return a UserDialogResult or a dict, not {type(result).__name__}"
        )
    if behavior == "cancelled":
        return dict(CANCELLED_DIALOG)
    if behavior != "completed":
        raise ValueError(f"dialog behavior must be 'completed' or 'cancelled', not {behavior!r}")
    return {"behavior": "completed", "result": value if has_value else None}


@frozen_record
class HostCallbacks(FrozenRecord):
    """The host callbacks of ``ClaudeAgentOptions`` the request server serves with."""

    on_elicitation: Optional[OnElicitation] = None
    on_user_dialog: Optional[OnUserDialog] = None


# --------------------------------------------------------------------------- typed answers


@frozen_record
class McpSetServersResult(FrozenRecord):
    """``set_mcp_servers``' answer: the servers ``added`` and ``removed``, and ``errors``
    (name → message) for those that failed to connect."""

    added: List[str]
    removed: List[str]
    errors: Dict[str, str]
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> McpSetServersResult:
        return cls(
            added=list(data.get("added") or []),
            removed=list(data.get("removed") or []),
            errors=dict(data.get("errors") or {}),
            raw=dict(data),
        )


@frozen_record
class ReloadPluginsResult(FrozenRecord):
    """``reload_plugins``' answer: the session's refreshed ``commands``, ``agents``,
    ``plugins`` and ``mcp_servers`` (status entries), ``error_count``; ``held`` / ``cache_impact``
    when the reload was held (``hold_on_cache_impact=True``)."""

    commands: List[Dict[str, Any]]
    agents: List[Dict[str, Any]]
    plugins: List[Dict[str, Any]]
    mcp_servers: List[Dict[str, Any]]
    error_count: int = 0
    held: Optional[bool] = None
    cache_impact: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ReloadPluginsResult:
        held = data.get("held")
        impact = data.get("cache_impact")
        return cls(
            commands=list(data.get("commands") or []),
            agents=list(data.get("agents") or []),
            plugins=list(data.get("plugins") or []),
            mcp_servers=list(data.get("mcpServers") or []),
            error_count=int(data.get("error_count") or 0),
            held=held if isinstance(held, bool) else None,
            cache_impact=impact if isinstance(impact, dict) else None,
            raw=dict(data),
        )


@frozen_record
class ReadFileResult(FrozenRecord):
    """``read_file``' answer: ``contents`` (text, or base64 when ``encoding == "base64"``),
    ``abs_path``, ``truncated`` (cut at ``max_bytes``), ``lossy`` (text that was not valid
    UTF-8; None when the CLI does not say)."""

    contents: str
    abs_path: str
    truncated: bool = False
    encoding: str = "utf-8"
    lossy: Optional[bool] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ReadFileResult:
        lossy = data.get("lossy")
        return cls(
            contents=str(data.get("contents", "")),
            abs_path=str(data.get("absPath", "")),
            truncated=bool(data.get("truncated", False)),
            encoding="base64" if data.get("encoding") == "base64" else "utf-8",
            lossy=lossy if isinstance(lossy, bool) else None,
            raw=dict(data),
        )


@frozen_record
class UsageResult(FrozenRecord):
    """``get_usage``' answer: the ``session``'s cost and usage (``total_cost_usd``,
    ``model_usage``, …), the claude.ai ``subscription_type`` (None for API keys), whether plan
    ``rate_limits`` apply and their windows, and ``behaviors`` (None with ``skip_behaviors``)."""

    session: Dict[str, Any]
    subscription_type: Optional[str] = None
    rate_limits_available: bool = False
    rate_limits: Optional[Dict[str, Any]] = None
    behaviors: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> UsageResult:
        subscription = data.get("subscription_type")
        limits = data.get("rate_limits")
        behaviors = data.get("behaviors")
        return cls(
            session=dict(data.get("session") or {}),
            subscription_type=subscription if isinstance(subscription, str) else None,
            rate_limits_available=bool(data.get("rate_limits_available", False)),
            rate_limits=limits if isinstance(limits, dict) else None,
            behaviors=behaviors if isinstance(behaviors, dict) else None,
            raw=dict(data),
        )
