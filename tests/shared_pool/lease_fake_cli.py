"""A tiny stand-in for the CLI, for the leaseholder's unit tests (a subprocess: real pipes).

Speaks just enough stream-json: ``initialize`` is answered; a user prompt gets ``system/init``,
an assistant text and a ``result`` whose ``total_cost_usd``/``modelUsage`` are the process's
running totals (as 2.1.197's). The prompt picks the behaviour:

- ``tool``: the assistant calls a tool (``"type":"tool_use"``) before its result;
- ``ask``: a ``can_use_tool`` control request first; the result after the answer;
- ``silent``: no answer at all (the turn stays open);
- ``crash``: exit 3 at once (stderr says so).

``FAKE_STATE=1`` in the environment: ``session_state_changed`` ``running`` before a turn and
``idle`` a moment after its result, as 2.1.33x does. Exits on stdin EOF.
"""

import json
import os
import sys
import time

COST = 0.001
STATE = os.environ.get("FAKE_STATE") == "1"


def out(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    total = 0.0
    tokens = 0
    sys.stderr.write("fake-cli: started\n")
    sys.stderr.flush()
    pending_prompt = None
    for raw in sys.stdin:
        frame = json.loads(raw)
        kind = frame.get("type")
        if kind == "control_request":
            subtype = frame["request"].get("subtype")
            out({"type": "control_response", "response": {"subtype": "success", "request_id": frame["request_id"],
                                                          "response": {"commands": [], "subtype": subtype}}})
            continue
        if kind == "control_response":
            if pending_prompt is not None:
                total, tokens = answer(pending_prompt, total, tokens)
                pending_prompt = None
            continue
        if kind != "user":
            continue
        prompt = frame["message"]["content"]
        if prompt == "crash":
            sys.stderr.write("fake-cli: crashing\n")
            sys.stderr.flush()
            sys.exit(3)
        if STATE:
            out({"type": "system", "subtype": "session_state_changed", "state": "running"})
        out({"type": "system", "subtype": "init", "session_id": "s1", "model": "fake", "cwd": os.getcwd(),
             "tools": [], "mcp_servers": [], "permissionMode": "default"})
        if prompt == "silent":
            continue
        if prompt == "ask":
            out({"type": "control_request", "request_id": "cli-1",
                 "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "true"}}})
            pending_prompt = prompt
            continue
        total, tokens = answer(prompt, total, tokens)


def answer(prompt, total, tokens):
    content = [{"type": "text", "text": "ok: " + prompt}]
    if prompt == "tool":
        content = [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}}] + content
    out({"type": "assistant", "message": {"role": "assistant", "model": "fake", "content": content}, "session_id": "s1"})
    total += COST
    tokens += 10
    out({"duration_ms": 1, "type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
         "session_id": "s1", "result": "ok: " + prompt, "total_cost_usd": total,
         "usage": {"input_tokens": 5, "output_tokens": 5},
         "modelUsage": {"fake": {"inputTokens": tokens // 2, "outputTokens": tokens // 2, "costUSD": total,
                                 "contextWindow": 1000}}})
    if STATE:
        time.sleep(0.01)
        out({"type": "system", "subtype": "session_state_changed", "state": "idle"})
    return total, tokens


if __name__ == "__main__":
    main()
