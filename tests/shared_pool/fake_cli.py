"""A tiny fake ``claude`` for the shared pool's tests: stream-json in, stream-json out.

- ``control_request`` ``initialize`` (or any other) → a success ``control_response``.
- a user message → ``system/init`` (this process's session id), one assistant text
  ``pid=<pid> tag=<$FAKE_TAG> runs=<n> prompt=<text>`` and a ``result`` (``num_turns`` 1,
  ``total_cost_usd`` the running total, as 2.1.197 reports it).
- the user message ``/clear`` → like 2.1.197: ``system/init`` with a **new** session id, the
  synthetic assistant message and a ``result`` with ``num_turns`` 0 and the running totals.
- file arguments (absolute paths that exist) are read at start; a turn's result then ends with
  `` files=[contents] paths=[paths]``.
- the user message ``exit N`` → exit N. stdin EOF → exit 0.

``$FAKE_CLEAR`` changes the answer to ``/clear``: ``control`` (a ``can_use_tool`` control
request first), ``turns`` (``num_turns`` 1), ``drift`` (another model at each ``/clear``), ``hang`` (no answer),
``exit`` (exit 3), ``extra`` (an extra line after the result). ``$FAKE_PIDFILE``: append the
pid there at start. ``$FAKE_CHILD=1``: start a ``sleep`` child in the same process group.
"""

import json
import os
import subprocess
import sys
import uuid

PID = os.getpid()
PATHS = [arg for arg in sys.argv[1:] if arg.startswith("/") and os.path.exists(arg)]
FILES = []
for _path in PATHS:  # file arguments (memory files as /dev/fd/N, temp files), read at start
    with open(_path) as _handle:
        FILES.append(_handle.read())
MODE = os.environ.get("FAKE_CLEAR", "")
TAG = os.environ.get("FAKE_TAG", "")


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def init(session, model="fake-model"):
    return {"type": "system", "subtype": "init", "session_id": session, "model": model, "cwd": os.getcwd(),
            "tools": ["Read"], "mcp_servers": [], "permissionMode": "default", "apiKeySource": "none",
            "slash_commands": ["clear"], "uuid": str(uuid.uuid4())}


def result(session, turns, cost, text):
    return {"type": "result", "subtype": "success", "is_error": False, "num_turns": turns, "session_id": session,
            "total_cost_usd": cost, "duration_ms": 1, "duration_api_ms": 0, "result": text,
            "usage": {"input_tokens": 1, "output_tokens": 1}, "modelUsage": {"fake-model": {"costUSD": cost}},
            "uuid": str(uuid.uuid4())}


def assistant(session, text, model="fake-model"):
    return {"type": "assistant", "session_id": session, "parent_tool_use_id": None, "uuid": str(uuid.uuid4()),
            "message": {"id": "msg_" + uuid.uuid4().hex, "type": "message", "role": "assistant", "model": model,
                        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                        "usage": {"input_tokens": 1, "output_tokens": 1}}}


def prompt_of(message):
    content = message.get("message", {}).get("content")
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return str(content)


def main():
    if os.environ.get("FAKE_PIDFILE"):
        with open(os.environ["FAKE_PIDFILE"], "a") as handle:
            handle.write(f"{PID}\n")
    if os.environ.get("FAKE_CHILD") == "1":
        subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
    session = str(uuid.uuid4())
    cost = 0.0
    runs = 0
    clears = 0
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "control_request":
            out({"type": "control_response", "response": {"subtype": "success", "request_id": message.get("request_id"),
                                                           "response": {"commands": [], "pid": PID}}})
            continue
        if kind != "user":
            continue
        prompt = prompt_of(message)
        if prompt == "/clear":
            if MODE == "hang":
                continue
            if MODE == "exit":
                sys.exit(3)
            if MODE == "control":
                out({"type": "control_request", "request_id": "x1",
                     "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}})
            session = str(uuid.uuid4())
            clears += 1
            model = f"model-{clears}" if MODE == "drift" else "fake-model"
            out(init(session, model))
            out(assistant(session, "(no content)", "<synthetic>"))
            if MODE == "extra":  # one write: the pool reads the extra line with the result
                sys.stdout.write(json.dumps(result(session, 0, cost, "")) + "\n" + json.dumps({"type": "keep_alive"}) + "\n")
                sys.stdout.flush()
                continue
            out(result(session, 1 if MODE == "turns" else 0, cost, ""))
            continue
        if prompt.startswith("exit "):
            sys.exit(int(prompt.split()[1]))
        runs += 1
        cost += 0.01
        out(init(session))
        out(assistant(session, f"pid={PID} tag={TAG} runs={runs} prompt={prompt}"))
        shown = f" files={json.dumps(FILES)} paths={json.dumps(PATHS)}" if FILES else ""
        out(result(session, 1, round(cost, 4), f"pid={PID} tag={TAG} runs={runs}{shown}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
