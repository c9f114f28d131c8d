"""``show()``: watch a run live, in a notebook or a terminal.

::

    from claude_sync import query, show
    show(query("Summarise README.md", options=opts))      # a notebook cell or a script
    with ClaudeSDKClient(opts) as client:
        client.query("And now?")
        show(client.receive_response())

In Jupyter (an IPython kernel is running) one output area is updated as the run goes: the
streamed text as Markdown, thinking and each tool call (input, result) collapsed, permission
decisions and hook outcomes marked, a footer with turns, tokens, cost and elapsed time, then
the final answer. Anywhere else a compact plain-text transcript is printed as it happens
(no escape codes). IPython is used only when it is already loaded; nothing is imported for it.

The caller's thread iterates; ``show`` returns when the messages end, and closes them when it
stops early (an exception, a kernel interrupt), so the CLI is reaped.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import sys
import threading
import time
from typing import Any, Deque, Dict, Iterable, List, Optional, TextIO, Tuple

from ._display.live import RunView
from ._display.render import result_footer
from .query import QueryStream
from ._wire.errors import ResultError
from ._wire.messages import ResultMessage
from ._wire.protocol import StreamItem
from ._wire.run_totals import run_totals

__all__ = ["show", "Transcript"]

REFRESH_SECONDS = 0.25
"""How often, at most, the notebook output is redrawn while messages stream in."""
TICK_SECONDS = 1.0
"""How often the notebook output is redrawn while no message arrives (the elapsed time)."""


class Transcript(List[StreamItem]):
    """The messages ``show()`` displayed (a plain list), with a one-line repr."""

    def __repr__(self) -> str:
        results = [m for m in self if isinstance(m, ResultMessage)]
        summary = result_footer(run_totals(results)) if results else "no result"
        return f"<Transcript: {len(self)} messages; {summary}>"


def show(messages: Iterable[StreamItem], *, file: Optional[TextIO] = None) -> Transcript:
    """Display a run as it happens; return its messages.

    ``messages`` is a ``query()`` stream, a ``ClaudeSDKClient`` response iterator, or any
    message iterable (a saved list renders at once). For a ``query()`` stream not yet
    iterated, ``show`` turns on ``include_partial_messages`` (text streams token by token)
    and ``include_hook_events`` for that run, and notes every ``can_use_tool`` decision and
    every hook's output (the caller's options object is not changed). ``file`` (terminal mode) defaults to
    ``sys.stdout``; passing it forces terminal mode. Raises what iterating ``messages``
    raises (``ResultError`` after an error result is shown, …). In a notebook, an error
    result that is raised is told once, by the error (its text and hint): the display keeps
    the transcript and the footer.
    """
    decisions: Deque[Tuple[str, Optional[str], str]] = collections.deque()
    _prepare_query_stream(messages, decisions)
    view = RunView()
    notebook = _notebook_sink() if file is None else None
    sink: Any = notebook if notebook is not None else _TerminalSink(file if file is not None else sys.stdout)
    shown = Transcript()
    started = time.monotonic()
    sink.start(view, started)
    try:
        for message in messages:
            shown.append(message)
            with sink.lock:
                pieces: List[str] = []
                while decisions:
                    pieces.extend(view.note_decision(*decisions.popleft()))
                pieces.extend(view.feed(message))
                sink.update(view, pieces, time.monotonic() - started, final=False)
    except ResultError:
        if notebook is not None and view.result is not None and view.result.is_error:
            with sink.lock:  # the error's traceback says it, with its hint: say it once
                view.error_raised = True
        raise
    finally:
        try:
            sink.finish(view, time.monotonic() - started)
        finally:
            close = getattr(messages, "close", None)
            if close is not None:
                close()  # reaps the CLI of a query() stream, whatever happened above
    return shown


def _prepare_query_stream(messages: Any, decisions: Deque[Tuple[str, Optional[str], str]]) -> None:
    if not isinstance(messages, QueryStream) or messages.started:
        return
    options = messages.options
    changes: Dict[str, Any] = {"include_partial_messages": True, "include_hook_events": True}
    if options.can_use_tool is not None:
        changes["can_use_tool"] = _noting(options.can_use_tool, decisions)
    if options.hooks:
        changes["hooks"] = {
            event: [dataclasses.replace(m, hooks=[_noting_hook(h, decisions) for h in m.hooks]) for m in matchers]
            for event, matchers in options.hooks.items()
        }
    messages.replace_options(**changes)


def _noting(callback: Any, decisions: Deque[Tuple[str, Optional[str], str]]) -> Any:
    """``callback`` that also records its decision for the display (callback-pool thread;
    ``deque.append`` is thread-safe)."""

    def can_use_tool(tool_name: str, tool_input: Any, context: Any) -> Any:
        result = callback(tool_name, tool_input, context)
        behavior = getattr(result, "behavior", "?")
        label = "allowed" if behavior == "allow" else f"denied: {getattr(result, 'message', '') or 'no reason'}"
        decisions.append((tool_name, getattr(context, "tool_use_id", None), f"permission {label}"))
        return result

    return can_use_tool


def _noting_hook(hook: Any, decisions: Deque[Tuple[str, Optional[str], str]]) -> Any:
    """``hook`` that also records what it decided (callback-pool thread). The CLI sends no
    ``hook_response`` message for SDK hooks, so this is how the display learns about them."""

    def noted(hook_input: Any, tool_use_id: Optional[str], context: Any) -> Any:
        output = hook(hook_input, tool_use_id, context)
        event = hook_input.get("hook_event_name", "hook") if isinstance(hook_input, dict) else "hook"
        decisions.append((f"hook {event}", tool_use_id, _hook_label(output)))
        return output

    return noted


def _hook_label(output: Any) -> str:
    """``allow`` / ``deny: reason`` / ``block`` / ``stop`` / ``no decision`` from a hook's output."""
    if not isinstance(output, dict):
        return "no decision"
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision"):
        reason = specific.get("permissionDecisionReason")
        return f"{specific['permissionDecision']}" + (f": {reason}" if reason else "")
    if output.get("decision"):
        return str(output["decision"]) + (f": {output['reason']}" if output.get("reason") else "")
    if output.get("continue") is False or output.get("continue_") is False:
        return "stop"
    return "no decision"


