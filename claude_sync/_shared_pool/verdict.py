"""Whether a leased CLI may go back to the pool for another process (pure: bytes in, a reason out).

The leaseholder's transport feeds every frame it writes (``sent``) and every stdout chunk it
reads (``read``); at the end of the lease ``reason()`` says why the CLI must be killed, or
None when it is **proven** idle — fail closed: anything not understood retires it. Reusable
only when all of these hold:

- the options allow a reset at all (``reuse.options_retire_reason``: ``slash_commands`` not
  False, no ``SESSION_BOUND_OPTIONS``, no hooks), and no prompt was a slash command
  (``reuse.slash_command_reason``; a prompt ``slash_commands=False`` escaped starts with a
  space and is none);
- the leaseholder sent nothing but user frames and the ``initialize`` control request (an
  ``interrupt``, a ``set_model``, an answer to a CLI request … retire it);
- the CLI sent no control request (``can_use_tool``, ``hook_callback``, ``mcp_message`` …)
  and no tool use or tool result (a byte scan of the chunks for the CLI's compact JSON
  ``"type":"…tool_use"`` / ``"type":"…tool_result"``; a false alarm only retires the CLI);
- every user frame sent has had its result, and the bytes read end with a complete
  ``result`` line followed by nothing but ``session_state_changed`` ``idle`` lines (CLI
  2.1.33x writes one right after each result);
- no line over ``LINE_LIMIT`` bytes ends the stream (its kind is not looked at).

The patterns match the CLI's compact JSON (``JSON.stringify``: no spaces); a CLI that wrote
spaced JSON would never show a result line here, so it would never be reused (fails closed).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, List, Optional

from .._agents.reuse import SESSION_BOUND_OPTIONS, options_retire_reason, slash_command_reason
from .._options.options import ClaudeAgentOptions

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import SpawnPlan

__all__ = ["LINE_LIMIT", "LeaseVerdict", "RESUMING_FLAGS", "lease_refusal"]

RESUMING_FLAGS = frozenset({"resume", "continue", "session-id", "fork-session", "resume-session-at", "from-pr"})
"""``extra_args`` flags that tie a CLI to a stored session (as ``SESSION_BOUND_OPTIONS`` do)."""


def lease_refusal(options: ClaudeAgentOptions, plan: SpawnPlan, *, posix: bool) -> Optional[str]:
    """Why a CLI for ``options`` / ``plan`` must be spawned here rather than leased (None: it
    may be leased): a system without Unix sockets and fd passing, ``spawn_command`` (the
    command run is the caller's), ``user`` (another OS user's CLI), any
    ``SESSION_BOUND_OPTIONS`` option or a resuming ``extra_args`` flag (a held approval is
    never resumed through a lease), a ``TRACEPARENT`` in the environment (a plan unique to
    one run's trace: the pool would keep a spare for it that no run ever takes)."""
    if not posix:
        return "leasing needs a POSIX system (Unix sockets, fd passing)"
    if options.spawn_command is not None:
        return "options.spawn_command is set"
    if plan.user is not None or options.user is not None:
        return "options.user is set"
    bound = [name for name in SESSION_BOUND_OPTIONS if getattr(options, name, None)]
    if bound:
        return f"the options set {bound}, which tie a CLI to one session"
    flags = sorted(RESUMING_FLAGS & set(options.extra_args or {}))
    if flags:
        return f"extra_args sets {flags}, which tie a CLI to one session"
    if "TRACEPARENT" in plan.env:
        return ("its environment carries a trace context (TRACEPARENT: the run's span under OpenTelemetry), "
                "so no other run could reuse the CLI")
    return None

LINE_LIMIT = 4 * 1024 * 1024
"""The longest stdout line whose kind is looked at; a longer last line is "not a result"."""

_TOOL = re.compile(rb'"type":"[a-z_]*tool_(?:use|result)"')
_CONTROL_REQUEST = b'"type":"control_request"'
_RESULT = b'"type":"result"'
_STATE = b'"subtype":"session_state_changed"'
_IDLE = b'"state":"idle"'
_OVERLAP = 64
"""Bytes of the previous chunk kept for the scans (a pattern split across two chunks)."""


class LeaseVerdict:
    """One lease's evidence (see the module docstring). ``sent`` runs on any writing thread
    (the transport serialises writes), ``read`` on the reader thread; ``reason`` on the
    closing thread once the reader stopped. Raises nothing."""

    __slots__ = ("_first", "_tail", "_line", "_line_len", "_results", "_users", "_after_result",
                 "_reports_state", "_idle_after_result")  # fmt: skip

    def __init__(self, options: Optional[ClaudeAgentOptions]) -> None:
        self._first: Optional[str] = None if options is None else options_retire_reason(options)
        self._tail = b""
        self._line: List[bytes] = []  # the line being read, in pieces (None-free, bounded)
        self._line_len = 0
        self._results = 0
        self._users = 0
        self._after_result = False  # the complete lines read since the last result are all idle
        self._reports_state = False  # the CLI writes session_state_changed (2.1.33x)
        self._idle_after_result = False

    def _retire(self, reason: str) -> None:
        if self._first is None:
            self._first = reason

    # ------------------------------------------------------------------ what the leaseholder wrote

    def sent(self, data: bytes) -> None:
        """Whole NDJSON frames about to be written to the CLI."""
        for line in data.split(b"\n"):
            if line.strip():
                self._sent_frame(line)

    def _sent_frame(self, line: bytes) -> None:
        try:
            frame = json.loads(line)
        except ValueError:
            self._retire("the leaseholder wrote a line that is not JSON")
            return
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind == "user":
            self._users += 1
            self._after_result = False
            texts = _prompt_texts(frame)
            if texts is None:
                self._retire("a prompt was not plain text")
            for text in texts or ():
                reason = slash_command_reason(text)
                if reason is not None:
                    self._retire(reason)
        elif kind == "control_request":
            request = frame.get("request")
            subtype = request.get("subtype") if isinstance(request, dict) else None
            if subtype != "initialize":
                self._retire(f"the leaseholder sent the control request {subtype!r}")
        elif kind == "control_response":
            self._retire("the leaseholder answered a request of the CLI")
        else:
            self._retire(f"the leaseholder wrote a {kind!r} frame")

    # ------------------------------------------------------------------ what the CLI wrote

    def read(self, chunk: bytes) -> None:
        """A stdout chunk, in order."""
        if not chunk:
            return
        window = self._tail + chunk
        if _CONTROL_REQUEST in window:
            self._retire("the CLI sent a control request (a callback, a hook, an MCP call …)")
        if _TOOL.search(window) is not None:
            self._retire("the run used a tool")
        if _STATE in window:
            self._reports_state = True
        self._tail = window[-_OVERLAP:]
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._keep(chunk[start:] if start else chunk)
                return
            self._keep(chunk[start:end])
            line = b"".join(self._line) if len(self._line) != 1 else self._line[0]
            too_long = self._line_len > LINE_LIMIT
            self._line, self._line_len = [], 0
            if line.strip() or too_long:
                self._complete(line, too_long)
            start = end + 1

    def _keep(self, piece: bytes) -> None:
        if not piece:
            return
        self._line_len += len(piece)
        if self._line_len <= LINE_LIMIT:
            self._line.append(piece)
        else:
            self._line = []

    def _complete(self, line: bytes, too_long: bool) -> None:
        if too_long:
            self._after_result = False
        elif _RESULT in line:
            self._results += 1
            self._after_result = True
            self._idle_after_result = False
        elif self._after_result and _STATE in line and _IDLE in line:
            self._idle_after_result = True
        else:  # anything else, a turn starting (2.1.33x's "running") included
            self._after_result = False

    # ------------------------------------------------------------------ the end

    @property
    def settling(self) -> bool:
        """True while the CLI is between a result and the ``idle`` it announces after it
        (a CLI that reports its state: the transport may wait a moment for that line)."""
        return self._after_result and self._reports_state and not self._idle_after_result

    @property
    def turn_over(self) -> bool:
        """True when every prompt sent has had its result and only ``idle`` lines followed
        the last one (or no prompt was sent): after an ended input, the run is over."""
        if self._line_len or self._results < self._users:
            return False
        return self._users == 0 or self._after_result

    def reason(self) -> Optional[str]:
        """Why the CLI must not serve another process, or None: proven idle."""
        if self._first is not None:
            return self._first
        if self._line_len:
            return "the CLI was writing a line when the lease ended"
        if self._users == 0:
            return "no prompt was sent"  # nothing proves the CLI idle after the handshake
        if self._results < self._users:
            return "a prompt sent had no result yet"
        if not self._after_result:
            return "the CLI wrote something after its last result"
        return None


def _prompt_texts(frame: Any) -> Optional[List[str]]:
    """The texts of a user frame's prompt (a str content, or every block of a list that is
    all text blocks); None when it holds anything else (an image, a tool result …)."""
    message = frame.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if len(texts) == len(content) and all(isinstance(t, str) for t in texts):
            return [str(t) for t in texts]
    return None
