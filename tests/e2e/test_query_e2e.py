"""``query()`` end to end: the library drives the real ``claude`` CLI, which talks to the
loopback fake Anthropic API (fixtures in ``tests/e2e/conftest.py``).

Each test checks both sides: what the library yielded (typed messages, errors) and what the
CLI actually sent to the API (``fake_api`` records every request).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from helpers import child_pids, is_init, results, texts

from claude_sync import (
    AssistantMessage,
    ResultError,
    ResultMessage,
    StreamEvent,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)
from claude_sync.testing.fake_api import (
    ApiRequest,
    FakeAnthropicAPI,
    error,
    large_text,
    text,
    tool_use,
)

pytestmark = pytest.mark.e2e

NO_RETRIES = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def user(content: str) -> Dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}}


# ----------------------------------------------------------------------------- answers


def test_one_shot_text_answer(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("four"))
    with query("What is 2 + 2?", options=e2e_options()) as stream:
        messages = list(stream)
    assert is_init(messages[0])
    assert texts(messages) == ["four"]
    (result,) = results(messages)
    assert messages[-1] is result
    assert result.subtype == "success" and result.is_error is False
    assert result.result == "four" and result.num_turns == 1
    assert result.terminal_reason == "completed"
    # The CLI ended by itself once stdin was closed after the result.
    assert stream.session is not None and stream.session.transport is not None
    assert stream.session.transport.returncode == 0

    (turn,) = fake_api.turn_requests()
    assert turn.last_user_text.endswith("What is 2 + 2?")
    (assistant,) = [m for m in messages if isinstance(m, AssistantMessage)]
    assert assistant.model == turn.model
    assert assistant.session_id == result.session_id == messages[0].init.session_id
    fake_api.assert_no_surprises()


def test_bash_tool_call_really_runs_in_the_cwd(
    fake_api: FakeAnthropicAPI, e2e_options: Any, e2e_workdir: Path
) -> None:
    touch = tool_use(
        "Bash", {"command": "touch made_by_bash.txt", "description": "Create a marker file"}
    )
    (tool_id,) = touch.tool_use_ids

    def after_tool(request: ApiRequest) -> Any:
        return text("file made") if request.tool_results else text("no tool result?")

    fake_api.add(touch, after_tool)
    messages = list(query("make the file", options=e2e_options(allowed_tools=["Bash"])))

    assert (e2e_workdir / "made_by_bash.txt").is_file()
    tool_uses = [
        block
        for m in messages
        if isinstance(m, AssistantMessage)
        for block in m.content
        if isinstance(block, ToolUseBlock)
    ]
    assert [(b.id, b.name, b.input["command"]) for b in tool_uses] == [
        (tool_id, "Bash", "touch made_by_bash.txt")
    ]
    tool_results = [
        block
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]
    assert [(b.tool_use_id, bool(b.is_error)) for b in tool_results] == [(tool_id, False)]
    (result,) = results(messages)
    assert result.subtype == "success" and result.result == "file made"
    assert result.num_turns == 2

    first, second = fake_api.turn_requests()
    assert first.tool_results == []
    assert [(b["tool_use_id"], bool(b.get("is_error"))) for b in second.tool_results] == [
        (tool_id, False)
    ]
    fake_api.assert_no_surprises()


API_FAILURES = [
    # HTTP status, Anthropic error type, AssistantMessage.error
    (401, "authentication_error", "authentication_failed"),
    (500, "api_error", "server_error"),
]


@pytest.mark.parametrize(("status", "error_type", "assistant_error"), API_FAILURES)
def test_api_error_is_yielded_then_raised_as_result_error(
    fake_api: FakeAnthropicAPI,
    e2e_options: Any,
    status: int,
    error_type: str,
    assistant_error: str,
) -> None:
    fake_api.add(error(status, error_type, f"Fake {error_type}"))
    seen: List[Any] = []
    with pytest.raises(ResultError) as caught:
        for message in query("hi", options=e2e_options(env=NO_RETRIES)):
            seen.append(message)

    (assistant,) = [m for m in seen if isinstance(m, AssistantMessage)]
    assert assistant.error == assistant_error
    assert assistant.model == "<synthetic>"
    assert f"Fake {error_type}" in texts([assistant])[0]
    # The ResultMessage was yielded before the error was raised, and was the last message.
    result = seen[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and result.is_error is True
    assert result.api_error_status == status
    assert result.result == texts([assistant])[0]

    exc = caught.value
    assert exc.api_error_status == status
    assert exc.subtype == "success"
    assert exc.result == result.result
    assert exc.data == result.raw
    assert exc.exit_code == 1
    assert len(fake_api.turn_requests()) == 1  # CLAUDE_CODE_MAX_RETRIES=0: no retry
    fake_api.assert_no_surprises()


@pytest.mark.parametrize(("status", "error_type", "assistant_error"), API_FAILURES)
def test_api_error_is_only_data_without_raise_on_error_result(
    fake_api: FakeAnthropicAPI,
    e2e_options: Any,
    status: int,
    error_type: str,
    assistant_error: str,
) -> None:
    fake_api.add(error(status, error_type, f"Fake {error_type}"))
    options = e2e_options(env=NO_RETRIES, raise_on_error_result=False)
    with query("hi", options=options) as stream:
        messages = list(stream)  # no ResultError
    assert [m.error for m in messages if isinstance(m, AssistantMessage)] == [assistant_error]
    (result,) = results(messages)
    assert result.is_error is True and result.api_error_status == status
    assert stream.session is not None and stream.session.transport is not None
    assert stream.session.transport.returncode == 1  # the CLI's exit code after an error result
    fake_api.assert_no_surprises()


def test_a_850_kb_answer_arrives_whole_with_its_result(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    big = large_text(850 * 1024)
    fake_api.add(big)
    with query("say a lot", options=e2e_options()) as stream:
        messages = list(stream)
    # Stdin stays open until the result is read, so nothing is cut off (docs/protocol/REAL_CLI_2.1.197.md §6, 11a).
    assert texts(messages) == [big.full_text]
    (result,) = results(messages)
    assert result.is_error is False and result.result == big.full_text
    assert stream.session is not None and stream.session.transport is not None
    assert stream.session.transport.returncode == 0
    fake_api.assert_no_surprises()


def test_streamed_prompt_iterable_gives_one_result_per_user_message(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text("answer one"), text("answer two"))
    first_result_seen = threading.Event()
    second_prompt_waited: List[bool] = []

    def prompts() -> Iterator[Dict[str, Any]]:
        yield user("first prompt")
        # The iterable is consumed lazily on its own thread: the second prompt is produced
        # only after the consumer saw the first result.
        second_prompt_waited.append(first_result_seen.wait(60))
        yield user("second prompt")

    messages: List[Any] = []
    for message in query(prompts(), options=e2e_options()):
        messages.append(message)
        if isinstance(message, ResultMessage):
            first_result_seen.set()

    assert second_prompt_waited == [True]
    assert [r.result for r in results(messages)] == ["answer one", "answer two"]
    assert all(r.subtype == "success" for r in results(messages))
    assert [r.last_user_text.split("\n")[-1] for r in fake_api.turn_requests()] == [
        "first prompt",
        "second prompt",
    ]
    # Wire fact (2.1.197): a system/init line precedes every turn, not only the first.
    assert sum(is_init(m) for m in messages) == 2
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- early exits


def test_break_after_the_first_message_reaps_the_cli_at_once(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text(" ".join(f"word{i}" for i in range(100)), delay=0.2))
    before = child_pids()
    first = None
    for message in query("talk slowly", options=e2e_options()):
        assert len(child_pids()) == len(before) + 1  # the CLI runs while we iterate
        first = message
        break
    # The generator was finalised by the break itself: the CLI is gone, no grace period.
    assert child_pids() == before
    assert is_init(first)
    fake_api.assert_no_surprises(script_consumed=False)


def test_leaving_a_with_block_early_closes_the_session(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    fake_api.add(text(" ".join(f"word{i}" for i in range(100)), delay=0.2))
    with query("talk slowly", options=e2e_options()) as stream:
        for message in stream:
            assert is_init(message)
            break
    session = stream.session
    assert session is not None and session.closed
    assert session.transport is not None and session.transport.returncode is not None
    fake_api.assert_no_surprises(script_consumed=False)


# ----------------------------------------------------------------------------- partial messages


def test_include_partial_messages_yields_stream_events(
    fake_api: FakeAnthropicAPI, e2e_options: Any
) -> None:
    answer = "streamed in several small pieces"
    fake_api.add(text(answer, chunk_size=5))
    messages = list(query("stream it", options=e2e_options(include_partial_messages=True)))

    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    kinds = [event["type"] for event in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "ping" not in kinds  # the CLI does not forward pings
    deltas = [e["delta"]["text"] for e in events if e["type"] == "content_block_delta"]
    assert len(deltas) == len(answer) // 5 + 1 and "".join(deltas) == answer
    (message_delta,) = [e for e in events if e["type"] == "message_delta"]
    assert message_delta["delta"]["stop_reason"] == "end_turn"
    # The whole assistant line for a block comes before that block's content_block_stop.
    order = [
        "assistant" if isinstance(m, AssistantMessage) else m.event["type"]
        for m in messages
        if isinstance(m, (AssistantMessage, StreamEvent))
    ]
    assert order.index("assistant") < order.index("content_block_stop")
    assert texts(messages) == [answer]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == answer
    fake_api.assert_no_surprises()
