"""Visibility: the ``claude_sync.wire`` logger and ``CLAUDE_SYNC_LOG``.

**The wire log.** With ``logging.getLogger("claude_sync.wire")`` at DEBUG when a session
connects, every NDJSON line the CLI writes (``<``) and every line we write to it (``>``) is
logged at DEBUG, redacted by the one redactor (``_redaction.redactor.redact_frame``: the line
is parsed, every secret value the process knows is removed wherever it stands, and inside the
config of control frames every ``env``/``headers`` value and every value of a key that names
a secret too — so the MCP headers ``get_mcp_status()`` echoes and the ``env`` that
``set_mcp_servers``/``apply_flag_settings`` send do not reach the log; what the model wrote
is not otherwise rewritten; a line that is not JSON gets ``redact_text``) and cut at
``MAX_LINE_CHARS`` with the line's full size. The decision is taken
once, at connect: with DEBUG off the session reads and writes exactly as before (no per-line
check, no per-chunk check). Turning DEBUG on later affects the next session.

**CLAUDE_SYNC_LOG.** ``CLAUDE_SYNC_LOG=debug`` (or ``info``, ``warning``, ``error``) adds one
stderr handler to the ``claude_sync`` logger at that level, as ``ANTHROPIC_LOG`` does for the
Anthropic SDK; ``debug`` includes the wire log. Read at the first connect (not at import).

**The CLI's own debug output** is not on the wire: ``extra_args={"debug-to-stderr": None}``
makes the CLI write its debug log (``[DEBUG] …`` lines; ~150 for one short run of CLI
2.1.197) to its stderr, which goes to the ``stderr=`` callback (one call per line) or, without
one, to ``debug_stderr`` (a file object; default ``sys.stderr``).

Which thread: ``WireTap.tap`` runs on the session's reader thread; ``WireTap.sent`` on
whichever thread writes a frame.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any, Iterator, Mapping, Optional

from .._redaction.redactor import redact_frame, redact_text, redacted_logger
from .extensions import ConnectionExtension

__all__ = ["WIRE_LOGGER", "WireTap", "wire_tap", "configure_from_env", "MAX_LINE_CHARS"]

WIRE_LOGGER = redacted_logger("claude_sync.wire")
MAX_LINE_CHARS = 2000
"""Characters of a line the wire log shows; longer lines are cut and their size given."""

_ALREADY_REDACTED = {"claude_sync_redacted": True}
"""Tells ``LOG_FILTER`` a wire line was redacted as a structure already."""
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_configured = False


def redact_line(text: str) -> str:
    """A wire line with secrets replaced by ``<redacted>``, then cut to ``MAX_LINE_CHARS``
    (a JSON line is redacted as a frame: written back compact when anything changed)."""
    size = len(text)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, (dict, list)):
        cleaned = redact_frame(value)
        if cleaned is not value:
            text = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    else:
        text = redact_text(text)
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + f"… (cut; the line has {size:,} characters)"
    return text


class WireTap(ConnectionExtension):
    """Logs one session's lines, as a connection extension (``tap`` on the reader thread,
    ``sent`` on the writing one). Only made when the wire logger is at DEBUG (``wire_tap``)."""

    def __init__(self, label: object, *, session: Any = None) -> None:
        self.label = label
        self._session = session
        self._pending = b""

    def started(self, transport: Any) -> None:
        """The connecting thread: the lines are labelled with the session's label from now."""
        if self._session is not None:
            self.label = f"cli[{self._session.label}]"

    def tap(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """``chunks`` unchanged, each complete stdout line logged (the reader thread)."""
        for chunk in chunks:
            self.received(chunk)
            yield chunk
        self.received(b"")

    def received(self, chunk: bytes) -> None:
        """Log the complete lines ``chunk`` finishes (the rest waits for the next chunk);
        an empty chunk (EOF) logs what is left."""
        if not chunk:
            if self._pending.strip():
                self._log("<", self._pending)
            self._pending = b""
            return
        *lines, self._pending = (self._pending + chunk).split(b"\n")
        for line in lines:
            if line.strip():
                self._log("<", line)

    def sent(self, data: bytes) -> None:
        """Log the lines of one write (the writing thread)."""
        for line in data.split(b"\n"):
            if line.strip():
                self._log(">", line)

    def _log(self, direction: str, line: bytes) -> None:
        text = line.decode("utf-8", "replace")
        WIRE_LOGGER.debug("%s %s %s", self.label, direction, redact_line(text), extra=_ALREADY_REDACTED)


def wire_tap(session: Any) -> Optional[WireTap]:
    """A ``WireTap`` for ``session`` (its lines labelled ``cli[<session.label>]`` once the CLI
    started) if the wire logger is at DEBUG now, else None (then nothing is logged and the
    session pays nothing per line)."""
    configure_from_env()
    if WIRE_LOGGER.isEnabledFor(logging.DEBUG):
        return WireTap(None, session=session)
    return None


def configure_from_env(environ: Optional[Mapping[str, str]] = None) -> None:
    """Apply ``CLAUDE_SYNC_LOG`` once per process (see the module docstring). An unknown
    value is reported on the ``claude_sync`` logger and otherwise ignored."""
    global _configured
    if _configured:
        return
    _configured = True
    value = (environ if environ is not None else os.environ).get("CLAUDE_SYNC_LOG", "").strip().lower()
    if not value:
        return
    level = _LEVELS.get(value)
    root = logging.getLogger("claude_sync")
    if level is None:
        root.warning("CLAUDE_SYNC_LOG=%r is not one of %s; no log handler added", value, ", ".join(_LEVELS))
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[%(asctime)s %(name)s %(levelname)s] %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
