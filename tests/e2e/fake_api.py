"""A scriptable, loopback-only fake of the Anthropic Messages API, for driving the real CLI.

The real ``claude`` binary is pointed at this server with ``ANTHROPIC_BASE_URL`` (see
``harness.hermetic_env``). A test writes a *script* (a queue of turn replies), the fake plays
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
and closes the listening socket.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union
from urllib.parse import parse_qs, urlsplit

EXHAUSTED_TEXT = "(fake api: script exhausted)"
"""The text answered to a turn request that finds the script empty (and no responder)."""

DEFAULT_CHUNK_SIZE = 8192
"""Characters per ``text_delta``/``thinking_delta``/``input_json_delta`` of a fast reply."""

REPLY_INPUT_TOKENS = 25
"""``usage.input_tokens`` of every streamed reply. Kept small on purpose: the CLI suppresses
prompt suggestions when the last reply's input + cache-creation + output tokens exceed 10,000
("cache_cold"), and large numbers would also move it towards auto-compaction."""

# ----------------------------------------------------------------------------- script items


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ToolUseBlock:
    name: str
    input: Dict[str, Any]
    id: str


@dataclass(frozen=True)
class ThinkingBlock:
    thinking: str
    signature: str


Block = Union[TextBlock, ToolUseBlock, ThinkingBlock]


@dataclass(frozen=True)
class Reply:
    """One streamed assistant message: its blocks, in order, and how to stream them.

    ``stop_reason`` None means: ``"tool_use"`` if any block is a tool use, else ``"end_turn"``.
    ``delay`` seconds are slept before every delta event, so a test can act mid-stream.
    ``chunk_size`` characters per delta; None means word by word when ``delay`` is set, else
    ``DEFAULT_CHUNK_SIZE``.
    """

    blocks: Tuple[Block, ...]
    stop_reason: Optional[str] = None
    delay: float = 0.0
    chunk_size: Optional[int] = None

    @property
    def effective_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        if any(isinstance(block, ToolUseBlock) for block in self.blocks):
            return "tool_use"
        return "end_turn"

    @property
    def full_text(self) -> str:
        """The text blocks' text, concatenated (what the CLI's ``result`` should say)."""
        return "".join(block.text for block in self.blocks if isinstance(block, TextBlock))

    @property
    def tool_use_ids(self) -> List[str]:
        return [block.id for block in self.blocks if isinstance(block, ToolUseBlock)]

    def describe(self) -> str:
        kinds = ",".join(type(block).__name__.replace("Block", "").lower() for block in self.blocks)
        return f"reply[{kinds}]"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with an Anthropic error body ``{"type":"error","error":{type,message}}``."""

    status: int
    error_type: str
    message: str
    retry_after: Optional[float] = None
    headers: Tuple[Tuple[str, str], ...] = ()

    def body(self) -> Dict[str, Any]:
        return {"type": "error", "error": {"type": self.error_type, "message": self.message}}

    def describe(self) -> str:
        return f"error[{self.status} {self.error_type}]"


Answer = Union[Reply, ErrorReply]
Responder = Callable[["ApiRequest"], Optional[Answer]]
ScriptItem = Union[Reply, ErrorReply, Callable[["ApiRequest"], Answer]]


def text(content: str, *, delay: float = 0.0, chunk_size: Optional[int] = None) -> Reply:
    """A reply holding one text block (stop_reason ``end_turn``)."""
    return Reply((TextBlock(content),), delay=delay, chunk_size=chunk_size)


def tool_use(name: str, input: Dict[str, Any], id: Optional[str] = None) -> Reply:  # noqa: A002
    """A reply holding one tool_use block (stop_reason ``tool_use``); ``id`` is made if None."""
    return Reply((ToolUseBlock(name, dict(input), id or new_tool_use_id()),))


def thinking(content: str, signature: Optional[str] = None) -> Reply:
    """A reply holding one thinking block; combine it with ``reply(thinking(…), text(…))``."""
    return Reply((ThinkingBlock(content, signature or f"fake-signature-{uuid.uuid4().hex[:16]}"),))


def reply(
    *parts: Reply,
    stop_reason: Optional[str] = None,
    delay: float = 0.0,
    chunk_size: Optional[int] = None,
) -> Reply:
    """One message made of the blocks of ``parts``, in order (e.g. thinking, text, tool_use)."""
    blocks = tuple(block for part in parts for block in part.blocks)
    return Reply(blocks, stop_reason=stop_reason, delay=delay, chunk_size=chunk_size)


