"""The entries of ``mcp_servers``: the official config shapes (stdio, SSE, HTTP, in-process),
and telling our ``SdkMcpServer`` from a server built with the ``mcp`` package (pure; ``mcp``
is never imported here: a user's object is recognised by the module its class comes from).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Mapping, TypedDict

__all__ = [
    "McpHttpServerConfig",
    "McpSSEServerConfig",
    "McpSdkServerConfig",
    "McpStdioServerConfig",
    "is_mcp_package_server",
    "mcp_package_lowlevel_server",
    "sdk_server_instance",
]



class McpStdioServerConfig(TypedDict, total=False):
    """An MCP server the CLI starts as a subprocess and talks to over stdio.

    Keys:
        type: ``"stdio"`` (may be left out).
        command: The program to start.
        args: Its arguments.
        env: Environment variables for it.
        timeout: The CLI's limit on one tool call of this server, in **milliseconds** (this
            dict is the CLI's own config; 1000 or more: the CLI ignores less). CLI 2.1.332+.
        alwaysLoad: Every tool of the server always in the prompt, never deferred behind tool
            search (connecting then holds up the start, up to 5 s). CLI 2.1.332+.
    """

    type: Literal["stdio"]
    command: str
    args: List[str]
    env: Dict[str, str]
    timeout: int
    alwaysLoad: bool


class McpSSEServerConfig(TypedDict, total=False):
    """An MCP server the CLI reaches over Server-Sent Events.

    Keys:
        type: ``"sse"``.
        url: The server's URL.
        headers: HTTP headers to send.
        timeout: The CLI's limit on one tool call of this server, in **milliseconds** (1000 or
            more). CLI 2.1.332+.
        alwaysLoad: Every tool of the server always in the prompt, never deferred behind tool
            search. CLI 2.1.332+.
    """

    type: Literal["sse"]
    url: str
    headers: Dict[str, str]
    timeout: int
    alwaysLoad: bool


class McpHttpServerConfig(TypedDict, total=False):
    """An MCP server the CLI reaches over streamable HTTP.

    Keys:
        type: ``"http"``.
        url: The server's URL.
        headers: HTTP headers to send.
        timeout: The CLI's limit on one tool call of this server, in **milliseconds** (1000 or
            more). CLI 2.1.332+.
        alwaysLoad: Every tool of the server always in the prompt, never deferred behind tool
            search. CLI 2.1.332+.
    """

    type: Literal["http"]
    url: str
    headers: Dict[str, str]
    timeout: int
    alwaysLoad: bool


class McpSdkServerConfig(TypedDict):
    """An in-process MCP server: ``instance`` answers the CLI's MCP traffic in this process.

    Keys:
        type: ``"sdk"``.
        name: The server's name.
        instance: The server: an ``SdkMcpServer`` from ``create_sdk_mcp_server``, or an ``mcp``
            package server.
    """

    type: Literal["sdk"]
    name: str
    instance: Any

def is_own_server(value: Any) -> bool:
    """An ``SdkMcpServer`` or a duck-typed stand-in (``type == "sdk"`` and ``handle``)."""
    return getattr(value, "type", None) == "sdk" and callable(getattr(value, "handle", None))


def is_mcp_package_server(value: Any) -> bool:
    """Whether ``value`` is a server object of the ``mcp`` package (never imports it).

    A low-level ``mcp.server.Server`` (or a subclass) is one; so is a FastMCP / ``MCPServer``
    object, which wraps one (see ``mcp_package_lowlevel_server``).
    """
    return mcp_package_lowlevel_server(value) is not None


def mcp_package_lowlevel_server(value: Any) -> Any:
    """The low-level ``mcp`` server to run for ``value``, or None when it is not one."""
    for candidate in (
        value,
        getattr(value, "_mcp_server", None),  # mcp 1.x FastMCP
        getattr(value, "_lowlevel_server", None),  # mcp 2.x MCPServer
    ):
        if candidate is not None and _from_mcp_package(type(candidate)):
            if callable(getattr(candidate, "run", None)) and callable(
                getattr(candidate, "create_initialization_options", None)
            ):
                return candidate
    return None


def _from_mcp_package(cls: type) -> bool:
    return any(
        getattr(base, "__module__", "").split(".")[0] == "mcp" for base in cls.__mro__
    )


def sdk_server_instance(name: str, config: Any) -> Any:
    """The in-process server of one ``mcp_servers`` entry, or None for an external server.

    ``config`` is an ``SdkMcpServer`` (returned as it is) or a mapping; a mapping of
    ``type`` ``"sdk"`` gives its ``instance``.

    Raises:
        ValueError: a ``"sdk"`` mapping without an ``instance``.
        TypeError: an ``instance`` that is neither an ``SdkMcpServer`` nor an ``mcp``
            package server.
    """
    if is_own_server(config):
        return config
    if not isinstance(config, Mapping) or config.get("type") != "sdk":
        return None
    instance = config.get("instance")
    if instance is None:
        raise ValueError(
            f"mcp_servers[{name!r}] is of type 'sdk' but has no 'instance': make it with "
            "create_sdk_mcp_server(), or set 'instance' to an mcp.server.Server"
        )
    if is_own_server(instance) or is_mcp_package_server(instance):
        return instance
    raise TypeError(
        f"mcp_servers[{name!r}]['instance'] must be a server from create_sdk_mcp_server() or "
        f"an mcp package server (mcp.server.Server, FastMCP), not {type(instance).__name__}"
    )
