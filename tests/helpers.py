"""Small helpers shared by the shell tests, and ``ScriptedCLI``: the fake CLI's script
language played by a ``MemoryPeer``, so session tests need no process."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    TextBlock,
    query,
)
from claude_sync._engine.memory import MemoryTransport, PeerTimeout
from claude_sync._query import QueryStream


def texts(messages: List[Any]) -> List[str]:
    """The text of every TextBlock of every AssistantMessage, in order."""
    return [b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]


def is_init(message: Any) -> bool:
    """A ``system/init`` message, in the official shape: a plain ``SystemMessage``."""
    return type(message).__name__ == "SystemMessage" and message.subtype == "init"


def results(messages: List[Any]) -> List[ResultMessage]:
    """Every ResultMessage, in order."""
    return [m for m in messages if isinstance(m, ResultMessage)]


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition", *, fail: bool = True) -> bool:
    """Poll ``predicate`` (2 ms steps) until it is true: True. When ``timeout`` seconds pass
    first: ``AssertionError`` naming ``what``, or False with ``fail=False``. The one polling
    helper of the test suite (unit, e2e and the leak check)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            if fail:
                raise AssertionError(f"{what} not reached within {timeout}s")
            return bool(predicate())
        time.sleep(0.002)
    return True


def control_frames(cli: Any, subtype: str) -> List[Dict[str, Any]]:
    """The ``request`` of every control request of ``subtype`` the CLI received."""
    return [
        f["request"]
        for f in cli.stdin_frames()
        if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]


def interruptible_turn() -> ScriptedCLI:
    """A turn that writes "partial", waits for our ``interrupt``, ends aborted (as the real
    CLI does), then answers one more turn with "second answer"."""
    return ScriptedCLI(
        [
            {"op": "wait_user"},
            {"op": "text", "text": "partial"},
            {"op": "wait_request", "subtype": "interrupt"},
            {"op": "emit", "obj": {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}, "parent_tool_use_id": None, "session_id": "s"}},
            {"op": "result", "subtype": "error_during_execution", "is_error": True, "terminal_reason": "aborted_streaming", "errors": ["[ede_diagnostic] aborted"]},
            {"op": "turn", "text": "second answer"},
            {"op": "wait_eof"},
        ],
        auto={"manual_interrupt": True},
    )


# ----------------------------------------------------------------------------- wire builders


SESSION = "fake-session"


def assistant_line(text: str, msg_id: str = "msg_1") -> Dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": "fake-model",
            "content": [{"type": "text", "text": text}], "stop_reason": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        "parent_tool_use_id": None, "session_id": SESSION, "uuid": "u-" + msg_id,
    }  # fmt: skip


def result_line(**fields: Any) -> Dict[str, Any]:
    base: Dict[str, Any] = {
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
        "duration_api_ms": 1, "num_turns": 1, "result": "ok", "session_id": SESSION,
        "total_cost_usd": 0.0, "usage": {}, "uuid": "result-uuid",
    }  # fmt: skip
    base.update(fields)
    return base


# ----------------------------------------------------------------------------- the scripted CLI


class _Stop(Exception):
    """The session ended input (stdin EOF) or killed the peer: the script stops."""