def error(
    status: int,
    type: str,  # noqa: A002
    message: str,
    *,
    retry_after: Optional[float] = None,
    headers: Optional[Dict[str, str]] = None,
) -> ErrorReply:
    """An HTTP error reply, e.g. ``error(401, "authentication_error", "bad key")``.

    ``retry_after`` adds a ``retry-after`` header (seconds); ``headers`` adds any others (for
    example ``{"x-should-retry": "false"}``).
    """
    return ErrorReply(status, type, message, retry_after, tuple(sorted((headers or {}).items())))


def large_text(size: int = 850 * 1024, *, line: str = "fake api large text line {:07d}\n") -> Reply:
    """A text reply of exactly ``size`` characters made of numbered lines (ASCII)."""
    return text(make_large_text(size, line=line))


def make_large_text(size: int, *, line: str = "fake api large text line {:07d}\n") -> str:
    """``size`` ASCII characters of numbered lines; the last line is cut to fit."""
    pieces: List[str] = []
    total = 0
    for number in itertools.count():
        if total >= size:
            break
        piece = line.format(number)
        pieces.append(piece)
        total += len(piece)
    return "".join(pieces)[:size]


def new_tool_use_id() -> str:
    return f"toolu_fake_{uuid.uuid4().hex[:20]}"


# ----------------------------------------------------------------------------- SSE encoding


def chunk_text(content: str, chunk_size: Optional[int], *, slow: bool) -> List[str]:
    """Split ``content`` into delta pieces: by ``chunk_size``, else word by word when ``slow``.

    Always returns at least one piece (possibly empty) so every block gets a delta.
    """
    if not content:
        return [""]
    if chunk_size is None and slow:
        words = content.split(" ")
        return [word + " " for word in words[:-1]] + [words[-1]] if len(words) > 1 else [content]
    size = max(1, chunk_size or DEFAULT_CHUNK_SIZE)
    return [content[start : start + size] for start in range(0, len(content), size)]


def reply_events(
    answer: Reply, *, model: str, message_id: str, input_tokens: int
) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """The Messages-API stream events for ``answer``, as ``(event name, data)`` pairs."""
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _usage(input_tokens, 1),
            },
        },
    )
    yield "ping", {"type": "ping"}
    slow = answer.delay > 0
    output_chars = 0
    for index, block in enumerate(answer.blocks):
        start, deltas = _block_start_and_deltas(block, answer.chunk_size, slow)
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for delta in deltas:
            output_chars += len(json.dumps(delta))
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": answer.effective_stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": max(1, output_chars // 4)},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _block_start_and_deltas(
    block: Block, chunk_size: Optional[int], slow: bool
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    if isinstance(block, TextBlock):
        pieces = chunk_text(block.text, chunk_size, slow=slow)
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces]
    if isinstance(block, ToolUseBlock):
        start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        pieces = chunk_text(json.dumps(block.input), chunk_size, slow=False)
        return start, [{"type": "input_json_delta", "partial_json": p} for p in pieces]
    pieces = chunk_text(block.thinking, chunk_size, slow=slow)
    deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces]
    deltas.append({"type": "signature_delta", "signature": block.signature})
    return {"type": "thinking", "thinking": "", "signature": ""}, deltas


def _usage(input_tokens: int, output_tokens: int) -> Dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "service_tier": "standard",
    }


