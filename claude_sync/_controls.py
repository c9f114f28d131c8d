"""The control methods of ``ClaudeSDKClient`` and of the ``query()`` stream, in one place.

``ClaudeSDKClient`` and ``QueryStream`` (the ``query()`` stream, as the TS SDK's ``Query``)
inherit them (``ControlMethods``): ``send_control_request``, the official SDK's simple ones and
the typed ones the TypeScript SDK wraps (neither Python SDK has those); ``send_interrupt`` is
the interrupt both classes' ``interrupt`` sends. Each class says which session is live
(``_live_session``) and what its server info is (``get_server_info``). Each method
sends one control request (any thread, like every control method) and returns a typed answer
from ``_wire.control_results``; each raises what ``send_control_request`` raises:
``ControlRequestError`` with the CLI's own text (e.g. a missing file for ``read_file``),
``ControlTimeoutError``, ``CLIConnectionError``, ``UsageError``. A CLI too old for one answers
"Unsupported control request subtype": that ``ControlRequestError`` says which CLI has it.
``account_info``, ``supported_commands``, ``supported_models`` and ``supported_agents`` read
the server info (the ``initialize`` answer; ``UsageError`` before ``connect``). Checked against
the real CLIs 2.1.197 and 2.1.332 (``tests/e2e/test_control_methods_e2e.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from ._mcp.config import sdk_server_instance
from ._options.options import ClaudeAgentOptions
from ._wire.errors import ControlRequestError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from ._callbacks.permission_types import PermissionMode
    from ._engine.connection import Session
    from ._wire.control_results import (
        AccountInfo,
        AgentInfo,
        McpResourceContent,
        McpSetServersResult,
        ModelInfo,
        ReadFileResult,
        ReloadPluginsResult,
        SlashCommand,
        UsageResult,
    )
    from ._wire.settings_result import ResolvedSettings

__all__ = ["ControlMethods", "NEWEST_CHECKED_CLI", "send_interrupt"]

UNSUPPORTED = "Unsupported control request subtype"
"""How a CLI answers a control request it does not know (2.1.197 and 2.1.332)."""

NEWEST_CHECKED_CLI = "2.1.333"

SETTINGS_SOURCES = ("localSettings", "userSettings")
"""The settings files ``update_settings`` may write (the CLI refuses the others)."""

QUEUE_PRIORITIES = (None, "now", "next", "later")
"""What ``update_queued_message`` takes as ``priority`` (None: keep it)."""

_UNSET: Any = object()
"""``set_peer_delivery``'s "not given" (its ``session=None`` means "end the choice")."""

MCP_OVERRIDE_MODES = (None, "default", "auto")
"""What ``set_mcp_permission_mode_override`` accepts over the control channel (tighten-only)."""


def send_interrupt(session: Session, timeout: Optional[float]) -> None:
    """Send ``interrupt`` and wait for its answer (any thread), then set every in-flight
    callback's signal — only after the interrupt frame is out: a callback woken by its signal
    must not get an answer (say, an allow) onto stdin ahead of the interrupt. Raises what
    ``Session.request`` raises."""
    try:
        session.request("interrupt", timeout=timeout)
    finally:
        session.signal_all_inflight()


