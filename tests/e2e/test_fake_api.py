"""The fake Anthropic API and the hermetic harness: unit tests without the CLI, then e2e tests
that drive the real ``claude`` binary (stream-json over a subprocess) against the fake."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from claude_sync.testing.fake_api import (
    CANNED_SIDE_REPLIES,
    EXHAUSTED_TEXT,
    ApiRequest,
    FakeAnthropicAPI,
    assemble_message,
    chunk_text,
    classify,
    error,
    format_sse,
    large_text,
    make_large_text,
    parse_sse,
    reply,
    reply_events,
    text,
    thinking,
    tool_use,
)

from . import harness
from .harness import (
    FAKE_API_KEY,
    StreamJsonCli,
    cli_is_at_least,
    cli_version,
    control_request,
    hermetic_env,
    is_response_to,
    require_test_cli,
    texts_of,
    user_message,
)

# ============================================================================ helpers


def fake_api_threads() -> List[str]:
    return [
        t.name for t in threading.enumerate() if t.name.startswith("fake_api-") and t.is_alive()
    ]


def post(
    api: FakeAnthropicAPI,
    path: str,
    body: Any,
    connection: Optional[http.client.HTTPConnection] = None,
) -> Tuple[int, Dict[str, str], bytes]:
    """POST JSON to the fake; returns (status, lower-cased headers, body)."""
    own = connection is None
    conn = connection or http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    try:
        conn.request(
            "POST", path, body=json.dumps(body), headers={"content-type": "application/json"}
        )
        response = conn.getresponse()
        payload = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
    finally:
        if own:
            conn.close()


def messages_body(
    user_text: str = "hi", *, system: str = "You are a test.", model: str = "claude-test"
) -> Dict[str, Any]:
    return {
        "model": model,
        "stream": True,
        "system": [{"type": "text", "text": system}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": user_text}]}],
        "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
    }


def streamed_message(api: FakeAnthropicAPI, body: Dict[str, Any]) -> Dict[str, Any]:
    status, headers, payload = post(api, "/v1/messages?beta=true", body)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    return assemble_message(parse_sse(payload))


# ============================================================================ unit: SSE encoding


def event_names(answer: Any) -> List[str]:
    return [name for name, _ in reply_events(answer, model="m", message_id="msg_1", input_tokens=3)]


def test_text_reply_events_follow_the_messages_stream_order() -> None:
    assert event_names(text("hello")) == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_every_event_carries_its_own_name_as_type() -> None:
    for name, data in reply_events(
        reply(thinking("t"), text("x"), tool_use("Bash", {})),
        model="m",
        message_id="i",
        input_tokens=1,
    ):
        assert data["type"] == name


@pytest.mark.parametrize(
    ("answer", "expected_content", "stop_reason"),
    [
        (text("hello world"), [{"type": "text", "text": "hello world"}], "end_turn"),
        (
            tool_use("Bash", {"command": "touch x"}, id="toolu_1"),
            [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "touch x"},
                }
            ],
            "tool_use",
        ),
        (
            reply(thinking("hmm", signature="sig-1"), text("answer")),
            [
                {"type": "thinking", "thinking": "hmm", "signature": "sig-1"},
                {"type": "text", "text": "answer"},
            ],
            "end_turn",
        ),
        (
            reply(text("running it"), tool_use("Bash", {"command": "ls"}, id="toolu_2")),
            [
                {"type": "text", "text": "running it"},
                {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}},
            ],
            "tool_use",
        ),
        (
            reply(text("cut"), stop_reason="max_tokens"),
            [{"type": "text", "text": "cut"}],
            "max_tokens",
        ),
    ],
)
def test_reply_events_assemble_back_into_the_scripted_message(
    answer: Any, expected_content: List[Dict[str, Any]], stop_reason: str
) -> None:
    events = list(reply_events(answer, model="claude-x", message_id="msg_9", input_tokens=7))
    message = assemble_message(events)
    assert message["content"] == expected_content
    assert message["stop_reason"] == stop_reason
    assert message["id"] == "msg_9"
    assert message["model"] == "claude-x"
    assert message["usage"]["input_tokens"] == 7
    assert message["usage"]["output_tokens"] >= 1


def test_tool_input_is_streamed_as_partial_json_pieces() -> None:
    big_input = {"command": "echo " + "y" * 20000}
    events = list(
        reply_events(tool_use("Bash", big_input, id="t"), model="m", message_id="i", input_tokens=1)
    )
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert len(deltas) > 1
    assert {delta["type"] for delta in deltas} == {"input_json_delta"}
    assert json.loads("".join(delta["partial_json"] for delta in deltas)) == big_input


def test_thinking_block_ends_with_a_signature_delta() -> None:
    events = list(
        reply_events(thinking("a b", signature="sig"), model="m", message_id="i", input_tokens=1)
    )
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert [delta["type"] for delta in deltas] == ["thinking_delta", "signature_delta"]
    assert deltas[-1]["signature"] == "sig"


@pytest.mark.parametrize(
    ("content", "chunk_size", "slow", "expected"),
    [
        ("one two three", None, True, ["one ", "two ", "three"]),
        ("one two three", None, False, ["one two three"]),
        ("abcdefg", 3, False, ["abc", "def", "g"]),
        ("abcdefg", 3, True, ["abc", "def", "g"]),
        ("", None, False, [""]),
        ("single", None, True, ["single"]),
    ],
)
def test_chunk_text(
    content: str, chunk_size: Optional[int], slow: bool, expected: List[str]
) -> None:
    assert chunk_text(content, chunk_size, slow=slow) == expected


def test_format_and_parse_sse_round_trip() -> None:
    frames = format_sse("message_stop", {"type": "message_stop"}) + format_sse(
        "ping", {"type": "ping", "n": "a\nb"}
    )
    assert frames.startswith(b"event: message_stop\ndata: {")
    assert parse_sse(frames) == [
        ("message_stop", {"type": "message_stop"}),
        ("ping", {"type": "ping", "n": "a\nb"}),
    ]


def test_make_large_text_has_the_exact_size() -> None:
    assert len(make_large_text(850 * 1024)) == 850 * 1024
    assert make_large_text(60).startswith("fake api large text line 0000000\n")
    assert large_text(100).full_text == make_large_text(100)


def test_tool_use_makes_a_fresh_id_unless_given() -> None:
    first, second = tool_use("Bash", {}), tool_use("Bash", {})
    assert first.tool_use_ids != second.tool_use_ids
    assert first.tool_use_ids[0].startswith("toolu_")
    assert tool_use("Bash", {}, id="toolu_x").tool_use_ids == ["toolu_x"]


# ============================================================================ unit: classification


def body_with(
    *, user: str = "hello", system: str = "You are Claude Code.", trailing_system: bool = False
) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": user}]}]
    if trailing_system:
        messages.append({"role": "system", "content": "agent list"})
    return {"model": "m", "system": [{"type": "text", "text": system}], "messages": messages}


@pytest.mark.parametrize(
    ("method", "path", "body", "kind"),
    [
        ("HEAD", "/", None, "preflight"),
        ("POST", "/v1/messages/count_tokens", {"messages": []}, "count_tokens"),
        ("POST", "/v1/messages", body_with(), "turn"),
        ("POST", "/v1/messages", body_with(trailing_system=True), "turn"),
        (
            "POST",
            "/v1/messages",
            body_with(
                user="[SUGGESTION MODE]\nReply with ONLY the suggestion, no quotes or explanation."
            ),
            "side:prompt_suggestion",
        ),
        (
            "POST",
            "/v1/messages",
            body_with(system="Generate a concise, sentence-case title (3-7 words) that captures"),
            "side:session_title",
        ),
        (
            "POST",
            "/v1/messages",
            body_with(
                user="<system-reminder>Simply answer the question with the information you have."
                "</system-reminder>\n\nwhy?",
                trailing_system=True,
            ),
            "side:side_question",
        ),
        (
            "POST",
            "/v1/messages",
            body_with(
                user="CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\n- Do NOT use Read"
            ),
            "side:compact",
        ),
        ("POST", "/v1/complete", {}, "other"),
        ("GET", "/v1/models", None, "other"),
        ("POST", "/v1/messages", None, "other"),
    ],
)
def test_classify(method: str, path: str, body: Any, kind: str) -> None:
    assert classify(method, path, body) == kind


def test_request_accessors_read_the_last_user_message_even_before_a_trailing_system_one() -> None:
    body = {
        "model": "claude-opus-4-8",
        "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "tools": [{"name": "Bash"}, {"name": "Read"}],
        "messages": [
            {"role": "user", "content": "first"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "ok",
                        "is_error": False,
                    },
                    {"type": "text", "text": "and more"},
                ],
            },
            {"role": "system", "content": "mid-conversation system text"},
        ],
    }
    request = ApiRequest(0, "POST", "/v1/messages", {}, {}, body, 0, 0.0)
    assert request.model == "claude-opus-4-8"
    assert request.system_text == "a\nb"
    assert request.tool_names == ["Bash", "Read"]
    assert request.last_user_text == "and more"
    assert [block["tool_use_id"] for block in request.tool_results] == ["t1"]


# ============================================================================ unit: the HTTP server


def test_head_preflight_answers_200_and_is_recorded() -> None:
    with FakeAnthropicAPI() as api:
        conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
        try:
            conn.request("HEAD", "/")
            response = conn.getresponse()
            response.read()
        finally:
            conn.close()
        assert response.status == 200
        assert [(r.kind, r.method, r.path) for r in api.requests()] == [("preflight", "HEAD", "/")]


def test_messages_stream_plays_the_script_in_order_and_records_the_body() -> None:
    script = [text("one"), tool_use("Bash", {"command": "ls"}, id="toolu_a")]
    with FakeAnthropicAPI(script) as api:
        first = streamed_message(api, messages_body("first", model="claude-opus-4-8"))
        second = streamed_message(api, messages_body("second"))
        assert first["content"] == [{"type": "text", "text": "one"}]
        assert first["model"] == "claude-opus-4-8"
        assert second["content"][0]["id"] == "toolu_a"
        assert second["stop_reason"] == "tool_use"
        turns = api.turn_requests()
        assert [t.last_user_text for t in turns] == ["first", "second"]
        assert turns[0].query == {"beta": ["true"]}
        assert turns[0].tool_names == ["Bash"]
        assert all(t.finished and not t.aborted for t in turns)
        assert turns[0].answer == "scripted reply[text]"
        api.assert_no_surprises()


def test_stream_uses_chunked_encoding_and_keeps_the_connection_alive() -> None:
    with FakeAnthropicAPI([text("a"), text("b")]) as api:
        conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
        try:
            _, headers, first = post(api, "/v1/messages", messages_body(), conn)
            _, _, second = post(api, "/v1/messages", messages_body(), conn)
        finally:
            conn.close()
        assert headers["transfer-encoding"] == "chunked"
        assert assemble_message(parse_sse(first))["content"][0]["text"] == "a"
        assert assemble_message(parse_sse(second))["content"][0]["text"] == "b"


def test_count_tokens_answers_input_tokens() -> None:
    with FakeAnthropicAPI([text("not consumed")]) as api:
        status, headers, payload = post(
            api, "/v1/messages/count_tokens?beta=true", messages_body("x" * 400)
        )
        assert status == 200
        assert headers["content-type"] == "application/json"
        assert json.loads(payload)["input_tokens"] > 100
        assert api.remaining() == 1
        assert api.requests()[0].kind == "count_tokens"


@pytest.mark.parametrize(
    ("answer", "status", "header", "header_value"),
    [
        (error(401, "authentication_error", "bad key"), 401, "retry-after", None),
        (error(429, "rate_limit_error", "slow down", retry_after=1), 429, "retry-after", "1"),
        (
            error(500, "api_error", "boom", headers={"x-should-retry": "false"}),
            500,
            "x-should-retry",
            "false",
        ),
        (error(529, "overloaded_error", "busy", retry_after=2.5), 529, "retry-after", "2.5"),
    ],
)
def test_error_replies_carry_status_anthropic_body_and_headers(
    answer: Any, status: int, header: str, header_value: Optional[str]
) -> None:
    with FakeAnthropicAPI([answer]) as api:
        got_status, headers, payload = post(api, "/v1/messages?beta=true", messages_body())
        assert got_status == status
        assert json.loads(payload) == {
            "type": "error",
            "error": {"type": answer.error_type, "message": answer.message},
        }
        assert headers.get(header) == header_value
        assert api.turn_requests()[0].answer == f"scripted error[{status} {answer.error_type}]"


@pytest.mark.parametrize("side", sorted(set(CANNED_SIDE_REPLIES) - {"model_check"}))
def test_side_requests_get_canned_replies_without_consuming_the_script(side: str) -> None:
    bodies = {
        "prompt_suggestion": body_with(
            user="Reply with ONLY the suggestion, no quotes or explanation."
        ),
        "session_title": body_with(system="Generate a concise, sentence-case title (3-7 words)"),
        "side_question": body_with(
            user="Simply answer the question with the information you have.\n\nq?"
        ),
        "compact": body_with(user="CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."),
    }
    with FakeAnthropicAPI([text("scripted turn")]) as api:
        message = streamed_message(api, bodies[side])
        canned = CANNED_SIDE_REPLIES[side].full_text
        assert message["content"] == [{"type": "text", "text": canned}]
        assert api.remaining() == 1
        assert [r.kind for r in api.side_requests()] == [f"side:{side}"]
        assert streamed_message(api, body_with())["content"][0]["text"] == "scripted turn"
        api.assert_no_surprises()


def test_the_one_token_model_check_gets_a_whole_json_message() -> None:
    """CLI 2.1.330 checks a model after ``set_model`` with a non-streamed 1-token request
    ("Hi"); it reads ``usage`` from the JSON body. It must not use up a scripted turn."""
    body = dict(body_with(user="Hi"), max_tokens=1)
    with FakeAnthropicAPI([text("scripted turn")]) as api:
        status, headers, payload = post(api, "/v1/messages?beta=true", body)
        assert status == 200 and headers["content-type"].startswith("application/json")
        message = json.loads(payload)
        assert message["type"] == "message" and message["model"] == "m"
        assert message["content"] == [{"type": "text", "text": "H"}]
        assert message["usage"]["input_tokens"] > 0 and message["stop_reason"] == "end_turn"
        assert api.remaining() == 1
        assert [r.kind for r in api.side_requests()] == ["side:model_check"]
        api.assert_no_surprises(script_consumed=False)


def test_side_replies_can_be_overridden() -> None:
    with FakeAnthropicAPI(side_replies={"session_title": text('{"title": "Custom"}')}) as api:
        message = streamed_message(api, body_with(system="Generate a concise, sentence-case title"))
        assert message["content"][0]["text"] == '{"title": "Custom"}'


def test_exhausted_script_answers_the_default_and_is_reported() -> None:
    with FakeAnthropicAPI() as api:
        assert (
            streamed_message(api, body_with(user="unexpected"))["content"][0]["text"]
            == EXHAUSTED_TEXT
        )
        assert [r.last_user_text for r in api.exhausted_requests()] == ["unexpected"]
        with pytest.raises(AssertionError, match="found the script empty"):
            api.assert_no_surprises()


def test_leftover_script_and_unknown_paths_are_surprises() -> None:
    with FakeAnthropicAPI([text("never asked")]) as api:
        status, _, payload = post(api, "/v1/other", {})
        assert status == 404
        assert json.loads(payload)["error"]["type"] == "not_found_error"
        with pytest.raises(AssertionError) as raised:
            api.assert_no_surprises()
        assert "unexpected request #0: POST /v1/other" in str(raised.value)
        assert "1 scripted replies were never requested" in str(raised.value)
        with pytest.raises(AssertionError) as raised:
            api.assert_no_surprises(script_consumed=False)
        assert "never requested" not in str(raised.value)


def test_callable_script_item_decides_from_the_request() -> None:
    def after_tool(request: ApiRequest) -> Any:
        return text("saw a tool result") if request.tool_results else text("no tool result")

    tool_result_body = body_with()
    tool_result_body["messages"][-1]["content"] = [
        {"type": "tool_result", "tool_use_id": "t", "content": "ok"}
    ]
    with FakeAnthropicAPI([after_tool, after_tool]) as api:
        assert streamed_message(api, tool_result_body)["content"][0]["text"] == "saw a tool result"
        assert streamed_message(api, body_with())["content"][0]["text"] == "no tool result"
        assert api.turn_requests()[0].answer == "scripted reply[text]"


def test_responder_answers_when_the_script_is_empty() -> None:
    def responder(request: ApiRequest) -> Any:
        return error(500, "api_error", "x") if "fail" in request.last_user_text else None

    with FakeAnthropicAPI([text("scripted")], responder=responder) as api:
        assert streamed_message(api, body_with(user="a"))["content"][0]["text"] == "scripted"
        assert post(api, "/v1/messages", body_with(user="please fail"))[0] == 500
        assert streamed_message(api, body_with(user="b"))["content"][0]["text"] == EXHAUSTED_TEXT
        assert [r.answer for r in api.turn_requests()] == [
            "scripted reply[text]",
            "responder error[500 api_error]",
            "exhausted",
        ]


def test_a_failing_script_callable_is_reported_as_a_handler_error() -> None:
    def broken(request: ApiRequest) -> Any:
        raise ValueError("bad script item")

    with FakeAnthropicAPI([broken]) as api:
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            post(api, "/v1/messages", body_with())
        assert api.wait_for(lambda _: bool(api.handler_errors()), timeout=5)
        with pytest.raises(AssertionError, match="bad script item"):
            api.assert_no_surprises()


def test_add_appends_to_the_script_and_wait_for_sees_requests() -> None:
    with FakeAnthropicAPI() as api:
        api.add(text("late"))
        assert api.remaining() == 1
        assert not api.wait_for(lambda requests: len(requests) > 0, timeout=0.05)
        client = threading.Thread(
            target=streamed_message, args=(api, body_with()), name="test-client", daemon=True
        )
        client.start()
        try:
            assert api.wait_for(lambda requests: any(r.finished for r in requests), timeout=10)
            assert api.remaining() == 0
        finally:
            client.join(10)


def test_slow_stream_is_recorded_as_aborted_when_the_client_goes_away() -> None:
    slow = text("one two three four five six seven eight", delay=0.2)
    with FakeAnthropicAPI([slow]) as api:
        sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
        try:
            payload = json.dumps(body_with()).encode()
            sock.sendall(
                b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + b"Content-Length: %d\r\n\r\n" % len(payload)
                + payload
            )
            received = b""
            while b"text_delta" not in received:
                received += sock.recv(65536)
        finally:
            sock.close()
        assert api.wait_for(lambda requests: requests[0].aborted, timeout=10)
        assert not api.requests()[0].finished


def test_stop_cuts_a_stream_in_flight_and_joins_every_thread() -> None:
    api = FakeAnthropicAPI([text("a b c d e f g h i j k l m n o p", delay=5.0)]).start()
    sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
    try:
        payload = json.dumps(body_with()).encode()
        sock.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(payload)
            + payload
        )
        assert api.wait_for(lambda requests: len(requests) == 1, timeout=10)
        assert any(name.startswith("fake_api-conn-") for name in fake_api_threads())
        started = time.monotonic()
        api.stop()
        assert time.monotonic() - started < 3.0
    finally:
        sock.close()
    assert fake_api_threads() == []
    api.stop()  # idempotent


def test_server_listens_on_loopback_only_and_closes_its_socket() -> None:
    api = FakeAnthropicAPI().start()
    try:
        assert api.base_url == f"http://127.0.0.1:{api.port}"
        assert fake_api_threads() == ["fake_api-server"]
        port = api.port
    finally:
        api.stop()
    assert fake_api_threads() == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with pytest.raises(RuntimeError):
        _ = api.port


def wait_until_stopped_by_itself(api: FakeAnthropicAPI, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while api.expired is None or fake_api_threads():
        assert time.monotonic() < deadline, "the fake API did not stop by itself"
        time.sleep(0.01)


def test_an_idle_server_stops_by_itself_and_refuses_connections() -> None:
    api = FakeAnthropicAPI(idle_timeout=0.3).start()
    port = api.port
    status, _headers, _body = post(api, "/v1/messages/count_tokens", messages_body())
    assert status == 200
    wait_until_stopped_by_itself(api)
    assert api.expired == "idle 0.3s"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    api.stop()  # still fine afterwards, and idempotent
    api.stop()


def test_a_busy_stream_does_not_count_as_idle_but_the_lifetime_bounds_everything() -> None:
    api = FakeAnthropicAPI([text("a b c d e f g h", delay=0.1)], idle_timeout=0.2).start()
    try:
        status, _headers, body = post(api, "/v1/messages", messages_body())
        assert status == 200 and "message_stop" in body.decode()  # streamed past the idle limit
    finally:
        api.stop()
    api = FakeAnthropicAPI(idle_timeout=None, lifetime=0.3).start()
    wait_until_stopped_by_itself(api)
    assert api.expired == "lifetime 0.3s"
    api.stop()


def test_a_server_whose_responder_raised_still_stops_on_idle() -> None:
    def broken(request: ApiRequest) -> Any:
        raise RuntimeError("responder bug")

    api = FakeAnthropicAPI(responder=broken, idle_timeout=0.3).start()
    try:
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            post(api, "/v1/messages", body_with())
        wait_until_stopped_by_itself(api)
        assert api.expired == "idle 0.3s"
        [request] = api.turn_requests()
        assert request.aborted and "responder bug" in str(request.answer)
        assert any("responder bug" in error for error in api.handler_errors())
    finally:
        api.stop()


@pytest.mark.parametrize("field", ["idle_timeout", "lifetime"])
@pytest.mark.parametrize("value", [0, -1.0])
def test_bad_self_stop_limits_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        FakeAnthropicAPI(**{field: value})


# ============================================================================ unit: harness


def test_hermetic_env_strips_leaky_variables_and_points_at_the_fake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaky = {
        "ANTHROPIC_API_KEY": "sk-real",
        "ANTHROPIC_MODEL": "claude-real",
        "CLAUDECODE": "1",
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_SYNC_TEST_CLI": "/x",
        "AWS_PROFILE": "p",
        "GOOGLE_APPLICATION_CREDENTIALS": "/c",
        "VERTEX_REGION_CLAUDE": "r",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://o",
        "DEBUG": "*",
        "NODE_OPTIONS": "--inspect",
        "HTTPS_PROXY": "http://proxy:1",
        "https_proxy": "http://proxy:1",
        "http_proxy": "http://proxy:1",
        "all_proxy": "socks://proxy:1",
    }
    for name, value in leaky.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("KEEP_ME", "yes")

    env = hermetic_env(
        tmp_path, "http://127.0.0.1:9", CLAUDE_CODE_MAX_RETRIES=0, KEEP_ME=None, EXTRA="e"
    )

    assert [name for name in leaky if name in env] == ["ANTHROPIC_API_KEY"]
    assert env["ANTHROPIC_API_KEY"] == FAKE_API_KEY
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert env["EXTRA"] == "e"
    assert "KEEP_ME" not in env
    home = tmp_path / "home"
    assert env["HOME"] == str(home)
    assert env["CLAUDE_CONFIG_DIR"] == str(home / ".claude")
    for name in (
        "TMPDIR",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_RUNTIME_DIR",
        "CLAUDE_CONFIG_DIR",
    ):
        assert Path(env[name]).is_dir() and home in Path(env[name]).parents
    for flag in harness.QUIET_FLAGS:
        assert env[flag] == "1"
    assert "127.0.0.1" in env["NO_PROXY"] and env["no_proxy"] == env["NO_PROXY"]
    assert env["PATH"]


def test_find_test_cli_prefers_the_env_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_SYNC_TEST_CLI", "/opt/claude")
    assert harness.find_test_cli() == "/opt/claude"
    monkeypatch.delenv("CLAUDE_SYNC_TEST_CLI")
    monkeypatch.setenv("CLAUDE_SYNC_CLI_CACHE", str(tmp_path))
    assert harness.find_test_cli() is None
    binary = tmp_path / harness.PINNED_CLI_VERSION / "node_modules" / ".bin" / "claude"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    assert harness.find_test_cli() == str(binary)


@pytest.mark.parametrize(
    ("ci", "outcome"),
    [("true", pytest.fail.Exception), ("", pytest.skip.Exception), (None, pytest.skip.Exception)],
)
def test_require_test_cli_fails_on_ci_and_skips_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: Optional[str], outcome: Any
) -> None:
    monkeypatch.delenv("CLAUDE_SYNC_TEST_CLI", raising=False)
    monkeypatch.setenv("CLAUDE_SYNC_CLI_CACHE", str(tmp_path))
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="install_cli.sh"):
        require_test_cli()


# ============================================================================ e2e: the real CLI


@pytest.fixture
def cli_path() -> str:
    return require_test_cli()


@contextmanager
def running_cli(
    cli: str,
    api: FakeAnthropicAPI,
    tmp_path: Path,
    *args: str,
    init: Optional[Dict[str, Any]] = None,
    **env_extra: Any,
) -> Iterator[StreamJsonCli]:
    """The real CLI in ``tmp_path/work`` against ``api``, initialized; always ended by PID."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = hermetic_env(tmp_path, api.base_url, **env_extra)
    with StreamJsonCli(cli, env, work, args) as process:
        response = process.initialize(**(init or {}))
        assert response["response"]["subtype"] == "success", response
        yield process