def format_sse(event: str, data: Dict[str, Any]) -> bytes:
    """One server-sent event: ``event: NAME\\ndata: JSON\\n\\n``."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def parse_sse(stream: bytes) -> List[Tuple[str, Dict[str, Any]]]:
    """Decode a complete SSE byte stream into ``(event, data)`` pairs (for tests).

    Raises ``ValueError`` if a data line is not JSON.
    """
    events: List[Tuple[str, Dict[str, Any]]] = []
    for frame in stream.decode().split("\n\n"):
        if not frame.strip():
            continue
        name = ""
        data_lines: List[str] = []
        for line in frame.split("\n"):
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data_lines.append(line[len("data:") :].strip())
        events.append((name, json.loads("\n".join(data_lines))))
    return events


def assemble_message(events: Sequence[Tuple[str, Dict[str, Any]]]) -> Dict[str, Any]:
    """Rebuild the final message (content blocks, stop_reason) from stream events (for tests)."""
    message: Dict[str, Any] = {}
    partial_json: Dict[int, str] = {}
    for _name, data in events:
        kind = data["type"]
        if kind == "message_start":
            message = dict(data["message"], content=[])
        elif kind == "content_block_start":
            message["content"].append(dict(data["content_block"]))
        elif kind == "content_block_delta":
            _apply_delta(
                message["content"][data["index"]], data["delta"], partial_json, data["index"]
            )
        elif kind == "content_block_stop" and data["index"] in partial_json:
            message["content"][data["index"]]["input"] = json.loads(partial_json.pop(data["index"]))
        elif kind == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"] = dict(message["usage"], **data["usage"])
    return message


def _apply_delta(
    block: Dict[str, Any], delta: Dict[str, Any], partial: Dict[int, str], index: int
) -> None:
    kind = delta["type"]
    if kind == "text_delta":
        block["text"] += delta["text"]
    elif kind == "thinking_delta":
        block["thinking"] += delta["thinking"]
    elif kind == "signature_delta":
        block["signature"] = delta["signature"]
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + delta["partial_json"]


# ----------------------------------------------------------------------------- requests


@dataclass
class ApiRequest:
    """One request the CLI made, as received. ``kind`` says how the fake classified it:
    ``preflight``, ``turn``, ``count_tokens``, ``other``, or ``side:<name>`` (see
    ``SIDE_REQUEST_MARKERS``). ``answer`` says what the fake played (``scripted reply[text]``,
    ``responder error[401 …]``, ``exhausted``, ``canned``, …)."""

    index: int
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: Any
    body_bytes: int
    received_at: float
    kind: str = ""
    answer: str = ""
    finished: bool = False
    aborted: bool = False

    @property
    def is_side(self) -> bool:
        return self.kind.startswith("side:")

    @property
    def model(self) -> Optional[str]:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> List[Dict[str, Any]]:
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []

    @property
    def tools(self) -> List[Dict[str, Any]]:
        return list(self.body.get("tools") or []) if isinstance(self.body, dict) else []

    @property
    def tool_names(self) -> List[str]:
        return [tool.get("name", "") for tool in self.tools]

    @property
    def system_text(self) -> str:
        """The system prompt as one string (it is sent as a list of text blocks)."""
        system = self.body.get("system") if isinstance(self.body, dict) else None
        return content_text(system)

    @property
    def last_user_message(self) -> Optional[Dict[str, Any]]:
        """The last ``role:"user"`` message; the array may end with a ``role:"system"`` one."""
        for message in reversed(self.messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return dict(message)
        return None

    @property
    def last_user_text(self) -> str:
        message = self.last_user_message
        return content_text(message.get("content")) if message else ""

    @property
    def tool_results(self) -> List[Dict[str, Any]]:
        """The ``tool_result`` blocks of the last user message."""
        message = self.last_user_message
        content = message.get("content") if message else None
        if not isinstance(content, list):
            return []
        return [
            block
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]


def content_text(content: Any) -> str:
    """The text of a message content or system prompt: a string, or the ``text`` blocks joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        block.get("text", "")
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    )


SIDE_REQUEST_MARKERS: Tuple[Tuple[str, str, str], ...] = (
    ("prompt_suggestion", "last_user", "Reply with ONLY the suggestion, no quotes or explanation."),
    ("session_title", "system", "Generate a concise, sentence-case title"),
    ("session_title", "system", 'Return JSON with a single "title" field.'),  # CLI 2.1.330
    ("side_question", "last_user", "Simply answer the question with the information you have."),
    ("compact", "last_user", "Respond with TEXT ONLY. Do NOT call any tools."),
)
"""``(name, where, marker)``: a ``/v1/messages`` request whose ``where`` text (the last user
message or the system prompt) contains ``marker`` is the side request ``side:<name>``."""

CANNED_SIDE_REPLIES: Dict[str, Reply] = {
    "prompt_suggestion": text("run the tests"),
    "session_title": text('{"title": "Fake session title"}'),
    "side_question": text("(fake api: side answer)"),
    "model_check": text("H"),
    "compact": text(
        "<analysis>fake analysis</analysis>\n<summary>fake summary of the conversation</summary>"
    ),
}


