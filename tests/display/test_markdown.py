"""The model's Markdown in HTML reprs: rendered (markdown-it-py when installed, the built-in
renderer otherwise), and never a way to inject HTML."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any, Callable, Dict, List, Tuple

import pytest

from claude_sync import ResultMessage, TextBlock
from claude_sync._display import markdown
from claude_sync._display.markdown import builtin_markdown_html, library_renderer, markdown_html

MODEL_ANSWER = """# Plan

Here is **bold**, *italic* and `code <b>`.

| name | size |
|------|-----:|
| a.py | 10 |
| b.py | 20 |

- first
- second

1. one
2. two

> quoted

```python
print("<not a tag>")
```

See [the docs](https://example.com/a?b=1&c=2)."""

HOSTILE = """<script>alert(1)</script> <img src=x onerror="alert(2)">
[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=)
[quote"break](https://example.com/"onmouseover="alert(4)) **<iframe src=//evil>**
| <svg onload=alert(5)> | x |
|---|---|
| <a href=javascript:alert(6)>y</a> | z |"""


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: List[Tuple[str, Dict[str, Any]]] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(fragment: str) -> List[Tuple[str, Dict[str, Any]]]:
    parser = Tags()
    parser.feed(fragment)
    parser.close()
    return parser.tags


RENDERERS: Dict[str, Callable[[str], str]] = {"builtin": builtin_markdown_html}
if library_renderer() is not None:
    RENDERERS["markdown-it-py"] = markdown_html


@pytest.mark.parametrize("render", list(RENDERERS.values()), ids=list(RENDERERS))
def test_the_models_markdown_is_rendered(render: Callable[[str], str]) -> None:
    fragment = render(MODEL_ANSWER)
    names = [tag for tag, _ in tags_of(fragment)]
    for tag in ("h1", "strong", "em", "code", "table", "th", "td", "ul", "ol", "li", "blockquote", "pre", "a"):
        assert tag in names, (tag, fragment)
    assert "**" not in fragment and "|---" not in fragment
    assert "&lt;not a tag&gt;" in fragment and "&lt;b&gt;" in fragment  # code is shown as written
    assert ("a", {"href": "https://example.com/a?b=1&c=2"}) in [(t, {"href": a["href"]}) for t, a in tags_of(fragment) if t == "a"]


@pytest.mark.parametrize("render", list(RENDERERS.values()), ids=list(RENDERERS))
def test_hostile_html_in_the_text_stays_text(render: Callable[[str], str]) -> None:
    fragment = render(HOSTILE)
    allowed = {"p", "strong", "em", "code", "a", "table", "thead", "tbody", "tr", "th", "td", "br"}
    for tag, attrs in tags_of(fragment):
        assert tag in allowed, (tag, fragment)
        assert set(attrs) <= {"href", "rel"}, (tag, attrs)
        href = attrs.get("href") or ""
        assert not href.lower().startswith(("javascript:", "data:")), href
        assert '"' not in href and "onmouseover" not in attrs
    assert "&lt;script&gt;" in fragment and "&lt;iframe" in fragment and "&lt;svg" in fragment


def test_without_markdown_it_py_the_builtin_renderer_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markdown, "_library", None)
    assert markdown_html("**x**") == builtin_markdown_html("**x**") == "<p><strong>x</strong></p>"


def test_builtin_details() -> None:
    assert builtin_markdown_html("a\nb\n\nc") == "<p>a\nb</p>\n<p>c</p>"
    assert builtin_markdown_html("snake_case_name and 2*3*4") == "<p>snake_case_name and 2*3*4</p>"
    assert builtin_markdown_html("- a\n  continued\n- b") == "<ul><li>a\ncontinued</li><li>b</li></ul>"
    assert builtin_markdown_html("```\nunclosed <x>") == "<pre><code>unclosed &lt;x&gt;</code></pre>"
    assert builtin_markdown_html("") == ""


def test_html_reprs_render_markdown() -> None:
    assert "<strong>bold</strong>" in TextBlock("some **bold**")._repr_html_()
    result = ResultMessage("success", 1, 1, False, 1, "s", result="| a |\n|---|\n| 1 |")
    assert "<table>" in result._repr_html_()
