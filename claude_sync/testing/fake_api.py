"""A scriptable, loopback-only fake of the Anthropic Messages API, for driving the real CLI.

The real ``claude`` binary is pointed at this server with ``ANTHROPIC_BASE_URL`` (see
``claude_sync.testing.offline``). A test writes a *script* (a queue of turn replies), the fake plays
it back as the standard Messages SSE stream, and afterwards the test inspects what the CLI sent::

    with FakeAnthropicAPI([tool_use("Bash", {"command": "touch x"}), text("done")]) as api:
        ... run the CLI with hermetic_env(tmp_path, api.base_url) ...
        assert api.turn_requests()[1].tool_results[0]["is_error"] is False
        api.assert_no_surprises()

What it answers:

* ``HEAD /`` (the CLI's connectivity preflight): 200.
* ``POST /v1/messages`` (the CLI adds ``?beta=true``): a streamed reply. *Turn* requests (the
  real agent loop, subagents included) consume the script in order. *Side* requests (prompt
  suggestions, session titles, side questions, ``/compact``) are recognised by their prompt text
  and get a harmless canned reply without touching the script. When the script is empty the
  turn gets ``EXHAUSTED_TEXT`` and is recorded as exhausted.
* ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``.
* Anything else: 404 with an Anthropic-style error body, recorded as kind ``"other"``.

Every request is recorded (``api.requests()``), thread-safely, with its parsed JSON body.
Server threads are named ``fake_api-…``; ``stop()`` closes open connections, joins every thread
and closes the listening socket. It binds 127.0.0.1 only, and a forgotten server stops by itself
after ``idle_timeout`` seconds without a request or ``lifetime`` seconds in all. Standard library
only. The requests and replies as data, and the SSE encoding, live in ``_fake_api.messages_api``
(re-exported here); this module is the server and its handler, kept together because they
share the request records' locking.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from urllib.parse import parse_qs, urlsplit

from .._engine.stand_in import allow_base_url, disallow_base_url
from ._fake_api.messages_api import (  # noqa: F401 - re-exported: the public names of the fake API
    CANNED_SIDE_REPLIES,
    DEFAULT_CHUNK_SIZE,
    SIDE_REQUEST_MARKERS,
    Answer,
    ApiRequest,
    Block,
    ErrorReply,
    Reply,
    Responder,
    ScriptItem,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    assemble_message,
    chunk_text,
    classify,
    content_text,
    error,
    estimate_tokens,
    format_sse,
    large_text,
    make_large_text,
    new_tool_use_id,
    parse_sse,
    reply,
    reply_events,
    reported_usage,
    text,
    thinking,
    tool_use,
)

EXHAUSTED_TEXT = "(fake api: script exhausted)"
"""The text answered to a turn request that finds the script empty (and no responder)."""


DEFAULT_IDLE_TIMEOUT = 600.0
"""Seconds without a request after which a forgotten server stops by itself."""

DEFAULT_LIFETIME = 3600.0
"""Seconds after which a server stops by itself, busy or not."""

REPLY_INPUT_TOKENS = 25
"""``usage.input_tokens`` of every streamed reply. Kept small on purpose: the CLI suppresses
prompt suggestions when the last reply's input + cache-creation + output tokens exceed 10,000
("cache_cold"), and large numbers would also move it towards auto-compaction."""

# ----------------------------------------------------------------------------- the fake


class FakeAnthropicAPI:
    """The fake server. Use as a context manager (or ``start()``/``stop()``).

    ``script``: turn replies, played in order to turn requests only. An item may be a callable
    ``f(request) -> Reply | ErrorReply`` to decide from what the CLI sent.
    ``responder``: ``f(request) -> Reply | ErrorReply | None``, asked for a turn request when the
    script is empty; None (or no responder) gives the ``EXHAUSTED_TEXT`` default, recorded.
    ``side_replies``: overrides of ``CANNED_SIDE_REPLIES`` by side-request name.

    Attributes:
        expired: Why the server stopped by itself (``"idle 300s"``, ``"lifetime 3600s"``), else
            None.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] = (),
        *,
        responder: Optional[Responder] = None,
        side_replies: Optional[Dict[str, Answer]] = None,
        idle_timeout: Optional[float] = DEFAULT_IDLE_TIMEOUT,
        lifetime: Optional[float] = DEFAULT_LIFETIME,
    ) -> None:
        for name, value in (("idle_timeout", idle_timeout), ("lifetime", lifetime)):
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be a positive number of seconds or None, not {value!r}")
        self._script: List[ScriptItem] = list(script)
        self._responder = responder
        self._side_replies: Dict[str, Answer] = dict(CANNED_SIDE_REPLIES)
        self._side_replies.update(side_replies or {})
        self._idle_timeout = idle_timeout
        self._lifetime = lifetime
        self._changed = threading.Condition()
        self._records: List[ApiRequest] = []
        self._handler_errors: List[str] = []
        self._stopping = threading.Event()
        self._server: Optional[_Server] = None
        self._serve_thread: Optional[threading.Thread] = None
        self._started_at = 0.0
        self._last_activity = 0.0
        self._port = 0
        self.expired: Optional[str] = None

    # -- life cycle

    def start(self) -> FakeAnthropicAPI:
        """Bind 127.0.0.1 on a free port and serve in a ``fake_api-server`` thread.

        The server stops by itself (closes its socket and connections; ``expired`` says why)
        after ``idle_timeout`` seconds without a request or ``lifetime`` seconds in all.
        Raises ``RuntimeError`` when already started, ``OSError`` when it cannot bind.
        """
        if self._server is not None:
            raise RuntimeError("fake API already started")
        self._stopping.clear()
        self.expired = None
        self._server = _Server(self)
        self._port = int(self._server.server_address[1])
        self._started_at = self._last_activity = time.monotonic()
        self._serve_thread = threading.Thread(
            target=self._serve, args=(self._server,), name="fake_api-server", daemon=True
        )
        self._serve_thread.start()

        allow_base_url(self.base_url)  # a real CLI aimed here may run while the switch is on
        return self

    def _serve(self, server: _Server) -> None:
        """Server thread: accept connections until stopped or expired (checked every 50 ms)."""
        server.timeout = 0.05
        while not self._stopping.is_set():
            reason = self._expiry_reason(time.monotonic())
            if reason is not None:
                self.expired = reason
                server.close_connections_and_join(5.0)
                server.server_close()
                return
            server.handle_request()

    def _expiry_reason(self, now: float) -> Optional[str]:
        if self._lifetime is not None and now - self._started_at > self._lifetime:
            return f"lifetime {self._lifetime:g}s"
        with self._changed:
            busy = any(not (r.finished or r.aborted) for r in self._records if r.kind == "turn")
            idle_for = now - self._last_activity
        if self._idle_timeout is not None and not busy and idle_for > self._idle_timeout:
            return f"idle {self._idle_timeout:g}s"
        return None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, cut open connections, join every thread, close the socket. Idempotent.

        Raises ``RuntimeError`` if a server thread is still alive after ``timeout``.
        """
        server, thread = self._server, self._serve_thread
        if server is None or thread is None:
            return

        disallow_base_url(self.base_url)
        self._stopping.set()
        thread.join(timeout)
        stuck = server.close_connections_and_join(timeout)
        server.server_close()
        self._server = self._serve_thread = None
        if thread.is_alive() or stuck:
            raise RuntimeError(f"fake API threads did not stop: {stuck or [thread.name]}")

    def __enter__(self) -> FakeAnthropicAPI:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on. Raises ``RuntimeError`` before ``start()``."""
        if self._server is None:
            raise RuntimeError("fake API not started")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: what the CLI's ``ANTHROPIC_BASE_URL`` is set to. Raises
        ``RuntimeError`` before ``start()``.
        """
        return f"http://127.0.0.1:{self.port}"

    # -- scripting

    def add(self, *items: ScriptItem) -> None:
        """Append turn replies to the script."""
        with self._changed:
            self._script.extend(items)

    def remaining(self) -> int:
        """How many scripted turn replies have not been played yet."""
        with self._changed:
            return len(self._script)

    # -- inspection

    def requests(self, kind: Optional[str] = None) -> List[ApiRequest]:
        """A snapshot of the recorded requests, optionally only those of one ``kind``."""
        with self._changed:
            return [r for r in self._records if kind is None or r.kind == kind]

    def turn_requests(self) -> List[ApiRequest]:
        """A snapshot of the model-turn requests (``kind == "turn"``), in order."""
        return self.requests("turn")

    def side_requests(self) -> List[ApiRequest]:
        """A snapshot of the side requests (titles, suggestions, compaction …), in order."""
        return [r for r in self.requests() if r.is_side]

    def exhausted_requests(self) -> List[ApiRequest]:
        """Turn requests that found the script empty and got ``EXHAUSTED_TEXT``."""
        return [r for r in self.requests() if r.answer == "exhausted"]

    def handler_errors(self) -> List[str]:
        """What went wrong inside the server while answering (a script callable that raised …); [] when
        nothing did.
        """
        with self._changed:
            return list(self._handler_errors)

    def wait_for(
        self, predicate: Callable[[List[ApiRequest]], bool], timeout: float = 10.0
    ) -> bool:
        """Block until ``predicate(requests snapshot)`` is true; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(list(self._records)):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def assert_no_surprises(self, *, script_consumed: bool = True) -> None:
        """Raise ``AssertionError`` if a turn found the script empty, a request was of an unknown
        kind, a handler failed, or (with ``script_consumed``) scripted replies were left over."""
        problems: List[str] = []
        for record in self.exhausted_requests():
            prompt = record.last_user_text[:200]
            problems.append(f"turn request #{record.index} found the script empty: {prompt!r}")
        for record in self.requests("other"):
            problems.append(f"unexpected request #{record.index}: {record.method} {record.path}")
        problems.extend(f"handler error: {message}" for message in self.handler_errors())
        if script_consumed and self.remaining():
            problems.append(f"{self.remaining()} scripted replies were never requested")
        if problems:
            raise AssertionError("fake API: " + "; ".join(problems))

    # -- used by the handler threads

    def _record(self, record: ApiRequest) -> ApiRequest:
        with self._changed:
            self._last_activity = time.monotonic()
            record.index = len(self._records)
            self._records.append(record)
            self._changed.notify_all()
        return record

    def _update(self, record: ApiRequest, **changes: Any) -> None:
        with self._changed:
            self._last_activity = time.monotonic()
            for name, value in changes.items():
                setattr(record, name, value)
            self._changed.notify_all()

    def _note_handler_error(self, message: str) -> None:
        with self._changed:
            self._handler_errors.append(message)
            self._changed.notify_all()

    def _answer_for(self, record: ApiRequest) -> Tuple[Answer, str]:
        """Pick the answer to a ``/v1/messages`` request and say where it came from."""
        if record.is_side:
            return self._side_replies[record.kind[len("side:") :]], "canned"
        with self._changed:
            item = self._script.pop(0) if self._script else None
        if item is not None:
            answer = item(record) if callable(item) else item
            return answer, f"scripted {answer.describe()}"
        if self._responder is not None:
            decided = self._responder(record)
            if decided is not None:
                return decided, f"responder {decided.describe()}"
        return text(EXHAUSTED_TEXT), "exhausted"


