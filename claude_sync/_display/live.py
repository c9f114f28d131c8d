"""The state of a run being watched, and its two renderings (pure, no I/O, no clock).

``RunView.feed(message)`` folds one message (or a permission decision, ``note_permission``)
into the view and returns the plain-text pieces the terminal transcript should print next.
``RunView.to_markdown(elapsed_s)`` renders the whole view for a notebook: the streamed
text as Markdown (``render.safe_markdown``: no HTML injection), thinking and every tool
call (input and result) in collapsed ``<details>``, permission decisions and hook outcomes
marked, and a footer with turns, tokens, cost and elapsed time, then the final answer when
the text shown so far does not already hold it.

The shell (``claude_sync._show``) owns the clock, the output device and the throttling.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Set

from .._redaction.redactor import scrub_value
from .._wire.agent_usage import AgentLedger, agents_footer
from .._wire.run_totals import run_totals
from .._wire.hints import hint_for
from .._wire.text import BLOCK_SEPARATOR, TextDeltas
from .markdown import markdown_html
from .render import (
    block_text,
    esc,
    output_html,
    output_text,
    result_footer,
    safe_markdown,
    to_html,
    tool_input_summary,
    tool_result_text,
    usage_tokens,
)

__all__ = ["RunView"]

_CUT = 4000
"""Characters of a tool input or result shown inside its collapsed section."""


class _Entry:
    """One item of the view: ``text``, ``thinking``, ``tool``, ``note`` or ``result``."""

    __slots__ = ("kind", "text", "name", "tool_input", "output", "is_error", "marks", "done")

    def __init__(self, kind: str, text: str = "", name: str = "") -> None:
        self.kind = kind
        self.text = text
        self.name = name
        self.tool_input: Any = None
        self.output: Optional[str] = None
        self.is_error = False
        self.marks: List[str] = []
        self.done = False


class RunView:
    """What has happened so far in one run (one thread feeds it)."""

    def __init__(self) -> None:
        self.entries: List[_Entry] = []
        self.tools: Dict[str, _Entry] = {}
        self.result: Any = None
        self.results: List[Any] = []
        """Every result so far: a run a background agent woke again ends more than once."""
        self.totals: Any = None
        """The run's figures so far (``RunTotals``), once a result arrived."""
        self.turns = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.model: Optional[str] = None
        self._deltas = TextDeltas()
        self._text: Optional[_Entry] = None
        self._counted: Set[str] = set()  # message ids already counted as turns
        self.error_raised = False
        """An error result's ``ResultError`` was raised to a notebook, whose traceback tells
        its text and hint: ``to_markdown`` then leaves them out (said once)."""
        self.agents = AgentLedger()

    # ------------------------------------------------------------------ feeding

    def feed(self, message: Any) -> List[str]:
        """Fold ``message`` in; return the terminal pieces it adds."""
        out: List[str] = []
        self.agents.observe(message)
        for piece in self._deltas.feed(message):
            out.extend(self._add_text(piece))
        kind = getattr(message, "type", None)
        if kind == "assistant" and message.parent_tool_use_id is None:
            out.extend(self._assistant(message))
        elif kind == "user":
            out.extend(self._user(message))
        elif kind == "result":
            out.extend(self._result(message))
        elif kind == "system":
            out.extend(self._system(message))
        return out

    def note_permission(self, tool_name: str, tool_use_id: Optional[str], decision: str) -> List[str]:
        """Record a permission decision (``allowed`` / ``denied: …``) for a tool call."""
        return self.note_decision(tool_name, tool_use_id, f"permission {decision}")

    def note_decision(self, subject: str, tool_use_id: Optional[str], label: str) -> List[str]:
        """Mark a tool call (or, without one, the transcript) with a decision taken for it:
        a permission answer or a hook's output."""
        entry = self.tools.get(tool_use_id or "")
        if entry is not None:
            entry.marks.append(label)
        else:
            self._end_text()
            self.entries.append(_Entry("note", f"{subject}: {label}"))
        return [f"\n[{subject}: {label}]\n"]

    def _add_text(self, piece: str) -> List[str]:
        if piece == BLOCK_SEPARATOR:
            self._end_text()  # the next piece starts a new text entry
            return []
        if self._text is None:
            self._text = _Entry("text", piece)
            self.entries.append(self._text)
            return [("\n" if len(self.entries) > 1 else "") + piece]
        self._text.text += piece
        return [piece]

    def _end_text(self) -> None:
        self._text = None

    def _assistant(self, message: Any) -> List[str]:
        self.model = message.model or self.model
        if message.message_id is not None and message.message_id not in self._counted:
            self._counted.add(message.message_id)
            self.turns += 1
        out: List[str] = []
        for block in message.content:
            block_type = getattr(block, "type", None)
            if block_type == "thinking":
                self._end_text()
                self.entries.append(_Entry("thinking", block.thinking))
                out.append(f"\n[{block_text(block)}]\n")
            elif block_type in ("tool_use", "server_tool_use"):
                self._end_text()
                entry = _Entry("tool", name=block.name)
                entry.tool_input = block.input
                self.tools[block.id] = entry
                self.entries.append(entry)
                out.append(f"\n{block_text(block)}\n")
        if message.error:
            self._end_text()
            self.entries.append(_Entry("note", f"API error: {message.error}"))
        return out

    def _user(self, message: Any) -> List[str]:
        if isinstance(message.content, str):
            return []
        out: List[str] = []
        for block in message.content:
            if getattr(block, "type", None) != "tool_result":
                continue
            entry = self.tools.get(block.tool_use_id)
            text = tool_result_text(block.content)
            if entry is not None:
                entry.output = text
                entry.is_error = bool(block.is_error)
                entry.done = True
            out.append(f"{block_text(block)}\n")
            self._end_text()
        return out

    def _system(self, message: Any) -> List[str]:
        subtype = getattr(message, "subtype", "")
        if subtype == "init":
            init = getattr(message, "init", None)
            self.model = getattr(init, "model", None) or self.model
            return []
        if subtype == "hook_response":
            outcome = getattr(message, "outcome", None) or "done"
            label = f"hook {message.hook_event_name} ({message.hook_name or 'hook'}): {outcome}"
            self._end_text()
            self.entries.append(_Entry("note", label))
            return [f"[{label}]\n"]
        if subtype == "api_retry":
            label = f"API retry {message.attempt}/{message.max_retries} ({message.error_status or message.error})"
            self.entries.append(_Entry("note", label))
            return [f"[{label}]\n"]
        return []

    def _result(self, message: Any) -> List[str]:
        self._end_text()
        self.result = message
        self.results.append(message)
        self.totals = run_totals(self.results)
        self.turns = max(self.turns, self.totals.num_turns)
        self.tokens_in, self.tokens_out = usage_tokens(self.totals.usage)
        for denial in message.permission_denials or ():
            name = denial.get("tool_name", "?") if isinstance(denial, dict) else "?"
            entry = self.tools.get(denial.get("tool_use_id", "") if isinstance(denial, dict) else "")
            if entry is not None and not any(mark.startswith("permission denied") for mark in entry.marks):
                entry.marks.append("permission denied")
            elif entry is None:
                self.entries.append(_Entry("note", f"{name}: permission denied"))
        lines = [f"\n{result_footer(self.totals)}\n"]
        lines.extend(f"  {line}\n" for line in agents_footer(self.agents.records()))
        parsed = getattr(message, "parsed_output", None)
        if parsed is not None:
            lines.append(f"Output ({type(parsed).__qualname__}):\n{output_text(parsed)}\n")
        hint = hint_for(message)
        if hint is not None:
            lines.append(f"Hint: {hint}\n")
        return lines

    # ------------------------------------------------------------------ rendering

    def footer(self, elapsed_s: Optional[float]) -> str:
        """``2 turns · 1,234 in / 56 out tokens · $0.0123 · 3.4 s`` (live or final)."""
        if self.totals is not None:
            return result_footer(self.totals, elapsed_s)
        parts = ["running", f"{self.turns} turn{'s' if self.turns != 1 else ''}"]
        if elapsed_s is not None:
            parts.append(f"{elapsed_s:.1f} s")
        return " · ".join(parts)

    def to_markdown(self, elapsed_s: Optional[float] = None) -> str:
        """The whole view as Markdown with collapsed HTML sections (see the module doc)."""
        result = self.result
        failed = result is not None and result.is_error
        said = result.result.strip() if failed and isinstance(result.result, str) else ""
        parts = [  # an API failure's text also came as the (synthetic) answer: show it once
            self._entry_markdown(entry) for entry in self.entries
            if not (said and entry.kind == "text" and entry.text.strip() == said)
        ]
        if failed and not self.error_raised:
            parts.extend(self._error_markdown(result))  # what happened first, then the footer
        parts.append(f"<div style=\"color:#777;border-top:1px solid #ddd\">{esc(self.footer(elapsed_s))}</div>")
        parts.extend(f'<div style="color:#777">{esc(line)}</div>' for line in agents_footer(self.agents.records()))
        parsed = None if result is None else getattr(result, "parsed_output", None)
        if parsed is not None:  # the answer text is that value's JSON: show the object
            parts.append(output_html(parsed))
        elif result is not None and self._answer_not_shown(result):
            parts.append("**Answer**\n\n" + safe_markdown(result.result))
        return "\n\n".join(part for part in parts if part)

    @staticmethod
    def _error_markdown(result: Any) -> List[str]:
        """An error result: the CLI's words and errors (red), then the hint."""
        said = [result.result] if isinstance(result.result, str) and result.result.strip() else []
        parts = [f"<div style=\"color:#d64545\">{esc(scrub_value(text))}</div>" for text in said + list(result.errors or ())]
        hint = hint_for(result)
        if hint is not None:
            parts.append(f"**Hint:** {esc(hint)}")
        return parts

    def _answer_not_shown(self, result: Any) -> bool:
        """Whether the result's answer still needs showing: a success whose text the view did
        not already stream (the CLI repeats the last text block as ``result``)."""
        answer = result.result if isinstance(result.result, str) else ""
        if result.is_error or not answer.strip():
            return False
        streamed = "\n".join(entry.text for entry in self.entries if entry.kind == "text")
        return answer.strip() not in streamed

    def _entry_markdown(self, entry: _Entry) -> str:
        if entry.kind == "text":
            return safe_markdown(entry.text)
        if entry.kind == "thinking":
            return _details(f"<i>thinking</i> ({len(entry.text):,} chars)", str(scrub_value(entry.text)))
        if entry.kind == "note":
            return f"<div>⚑ {esc(entry.text)}</div>"
        if entry.kind == "tool":
            status = "…" if not entry.done else ("❌" if entry.is_error else "✓")
            marks = "".join(f" <b>[{esc(mark)}]</b>" for mark in entry.marks)
            summary = f"🔧 <code>{esc(entry.name)}</code>({esc(tool_input_summary(entry.tool_input))}) {status}{marks}"
            body = "input:\n" + json.dumps(scrub_value(entry.tool_input), indent=2, default=str)
            if entry.output is not None:
                body += "\n\nresult:\n" + str(scrub_value(entry.output))
            return _details(summary, body)
        return ""


