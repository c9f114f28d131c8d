"""``short_traceback`` outside IPython (what ``ClaudeSDKError._render_traceback_`` returns):
the caller's frames with their file and line, the text once, the left-out frames counted."""

from __future__ import annotations

from typing import List

from claude_sync import ClaudeAgentOptions, ClaudeSDKError, ResultError, run
from claude_sync._display.tracebacks import short_traceback
from claude_sync.testing import ScriptedCLI


def caught_from_run() -> ResultError:
    try:
        run("hi", options=ClaudeAgentOptions(), transport=ScriptedCLI().expect_user().api_error(401).transport())
    except ResultError as exc:
        return exc
    raise AssertionError("run() did not raise")


def test_the_callers_frames_the_text_once_and_a_count_of_the_rest() -> None:
    error = caught_from_run()
    lines: List[str] = error._render_traceback_()
    text = "\n".join(lines)
    assert lines[1].startswith("ResultError") and lines[1].endswith("Traceback (most recent call last)")
    assert f"File {__file__}:" in text and ", in caught_from_run" in text
    assert "----> " in text and 'run("hi", options=ClaudeAgentOptions()' in text
    assert text.count(str(error).splitlines()[0]) == 1 and text.count("Hint:") == 1
    assert "claude_sync/query.py" not in text and "frames inside claude_sync" in text


def test_an_error_never_raised_has_just_its_text() -> None:
    lines = short_traceback(ClaudeSDKError("nothing raised it"))
    assert lines[-1] == "ClaudeSDKError: nothing raised it" and not any("frames" in line for line in lines)