class _TerminalSink:
    """Prints the view's pieces as they come: plain text, no escape codes."""

    def __init__(self, file: TextIO) -> None:
        self.file = file
        self._started = False
        self.lock = contextlib.nullcontext()  # one thread only

    def start(self, view: RunView, started: float) -> None:
        """Nothing to start: the transcript is written as messages arrive."""

    def finish(self, view: RunView, elapsed: float) -> None:
        self.update(view, [], elapsed, final=True)

    def update(self, view: RunView, pieces: List[str], elapsed: float, final: bool) -> None:
        text = "".join(pieces)
        if not self._started:
            text = text.lstrip("\n")
            self._started = bool(text)
        if text:
            self.file.write(text)
        if final and view.result is None:
            self.file.write(f"\n[{view.footer(elapsed)}: the run ended without a result]\n")
        self.file.flush()


class _NotebookSink:
    """One IPython display area, redrawn at most every ``REFRESH_SECONDS`` as messages arrive,
    every ``TICK_SECONDS`` while none do (a ``claude_sync-display`` thread, so the elapsed
    time in the footer keeps moving during a long tool call), and once at the end.

    ``lock`` serialises the view between the caller's thread (feeding it) and the ticker.
    """

    def __init__(self, display: Any, markdown: Any) -> None:
        self._markdown = markdown
        self._handle = display(markdown("*starting…*"), display_id=True)
        self._last = 0.0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None

    def start(self, view: RunView, started: float) -> None:
        self._ticker = threading.Thread(
            target=self._tick, args=(view, started), name="claude_sync-display", daemon=True
        )
        self._ticker.start()

    def _tick(self, view: RunView, started: float) -> None:
        """Ticker thread: redraw when nothing else has for ``TICK_SECONDS``."""
        while not self._stop.wait(TICK_SECONDS):
            with self.lock:
                if time.monotonic() - self._last >= TICK_SECONDS and not self._stop.is_set():
                    self._draw(view, time.monotonic() - started)

    def update(self, view: RunView, pieces: List[str], elapsed: float, final: bool) -> None:
        """Caller's thread, holding ``lock``: redraw unless one was drawn just now."""
        if final or time.monotonic() - self._last >= REFRESH_SECONDS:
            self._draw(view, elapsed)

    def finish(self, view: RunView, elapsed: float) -> None:
        """Stop and join the ticker (bounded), then draw the final view."""
        self._stop.set()
        ticker = self._ticker
        if ticker is not None:
            ticker.join(TICK_SECONDS * 5)
        with self.lock:
            self._draw(view, elapsed)

    def _draw(self, view: RunView, elapsed: float) -> None:
        self._last = time.monotonic()
        self._handle.update(self._markdown(view.to_markdown(elapsed)))


def _notebook_sink() -> Optional[_NotebookSink]:
    """A notebook sink when an IPython *kernel* is running (never imports IPython itself)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    shell = ipython.get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None  # terminal IPython: the plain transcript reads better
    from IPython.display import Markdown, display  # type: ignore[import-not-found,unused-ignore]

    return _NotebookSink(display, Markdown)