class ScriptedCLI:
    """Plays a script in the step language of ``tests/fake_cli.py`` (ops and ``auto``
    options) as the CLI side of a ``MemoryTransport``, on two ``claude_sync-peer-…`` threads
    started by ``connect``.

    Differences from the process: ``sleep`` and ``wait_eof`` end early when the session ends
    input or closes (an idle CLI exits at EOF), ``hang`` ignores EOF until the session kills
    the peer; ``numbered`` takes ``per_message`` (lines per ``message_id``);
    ``wait_gate {name}`` waits for
    ``release(name)``; ``check_input_open`` logs ``input_open`` (is stdin still open?);
    no signals, no argv. ``log()``/``stdin_frames()`` read what it saw.
    """

    def __init__(self, steps: List[Dict[str, Any]], auto: Optional[Dict[str, Any]] = None) -> None:
        self.steps = steps
        self.auto = auto or {}
        self.transport = _ScriptedTransport(self)
        self.peer = self.transport.peer
        self._log: List[Dict[str, Any]] = []
        self._cond = threading.Condition()
        self._inbox: List[Dict[str, Any]] = []
        self._eof = False
        self._gates: Dict[str, threading.Event] = {}
        self._held: Dict[str, Dict[str, Any]] = {}
        self._threads: List[threading.Thread] = []

    # -- the test's side -----------------------------------------------------------------

    def options(self, **kwargs: Any) -> ClaudeAgentOptions:
        kwargs.setdefault("close_timeout", 2.0)
        kwargs.setdefault("initialize_timeout", 10.0)
        kwargs.setdefault("control_timeout", 10.0)
        return ClaudeAgentOptions(**kwargs)

    def query(self, prompt: Any, **kwargs: Any) -> QueryStream:
        return query(prompt, options=self.options(**kwargs), transport=self.transport)

    def client(self, **kwargs: Any) -> ClaudeSDKClient:
        return ClaudeSDKClient(self.options(**kwargs), transport=self.transport)

    def log(self) -> List[Dict[str, Any]]:
        with self._cond:
            return list(self._log)

    def stdin_frames(self) -> List[Dict[str, Any]]:
        return [entry["data"] for entry in self.log() if entry["kind"] == "stdin"]

    def answers(self, request_id: str) -> List[Dict[str, Any]]:
        """Every ``control_response`` body we sent for the CLI's request ``request_id``."""
        return [e["data"] for e in self.log() if e["kind"] == "response" and e["data"]["request_id"] == request_id]

    def release(self, name: str) -> None:
        self._gate(name).set()

    # -- the peer threads ----------------------------------------------------------------

    def _start(self) -> None:
        for name, target in (("stdin", self._stdin_loop), ("script", self._run_script)):
            thread = threading.Thread(target=target, name=f"claude_sync-peer-{name}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _record(self, kind: str, data: Any) -> None:
        with self._cond:
            self._log.append({"kind": kind, "data": data})

    def _gate(self, name: str) -> threading.Event:
        with self._cond:
            return self._gates.setdefault(name, threading.Event())

    def _send(self, obj: Any) -> None:
        try:
            self.peer.send(obj)
        except BrokenPipeError as exc:  # killed: stdout is gone
            raise _Stop from exc

    def _stdin_loop(self) -> None:
        while True:
            try:
                frame = self.peer.read_frame(timeout=60)
            except (EOFError, PeerTimeout):
                break
            self._record("stdin", frame)
            try:
                self._on_frame(frame)
            except _Stop:
                break
        self._record("eof", None)
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _on_frame(self, frame: Dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "control_request":
            subtype = frame.get("request", {}).get("subtype")
            if subtype == "initialize" and not self.auto.get("no_initialize"):
                self._success(frame["request_id"], {"commands": [], "pid": 4242, "fake": True})
                return
            if subtype == "interrupt" and not self.auto.get("manual_interrupt"):
                self._success(frame["request_id"])
                return
            if self.auto.get("echo_controls") and subtype not in ("initialize", "interrupt"):
                self._echo_control(frame, subtype)
                return
        if kind == "control_response":
            self._record("response", frame["response"])
            with self._cond:
                self._cond.notify_all()
            return
        with self._cond:
            self._inbox.append(frame)
            self._cond.notify_all()

    def _echo_control(self, frame: Dict[str, Any], subtype: str) -> None:
        if subtype in self.auto.get("silent_subtypes", ()):
            return
        if subtype in self.auto.get("fail_subtypes", ()):
            self._send({"type": "control_response", "response": {
                "subtype": "error", "request_id": frame["request_id"],
                "error": f"Unsupported control request subtype: {subtype}"}})  # fmt: skip
            return
        self._success(frame["request_id"], {"echo": frame["request"]})

    def _success(self, request_id: str, response: Any = None) -> None:
        body: Dict[str, Any] = {"subtype": "success", "request_id": request_id}
        if response is not None:
            body["response"] = response
        self._send({"type": "control_response", "response": body})

    def _next_frame(self, kind: str, subtype: Optional[str] = None) -> Dict[str, Any]:
        with self._cond:
            while True:
                for index, frame in enumerate(self._inbox):
                    if frame.get("type") == kind and (
                        subtype is None or frame.get("request", {}).get("subtype") == subtype
                    ):
                        del self._inbox[: index + 1]
                        return frame
                if self._eof or self.transport.killed:
                    raise _Stop
                self._cond.wait(0.05)

    def _pause(self, seconds: float) -> None:
        """Sleep, but end at EOF or kill (as an idle CLI does)."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while not (self._eof or self.transport.killed):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(min(remaining, 0.05))

    def _run_script(self) -> None:
        try:
            for step in self.steps:
                if self._step(step):
                    return
        except _Stop:
            pass
        self._pause(60)  # as the fake CLI: wait for EOF, then exit 0
        self.peer.exit(0)

    def _step(self, step: Dict[str, Any]) -> bool:
        """Run one step; True when the CLI exited."""
        op = step["op"]
        if op == "emit":
            self._send(step["obj"])
        elif op == "raw":
            self._send(step["text"] + ("\n" if step.get("newline", True) else ""))
        elif op == "text":
            self._send(assistant_line(step["text"], step.get("id", "msg_1")))
        elif op == "result":
            self._send(result_line(**{k: v for k, v in step.items() if k != "op"}))
        elif op == "big":
            self._send(assistant_line("x" * step["bytes"]))
        elif op == "flood":
            line = (json.dumps(assistant_line(step.get("text", "flood"))) + "\n").encode()
            for _ in range(step["count"] // 256):
                self._send(line * 256)
            self._send(line * (step["count"] % 256))
        elif op == "numbered":  # assistant lines "0", "1", … so a reader can check order and loss
            count, batch = step["count"], step.get("batch", 64)
            per = step.get("per_message", count)
            for start in range(0, count, batch):
                lines = (
                    json.dumps(assistant_line(str(i), f"msg_{i // per}")) + "\n"
                    for i in range(start, min(count, start + batch))
                )
                self._send("".join(lines))
        elif op == "wait_user":
            self._record("got_user", self._next_frame("user"))
        elif op == "turn":
            self._next_frame("user")
            self._send(assistant_line(step.get("text", "answer")))
            self._send(result_line(result=step.get("text", "answer")))
        elif op == "echo_turns":
            n = 0
            while True:
                content = self._next_frame("user")["message"]["content"]
                n += 1
                self._send(assistant_line(f"echo: {content}", f"msg_{n}"))
                self._send(result_line(result=f"echo: {content}", num_turns=n))
        elif op == "wait_request":
            frame = self._next_frame("control_request", step["subtype"])
            if "error" in step:
                self._send({"type": "control_response", "response": {
                    "subtype": "error", "request_id": frame["request_id"], "error": step["error"]}})  # fmt: skip
            elif not step.get("no_response"):
                self._success(frame["request_id"], step.get("respond"))
        elif op == "request":
            self._send({"type": "control_request", "request_id": step["id"], "request": step["request"]})
        elif op == "wait_response":  # bounded: the test then finds no "response" entry
            deadline = time.monotonic() + step.get("timeout", 30)
            with self._cond:
                while not any(e["kind"] == "response" and e["data"]["request_id"] == step["id"] for e in self._log):
                    if self.transport.killed or time.monotonic() > deadline:
                        break
                    self._cond.wait(0.05)
        elif op == "stderr":
            self.peer.stderr(step["text"])
        elif op == "hang":  # ignores EOF: ends only when the session kills it
            while not self.transport.killed:
                with self._cond:
                    self._cond.wait(0.05)
            raise _Stop
        elif op in ("sleep", "wait_eof"):
            self._pause(step.get("seconds", 60))
        elif op == "exit":
            self.peer.exit(step["code"])
            return True
        elif op == "wait_gate":
            gate = self._gate(step["name"])
            while not gate.wait(0.05):
                if self.transport.killed:
                    raise _Stop
        elif op == "check_input_open":
            self._record("input_open", not self.peer.input_ended)
        else:
            raise AssertionError(f"ScriptedCLI: unknown op {op!r}")
        return False


class _ScriptedTransport(MemoryTransport):
    """A ``MemoryTransport`` that starts its ``ScriptedCLI`` when the session connects."""

    def __init__(self, cli: ScriptedCLI) -> None:
        super().__init__()
        self._cli = cli
        self.killed = False

    def connect(self) -> None:
        super().connect()
        self._cli._start()

    def close(self) -> None:
        self.killed = self.exit_code() is None
        super().close()
        for thread in self._cli._threads:
            if thread is not threading.current_thread():
                thread.join(5)
