"""claude_sync's errors in a real IPython kernel (nbclient): the message once, with its hint,
under a short traceback of the user's own frames — not three times over a traceback through
the library. ``%tb verbose`` still gives the whole traceback, ``%xmode Minimal`` one line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import require_package

pytestmark = [
    # jupyter_client keeps a process-wide zmq context and event loop (fds) after the kernel
    # is shut down (as in tests/e2e/test_notebook_e2e.py); the kernel itself is checked below.
    pytest.mark.allow_leaks,
]

nbformat = require_package("nbformat")
nbclient = require_package("nbclient")
require_package("ipykernel", import_it=False)  # the kernel nbclient starts

REPO = Path(__file__).resolve().parents[2]
MESSAGE = "API Error: 401 scripted authentication_failed"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

CELLS = {
    "setup": f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
    "from claude_sync import ClaudeSDKClient, ClaudeSDKError, query, run, show\n"
    "from claude_sync.testing import ScriptedCLI\n"
    "def failing():\n    return ScriptedCLI().expect_user().api_error(401).transport()\n"
    "def ask(question):\n    return run(question, transport=failing())\n",
    "run": "run('hi', transport=failing())",
    "helper": "x = 1\nask('hi')",
    "show": "show(query('hi', transport=failing()))",
    "tb": "%tb verbose",
    "client": "with ClaudeSDKClient(transport=failing()) as client:\n"
    "    client.query('hi')\n    transcript = show(client.receive_response())",
    "chained": "try:\n    raise ValueError('the cause')\nexcept ValueError as exc:\n"
    "    raise ClaudeSDKError('what went wrong') from exc",
    "plain": "raise ValueError('plain')",
    "minimal": "%xmode Minimal\nrun('hi', transport=failing())",
}


@pytest.fixture(scope="module")
def outputs() -> Dict[str, List[Dict[str, Any]]]:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS.values()])
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True)
    client.execute()
    assert client.km is None or not client.km.is_alive()
    return {name: [dict(o) for o in cell.outputs] for name, cell in zip(CELLS, notebook.cells)}


def shown(outputs: List[Dict[str, Any]]) -> str:
    """Everything a user sees in the cell's output area (tracebacks without colour codes)."""
    parts: List[str] = []
    for output in outputs:
        if output["output_type"] == "error":
            parts.append(ANSI.sub("", "\n".join(output["traceback"])))
        elif output["output_type"] == "stream":
            parts.append(output["text"])
        else:
            data = output.get("data", {})
            parts.append(data.get("text/markdown") or data.get("text/html") or data.get("text/plain", ""))
    return "\n".join(parts)


def traceback_of(outputs: List[Dict[str, Any]]) -> str:
    errors = [o for o in outputs if o["output_type"] == "error"]
    assert len(errors) == 1, outputs
    return ANSI.sub("", "\n".join(errors[0]["traceback"]))


def test_an_error_shows_its_message_once_with_its_hint_under_the_callers_line(outputs: Dict[str, Any]) -> None:
    text = shown(outputs["run"])
    assert text.count(MESSAGE) == 1 and text.count("Hint: the API key was refused") == 1, text
    assert "Cell In[2], line 1\n----> 1 run('hi', transport=failing())" in text
    assert "claude_sync/" not in text and "File " not in text  # no library frame
    assert "frames inside claude_sync and the standard library not shown: %tb verbose shows them" in text
    assert outputs["run"][0]["ename"] == "ResultError"


def test_the_users_own_frames_are_kept(outputs: Dict[str, Any]) -> None:
    text = traceback_of(outputs["helper"])
    assert "Cell In[3], line 2\n----> 2 ask('hi')" in text
    assert "Cell In[1], line 8, in ask\n----> 8 return run(question, transport=failing())" in text
    assert text.count(MESSAGE) == 1


def test_show_leaves_the_raised_error_to_say_it_once(outputs: Dict[str, Any]) -> None:
    text = shown(outputs["show"])
    assert text.count(MESSAGE) == 1 and text.count("API key was refused") == 1, text
    display = shown([o for o in outputs["show"] if o["output_type"] != "error"])
    assert "error · 1 turn" in display  # the transcript's footer stays
    assert MESSAGE in traceback_of(outputs["show"])


def test_tb_verbose_still_shows_every_frame(outputs: Dict[str, Any]) -> None:
    text = shown(outputs["tb"])
    assert "query.py" in text and MESSAGE in text


def test_show_of_a_client_response_says_the_error_once_in_the_display(outputs: Dict[str, Any]) -> None:
    """A client's response iterator raises nothing: the display says it, once, with the hint."""
    assert not any(o["output_type"] == "error" for o in outputs["client"])
    text = shown(outputs["client"])
    assert text.count(MESSAGE) == 1 and text.count("API key was refused") == 1, text


def test_a_chained_error_names_its_cause_in_one_line(outputs: Dict[str, Any]) -> None:
    text = traceback_of(outputs["chained"])
    assert "ClaudeSDKError: what went wrong\n(raised from ValueError: the cause)" in text
    assert "Cell In[7], line 4" in text


def test_other_errors_keep_ipythons_own_traceback(outputs: Dict[str, Any]) -> None:
    text = traceback_of(outputs["plain"])
    assert "ValueError: plain" in text and "not shown" not in text


def test_xmode_minimal_gives_one_line(outputs: Dict[str, Any]) -> None:
    text = traceback_of(outputs["minimal"])
    assert text.splitlines()[0].startswith("ResultError: " + MESSAGE) and "Cell In" not in text
