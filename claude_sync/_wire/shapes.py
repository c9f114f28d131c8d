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
"""``"allowed"``, ``"allowed_warning"`` or ``"rejected"`` (``RateLimitInfo.status``)."""
RateLimitType = Literal["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "overage"]
"""Which limit a ``RateLimitEvent`` is about: ``"five_hour"``, ``"seven_day"``, ``"seven_day_opus"``,
``"seven_day_sonnet"`` or ``"overage"``."""
ServerToolName = Literal[
    "advisor", "web_search", "web_fetch", "code_execution", "bash_code_execution",
    "text_editor_code_execution", "tool_search_tool_regex", "tool_search_tool_bm25",
]  # fmt: skip
"""The tools the API runs itself (``ServerToolUseBlock.name``): ``"web_search"``, ``"web_fetch"``,
``"code_execution"`` …."""
TaskNotificationStatus = Literal["completed", "failed", "stopped"]
"""How a task ended (``TaskNotificationMessage.status``): ``"completed"``, ``"failed"`` or
``"stopped"``."""
TaskUpdatedStatus = Literal["pending", "running", "paused", "completed", "failed", "killed"]
"""A task's status in ``TaskUpdatedMessage``: ``"pending"``, ``"running"``, ``"paused"``,
``"completed"``, ``"failed"`` or ``"killed"``."""
TaskNotificationOriginSubkind = Literal["scheduled-trigger", "peer-send-message"]
"""``"scheduled-trigger"`` or ``"peer-send-message"`` (``MessageOrigin["subkind"]``)."""
MessageOriginKind = Literal[
    "human", "channel", "peer", "task-notification", "coordinator", "unclassified", "observer",
    "auto-continuation", "observer-activity",
]  # fmt: skip
"""Who a turn came from (``MessageOrigin["kind"]``): ``"human"``, ``"channel"``, ``"peer"``,
``"task-notification"``, ``"coordinator"`` …."""
FastModeState = Literal["off", "cooldown", "on"]
"""``"off"``, ``"cooldown"`` or ``"on"`` (``system/init`` ``fast_mode_state``)."""
FastModeDisabledReason = Literal[
    "free", "preference", "extra_usage_disabled", "network_error", "unknown", "not_first_party",
    "disabled_by_env", "model_not_allowed", "sdk_opt_in_required", "pending",
]  # fmt: skip
"""Why fast mode is off, as ``system/init`` reports it (``"free"``, ``"preference"``,
``"network_error"``, ``"model_not_allowed"`` …)."""

TERMINAL_TASK_STATUSES: FrozenSet[str] = frozenset({"completed", "failed", "stopped", "killed"})
"""Task statuses after which a task never changes again (``TaskUpdatedMessage.status``)."""

# ------------------------------------------------------------------ message payloads


class TaskUsage(TypedDict):
    """``usage`` of task progress / notification messages.

    Keys:
        total_tokens: Tokens the task used so far.
        tool_uses: Tool calls the task made so far.
        duration_ms: How long the task has run, in milliseconds.
    """

    total_tokens: int
    tool_uses: int
    duration_ms: int


class ModelUsage(TypedDict):
    """One model's entry of ``ResultMessage.model_usage``.

    Keys:
        inputTokens: Input tokens sent to this model.
        outputTokens: Output tokens it produced.
        cacheReadInputTokens: Input tokens read from the prompt cache.
        cacheCreationInputTokens: Input tokens written to the prompt cache.
        webSearchRequests: Web searches it ran.
        costUSD: What it cost, in US dollars.
        contextWindow: The model's context window, in tokens.
        maxOutputTokens: The most output tokens one of its replies may have.
        canonicalModel: The model's canonical name, when the CLI reports one.
        provider: The API provider used (newer CLIs).
    """

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
"""Who a turn came from (``UserMessage.origin``, ``ResultMessage.origin``). Keys: ``kind``
(a ``MessageOriginKind``, always there); ``server`` (the channel's MCP server); ``from`` and
``name`` (who sent it); ``fromSession`` and ``senderTaskId`` (the sending session or task of
a peer); ``body`` (the original text); ``verifiedPeerPid`` (the peer process, when verified);
``subkind`` (a ``TaskNotificationOriginSubkind``)."""


class SystemInitMcpServer(TypedDict):
    """One MCP server in ``system/init``: ``name`` and connection ``status``.

    Keys:
        name: The server's name.
        status: Its connection status (``connected``, ``failed``, ``pending`` …).
        source: Where its config came from (newer CLIs).
    """

    name: str
    status: str
    source: NotRequired[str]


class SystemInitPlugin(TypedDict):
    """One plugin in ``system/init``: ``name``, ``path``, ``version``.

    Keys:
        name: The plugin's name.
        path: Where it was loaded from.
        version: Its version, when it has one.
    """

    name: str
    path: str
    version: NotRequired[str]


class SystemInitPluginError(TypedDict):
    """A plugin that failed to load, as ``system/init`` reports it.

    Keys:
        plugin: The plugin that failed.
        type: The kind of failure.
        message: What went wrong.
        path: Where the plugin lives, when known.
    """

    plugin: str
    type: str
    message: str
    path: NotRequired[str]


class SystemInitData(TypedDict):
    """The ``system/init`` wire dict (``SystemMessage.data`` of an init message).

    Keys:
        type: ``"system"``.
        subtype: ``"init"``.
        uuid: The line's id.
        session_id: The session's id.
        agents: The subagents the session can start.
        apiKeySource: Where the CLI's credentials come from.
        betas: The API betas in use.
        claude_code_version: The CLI's version.
        cwd: The CLI's working directory.
        tools: The tools the model may call.
        mcp_servers: Each MCP server's name and status.
        model: The model in use.
        permissionMode: The permission mode in force.
        slash_commands: The slash commands the session knows.
        terminal_slash_commands: The slash commands only the terminal UI offers.
        output_style: The output style in force.
        skills: The skills loaded.
        plugins: The plugins loaded.
        plugin_errors: The plugins that failed to load.
        fast_mode_state: ``off``, ``cooldown`` or ``on``.
        fast_mode_disabled_reason: Why fast mode is off, when it is.
        capabilities: Capabilities the CLI announces (newer CLIs).
    """

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
    """The CLI is asked to abort the running turn (``ClaudeSDKClient.interrupt``).

    Keys:
        subtype: The request's kind, ``"interrupt"``.
    """

    subtype: Literal["interrupt"]


class SDKControlPermissionRequest(TypedDict):
    """The CLI asks whether a tool may run (answered by ``can_use_tool``).

    Keys:
        subtype: The request's kind, ``"can_use_tool"``.
        tool_name: The tool the model wants to run.
        input: The tool's input.
        permission_suggestions: Permission updates the CLI suggests (e.g. always allow this
            command).
        blocked_path: The path that made the CLI ask, when one did.
        decision_reason: Why the CLI asks.
        title: A title for a permission prompt.
        display_name: The tool's display name.
        description: A description of the call.
        tool_use_id: The id of the tool call.
        agent_id: The subagent asking, when not the main agent.
    """

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
    """The first request of a session: hooks, agents and other options the CLI learns through the
    protocol.

    Keys:
        subtype: The request's kind, ``"initialize"``.
        hooks: The hook matchers by event, with the callback ids the CLI will call back.
        agents: Subagent definitions by name.
        excludeDynamicSections: Leave the dynamic sections out of the system prompt.
        systemPromptSnapshot: Ask the CLI for a snapshot of its system prompt.
        skills: The skills to load.
        forwardSubagentText: Forward the text of subagents to the SDK.
    """

    subtype: Literal["initialize"]
    hooks: Optional[Dict[str, Any]]
    agents: NotRequired[Dict[str, Dict[str, Any]]]
    excludeDynamicSections: NotRequired[bool]
    systemPromptSnapshot: NotRequired[bool]
    skills: NotRequired[List[str]]
    forwardSubagentText: NotRequired[bool]


class SDKControlSetPermissionModeRequest(TypedDict):
    """The CLI is asked to change its permission mode.

    Keys:
        subtype: The request's kind, ``"set_permission_mode"``.
        mode: The new permission mode.
    """

    subtype: Literal["set_permission_mode"]
    mode: str


class SDKHookCallbackRequest(TypedDict):
    """The CLI asks a registered hook callback to run.

    Keys:
        subtype: The request's kind, ``"hook_callback"``.
        callback_id: Which registered hook to run.
        input: The hook input (one of the hook input dicts).
        tool_use_id: The tool call the hook is about, if any.
    """

    subtype: Literal["hook_callback"]
    callback_id: str
    input: Any
    tool_use_id: Optional[str]


class SDKControlMcpMessageRequest(TypedDict):
    """The CLI sends a JSON-RPC message to an in-process MCP server.

    Keys:
        subtype: The request's kind, ``"mcp_message"``.
        server_name: The in-process MCP server addressed.
        message: The JSON-RPC message for it.
    """

    subtype: Literal["mcp_message"]
    server_name: str
    message: Any


class SDKControlRewindFilesRequest(TypedDict):
    """The CLI is asked to restore files to their state at a user message.

    Keys:
        subtype: The request's kind, ``"rewind_files"``.
        user_message_id: The user message whose file state to restore.
    """

    subtype: Literal["rewind_files"]
    user_message_id: str


class SDKControlMcpReconnectRequest(TypedDict):
    """The CLI is asked to reconnect an MCP server.

    Keys:
        subtype: The request's kind, ``"mcp_reconnect"``.
        serverName: The MCP server to reconnect.
    """

    subtype: Literal["mcp_reconnect"]
    serverName: str


class SDKControlMcpToggleRequest(TypedDict):
    """The CLI is asked to enable or disable an MCP server.

    Keys:
        subtype: The request's kind, ``"mcp_toggle"``.
        serverName: The MCP server to switch.
        enabled: On or off.
    """

    subtype: Literal["mcp_toggle"]
    serverName: str
    enabled: bool


class SDKControlStopTaskRequest(TypedDict):
    """The CLI is asked to stop a background task.

    Keys:
        subtype: The request's kind, ``"stop_task"``.
        task_id: The background task to stop.
    """

    subtype: Literal["stop_task"]
    task_id: str


class SDKControlRequest(TypedDict):
    """A ``control_request`` line (either direction).

    Keys:
        type: ``"control_request"``.
        request_id: The id the answer will carry.
        request: The request itself (one of the ``SDKControl*Request`` shapes).
    """

    type: Literal["control_request"]
    request_id: str
    request: Union[
        SDKControlInterruptRequest, SDKControlPermissionRequest, SDKControlInitializeRequest,
        SDKControlSetPermissionModeRequest, SDKHookCallbackRequest, SDKControlMcpMessageRequest,
        SDKControlRewindFilesRequest, SDKControlMcpReconnectRequest, SDKControlMcpToggleRequest,
        SDKControlStopTaskRequest,
    ]  # fmt: skip


class ControlResponse(TypedDict):
    """A successful answer to a control request.

    Keys:
        subtype: ``"success"``.
        request_id: The id of the request answered.
        response: The answer's payload.
    """

    subtype: Literal["success"]
    request_id: str
    response: Optional[Dict[str, Any]]


class ControlErrorResponse(TypedDict):
    """A failed answer to a control request.

    Keys:
        subtype: ``"error"``.
        request_id: The id of the request answered.
        error: What went wrong, as text.
    """

    subtype: Literal["error"]
    request_id: str
    error: str


class SDKControlResponse(TypedDict):
    """A ``control_response`` line.

    Keys:
        type: ``"control_response"``.
        response: The answer: a success or an error.
    """

    type: Literal["control_response"]
    response: Union[ControlResponse, ControlErrorResponse]
