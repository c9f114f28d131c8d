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

from claude_sync import HookMatcher, ResultMessage, SystemMessage, query
from claude_sync.testing.fake_api import FakeAnthropicAPI, Reply, text, tool_use

from .harness import OptionsFactory, cli_is_at_least

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


def test_a_background_agent_that_wakes_a_turn_gets_that_turns_hook_answered(e2e_options: OptionsFactory, real_cli_path: str) -> None:
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
    if not cli_is_at_least(real_cli_path, "2.1.330") and _agent_ended_before_the_first_result(messages):
        # The gap run_end.py documents: a CLI that reports no session state (2.1.197) cannot
        # announce a turn woken by an agent that ended before the first result, so the run
        # ends there (seen under load, ~1 run in 10). The run still ends cleanly at that result.
        assert results and results[0].result == "launched; waiting for it", messages
        return
    assert calls == ["ls # woken-ls"], (calls, [getattr(m, "subtype", type(m).__name__) for m in messages])
    assert len(results) == 2 and results[-1].result == "woken turn done"


def _agent_ended_before_the_first_result(messages: List[Any]) -> bool:
    """Whether the background agent's end (``task_notification``, or ``task_updated`` with a
    terminal status) reached the stream before the first result."""
    for message in messages:
        if isinstance(message, ResultMessage):
            return False
        if isinstance(message, SystemMessage) and (
            message.subtype == "task_notification"
            or (message.subtype == "task_updated" and str(message.data.get("status", message.data.get("patch", {}).get("status"))) in ("completed", "failed", "stopped", "killed"))
        ):
            return True
    return False
