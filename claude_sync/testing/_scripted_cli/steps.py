"""What each scripted-CLI step does: ``STEP_HANDLERS[op](runner, step)``.

The engine (``interpreter.ScriptRunner``) knows how to read, write, wait and fail; this module
knows what the steps mean. ``script_runner`` binds the two: it is how the in-process
transport and the subprocess CLI start a run.

A handler writes lines through ``runner.send``, reads through ``runner.next_frame`` /
``runner.await_response`` / ``runner.find_frame`` / ``runner.serve_until_input_ends`` (all
raising ``ScriptFailure`` with the step named), and returns ``"stop"`` when the run ends at
this step (crash, exit). Answers the client gave to ``ask_*`` steps are appended to
``runner.report.answers``.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

from . import cli_lines
from .interpreter import Handler, RunReport, ScriptRunner, Wire, check_script_format, new_request_id, user_text
from .match import subset_mismatch
from .queued_runner import QueuedScriptRunner

__all__ = ["STEP_HANDLERS", "script_runner"]

JsonDict = Dict[str, Any]


def script_runner(script: JsonDict, wire: Wire, report: Optional[RunReport] = None,
                  on_change: Optional[Callable[[RunReport], None]] = None, queue: Any = None) -> ScriptRunner:
    """A runner that plays ``script`` (with a ``run_queue.RunQueue``: the runs it hands out)
    over ``wire`` with these steps. Raises ``ValueError`` for a script of another format."""
    check_script_format(script)
    if queue is not None:
        return QueuedScriptRunner(script, wire, STEP_HANDLERS, queue, report, on_change)
    return ScriptRunner(script, wire, STEP_HANDLERS, report, on_change)


# ----------------------------------------------------------------------------- emitting


def _message_id(step: JsonDict) -> str:
    return str(step.get("message_id") or f"msg_scripted_{uuid.uuid4().hex[:20]}")


def _assistant(runner: ScriptRunner, step: JsonDict, block: JsonDict, error: Optional[str] = None) -> None:
    runner.send(cli_lines.assistant_line(
        block, session_id=runner.session_id, model=runner.model, message_id=_message_id(step),
        parent_tool_use_id=step.get("parent_tool_use_id"), error=error,
    ))


def play_text(runner: ScriptRunner, step: JsonDict) -> None:
    runner.note_text(str(step["text"]))
    _assistant(runner, step, {"type": "text", "text": step["text"]})


def play_thinking(runner: ScriptRunner, step: JsonDict) -> None:
    signature = step.get("signature") or f"scripted-signature-{uuid.uuid4().hex[:12]}"
    _assistant(runner, step, {"type": "thinking", "thinking": step["thinking"], "signature": signature})


def play_tool_use(runner: ScriptRunner, step: JsonDict) -> None:
    _assistant(runner, step, {"type": "tool_use", "id": step["id"], "name": step["name"], "input": step["input"]})


def play_tool_result(runner: ScriptRunner, step: JsonDict) -> None:
    block = {"tool_use_id": step["tool_use_id"], "type": "tool_result", "content": step["content"], "is_error": bool(step.get("is_error"))}
    content = step["content"]
    outcome = f"Error: {content}" if step.get("is_error") and isinstance(content, str) else content
    runner.send(cli_lines.user_line([block], session_id=runner.session_id, tool_use_result=outcome))


def play_result(runner: ScriptRunner, step: JsonDict) -> None:
    fields = {k: v for k, v in step.items() if k not in ("op", "timeout")}
    texts = runner.take_texts()
    if fields.get("result") is None and fields.get("subtype", "success") == "success":
        fields["result"] = texts
    fields.setdefault("result", None)
    is_error = bool(fields.get("is_error", False))
    runner.note_result(is_error)
    runner.send(cli_lines.result_line(session_id=runner.session_id, model=runner.model, **fields))


def play_api_error(runner: ScriptRunner, step: JsonDict) -> None:
    """What the real CLI writes when the API fails (no retries left): a synthetic assistant
    with a top-level ``error``, then ``success`` + ``is_error`` + ``api_error_status``."""
    status = int(step.get("status", 401))
    kind = {401: "authentication_failed", 429: "rate_limit", 500: "server_error", 529: "server_error"}.get(status, "unknown")
    text = str(step.get("message") or f"API Error: {status} scripted {kind}")
    line = cli_lines.assistant_line({"type": "text", "text": text}, session_id=runner.session_id, model="<synthetic>",
                                 message_id=str(uuid.uuid4()), error=kind)
    line["message"]["stop_reason"] = "stop_sequence"
    runner.send(line)
    runner.take_texts()
    runner.note_result(True)
    runner.send(cli_lines.result_line(session_id=runner.session_id, model=runner.model, result=text, is_error=True,
                                   api_error_status=status, stop_reason="stop_sequence"))


def play_interrupted(runner: ScriptRunner, step: JsonDict) -> None:
    """How the real CLI ends a turn it was interrupted in: a ``[Request interrupted by
    user…]`` user line, then ``error_during_execution`` (``aborted_streaming`` or, during a
    tool, ``aborted_tools``)."""
    tools = step.get("during") == "tools"
    text = "[Request interrupted by user for tool use]" if tools else "[Request interrupted by user]"
    runner.send(cli_lines.user_line([{"type": "text", "text": text}], session_id=runner.session_id))
    runner.take_texts()
    runner.note_result(True)
    runner.send(cli_lines.result_line(
        session_id=runner.session_id, model=runner.model, result=None, subtype="error_during_execution",
        is_error=True, errors=["[ede_diagnostic] result_type=user last_content_type=n/a"],
        usage={"input_tokens": 0, "output_tokens": 0}, stop_reason=None,
        terminal_reason="aborted_tools" if tools else "aborted_streaming",
    ))


def play_system(runner: ScriptRunner, step: JsonDict) -> None:
    line = {"type": "system", "subtype": step["subtype"], **dict(step.get("data") or {})}
    line.setdefault("session_id", runner.session_id)
    line.setdefault("uuid", str(uuid.uuid4()))
    runner.send(line)


def play_emit(runner: ScriptRunner, step: JsonDict) -> None:
    line = dict(step["line"])
    if line.get("type") == "control_response":  # a replay answering one of the client's requests
        response = dict(line.get("response") or {})
        if "request_id" in response:
            response["request_id"] = runner.live_id(str(response["request_id"]))
        line["response"] = response
    if line.get("type") == "result":
        runner.note_result(bool(line.get("is_error")))
    runner.send(line)


def play_raw(runner: ScriptRunner, step: JsonDict) -> None:
    runner.wire.write(str(step["data"]).encode("utf-8"))


def play_oversized(runner: ScriptRunner, step: JsonDict) -> None:
    size = int(step["size"])
    _assistant(runner, step, {"type": "text", "text": "x" * size})


def play_numbered_texts(runner: ScriptRunner, step: JsonDict) -> None:
    """Assistant text lines "0" … "count-1" (``per_message`` lines share a message id),
    ``batch`` lines per write: a flood whose order and completeness a test can check."""
    count, batch = int(step["count"]), max(1, int(step.get("batch", 64)))
    per_message = max(1, int(step.get("per_message", 1)))
    # one line encoded once, its text, message id and uuid filled in per line (cheap floods)
    line = cli_lines.assistant_line({"type": "text", "text": "\0T"}, session_id=runner.session_id, model=runner.model,
                                 message_id="\0M")
    line["uuid"] = "\0U"
    template = json.dumps(line)
    base = uuid.uuid4().hex[:20]
    for start in range(0, count, batch):
        lines = []
        for i in range(start, min(count, start + batch)):
            runner.note_text(str(i))
            lines.append(template.replace("\\u0000T", str(i)).replace("\\u0000M", f"msg_numbered_{i // per_message}")
                         .replace("\\u0000U", f"{base[:8]}-{base[8:12]}-{base[12:16]}-{base[16:20]}-{i:012x}"))
        runner.wire.write(("\n".join(lines) + "\n").encode("utf-8"))


def play_flood(runner: ScriptRunner, step: JsonDict) -> None:
    """``count`` copies of one assistant text line, 256 lines per write, as fast as the
    client takes them."""
    count, text = int(step["count"]), str(step.get("text", "flood"))
    runner.note_text(text * count)
    line = json.dumps(cli_lines.assistant_line({"type": "text", "text": text}, session_id=runner.session_id,
                                            model=runner.model, message_id=_message_id(step))).encode("utf-8") + b"\n"
    for _ in range(count // 256):
        runner.wire.write(line * 256)
    if count % 256:
        runner.wire.write(line * (count % 256))


def play_ignore_sigterm(runner: ScriptRunner, step: JsonDict) -> None:
    runner.wire.ignore_sigterm()


def play_stderr(runner: ScriptRunner, step: JsonDict) -> None:
    runner.wire.stderr(str(step["text"]))


def play_stall(runner: ScriptRunner, step: JsonDict) -> Optional[str]:
    return "closed" if runner.wire.stall(float(step["seconds"])) else None


def play_crash(runner: ScriptRunner, step: JsonDict) -> str:
    if step.get("stderr"):
        runner.wire.stderr(str(step["stderr"]))
    runner.report.steps_done = runner.report.steps_total  # a crash is where the script ends
    runner.report.exit_code = int(step.get("code", 1))
    return "stop"


# ----------------------------------------------------------------------------- hearing


def _is_user(frame: JsonDict) -> bool:
    return frame.get("type") == "user"


def play_expect_user(runner: ScriptRunner, step: JsonDict) -> None:
    wanted = step.get("content")
    what = "a user message" if wanted is None else f"the user message {wanted!r}"
    frame = runner.next_frame(step, what, _is_user)
    got = user_text(frame)
    if wanted is not None and got != wanted:
        raise runner.fail(f"expected the user message {wanted!r}; got {got!r}")
    _after_user(runner)


def _after_user(runner: ScriptRunner) -> None:
    """The first user message of a run is followed by ``system/init`` (unless turned off)."""
    if runner.note_user() == 1 and runner.settings.get("auto_init", True):
        runner.send(cli_lines.system_init_line(
            runner.session_id, runner.model, str(runner.settings.get("cwd") or os.getcwd()),
            list(runner.settings.get("tools") or cli_lines.DEFAULT_TOOLS),
            _sdk_servers(runner), str(runner.settings.get("permission_mode", "default")),
        ))


def play_echo_turns(runner: ScriptRunner, step: JsonDict) -> None:
    """Answer every user message with ``echo: <its text>`` and a result, until the client
    ends its input (interrupts are answered; any other frame fails the step)."""
    turns = [0]

    def echo(frame: JsonDict) -> bool:
        if not _is_user(frame):
            return False
        turns[0] += 1
        _after_user(runner)
        said = f"echo: {user_text(frame)}"
        runner.take_texts()
        _assistant(runner, {"message_id": f"msg_echo_{turns[0]}"}, {"type": "text", "text": said})
        runner.note_result(False)
        runner.send(cli_lines.result_line(session_id=runner.session_id, model=runner.model, result=said, num_turns=turns[0]))
        return True

    runner.serve_until_input_ends(echo, "echo_turns")


def play_expect_input_open(runner: ScriptRunner, step: JsonDict) -> None:
    if not runner.wire.input_open():
        raise runner.fail("the client has already ended its input (stdin EOF)")


def _sdk_servers(runner: ScriptRunner) -> List[str]:
    init = runner.report.initialize or {}
    return [str(name) for name in (init.get("sdkMcpServers") or [])]


def play_expect_control(runner: ScriptRunner, step: JsonDict) -> None:
    subtype = step["subtype"]
    frame = runner.next_frame(
        step, f"a control_request {subtype!r}",
        lambda f: f.get("type") == "control_request" and (f.get("request") or {}).get("subtype") == subtype,
    )
    request = dict(frame.get("request") or {})
    if step.get("request") is not None:
        problem = subset_mismatch(step["request"], request)
        if problem is not None:
            raise runner.fail(f"the {subtype!r} request differs: {problem} (request: {request})")
    runner.report.answers.append({"step": runner.report.steps_done, "kind": f"control:{subtype}", "answer": request})
    if subtype == "initialize":
        runner.report.initialize = request
    if step.get("hold"):
        runner.held[subtype] = frame
        return
    request_id = str(frame.get("request_id"))
    if subtype == "initialize" and step.get("error") is None:
        runner.send(runner.initialize_answer(request_id, step.get("response")))
        return
    if step.get("error") is not None:
        runner.send(cli_lines.control_error(request_id, str(step["error"])))
        return
    if subtype == "set_model":  # the real CLI first replays the command's output
        model = request.get("model")
        runner.send(cli_lines.user_line(f"<local-command-stdout>Set model to {model}</local-command-stdout>",
                                     session_id=runner.session_id, isReplay=True))
    runner.send(cli_lines.control_success(request_id, step.get("response")))


def play_expect_frame(runner: ScriptRunner, step: JsonDict) -> None:
    """Replays: the client must send a frame equivalent to the recorded one."""
    expected = step["frame"]
    frame = runner.find_frame(step, f"the recorded frame #{step.get('index', '?')}", expected)
    if expected.get("type") == "control_request" and "request_id" in expected:
        runner.map_id(str(expected["request_id"]), str(frame.get("request_id")))


# ----------------------------------------------------------------------------- asking


def _ask(runner: ScriptRunner, step: JsonDict, request: JsonDict, what: str, kind: str) -> JsonDict:
    """Send a control_request, wait for the answer, check it against ``expect_error``; the
    success payload (``{}`` for an expected error)."""
    request_id = str(step.get("request_id") or new_request_id())
    runner.send(cli_lines.control_request(request_id, request))
    response = runner.await_response(step, request_id, what)
    return _judge(runner, step, response, what, kind)


def _judge(runner: ScriptRunner, step: JsonDict, response: JsonDict, what: str, kind: str) -> JsonDict:
    answer = response.get("response") if response.get("subtype") == "success" else None
    runner.report.answers.append({"step": runner.report.steps_done, "kind": kind, "answer": answer,
                                  "error": response.get("error"), "request_id": response.get("request_id")})
    expect_error = step.get("expect_error")
    if response.get("subtype") != "success":
        if expect_error is None:
            raise runner.fail(f"the client answered {what} with an error: {response.get('error')!r}")
        if isinstance(expect_error, str) and expect_error not in str(response.get("error")):
            raise runner.fail(f"expected an error containing {expect_error!r} for {what}; got {response.get('error')!r}")
        return {}
    if expect_error is not None and expect_error is not False:
        raise runner.fail(f"expected an error answer to {what}; got success {answer!r}")
    return dict(answer or {})


def _check(runner: ScriptRunner, step: JsonDict, answer: Any, what: str) -> None:
    if step.get("expect") is None:
        return
    problem = subset_mismatch(step["expect"], answer)
    if problem is not None:
        raise runner.fail(f"the answer to {what} differs: {problem} (answer: {answer!r})")


def play_ask_permission(runner: ScriptRunner, step: JsonDict) -> None:
    request = {
        "subtype": "can_use_tool", "tool_name": step["tool_name"], "display_name": step["tool_name"],
        "input": step.get("input") or {}, "permission_suggestions": step.get("suggestions") or [],
        "tool_use_id": step.get("tool_use_id") or f"toolu_scripted_{uuid.uuid4().hex[:16]}",
    }
    request.update(step.get("extra") or {})
    what = f"can_use_tool({step['tool_name']!r})"
    _check(runner, step, _ask(runner, step, request, what, "can_use_tool"), what)


def _hook_callback_ids(runner: ScriptRunner, event: str, tool_name: Optional[str]) -> List[str]:
    hooks = ((runner.report.initialize or {}).get("hooks") or {}).get(event) or []
    ids: List[str] = []
    for matcher in hooks:
        pattern = matcher.get("matcher")
        if pattern not in (None, "", "*") and tool_name is not None:
            if not (re.fullmatch(str(pattern), tool_name) or pattern == tool_name):
                continue
        ids.extend(str(i) for i in matcher.get("hookCallbackIds") or [])
    return ids


def play_ask_hook(runner: ScriptRunner, step: JsonDict) -> None:
    event, tool_name = str(step["event"]), step.get("tool_name")
    ids = _hook_callback_ids(runner, event, tool_name)
    if not ids:
        registered = sorted((runner.report.initialize or {}).get("hooks") or {})
        raise runner.fail(f"the client registered no {event} hook{' matching ' + repr(tool_name) if tool_name else ''} "
                          f"(its initialize had hooks for {registered})")
    tool_use_id = step.get("tool_use_id") or (f"toolu_scripted_{uuid.uuid4().hex[:16]}" if tool_name else f"hook-{uuid.uuid4()}")
    hook_input: JsonDict = {
        "session_id": runner.session_id, "transcript_path": "/scripted/transcript.jsonl",
        "cwd": str(runner.settings.get("cwd") or os.getcwd()), "permission_mode": "default", "hook_event_name": event,
    }
    if tool_name is not None:
        hook_input.update(tool_name=tool_name, tool_input=step.get("tool_input") or {}, tool_use_id=tool_use_id)
    hook_input.update(step.get("input") or {})
    for callback_id in ids:
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input, "tool_use_id": tool_use_id}
        what = f"hook_callback {callback_id} ({event})"
        _check(runner, step, _ask(runner, step, request, what, "hook_callback"), what)


def _mcp_request(runner: ScriptRunner, step: JsonDict, server: str, message: JsonDict, kind: str) -> JsonDict:
    request = {"subtype": "mcp_message", "server_name": server, "message": message}
    what = f"mcp_message {message.get('method')} to {server!r}"
    answer = _ask(runner, step, request, what, kind)
    reply = answer.get("mcp_response") or {}
    if "id" in message and "error" in reply:
        raise runner.fail(f"MCP server {server!r} answered {message.get('method')} with an error: {reply['error']!r}")
    return dict(reply)


def play_ask_mcp(runner: ScriptRunner, step: JsonDict) -> None:
    server, tool = str(step["server"]), str(step["tool"])
    next_id = runner.mcp_next_id(server)
    if next_id is None:  # the handshake the real CLI runs first
        _mcp_request(runner, step, server, {"method": "initialize", "jsonrpc": "2.0", "id": 0, "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": cli_lines.CLI_VERSION}}}, "mcp:initialize")
        _mcp_request(runner, step, server, {"method": "notifications/initialized", "jsonrpc": "2.0"}, "mcp:initialized")
        _mcp_request(runner, step, server, {"method": "tools/list", "jsonrpc": "2.0", "id": 1}, "mcp:tools/list")
        runner.mcp_handshake_done(server, 1)
        next_id = runner.mcp_next_id(server)
    message = {"method": "tools/call", "jsonrpc": "2.0", "id": next_id, "params": {
        "name": tool, "arguments": step.get("arguments") or {},
        "_meta": {"claudecode/toolUseId": step.get("tool_use_id") or f"toolu_scripted_{uuid.uuid4().hex[:16]}", "progressToken": next_id}}}
    reply = _mcp_request(runner, step, server, message, "mcp:tools/call")
    _check(runner, step, reply.get("result"), f"tools/call {tool!r} on {server!r}")


def play_ask_control(runner: ScriptRunner, step: JsonDict) -> None:
    request = dict(step["request"])
    what = f"control_request {request.get('subtype')!r}"
    if step.get("wait", True):
        _check(runner, step, _ask(runner, step, request, what, f"control:{request.get('subtype')}"), what)
        return
    request_id = str(step.get("request_id") or new_request_id())
    runner.pending_asks[request_id] = step
    runner.send(cli_lines.control_request(request_id, request))


def play_expect_answer(runner: ScriptRunner, step: JsonDict) -> None:
    """The answer to a request sent earlier with ``wait=False``."""
    request_id = str(step["request_id"])
    sent = runner.pending_asks.pop(request_id, None)
    if sent is None:
        raise runner.fail(f"no request {request_id!r} was sent with wait=False before this step")
    what = f"control_request {sent['request'].get('subtype')!r} {request_id!r}"
    response = runner.await_response(step, request_id, what)
    checks: JsonDict = {key: sent[key] for key in ("expect", "expect_error") if key in sent}  # said when sent,
    checks.update({key: step[key] for key in ("expect", "expect_error") if key in step})  # or now
    _check(runner, checks, _judge(runner, checks, response, what, f"control:{sent['request'].get('subtype')}"), what)


def play_wait_for_file(runner: ScriptRunner, step: JsonDict) -> None:
    """A gate the test opens by creating a file (works in-process and as a subprocess);
    meanwhile ``initialize`` and the ``auto_answers`` are answered as they come."""
    path, timeout = str(step["path"]), runner.timeout(step)
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise runner.fail(f"the file {path} did not appear within {timeout:g}s")
        if runner.listen(0.005):
            raise runner.fail("the client closed the CLI while it waited for the file")


def play_answer_held(runner: ScriptRunner, step: JsonDict) -> None:
    subtype = str(step["subtype"])
    frame = runner.held.pop(subtype, None)
    if frame is None:
        raise runner.fail(f"no {subtype!r} request is held (hold it with expect_control(..., hold=True) first)")
    request_id = str(frame.get("request_id"))
    if subtype == "initialize":
        runner.send(runner.initialize_answer(request_id, step.get("response")))
    else:
        runner.send(cli_lines.control_success(request_id, step.get("response")))


STEP_HANDLERS: Dict[str, Handler] = {
    "text": play_text, "thinking": play_thinking, "tool_use": play_tool_use, "tool_result": play_tool_result,
    "result": play_result, "api_error": play_api_error, "interrupted": play_interrupted, "system": play_system, "emit": play_emit,
    "raw": play_raw, "oversized": play_oversized, "numbered_texts": play_numbered_texts, "flood": play_flood,
    "ignore_sigterm": play_ignore_sigterm, "stderr": play_stderr, "stall": play_stall,
    "crash": play_crash, "expect_user": play_expect_user, "echo_turns": play_echo_turns,
    "expect_input_open": play_expect_input_open, "expect_control": play_expect_control,
    "expect_frame": play_expect_frame, "ask_permission": play_ask_permission, "ask_hook": play_ask_hook,
    "ask_mcp": play_ask_mcp, "ask_control": play_ask_control, "exit": play_crash,
    "expect_answer": play_expect_answer, "wait_for_file": play_wait_for_file, "answer_held": play_answer_held,
}