def _details(summary: str, body: str) -> str:
    if len(body) > _CUT:
        body = body[:_CUT] + f"\n… ({len(body):,} chars)"
    return (
        f"<details><summary>{summary}</summary>"
        f"<pre style=\"white-space:pre-wrap\">{esc(body)}</pre></details>"
    )


# --------------------------------------------------------------------------- whole runs


def run_result_markdown(run: Any) -> str:
    """A finished run (anything with ``messages``, e.g. ``RunResult``) as ``show()`` ends
    it: the transcript view, its footer and the answer. For ``_repr_markdown_``."""
    view = RunView()
    for message in getattr(run, "messages", ()):
        view.feed(message)
    if getattr(run, "result", None) is not None and hasattr(run, "num_turns"):
        view.totals = run  # a RunResult's own figures: on a reused CLI, its cost is this run's
    return view.to_markdown()


def run_result_html(run: Any) -> str:
    """A finished run as HTML: the typed output (``run.output``) or else the answer
    (``run.text``), the footer, then every message in a collapsed transcript. For
    ``_repr_html_`` (``RunResult``)."""
    messages = list(getattr(run, "messages", ()))
    result = getattr(run, "result", None)
    figures = run if hasattr(run, "num_turns") else result  # a RunResult: the whole run's
    footer = result_footer(figures) if result is not None else f"{len(messages)} messages"
    answer = getattr(run, "text", None)
    output = getattr(run, "output", None)
    if output is not None:  # a typed run: the object, not its JSON text
        body = output_html(output)
    elif isinstance(answer, str) and answer:
        body = f'<div class="claude-sync-text">{markdown_html(str(scrub_value(answer)))}</div>'
    else:
        body = ""
    transcript = "".join(to_html(message) for message in messages if hasattr(message, "__dataclass_fields__"))
    agent_lines = "".join(f'<div style="color:#777">{esc(line)}</div>' for line in agents_footer(tuple(getattr(run, "agents", ()))))
    return (
        f'<div style="border-left:3px solid #2e9e5b;padding:2px 8px">{body}'
        f'<div style="color:#777">{esc(footer)}</div>'
        f"{agent_lines}"
        f"<details><summary>transcript ({len(messages)} messages)</summary>{transcript}</details></div>"
    )
