"""The fake model of a run that ends twice (issue 37), shared by the e2e tests and the
tracing child: the main agent starts a background ``Agent`` whose subagent runs ``Bash`` and
answers "plum"; the main turn ends ("launched"); the subagent's end wakes another turn
("woken turn done"). Five model requests: three of the main agent, two of the subagent."""

from __future__ import annotations

import json
from typing import Any

from claude_sync.testing.fake_api import Reply, text, tool_use

SUBAGENT_PROMPT = "SUBTASK: run ls, then reply with the word plum"
RUN_PROMPT = "Launch the background agent, then wait for it."


def said(request: Any) -> str:
    """What the CLI sent in a request, as one JSON string."""
    return json.dumps(request.messages)


def is_subagent(request: Any) -> bool:
    """Whether ``request`` is one of the subagent's."""
    text_sent = said(request)
    return SUBAGENT_PROMPT in text_sent and RUN_PROMPT not in text_sent


def responder(request: Any) -> Reply:
    """The fake model, deciding from what the CLI sent (the agents' requests interleave);
    a request of another run is answered "plain answer"."""
    text_sent = said(request)
    if is_subagent(request):
        if '"tool_use_id"' in text_sent:
            return text("plum")
        return tool_use("Bash", {"command": "ls # subagent-ls", "description": "list"})
    if RUN_PROMPT not in text_sent:
        return text("plain answer")
    if "plum" in text_sent and "task-notification" in text_sent.replace("_", "-"):
        return text("woken turn done")
    if '"tool_use_id"' in text_sent:
        return text("launched; waiting for it")
    return tool_use(
        "Agent",
        {"description": "background helper", "prompt": SUBAGENT_PROMPT, "subagent_type": "general-purpose", "run_in_background": True},
    )
