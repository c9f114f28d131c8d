"""A fast fake ``claude`` CLI for benchmarks: speaks enough stream-json for claude_sync, the
official ``claude-agent-sdk`` and the raw floor, and is never the bottleneck.

Single-threaded on purpose (fewer runnable threads on a 2-core machine): stdout lines are
serialised once and written in big batches with ``os.write``; stdin is read with ``os.read``
into a buffer and split into lines, blocking only when the workload waits for an answer and
polled (``select`` with a zero timeout) between output batches otherwise.

Any argv is accepted and ignored (the official SDK passes ``--output-format stream-json
--verbose [--system-prompt ""] [--permission-prompt-tool stdio] [--setting-sources=…]
--input-format stream-json``; claude_sync passes the same core flags). The workload comes
from the environment variable ``BENCH_FAKE_SPEC``, a JSON object::

    {"workload": "stream",        "n": 100000, "size": 40}    n assistant lines, text of size bytes
    {"workload": "big_line",      "size": 20971520}           one assistant line with that text
    {"workload": "can_use_tool",  "n": 2000}                  n sequential permission round trips
    {"workload": "hook_callback", "n": 2000}                  n sequential PreToolUse hook round trips
    {"workload": "mixed", "n": 20000, "requests": 2000}       n assistant lines with a can_use_tool
                                                              request after every n/requests lines,
                                                              pipelined; all answers awaited at the end
    {"workload": "first"}                                     system/init, one assistant line, result

Protocol: every ``control_request`` from the SDK is answered with success at once
(``initialize`` with a small server-info payload, recording the hook callback ids it
announces). After the first user message: ``system/init``, the workload, then a ``result``
whose text is ``answered=A errors=E`` (also as extra fields ``bench_answered`` /
``bench_errors``): how many of our requests were answered, and how many answers were not a
success (``allow`` for permissions). Then it waits
for stdin EOF and exits 0. EOF before the user message, or while waiting for an answer,
exits at once (like the real CLI, it finishes a turn already under way after EOF).
"""

from __future__ import annotations

import json
import os
import select
import sys

SESSION = "00000000-0000-4000-8000-00000000bench"
_dumps = json.JSONEncoder(separators=(",", ":")).encode
BATCH_BYTES = 1 << 18


def out(data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(1, view)
        except BrokenPipeError:
            os._exit(0)
        view = view[written:]


def line(obj: object) -> bytes:
    return (_dumps(obj) + "\n").encode("utf-8")


def assistant(text: str, index: int = 0) -> dict:
    """An assistant line shaped like CLI 2.1.197's (one content block per line)."""
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_bench{index:08d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8[1m]",
            "content": [{"type": "text", "text": text}],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 3,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": 1,
                "service_tier": "standard",
            },
            "context_management": None,
        },
        "parent_tool_use_id": None,
        "session_id": SESSION,
        "uuid": f"9b1c6a2e-0000-4000-8000-{index:012d}",
        "request_id": "req_bench",
    }


def system_init() -> dict:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": os.getcwd(),
        "session_id": SESSION,
        "tools": ["Bash", "Edit", "Read", "Write"],
        "mcp_servers": [],
        "model": "claude-opus-4-8[1m]",
        "permissionMode": "default",
        "slash_commands": [],
        "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": "2.1.197",
        "output_style": "default",
        "agents": [],
        "skills": [],
        "plugins": [],
        "uuid": "00000000-0000-4000-8000-000000000001",
    }


def result(**extra: object) -> dict:
    body = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 1,
        "duration_api_ms": 1,
        "num_turns": 1,
        "result": "done",
        "stop_reason": "end_turn",
        "session_id": SESSION,
        "total_cost_usd": 0.0,
        "usage": {"input_tokens": 3, "output_tokens": 1},
        "modelUsage": {},
        "permission_denials": [],
        "terminal_reason": "completed",
        "uuid": "00000000-0000-4000-8000-000000000002",
    }
    body.update(extra)
    return body


def permission_request(request_id: str, index: int) -> dict:
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "can_use_tool",
            "tool_name": "Bash",
            "display_name": "Bash",
            "input": {"command": f"echo {index}", "description": "Print a number"},
            "description": "Print a number",
            "permission_suggestions": [
                {
                    "type": "addRules",
                    "rules": [{"toolName": "Bash", "ruleContent": f"echo {index}"}],
                    "behavior": "allow",
                    "destination": "localSettings",
                }
            ],
            "tool_use_id": f"toolu_bench{index:08d}",
        },
    }


def hook_request(request_id: str, callback_id: str, index: int) -> dict:
    tool_use_id = f"toolu_bench{index:08d}"
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": {
                "session_id": SESSION,
                "transcript_path": "/tmp/bench/transcript.jsonl",
                "cwd": "/tmp/bench",
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": f"echo {index}"},
                "tool_use_id": tool_use_id,
            },
            "tool_use_id": tool_use_id,
        },
    }


