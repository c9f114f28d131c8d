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


class ThinkingConfigAdaptive(TypedDict):
    """The model decides how much to think (``--thinking adaptive``)."""

    type: Literal["adaptive"]
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigEnabled(TypedDict):
    """Think with a token budget (``--max-thinking-tokens``)."""

    type: Literal["enabled"]
    budget_tokens: int
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigDisabled(TypedDict):
    """No thinking (``--thinking disabled``)."""

    type: Literal["disabled"]


ThinkingConfig = Union[ThinkingConfigAdaptive, ThinkingConfigEnabled, ThinkingConfigDisabled]


class SandboxNetworkConfig(TypedDict, total=False):
    """Network rules of the sandbox (keys as in the CLI's settings file)."""

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


class SandboxSettings(TypedDict, total=False):
    """The ``sandbox`` option: merged into ``--settings`` under the ``sandbox`` key."""

    enabled: bool
    autoAllowBashIfSandboxed: bool
    excludedCommands: List[str]
    allowUnsandboxedCommands: bool
    network: SandboxNetworkConfig
    ignoreViolations: SandboxIgnoreViolations
    enableWeakerNestedSandbox: bool


class SdkPluginConfig(TypedDict):
    """A local plugin directory (``--plugin-dir``)."""

    type: Literal["local"]
    path: str


# ------------------------------------------------------------------ MCP status

McpServer = Any
"""An ``mcp`` package server instance (``McpSdkServerConfig["instance"]``)."""

McpServerConnectionStatus = Literal["connected", "failed", "needs-auth", "pending", "disabled"]


class McpSdkServerConfigStatus(TypedDict):
    """An in-process server as ``mcp_status`` reports it (no instance)."""

    type: Literal["sdk"]
    name: str


class McpClaudeAIProxyServerConfig(TypedDict):
    """A claude.ai connector proxied by the CLI."""

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


class McpServerInfo(TypedDict):
    """An MCP server's ``name`` and ``version``, as it reported them when it connected."""

    name: str
    version: str


class McpToolAnnotations(TypedDict, total=False):
    """Tool hints as ``mcp_status`` reports them (not the ``@tool`` annotations)."""

    readOnly: bool
    destructive: bool
    openWorld: bool


class McpToolInfo(TypedDict):
    """One tool of an MCP server in ``get_mcp_status()``: ``name``, ``description``, ``annotations``."""

    name: str
    description: NotRequired[str]
    annotations: NotRequired[McpToolAnnotations]


class McpServerStatus(TypedDict):
    """One server of ``get_mcp_status()["mcpServers"]``."""

    name: str
    status: McpServerConnectionStatus
    serverInfo: NotRequired[McpServerInfo]
    error: NotRequired[str]
    config: NotRequired[McpServerStatusConfig]
    scope: NotRequired[str]
    tools: NotRequired[List[McpToolInfo]]


class McpStatusResponse(TypedDict):
    """What ``get_mcp_status()`` returns."""

    mcpServers: List[McpServerStatus]


# ------------------------------------------------------------------ context usage


class ContextUsageCategory(TypedDict):
    """One category of ``get_context_usage()``: its ``name``, ``tokens`` and display ``color``."""

    name: str
    tokens: int
    color: str
    isDeferred: NotRequired[bool]


class ContextUsageResponse(TypedDict):
    """What ``get_context_usage()`` returns: the context window broken down by category."""

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