def finish(process: StreamJsonCli) -> int:
    """Close stdin after the last result and return the exit code (the CLI must exit by itself)."""
    process.close_stdin()
    code = process.wait(20.0)
    assert code is not None, "CLI did not exit after stdin closed"
    return code


@pytest.mark.e2e
def test_text_answer_arrives_as_assistant_and_success_result(cli_path: str, tmp_path: Path) -> None:
    with FakeAnthropicAPI([text("hello from the fake")]) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("hi"))
            result = cli.read_result()
            assert finish(cli) == 0
        assistants = cli.lines_of("assistant")
        assert [texts_of(line) for line in assistants] == [["hello from the fake"]]
        # the CLI's default model (no --model): it changes with the CLI version
        default_model = "claude-opus-5-5" if cli_is_at_least(cli_path, "2.1.330") else "claude-opus-4-8"
        assert assistants[0]["message"]["model"] == default_model
        assert result["subtype"] == "success" and result["is_error"] is False
        assert result["result"] == "hello from the fake"
        assert result["num_turns"] == 1
        assert cli.non_json_lines == []

        kinds = [r.kind for r in api.requests()]
        assert kinds.count("turn") == 1
        if not cli_is_at_least(cli_path, "2.1.330"):  # 2.1.330 makes no HEAD preflight
            assert kinds[0] == "preflight"
        turn = api.turn_requests()[0]
        assert turn.path == "/v1/messages" and turn.query == {"beta": ["true"]}
        assert turn.model == default_model
        assert turn.body["stream"] is True
        assert turn.headers["x-api-key"] == FAKE_API_KEY
        assert turn.headers["x-app"] == "cli"
        version = ".".join(map(str, cli_version(cli_path)))
        assert turn.headers["user-agent"].startswith(f"claude-cli/{version} ")
        assert "Bash" in turn.tool_names
        assert turn.last_user_text.endswith("hi")
        api.assert_no_surprises()


