"""Typed shapes of message payloads and of the control protocol (TypedDicts and Literals).

Message payloads: ``SystemInitData`` (the ``system/init`` dict, ``SystemMessage.data``),
``ModelUsage``, ``TaskUsage``, ``MessageOrigin`` and the Literal aliases of message fields.
Control protocol: the official ``SDKControl*Request`` / ``SDKControlResponse`` shapes of the
requests the official Python SDK exchanges (claude_sync speaks many more; see ``protocol``).
Names follow the official SDK. Type hints only (plus the ``TERMINAL_TASK_STATUSES``
constant). Not imported by ``import claude_sync``; see ``claude_sync.types``. Pure module.
"""


from typing import Any, Dict, FrozenSet, List, Literal, Optional, Union

from typing_extensions import NotRequired, Required, TypedDict

__all__ = [
    "AssistantMessageError", "ControlErrorResponse", "ControlResponse", "FastModeDisabledReason",
    "FastModeState", "MessageOrigin", "MessageOriginKind", "ModelUsage", "RateLimitStatus", "RateLimitType",
    "SDKControlInitializeRequest", "SDKControlInterruptRequest", "SDKControlMcpMessageRequest",
    "SDKControlMcpReconnectRequest", "SDKControlMcpToggleRequest", "SDKControlPermissionRequest",
    "SDKControlRequest", "SDKControlResponse", "SDKControlRewindFilesRequest",
    "SDKControlSetPermissionModeRequest", "SDKControlStopTaskRequest", "SDKHookCallbackRequest",
    "ServerToolName", "SystemInitData", "SystemInitMcpServer", "SystemInitPlugin",
    "SystemInitPluginError", "TERMINAL_TASK_STATUSES", "TaskNotificationOriginSubkind",
    "TaskNotificationStatus", "TaskUpdatedStatus", "TaskUsage",
]  # fmt: skip

# ------------------------------------------------------------------ Literal aliases

AssistantMessageError = Literal[
    "authentication_failed", "billing_error", "rate_limit", "invalid_request", "server_error", "unknown"
]
"""``AssistantMessage.error`` of the synthetic message the CLI writes after an API failure."""