class Stdin:
    """Line-buffered stdin on fd 0; answers the SDK's control requests as they arrive."""

    def __init__(self) -> None:
        self.buffer = b""
        self.eof = False
        self.users = 0
        self.callback_ids: list = []
        self.answers: dict = {}  # request_id -> response body

    def pump(self, block: bool) -> None:
        """Read what is there (or wait for something when ``block``) and handle whole lines."""
        if self.eof:
            return
        if not block and not select.select([0], [], [], 0)[0]:
            return
        chunk = os.read(0, 1 << 16)
        if not chunk:
            self.eof = True
            return
        data = self.buffer + chunk
        *lines, self.buffer = data.split(b"\n")
        for raw in lines:
            if raw.strip():
                self.handle(json.loads(raw))

    def handle(self, frame: dict) -> None:
        kind = frame.get("type")
        if kind == "user":
            self.users += 1
        elif kind == "control_response":
            response = frame.get("response") or {}
            self.answers[response.get("request_id")] = response
        elif kind == "control_request":
            request = frame.get("request") or {}
            payload: dict = {}
            if request.get("subtype") == "initialize":
                for matchers in (request.get("hooks") or {}).values():
                    for matcher in matchers or ():
                        self.callback_ids.extend(matcher.get("hookCallbackIds") or ())
                payload = {
                    "commands": [],
                    "agents": [],
                    "output_style": "default",
                    "available_output_styles": ["default"],
                    "models": [],
                    "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY"},
                    "pid": os.getpid(),
                }
            out(line({"type": "control_response",
                      "response": {"subtype": "success", "request_id": frame.get("request_id"),
                                   "response": payload}}))  # fmt: skip

    def wait_answer(self, request_id: str) -> dict:
        while request_id not in self.answers:
            self.pump(block=True)
            if self.eof and request_id not in self.answers:
                os._exit(0)  # stdin closed under a pending request: nothing more to do
        return self.answers.pop(request_id)


def answer_ok(response: dict, permission: bool) -> bool:
    if response.get("subtype") != "success":
        return False
    if permission:
        return (response.get("response") or {}).get("behavior") == "allow"
    return True


def play(spec: dict, stdin: Stdin) -> dict:
    """Write the workload; return the extra fields for the result line."""
    workload = spec.get("workload", "stream")
    n = int(spec.get("n", 0))
    errors = 0
    answered = 0
    if workload == "stream":
        one = line(assistant("x" * int(spec.get("size", 40))))
        per_batch = max(1, BATCH_BYTES // len(one))
        batch = one * per_batch
        full, rest = divmod(n, per_batch)
        for _ in range(full):
            out(batch)
            stdin.pump(block=False)
        out(one * rest)
    elif workload == "big_line":
        out(line(assistant("x" * int(spec["size"]))))
    elif workload == "first":
        out(line(assistant("hello")))
    elif workload in ("can_use_tool", "hook_callback"):
        permission = workload == "can_use_tool"
        if not permission and not stdin.callback_ids:
            raise SystemExit("hook_callback workload: the SDK registered no hook callback")
        callback_id = stdin.callback_ids[0] if stdin.callback_ids else ""
        for i in range(n):
            request_id = f"bench-{i}"
            frame = (
                permission_request(request_id, i)
                if permission
                else hook_request(request_id, callback_id, i)
            )
            out(line(frame))
            answered += 1
            errors += not answer_ok(stdin.wait_answer(request_id), permission)
    elif workload == "mixed":
        requests = int(spec.get("requests", 0))
        every = max(1, n // requests) if requests else n + 1
        one = line(assistant("x" * int(spec.get("size", 40))))
        chunk: list = []
        sent = []
        for i in range(n):
            chunk.append(one)
            if (i + 1) % every == 0 and len(sent) < requests:
                request_id = f"bench-{len(sent)}"
                chunk.append(line(permission_request(request_id, len(sent))))
                sent.append(request_id)
            if len(chunk) >= 512:
                out(b"".join(chunk))
                chunk = []
                stdin.pump(block=False)
        out(b"".join(chunk))
        for request_id in sent:
            answered += 1
            errors += not answer_ok(stdin.wait_answer(request_id), True)
    else:
        raise SystemExit(f"unknown workload {workload!r}")
    return {"bench_answered": answered, "bench_errors": errors}


def main() -> None:
    spec = json.loads(os.environ.get("BENCH_FAKE_SPEC") or '{"workload": "first"}')
    stdin = Stdin()
    while not stdin.users:
        stdin.pump(block=True)
        if stdin.eof and not stdin.users:
            return
    out(line(system_init()))
    extra = play(spec, stdin)
    text = f"answered={extra['bench_answered']} errors={extra['bench_errors']}"
    out(line(result(result=text, **extra)))
    while not stdin.eof:
        stdin.pump(block=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
    sys.exit(0)