@pytest.mark.e2e
def test_no_api_call_is_made_before_the_first_user_message(cli_path: str, tmp_path: Path) -> None:
    with FakeAnthropicAPI() as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            assert finish(cli) == 0
        assert [r.kind for r in api.requests()] in ([], ["preflight"])
        assert cli.lines_of("system", "init") == []


@pytest.mark.e2e
def test_bash_tool_use_creates_the_file_and_a_second_reply_ends_the_turn(
    cli_path: str, tmp_path: Path
) -> None:
    touch = tool_use(
        "Bash", {"command": "touch created_by_fake.txt", "description": "Create a file"}
    )
    (tool_id,) = touch.tool_use_ids

    def after_tool(request: ApiRequest) -> Any:
        return text("file created") if request.tool_results else text("tool result missing")

    with FakeAnthropicAPI([touch, after_tool]) as api:
        with running_cli(cli_path, api, tmp_path, "--allowedTools", "Bash") as cli:
            cli.send(user_message("create the file"))
            result = cli.read_result()
            assert finish(cli) == 0
        assert (tmp_path / "work" / "created_by_fake.txt").is_file()
        assert result["subtype"] == "success" and result["result"] == "file created"
        assert result["num_turns"] == 2
        tool_result_lines = [
            block
            for line in cli.lines_of("user")
            for block in line["message"]["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        assert [(b["tool_use_id"], b["is_error"]) for b in tool_result_lines] == [(tool_id, False)]

        second = api.turn_requests()[1]
        assert [(b["tool_use_id"], b.get("is_error")) for b in second.tool_results] == [
            (tool_id, False)
        ]
        api.assert_no_surprises()


API_ERRORS = [
    # status, Anthropic error type, the CLI's assistant `error` value
    (401, "authentication_error", "authentication_failed"),
    (500, "api_error", "server_error"),
    (529, "overloaded_error", "server_error"),
    (429, "rate_limit_error", "rate_limit"),
    (400, "invalid_request_error", "unknown"),
]


@pytest.mark.e2e
@pytest.mark.parametrize(("status", "error_type", "cli_error"), API_ERRORS)
def test_api_error_without_retries_gives_an_error_assistant_and_an_is_error_result(
    cli_path: str, tmp_path: Path, status: int, error_type: str, cli_error: str
) -> None:
    # CLI 2.1.330 answers a 400 by trying again without one of its betas at a time (6 requests
    # in all, even with CLAUDE_CODE_MAX_RETRIES=0); the fake answers each with the same 400.
    newer_400 = status == 400 and cli_is_at_least(cli_path, "2.1.330")
    scripted = 10 if newer_400 else 1
    with FakeAnthropicAPI([error(status, error_type, f"Fake {error_type}")] * scripted) as api:
        with running_cli(cli_path, api, tmp_path, CLAUDE_CODE_MAX_RETRIES=0) as cli:
            cli.send(user_message("hi"))
            result = cli.read_result()
            assert finish(cli) == 1
        attempts = len(api.turn_requests())
        assert 2 <= attempts < scripted if newer_400 else attempts == 1  # MAX_RETRIES=0
        assert cli.lines_of("system", "api_retry") == []
        (assistant,) = cli.lines_of("assistant")
        assert assistant["error"] == cli_error
        assert assistant["message"]["model"] == "<synthetic>"
        assert f"Fake {error_type}" in texts_of(assistant)[0]
        assert result["subtype"] == "success" and result["is_error"] is True
        assert result["api_error_status"] == status
        assert result["result"] == texts_of(assistant)[0]
        api.assert_no_surprises(script_consumed=not newer_400)


@pytest.mark.e2e
def test_max_retries_bounds_the_retries_of_a_server_error(cli_path: str, tmp_path: Path) -> None:
    failure = error(500, "api_error", "Fake internal error")
    with FakeAnthropicAPI([failure, failure]) as api:
        with running_cli(cli_path, api, tmp_path, CLAUDE_CODE_MAX_RETRIES=1) as cli:
            cli.send(user_message("hi"))
            result = cli.read_result()
            assert finish(cli) == 1
        retries = cli.lines_of("system", "api_retry")
        assert [
            (r["attempt"], r["max_retries"], r["error_status"], r["error"]) for r in retries
        ] == [(1, 1, 500, "server_error")]
        turns = api.turn_requests()
        assert len(turns) == 2
        assert (
            turns[1].received_at - turns[0].received_at >= retries[0]["retry_delay_ms"] / 1000 * 0.9
        )
        assert result["is_error"] is True and result["api_error_status"] == 500
        api.assert_no_surprises()


@pytest.mark.e2e
def test_rate_limit_with_retry_after_is_retried_then_succeeds(
    cli_path: str, tmp_path: Path
) -> None:
    with FakeAnthropicAPI(
        [error(429, "rate_limit_error", "slow down", retry_after=1), text("after the wait")]
    ) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("hi"))
            result = cli.read_result()
            assert finish(cli) == 0
        (retry,) = cli.lines_of("system", "api_retry")
        assert retry["error_status"] == 429
        if cli_is_at_least(cli_path, "2.1.330"):  # honours retry-after, adds some jitter
            assert 1000 <= retry["retry_delay_ms"] < 2000, retry
        else:
            assert retry["retry_delay_ms"] == 1000
        assert result["is_error"] is False and result["result"] == "after the wait"
        first, second = api.turn_requests()
        assert second.received_at - first.received_at >= 0.9
        api.assert_no_surprises()


@pytest.mark.e2e
def test_side_requests_do_not_consume_scripted_turns(cli_path: str, tmp_path: Path) -> None:
    script = [text("first answer"), text("second answer"), text("third answer")]
    with FakeAnthropicAPI(script) as api:
        with running_cli(cli_path, api, tmp_path, init={"promptSuggestions": True}) as cli:
            results = []
            for prompt in ("one", "two"):
                cli.send(user_message(prompt))
                results.append(cli.read_result()["result"])
            # From the second turn on (two assistant messages) the CLI asks for a suggestion.
            suggestion = cli.read_until(lambda line: line.get("type") == "prompt_suggestion", 20)
            cli.send(
                control_request(
                    "title-1", "generate_session_title", description="make a file", persist=False
                )
            )
            title = cli.read_until(lambda line: is_response_to(line, "title-1"), 30)
            cli.send(control_request("side-1", "side_question", question="what did you do?"))
            side = cli.read_until(lambda line: is_response_to(line, "side-1"), 30)
            cli.send(user_message("three"))
            results.append(cli.read_result()["result"])
            cli.send(user_message("/compact"))
            compact = cli.read_result()
            assert finish(cli) == 0

        assert results == ["first answer", "second answer", "third answer"]
        assert suggestion["suggestion"] == "run the tests"
        assert title["response"]["response"] == {"title": "Fake session title"}
        assert side["response"]["response"]["response"] == "(fake api: side answer)"
        assert compact["is_error"] is False and compact["num_turns"] == 0
        assert [
            line.get("compact_result")
            for line in cli.lines_of("system", "status")
            if "compact_result" in line
        ] == ["success"]
        sides = {r.kind for r in api.side_requests()}
        assert sides == {
            "side:prompt_suggestion",
            "side:session_title",
            "side:side_question",
            "side:compact",
        }
        assert [r.last_user_text.split()[-1] for r in api.turn_requests()] == [
            "one",
            "two",
            "three",
        ]
        api.assert_no_surprises()


@pytest.mark.e2e
def test_interrupt_lands_mid_stream_and_the_next_turn_works(cli_path: str, tmp_path: Path) -> None:
    slow = text("alpha beta gamma delta epsilon zeta eta theta iota kappa", delay=0.25)
    with FakeAnthropicAPI([slow, text("next turn fine")]) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("talk slowly"))
            assert api.wait_for(lambda requests: any(r.kind == "turn" for r in requests), 20)
            time.sleep(0.8)
            cli.send(control_request("int-1", "interrupt"))
            interrupted = cli.read_result()
            cli.send(user_message("again"))
            after = cli.read_result()
            assert finish(cli) == 0
        assert (
            interrupted["subtype"] == "error_during_execution" and interrupted["is_error"] is True
        )
        partial = texts_of(cli.lines_of("assistant")[0])[0]
        assert partial and slow.full_text.startswith(partial) and partial != slow.full_text
        assert after["subtype"] == "success" and after["result"] == "next turn fine"
        first = api.turn_requests()[0]
        assert api.wait_for(lambda requests: requests[first.index].aborted, 5)
        api.assert_no_surprises()


