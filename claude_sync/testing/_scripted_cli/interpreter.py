"""The scripted CLI's engine: plays a script (plain data) over a ``Wire``, step by step.

The engine is the interpreter: reading the client's frames (kept in order for later steps
when they arrive early), answering ``initialize`` and the ``auto_answers`` subtypes whenever
it reads them, writing lines, bounded waits, the failure messages and the ``RunReport``. What
each step does is not here: ``steps`` holds one handler per step kind and hands its table to
``ScriptRunner``. The script format (``SCRIPT_FORMAT``, ``check_script_format``) is defined
here because every runner checks it.

The same engine runs in-process (``ScriptedTransport``: the wire is a ``MemoryPeer``) and as a
real subprocess (``python -m claude_sync.testing.cli``: the wire is stdin/stdout). It runs on
one thread (``claude_sync-scripted-cli`` in-process; the main thread of the subprocess) and
reads the client's frames only when a step needs one or listens (``listen``: a step that waits
for something else, such as a file gate, meanwhile answers what is answered whenever it comes).

A step the client does not follow (no answer in time, another frame than the one expected, a
reply that differs, input ended or the CLI closed first) raises ``ScriptFailure``: the run
stops, the message goes to the CLI's stderr (so the client's own error quotes it), the CLI
exits with ``SCRIPT_FAILED_EXIT``, and ``RunReport.failure`` holds it for ``verify()``.
Every wait is bounded by the step's ``timeout`` (the script's, by default), except the wait
for the client to end its input after the last step.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from abc import ABC, abstractmethod
from typing import Any, Callable, Dict, List, Mapping, Optional

from . import cli_lines
from .match import describe_frame, describe_step, frame_mismatch

__all__ = [
    "ECHO", "NO_ANSWER", "SCRIPT_FAILED_EXIT", "SCRIPT_FORMAT", "UNSUPPORTED", "ClientGone", "Handler",
    "RunReport", "ScriptFailure", "ScriptRunner", "Wire", "check_script_format", "new_request_id", "user_text",
]  # fmt: skip

SCRIPT_FORMAT = "claude_sync.scripted_cli/1"
"""The format tag of a script (``ScriptedCLI.script``); runners refuse other tags."""

ECHO = "<echo the request>"
"""An ``auto_answers`` value: answer with ``{"echo": <the request>}``."""

NO_ANSWER = "<never answer>"
"""An ``auto_answers`` value: take the request and never answer it (a CLI stuck on it)."""

UNSUPPORTED = "<unsupported subtype>"
"""An ``auto_answers`` value: the real CLI's error for a subtype it does not know,
``Unsupported control request subtype: <subtype>``."""

SCRIPT_FAILED_EXIT = 97
"""The exit status of a scripted CLI whose script was not followed."""

JsonDict = Dict[str, Any]


def check_script_format(script: Any) -> None:
    """Raise ``ValueError`` unless ``script`` is a script this version can play."""
    if not isinstance(script, dict) or not isinstance(script.get("steps"), list):
        raise ValueError("a scripted-CLI script is a dict with a 'steps' list")
    tag = script.get("format")
    if tag != SCRIPT_FORMAT:
        raise ValueError(f"unsupported scripted-CLI script format {tag!r}; this claude_sync plays {SCRIPT_FORMAT!r}")


class ScriptFailure(AssertionError):
    """The client did not follow the script (the message says which step and what arrived)."""


class ClientGone(Exception):
    """The client closed the CLI's stdout (closed or killed the session)."""