def classify(method: str, path: str, body: Any) -> str:
    """The ``kind`` of a request (see ``ApiRequest``), from its method, path and JSON body."""
    if method == "HEAD":
        return "preflight"
    if method != "POST":
        return "other"
    if path == "/v1/messages/count_tokens":
        return "count_tokens"
    if path != "/v1/messages" or not isinstance(body, dict):
        return "other"
    if body.get("max_tokens") == 1 and not body.get("stream"):
        return "side:model_check"  # CLI 2.1.330 checks a model this way after set_model
    probe = ApiRequest(0, method, path, {}, {}, body, 0, 0.0)
    where_text = {"last_user": probe.last_user_text, "system": probe.system_text}
    for name, where, marker in SIDE_REQUEST_MARKERS:
        if marker in where_text[where]:
            return f"side:{name}"
    return "turn"


def estimate_tokens(body_bytes: int) -> int:
    return max(1, body_bytes // 4)


# ----------------------------------------------------------------------------- the fake


class FakeAnthropicAPI:
    """The fake server. Use as a context manager (or ``start()``/``stop()``).

    ``script``: turn replies, played in order to turn requests only. An item may be a callable
    ``f(request) -> Reply | ErrorReply`` to decide from what the CLI sent.
    ``responder``: ``f(request) -> Reply | ErrorReply | None``, asked for a turn request when the
    script is empty; None (or no responder) gives the ``EXHAUSTED_TEXT`` default, recorded.
    ``side_replies``: overrides of ``CANNED_SIDE_REPLIES`` by side-request name.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] = (),
        *,
        responder: Optional[Responder] = None,
        side_replies: Optional[Dict[str, Answer]] = None,
    ) -> None:
        self._script: List[ScriptItem] = list(script)
        self._responder = responder
        self._side_replies: Dict[str, Answer] = dict(CANNED_SIDE_REPLIES)
        self._side_replies.update(side_replies or {})
        self._changed = threading.Condition()
        self._records: List[ApiRequest] = []
        self._handler_errors: List[str] = []
        self._stopping = threading.Event()
        self._server: Optional[_Server] = None
        self._serve_thread: Optional[threading.Thread] = None

    # -- life cycle

    def start(self) -> FakeAnthropicAPI:
        """Bind 127.0.0.1 on a free port and serve in a ``fake_api-server`` thread."""
        if self._server is not None:
            raise RuntimeError("fake API already started")
        self._stopping.clear()
        self._server = _Server(self)
        self._serve_thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake_api-server",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, cut open connections, join every thread, close the socket. Idempotent.

        Raises ``RuntimeError`` if a server thread is still alive after ``timeout``.
        """
        server, thread = self._server, self._serve_thread
        if server is None or thread is None:
            return
        self._stopping.set()
        server.shutdown()
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
        if self._server is None:
            raise RuntimeError("fake API not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
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
        return self.requests("turn")

    def side_requests(self) -> List[ApiRequest]:
        return [r for r in self.requests() if r.is_side]

    def exhausted_requests(self) -> List[ApiRequest]:
        """Turn requests that found the script empty and got ``EXHAUSTED_TEXT``."""
        return [r for r in self.requests() if r.answer == "exhausted"]

    def handler_errors(self) -> List[str]:
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
            record.index = len(self._records)
            self._records.append(record)
            self._changed.notify_all()
        return record

    def _update(self, record: ApiRequest, **changes: Any) -> None:
        with self._changed:
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
            answer, source = self.server.api._answer_for(record)
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
        message = assemble_message(
            list(
                reply_events(
                    answer,
                    model=record.model or "claude-fake",
                    message_id=f"msg_fake_{uuid.uuid4().hex[:20]}",
                    input_tokens=REPLY_INPUT_TOKENS,
                )
            )
        )
        self.server.api._update(record, finished=True)
        self._send_bytes(200, json.dumps(message).encode(), "application/json")

    def _stream_reply(self, record: ApiRequest, answer: Reply) -> None:
        api = self.server.api
        model = record.model or "claude-fake"
        message_id = f"msg_fake_{uuid.uuid4().hex[:20]}"
        events = reply_events(
            answer, model=model, message_id=message_id, input_tokens=REPLY_INPUT_TOKENS
        )
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
            api._update(record, finished=True)
            self._write_chunk(b"")
        except (ConnectionError, socket.timeout, TimeoutError, OSError):
            api._update(record, aborted=True)
            self.close_connection = True

    def _write_chunk(self, payload: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()
