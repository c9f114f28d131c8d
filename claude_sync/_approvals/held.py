"""Which calls a session's transcript holds for a person: read from its end (pure).

A session that stopped at a deferred call (a ``PreToolUse`` hook answered ``"defer"``) is
marked by the CLI itself: after the assistant message with the ``tool_use``, its transcript
has an ``attachment`` entry ``{"type": "hook_deferred_tool", "toolUseID", "toolName",
"toolInput", …}`` (CLI 2.1.197 and 2.1.333, the same shape). On any later ``--resume`` /
``--continue`` / ``--fork-session`` of that session the CLI runs the deferred call again
through its ordinary permission flow — with ``allowed_tools=["Bash"]`` and no approval gate in
front, unasked. Measured on both CLIs: the same transcript without that attachment resumes
without running the call (the CLI drops the open ``tool_use``). So the mark is exactly that:
a ``hook_deferred_tool`` attachment after the session's last assistant message whose call
has no ``tool_result``. It lives in the transcript, so it survives the process and travels
with the session (a session store keeps the attachment like any other entry).

``HeldTail`` walks the transcript's lines **from the end**: the attachments, the results and
the metadata lines (``last-prompt``, ``mode``, ``cost-state`` …) after the last assistant
message, that message's entries, and stops at the entry before it. A line it cannot read
(not UTF-8, not JSON — a truncated or corrupt transcript — or not a JSON object) raises
``UnreadableTail`` naming the line: the caller refuses rather than guess (fail closed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set

from .._redaction.redactor import redacted_excerpt

__all__ = ["HeldCall", "HeldTail", "UnreadableTail", "held_calls"]

DEFERRED_ATTACHMENT = "hook_deferred_tool"
INPUT_SUMMARY_CHARS = 120


class UnreadableTail(ValueError):
    """A line of the transcript's tail cannot be read; the message says which and why."""


@dataclass(frozen=True)
class HeldCall:
    """One call a session waits on a person for.

    Attributes:
        tool_use_id: The deferred call's ``tool_use`` id.
        tool_name: Its tool, e.g. ``"Bash"``.
        tool_input: Its input as the CLI recorded it (a JSON object, or {} if it had none).
    """

    tool_use_id: str
    tool_name: str
    tool_input: Dict[str, Any]

    def describe(self) -> str:
        """``Bash call toolu_… {"command": "rm x"}``, the input cut to ``INPUT_SUMMARY_CHARS``
        after known secrets are removed (a secret cut in two would no longer be found)."""
        text = redacted_excerpt(json.dumps(self.tool_input, ensure_ascii=True, sort_keys=True), INPUT_SUMMARY_CHARS)
        return f"{self.tool_name} call {self.tool_use_id} {text}"


class HeldTail:
    """Feed the transcript's lines last first (``feed``) until it returns True, then read
    ``held``. One walk per object; not thread-safe (one caller)."""

    def __init__(self) -> None:
        self._deferred: Dict[str, HeldCall] = {}
        self._results: Set[str] = set()
        self._message_id: Optional[Any] = None  # the last assistant message, once passed
        self._lines = 0
        self.done = False

    def feed(self, line: bytes) -> bool:
        """The line before the ones fed so far (without its newline). True once the walk has
        passed the last assistant message (feed no more). Raises ``UnreadableTail``."""
        self._lines += 1
        if self.done or not line.strip():
            return self.done
        entry = self._decode(line)
        kind = entry.get("type")
        if kind == "attachment":
            self._attachment(entry.get("attachment"))
        elif kind == "user":
            if self._message_id is not None:
                self.done = True  # the entry before the last assistant message
            else:
                self._results.update(_result_ids(entry))
        elif kind == "assistant":
            message_id = _message_id(entry)
            if self._message_id is None:
                self._message_id = message_id
            elif message_id != self._message_id:
                self.done = True
        return self.done

    @property
    def held(self) -> List[HeldCall]:
        """The deferred calls without a ``tool_result``, in transcript order."""
        return list(reversed(list(self._deferred.values())))

    def _decode(self, line: bytes) -> Dict[str, Any]:
        where = f"line {self._lines} from the end"
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnreadableTail(f"{where} is not UTF-8 ({exc.reason} at byte {exc.start})") from None
        try:
            entry = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise UnreadableTail(f"{where} is not JSON (a truncated or corrupt transcript): {exc}") from None
        if not isinstance(entry, dict):
            raise UnreadableTail(f"{where} is a JSON {type(entry).__name__}, not a transcript entry")
        return entry

    def _attachment(self, attachment: Any) -> None:
        if not isinstance(attachment, dict) or attachment.get("type") != DEFERRED_ATTACHMENT:
            return
        call_id = attachment.get("toolUseID")
        if not isinstance(call_id, str) or not call_id:
            raise UnreadableTail(f"a {DEFERRED_ATTACHMENT} attachment without a toolUseID: {redacted_excerpt(json.dumps(attachment), 200)}")
        if call_id in self._results or call_id in self._deferred:
            return
        tool_input = attachment.get("toolInput")
        self._deferred[call_id] = HeldCall(
            call_id, str(attachment.get("toolName") or "?"), tool_input if isinstance(tool_input, dict) else {}
        )


def held_calls(lines_last_first: Any) -> List[HeldCall]:
    """The held calls of a transcript given as its lines, last first (an iterable of bytes).
    Raises ``UnreadableTail``."""
    tail = HeldTail()
    for line in lines_last_first:
        if tail.feed(line):
            break
    return tail.held


def _message_id(entry: Dict[str, Any]) -> Any:
    message = entry.get("message")
    return message.get("id") if isinstance(message, dict) else None


def _result_ids(entry: Dict[str, Any]) -> List[str]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [
        str(block.get("tool_use_id"))
        for block in content
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
