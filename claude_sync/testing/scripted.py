"""``ScriptedCLI``: say step by step what the CLI does, then run your code against it.

::

    from claude_sync import query
    from claude_sync.testing import ScriptedCLI

    cli = ScriptedCLI.answer("4")                     # user message in, "4" and a result out
    messages = list(query("2 + 2?", transport=cli.transport()))   # in-process: no subprocess
    cli.verify()                                      # raises AssertionError if not followed

    cli = (ScriptedCLI()
           .expect_user("delete it")
           .tool_use("Bash", {"command": "rm -rf /"})
           .ask_permission(expect={"behavior": "deny"})   # your can_use_tool must deny
           .text("I won't.")
           .result())
    options = ClaudeAgentOptions(cli_path=cli.install(tmp_path), can_use_tool=my_policy)
    list(query("delete it", options=options))        # a real subprocess, same pipes as claude
    cli.verify()

A script is plain data (``cli.script``: JSON), so the same script runs in-process
(``transport()``) or as a subprocess (``install(directory)``, used through ``cli_path``).
Defaults: ``initialize`` is answered whenever it comes; ``system/init`` follows the first user
message; ``result()`` fills in the text of the turn, cost and usage. Every step that waits is
bounded (``timeout``, default 10 s); a script the client does not follow ends the CLI with exit
status 97 and its stderr says which step expected what and what arrived instead;
``verify()`` raises that as an ``AssertionError``.

Threads: the builder is for one thread. An in-process run plays on a ``claude_sync-scripted-cli``
thread that ``close()`` of its transport joins.
"""

from __future__ import annotations

import json
import shlex
import stat
import sys
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from .. import ClaudeAgentOptions
from .._engine.stand_in import allow_cli
from ._scripted_cli.in_process import ScriptedTransport
from ._scripted_cli.interpreter import (
    ECHO,
    NO_ANSWER,
    SCRIPT_FORMAT,
    UNSUPPORTED,
    RunReport,
    check_script_format,
)
from ._scripted_cli.run_queue import NEXT_RUN_OP, RunQueue, split_runs
from .replay import load_recording, recording_script

# SCRIPT_FORMAT, check_script_format (interpreter), ScriptedTransport (in_process): from _scripted_cli
__all__ = ["SCRIPT_FORMAT", "ScriptedCLI", "ScriptedTransport", "check_script_format"]

JsonDict = Dict[str, Any]


class _Either:
    """A method that works on the class (starting a new script) and on an instance."""

    def __init__(self, func: Callable[..., ScriptedCLI]) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Optional[ScriptedCLI], cls: type) -> Callable[..., ScriptedCLI]:
        def bound(*args: Any, **kwargs: Any) -> ScriptedCLI:
            return self.func(obj if obj is not None else cls(), *args, **kwargs)

        return bound


