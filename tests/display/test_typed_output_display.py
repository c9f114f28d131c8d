"""A typed run on screen: the live view (terminal and notebook), ``RunResult._repr_html_`` and a
``ResultMessage``'s own HTML/Markdown show the parsed object, not its JSON text."""

from __future__ import annotations

import dataclasses
from typing import Any, List

from claude_sync import ClaudeAgentOptions, RunResult
from claude_sync._display.live import RunView
from claude_sync._structured.outcome import with_parsed_output
from claude_sync._wire.parse import parse_message

SID = "s"


@dataclasses.dataclass
class Verdict:
    answer: str
    votes: List[int]
    note: str = ""


def typed_run(note: str = "") -> List[Any]:
    value = {"answer": "yes <b>", "votes": [3, 1], "note": note}
    call = parse_message({"type": "assistant", "message": {"id": "m1", "model": "m", "content": [
        {"type": "tool_use", "id": "t1", "name": "StructuredOutput", "input": value}]}, "session_id": SID})  # fmt: skip
    done = parse_message({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 10, "duration_api_ms": 5,
                          "num_turns": 2, "session_id": SID, "result": '{"answer":"yes <b>"}', "structured_output": value})  # fmt: skip
    return [call, with_parsed_output(Verdict, done)]


def test_the_terminal_view_prints_the_object() -> None:
    view = RunView()
    printed = "".join(piece for message in typed_run() for piece in view.feed(message))
    assert "Output (Verdict):\nVerdict(answer='yes <b>', votes=[3, 1], note='')" in printed


def test_the_notebook_view_shows_the_object_instead_of_the_json_answer() -> None:
    view = RunView()
    for message in typed_run():
        view.feed(message)
    markdown = view.to_markdown(1.0)
    assert "<code>Verdict</code>" in markdown
    assert "Verdict(answer=&#x27;yes &lt;b&gt;&#x27;" in markdown  # escaped
    assert "**Answer**" not in markdown


def test_run_result_html_and_repr() -> None:
    result = RunResult.from_messages(typed_run(), output_format=Verdict)
    assert result.output == Verdict("yes <b>", [3, 1])
    html = result._repr_html_()
    assert "<code>Verdict</code>" in html and "yes <b>" not in html and "yes &lt;b&gt;" in html
    assert repr(result).startswith("RunResult(output=Verdict(answer='yes <b>', votes=[3, 1], note=''), ")


def test_secrets_in_the_object_are_redacted() -> None:
    ClaudeAgentOptions(env={"ANTHROPIC_API_KEY": "sk-ant-api03-abcdef"})  # known: removed by value (issue 26.6)
    messages = typed_run(note="key sk-ant-api03-abcdef")
    view = RunView()
    printed = "".join(piece for message in messages for piece in view.feed(message))
    assert "sk-ant" not in printed and "sk-ant" not in RunResult.from_messages(messages, output_format=Verdict)._repr_html_()


def test_a_result_message_renders_its_object() -> None:
    parsed = typed_run()[-1]
    assert "<code>Verdict</code>" in parsed._repr_html_()
    assert "<code>Verdict</code>" in parsed._repr_markdown_()
