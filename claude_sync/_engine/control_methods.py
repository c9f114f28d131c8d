"""Typed client methods for control requests the TypeScript SDK wraps and both Python SDKs lack.

``ClaudeSDKClient`` inherits them. Each sends one control request (any thread, like every
control method) and returns a typed answer from ``_wire.control_results``; each raises what
``send_control_request`` raises: ``ControlRequestError`` with the CLI's own text (e.g. a
missing file for ``read_file``), ``ControlTimeoutError``, ``CLIConnectionError``,
``UsageError``. Checked against the real CLI 2.1.197 and 2.1.330 (``tests/e2e``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .._mcp.config import sdk_server_instance
from .._options.options import ClaudeAgentOptions
from .._wire.control_results import (
    McpSetServersResult,
    ReadFileResult,
    ReloadPluginsResult,
    UsageResult,
)

__all__ = ["TsControlMethods"]


class TsControlMethods:
    """``apply_flag_settings``, ``set_mcp_servers``, ``reload_plugins``, ``read_file``,
    ``background_tasks``, ``get_usage`` (mixed into ``ClaudeSDKClient``)."""

    options: ClaudeAgentOptions

    def send_control_request(
        self, subtype: str, payload: Optional[Dict[str, Any]] = None, *, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        raise NotImplementedError  # pragma: no cover - ClaudeSDKClient's own wins

    def apply_flag_settings(self, settings: Mapping[str, Any], *, timeout: Optional[float] = None) -> None:
        """Merge ``settings`` (a partial settings object, e.g. ``{"model": …}`` or
        ``{"permissions": {"deny": [...]}}``; a None value removes a key) into the session's
        flag-settings layer and apply them live."""
        if not isinstance(settings, Mapping):
            raise TypeError(f"settings must be a dict, not {type(settings).__name__}")
        self.send_control_request("apply_flag_settings", {"settings": dict(settings)}, timeout=timeout)

    def set_mcp_servers(
        self, servers: Mapping[str, Any], *, timeout: Optional[float] = None
    ) -> McpSetServersResult:
        """Replace the session's dynamically added MCP servers with ``servers`` (external
        configs: stdio / sse / http); returns which were added, removed, and failed.

        The CLI also drops the in-process servers a call leaves out, so this client names the
        ones of ``options.mcp_servers`` again on every call: they stay. An in-process server
        that is not in ``options.mcp_servers`` under the same name cannot be added here.

        Raises ``ValueError`` for such a server, ``TypeError`` for a malformed entry.
        """
        wire: Dict[str, Any] = {}
        for name, config in servers.items():
            if sdk_server_instance(str(name), config) is not None:
                if str(name) not in self._own_sdk_servers():
                    raise ValueError(
                        f"set_mcp_servers: {name!r} is an in-process server; claude_sync serves "
                        "only those given in ClaudeAgentOptions.mcp_servers (under that name)"
                    )
            elif not isinstance(config, Mapping):
                raise TypeError(f"set_mcp_servers: {name!r} must be a server config dict")
            else:
                wire[str(name)] = dict(config)
        for name in self._own_sdk_servers():
            wire[name] = {"type": "sdk", "name": name}
        answer = self.send_control_request("mcp_set_servers", {"servers": wire}, timeout=timeout)
        return McpSetServersResult.from_wire(answer)

    def _own_sdk_servers(self) -> List[str]:
        configured = self.options.mcp_servers
        if not isinstance(configured, Mapping):
            return []
        return [str(k) for k, v in configured.items() if sdk_server_instance(str(k), v) is not None]

    def reload_plugins(
        self,
        *,
        hold_on_cache_impact: bool = False,
        add_plugins: Optional[List[Dict[str, Any]]] = None,
        refuse_if_busy: bool = False,
        timeout: Optional[float] = None,
    ) -> ReloadPluginsResult:
        """Reload plugins from disk (``add_plugins``: more ``{"type": "local", "path": …}``
        plugins, absolute paths); returns the refreshed commands, agents, plugins and MCP
        server status. ``hold_on_cache_impact`` / ``refuse_if_busy`` as in the TypeScript SDK."""
        payload: Dict[str, Any] = {}
        if hold_on_cache_impact:
            payload["hold_on_cache_impact"] = True
        if add_plugins:
            payload["add_plugins"] = [dict(plugin) for plugin in add_plugins]
        if refuse_if_busy:
            payload["refuse_if_busy"] = True
        answer = self.send_control_request("reload_plugins", payload, timeout=timeout)
        return ReloadPluginsResult.from_wire(answer)

    def read_file(
        self,
        path: str,
        *,
        max_bytes: Optional[int] = None,
        encoding: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> ReadFileResult:
        """Read a file through the CLI (relative to its cwd; gated by the Read tool's
        permission rules). ``max_bytes`` caps it (the CLI's default is 1 MB); ``encoding``
        ``"base64"`` for binary files. A missing or denied file raises ``ControlRequestError``
        (the TypeScript SDK returns null)."""
        if encoding not in (None, "utf-8", "base64"):
            raise ValueError(f"encoding must be 'utf-8' or 'base64', not {encoding!r}")
        payload: Dict[str, Any] = {"path": path}
        if max_bytes is not None:
            payload["max_bytes"] = max_bytes
        if encoding is not None:
            payload["encoding"] = encoding
        return ReadFileResult.from_wire(self.send_control_request("read_file", payload, timeout=timeout))

    def background_tasks(self, tool_use_id: Optional[str] = None, *, timeout: Optional[float] = None) -> bool:
        """Send running foreground tasks (Bash commands, subagents) to the background, or only
        the one started by ``tool_use_id``. True when something was backgrounded."""
        payload: Dict[str, Any] = {} if tool_use_id is None else {"tool_use_id": tool_use_id}
        answer = self.send_control_request("background_tasks", payload, timeout=timeout)
        backgrounded = answer.get("backgrounded", True)
        return bool(backgrounded)

    def get_usage(self, *, skip_behaviors: bool = False, timeout: Optional[float] = None) -> UsageResult:
        """The session's cost and usage, and plan rate limits where they apply (the
        TypeScript SDK's experimental ``usage_…`` method; its shape may change)."""
        payload: Dict[str, Any] = {"skip_behaviors": True} if skip_behaviors else {}
        return UsageResult.from_wire(self.send_control_request("get_usage", payload, timeout=timeout))
