"""Bytes → lines, with a size cap; objects → one-line frames. Pure: no threads, no I/O.

The CLI writes one JSON document per ``\\n``-terminated line. ``LineFramer`` turns the chunks
the reader thread reads into complete lines without copying a long line more than once
(parts are kept in a list and joined when the newline arrives).

Size cap: a line longer than ``max_line_bytes`` is never buffered whole. As soon as the
pending part passes the cap, the parts are dropped and the framer skips to the next newline;
one ``OversizedLine`` record (with the line's full size and its first bytes) is appended to
``LineFramer.oversized`` when that line ends. The caller drains that list after each
``feed``. Lines after it are delivered normally.

Rules:
- Lines are returned without their ``\\n``; a trailing ``\\r`` is kept (JSON ignores it).
- Empty lines are dropped here (they carry nothing).
- ``finish()`` returns the bytes after the last newline (a line cut off by EOF), or None.
"""

from __future__ import annotations

import json
from typing import Any, Callable, List, Optional, Sequence

from .record import FrozenRecord, frozen_record

__all__ = ["LineFramer", "OversizedLine", "encode_frame", "PREFIX_BYTES"]

PREFIX_BYTES = 200
"""How many leading bytes of a skipped line are kept for the report."""


@frozen_record
class OversizedLine(FrozenRecord):
    """A stdout line longer than the cap was skipped whole (``size`` bytes, cap ``limit``)."""

    size: int
    limit: int
    prefix: bytes


class LineFramer:
    """Splits a byte stream into lines of at most ``max_line_bytes`` bytes.

    Not thread-safe: one reader thread owns it.
    """

    __slots__ = ("max_line_bytes", "oversized", "_parts", "_pending", "_skipping", "_skip_size",
                 "_skip_prefix")  # fmt: skip

    def __init__(self, max_line_bytes: int) -> None:
        """Raises ``ValueError`` if ``max_line_bytes`` is not a positive int."""
        if not isinstance(max_line_bytes, int) or max_line_bytes <= 0:
            raise ValueError(f"max_line_bytes must be a positive int, got {max_line_bytes!r}")
        self.max_line_bytes = max_line_bytes
        self.oversized: List[OversizedLine] = []
        self._parts: List[bytes] = []
        self._pending = 0
        self._skipping = False
        self._skip_size = 0
        self._skip_prefix = b""

    def feed(self, data: bytes) -> List[bytes]:
        """Consume a chunk; return the complete lines it finishes, in order."""
        if self._skipping:
            data = self._continue_skip(data)
            if not data:
                return []
        lines = data.split(b"\n")
        tail = lines.pop()
        if not lines:
            self._add_partial(tail)
            return []
        if self._parts:
            lines[0] = self._join_partial(lines[0])
        if len(data) > self.max_line_bytes:
            lines = self._drop_oversized(lines)
        if tail:
            self._add_partial(tail)
        if b"" in lines:
            return [line for line in lines if line]
        return lines

    def finish(self) -> Optional[bytes]:
        """End of stream: return an unterminated last line (if any) and reset."""
        if self._skipping:
            self._end_skip()
            return None
        if not self._parts:
            return None
        line = b"".join(self._parts)
        self._parts = []
        self._pending = 0
        return line

    # -- internals ---------------------------------------------------------------------

    def _add_partial(self, part: bytes) -> None:
        if not part:
            return
        self._pending += len(part)
        if self._pending > self.max_line_bytes:
            first = self._parts[0] if self._parts else part
            self._start_skip(self._pending, first[:PREFIX_BYTES])
            return
        self._parts.append(part)

    def _join_partial(self, end: bytes) -> bytes:
        size = self._pending + len(end)
        parts = self._parts
        self._parts = []
        self._pending = 0
        if size > self.max_line_bytes:
            self.oversized.append(OversizedLine(size, self.max_line_bytes, parts[0][:PREFIX_BYTES]))
            return b""
        parts.append(end)
        return b"".join(parts)

    def _drop_oversized(self, lines: List[bytes]) -> List[bytes]:
        cap = self.max_line_bytes
        kept = []
        for line in lines:
            if len(line) > cap:
                self.oversized.append(OversizedLine(len(line), cap, line[:PREFIX_BYTES]))
            else:
                kept.append(line)
        return kept

    def _start_skip(self, size_so_far: int, prefix: bytes) -> None:
        self._parts = []
        self._pending = 0
        self._skipping = True
        self._skip_size = size_so_far
        self._skip_prefix = prefix

    def _continue_skip(self, data: bytes) -> bytes:
        """Skip up to and including the next newline; return what follows it."""
        newline = data.find(b"\n")
        if newline < 0:
            self._skip_size += len(data)
            return b""
        self._skip_size += newline
        self._end_skip()
        return data[newline + 1 :]

    def _end_skip(self) -> None:
        self.oversized.append(OversizedLine(self._skip_size, self.max_line_bytes, self._skip_prefix))
        self._skipping = False
        self._skip_size = 0
        self._skip_prefix = b""


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode = _encoder.encode


def _one_c_encoder() -> Optional[Callable[[Any, int], Sequence[str]]]:
    """The C encoder ``_encode`` builds afresh on every call, built once (None where the
    interpreter's json has no C encoder). It has no dict of the containers being encoded (no cycle check: a cycle ends
    in ``RecursionError``), so one object serves every thread; ``encode_frame`` hands any
    failure to ``_encode``, which raises what it always raised."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        return make(None, _encoder.default, json.encoder.encode_basestring, None, ":", ",", False, False, False)  # type: ignore[no-any-return]
    except TypeError:  # another interpreter's signature: the standard path only
        return None


_c_encode = _one_c_encoder()


def encode_frame(obj: Any) -> bytes:
    """One JSON document as one ``\\n``-terminated UTF-8 line.

    Raises ``TypeError``/``ValueError`` for objects JSON cannot represent (NaN included:
    the CLI's parser rejects it and would exit; a cycle is ``ValueError``).
    """
    if _c_encode is not None:
        try:
            return ("".join(_c_encode(obj, 0)) + "\n").encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            pass  # the standard encoder below raises the error (a cycle: ValueError, not RecursionError)
    return (_encode(obj) + "\n").encode("utf-8")
