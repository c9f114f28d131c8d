"""The Anthropic Messages API as the fake plays it, as data: the requests the CLI sends
(``ApiRequest``, how each is classified: turn, side request, preflight …) and the replies a
script gives (``text``, ``tool_use``, ``thinking``, ``reply``, ``error`` …) with their encoding
as the Messages API's server-sent events.

Pure: no sockets, no threads. ``claude_sync.testing.fake_api`` (the server) re-exports every
public name.
"""

from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

DEFAULT_CHUNK_SIZE = 8192
"""Characters per ``text_delta``/``thinking_delta``/``input_json_delta`` of a fast reply."""


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

    Attributes:
        blocks: The message's content blocks (text, tool use, thinking), in order.
        stop_reason: The stop reason sent; None: worked out (``effective_stop_reason``).
        delay: Seconds slept before every delta event.
        chunk_size: Characters per text delta; None: word by word with a ``delay``, else
            ``DEFAULT_CHUNK_SIZE``.
    """

    blocks: Tuple[Block, ...]
    stop_reason: Optional[str] = None
    delay: float = 0.0
    chunk_size: Optional[int] = None

    @property
    def effective_stop_reason(self) -> str:
        """The stop reason sent: ``stop_reason``, else ``"tool_use"`` if any block is a tool use, else
        ``"end_turn"``.
        """
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
        """The ids of the tool-use blocks, in order."""
        return [block.id for block in self.blocks if isinstance(block, ToolUseBlock)]

    def describe(self) -> str:
        """A short label for logs and failure messages (``reply[text,tooluse]``)."""
        kinds = ",".join(type(block).__name__.replace("Block", "").lower() for block in self.blocks)
        return f"reply[{kinds}]"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with an Anthropic error body ``{"type":"error","error":{type,message}}``.

    Attributes:
        status: The HTTP status (429, 500, 529 …).
        error_type: The Anthropic error type (``rate_limit_error``, ``overloaded_error`` …).
        message: The error's message.
        retry_after: A ``retry-after`` header value in seconds, or None.
        headers: More response headers, as ``(name, value)`` pairs.
    """

    status: int
    error_type: str
    message: str
    retry_after: Optional[float] = None
    headers: Tuple[Tuple[str, str], ...] = ()

    def body(self) -> Dict[str, Any]:
        """The response body: ``{"type": "error", "error": {"type": …, "message": …}}``."""
        return {"type": "error", "error": {"type": self.error_type, "message": self.message}}

    def describe(self) -> str:
        """A short label for logs and failure messages (``error[529 overloaded_error]``)."""
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


def reported_usage(events: List[Tuple[str, Dict[str, Any]]]) -> Dict[str, int]:
    """The ``input_tokens``/``output_tokens`` a reply's events report (``message_start``'s
    input, ``message_delta``'s output), as the CLI will count them."""
    counts = {"input_tokens": 0, "output_tokens": 0}
    for name, data in events:
        if name == "message_start":
            counts["input_tokens"] = int(data["message"]["usage"]["input_tokens"])
        elif name == "message_delta":
            counts["output_tokens"] = int(data["usage"]["output_tokens"])
    return counts


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
    ``responder error[401 …]``, ``exhausted``, ``canned``, …).

    Attributes:
        index: Its position among all the requests the fake received, from 0.
        method: The HTTP method.
        path: The URL path (``/v1/messages`` …).
        query: The query parameters.
        headers: The request headers (lower-case names).
        body: The JSON body (None when there was none or it was not JSON).
        body_bytes: The body's size in bytes.
        received_at: When it arrived (``time.monotonic()``).
        kind: How the fake classified it (see above).
        answer: What the fake played (see above).
        finished: Whether the answer was sent completely.
        aborted: Whether the CLI went away before the answer was complete.
        usage: The token counts the fake reported for its answer (``input_tokens``,
            ``output_tokens`` of the reply's ``message_delta``), once it was sent; None for a
            request answered otherwise (an error, a canned side reply's body …).
    """

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
    usage: Optional[Dict[str, int]] = None

    @property
    def is_side(self) -> bool:
        """Whether it is a side request (``kind`` starts with ``side:``)."""
        return self.kind.startswith("side:")

    @property
    def model(self) -> Optional[str]:
        """The ``model`` of the body, if any."""
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> List[Dict[str, Any]]:
        """The ``messages`` of the body ([] when none)."""
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []

    @property
    def tools(self) -> List[Dict[str, Any]]:
        """The ``tools`` of the body ([] when none)."""
        return list(self.body.get("tools") or []) if isinstance(self.body, dict) else []

    @property
    def tool_names(self) -> List[str]:
        """The names of the tools offered to the model."""
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
        """The text of the last user message ("" when none)."""
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


