"""The fake Anthropic API's view of a request: ``ApiRequest`` and how a request is classified
(turn, side request, preflight …). Pure; ``fake_api`` re-exports every public name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ._api_replies import Reply, text

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


