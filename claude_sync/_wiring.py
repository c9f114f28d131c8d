"""The wiring: options → a ``Session`` with the request handlers and extensions that serve them.

The one module that puts the features (``_callbacks``, ``_mcp``, ``_sessions``) onto the
engine, which names none of them.

``build_session`` (called by ``ClaudeSDKClient.connect`` and by ``query()``'s first
``next()``) validates and interprets the options once (``_options.command.interpret_options``
→ an ``OptionsPlan``) and gives the engine three things made from them:

- the **request handlers** (``build_handlers``), one per CLI request subtype the run serves,
  each made by its feature: ``can_use_tool`` (``_callbacks.permissions.permission_server``),
  ``hook_callback`` (``_callbacks.hooks.hook_server``), ``mcp_message``
  (``_mcp.routing.McpRequests``), ``elicitation`` and ``request_user_dialog``
  (``_callbacks.dialogs``). The ``RequestServer`` (``_engine.serving``) runs them on the
  callback pool and writes their answers. What the CLI does with each outcome is the
  fail-closed / fail-open table in the docstrings of ``_callbacks.permissions`` and
  ``_callbacks.hooks``;
- the **connection extensions** (``connection_extensions``, made when ``connect`` starts):
  the session store's bridge (``_sessions.store_bridge``: its ``prepare`` re-plans the options
  for a resume from the store), for a resume the hold check (``_approvals.hold_check``: a
  session waiting for a person's decision is not resumed), the trace context (``_tracing.carrier``), the host-death
  watch, the wire log, the CLI-version check, the
  ``on_process_exit`` watch (``_engine.exit_watch``);
- the **plan** itself, which the engine turns into argv, env and ``initialize``
  (``_engine.spawn``).

A ``can_use_tool`` request, end to end (no wiring on the way: it was done at connect): the
reader thread (``_engine.reader``) frames and decodes the line (``_wire.framing``,
``_wire.protocol``) and hands it to ``RequestServer.dispatch`` (``_engine.serving``), which
queues it on the pool (``_engine.callback_pool``); a pool thread runs ``serve_permission``
(``_callbacks.permissions``): the request → the callback's arguments → the user's
``can_use_tool`` → the answer's payload; ``RequestServer`` frames it and writes it through
the session (``_engine.connection.Session.write_encoded``) to the transport
(``_engine.process``). ``docs/architecture.rst`` has this walk and the others.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ._callbacks.dialogs import OnElicitation, OnUserDialog, elicitation_server, user_dialog_server
from ._callbacks.hooks import hook_server
from ._callbacks.permissions import deny_on_failure, permission_server
from ._engine.connection import Session
from ._engine.extensions import ConnectionExtension
from ._engine.host_death import HostDeathWatch
from ._engine.serving import Handler, RequestServer
from ._engine.transport import Transport
from ._engine.wire_log import wire_tap
from ._options.command import OptionsPlan, interpret_options
from ._options.options import ClaudeAgentOptions
from ._options.validation import validate_options
from ._shared_pool.switch import leasing_path

if TYPE_CHECKING:  # pragma: no cover
    from ._tracing.otel import TraceHolder

__all__ = ["build_handlers", "build_session", "connection_extensions", "host_dialog_handlers"]


def build_session(
    options: ClaudeAgentOptions, transport: Optional[Transport] = None, *, tracing: Optional[TraceHolder] = None
) -> Session:
    """A not-yet-connected session for ``options``, interpreted once (``interpret_options``):
    the session spawns from that plan and the request handlers serve from it; over
    ``transport`` (None: the CLI as a child process). ``tracing``: the runs the callbacks
    belong to, for their spans (``claude_sync._tracing.otel``; None: no callback spans).
    Caller's thread.

    Raises ``ValueError`` / ``TypeError`` for invalid options (e.g. ``can_use_tool`` together
    with ``permission_prompt_tool_name``), before anything starts.
    """
    validate_options(options)  # again: options are mutable after construction
    plan = interpret_options(options)
    handlers = build_handlers(plan)
    if tracing is not None:
        from ._tracing.otel import traced_handlers

        handlers = traced_handlers(handlers, tracing)
    server = RequestServer(handlers, options.callback_workers)
    return Session(options, plan=plan, server=server, transport=transport, extensions=connection_extensions)


def connection_extensions(session: Session) -> List[ConnectionExtension]:
    """A connection's extensions, in order (the connecting thread, when ``connect`` starts):
    the session store's bridge (with ``options.session_store``), the hold check (with
    ``resume`` or ``continue_conversation``), the trace context (when the
    program has loaded ``opentelemetry``: ``_tracing.carrier``), the host-death watch, the
    wire log (``claude_sync.wire`` at DEBUG), with ``verbatim_prompts`` the CLI-version check,
    with ``on_process_exit`` the exit watch, and when leasing is on (``options.shared_pool``,
    ``CLAUDE_SYNC_SHARED_POOL``) the shared pool's lease (``_shared_pool.extension``). Loads each feature's module on its first use
    only."""
    options = session.options
    found: List[Optional[ConnectionExtension]] = []
    if options.session_store is not None:
        from ._sessions.store_bridge import (  # session stores: first use only
            StoreBridge,
            mirror_error_frame,
        )

        def report(key: Any, error: str) -> None:
            session.put_message(mirror_error_frame(key, error))

        found.append(StoreBridge(options.session_store, report))
    # after the store's bridge (it lays a stored session out); extra_args may carry --resume/--continue
    if options.resume or options.continue_conversation or options.extra_args:
        from ._approvals.hold_check import HoldCheck  # resumes: first use only

        found.append(HoldCheck())
    if "opentelemetry" in sys.modules:  # the program traces: the CLI joins its trace
        from ._tracing.carrier import TraceContext

        found.append(TraceContext())
    found += [HostDeathWatch(session), wire_tap(session)]
    if options.verbatim_prompts:
        from ._engine.notices import VerbatimPromptsCheck

        found.append(VerbatimPromptsCheck())
    if options.on_process_exit is not None:
        from ._engine.exit_watch import ProcessExitWatch

        found.append(ProcessExitWatch(options.on_process_exit))
    path = leasing_path(options)
    if path is not None:
        from ._shared_pool.extension import SharedPoolLease  # leasing: first use only

        found.append(SharedPoolLease(path))
    return [extension for extension in found if extension is not None]


def build_handlers(plan: OptionsPlan) -> Dict[str, Handler]:
    """The request handlers that serve what ``plan`` carries, by CLI request subtype: its
    permission routing, its hook registry, its SDK MCP servers (exactly the ones announced to
    the CLI) and its host dialogs. Caller's thread; the handlers run on the callback pool.

    Raises nothing: the options were checked when the plan was made.
    """
    handlers: Dict[str, Handler] = {
        "can_use_tool": Handler(permission_server(plan.permissions.callback, plan.permissions.deny_all), refuse=deny_on_failure),
    }
    if len(plan.hooks):
        handlers["hook_callback"] = Handler(hook_server(plan.hooks.lookup))
    if plan.sdk_mcp_servers:
        from ._mcp.routing import McpRequests
        from ._mcp.server import SdkMcpServers

        mcp = McpRequests(SdkMcpServers(plan.sdk_mcp_servers))
        handlers["mcp_message"] = Handler(mcp.serve, route=mcp.route_on_reader, close=mcp.close)
    handlers.update(host_dialog_handlers(plan.on_elicitation, plan.on_user_dialog))
    return handlers


def host_dialog_handlers(
    on_elicitation: Optional[OnElicitation], on_user_dialog: Optional[OnUserDialog]
) -> Dict[str, Handler]:
    """``elicitation`` is always answered (a decline without ``on_elicitation``);
    ``request_user_dialog`` only with ``on_user_dialog``."""
    handlers = {"elicitation": Handler(elicitation_server(on_elicitation))}
    if on_user_dialog is not None:
        handlers["request_user_dialog"] = Handler(user_dialog_server(on_user_dialog))
    return handlers
