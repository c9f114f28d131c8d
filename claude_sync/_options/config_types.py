"""Typed shapes of option values and of control-request answers (TypedDicts and Literals).

Option values: ``SandboxSettings``, ``ThinkingConfig*``, ``SdkPluginConfig``, ``SdkBeta``.
Answers: ``McpStatusResponse`` (``get_mcp_status()``), ``ContextUsageResponse``
(``get_context_usage()``). Names and keys follow the official SDK (camelCase where the wire
is). Type hints only: options accept any dict of this shape, answers are the CLI's dicts.

Not imported by ``import claude_sync``; see ``claude_sync.types``. Pure module.
"""


from typing import Any, Dict, List, Literal, Optional, Union

from typing_extensions import NotRequired, TypedDict

from .._mcp.config import McpHttpServerConfig, McpSSEServerConfig, McpStdioServerConfig

__all__ = [
    "ContextUsageCategory", "ContextUsageResponse", "McpClaudeAIProxyServerConfig",
    "McpSdkServerConfigStatus", "McpServer", "McpServerConnectionStatus", "McpServerInfo",
    "McpServerStatus", "McpServerStatusConfig", "McpStatusResponse", "McpToolAnnotations",
    "McpToolInfo", "SandboxIgnoreViolations", "SandboxNetworkConfig", "SandboxSettings",
    "SdkBeta", "SdkPluginConfig", "ThinkingConfig", "ThinkingConfigAdaptive",
    "ThinkingConfigDisabled", "ThinkingConfigEnabled", "ThinkingDisplay",
]  # fmt: skip

# ------------------------------------------------------------------ option values

SdkBeta = Literal["context-1m-2025-08-07"]
"""A beta header the CLI accepts in ``betas``."""

ThinkingDisplay = Literal["summarized", "omitted"]
"""How thinking is shown: ``"summarized"`` or ``"omitted"``."""


class ThinkingConfigAdaptive(TypedDict):
    """The model decides how much to think (``--thinking adaptive``).

    Keys:
        type: ``"adaptive"``.
        display: ``"summarized"`` or ``"omitted"``: how thinking is shown (``--thinking-display``).
    """

    type: Literal["adaptive"]
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigEnabled(TypedDict):
    """Think with a token budget (``--max-thinking-tokens``).

    Keys:
        type: ``"enabled"``.
        budget_tokens: The most tokens the model may think per turn.
        display: ``"summarized"`` or ``"omitted"``: how thinking is shown (``--thinking-display``).
    """

    type: Literal["enabled"]
    budget_tokens: int
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigDisabled(TypedDict):
    """No thinking (``--thinking disabled``).

    Keys:
        type: ``"disabled"``.
    """

    type: Literal["disabled"]


ThinkingConfig = Union[ThinkingConfigAdaptive, ThinkingConfigEnabled, ThinkingConfigDisabled]
"""``ClaudeAgentOptions.thinking``: adaptive, enabled with a ``budget_tokens``, or disabled."""


class SandboxNetworkConfig(TypedDict, total=False):
    """Network rules of the sandbox (keys as in the CLI's settings file).

    Keys:
        allowedDomains: Domains sandboxed commands may reach.
        deniedDomains: Domains they may not reach.
        allowManagedDomainsOnly: Allow only the domains managed settings allow.
        allowUnixSockets: Unix socket paths they may use.
        allowAllUnixSockets: Allow every Unix socket.
        allowLocalBinding: Allow binding local ports.
        allowMachLookup: macOS Mach services they may look up.
        httpProxyPort: The port of an HTTP proxy to route through.
        socksProxyPort: The port of a SOCKS proxy to route through.
    """

    allowedDomains: List[str]
    deniedDomains: List[str]
    allowManagedDomainsOnly: bool
    allowUnixSockets: List[str]
    allowAllUnixSockets: bool
    allowLocalBinding: bool
    allowMachLookup: List[str]
    httpProxyPort: int
    socksProxyPort: int


SandboxIgnoreViolations = Dict[str, List[str]]
"""Sandbox violations to ignore: a kind (``"file"``, ``"network"``) to a list of patterns."""


class SandboxSettings(TypedDict, total=False):
    """The ``sandbox`` option: merged into ``--settings`` under the ``sandbox`` key.

    Keys:
        enabled: Run Bash commands in the sandbox.
        autoAllowBashIfSandboxed: Allow sandboxed Bash commands without asking.
        excludedCommands: Commands that run outside the sandbox.
        allowUnsandboxedCommands: Let the model ask to run a command outside the sandbox.
        network: The sandbox's network rules.
        ignoreViolations: Violations to ignore: a kind (``file``, ``network``) to a list of
            patterns.
        enableWeakerNestedSandbox: Allow a weaker sandbox where the strong one cannot nest (inside
            containers).
    """

    enabled: bool
    autoAllowBashIfSandboxed: bool
    excludedCommands: List[str]
    allowUnsandboxedCommands: bool
    network: SandboxNetworkConfig
    ignoreViolations: SandboxIgnoreViolations
    enableWeakerNestedSandbox: bool


class SdkPluginConfig(TypedDict):
    """A local plugin directory (``--plugin-dir``).

    Keys:
        type: ``"local"``.
        path: The plugin's directory.
    """

    type: Literal["local"]
    path: str


# ------------------------------------------------------------------ MCP status

McpServer = Any
"""An ``mcp`` package server instance (``McpSdkServerConfig["instance"]``)."""

McpServerConnectionStatus = Literal["connected", "failed", "needs-auth", "pending", "disabled"]
"""``"connected"``, ``"failed"``, ``"needs-auth"``, ``"pending"`` or ``"disabled"``
(``get_mcp_status()``)."""


