"""``examples/notebook.ipynb`` executed in a real IPython kernel (nbclient) against the real
CLI + fake API: the live display, rich reprs, completion and the text stream produce the
outputs a user would see; a kernel interrupt during a run reaps the CLI."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import require_package

from claude_sync.testing.fake_api import FakeAnthropicAPI, text

pytestmark = [
    pytest.mark.e2e,
    # jupyter_client keeps a process-wide zmq context and event loop (fds) after the kernel
    # is shut down; the kernel process itself and the CLI are checked explicitly below.
    pytest.mark.allow_leaks,
]

nbformat = require_package("nbformat")
nbclient = require_package("nbclient")
require_package("ipykernel", import_it=False)  # the kernel nbclient starts

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "notebook.ipynb"
REPO = Path(__file__).resolve().parents[2]


def _parameters(options: Any) -> str:
    """The parameters cell: the test's options (real CLI, hermetic env aimed at the fake API)."""
    return (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from claude_sync import ClaudeAgentOptions\n"
        f"options = ClaudeAgentOptions(cli_path={str(options.cli_path)!r}, env={dict(options.env)!r}, "
        f"cwd={str(options.cwd)!r}, max_turns=3)\n"
    )


def _outputs(cell: Any) -> List[Dict[str, Any]]:
    return [dict(output) for output in cell.get("outputs", [])]


def _data(cell: Any, mime: str) -> List[str]:
    return ["".join(o["data"][mime]) if isinstance(o["data"][mime], list) else o["data"][mime]
            for o in _outputs(cell) if mime in o.get("data", {})]  # fmt: skip


def _stream(cell: Any) -> str:
    return "".join(o.get("text", "") for o in _outputs(cell) if o.get("output_type") == "stream")


def test_the_example_notebook_runs_and_shows_its_outputs(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("2 + 2 is **4**.", chunk_size=3), text("One, two, three.", chunk_size=4))
    notebook = nbformat.read(str(NOTEBOOK), as_version=4)
    parameters = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1
    parameters[0].source = _parameters(e2e_options())
    client = nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}})
    client.execute()
    assert client.km is None or not client.km.is_alive()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    show_cell, result_cell, repr_cell, signature_cell, completion_cell, text_cell = code[1:]

    live = _data(show_cell, "text/markdown")
    assert live, _outputs(show_cell)
    assert "done · 1 turn" in live[-1]
    assert live[-1].count("2 + 2 is **4**.") == 1 and "**Answer**" not in live[-1]  # streamed, so shown once
    assert "<div" in live[-1]  # the footer is HTML inside the Markdown
    assert _data(show_cell, "text/plain")[-1].startswith("<Transcript: ")

    html = _data(result_cell, "text/html")
    assert html and "done · 1 turn" in html[0] and "<div" in html[0]
    assert "<strong>4</strong>" in html[0] and "**4**" not in html[0]  # the answer's Markdown, rendered
    assert "data=" not in _stream(repr_cell) and _stream(repr_cell).startswith("SystemInitMessage(")
    assert _stream(signature_cell).startswith("['tools', 'allowed_tools', ")
    assert "max_turns=" in _stream(completion_cell) and "max_budget_usd=" in _stream(completion_cell)
    assert _stream(text_cell) == "One, two, three."


def _children(pid: int) -> List[int]:
    found: List[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_a_kernel_interrupt_during_show_reaps_the_cli(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    if not sys.platform.startswith("linux"):
        pytest.fail("this test reads /proc")
    fake_api.add(text("slow answer", delay=60.0))
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_code_cell(_parameters(e2e_options())),
        nbformat.v4.new_code_cell("from claude_sync import query, show\nshow(query('take your time', options=options))"),
        nbformat.v4.new_code_cell("import threading\nprint(sorted(t.name for t in threading.enumerate() if t.name.startswith('claude_sync')))"),
    ]
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True)
    seen: Dict[str, int] = {}
    with client.setup_kernel():
        kernel_pid = client.km.provisioner.process.pid  # type: ignore[union-attr]
        client.execute_cell(notebook.cells[0], 0)

        def interrupt_when_the_cli_runs() -> None:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                children = _children(kernel_pid)
                if children and fake_api.requests():  # the CLI runs and has asked the API
                    seen["cli"] = children[0]
                    os.kill(kernel_pid, signal.SIGINT)  # what the notebook UI's interrupt sends
                    return
                time.sleep(0.05)

        watcher = threading.Thread(target=interrupt_when_the_cli_runs, name="test-interrupter")
        watcher.start()
        client.execute_cell(notebook.cells[1], 1)
        watcher.join(100)
        client.execute_cell(notebook.cells[2], 2)
        assert "cli" in seen, "the CLI never started"
        errors = [o for o in _outputs(notebook.cells[1]) if o.get("output_type") == "error"]
        assert errors and errors[0]["ename"] == "KeyboardInterrupt"
        deadline = time.monotonic() + 30
        while _alive(seen["cli"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(seen["cli"]), "the CLI outlived the interrupt"
        assert _stream(notebook.cells[2]).strip() == "[]"  # no claude_sync thread left behind
    assert not _alive(kernel_pid)