class Wire(ABC):
    """The CLI's end of the pipes. The engine's thread only.

    Subclasses move bytes (``read_chunk``, ``write``); this class cuts the client's bytes into
    lines and keeps what it read ahead."""

    def __init__(self) -> None:
        self._pending = b""
        self._eof = False

    @abstractmethod
    def read_chunk(self, timeout: Optional[float]) -> Optional[bytes]:
        """The client's next bytes as they come; ``b""`` once it ended its input; None when
        ``timeout`` seconds (0: do not wait) passed first."""

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Write to the client. Raises ``ClientGone``."""

    @abstractmethod
    def stderr(self, text: str) -> None: ...

    @abstractmethod
    def stall(self, seconds: float) -> bool:
        """Do nothing for ``seconds``; True if the client closed the CLI meanwhile."""

    @abstractmethod
    def finish(self, code: int) -> None:
        """Exit with ``code`` (in-process: end stdout and set the exit status)."""

    def ignore_sigterm(self) -> None:
        """From now on ignore SIGTERM (only a CLI process can). Raises ``ScriptFailure``."""
        raise ScriptFailure("ignore_sigterm needs the scripted CLI as a subprocess (install()), not in-process")

    def read_line(self, timeout: Optional[float]) -> Optional[bytes]:
        """The client's next line (without newline); None after ``timeout``; raises
        ``EOFError`` once the client ended its input and every line was read."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            if self._eof:
                if self._pending:
                    line, self._pending = self._pending, b""
                    return line
                raise EOFError
            chunk = self.read_chunk(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if chunk is None:
                return None
            self._take(chunk)
        line, self._pending = self._pending.split(b"\n", 1)
        return line

    def input_open(self) -> bool:
        """False once the client has ended its input (looks without waiting; what it wrote
        meanwhile is kept for ``read_line``)."""
        while not self._eof:
            chunk = self.read_chunk(0)
            if chunk is None:
                return True
            self._take(chunk)
        return False

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            self._eof = True
        self._pending += chunk


class RunReport:
    """What one run of a script saw and did. Thread: written by the engine, read by tests
    after the run (``to_json``/``from_json`` carry it out of a subprocess).

    Attributes:
        steps_total: How many steps the script has.
        steps_done: How many it played.
        failure: Which step was not followed and what arrived instead; None when the script was
            followed.
        ended: How the run ended: ``"script"`` (all steps played), ``"eof"`` (input ended),
            ``"failed"``, ``"closed by the client"``; None while it runs.
        exit_code: The exit status the scripted CLI ended with (``SCRIPT_FAILED_EXIT`` on a
            failure).
        received: Every frame your code sent, in order (dicts; a line that was not JSON as text).
        answers: What your code answered to each question the script asked (permission, hook, MCP,
            control), with the step number.
        initialize: Your code's ``initialize`` request, once it came.
        argv: The command line the scripted CLI was started with (subprocess runs).
        argv_files: The contents of files named on that command line (``--mcp-config`` …), by path.
    """

    def __init__(self, steps_total: int) -> None:
        self.steps_total = steps_total
        self.steps_done = 0
        self.failure: Optional[str] = None
        self.ended: Optional[str] = None
        self.exit_code: Optional[int] = None
        self.received: List[Any] = []
        self.answers: List[JsonDict] = []
        self.initialize: Optional[JsonDict] = None
        self.argv: List[str] = []
        self.argv_files: Dict[str, str] = {}

    def to_json(self) -> JsonDict:
        """The report as a JSON-able dict."""
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: JsonDict) -> RunReport:
        """Rebuild a report from ``to_json()`` output."""
        report = cls(int(data["steps_total"]))
        for name, value in data.items():
            setattr(report, name, value)
        return report


