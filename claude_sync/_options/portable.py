"""Which options can cross to another process (pickle): the check behind
``ClaudeAgentOptions.__reduce_ex__`` and ``claude_sync.integrations``.

Python callables (``can_use_tool``, ``hooks``, ``stderr``) and in-process MCP servers serve
the CLI from *this* process: a copy in another process would answer a CLI the caller never
sees, and most of them (lambdas, closures, bound methods of live objects) do not pickle at
all. Refusing them by field name, with how to do it instead, beats a ``PicklingError`` about
``<lambda>`` from deep inside an executor.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CALLABLE_FIELDS", "check_picklable_options"]

CALLABLE_FIELDS = ("can_use_tool", "hooks", "stderr", "spawn_command", "on_elicitation", "on_user_dialog", "on_process_exit")
"""Options fields that hold Python callables (in-process MCP servers are checked apart)."""

_HOW = (
    "Build the options inside the worker process instead: a module-level function that returns "
    "them (e.g. AgentPoolPlugin(options_factory=...) for Dask, or called in the task body)"
)


def check_picklable_options(options: Any) -> None:
    """Raise ``TypeError`` naming the first field of ``options`` that holds a callable or an
    in-process MCP server; return None for options that may be pickled (or None)."""
    if options is None:
        return
    for name in CALLABLE_FIELDS:
        if getattr(options, name, None):
            raise TypeError(
                f"ClaudeAgentOptions.{name} holds Python callables, which cannot be sent to another process. {_HOW}"
            )
    if getattr(options, "session_store", None) is not None:
        raise TypeError(
            "ClaudeAgentOptions.session_store is a store object living in this process (locks, "
            f"connections), which cannot be sent to another process. {_HOW}"
        )
    servers = getattr(options, "mcp_servers", None)
    if isinstance(servers, dict):
        for server_name, config in servers.items():
            if getattr(config, "type", None) == "sdk" or (
                isinstance(config, dict) and config.get("type") == "sdk"  # create_sdk_mcp_server()
            ):
                raise TypeError(
                    f"ClaudeAgentOptions.mcp_servers[{server_name!r}] is an in-process MCP server, which "
                    f"cannot be sent to another process. {_HOW}"
                )