class ControlMethods:
    """The control methods of ``ClaudeSDKClient`` and of the ``query()`` stream:
    ``send_control_request``, the official SDK's ``set_permission_mode``, ``set_model``, ``set_max_thinking_tokens``,
    ``rewind_files``, ``get_mcp_status``, ``get_context_usage``, ``stop_task``,
    ``reconnect_mcp_server``, ``toggle_mcp_server``; and ``apply_flag_settings``, ``set_mcp_servers``, ``reload_plugins``, ``read_file``,
    ``background_tasks``, ``get_usage``, ``update_settings``, ``reload_skills``,
    ``reload_output_styles``, ``read_mcp_resource``, ``set_mcp_permission_mode_override`` and
    the server info's ``account_info`` / ``supported_*`` (mixed into ``ClaudeSDKClient``)."""

    if TYPE_CHECKING:  # pragma: no cover - what each class has of its own

        @property
        def options(self) -> ClaudeAgentOptions: ...

        @property
        def session(self) -> Optional[Session]: ...

        def _live_session(self) -> Session: ...

        def get_server_info(self) -> Optional[Dict[str, Any]]: ...

    def send_control_request(
        self, subtype: str, payload: Optional[Dict[str, Any]] = None, *, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """Any control request the CLI knows; returns its response payload (``{}`` if none).
        Any thread.

        Raises ``ControlRequestError`` with the CLI's own text (e.g. "Unsupported control
        request subtype: …"), ``ControlTimeoutError`` (also a ``TimeoutError``),
        ``CLIConnectionError``, ``UsageError`` (not connected: ``NotConnectedError`` after the
        client closed or the ``query()`` run ended).
        """
        from ._redaction.secrets import remember_config

        remember_config(payload)  # config sent live (set_mcp_servers, apply_flag_settings …)
        return self._live_session().request(subtype, payload, timeout=timeout)

    # ------------------------------------------------------------------ the Python SDKs' own

    def set_permission_mode(self, mode: PermissionMode, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Change the permission mode (the CLI does not validate it). Returns ``{"mode": …}``."""
        return self.send_control_request("set_permission_mode", {"mode": mode}, timeout=timeout)

    def set_model(self, model: Optional[str] = None, *, timeout: Optional[float] = None) -> None:
        """Switch the model for the next API calls (None: the default). The CLI first emits a
        ``UserMessage`` replay (``<local-command-stdout>Set model to …``) into the stream."""
        self.send_control_request("set_model", {"model": model}, timeout=timeout)

    def set_max_thinking_tokens(self, max_thinking_tokens: Optional[int], *, timeout: Optional[float] = None) -> None:
        """Set (or with None clear) the thinking-token budget."""
        self.send_control_request(
            "set_max_thinking_tokens", {"max_thinking_tokens": max_thinking_tokens}, timeout=timeout
        )

    def rewind_files(self, user_message_id: str, dry_run: bool = False, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Rewind tracked files to their state at a user message (needs
        ``enable_file_checkpointing``). Returns ``{"canRewind", "filesChanged", …}``."""
        payload: Dict[str, Any] = {"user_message_id": user_message_id}
        if dry_run:
            payload["dry_run"] = True
        return self.send_control_request("rewind_files", payload, timeout=timeout)

    def get_mcp_status(self, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """``{"mcpServers": [{"name", "status", "scope", "tools"}…]}``.

        In-process (SDK) servers are announced in ``initialize`` and connected by the CLI when
        the first turn starts: before that they are not listed.
        """
        return self.send_control_request("mcp_status", timeout=timeout)

    def get_context_usage(self, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Context window usage by category (the CLI counts tokens through the API)."""
        return self.send_control_request("get_context_usage", timeout=timeout)

    def stop_task(self, task_id: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Stop a background task (``task_id`` from a ``task_started`` system message)."""
        return self.send_control_request("stop_task", {"task_id": task_id}, timeout=timeout)

    def reconnect_mcp_server(self, server_name: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Reconnect an external MCP server. The CLI 2.1.197 refuses this for in-process
        servers (``ControlRequestError`` "SDK servers should be handled in print.ts")."""
        return self.send_control_request("mcp_reconnect", {"serverName": server_name}, timeout=timeout)

    def toggle_mcp_server(self, server_name: str, enabled: bool, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Enable or disable an external MCP server (for in-process servers the CLI 2.1.197
        accepts ``False`` without visible effect and refuses ``True``)."""
        return self.send_control_request(
            "mcp_toggle", {"serverName": server_name, "enabled": enabled}, timeout=timeout
        )

    # ------------------------------------------------------------------ the TypeScript SDK's

    def apply_flag_settings(self, settings: Mapping[str, Any], *, timeout: Optional[float] = None) -> None:
        """Merge ``settings`` (a partial settings object, e.g. ``{"model": …}`` or
        ``{"permissions": {"deny": [...]}}``; a None value removes a key) into the session's
        flag-settings layer and apply them live."""
        if not isinstance(settings, Mapping):
            raise TypeError(f"settings must be a dict, not {type(settings).__name__}")
        self.send_control_request("apply_flag_settings", {"settings": dict(settings)}, timeout=timeout)

    def set_mcp_servers(
        self,
        servers: Mapping[str, Any],
        *,
        connect_in_background: bool = False,
        timeout: Optional[float] = None,
    ) -> McpSetServersResult:
        """Replace the session's dynamically added MCP servers with ``servers`` (external
        configs: stdio / sse / http); returns which were added, removed, and failed.

        The CLI also drops the in-process servers a call leaves out, so this client names the
        ones of ``options.mcp_servers`` again on every call: they stay. An in-process server
        that is not in ``options.mcp_servers`` under the same name cannot be added here.

        ``connect_in_background=True`` (TS ``setMcpServers(servers, {connectInBackground})``,
        CLI 2.1.333+, internal there): the answer does not wait for the servers to connect; it
        names them in ``pending`` and the next turn waits for them (up to 5 s). An older CLI
        ignores it and answers once they connected (``pending`` is then None).

        Raises ``ValueError`` for such a server, ``TypeError`` for a malformed entry or a
        non-bool ``connect_in_background``.
        """
        from ._wire.control_results import McpSetServersResult

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
        if not isinstance(connect_in_background, bool):
            raise TypeError(f"set_mcp_servers: connect_in_background must be a bool, got {type(connect_in_background).__name__}")
        payload: Dict[str, Any] = {"servers": wire}
        if connect_in_background:
            payload["connect_in_background"] = True
        answer = self.send_control_request("mcp_set_servers", payload, timeout=timeout)
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
        from ._wire.control_results import ReloadPluginsResult

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
        from ._wire.control_results import ReadFileResult

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
        from ._wire.control_results import UsageResult

        payload: Dict[str, Any] = {"skip_behaviors": True} if skip_behaviors else {}
        return UsageResult.from_wire(self.send_control_request("get_usage", payload, timeout=timeout))

    def reinitialize(self, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Send the session's ``initialize`` request again (its hooks, agents, SDK MCP servers,
        system prompt …) and return the CLI's fresh answer, which becomes the server info
        (``get_server_info``, ``supported_commands`` …). CLI 2.1.332 re-registers the hooks
        (``hooks_applied: true``; a hook callback it was waiting on is cancelled). Raises
        ``UsageError`` before ``connect``, ``CLIConnectionError`` when a fail-closed hook can
        no longer be honoured, and what ``send_control_request`` raises."""
        session = self.session
        plan = None if session is None else session.spawn_plan
        if session is None or plan is None:
            raise UsageError("reinitialize() needs a connected session: connect first")
        answer = self.send_control_request("initialize", dict(plan.initialize_fields), timeout=timeout)
        plan.check_initialize_answer(answer)
        session.server_info = answer
        return answer

    def seed_read_state(self, path: str, mtime_ms: int, *, timeout: Optional[float] = None) -> None:
        """Tell the CLI a ``Read`` of ``path`` happened at ``mtime_ms`` (the file's mtime then,
        in whole milliseconds: ``os.stat(path).st_mtime_ns // 1_000_000``), so an ``Edit`` of
        it is not refused with "File has not been read yet" after that ``Read`` left the
        context. If the file changed since, the CLI still asks for a fresh ``Read``. Raises
        ``TypeError`` for a non-str path or a non-int ``mtime_ms``, ``ValueError`` for a
        negative one."""
        if not isinstance(path, str):
            raise TypeError(f"path must be a str, not {type(path).__name__}")
        if isinstance(mtime_ms, bool) or not isinstance(mtime_ms, int):
            raise TypeError(f"mtime_ms must be an int (milliseconds), not {type(mtime_ms).__name__}")
        if mtime_ms < 0:
            raise ValueError(f"mtime_ms must be >= 0, not {mtime_ms}")
        self.send_control_request("seed_read_state", {"path": path, "mtime": mtime_ms}, timeout=timeout)

    def get_settings(self, *, timeout: Optional[float] = None) -> ResolvedSettings:
        """The settings this session runs with, merged by the CLI itself (``get_settings``):
        ``effective``, each source's raw ``sources``, per-key ``provenance``, ``applied``
        (see ``ResolvedSettings``). Raises what ``send_control_request`` raises."""
        from ._wire.settings_result import ResolvedSettings

        return ResolvedSettings.from_wire(self._newer_request("get_settings", {}, timeout))

    # ------------------------------------------------------------------ newer requests

    def _newer_request(
        self, subtype: str, payload: Dict[str, Any], timeout: Optional[float], since: Optional[str] = None
    ) -> Dict[str, Any]:
        """``send_control_request``, with a CLI's "unsupported" answer turned into an error that
        says so (and, given ``since``, which CLI it needs)."""
        try:
            return self.send_control_request(subtype, payload, timeout=timeout)
        except ControlRequestError as exc:
            if not str(exc).startswith(UNSUPPORTED):
                raise
            needs = f"it needs CLI ≥ {since}" if since else f"CLI {NEWEST_CHECKED_CLI} does"
            raise ControlRequestError(
                f"{subtype}: this Claude Code CLI does not have it (it answered {str(exc)!r}); {needs}",
                subtype=subtype,
                request_id=exc.request_id,
            ) from exc

    def update_queued_message(
        self,
        message_uuid: str,
        *,
        priority: Optional[str] = None,
        before_message_uuid: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> str:
        """Move a user message that waits in the CLI's queue (sent with its ``uuid`` while a
        turn runs): ``priority`` ``"now"`` (stop the turn and answer it), ``"next"`` or
        ``"later"``, and/or ``before_message_uuid`` (place it before that queued message). TS
        ``updateQueuedMessage`` (its runtime, not its ``.d.ts``). Returns the CLI's outcome:
        ``"applied"``, ``"already"`` (it was there), ``"too_late"`` (no longer queued) or
        ``"unsupported"`` (this session cannot move it). CLI 2.1.332+, and only where the CLI
        offers it: a flag of Anthropic's turns it on, and the CLI then lists
        ``update_queued_message_v1`` in ``system/init``'s ``capabilities`` (2.1.333 run offline,
        as in the e2e tests, answers "Unsupported control request subtype").

        Raises ``ValueError`` for an empty ``message_uuid``, an unknown ``priority``, neither
        argument, or ``"now"`` with ``before_message_uuid`` (the CLI refuses those as
        malformed); ``ControlRequestError`` "needs CLI ≥ 2.1.332 that offers it …" from a CLI
        that does not take it.
        """
        if not isinstance(message_uuid, str) or not message_uuid:
            raise ValueError(f"update_queued_message: message_uuid must be a non-empty str, got {message_uuid!r}")
        if priority not in QUEUE_PRIORITIES:
            raise ValueError(f"update_queued_message: priority must be one of now, next, later or None, not {priority!r}")
        if before_message_uuid is not None and not isinstance(before_message_uuid, str):
            raise ValueError(f"update_queued_message: before_message_uuid must be a str, got {before_message_uuid!r}")
        if priority is None and before_message_uuid is None:
            raise ValueError("update_queued_message: give priority, before_message_uuid or both")
        if priority == "now" and before_message_uuid is not None:
            raise ValueError('update_queued_message: priority="now" sends it at once; it takes no before_message_uuid')
        payload: Dict[str, Any] = {"message_uuid": message_uuid}
        if priority is not None:
            payload["priority"] = priority
        if before_message_uuid is not None:
            payload["before_message_uuid"] = before_message_uuid
        answer = self._newer_request(
            "update_queued_message", payload, timeout,
            since="2.1.332 that offers it: its system/init capabilities list update_queued_message_v1 (a "
            "flag of Anthropic's decides; CLI 2.1.333 run offline does not)",
        )  # fmt: skip
        return str(answer.get("outcome"))

    def decide_held_peer_message(
        self, hold_id: str, decision: str, *, always: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """A person's answer to a message from another session that the CLI held
        (``system/peer_message_hold``): ``decision`` ``"deliver"`` or ``"drop"``; ``always``
        (``{"scope": "mine"|"anyone", "made_in": "prompting"|"bypass"}``, deliver only) also
        delivers such messages for the rest of the conversation. Send it only for a person's
        own press. Returns the CLI's answer: ``outcome`` (``delivered``, ``waiting``, ``denied``,
        ``refused``, ``dropped``, ``not-decidable``, ``gone``) and ``always_deliver``.

        Internal in the CLI (2.1.332+) and in TS (``decideHeldPeerMessage``, runtime only): the
        CLI takes it only from the program that started it and only where peer messaging is on
        (else ``ControlRequestError`` with its words). Raises ``ValueError`` for another
        ``decision`` or ``always`` with ``"drop"``; ``ControlRequestError`` "needs CLI ≥ 2.1.332"
        from an older CLI.
        """
        if decision not in ("deliver", "drop"):
            raise ValueError(f"decide_held_peer_message: decision must be 'deliver' or 'drop', not {decision!r}")
        if not isinstance(hold_id, str) or not hold_id:
            raise ValueError(f"decide_held_peer_message: hold_id must be a non-empty str, got {hold_id!r}")
        payload: Dict[str, Any] = {"hold_id": hold_id, "decision": decision}
        if always is not None:
            if decision != "deliver":
                raise ValueError("decide_held_peer_message: always goes only with decision='deliver'")
            payload["always"] = dict(always)
        return self._newer_request("decide_held_peer_message", payload, timeout, since="2.1.332")

    def set_peer_delivery(
        self,
        *,
        shows_held_messages: Optional[bool] = None,
        session: Any = _UNSET,
        account: Optional[bool] = None,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Tell the CLI what this host knows about delivering messages from other sessions; a
        field left out stays as it is. ``shows_held_messages``: the host lets a person answer
        held messages; ``session``: the person's choice to always deliver in one conversation
        (``{"scope", "made_in", "session_id"}``), or None to end it; ``account``: always
        deliver from the person's own sessions. Returns the CLI's answer (``always_deliver``).

        Internal in the CLI (2.1.332+) and in TS (``setPeerDelivery``, runtime only); taken
        only from the program that started the CLI (else ``ControlRequestError`` with its
        words). Raises ``TypeError`` for a non-bool flag; ``ControlRequestError`` "needs CLI ≥
        2.1.332" from an older CLI.
        """
        payload: Dict[str, Any] = {}
        for name, flag in (("shows_held_messages", shows_held_messages), ("account", account)):
            if flag is not None:
                if not isinstance(flag, bool):
                    raise TypeError(f"set_peer_delivery: {name} must be a bool or None, got {type(flag).__name__}")
                payload[name] = flag
        if session is not _UNSET:
            payload["session"] = None if session is None else dict(session)
        return self._newer_request("set_peer_delivery", payload, timeout, since="2.1.332")

    def set_host_prompt_open(self, open: bool, *, timeout: Optional[float] = None) -> None:  # noqa: A002  # the CLI's name
        """Say that the session waits on a prompt the host draws itself, such as an approval
        inside one of its own tools (True), or no longer does (False). While True and Remote
        Control is on, the session is reported as waiting. True lasts 90 seconds: repeat it
        while the prompt stays open. Internal in the CLI (2.1.333+); TS has no method for it.
        Raises ``TypeError`` for a non-bool; ``ControlRequestError`` "needs CLI ≥ 2.1.333" from an
        older CLI.
        """
        if not isinstance(open, bool):
            raise TypeError(f"set_host_prompt_open: open must be a bool, got {type(open).__name__}")
        self._newer_request("set_host_prompt_open", {"open": open}, timeout, since="2.1.333")

    def update_settings(
        self, settings: Mapping[str, str], *, source: str = "localSettings", timeout: Optional[float] = None
    ) -> None:
        """Write ``settings`` through the CLI's own settings writer and apply them live: into
        the project's local settings file (``source="localSettings"``; the CLI allows
        ``outputStyle``) or the user's (``"userSettings"``: ``effortLevel``). String values
        only; keys the CLI does not allow are refused by it (``ControlRequestError``). Unlike
        ``apply_flag_settings`` (this session only), this writes a file. CLI 2.1.331+.
        Raises ``ValueError`` for another ``source``, ``TypeError`` for a non-str value."""
        if source not in SETTINGS_SOURCES:
            raise ValueError(f"source must be one of {', '.join(SETTINGS_SOURCES)}, not {source!r}")
        if not isinstance(settings, Mapping) or not all(isinstance(v, str) for v in settings.values()):
            raise TypeError("settings must be a dict of str values (the CLI writes strings only)")
        self._newer_request("update_settings", {"source": source, "settings": dict(settings)}, timeout)

    def reload_skills(self, *, timeout: Optional[float] = None) -> List[SlashCommand]:
        """Re-read the skills from disk; the refreshed skill commands."""
        from ._wire.control_results import SlashCommand, records_from_wire

        answer = self._newer_request("reload_skills", {}, timeout)
        return records_from_wire(SlashCommand, answer.get("skills"))

    def reload_output_styles(self, *, timeout: Optional[float] = None) -> List[str]:
        """Re-read the output-style directories; the names of the styles now available.
        CLI 2.1.331+."""
        styles = self._newer_request("reload_output_styles", {}, timeout).get("available_output_styles")
        return [str(name) for name in styles] if isinstance(styles, list) else []

    def read_mcp_resource(self, server_name: str, uri: str, *, timeout: Optional[float] = None) -> List[McpResourceContent]:
        """Read one MCP Apps UI resource (a ``ui://`` URI) from an MCP server the CLI connected
        (not an in-process one: read it directly). The contents are the server's, untrusted.
        CLI 2.1.331+; the CLI names what it refuses (another scheme, an unknown server …)."""
        from ._wire.control_results import McpResourceContent, records_from_wire

        answer = self._newer_request("mcp_read_resource", {"serverName": server_name, "uri": uri}, timeout)
        return records_from_wire(McpResourceContent, answer.get("contents"))

    def set_mcp_permission_mode_override(
        self, server_name: str, mode: Optional[str], *, timeout: Optional[float] = None
    ) -> Optional[str]:
        """Hold the tools of MCP server ``server_name`` at permission mode ``mode``
        (``"default"`` or ``"auto"``, tighten-only) even where the session mode would allow
        them; ``None`` clears it. The CLI's warning, if any (e.g. the server is not connected
        yet: the override waits for it). Raises ``ValueError`` for another mode."""
        if mode not in MCP_OVERRIDE_MODES:
            raise ValueError(f"mode must be 'default', 'auto' or None, not {mode!r}")
        answer = self._newer_request("set_mcp_permission_mode_override", {"serverName": server_name, "mode": mode}, timeout)
        warning = answer.get("warning")
        return warning if isinstance(warning, str) else None

    # ------------------------------------------------------------------ the server info

    def _server_info(self) -> Dict[str, Any]:
        info = self.get_server_info()
        if info is None:
            raise UsageError("the server info arrives with connect(): connect first")
        return info

    @property
    def account_info(self) -> AccountInfo:
        """Where the session's credential came from (the server info's ``account``)."""
        from ._wire.control_results import AccountInfo

        account = self._server_info().get("account")
        return AccountInfo.from_wire(account if isinstance(account, Mapping) else {})

    @property
    def supported_commands(self) -> List[SlashCommand]:
        """The slash commands and skills of the session (the server info's ``commands``)."""
        from ._wire.control_results import SlashCommand, records_from_wire

        return records_from_wire(SlashCommand, self._server_info().get("commands"))

    @property
    def supported_models(self) -> List[ModelInfo]:
        """The models ``set_model`` can switch to (the server info's ``models``)."""
        from ._wire.control_results import ModelInfo, records_from_wire

        return records_from_wire(ModelInfo, self._server_info().get("models"))

    @property
    def supported_agents(self) -> List[AgentInfo]:
        """The subagents the session can start (the server info's ``agents``)."""
        from ._wire.control_results import AgentInfo, records_from_wire

        return records_from_wire(AgentInfo, self._server_info().get("agents"))

