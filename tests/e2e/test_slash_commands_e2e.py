"""``ClaudeAgentOptions(slash_commands=False)`` against the real CLI and the fake API: a prompt
that starts with ``/`` reaches the model as text on every CLI version, as a string and as
content blocks, so an application passing its users' prompts cannot be made to run
``/config`` (which writes the user's ``settings.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Union

import pytest

from claude_sync import ClaudeSDKClient, ResultMessage
from claude_sync.testing import FakeAnthropicAPI, text

pytestmark = pytest.mark.e2e

NO_RETRY = {"CLAUDE_CODE_MAX_RETRIES": 0}
CONFIG = "/config permissionMode=acceptEdits"


def user_texts(api: FakeAnthropicAPI) -> List[str]:
    texts: List[str] = []
    for request in api.turn_requests():
        for message in request.body["messages"]:
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            texts += [block["text"] for block in blocks if block.get("type") == "text"]
    return texts


def stream_of(content: Union[str, List[Dict[str, Any]]]) -> Iterator[Dict[str, Any]]:
    yield {"type": "user", "message": {"role": "user", "content": content}}


@pytest.mark.parametrize("form", ["string", "blocks"])
def test_a_slash_prompt_goes_to_the_model_as_text(form: str, e2e_options: Any, fake_api: FakeAnthropicAPI,
                                                   tmp_path: Path) -> None:
    fake_api.add(text("noted"))
    prompt: Any = CONFIG if form == "string" else stream_of([{"type": "text", "text": CONFIG}])
    with ClaudeSDKClient(e2e_options(env=NO_RETRY, slash_commands=False)) as client:
        client.query(prompt)
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "noted"
    assert not (tmp_path / "home" / ".claude" / "settings.json").exists()
    assert " " + CONFIG in user_texts(fake_api)


def test_content_blocks_run_the_command_by_default(e2e_options: Any, fake_api: FakeAnthropicAPI,
                                                   tmp_path: Path) -> None:
    """The block form is no protection by itself: both CLIs run the command in a text block."""
    with ClaudeSDKClient(e2e_options(env=NO_RETRY)) as client:
        client.query(stream_of([{"type": "text", "text": CONFIG}]))
        list(client.receive_response(timeout=60))
    settings = json.loads((tmp_path / "home" / ".claude" / "settings.json").read_text())
    assert settings["permissions"]["defaultMode"] == "acceptEdits"
    assert fake_api.turn_requests() == []