class _Server(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` whose per-connection threads are named and joined on stop."""

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, api: FakeAnthropicAPI) -> None:
        self.api = api
        self._connections_lock = threading.Lock()
        self._open_connections: Dict[int, socket.socket] = {}
        self._connection_threads: List[threading.Thread] = []
        self._connection_numbers = itertools.count(1)
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        number = next(self._connection_numbers)
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"fake_api-conn-{number}",
            daemon=True,
        )
        with self._connections_lock:
            self._open_connections[id(request)] = request
            self._connection_threads = [t for t in self._connection_threads if t.is_alive()]
            self._connection_threads.append(thread)
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._open_connections.pop(id(request), None)
            super().shutdown_request(request)

    def close_connections_and_join(self, timeout: float) -> List[str]:
        """Cut every open connection, join the connection threads; return names still alive."""
        with self._connections_lock:
            for connection in self._open_connections.values():
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            threads = list(self._connection_threads)
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return [thread.name for thread in threads if thread.is_alive()]

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that vanished is normal (interrupts, killed CLIs); anything else is recorded.
        exc = sys.exc_info()[1]
        if not isinstance(exc, (ConnectionError, socket.timeout, TimeoutError)):
            self.api._note_handler_error(repr(exc))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-anthropic-api/1"
    timeout = 120.0  # idle keep-alive connections end on their own too
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: the records are the log."""

    # -- verbs

    def do_HEAD(self) -> None:
        self._record(b"")
        self._send_bytes(200, b"", "text/plain")

    def do_GET(self) -> None:
        record = self._record(b"")
        self._send_error_reply(
            record, error(404, "not_found_error", f"fake api: no GET {self.path}")
        )

    def do_POST(self) -> None:
        record = self._record(self._read_body())
        if record.kind == "count_tokens":
            payload = json.dumps({"input_tokens": estimate_tokens(record.body_bytes)}).encode()
            self.server.api._update(record, answer="count_tokens", finished=True)
            self._send_bytes(200, payload, "application/json")
        elif record.kind == "other":
            self._send_error_reply(
                record, error(404, "not_found_error", f"fake api: no POST {self.path}")
            )
        else:
            try:
                answer, source = self.server.api._answer_for(record)
            except BaseException as exc:
                # Never answered: the request is over (else it would count as busy forever and
                # the idle timeout would never stop the server). ``handle_error`` notes it.
                self.server.api._update(record, answer=f"raised {exc!r}", aborted=True)
                raise
            self.server.api._update(record, answer=source)
            if isinstance(answer, ErrorReply):
                self._send_error_reply(record, answer)
            elif record.kind == "side:model_check":  # not streamed: one JSON message
                self._send_whole_reply(record, answer)
            else:
                self._stream_reply(record, answer)

    # -- helpers

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            return self._read_chunked_body()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _read_chunked_body(self) -> bytes:
        parts: List[bytes] = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline()

    def _record(self, raw: bytes) -> ApiRequest:
        split = urlsplit(self.path)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record = ApiRequest(
            index=0,
            method=self.command,
            path=split.path,
            query=parse_qs(split.query),
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            body_bytes=len(raw),
            received_at=time.monotonic(),
            kind=classify(self.command, split.path, body),
        )
        return self.server.api._record(record)

    def _send_bytes(
        self, status: int, payload: bytes, content_type: str, extra: Sequence[Tuple[str, str]] = ()
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:16]}")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _send_error_reply(self, record: ApiRequest, answer: ErrorReply) -> None:
        extra = list(answer.headers)
        if answer.retry_after is not None:
            extra.append(("retry-after", f"{answer.retry_after:g}"))
        # Marked finished before the bytes go out, so a client that has read the reply sees it.
        self.server.api._update(record, answer=record.answer or answer.describe(), finished=True)
        self._send_bytes(
            answer.status, json.dumps(answer.body()).encode(), "application/json", extra
        )

    def _send_whole_reply(self, record: ApiRequest, answer: Reply) -> None:
        """The whole message as one JSON body (for a request that does not stream)."""
        events = list(reply_events(
            answer,
            model=record.model or "claude-fake",
            message_id=f"msg_fake_{uuid.uuid4().hex[:20]}",
            input_tokens=REPLY_INPUT_TOKENS,
        ))
        self.server.api._update(record, finished=True, usage=reported_usage(events))
        self._send_bytes(200, json.dumps(assemble_message(list(events))).encode(), "application/json")

    def _stream_reply(self, record: ApiRequest, answer: Reply) -> None:
        api = self.server.api
        model = record.model or "claude-fake"
        message_id = f"msg_fake_{uuid.uuid4().hex[:20]}"
        events = list(reply_events(
            answer, model=model, message_id=message_id, input_tokens=REPLY_INPUT_TOKENS
        ))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_fake_{uuid.uuid4().hex[:16]}")
        self.end_headers()
        try:
            for name, data in events:
                if (
                    name == "content_block_delta"
                    and answer.delay > 0
                    and api._stopping.wait(answer.delay)
                ):
                    raise ConnectionAbortedError("fake API stopping")
                self._write_chunk(format_sse(name, data))
            # Every event is out: mark it before the terminating chunk, which is what lets a
            # client see the end of the body, so a client that has read it sees finished=True.
            api._update(record, finished=True, usage=reported_usage(events))
            self._write_chunk(b"")
        except (ConnectionError, socket.timeout, TimeoutError, OSError):
            api._update(record, aborted=True)
            self.close_connection = True

    def _write_chunk(self, payload: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()
