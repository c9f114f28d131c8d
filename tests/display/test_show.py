"""``show()`` and the run view behind it (``_display/live.py``, ``_show.py``)."""

from __future__ import annotations

import io
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import Kit

import claude_sync
from claude_sync import ClaudeAgentOptions, PermissionResultDeny, ResultError, _show, query, show
from claude_sync._display.live import RunView
from claude_sync._wire.parse import parse_message
from claude_sync.testing import ScriptedCLI

SID = "s"
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def assistant(msg_id: str, *blocks: Dict[str, Any]) -> Any:
    return parse_message({"type": "assistant", "message": {"id": msg_id, "model": "m", "content": list(blocks)}, "session_id": SID})


def tool_result(tool_id: str, text: str, is_error: bool = False) -> Any:
    return parse_message({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": is_error}]}, "session_id": SID})


def result(text: str = "It is 42.", **extra: Any) -> Any:
    wire = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 2500, "duration_api_ms": 2000, "num_turns": 2,
            "session_id": SID, "result": text, "total_cost_usd": 0.0123, "usage": {"input_tokens": 100, "output_tokens": 20}}  # fmt: skip
    wire.update(extra)
    return parse_message(wire)


RUN = [
    parse_message({"type": "system", "subtype": "init", "session_id": SID, "model": "claude-x"}),
    assistant("m1", {"type": "thinking", "thinking": "ponder", "signature": "sig"}),
    assistant("m1", {"type": "text", "text": "Let me look."}),
    assistant("m1", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat notes.txt"}}),
    tool_result("t1", "42"),
    assistant("m2", {"type": "text", "text": "It is **42**."}),
    result(),
]


def feed_all(messages: List[Any]) -> RunView:
    view = RunView()
    for message in messages:
        view.feed(message)
    return view


def test_terminal_transcript_is_compact_plain_text() -> None:
    out = io.StringIO()
    shown = show(RUN, file=out)
    text = out.getvalue()
    assert text == (
        "[(thinking, 6 chars)]\n"
        "\nLet me look.\n"
        "-> Bash(command='cat notes.txt')\n"
        "<- result: 42\n"
        "\nIt is **42**.\n"
        "done · 2 turns · 100 in / 20 out tokens · $0.0123 · CLI 2.5 s\n"
    )
    assert "\x1b" not in text
    assert list(shown) == RUN
    assert repr(shown) == "<Transcript: 7 messages; done · 2 turns · 100 in / 20 out tokens · $0.0123 · CLI 2.5 s>"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: List[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)


def test_notebook_view_collapses_thinking_and_tools_and_ends_with_the_answer() -> None:
    markdown = feed_all(RUN).to_markdown(3.0)
    assert markdown.startswith("<details><summary><i>thinking</i> (6 chars)</summary>")
    assert "Let me look." in markdown and "It is **42**." in markdown
    assert "<details><summary>🔧 <code>Bash</code>(command=&#x27;cat notes.txt&#x27;) ✓</summary>" in markdown
    assert "done · 2 turns · 100 in / 20 out tokens · $0.0123 · wall 3.0 s · CLI 2.5 s" in markdown
    assert markdown.endswith("**Answer**\n\nIt is 42.")


def test_notebook_view_escapes_hostile_text() -> None:
    run = [
        assistant("m1", {"type": "text", "text": HOSTILE}),
        assistant("m1", {"type": "tool_use", "id": "t1", "name": HOSTILE, "input": {HOSTILE: HOSTILE}}),
        tool_result("t1", HOSTILE, is_error=True),
        result(HOSTILE, is_error=True, errors=[HOSTILE]),
    ]
    markdown = feed_all(run).to_markdown(1.0)
    parser = _Tags()
    parser.feed(markdown)
    assert set(parser.tags) <= {"details", "summary", "i", "code", "pre", "div", "b"}
    assert "<script" not in markdown and "<img" not in markdown


def test_running_footer_permission_marks_and_hook_notes() -> None:
    view = feed_all(RUN[:4])
    assert view.footer(1.5) == "running · 1 turn · 1.5 s"
    assert "…" in view.to_markdown(1.5)  # the tool call has no result yet
    pieces = view.note_permission("Bash", "t1", "denied: not here")
    assert pieces == ["\n[Bash: permission denied: not here]\n"]
    hook = parse_message({"type": "system", "subtype": "hook_response", "hook_event": "PreToolUse", "hook_name": "PreToolUse:Bash", "outcome": "success", "session_id": SID})
    assert view.feed(hook) == ["[hook PreToolUse (PreToolUse:Bash): success]\n"]
    markdown = view.to_markdown(2.0)
    assert "<b>[permission denied: not here]</b>" in markdown and "⚑ hook PreToolUse" in markdown


def test_error_result_shows_the_hint_and_no_answer() -> None:
    error = result("Not logged in · Please run /login", is_error=True)
    markdown = feed_all([error]).to_markdown(0.1)
    assert "**Hint:** you are not logged in" in markdown and "**Answer**" not in markdown


class _FakeHandle:
    def __init__(self, log: List[str]) -> None:
        self.log = log

    def update(self, obj: Any) -> None:
        self.log.append(obj)


def test_notebook_sink_updates_one_display_area(monkeypatch: pytest.MonkeyPatch) -> None:
    log: List[str] = []
    displayed: List[Any] = []

    def display(obj: Any, display_id: bool) -> _FakeHandle:
        assert display_id is True
        displayed.append(obj)
        return _FakeHandle(log)

    monkeypatch.setattr(_show, "_notebook_sink", lambda: _show._NotebookSink(display, str))
    show(RUN)
    assert len(displayed) == 1  # one output area ...
    assert log and log[-1].endswith("**Answer**\n\nIt is 42.")  # ... redrawn, the last time complete


def test_no_ipython_import_and_terminal_mode_without_a_kernel() -> None:
    assert "IPython" not in sys.modules or sys.modules["IPython"].get_ipython() is None
    assert _show._notebook_sink() is None
    assert claude_sync.show is show


def test_show_on_a_query_notes_permission_decisions_and_raises_after_showing(tmp_path: Path) -> None:
    cli = Kit(ScriptedCLI().expect_user().tool_use("Bash", {"command": "rm -rf /"}, id="t1").ask_permission(request_id="p1")
              .result(is_error=True, subtype="error_max_turns", errors=["Reached maximum number of turns (1)"]),
              "subprocess", tmp_path)
    options = cli.options(can_use_tool=lambda name, tool_input, context: PermissionResultDeny(message="never"))
    out = io.StringIO()
    with pytest.raises(ResultError):
        show(query("clean up", options=options), file=out)
    text = out.getvalue()
    assert "-> Bash(command='rm -rf /')" in text
    assert "[Bash: permission denied: never]" in text
    assert "Hint: the run reached ClaudeAgentOptions.max_turns" in text
    assert options.include_partial_messages is False  # the caller's options are untouched


def test_an_exception_while_showing_reaps_the_cli(tmp_path: Path) -> None:
    cli = Kit(ScriptedCLI().expect_user().text("hi"), "subprocess", tmp_path)
    stream = query("hi", options=cli.options())

    class Boom(io.StringIO):
        def write(self, text: str) -> int:
            if "hi" in text:
                raise KeyboardInterrupt
            return super().write(text)

    with pytest.raises(KeyboardInterrupt):
        show(stream, file=Boom())
    assert stream.session is not None and stream.session.closed
    assert not [t for t in threading.enumerate() if t.name.startswith("claude_sync-reader")]
    assert isinstance(ClaudeAgentOptions(), ClaudeAgentOptions)


def test_a_finished_run_renders_as_html_and_markdown() -> None:
    from types import SimpleNamespace

    from claude_sync._display.live import run_result_html, run_result_markdown

    run = SimpleNamespace(text=HOSTILE + " It is 42.", result=RUN[-1], messages=tuple(RUN))
    html_text = run_result_html(run)
    parser = _Tags()
    parser.feed(html_text)
    assert set(parser.tags) <= {"div", "details", "summary", "b", "i", "pre", "code", "table", "tr", "td", "p", "strong"}
    assert "<script" not in html_text and "<img" not in html_text
    assert "It is 42." in html_text and "transcript (7 messages)" in html_text
    assert "done · 2 turns · 100 in / 20 out tokens · $0.0123 · CLI 2.5 s" in html_text
    assert run_result_markdown(run).endswith("**Answer**\n\nIt is 42.")


def test_the_notebook_footer_keeps_ticking_while_no_message_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: List[str] = []
    ticked = threading.Event()

    class Handle:
        def update(self, obj: Any) -> None:
            drawn.append(obj)
            if len(drawn) >= 3:
                ticked.set()

    monkeypatch.setattr(_show, "TICK_SECONDS", 0.05)
    monkeypatch.setattr(_show, "_notebook_sink", lambda: _show._NotebookSink(lambda obj, display_id: Handle(), str))

    def slow_run() -> Any:
        yield RUN[0]
        assert ticked.wait(10), "the ticker never redrew"  # a long tool call: no message for a while
        yield from RUN[1:]

    show(slow_run())
    assert any("running · 0 turns" in text for text in drawn[:3])
    assert drawn[-1].endswith("**Answer**\n\nIt is 42.")
    assert not [t for t in threading.enumerate() if t.name == "claude_sync-display"]


def test_run_result_renders_itself_in_notebooks() -> None:
    from claude_sync import RunResult

    run = RunResult.from_messages(list(RUN))
    html_text = run._repr_html_()
    assert "It is 42." in html_text and "transcript (7 messages)" in html_text and "<details>" in html_text
    assert run._repr_markdown_().endswith("**Answer**\n\nIt is 42.")
    assert repr(run).startswith("RunResult(text='It is 42.'")


def test_the_answer_is_shown_once_when_it_was_streamed() -> None:
    run = [assistant("m1", {"type": "text", "text": "It is **42**."}), result("It is **42**.")]
    markdown = feed_all(run).to_markdown(1.0)
    assert markdown.count("It is **42**.") == 1 and "**Answer**" not in markdown
    out = io.StringIO()
    show(run, file=out)
    assert out.getvalue().count("It is **42**.") == 1


def test_an_error_result_says_what_happened_first() -> None:
    error = result("Not logged in · Please run /login", is_error=True, api_error_status=401)
    markdown = feed_all([error]).to_markdown(0.1)
    assert markdown.index("Not logged in") < markdown.index("**Hint:**") < markdown.index("error · 2 turns")
    assert "success" not in markdown
    fragment = error._repr_html_()
    assert fragment.index("Not logged in") < fragment.index("error · 2 turns")
    assert "success" not in fragment
    limited = result(None, is_error=True, subtype="error_max_turns", errors=["Reached maximum number of turns (2)"])
    assert "<b>error (error_max_turns)</b>" in limited._repr_html_()
