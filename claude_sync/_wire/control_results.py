"""Typed answers of the control requests behind ``ClaudeSDKClient.set_mcp_servers``,
``reload_plugins``, ``read_file`` and ``get_usage`` (pure records, each with ``from_wire``;
``raw`` keeps the whole answer).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Mapping, Optional

from .record import FrozenRecord, frozen_record

__all__ = ["McpSetServersResult", "ReadFileResult", "ReloadPluginsResult", "UsageResult"]


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
