"""Serving a server built with the ``mcp`` package (``mcp.server.Server``, FastMCP) in-process.

The CLI talks to an in-process server through ``mcp_message`` control requests, one JSON-RPC
message each. For our own ``SdkMcpServer`` the pure core answers them; a server of the ``mcp``
package is async and serves a *connection*, so ``McpPackageBridge`` gives it one: mcp's own
in-memory stream pair, with ``Server.run`` on an asyncio event loop in a thread of its own
(``claude_sync-mcp-<key>``), started by the first message and stopped when the session closes.
mcp itself then dispatches everything the server implements (initialize, tools, resources,
prompts, ping, completion, …); nothing here knows those methods.

Threads: ``handle`` runs on a callback-pool thread and blocks until the server's response
arrives (in slices, giving up when the request's signal is set); the loop thread owns the
streams and the table of unanswered requests; ``close`` runs on the thread closing the session.

Requests the server sends to the client (sampling, roots, elicitation) are refused with
"method not found" (``ping`` is answered), so the server's caller fails at once; its
notifications (logging, progress, list_changed) are dropped: nothing carries them to the CLI.
On mcp 1.x a ``notifications/cancelled`` is not passed on (mcp 1.x stops the whole server if a
cancelled handler answers anyway); the tool runs to completion, as with the official SDK.

``mcp`` is imported here only, and this module only when the user's options hold such a server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import threading
from typing import Any, Dict, Optional

from .._redaction.redactor import redacted_logger

__all__ = ["McpPackageBridge"]

logger = redacted_logger("claude_sync.mcp")

_START_TIMEOUT = 30.0
_WAIT_SLICE = 0.25
_METHOD_NOT_FOUND = -32601
_INTERNAL_ERROR = -32603
_REQUEST_CANCELLED = -32800


class McpBridgeError(Exception):
    """The server cannot answer: it failed, stopped, or the bridge is closed."""


class McpPackageBridge:
    """One ``mcp`` package server, served over an in-memory connection on its own loop thread."""

    def __init__(self, key: str, server: Any) -> None:
        """``key`` is the server's name in ``mcp_servers``; ``server`` a low-level mcp server."""
        self.key = key
        self._server = server
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._started = threading.Event()
        self._stop: Optional[asyncio.Event] = None
        self._to_server: Any = None
        self._pending: Dict[Any, asyncio.Future[Dict[str, Any]]] = {}
        self._failure: Optional[str] = None
        self._closed = False

    # ------------------------------------------------------------------ any thread

    def handle(self, message: Any, signal: threading.Event) -> Optional[Dict[str, Any]]:
        """Pool thread: pass one JSON-RPC message on; the response, or None for a notification.

        Never raises for a server problem: a failed / stopped server or a closed bridge gives a
        JSON-RPC error response naming it (so the CLI fails that one request). Returns None
        as well when ``signal`` is set before the response came (the CLI gave up on it).
        """
        rpc_id = message.get("id") if isinstance(message, dict) else None
        try:
            loop = self._ensure_running()
            future = asyncio.run_coroutine_threadsafe(self._submit(message), loop)
            while True:
                try:
                    return future.result(timeout=_WAIT_SLICE)
                except concurrent.futures.TimeoutError:
                    if signal.is_set() or self._closed:
                        future.cancel()
                        return None
        except McpBridgeError as exc:
            return _error(rpc_id, _INTERNAL_ERROR, str(exc))
        except concurrent.futures.CancelledError:
            return _error(rpc_id, _INTERNAL_ERROR, f"SDK MCP server {self.key!r} closed")

    def close(self, timeout: float) -> None:
        """Stop the server's session and join the loop thread (bounded by ``timeout``)."""
        with self._lock:
            self._closed = True
            loop, thread, stop = self._loop, self._thread, self._stop
        if loop is None or thread is None:
            return
        if stop is not None:
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass  # the loop has already ended
        thread.join(timeout)
        if thread.is_alive():
            logger.error(
                "SDK MCP server %r did not stop within %.1fs (a handler ignores cancellation)",
                self.key,
                timeout,
            )

    def _ensure_running(self) -> asyncio.AbstractEventLoop:
        """Start the loop thread on first use. Raises McpBridgeError once closed or failed."""
        with self._lock:
            if self._closed:
                raise McpBridgeError(f"SDK MCP server {self.key!r} is closed")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run_loop, name=f"claude_sync-mcp-{self.key}", daemon=True
                )
                self._thread.start()
        if not self._started.wait(_START_TIMEOUT):
            raise McpBridgeError(f"SDK MCP server {self.key!r} did not start")
        if self._failure is not None:
            raise McpBridgeError(f"SDK MCP server {self.key!r} stopped: {self._failure}")
        assert self._loop is not None
        return self._loop

    # ------------------------------------------------------------------ loop thread

    def _run_loop(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # noqa: BLE001 - recorded; every waiter is told
            self._failure = f"{type(exc).__name__}: {exc}"
            logger.error("SDK MCP server %r failed: %s", self.key, self._failure)
        finally:
            if self._failure is None:
                self._failure = "its session ended"
            self._started.set()

    async def _main(self) -> None:
        anyio = _optional("anyio")
        create_client_server_memory_streams = _optional(
            "mcp.shared.memory"
        ).create_client_server_memory_streams

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with create_client_server_memory_streams() as (client, server):
            from_server, self._to_server = client
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._serve, server)
                tasks.start_soon(self._read_responses, from_server)
                self._started.set()
                await self._stop.wait()
                tasks.cancel_scope.cancel()
        self._fail_pending("closed")

    async def _serve(self, server_streams: Any) -> None:
        read, write = server_streams
        try:
            await self._server.run(
                read, write, self._server.create_initialization_options(), raise_exceptions=False
            )
            self._failure = "its run() returned"
        except Exception as exc:  # noqa: BLE001 - the server failed; report it to waiters
            self._failure = f"{type(exc).__name__}: {exc}"
            logger.error("SDK MCP server %r failed: %s", self.key, self._failure)
        finally:
            self._fail_pending(f"stopped: {self._failure}")

    async def _read_responses(self, from_server: Any) -> None:
        async for item in from_server:
            if isinstance(item, Exception):
                logger.debug("SDK MCP server %r sent an error: %r", self.key, item)
                continue
            payload = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
            if "method" not in payload:
                self._resolve(payload.get("id"), payload)
            elif "id" in payload:
                await self._refuse_server_request(payload)

    async def _refuse_server_request(self, request: Dict[str, Any]) -> None:
        """Answer a request from the server to the client: ping, or "method not found"."""
        answer: Dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        if request["method"] == "ping":
            answer["result"] = {}
        else:
            logger.warning(
                "SDK MCP server %r asked the client for %r; not supported, refused",
                self.key,
                request["method"],
            )
            answer["error"] = {
                "code": _METHOD_NOT_FOUND,
                "message": f"{request['method']} is not supported for SDK servers",
            }
        parsed, _ = self._parse(answer)
        await self._to_server.send(parsed)

    async def _submit(self, message: Any) -> Optional[Dict[str, Any]]:
        if self._failure is not None:
            raise McpBridgeError(f"SDK MCP server {self.key!r} stopped: {self._failure}")
        if not isinstance(message, dict):
            return _error(None, -32600, "a JSON-RPC message must be an object")
        if message.get("method") == "notifications/cancelled" and _mcp_major() < 2:
            return None
        try:
            parsed, request_id = self._parse(message)
        except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError
            return _error(message.get("id"), -32600, f"invalid JSON-RPC message: {exc}")
        if request_id is None:
            await self._to_server.send(parsed)
            return None
        if request_id in self._pending:
            return _error(request_id, -32600, f"request id {request_id!r} is already in flight")
        future: asyncio.Future[Dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._to_server.send(parsed)
            return await future
        finally:
            if self._pending.get(request_id) is future:
                del self._pending[request_id]

    def _parse(self, message: Dict[str, Any]) -> Any:
        """The ``SessionMessage`` for ``message`` and its request id (None unless a request).

        mcp 2.x replaced the ``JSONRPCMessage`` root model with a type adapter, and leaves a
        request it settles without answering (a cancelled one) to the transport to end.
        """
        mcp_types = _optional("mcp.types")
        message_module = _optional("mcp.shared.message")
        SessionMessage = message_module.SessionMessage  # noqa: N806 - a class

        adapter = getattr(mcp_types, "jsonrpc_message_adapter", None)
        if adapter is None:  # mcp 1.x
            wrapped = mcp_types.JSONRPCMessage.model_validate(message)
            is_request = isinstance(wrapped.root, mcp_types.JSONRPCRequest)
            return SessionMessage(wrapped), (wrapped.root.id if is_request else None)
        parsed = adapter.validate_python(message, by_name=False)
        if not isinstance(parsed, mcp_types.JSONRPCRequest):
            return SessionMessage(parsed), None
        request_id = parsed.id

        async def unanswered() -> None:
            self._resolve(request_id, _error(request_id, _REQUEST_CANCELLED, "Request cancelled"))

        metadata = message_module.ServerMessageMetadata(on_request_unanswered=unanswered)
        return SessionMessage(parsed, metadata=metadata), request_id

    def _resolve(self, request_id: Any, payload: Dict[str, Any]) -> None:
        future = self._pending.get(request_id)
        if future is not None and not future.done():
            future.set_result(payload)

    def _fail_pending(self, reason: str) -> None:
        for request_id, future in list(self._pending.items()):
            if not future.done():
                future.set_result(
                    _error(request_id, _INTERNAL_ERROR, f"SDK MCP server {self.key!r} {reason}")
                )


def _optional(module: str) -> Any:
    """Import a module of the optional ``mcp`` package (untyped here: mcp 1.x and 2.x differ)."""
    return importlib.import_module(module)


def _mcp_major() -> int:
    return 2 if hasattr(_optional("mcp.types"), "jsonrpc_message_adapter") else 1


def _error(rpc_id: Any, code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}