class McpSdkServerConfigStatus(TypedDict):
    """An in-process server as ``mcp_status`` reports it (no instance).

    Keys:
        type: ``"sdk"``.
        name: The server's name.
    """

    type: Literal["sdk"]
    name: str


class McpClaudeAIProxyServerConfig(TypedDict):
    """A claude.ai connector proxied by the CLI.

    Keys:
        type: ``"claudeai-proxy"``.
        url: The connector's URL.
        id: The connector's id.
    """

    type: Literal["claudeai-proxy"]
    url: str
    id: str


McpServerStatusConfig = Union[
    McpStdioServerConfig,
    McpSSEServerConfig,
    McpHttpServerConfig,
    McpSdkServerConfigStatus,
    McpClaudeAIProxyServerConfig,
]
"""The ``config`` of a server in ``get_mcp_status()``: stdio, SSE, HTTP, an in-process server, or a
claude.ai proxy."""


class McpServerInfo(TypedDict):
    """An MCP server's ``name`` and ``version``, as it reported them when it connected.

    Keys:
        name: The name the server reported.
        version: The version it reported.
    """

    name: str
    version: str


class McpToolAnnotations(TypedDict, total=False):
    """Tool hints as ``mcp_status`` reports them (not the ``@tool`` annotations).

    Keys:
        readOnly: The tool only reads.
        destructive: The tool may destroy data.
        openWorld: The tool reaches outside systems.
    """

    readOnly: bool
    destructive: bool
    openWorld: bool


class McpToolInfo(TypedDict):
    """One tool of an MCP server in ``get_mcp_status()``: ``name``, ``description``, ``annotations``.

    Keys:
        name: The tool's name.
        description: Its description.
        annotations: Its hints.
    """

    name: str
    description: NotRequired[str]
    annotations: NotRequired[McpToolAnnotations]


class McpServerStatus(TypedDict):
    """One server of ``get_mcp_status()["mcpServers"]``.

    Keys:
        name: The server's name.
        status: ``connected``, ``failed``, ``needs-auth``, ``pending`` or ``disabled``.
        serverInfo: The name and version it reported, once connected.
        error: Why it failed, when it did.
        config: Its config (an in-process server's without the instance).
        scope: Where its config came from (``project``, ``user``, ``sdk`` …).
        tools: Its tools, once connected.
    """

    name: str
    status: McpServerConnectionStatus
    serverInfo: NotRequired[McpServerInfo]
    error: NotRequired[str]
    config: NotRequired[McpServerStatusConfig]
    scope: NotRequired[str]
    tools: NotRequired[List[McpToolInfo]]


class McpStatusResponse(TypedDict):
    """What ``get_mcp_status()`` returns.

    Keys:
        mcpServers: Every server's status.
        connectorsPending: ``True`` while the claude.ai connectors are still being fetched or
            mounted, so ``mcpServers`` may change: ask again (CLI 2.1.333+, marked internal
            there; absent otherwise, and on older CLIs).
    """

    mcpServers: List[McpServerStatus]
    connectorsPending: NotRequired[bool]


# ------------------------------------------------------------------ context usage


class ContextUsageCategory(TypedDict):
    """One category of ``get_context_usage()``: its ``name``, ``tokens`` and display ``color``.

    Keys:
        name: The category (system prompt, tools, messages …).
        tokens: Tokens it takes.
        color: The colour the CLI shows it in.
        isDeferred: Whether its tools are deferred (loaded on demand).
    """

    name: str
    tokens: int
    color: str
    isDeferred: NotRequired[bool]


class ContextUsageResponse(TypedDict):
    """What ``get_context_usage()`` returns: the context window broken down by category.

    Keys:
        categories: The context window by category.
        totalTokens: Tokens in use.
        maxTokens: The usable context window, in tokens.
        rawMaxTokens: The model's whole context window, in tokens.
        percentage: How full the window is, in percent.
        model: The model.
        isAutoCompactEnabled: Whether the CLI compacts automatically when the window fills.
        memoryFiles: The memory files (``CLAUDE.md`` …) loaded and their sizes.
        mcpTools: The MCP tools and their sizes.
        agents: The subagents and their sizes.
        gridRows: The CLI's ``/context`` grid, row by row.
        autoCompactThreshold: The token count at which the CLI compacts.
        deferredBuiltinTools: Built-in tools loaded on demand.
        systemTools: The built-in tools and their sizes.
        systemPromptSections: The system prompt's sections and their sizes.
        slashCommands: What the slash commands take.
        skills: What the skills take.
        messageBreakdown: What the messages take, by kind.
        apiUsage: The last API call's usage, when there was one.
    """

    categories: List[ContextUsageCategory]
    totalTokens: int
    maxTokens: int
    rawMaxTokens: int
    percentage: float
    model: str
    isAutoCompactEnabled: bool
    memoryFiles: List[Dict[str, Any]]
    mcpTools: List[Dict[str, Any]]
    agents: List[Dict[str, Any]]
    gridRows: List[List[Dict[str, Any]]]
    autoCompactThreshold: NotRequired[int]
    deferredBuiltinTools: NotRequired[List[Dict[str, Any]]]
    systemTools: NotRequired[List[Dict[str, Any]]]
    systemPromptSections: NotRequired[List[Dict[str, Any]]]
    slashCommands: NotRequired[Dict[str, Any]]
    skills: NotRequired[Dict[str, Any]]
    messageBreakdown: NotRequired[Dict[str, Any]]
    apiUsage: NotRequired[Optional[Dict[str, Any]]]
