"""Issue 19 against the real CLI: a one-shot ``query()`` with a hook keeps stdin open while a
background subagent may still wake another turn, so that turn's hook is answered.

The fake model starts a background ``Agent`` (``run_in_background``), ends its turn (the first
result), and when the CLI wakes it with the subagent's notification it calls ``Bash``: the
``PreToolUse`` hook of that woken turn must run. Closing stdin at the first result (as
claude_sync did) loses it: 2.1.197 logs "Stream closed", 2.1.330 cancels the tool.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, List, Optional

import pytest

from claude_sync import HookMatcher, ResultMessage, query
from claude_sync.testing.fake_api import FakeAnthropicAPI, Reply, text, tool_use

from .harness import OptionsFactory

pytestmark = pytest.mark.e2e

SUBAGENT_PROMPT = "SUBTASK: reply with the word plum"


def _said(request: Any) -> str:
    return json.dumps(request.messages)


def _responder(request: Any) -> Optional[Reply]:
    """The fake model, deciding from what the CLI sent (requests interleave)."""
    said = _said(request)
    if SUBAGENT_PROMPT in said and "Launch the background agent" not in said:
        return text("plum")  # the subagent itself
    if "woken-ls" in said:
        return text("woken turn done")
    if "plum" in said and "task-notification" in said.replace("_", "-"):
        return tool_use("Bash", {"command": "ls # woken-ls", "description": "list"})
    if '"tool_use_id"' in said:
        return text("launched; waiting for it")
    return tool_use(
        "Agent",
        {"description": "background helper", "prompt": SUBAGENT_PROMPT, "subagent_type": "general-purpose", "run_in_background": True},
    )


def test_a_background_agent_that_wakes_a_turn_gets_that_turns_hook_answered(e2e_options: OptionsFactory) -> None:
    api = FakeAnthropicAPI(responder=_responder).start()
    calls: List[str] = []
    seen = threading.Event()

    def pre_tool_use(hook_input: Dict[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        calls.append(str(hook_input.get("tool_input", {}).get("command")))
        seen.set()
        return {}

    try:
        options = e2e_options(
            env={"ANTHROPIC_BASE_URL": api.base_url},
            allowed_tools=["Bash", "Agent", "Task"],
            hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre_tool_use])]},
            max_turns=6,
        )
        messages = list(query("Launch the background agent, then wait for it.", options=options, timeout=90))
    finally:
        api.stop()
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert calls == ["ls # woken-ls"], (calls, [getattr(m, "subtype", type(m).__name__) for m in messages])
    assert len(results) == 2 and results[-1].result == "woken turn done"
