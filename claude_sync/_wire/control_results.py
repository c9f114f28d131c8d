"""Typed answers of the control requests behind ``ClaudeSDKClient.set_mcp_servers``,
``reload_plugins``, ``read_file``, ``get_usage``, ``reload_skills``, ``read_mcp_resource``, and
of the server info's ``account`` / ``commands`` / ``models`` / ``agents`` (pure records, each
with ``from_wire``; ``raw`` keeps the whole answer).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Dict, List, Mapping, Optional

from .record import FrozenRecord, frozen_record

__all__ = [
    "AccountInfo", "AgentInfo", "McpResourceContent", "McpSetServersResult", "ModelInfo",
    "ReadFileResult", "ReloadPluginsResult", "SlashCommand", "UsageResult", "records_from_wire",
]  # fmt: skip


@frozen_record
class McpSetServersResult(FrozenRecord):
    """``set_mcp_servers``' answer: the servers ``added`` and ``removed``, and ``errors``
    (name → message) for those that failed to connect.

    Attributes:
        added: The servers that were added.
        removed: The servers that were removed.
        errors: Server name → error message, for the servers that failed to connect.
        raw: The answer as the CLI sent it.
        pending: With ``connect_in_background=True``: the servers the CLI started without
            waiting for them (``get_mcp_status()`` tells how each ends). None when the CLI did
            not honour it (older than 2.1.333, which waits for every server as without it; or
            a case where it waits anyway, e.g. a blocking hook on the server).
    """

    added: List[str]
    removed: List[str]
    errors: Dict[str, str]
    raw: Dict[str, Any] = field(default_factory=dict)
    pending: Optional[List[str]] = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> McpSetServersResult:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        return cls(
            added=list(data.get("added") or []),
            removed=list(data.get("removed") or []),
            errors=dict(data.get("errors") or {}),
            raw=dict(data),
            pending=list(data["pending"]) if isinstance(data.get("pending"), list) else None,
        )


@frozen_record
class ReloadPluginsResult(FrozenRecord):
    """``reload_plugins``' answer: the session's refreshed ``commands``, ``agents``,
    ``plugins`` and ``mcp_servers`` (status entries), ``error_count``; ``held`` / ``cache_impact``
    when the reload was held (``hold_on_cache_impact=True``).

    Attributes:
        commands: The session's slash commands after the reload.
        agents: Its subagents after the reload.
        plugins: Its plugins after the reload.
        mcp_servers: Its MCP servers' status entries after the reload (``mcpServers``).
        error_count: How many plugins failed to load.
        held: True when the reload was held back (``hold_on_cache_impact=True``); None when the CLI
            does not say.
        cache_impact: What the reload would do to the prompt cache, when it was held.
        raw: The answer as the CLI sent it.
    """

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
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
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
    UTF-8; None when the CLI does not say).

    Attributes:
        contents: The file's contents: text, or base64 when ``encoding == "base64"``.
        abs_path: The file's absolute path (``absPath``).
        truncated: Whether the contents were cut at ``max_bytes``.
        encoding: ``"utf-8"`` or ``"base64"``.
        lossy: Whether the text was not valid UTF-8 (replaced characters); None when the CLI does
            not say.
        raw: The answer as the CLI sent it.
    """

    contents: str
    abs_path: str
    truncated: bool = False
    encoding: str = "utf-8"
    lossy: Optional[bool] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ReadFileResult:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
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
    ``rate_limits`` apply and their windows, and ``behaviors`` (None with ``skip_behaviors``).

    Attributes:
        session: The session's cost and usage (``total_cost_usd``, ``model_usage`` …).
        subscription_type: The claude.ai subscription (None with an API key).
        rate_limits_available: Whether plan rate limits apply.
        rate_limits: The rate-limit windows and how much of each is used, when they apply.
        behaviors: The CLI's usage-related behaviours (None with ``skip_behaviors=True``).
        raw: The answer as the CLI sent it.
    """

    session: Dict[str, Any]
    subscription_type: Optional[str] = None
    rate_limits_available: bool = False
    rate_limits: Optional[Dict[str, Any]] = None
    behaviors: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> UsageResult:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
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


def _str(data: Mapping[str, Any], key: str) -> Optional[str]:
    value = data.get(key)
    return value if isinstance(value, str) else None


@frozen_record
class AccountInfo(FrozenRecord):
    """The server info's ``account``: where the credential came from (``token_source``,
    ``api_key_source``, ``api_provider``) and, for a claude.ai login, ``email``,
    ``organization``, ``subscription_type``.

    Attributes:
        token_source: Where the OAuth token came from (``tokenSource``; ``"none"`` with an API key).
        api_key_source: Where the API key came from (``apiKeySource``: ``"ANTHROPIC_API_KEY"``,
            ``"none"`` …).
        api_provider: Who serves the model (``apiProvider``: ``"firstParty"``, ``"bedrock"``,
            ``"vertex"`` …).
        email: The claude.ai login's e-mail address; None with an API key.
        organization: The claude.ai login's organisation; None with an API key.
        subscription_type: The claude.ai subscription (``subscriptionType``); None with an API key.
        raw: The ``account`` object as the CLI sent it.
    """

    token_source: Optional[str] = None
    api_key_source: Optional[str] = None
    api_provider: Optional[str] = None
    email: Optional[str] = None
    organization: Optional[str] = None
    subscription_type: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> AccountInfo:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        keys = ("tokenSource", "apiKeySource", "apiProvider", "email", "organization", "subscriptionType")
        names = ("token_source", "api_key_source", "api_provider", "email", "organization", "subscription_type")
        return cls(**{name: _str(data, key) for name, key in zip(names, keys)}, raw=dict(data))


@frozen_record
class SlashCommand(FrozenRecord):
    """A command or skill the session offers (``/name``): the server info's ``commands`` and
    ``reload_skills``' answer.

    Attributes:
        name: The command's name, without the leading ``/``.
        description: What the command does ("" when the CLI gives none).
        argument_hint: How its arguments look (``argumentHint``, e.g. ``"<pr>"``; "" when none).
        raw: The entry as the CLI sent it.
    """

    name: str
    description: str = ""
    argument_hint: str = ""
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SlashCommand:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        return cls(str(data.get("name", "")), _str(data, "description") or "", _str(data, "argumentHint") or "", dict(data))


@frozen_record
class ModelInfo(FrozenRecord):
    """A model the session may switch to (the server info's ``models``): ``value`` is what
    ``set_model`` takes.

    Attributes:
        value: The model's name as ``set_model`` takes it.
        display_name: Its name for people (``displayName``; "" when the CLI gives none).
        description: What the CLI says about it ("" when nothing).
        raw: The entry as the CLI sent it.
    """

    value: str
    display_name: str = ""
    description: str = ""
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ModelInfo:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        return cls(str(data.get("value", "")), _str(data, "displayName") or "", _str(data, "description") or "", dict(data))


@frozen_record
class AgentInfo(FrozenRecord):
    """A subagent the session can start (the server info's ``agents``).

    Attributes:
        name: The subagent's name (the ``subagent_type`` the model starts it with).
        description: When the model should use it ("" when the CLI gives none).
        model: The model it runs on; None when it inherits the session's.
        raw: The entry as the CLI sent it.
    """

    name: str
    description: str = ""
    model: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> AgentInfo:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        return cls(str(data.get("name", "")), _str(data, "description") or "", _str(data, "model"), dict(data))


@frozen_record
class McpResourceContent(FrozenRecord):
    """One item of ``read_mcp_resource``' answer: ``text``, or ``blob`` (base64) for binary
    content; ``meta`` is the item's ``_meta`` as the server sent it.

    Attributes:
        uri: The resource's URI.
        mime_type: Its MIME type (``mimeType``); None when the server gives none.
        text: The content, for a text resource; None for a binary one.
        blob: The content base64-encoded, for a binary resource; None for a text one.
        meta: The item's ``_meta`` as the server sent it; None when absent.
        raw: The item as the CLI sent it.
    """

    uri: str
    mime_type: Optional[str] = None
    text: Optional[str] = None
    blob: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> McpResourceContent:
        """Build it from the CLI's answer payload, tolerating missing keys (they get the defaults).
        Runs on the caller's thread; never raises for a dict.
        """
        meta = data.get("_meta")
        return cls(
            str(data.get("uri", "")), _str(data, "mimeType"), _str(data, "text"), _str(data, "blob"),
            meta if isinstance(meta, dict) else None, dict(data),
        )  # fmt: skip


def records_from_wire(cls: Any, items: Any) -> List[Any]:
    """``cls.from_wire`` of each dict in ``items`` (a list from the CLI; anything else: [])."""
    if not isinstance(items, list):
        return []
    return [cls.from_wire(item) for item in items if isinstance(item, Mapping)]