class ScriptedCLI:
    """A scripted stand-in for the ``claude`` CLI. Every step method returns ``self``.

    Attributes:
        ECHO: An ``auto_answers`` value: answer with ``{"echo": <the request>}``.
        NO_ANSWER: An ``auto_answers`` value: take the request and never answer it.
        UNSUPPORTED: An ``auto_answers`` value: the real CLI's ``Unsupported control request
            subtype: …`` error.
        settings: The script's settings (session id, model, timeout, auto answers …), as data.
        directory: Where ``install()`` and ``options()`` write when not told (None: they must
            be told).
        steps: The steps so far, as data (each a dict with its ``op``).
    """

    ECHO = ECHO
    NO_ANSWER = NO_ANSWER
    UNSUPPORTED = UNSUPPORTED

    def __init__(
        self,
        *,
        session_id: str = "scripted-session",
        model: str = "claude-scripted",
        timeout: float = 10.0,
        tools: Optional[List[str]] = None,
        auto_init: bool = True,
        auto_initialize: bool = True,
        cwd: Optional[str] = None,
        directory: Union[str, Path, None] = None,
        auto_answers: Optional[Dict[str, Any]] = None,
        initialize_response: Optional[JsonDict] = None,
    ) -> None:
        """``directory``: where ``install()``/``options()`` write when not told (the pytest
        fixture passes the test's ``tmp_path``). The other arguments go into the script's
        settings: ``timeout`` bounds every step that waits for the client;
        ``auto_answers`` maps control request subtypes to the success payload they get
        whenever they arrive (``None``: no payload, ``ScriptedCLI.ECHO``: ``{"echo":
        request}``, ``ScriptedCLI.NO_ANSWER``: never answered, ``ScriptedCLI.UNSUPPORTED``: the
        real CLI's error for an unknown subtype), outside the steps; ``initialize_response`` replaces the default answer to
        ``initialize`` (``pid`` is added); ``auto_initialize=False`` leaves ``initialize`` to
        the steps, ``auto_init=False`` drops the ``system/init`` line."""
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self.settings: JsonDict = {
            "session_id": session_id, "model": model, "timeout": float(timeout),
            "auto_init": auto_init, "auto_initialize": auto_initialize,
        }
        if tools is not None:
            self.settings["tools"] = list(tools)
        if cwd is not None:
            self.settings["cwd"] = cwd
        if auto_answers is not None:
            self.settings["auto_answers"] = dict(auto_answers)
        if initialize_response is not None:
            self.settings["initialize_response"] = dict(initialize_response)
        json.dumps(self.settings)  # settings are data too
        self.directory = None if directory is None else Path(directory)
        self.steps: List[JsonDict] = []
        self._transports: List[ScriptedTransport] = []
        self._report_dirs: List[Path] = []
        self._last_tool: Optional[JsonDict] = None
        self._queue = RunQueue([], refresh=self._sync_queue)

    # ------------------------------------------------------------------ data

    @property
    def script(self) -> JsonDict:
        """The script as JSON-ready data (what a subprocess run reads)."""
        return {"format": SCRIPT_FORMAT, "settings": dict(self.settings), "steps": [dict(s) for s in self.steps]}

    @classmethod
    def from_script(cls, script: JsonDict) -> ScriptedCLI:
        """A ``ScriptedCLI`` playing ``script`` (e.g. loaded from JSON). Raises ``ValueError``."""
        check_script_format(script)
        cli = cls()
        cli.settings.update(script.get("settings") or {})
        cli.steps = [dict(step) for step in script["steps"]]
        return cli

    @classmethod
    def from_recording(cls, path: Union[str, Path], *, timeout: float = 10.0, allow_newer_cli: bool = False,
                       directory: Union[str, Path, None] = None) -> ScriptedCLI:
        """A script replaying a recording (see ``claude_sync.testing.replay``): the CLI's lines
        as recorded, and a check that the client sends equivalent frames. Raises
        ``RecordingFormatError`` for a file it cannot replay."""
        script = recording_script(load_recording(path, allow_newer_cli=allow_newer_cli), timeout=timeout)
        cli = cls.from_script(script)
        cli.directory = None if directory is None else Path(directory)
        return cli

    def step(self, op: str, **fields: Any) -> ScriptedCLI:
        """Append a raw step (the methods below are shortcuts for these)."""
        fields = {k: v for k, v in fields.items() if v is not None}
        json.dumps(fields)  # a script must stay data: fail here, not in a subprocess
        self.steps.append({"op": op, **fields})
        return self

    # ------------------------------------------------------------------ shortcuts

    @_Either
    def answer(self, text: str, *, prompt: Optional[str] = None) -> ScriptedCLI:
        """A whole run: wait for a user message (``prompt`` if given), say ``text``, end with
        a success result. ``ScriptedCLI.answer("4")`` is a complete script; called again once
        the current run has its result, it scripts the **next** run (``next_run()``), so
        ``answer("1"); answer("2")`` serves two runs of your code (for two turns in one
        session, script the second with ``expect_user``/``text``/``result``)."""
        if any(step.get("op") == "result" for step in split_runs(self.steps)[-1]):
            self.next_run()
        return self.expect_user(prompt).text(text).result()

    def next_run(self) -> ScriptedCLI:
        """End the steps of this run; the steps after it script the next run of your code.

        A script of several runs plays each once: through the switch (``claude_cli``,
        ``use_scripted_cli``) or ``transport()``, each run of your code takes the next
        scripted run — in order, or the first one whose ``expect_user`` names the run's
        prompt — at its first user message; an ``AgentPool`` CLI reused after ``/clear`` takes
        the next one too. A run with none left fails, and so does ``verify()`` for a scripted
        run left unplayed. ``install()`` plays one run: it refuses a script of several."""
        return self.step(NEXT_RUN_OP)

    @property
    def scripted_runs(self) -> int:
        """How many runs the script holds (``next_run()`` separates them)."""
        return len(split_runs(self.steps))

    def run_scripts(self) -> List[JsonDict]:
        """The script of each run (``script`` cut at every ``next_run()``), in order."""
        return [dict(self.script, steps=[dict(s) for s in steps]) for steps in split_runs(self.steps)]

    def _sync_queue(self) -> None:
        self._queue.update(self.run_scripts(), lambda index, total: f"scripted run {index + 1} of {total}")

    def run_queue(self) -> RunQueue:
        """The runs of this script waiting to be played, each once (the switch takes them)."""
        self._sync_queue()
        return self._queue

    # ------------------------------------------------------------------ what the CLI says

    def text(self, text: str, *, message_id: Optional[str] = None, parent_tool_use_id: Optional[str] = None) -> ScriptedCLI:
        """An assistant text block (``message_id`` / ``parent_tool_use_id`` as the CLI would send
        them).
        """
        return self.step("text", text=text, message_id=message_id, parent_tool_use_id=parent_tool_use_id)

    def thinking(self, thinking: str, *, signature: Optional[str] = None) -> ScriptedCLI:
        """An assistant thinking block (a signature is made up when None)."""
        return self.step("thinking", thinking=thinking, signature=signature)

    def tool_use(self, name: str, input: JsonDict, *, id: Optional[str] = None) -> ScriptedCLI:  # noqa: A002
        """An assistant tool_use block (``id`` made up when None); a following ``ask_permission``
        or ``tool_result`` without a tool defaults to this one."""
        step = {"name": name, "input": dict(input), "id": id or f"toolu_scripted_{uuid.uuid4().hex[:16]}"}
        self._last_tool = step
        return self.step("tool_use", **step)

    def tool_result(self, content: Any, *, tool_use_id: Optional[str] = None, is_error: bool = False) -> ScriptedCLI:
        """The user line with a tool_result the CLI writes after running a tool."""
        return self.step("tool_result", tool_use_id=tool_use_id or self._tool_field("id"), content=content, is_error=is_error)

    def result(self, result: Optional[str] = None, *, is_error: bool = False, subtype: str = "success",
               total_cost_usd: float = 0.0, usage: Optional[JsonDict] = None, num_turns: int = 1,
               errors: Any = None, **fields: Any) -> ScriptedCLI:
        """The turn's ``result`` line; ``result`` defaults to the texts said since the last one.
        ``errors`` (error subtypes): a list of strings as the real CLI writes, or any JSON value
        to test odd shapes. Any other result field (``structured_output``, ``stop_reason`` …)
        goes in ``fields``."""
        return self.step("result", result=result, is_error=is_error, subtype=subtype, total_cost_usd=total_cost_usd,
                         usage=usage, num_turns=num_turns, errors=errors, **fields)

    def api_error(self, status: int = 401, message: Optional[str] = None) -> ScriptedCLI:
        """What the real CLI writes when the API call failed: a synthetic assistant with
        ``error`` and a ``success`` result with ``is_error`` and ``api_error_status``."""
        return self.step("api_error", status=status, message=message)

    def interrupted(self, *, during: str = "streaming") -> ScriptedCLI:
        """End the turn the way the real CLI does after an interrupt: the ``[Request
        interrupted by user]`` line and an ``error_during_execution`` result (``during``:
        ``"streaming"`` or ``"tools"``). Usually right after ``expect_interrupt()``."""
        if during not in ("streaming", "tools"):
            raise ValueError(f"during must be 'streaming' or 'tools', not {during!r}")
        return self.step("interrupted", during=during)

    def system(self, subtype: str, **data: Any) -> ScriptedCLI:
        """A ``system`` line of that ``subtype`` with ``data`` as its other keys."""
        return self.step("system", subtype=subtype, data=data)

    def emit(self, line: JsonDict) -> ScriptedCLI:
        """Any line as it is (an unknown message type, a hand-made control request …)."""
        return self.step("emit", line=dict(line))

    def raw(self, data: str) -> ScriptedCLI:
        """Bytes as they are, no newline added (a partial line, a non-JSON line)."""
        return self.step("raw", data=data)

    def oversized_line(self, size: int) -> ScriptedCLI:
        """An assistant line whose text is ``size`` bytes (beyond ``max_buffer_size``)."""
        return self.step("oversized", size=int(size))

    def numbered_texts(self, count: int, *, batch: int = 64, per_message: int = 1) -> ScriptedCLI:
        """``count`` assistant text lines "0", "1" … written ``batch`` lines at a time, each
        ``per_message`` consecutive lines sharing one message id: a flood whose order and
        completeness a test can check."""
        return self.step("numbered_texts", count=int(count), batch=int(batch), per_message=int(per_message))

    def flood(self, count: int, *, text: str = "flood") -> ScriptedCLI:
        """``count`` copies of one assistant text line (one message id), written 256 at a
        time: the cheapest way to fill the client's buffers."""
        return self.step("flood", count=int(count), text=text)

    def ignore_sigterm(self) -> ScriptedCLI:
        """From here on the CLI ignores SIGTERM, so closing it takes SIGKILL (a subprocess
        run only: in-process this step fails)."""
        return self.step("ignore_sigterm")

    def stderr(self, text: str) -> ScriptedCLI:
        """Write ``text`` to stderr (your ``stderr`` callback sees it)."""
        return self.step("stderr", text=text)

    def stall(self, seconds: float) -> ScriptedCLI:
        """Say and answer nothing for ``seconds`` (ends early if the client closes the CLI)."""
        return self.step("stall", seconds=float(seconds))

    def crash(self, code: int = 1, stderr: Optional[str] = None) -> ScriptedCLI:
        """Exit now with ``code`` after writing ``stderr``; the script ends here."""
        return self.step("crash", code=int(code), stderr=stderr)

    # ------------------------------------------------------------------ what the CLI hears

    def expect_user(self, content: Optional[str] = None, *, timeout: Optional[float] = None) -> ScriptedCLI:
        """The next frame must be a user message (with this text, if given)."""
        return self.step("expect_user", content=content, timeout=timeout)

    def echo_turns(self) -> ScriptedCLI:
        """From here on answer every user message with the text ``echo: <its text>`` and a
        result, until the client ends its input (answering interrupts; any other frame fails).
        Ends the script: a CLI that serves any number of turns."""
        return self.step("echo_turns")

    def expect_input_open(self) -> ScriptedCLI:
        """Check, without waiting, that the client has not ended its input (stdin EOF) yet."""
        return self.step("expect_input_open")

    def expect_control(self, subtype: str, *, request: Optional[JsonDict] = None, response: Optional[JsonDict] = None,
                       error: Optional[str] = None, hold: bool = False, timeout: Optional[float] = None) -> ScriptedCLI:
        """The next frame must be a control_request ``subtype`` (whose request contains
        ``request``); answer it with success (``response``) or ``error`` — or, with
        ``hold=True``, keep it unanswered until ``answer_held(subtype)``."""
        return self.step("expect_control", subtype=subtype, request=request, response=response, error=error,
                         hold=hold or None, timeout=timeout)

    def answer_held(self, subtype: str, response: Optional[JsonDict] = None) -> ScriptedCLI:
        """Answer the request held by ``expect_control(subtype, hold=True)`` with success."""
        return self.step("answer_held", subtype=subtype, response=response)

    def wait_for_file(self, path: Union[str, Path], *, timeout: Optional[float] = None) -> ScriptedCLI:
        """Wait until ``path`` exists: a gate the test opens (in-process or subprocess).
        Meanwhile ``initialize`` and the ``auto_answers`` are answered as they come."""
        return self.step("wait_for_file", path=str(path), timeout=timeout)

    def expect_interrupt(self, *, timeout: Optional[float] = None) -> ScriptedCLI:
        """Wait for your code's ``interrupt`` control request and answer it."""
        return self.expect_control("interrupt", timeout=timeout)

    def expect_set_model(self, model: Optional[str] = None, *, timeout: Optional[float] = None) -> ScriptedCLI:
        """Wait for your code's ``set_model`` request (with that ``model`` when given) and answer it.
        """
        return self.expect_control("set_model", request=None if model is None else {"model": model}, timeout=timeout)

    # ------------------------------------------------------------------ asking the client

    def ask_permission(self, tool_name: Optional[str] = None, input: Optional[JsonDict] = None, *,  # noqa: A002
                       tool_use_id: Optional[str] = None, suggestions: Optional[List[JsonDict]] = None,
                       expect: Optional[JsonDict] = None, expect_error: Union[str, bool, None] = None,
                       timeout: Optional[float] = None, request_id: Optional[str] = None, **extra: Any) -> ScriptedCLI:
        """Send ``can_use_tool`` (tool, input and id default to the last ``tool_use``) and
        check the answer contains ``expect`` (e.g. ``{"behavior": "deny"}``)."""
        return self.step("ask_permission", tool_name=tool_name or self._tool_field("name"),
                         input=input if input is not None else self._tool_field("input"),
                         tool_use_id=tool_use_id or (self._last_tool or {}).get("id"), suggestions=suggestions,
                         expect=expect, expect_error=expect_error, timeout=timeout, extra=extra or None,
                         request_id=request_id)

    def ask_hook(self, event: str, input: Optional[JsonDict] = None, *, tool_name: Optional[str] = None,  # noqa: A002
                 tool_input: Optional[JsonDict] = None, tool_use_id: Optional[str] = None,
                 expect: Optional[JsonDict] = None, expect_error: Union[str, bool, None] = None,
                 timeout: Optional[float] = None) -> ScriptedCLI:
        """Call every hook the client registered for ``event`` (matching ``tool_name``) and
        check each answer contains ``expect``. Fails when no such hook was registered."""
        return self.step("ask_hook", event=event, input=input, tool_name=tool_name, tool_input=tool_input,
                         tool_use_id=tool_use_id, expect=expect, expect_error=expect_error, timeout=timeout)

    def ask_mcp_tool(self, server: str, tool: str, arguments: Optional[JsonDict] = None, *,
                     expect: Optional[JsonDict] = None, expect_error: Union[str, bool, None] = None,
                     timeout: Optional[float] = None) -> ScriptedCLI:
        """Call ``tool`` of the client's in-process MCP server (after the handshake the real CLI
        runs) and check the tool result contains ``expect`` (e.g. ``{"content": [...]}``)."""
        return self.step("ask_mcp", server=server, tool=tool, arguments=arguments, expect=expect,
                         expect_error=expect_error, timeout=timeout)

    def ask_elicitation(self, server: str, message: str, requested_schema: Optional[JsonDict] = None, *,
                        expect: Optional[JsonDict] = None, expect_error: Union[str, bool, None] = None,
                        timeout: Optional[float] = None) -> ScriptedCLI:
        """Send an MCP ``elicitation`` request, shaped like the real CLI's."""
        request = {"subtype": "elicitation", "mcp_server_name": server, "message": message, "mode": "form",
                   "requested_schema": requested_schema or {"type": "object", "properties": {}}}
        return self.ask_control(request, expect=expect, expect_error=expect_error, timeout=timeout)

    def ask_control(self, request: JsonDict, *, request_id: Optional[str] = None, wait: bool = True,
                    expect: Optional[JsonDict] = None, expect_error: Union[str, bool, None] = None,
                    timeout: Optional[float] = None) -> ScriptedCLI:
        """Send any control request (``request`` holds its ``subtype``) and check the answer
        (``expect``: contained in the success payload; ``expect_error``: an error answer, with
        this text in it if a str). With ``wait=False`` the script goes on at once and a later
        ``expect_answer(request_id)`` collects and checks the answer."""
        if not wait and request_id is None:
            raise ValueError("ask_control(wait=False) needs a request_id for the later expect_answer")
        return self.step("ask_control", request=dict(request), request_id=request_id, wait=None if wait else False,
                         expect=expect, expect_error=expect_error, timeout=timeout)

    def expect_answer(self, request_id: str, *, expect: Optional[JsonDict] = None,
                      expect_error: Union[str, bool, None] = None, timeout: Optional[float] = None) -> ScriptedCLI:
        """Wait for the answer to ``ask_control(..., request_id=..., wait=False)`` and check it."""
        return self.step("expect_answer", request_id=request_id, expect=expect, expect_error=expect_error, timeout=timeout)

    def _tool_field(self, name: str) -> Any:
        if self._last_tool is None:
            raise ValueError(f"no tool_use step before this one to take the tool's {name} from; pass it explicitly")
        return self._last_tool[name]

    # ------------------------------------------------------------------ running

    def transport(self) -> ScriptedTransport:
        """A fresh in-process transport playing this script (one CLI run per transport; a
        script of one run plays whole for each; of several, each plays the next scripted run,
        see ``next_run()``)."""
        if self.scripted_runs > 1:
            return self.queued_transport(self.run_queue())
        transport = ScriptedTransport(self.script)
        self._transports.append(transport)
        return transport

    def queued_transport(self, queue: RunQueue) -> ScriptedTransport:
        """An in-process transport playing the runs ``queue`` hands out (one per first user
        message, and after each ``/clear``). Raises ``ValueError`` when nothing is left."""
        if not queue.unplayed():
            raise ValueError(f"nothing left to play: {queue.describe_left()}")
        return ScriptedTransport(self.run_scripts()[0], queue=queue)

    def install(self, directory: Union[str, Path, None] = None) -> str:
        """Write the script and an executable into ``directory`` (default: the one given to
        the constructor); its path, for ``ClaudeAgentOptions(cli_path=…)``. Every spawn of
        it is one run. Raises ``ValueError`` without a directory."""
        where = directory if directory is not None else self.directory
        if where is None:
            raise ValueError("install() needs a directory (or ScriptedCLI(directory=...))")
        if self.scripted_runs > 1:
            raise ValueError(f"install() plays one run and this script holds {self.scripted_runs} (next_run()): "
                             "play it through the switch (claude_cli, use_scripted_cli) or transport(), or "
                             "install each of ScriptedCLI.from_script(s) for s in run_scripts()")
        folder = Path(where) / f"scripted-cli-{uuid.uuid4().hex[:8]}"
        reports = folder / "runs"
        reports.mkdir(parents=True)
        script_path = folder / "script.json"
        script_path.write_text(json.dumps(self.script), encoding="utf-8")
        package_root = str(Path(__file__).resolve().parents[2])
        executable = folder / "claude"
        executable.write_text(
            "#!/bin/sh\n"
            f'PYTHONPATH={shlex.quote(package_root)}"${{PYTHONPATH:+:$PYTHONPATH}}" exec {shlex.quote(sys.executable)} '
            f"-m claude_sync.testing.cli --script {shlex.quote(str(script_path))} --report-dir {shlex.quote(str(reports))} \"$@\"\n",
            encoding="utf-8",
        )
        executable.chmod(executable.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self._report_dirs.append(reports)

        allow_cli(str(executable))  # a kit CLI may run while the switch is on
        return str(executable)

    def options(self, **fields: Any) -> ClaudeAgentOptions:
        """``ClaudeAgentOptions(cli_path=self.install(), **fields)``: the script as a real
        subprocess, with short close/control timeouts unless ``fields`` say otherwise."""
        fields.setdefault("close_timeout", 5.0)
        fields.setdefault("control_timeout", 10.0)
        return ClaudeAgentOptions(cli_path=self.install(), **fields)

    @property
    def runs(self) -> List[RunReport]:
        """The reports of every run so far (in-process ones, then subprocess ones by start);
        a transport never connected is no run."""
        reports = [t.report for t in self._transports if t.started]
        reports.extend(report for queued in self._queue.played() for report in [queued.played_report()] if report)
        for folder in self._report_dirs:
            files = sorted(folder.glob("run-*.json"), key=lambda p: p.stat().st_mtime_ns)
            reports.extend(RunReport.from_json(json.loads(p.read_text(encoding="utf-8"))) for p in files)
        return reports

    @property
    def last_run(self) -> RunReport:
        """The latest run's report. Raises ``AssertionError`` when the script never ran."""
        runs = self.runs
        if not runs:
            raise AssertionError("the scripted CLI was never started")
        return runs[-1]

    def verify(self, *, runs: Optional[int] = None) -> None:
        """Raise ``AssertionError`` unless every run played the whole script (and, with
        ``runs``, exactly that many runs happened)."""
        reports = self.runs
        refused = self._queue.refusals
        if refused:
            raise AssertionError(f"scripted CLI: a run of your code found no scripted run: {refused[0]}")
        unplayed = self.run_queue().unplayed() if self._queue.played() or self.scripted_runs > 1 else []
        if unplayed and (reports or self.scripted_runs > 1):
            first = unplayed[0]
            wanted = f" (expecting {first.prompt!r})" if first.prompt is not None else ""
            raise AssertionError(f"scripted CLI: {len(unplayed)} scripted run(s) never played, the first: "
                                 f"{first.label}{wanted}")
        if not reports:
            raise AssertionError("the scripted CLI was never started (no transport() connected, no install()ed CLI spawned)")
        if runs is not None and len(reports) != runs:
            raise AssertionError(f"the scripted CLI ran {len(reports)} time(s), expected {runs}")
        for number, report in enumerate(reports, 1):
            prefix = f"scripted CLI (run {number})" if len(reports) > 1 else "scripted CLI"
            if report.failure:
                raise AssertionError(f"{prefix}: {report.failure}")
            if report.steps_done < report.steps_total:
                raise AssertionError(f"{prefix}: stopped after {report.steps_done} of {report.steps_total} steps "
                                     f"(ended: {report.ended or 'still running'})")