class ScriptRunner:
    """Plays ``script`` (``{"settings": {...}, "steps": [...]}``) over ``wire``; ``handlers``
    maps each step ``op`` to what it does (``steps.STEP_HANDLERS``)."""

    def __init__(self, script: JsonDict, wire: Wire, handlers: Mapping[str, Handler],
                 report: Optional[RunReport] = None, on_change: Optional[Callable[[RunReport], None]] = None) -> None:
        self.handlers = handlers
        self.settings: JsonDict = dict(script.get("settings") or {})
        self.steps: List[JsonDict] = list(script["steps"])
        self.wire = wire
        self.report = report or RunReport(len(self.steps))
        self._on_change = on_change or (lambda report: None)
        self._backlog: List[JsonDict] = []
        self._ids: Dict[str, str] = {}  # recorded request id -> the client's (replays)
        self._input_ended = False
        self._users_seen = 0
        self._texts: List[str] = []
        self._last_result_error = False
        self._mcp_ready: Dict[str, int] = {}
        self.held: Dict[str, JsonDict] = {}  # subtype -> a control_request held unanswered
        self.pending_asks: Dict[str, JsonDict] = {}  # request id -> the step that sent it
        self._aside: Dict[str, JsonDict] = {}  # answers to pending asks that came early
        self._index = 0

    # ------------------------------------------------------------------ running

    def run(self) -> int:
        """Play every step, then wait for the client to end its input; the exit code.

        Never raises: a script that cannot be played (a malformed step) ends the run like a
        failed step, so the client sees the CLI exit instead of waiting on it."""
        try:
            return self._body()
        except ScriptFailure as failure:
            self.report.failure = str(failure)
            self._say(f"claude_sync.testing: {failure}")
            return self._end(SCRIPT_FAILED_EXIT, "failed")
        except ClientGone:
            if self.report.steps_done < len(self.steps):
                self.report.failure = self._where(
                    "the client closed the CLI before this step was played"
                )
            return self._end(-9, "closed by the client")
        except Exception as exc:  # noqa: BLE001 - a bad script must end the run, not hang it
            self.report.failure = self._where(f"the scripted CLI could not play this step: {exc!r}")
            self._say(f"claude_sync.testing: {self.report.failure}")
            try:
                return self._end(SCRIPT_FAILED_EXIT, "failed")
            except ClientGone:
                return SCRIPT_FAILED_EXIT

    def _body(self) -> int:
        """The run itself: every step, then serve until input ends; the exit code."""
        played = self._play_steps()
        if played is not None:
            return played
        self._drain_until_eof()
        return self._end(1 if self._last_result_error else 0, "eof")

    def _play_steps(self) -> Optional[int]:
        """Play ``self.steps``; the exit code when the run ended inside them, None when all
        were played."""
        for index, step in enumerate(self.steps):
            self._index = index
            outcome = self._play(step)
            if outcome == "stop":
                return self._end(self.report.exit_code or 0, "script")
            if outcome == "closed":  # a stall the client ended by closing the CLI
                self.report.steps_done = index + 1
                if index + 1 < len(self.steps):
                    self.report.failure = self._where("the client closed the CLI during this stall; the later steps never ran")
                return self._end(-9, "closed by the client")
            self.report.steps_done = self._index + 1
            self._on_change(self.report)
        return None

    def _end(self, code: int, how: str) -> int:
        self.report.exit_code = code
        self.report.ended = how
        self._on_change(self.report)
        self.wire.finish(code)
        return code

    def _say(self, text: str) -> None:
        try:
            self.wire.stderr(text)
        except Exception:  # noqa: BLE001 - stderr is best effort
            pass

    def on_terminated(self) -> None:
        """The process is being terminated (SIGTERM): record how far the script got. A stall
        in progress counts as played (making the client give up is what a stall is for)."""
        report = self.report
        if self._index < len(self.steps) and self.steps[self._index].get("op") == "stall":
            report.steps_done = max(report.steps_done, self._index + 1)
        report.ended, report.exit_code = "SIGTERM", 143
        if report.steps_done < report.steps_total and report.failure is None:
            report.failure = self._where("the client terminated the CLI (SIGTERM) before this step was played")

    def _where(self, what: str) -> str:
        step = self.steps[self._index] if self._index < len(self.steps) else {"op": "end"}
        return f"step {self._index + 1} of {len(self.steps)} ({describe_step(step)}): {what}"

    def fail(self, what: str) -> ScriptFailure:
        return ScriptFailure(self._where(what))

    # ------------------------------------------------------------------ writing

    def send(self, line: JsonDict) -> None:
        """Write ``line`` as one JSON line (UTF-8; a lone surrogate goes out as a JSON escape,
        as the real CLI writes it). Raises ``ClientGone``."""
        try:
            data = json.dumps(line, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            data = json.dumps(line).encode("ascii")
        self.wire.write(data + b"\n")

    @property
    def session_id(self) -> str:
        return str(self.settings.get("session_id", "scripted-session"))

    @property
    def model(self) -> str:
        return str(self.settings.get("model", "claude-scripted"))

    def timeout(self, step: JsonDict) -> float:
        return float(step.get("timeout") or self.settings.get("timeout") or 10.0)

    # ------------------------------------------------------------------ reading

    def _read(self, deadline: Optional[float]) -> Optional[JsonDict]:
        """The client's next frame (auto-answering ``initialize``); None at the deadline.
        Raises ``ScriptFailure`` for a line that is not a JSON object; EOFError at EOF."""
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self._input_ended:
                raise EOFError
            try:
                line = self.wire.read_line(left)
            except EOFError:
                self._input_ended = True
                raise
            if line is None:
                return None
            try:
                frame = json.loads(line)
            except ValueError:
                frame = None
            self.report.received.append(frame if isinstance(frame, dict) else line.decode("utf-8", "replace"))
            if not isinstance(frame, dict):
                raise self.fail(f"the client wrote a line that is not a JSON object: {line[:200]!r}")
            if self._auto_answer(frame):
                continue
            answered = _response_id(frame)
            if answered is not None and answered in self.pending_asks:
                self._aside[answered] = frame  # for the expect_answer step that collects it
                continue
            return frame

    def _auto_answer(self, frame: JsonDict) -> bool:
        """Answer ``initialize`` (unless turned off) and the ``auto_answers`` subtypes on the
        spot, whatever step is running; True when ``frame`` was one of them."""
        if frame.get("type") != "control_request":
            return False
        request = frame.get("request") or {}
        subtype = request.get("subtype")
        request_id = str(frame.get("request_id"))
        auto: JsonDict = self.settings.get("auto_answers") or {}
        if subtype == "initialize" and self.settings.get("auto_initialize", True) and subtype not in auto:
            self.report.initialize = dict(request)
            self.send(self.initialize_answer(request_id))
            return True
        if subtype not in auto:
            return False
        if subtype == "initialize":
            self.report.initialize = dict(request)
        answer = auto[subtype]
        if answer == NO_ANSWER:
            return True
        if answer == UNSUPPORTED:
            self.send(cli_lines.control_error(request_id, f"Unsupported control request subtype: {subtype}"))
            return True
        if answer == ECHO:
            answer = {"echo": request}
        self.send(cli_lines.control_success(request_id, answer))
        return True

    def initialize_answer(self, request_id: str, response: Optional[JsonDict] = None) -> JsonDict:
        """The answer to ``initialize``: ``response``, else the script's
        ``initialize_response``, else a copy of the real CLI's; ``pid`` added if absent."""
        payload = response if response is not None else self.settings.get("initialize_response")
        if payload is None:
            return cli_lines.initialize_response(request_id)
        payload = dict(payload)
        payload.setdefault("pid", os.getpid())
        return cli_lines.control_success(request_id, payload)

    def next_frame(self, step: JsonDict, what: str, accept: Callable[[JsonDict], bool]) -> JsonDict:
        """The next frame (kept ones first), which must satisfy ``accept``.

        Raises ``ScriptFailure`` naming ``what`` when another frame comes, nothing comes in
        the step's timeout, or input ends first."""
        if self._backlog:
            frame = self._backlog.pop(0)
        else:
            timeout = self.timeout(step)
            try:
                got = self._read(time.monotonic() + timeout)
            except EOFError:
                raise self.fail(f"expected {what}; the client ended its input (stdin EOF) first") from None
            if got is None:
                raise self.fail(f"expected {what}; nothing arrived within {timeout:g}s")
            frame = got
        if not accept(frame):
            raise self.fail(f"expected {what}; got {describe_frame(frame)}")
        return frame

    def find_frame(self, step: JsonDict, what: str, expected: JsonDict) -> JsonDict:
        """Replays: the first frame equivalent to ``expected`` among kept and new ones (other
        frames are kept for later steps). Raises ``ScriptFailure`` with a diff."""
        deadline = time.monotonic() + self.timeout(step)
        candidates = list(self._backlog)
        for frame in candidates:
            if frame_mismatch(expected, frame, self._ids) is None:
                self._backlog.remove(frame)
                return frame
        while True:
            try:
                got = self._read(deadline)
            except EOFError:
                raise self.fail(self._diff(what, expected, candidates, "the client ended its input first")) from None
            if got is None:
                raise self.fail(self._diff(what, expected, candidates, f"nothing equivalent within {self.timeout(step):g}s"))
            if frame_mismatch(expected, got, self._ids) is None:
                return got
            self._backlog.append(got)
            candidates.append(got)

    def _diff(self, what: str, expected: JsonDict, candidates: List[JsonDict], why: str) -> str:
        same_kind = [c for c in candidates if describe_frame(c).split(" ")[0] == describe_frame(expected).split(" ")[0]]
        if not (same_kind or candidates):
            return f"expected {what}; {why}; the client sent nothing else"
        closest = (same_kind or candidates)[-1]
        return f"expected {what}; {why}. Closest frame the client sent:\n{frame_mismatch(expected, closest, self._ids)}"

    def await_response(self, step: JsonDict, request_id: str, what: str) -> JsonDict:
        """The ``response`` body of the client's control_response to ``request_id``; other
        frames are kept for later steps. Raises ``ScriptFailure`` after the step's timeout."""
        timeout = self.timeout(step)
        deadline = time.monotonic() + timeout
        early = self._aside.pop(request_id, None)
        if early is not None:
            return dict(early.get("response") or {})
        for frame in list(self._backlog):
            if _response_id(frame) == request_id:
                self._backlog.remove(frame)
                return dict(frame.get("response") or {})
        while True:
            try:
                got = self._read(deadline)
            except EOFError:
                raise self.fail(f"no answer to {what}: the client ended its input first") from None
            if got is None:
                raise self.fail(f"no answer to {what} within {timeout:g}s")
            if _response_id(got) == request_id:
                return dict(got.get("response") or {})
            self._backlog.append(got)

    def listen(self, seconds: float) -> bool:
        """Spend ``seconds`` answering what is answered whenever it comes (``initialize``, the
        ``auto_answers``); other frames are kept for later steps. True if the client closed
        the CLI meanwhile."""
        deadline = time.monotonic() + seconds
        while not self._input_ended:
            try:
                frame = self._read(deadline)
            except EOFError:
                break
            if frame is None:
                return False
            self._backlog.append(frame)
        return self.wire.stall(max(0.0, deadline - time.monotonic()))

    def _drain_until_eof(self) -> None:
        """After the last step: answer interrupts, fail on anything else, until input ends."""
        self._index = len(self.steps)
        self.serve_until_input_ends(lambda frame: False, f"after the script's last step ({len(self.steps)} steps)")

    def serve_until_input_ends(self, take: Callable[[JsonDict], bool], where: str,
                               stop_at: Optional[Callable[[JsonDict], bool]] = None) -> Optional[JsonDict]:
        """Read frames (kept ones first) until the client ends its input (None), however long
        that takes, or until a frame ``stop_at`` accepts (returned): ``take`` handles a frame
        (True) or declines it; an ``interrupt`` is answered with success; any other frame
        raises ``ScriptFailure`` naming ``where``."""
        while True:
            if self._backlog:
                frame: Optional[JsonDict] = self._backlog.pop(0)
            else:
                try:
                    frame = self._read(time.monotonic() + 1.0)
                except EOFError:
                    return None
            if frame is None:
                continue
            if stop_at is not None and stop_at(frame):
                return frame
            if take(frame):
                continue
            request = frame.get("request") or {}
            if frame.get("type") == "control_request" and request.get("subtype") == "interrupt":
                self.send(cli_lines.control_success(str(frame.get("request_id"))))
                continue
            raise ScriptFailure(f"{where}: unexpected {describe_frame(frame)}")

    # ------------------------------------------------------------------ steps

    def _play(self, step: JsonDict) -> Optional[str]:
        handler = self.handlers.get(str(step.get("op")))
        if handler is None:
            raise self.fail(f"unknown step op {step.get('op')!r} (a newer script format?)")
        return handler(self, step)

    # state the step handlers share
    def note_user(self) -> int:
        self._users_seen += 1
        return self._users_seen

    def note_text(self, text: str) -> None:
        self._texts.append(text)

    def take_texts(self) -> str:
        text, self._texts = "".join(self._texts), []
        return text

    def note_result(self, is_error: bool) -> None:
        self._last_result_error = is_error

    def map_id(self, recorded: str, live: str) -> None:
        self._ids[recorded] = live

    def live_id(self, recorded: str) -> str:
        return self._ids.get(recorded, recorded)

    def mcp_next_id(self, server: str) -> Optional[int]:
        """The next JSON-RPC id for ``server``; None until its handshake ran."""
        if server not in self._mcp_ready:
            return None
        self._mcp_ready[server] += 1
        return self._mcp_ready[server]

    def mcp_handshake_done(self, server: str, last_id: int) -> None:
        self._mcp_ready[server] = last_id


def user_text(frame: JsonDict) -> Any:
    """The text of a user frame (its text blocks joined), or its content as it is."""
    content = (frame.get("message") or {}).get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return content


def _response_id(frame: JsonDict) -> Optional[str]:
    if frame.get("type") != "control_response":
        return None
    value = (frame.get("response") or {}).get("request_id")
    return None if value is None else str(value)


def new_request_id() -> str:
    return str(uuid.uuid4())


Handler = Callable[[ScriptRunner, JsonDict], Optional[str]]
"""What a step does: ``handler(runner, step)``; ``"stop"`` ends the run at this step."""
