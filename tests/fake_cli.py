"""A scriptable stand-in for the ``claude`` CLI, for tests of the threaded shell.

Run as ``python fake_cli.py [any argv]``. It reads its script (a JSON list of steps) from the
file named by ``FAKE_CLI_SCRIPT`` and appends every stdin line it receives, plus its argv
and notable events, to the JSON-lines file ``FAKE_CLI_LOG``.

Always on, in a stdin thread: ``initialize`` and ``interrupt`` control requests are answered
with success at once (unless a step says otherwise); everything else is queued for the
steps. Steps (``op``):

    emit {obj}            write one JSON line            raw {text, newline=true}
    text {text}           an assistant text line          result {is_error, subtype, ...}
    big {bytes}           an assistant line with a text of that many bytes
    flood {count, text}   that many small assistant lines, as fast as possible
    wait_user             wait for the next user message
    turn {text}           wait_user, then text, then result
    echo_turns            answer every user message with text + result until EOF
    wait_request {subtype, respond | error | no_response}
    request {request, id} send a control_request to the SDK
    wait_response {id}    wait for the SDK's control_response to that id (logged)
    stderr {text}         write a line to stderr
    sleep {seconds}       exit {code}      wait_eof      ignore_sigterm
    wait_file {path}      wait until that file exists (test-side gate, bounded 30 s)
    hold_request {subtype}    wait for a control_request of that subtype and keep it unanswered
                          (with ``auto.no_initialize`` this holds our ``initialize``)
    answer_held {subtype, respond}   answer the held request with success (``respond``;
                          for ``initialize`` the usual fake answer by default)
    log_file_arg {flag}   log (kind ``file_arg``) the text of the file named after ``flag`` on argv

``auto`` options: ``no_initialize``, ``initialize_delay``, ``manual_interrupt``,
``echo_controls`` (answer every other control request at once with ``{"echo": request}``),
``fail_subtypes`` / ``silent_subtypes`` (with echo_controls: answer with the CLI's
"Unsupported control request subtype" error / never answer).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
import time

OUT = sys.stdout.buffer
LOG_PATH = os.environ.get("FAKE_CLI_LOG")
_log_lock = threading.Lock()
_out_lock = threading.Lock()
_inbox: queue.Queue[dict] = queue.Queue()
_responses: dict[str, dict] = {}
_responses_cond = threading.Condition()
_eof = threading.Event()
_held: dict = {}  # subtype -> a held control_request frame
SESSION = "fake-session"


def log(kind: str, data: object) -> None:
    if not LOG_PATH:
        return
    with _log_lock, open(LOG_PATH, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"kind": kind, "data": data}) + "\n")


def write_line(obj: object) -> None:
    write_bytes((json.dumps(obj) + "\n").encode())


def write_bytes(data: bytes) -> None:
    with _out_lock:
        try:
            OUT.write(data)
            OUT.flush()
        except BrokenPipeError:
            os._exit(0)


def success(request_id: str, response: object = None) -> None:
    body = {"subtype": "success", "request_id": request_id}
    if response is not None:
        body["response"] = response
    write_line({"type": "control_response", "response": body})


def assistant(text: str, msg_id: str = "msg_1") -> dict:
    return {
        "type": "assistant",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "fake-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        "parent_tool_use_id": None,
        "session_id": SESSION,
        "uuid": "u-" + msg_id,
    }


def result(**fields: object) -> dict:
    base = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 1,
        "duration_api_ms": 1,
        "num_turns": 1,
        "result": "ok",
        "session_id": SESSION,
        "total_cost_usd": 0.0,
        "usage": {},
        "uuid": "result-uuid",
    }
    base.update(fields)
    return base


def answer_control(frame: dict, subtype: str) -> None:
    """``auto.echo_controls``: answer at once — success echoing the request, or as told."""
    if subtype in AUTO.get("silent_subtypes", ()):
        return
    if subtype in AUTO.get("fail_subtypes", ()):
        write_line({"type": "control_response", "response": {
            "subtype": "error", "request_id": frame["request_id"],
            "error": f"Unsupported control request subtype: {subtype}"}})
        return
    success(frame["request_id"], {"echo": frame["request"]})


def stdin_loop() -> None:
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        try:
            frame = json.loads(line)
        except ValueError:
            log("bad_stdin", line)
            sys.stderr.write("Error parsing streaming input line: " + line[:100] + "\n")
            sys.stderr.flush()
            os._exit(1)
        log("stdin", frame)
        kind = frame.get("type")
        if kind == "control_request":
            subtype = frame.get("request", {}).get("subtype")
            if subtype == "initialize" and not AUTO.get("no_initialize"):
                time.sleep(AUTO.get("initialize_delay", 0))
                success(frame["request_id"], {"commands": [], "pid": os.getpid(), "fake": True})
                continue
            if subtype == "interrupt" and not AUTO.get("manual_interrupt"):
                success(frame["request_id"])
                continue
            if AUTO.get("echo_controls") and subtype not in ("initialize", "interrupt"):
                answer_control(frame, subtype)
                continue
        if kind == "control_response":
            with _responses_cond:
                _responses[frame["response"]["request_id"]] = frame["response"]
                _responses_cond.notify_all()
            continue
        _inbox.put(frame)
    log("eof", None)
    _eof.set()
    _inbox.put({"type": "__eof__"})


def next_frame(kind: str, subtype: str | None = None) -> dict:
    while True:
        frame = _inbox.get()
        if frame["type"] == "__eof__":
            _inbox.put(frame)
            raise EOFError
        if frame["type"] != kind:
            continue
        if subtype is None or frame.get("request", {}).get("subtype") == subtype:
            return frame


def run_step(step: dict) -> None:
    op = step["op"]
    if op == "emit":
        write_line(step["obj"])
    elif op == "raw":
        write_bytes(step["text"].encode() + (b"\n" if step.get("newline", True) else b""))
    elif op == "text":
        write_line(assistant(step["text"], step.get("id", "msg_1")))
    elif op == "result":
        fields = dict(step)
        fields.pop("op")
        write_line(result(**fields))
    elif op == "big":
        write_line(assistant("x" * step["bytes"]))
    elif op == "flood":
        line = (json.dumps(assistant(step.get("text", "flood"))) + "\n").encode()
        batch = line * 256
        count = step["count"]
        for _ in range(count // 256):
            write_bytes(batch)
        write_bytes(line * (count % 256))
    elif op == "numbered":
        # assistant lines with texts "0", "1", … so a reader can check order and loss
        count, batch = step["count"], step.get("batch", 64)
        for start in range(0, count, batch):
            lines = (json.dumps(assistant(str(i))) + "\n" for i in range(start, min(count, start + batch)))
            write_bytes("".join(lines).encode())
    elif op == "wait_user":
        log("got_user", next_frame("user"))
    elif op == "turn":
        next_frame("user")
        write_line(assistant(step.get("text", "answer")))
        write_line(result(result=step.get("text", "answer")))
    elif op == "echo_turns":
        n = 0
        while True:
            try:
                frame = next_frame("user")
            except EOFError:
                return
            n += 1
            content = frame["message"]["content"]
            write_line(assistant(f"echo: {content}", f"msg_{n}"))
            write_line(result(result=f"echo: {content}", num_turns=n))
    elif op == "wait_request":
        frame = next_frame("control_request", step["subtype"])
        if "error" in step:
            write_line({"type": "control_response", "response": {"subtype": "error", "request_id": frame["request_id"], "error": step["error"]}})
        elif not step.get("no_response"):
            success(frame["request_id"], step.get("respond"))
    elif op == "request":
        write_line({"type": "control_request", "request_id": step["id"], "request": step["request"]})
    elif op == "wait_response":
        with _responses_cond:
            _responses_cond.wait_for(lambda: step["id"] in _responses, timeout=step.get("timeout", 30))
            log("response", _responses.get(step["id"]))
    elif op == "stderr":
        sys.stderr.write(step["text"] + "\n")
        sys.stderr.flush()
    elif op == "sleep":
        time.sleep(step["seconds"])
    elif op == "exit":
        sys.stdout.flush()
        os._exit(step["code"])
    elif op == "wait_eof":
        _eof.wait()
    elif op == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        log("ignoring_sigterm", None)
    elif op == "wait_file":
        deadline = time.monotonic() + 30
        while not os.path.exists(step["path"]) and time.monotonic() < deadline:
            time.sleep(0.01)
    elif op == "hold_request":
        _held[step["subtype"]] = next_frame("control_request", step["subtype"])
        log("held", step["subtype"])
    elif op == "answer_held":
        frame = _held.pop(step["subtype"])
        respond = step.get("respond")
        if respond is None and step["subtype"] == "initialize":
            respond = {"commands": [], "pid": os.getpid(), "fake": True}
        success(frame["request_id"], respond)
    elif op == "log_file_arg":
        argv = sys.argv[1:]
        index = argv.index(step["flag"]) if step["flag"] in argv else -1
        path = argv[index + 1] if 0 <= index < len(argv) - 1 else None
        content = None
        if path is not None and os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                content = handle.read()
        log("file_arg", {"flag": step["flag"], "path": path, "content": content})
    else:
        raise SystemExit(f"fake_cli: unknown op {op!r}")


def main() -> None:
    with open(os.environ["FAKE_CLI_SCRIPT"], encoding="utf-8") as handle:
        script = json.load(handle)
    global AUTO
    AUTO = script.get("auto", {}) if isinstance(script, dict) else {}
    steps = script["steps"] if isinstance(script, dict) else script
    log("argv", sys.argv[1:])
    threading.Thread(target=stdin_loop, daemon=True).start()
    try:
        for step in steps:
            run_step(step)
    except EOFError:
        pass
    _eof.wait()
    os._exit(0)


AUTO: dict = {}

if __name__ == "__main__":
    main()