RateLimitStatus = Literal["allowed", "allowed_warning", "rejected"]
RateLimitType = Literal["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "overage"]
ServerToolName = Literal[
    "advisor", "web_search", "web_fetch", "code_execution", "bash_code_execution",
    "text_editor_code_execution", "tool_search_tool_regex", "tool_search_tool_bm25",
]  # fmt: skip
TaskNotificationStatus = Literal["completed", "failed", "stopped"]
TaskUpdatedStatus = Literal["pending", "running", "paused", "completed", "failed", "killed"]
TaskNotificationOriginSubkind = Literal["scheduled-trigger", "peer-send-message"]
MessageOriginKind = Literal[
    "human", "channel", "peer", "task-notification", "coordinator", "unclassified", "observer",
    "auto-continuation", "observer-activity",
]  # fmt: skip
FastModeState = Literal["off", "cooldown", "on"]
FastModeDisabledReason = Literal[
    "free", "preference", "extra_usage_disabled", "network_error", "unknown", "not_first_party",
    "disabled_by_env", "model_not_allowed", "sdk_opt_in_required", "pending",
]  # fmt: skip

TERMINAL_TASK_STATUSES: FrozenSet[str] = frozenset({"completed", "failed", "stopped", "killed"})
"""Task statuses after which a task never changes again (``TaskUpdatedMessage.status``)."""

# ------------------------------------------------------------------ message payloads


class TaskUsage(TypedDict):
    """``usage`` of task progress / notification messages."""

    total_tokens: int
    tool_uses: int
    duration_ms: int


class ModelUsage(TypedDict):
    """One model's entry of ``ResultMessage.model_usage``."""

    inputTokens: int
    outputTokens: int
    cacheReadInputTokens: int
    cacheCreationInputTokens: int
    webSearchRequests: int
    costUSD: float
    contextWindow: int
    maxOutputTokens: int
    canonicalModel: NotRequired[str]
    provider: NotRequired[str]


MessageOrigin = TypedDict(
    "MessageOrigin",
    {
        "kind": Required[MessageOriginKind],
        "server": str,
        "from": str,  # a keyword: hence the functional form
        "name": str,
        "fromSession": str,
        "senderTaskId": str,
        "body": str,
        "verifiedPeerPid": int,
        "subkind": TaskNotificationOriginSubkind,
    },
    total=False,
)
"""Who a turn came from (``UserMessage.origin``, ``ResultMessage.origin``)."""


class SystemInitMcpServer(TypedDict):
    """One MCP server in ``system/init``: ``name`` and connection ``status``."""

    name: str
    status: str
    source: NotRequired[str]


class SystemInitPlugin(TypedDict):
    """One plugin in ``system/init``: ``name``, ``path``, ``version``."""

    name: str
    path: str
    version: NotRequired[str]


class SystemInitPluginError(TypedDict):
    """A plugin that failed to load, as ``system/init`` reports it."""

    plugin: str
    type: str
    message: str
    path: NotRequired[str]


class SystemInitData(TypedDict):
    """The ``system/init`` wire dict (``SystemMessage.data`` of an init message)."""

    type: Literal["system"]
    subtype: Literal["init"]
    uuid: str
    session_id: str
    agents: NotRequired[List[str]]
    apiKeySource: str
    betas: NotRequired[List[str]]
    claude_code_version: str
    cwd: str
    tools: List[str]
    mcp_servers: List[SystemInitMcpServer]
    model: str
    permissionMode: str
    slash_commands: List[str]
    terminal_slash_commands: NotRequired[List[str]]
    output_style: str
    skills: List[str]
    plugins: List[SystemInitPlugin]
    plugin_errors: NotRequired[List[SystemInitPluginError]]
    fast_mode_state: NotRequired[FastModeState]
    fast_mode_disabled_reason: NotRequired[FastModeDisabledReason]
    capabilities: NotRequired[List[str]]


# ------------------------------------------------------------------ control protocol


class SDKControlInterruptRequest(TypedDict):
    subtype: Literal["interrupt"]


class SDKControlPermissionRequest(TypedDict):
    subtype: Literal["can_use_tool"]
    tool_name: str
    input: Dict[str, Any]
    permission_suggestions: Optional[List[Dict[str, Any]]]
    blocked_path: Optional[str]
    decision_reason: NotRequired[str]
    title: NotRequired[str]
    display_name: NotRequired[str]
    description: NotRequired[str]
    tool_use_id: str
    agent_id: NotRequired[str]


class SDKControlInitializeRequest(TypedDict):
    subtype: Literal["initialize"]
    hooks: Optional[Dict[str, Any]]
    agents: NotRequired[Dict[str, Dict[str, Any]]]
    excludeDynamicSections: NotRequired[bool]
    systemPromptSnapshot: NotRequired[bool]
    skills: NotRequired[List[str]]
    forwardSubagentText: NotRequired[bool]


class SDKControlSetPermissionModeRequest(TypedDict):
    subtype: Literal["set_permission_mode"]
    mode: str


class SDKHookCallbackRequest(TypedDict):
    subtype: Literal["hook_callback"]
    callback_id: str
    input: Any
    tool_use_id: Optional[str]


class SDKControlMcpMessageRequest(TypedDict):
    subtype: Literal["mcp_message"]
    server_name: str
    message: Any


class SDKControlRewindFilesRequest(TypedDict):
    subtype: Literal["rewind_files"]
    user_message_id: str


class SDKControlMcpReconnectRequest(TypedDict):
    subtype: Literal["mcp_reconnect"]
    serverName: str


class SDKControlMcpToggleRequest(TypedDict):
    subtype: Literal["mcp_toggle"]
    serverName: str
    enabled: bool


class SDKControlStopTaskRequest(TypedDict):
    subtype: Literal["stop_task"]
    task_id: str


class SDKControlRequest(TypedDict):
    """A ``control_request`` line (either direction)."""

    type: Literal["control_request"]
    request_id: str
    request: Union[
        SDKControlInterruptRequest, SDKControlPermissionRequest, SDKControlInitializeRequest,
        SDKControlSetPermissionModeRequest, SDKHookCallbackRequest, SDKControlMcpMessageRequest,
        SDKControlRewindFilesRequest, SDKControlMcpReconnectRequest, SDKControlMcpToggleRequest,
        SDKControlStopTaskRequest,
    ]  # fmt: skip


class ControlResponse(TypedDict):
    subtype: Literal["success"]
    request_id: str
    response: Optional[Dict[str, Any]]


class ControlErrorResponse(TypedDict):
    subtype: Literal["error"]
    request_id: str
    error: str


class SDKControlResponse(TypedDict):
    """A ``control_response`` line."""

    type: Literal["control_response"]
    response: Union[ControlResponse, ControlErrorResponse]
