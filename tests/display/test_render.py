"""Short reprs and notebook renderings of messages and blocks (``_display/render.py``)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any, Dict, List

import pytest
from wire_samples import CASE_IDS, CASES, INIT

from claude_sync import ClaudeAgentOptions
from claude_sync._display.render import safe_markdown, short_repr
from claude_sync._wire.blocks import TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from claude_sync._wire.messages import AssistantMessage, ResultMessage, UserMessage
from claude_sync._wire.parse import parse_message

HOSTILE = "<script>alert('x')</script><img src=x onerror=\"alert(1)\">&amp; \"quoted\" 'single'"
KEY = "sk-ant-api03-SECRETSECRETSECRET"
ClaudeAgentOptions(env={"ANTHROPIC_API_KEY": KEY})  # a key the library was given: known (issue 26.6)


class _TagCollector(HTMLParser):
    """Collects the tags and attribute names of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: List[str] = []
        self.attributes: List[str] = []
        self.text: List[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        self.attributes.extend(name for name, _ in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse_html(fragment: str) -> _TagCollector:
    collector = _TagCollector()
    collector.feed(fragment)
    collector.close()
    return collector


SAFE_TAGS = {"div", "b", "i", "pre", "details", "summary", "code", "table", "tr", "td"} | {
    "p", "strong", "em", "ul", "ol", "li", "blockquote", "hr", "a", "thead", "tbody", "th",
    "h1", "h2", "h3", "h4", "h5", "h6", "br",
}  # fmt: skip
"""The tags our HTML uses, and the ones the model's Markdown renders to."""


def _hostile_messages() -> List[Any]:
    return [
        AssistantMessage(
            content=[
                TextBlock(HOSTILE),
                ThinkingBlock(HOSTILE, "sig"),
                ToolUseBlock("toolu_1", HOSTILE, {"command": HOSTILE, HOSTILE: 1}),
                ToolResultBlock("toolu_1", [{"type": "text", "text": HOSTILE}], is_error=True),
            ],
            model=HOSTILE,
            error=HOSTILE,
        ),
        UserMessage(HOSTILE),
        UserMessage([ToolResultBlock("toolu_1", HOSTILE)]),
        ResultMessage("error_during_execution", 5, 4, True, 1, HOSTILE, result=HOSTILE, errors=[HOSTILE]),
        parse_message({"type": "system", "subtype": HOSTILE, HOSTILE: HOSTILE}),
        parse_message(dict(INIT, model=HOSTILE, cwd=HOSTILE)),
    ]


@pytest.mark.parametrize("message", _hostile_messages(), ids=lambda m: type(m).__name__)
def test_html_escapes_hostile_text(message: Any) -> None:
    fragment = message._repr_html_()
    parsed = _parse_html(fragment)
    assert set(parsed.tags) <= SAFE_TAGS, parsed.tags
    assert set(parsed.attributes) <= {"style", "open", "class"}, parsed.attributes
    assert "<script" not in fragment and "<img" not in fragment
    assert "alert" in html.unescape(fragment)  # shown, as text


@pytest.mark.parametrize("message", _hostile_messages(), ids=lambda m: type(m).__name__)
def test_markdown_cannot_inject_html(message: Any) -> None:
    text = message._repr_markdown_()
    assert "<script" not in text and "<img" not in text


def test_safe_markdown_keeps_formatting_and_code() -> None:
    text = "**bold** <b>x</b>\n\n```html\n<div>code</div>\n```\nand `a < b`"
    out = safe_markdown(text)
    assert out.startswith("**bold** &lt;b>x&lt;/b>")
    assert "<div>code</div>" in out and "`a < b`" in out


def test_system_init_repr_prints_no_field_twice_and_shortens_the_tool_lists() -> None:
    init = parse_message(dict(INIT, tools=[f"Tool{i}" for i in range(40)], slash_commands=["c"] * 30))
    text = repr(init)
    assert text.startswith("SystemMessage(subtype='init', data={'cwd': ")  # as the official, minus type/subtype twice
    assert len(text) < 1000, len(text)
    assert "'Tool0', 'Tool1', 'Tool2', 'Tool3', … 40 items" in text and text.count("Tool0") == 1
    for key in ("model", "cwd", "permissionMode", "claude_code_version", "session_id"):
        assert text.count(f"'{key}': ") == 1, key
    assert text.count("'init'") == 1
    typed = repr(init.init)
    assert "data=" not in typed and "subtype=" not in typed and typed.count("model=") == 1


def test_unknown_system_subtype_keeps_its_data() -> None:
    message = parse_message({"type": "system", "subtype": "brand_new", "detail": 1})
    assert repr(message) == "SystemMessage(subtype='brand_new', data={'detail': 1})"


LONG = "The answer, at length. " * 400


def test_print_never_cuts_what_the_user_asked_for() -> None:
    """Text, thinking, the result, tool input and output appear whole in ``str()``/``repr()``
    (a program's output is often ``print(message)``); metadata is still shortened."""
    assistant = AssistantMessage(
        content=[
            TextBlock(LONG),
            ThinkingBlock("think " * 500, "sig"),
            ToolUseBlock("t", "Write", {"file_path": "a.txt", "content": LONG, "deep": {"a": {"b": {"c": [1, 2, 3, 4, 5, 6]}}}}),
        ],
        model="m",
        usage={"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 4, "service_tier": "x"},
    )
    text = str(assistant)
    assert LONG in text and ("think " * 500) in text and text.count(LONG) == 2
    assert "{'c': [1, 2, 3, 4, 5, 6]}" in text
    assert "… 5 keys" in text  # usage: metadata, summarised
    output = UserMessage([ToolResultBlock("t", [{"type": "text", "text": LONG}] * 6)])
    assert repr(output).count(LONG) == 6
    result = ResultMessage("success", 1, 1, False, 1, "s", result=LONG, structured_output={"items": list(range(50))})
    assert LONG in repr(result) and str(list(range(50))) in repr(result)
    assert LONG in repr(UserMessage(LONG))


def test_metadata_strings_are_still_cut_with_their_size() -> None:
    event = parse_message({"type": "system", "subtype": "task_started", "task_id": "t", "prompt": "p" * 5000})
    assert f"prompt={'p' * 120!r}… (5,000 chars)" in repr(event)
    assert repr(UserMessage("hi")) == "UserMessage(content='hi')"


def test_rich_repr_yields_every_shown_field_whole_and_redacted() -> None:
    message = AssistantMessage(content=[TextBlock(LONG + KEY)], model="m", usage={str(i): i for i in range(9)})
    fields_ = dict(message.__rich_repr__())
    assert set(fields_) == {"content", "model", "usage"}
    assert fields_["usage"] == {str(i): i for i in range(9)}  # whole: rich lays it out
    (block,) = fields_["content"]
    assert dict(block.__rich_repr__()) == {"text": LONG + "<redacted>"}
    init = parse_message(INIT)
    assert dict(init.__rich_repr__())["data"] == {k: v for k, v in INIT.items() if k not in ("type", "subtype")}


def test_secrets_are_redacted_in_repr_html_and_markdown() -> None:
    message = AssistantMessage(
        content=[
            TextBlock(f"your key is {KEY}"),
            ToolUseBlock("t", "Bash", {"command": f"curl -H 'Authorization: Bearer abc.def' {KEY}", "api_key": "plain", "env": {"TOKEN": "v"}}),
        ],
        model="m",
    )
    for text in (repr(message), message._repr_html_(), message._repr_markdown_()):
        assert "SECRETSECRET" not in text and "plain" not in text
        assert "'v'" not in text and "&#x27;v&#x27;" not in text
        assert "Bearer abc.def" in text  # the model's words: not a known value, not rewritten (issue 26.6)


def test_token_counts_are_not_mistaken_for_secrets() -> None:
    result = ResultMessage("success", 1, 1, False, 1, "s", usage={"input_tokens": 12, "output_tokens": 34})
    assert "'input_tokens': 12" in repr(result) and "'output_tokens': 34" in repr(result)
    assert "12 in / 34 out tokens" in result._repr_html_()


def test_nested_metadata_containers_are_elided() -> None:
    deep: Dict[str, Any] = {"a": {"b": {"c": {"d": 1}}}}
    assert "{… 1 keys}" in repr(ResultMessage("success", 1, 1, False, 1, "s", model_usage=deep))


@pytest.mark.parametrize("name, wire, cls, expected", CASES, ids=CASE_IDS)
def test_every_real_cli_line_renders(name: str, wire: Dict[str, Any], cls: type, expected: Dict[str, Any]) -> None:
    message = parse_message(wire)
    text = repr(message)
    assert text.startswith(cls.__name__ + "(")
    assert len(text) < 1500
    assert isinstance(message._repr_html_(), str) and isinstance(message._repr_markdown_(), str)
    if getattr(message, "type", "") == "system" and type(message).__name__ != "SystemMessage":
        assert not re.search(r"[(, ]data=", text)


def test_result_html_has_the_footer_and_the_answer() -> None:
    result = ResultMessage("success", 3456, 3000, False, 2, "s", total_cost_usd=0.0123, result="**4**",
                           usage={"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5})  # fmt: skip
    fragment = result._repr_html_()
    assert "done · 2 turns · 110 in / 5 out tokens · $0.0123 · CLI 3.5 s" in html.unescape(fragment)
    assert "<strong>4</strong>" in fragment  # the model's Markdown, rendered
    assert result._repr_markdown_().endswith("**4**")


def test_short_repr_is_what_repr_returns() -> None:
    block = TextBlock("hello")
    assert repr(block) == short_repr(block) == "TextBlock(text='hello')"
    assert re.fullmatch(r"TextBlock\(text='hello'\)", repr(block))
