"""Issue 10 item 8: claude_sync under a monkey-patched gevent host (``gunicorn -k gevent``,
``celery -P gevent``). Several greenlets at once each run a ``query()`` whose turn needs a
permission callback and an in-process MCP tool, against the real CLI and the fake API.

The host runs in its own interpreter (``gevent_host.py``) so that monkey-patching never leaks
into the other tests; gevent is in the ``test-integrations`` extra, imported only there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest
from helpers import require_package

from claude_sync.testing.fake_api import ApiRequest, FakeAnthropicAPI, Reply, text, tool_use

from .harness import _is_stripped, hermetic_env, require_test_cli

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
HOST = Path(__file__).with_name("gevent_host.py")
GREENLETS = 4


def _responder(request: ApiRequest) -> Optional[Reply]:
    """First request of a turn: call the MCP tool with the number from the prompt; after the
    tool result: say the sum. Decided per request, so concurrent CLIs cannot mix replies."""
    results = request.tool_results
    if results:
        content = results[0].get("content")
        value = content[0]["text"] if isinstance(content, list) and content else str(content)
        return text(f"the sum is {value}")
    words = request.last_user_text.split()
    number = next((int(w) for w in words if w.isdigit()), 0)
    return tool_use("mcp__calc__add", {"a": number, "b": 100})


def test_concurrent_greenlets_with_permission_callback_and_mcp_tool(tmp_path: Path) -> None:
    require_package("gevent", import_it=False)  # looked up, not imported: this process stays unpatched
    cli = require_test_cli()
    work = tmp_path / "work"
    work.mkdir()
    with FakeAnthropicAPI(responder=_responder) as api:
        env = hermetic_env(tmp_path, api.base_url, CLAUDE_CODE_MAX_RETRIES="0")
        spec = {"cli": cli, "env": env, "cwd": str(work), "count": GREENLETS, "deadline": 150}
        parent_env = {k: v for k, v in os.environ.items() if not _is_stripped(k)}
        done = subprocess.run(
            [sys.executable, str(HOST), str(ROOT), json.dumps(spec)],
            capture_output=True, text=True, timeout=240, env=parent_env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-4000:]
        report: Any = json.loads(done.stdout.strip().splitlines()[-1])
        assert api.handler_errors() == []
    assert report["patched_queue"] is True
    assert report["children_left"] == [], "the host kept CLI processes after the runs"
    for run in report["runs"]:
        assert "error" not in run, run
        index = run["index"]
        assert run["asked"] == ["mcp__calc__add"], run
        assert run["texts"][-1] == f"the sum is {index + 100}", run
        assert run["result"] == {"subtype": "success", "is_error": False, "result": f"the sum is {index + 100}"}
    # The hub was never blocked for long: nothing waited in C while holding every greenlet.
    assert report["max_hub_block"] < 5.0, report["max_hub_block"]