@pytest.mark.e2e
def test_thinking_and_text_blocks_of_one_reply(cli_path: str, tmp_path: Path) -> None:
    with FakeAnthropicAPI(
        [reply(thinking("let me think", signature="sig-e2e"), text("thought it through"))]
    ) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("think"))
            result = cli.read_result()
            assert finish(cli) == 0
        blocks = [line["message"]["content"] for line in cli.lines_of("assistant")]
        assert blocks == [
            [{"type": "thinking", "thinking": "let me think", "signature": "sig-e2e"}],
            [{"type": "text", "text": "thought it through"}],
        ]
        assert len({line["message"]["id"] for line in cli.lines_of("assistant")}) == 1
        assert result["result"] == "thought it through"
        api.assert_no_surprises()


@pytest.mark.e2e
def test_a_850_kb_text_arrives_whole(cli_path: str, tmp_path: Path) -> None:
    big = large_text(850 * 1024)
    with FakeAnthropicAPI([big]) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("say a lot"))
            result = cli.read_result()
            assert finish(cli) == 0
        assert result["result"] == big.full_text
        api.assert_no_surprises()


@pytest.mark.e2e
def test_context_usage_is_answered_through_count_tokens(cli_path: str, tmp_path: Path) -> None:
    with FakeAnthropicAPI([text("short")]) as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("hi"))
            cli.read_result()
            cli.send(control_request("ctx-1", "get_context_usage"))
            usage = cli.read_until(lambda line: is_response_to(line, "ctx-1"), 30)
            assert finish(cli) == 0
        assert usage["response"]["subtype"] == "success"
        assert usage["response"]["response"]["categories"]
        assert len(api.requests("count_tokens")) >= 1
        api.assert_no_surprises()


@pytest.mark.e2e
def test_an_exhausted_script_is_visible_to_the_test(cli_path: str, tmp_path: Path) -> None:
    with FakeAnthropicAPI() as api:
        with running_cli(cli_path, api, tmp_path) as cli:
            cli.send(user_message("nobody scripted this"))
            result = cli.read_result()
            assert finish(cli) == 0
        assert result["result"] == EXHAUSTED_TEXT
        assert len(api.exhausted_requests()) == 1
        with pytest.raises(AssertionError, match="found the script empty"):
            api.assert_no_surprises()
