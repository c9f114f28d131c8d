"""``claude-sync``'s stdout and stderr: safe writes and the progress line (I/O).

``Console.write`` puts the answer on stdout in a form the stream's encoding can hold (see
``output.printable``) and turns a failed write into ``BrokenPipeError`` (the reader left:
exit 141) or ``OutputError`` (closed, full disk: exit 9). ``Console.say`` writes one line on
stderr and never raises: a diagnostic that cannot be written is dropped, never a traceback.

When stderr is a terminal (and ``--quiet`` is not given), a ``claude_sync-cli-progress``
thread redraws one progress line there (``⠙ running Bash: make test · 12 s``) while nothing
else is being written: before the first token and while a tool runs. It is erased before
anything else is written, under the one lock that orders stdout and stderr writes. When stdout
is the same terminal and its last line is unfinished, a newline is put on stdout first (and
taken off the next text) so the progress line never draws over the answer.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from typing import Optional, TextIO

from .exit_codes import OutputError
from .output import printable

__all__ = ["Console", "silence_stdout"]

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
REDRAW_SECONDS = 0.1
ERASE = "\r\x1b[K"


def _is_terminal(stream: Optional[TextIO]) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


class Console:
    """Writes for one ``claude-sync`` run. ``write`` on the main thread; ``say``, ``cli_line``
    and ``status`` on any thread; ``start``/``close`` on the main thread (``close`` joins the
    progress thread, at most ``REDRAW_SECONDS`` plus one redraw later)."""

    def __init__(self, stdout: Optional[TextIO], stderr: Optional[TextIO], *, progress: bool) -> None:
        self._out = stdout
        self._err = stderr
        self.encoding: str = getattr(stdout, "encoding", None) or "utf-8"
        self._err_encoding: str = getattr(stderr, "encoding", None) or "utf-8"
        self._lock = threading.Lock()
        self._progress = progress and _is_terminal(stderr)
        self._same_terminal = self._progress and _is_terminal(stdout)
        self._status: Optional[str] = None
        self._since = time.monotonic()
        self._drawn = False
        self._line_open = False
        self._owed_newline = False
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self.stopping = False
        """Set (from a SIGINT handler) once Ctrl-C is stopping the CLI: the line says so."""

    # ------------------------------------------------------------------ the progress line

    def start(self, status: str) -> None:
        """Show ``status`` and start redrawing it (main thread; nothing when stderr is not a
        terminal or progress is off)."""
        if not self._progress or self._thread is not None:
            return
        self.status(status)
        self._thread = threading.Thread(target=self._redraw_loop, name="claude_sync-cli-progress", daemon=True)
        self._thread.start()

    def status(self, text: Optional[str]) -> None:
        """Set what the progress line says; None hides it (any thread)."""
        with self._lock:
            if text != self._status:
                self._since = time.monotonic()
            self._status = text
            if text is None:
                self._erase()

    def close(self) -> None:
        """Stop the progress thread and erase its line (main thread; idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)
            self._thread = None
        with self._lock:
            self._status = None
            self._erase()

    def _redraw_loop(self) -> None:
        tick = 0
        while not self._stop.wait(REDRAW_SECONDS):
            tick += 1
            with self._lock:
                if self._status is not None and not self._stop.is_set():
                    self._draw(FRAMES[tick % len(FRAMES)])

    def _draw(self, frame: str) -> None:
        """Draw the progress line (caller holds the lock)."""
        if self._same_terminal and self._line_open:
            try:
                assert self._out is not None
                self._out.write("\n")
                self._out.flush()
            except (OSError, ValueError):
                return
            self._line_open, self._owed_newline = False, True
        width = shutil.get_terminal_size((80, 24)).columns
        status = "interrupted: stopping claude" if self.stopping else self._status
        text = f"{frame} {status} · {time.monotonic() - self._since:.0f} s"
        if len(text) > width - 1:
            text = text[: max(0, width - 2)] + "…"
        if self._write_err(ERASE + text):
            self._drawn = True

    def _erase(self) -> None:
        """Erase a drawn progress line (caller holds the lock)."""
        if self._drawn:
            self._drawn = False
            self._write_err(ERASE)

    # ------------------------------------------------------------------ writes

    def write(self, text: str) -> None:
        """Write answer text to stdout and flush (main thread). Raises ``BrokenPipeError``
        when the reader has gone, ``OutputError`` when stdout cannot be written."""
        with self._lock:
            self._erase()
            if self._owed_newline and text:
                self._owed_newline = False
                text = text[1:] if text.startswith("\n") else text
            if not text:
                return
            self._write_out(printable(text, self.encoding))
            self._line_open = not text.endswith("\n")

    def flush(self) -> None:
        """Flush stdout (main thread). Raises like ``write``."""
        with self._lock:
            self._write_out("")

    def _write_out(self, text: str) -> None:
        if self._out is None:
            raise OutputError("stdout is closed")
        try:
            if text:
                self._out.write(text)
            self._out.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: the file object was closed
            raise OutputError(_reason(exc)) from None

    def say(self, line: str, prefix: str = "claude-sync: ") -> None:
        """One line on stderr (any thread). Never raises."""
        with self._lock:
            self._erase()
            self._write_err(f"{prefix}{line}\n")

    def cli_line(self, line: str) -> None:
        """A line the claude CLI wrote to its stderr, passed on as it is (reader thread)."""
        self.say(line.rstrip("\n"), prefix="")

    def _write_err(self, text: str) -> bool:
        """Write to stderr (caller holds the lock); False when it could not be written."""
        if self._err is None:
            return False
        try:
            self._err.write(printable(text, self._err_encoding))
            self._err.flush()
        except (OSError, ValueError):
            return False
        return True


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def silence_stdout(stdout: Optional[TextIO]) -> None:
    """Point stdout's descriptor at /dev/null, so the interpreter's final flush does not fail
    again once a write has failed (the reader of the pipe is gone, the disk is full)."""
    try:
        fd = stdout.fileno() if stdout is not None else -1
    except (AttributeError, OSError, ValueError):
        return
    if fd < 0:
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
