"""``QueuedScriptRunner``: one scripted-CLI process serving the runs a ``RunQueue`` hands out
(the switch's in-process CLIs), each played as a run of its own.

Each first user message — of the process, or after the ``/clear`` reset an ``AgentPool`` sends
between runs — takes the scripted run for its prompt (``RunQueue.claim``); a scripted run that
does not begin by waiting for a user message (a replay) is taken at once, in order. A ``/clear``
after a run is answered as CLI 2.1.197 answers it: ``system/init`` with a new session id and a
result of no turns. Runs on the engine's one thread, like ``ScriptRunner``.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Mapping, Optional

from . import cli_lines
from .interpreter import Handler, RunReport, ScriptFailure, ScriptRunner, Wire, user_text
from .run_queue import QueuedRun, RunQueue

__all__ = ["QueuedScriptRunner"]

JsonDict = Dict[str, Any]


class QueuedScriptRunner(ScriptRunner):
    """A ``ScriptRunner`` playing the scripted runs ``queue`` hands out instead of ``script``'s
    steps (``script``'s settings apply until the first run is taken)."""

    def __init__(self, script: JsonDict, wire: Wire, handlers: Mapping[str, Handler], queue: RunQueue,
                 report: Optional[RunReport] = None, on_change: Optional[Callable[[RunReport], None]] = None) -> None:
        super().__init__(script, wire, handlers, report, on_change)
        self.queue = queue
        self._resets = 0

    def _body(self) -> int:
        """One CLI process serving scripted runs from ``queue``: each first user message (of
        the process, or after a ``/clear`` reset, as ``AgentPool`` sends between runs) takes
        the scripted run for that prompt, which is then played as a run of its own (its own
        ``RunReport``). Raises ``ScriptFailure`` when no scripted run is left for a prompt."""
        played = 0
        while True:
            eager = self.queue.claim_unprompted()
            if eager is not None:  # it plays from its first step, whatever the client sends
                self._start_queued(eager, None)
                code = self._play_steps()
                if code is not None:
                    return code
                played += 1
                continue
            frame = self._next_user_between_runs(after_run=played > 0)
            if frame is None:
                if played:
                    self.report.ended = "eof"  # the run itself ended well before the input did
                return self._end(1 if self._last_result_error else 0, "eof")
            prompt = user_text(frame)
            if played and prompt == "/clear":
                self._answer_reset()
                continue
            queued = self.queue.claim(prompt if isinstance(prompt, str) else None)
            if queued is None:
                why = f"no scripted run left for the user message {prompt!r}: {self.queue.describe_left()}"
                self.queue.refuse(why)
                raise ScriptFailure(why)
            self._start_queued(queued, frame)
            code = self._play_steps()
            if code is not None:
                return code
            played += 1

    def _next_user_between_runs(self, after_run: bool) -> Optional[JsonDict]:
        """The next user message, however long it takes (a warm CLI waits); None once input
        ends. Interrupts are answered; any other frame raises ``ScriptFailure`` (before any
        run was taken, also recorded in the queue: no run's report would show it)."""
        where = f"after the scripted run's last step ({len(self.steps)} steps)" if after_run else "before the first user message"
        try:
            return self.serve_until_input_ends(lambda frame: False, where, stop_at=lambda frame: frame.get("type") == "user")
        except ScriptFailure as failure:
            if not after_run:
                self.queue.refuse(str(failure))
            raise

    def _start_queued(self, queued: QueuedRun, frame: Optional[JsonDict]) -> None:
        """Make ``queued`` the run being played, ``frame`` (its
        first user message, if read already) waiting for its first step."""
        previous = self.report
        self.steps = list(queued.script["steps"])
        session_id = self.settings.get("session_id") if self._resets else None
        self.settings = dict(queued.script.get("settings") or {})
        if session_id is not None:
            self.settings["session_id"] = session_id
        self.report = RunReport(len(self.steps))
        self.report.initialize = previous.initialize
        self.report.received = list(previous.received) if not self._resets else [frame] if frame else []
        self.report.argv, self.report.argv_files = previous.argv, previous.argv_files
        queued.report = self.report
        if frame is not None:
            self._backlog.insert(0, frame)
        self._users_seen = 0
        self._index = 0

    def _answer_reset(self) -> None:
        """Answer ``/clear`` as CLI 2.1.197 does: ``system/init`` with a new session id and a
        result of no turns, costing nothing."""
        self._resets += 1
        base = str(self.settings.get("session_id", "scripted-session")).split("~", 1)[0]
        self.settings["session_id"] = f"{base}~{self._resets}"
        self.send(cli_lines.system_init_line(
            self.session_id, self.model, str(self.settings.get("cwd") or os.getcwd()),
            list(self.settings.get("tools") or cli_lines.DEFAULT_TOOLS), [],
            str(self.settings.get("permission_mode", "default")),
        ))  # fmt: skip
        self.send(cli_lines.result_line(session_id=self.session_id, model=self.model, result="", num_turns=0))
