"""Scripted runs waiting to be played, one per run of your code: ``RunQueue`` (pure data and
a lock; no I/O).

The switch (``use_scripted_cli``, the ``claude_cli`` fixture) hands each run of your code the
next scripted run: in order, or — when the scripted runs name their prompts — the first one
whose prompt is the run's first user message. Each scripted run is played once: a run of your
code with none left fails, and so does a scripted run left unplayed (``unplayed``). Any
thread: claims take a lock.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional

from .interpreter import RunReport

__all__ = ["QueuedRun", "RunQueue", "run_boundaries", "split_runs"]

JsonDict = Dict[str, Any]

NEXT_RUN_OP = "next_run"
"""The step op that ends one scripted run and starts the next (``ScriptedCLI.next_run()``)."""


def split_runs(steps: List[JsonDict]) -> List[List[JsonDict]]:
    """The steps of each scripted run: ``steps`` cut at every ``next_run`` step (which is
    dropped). Never empty: a script with no steps is one empty run."""
    runs: List[List[JsonDict]] = [[]]
    for step in steps:
        if step.get("op") == NEXT_RUN_OP:
            runs.append([])
        else:
            runs[-1].append(step)
    return runs


def run_boundaries(steps: List[JsonDict]) -> int:
    """How many scripted runs ``steps`` hold."""
    return len(split_runs(steps))


def first_prompt(steps: List[JsonDict]) -> Optional[str]:
    """The prompt the run's first ``expect_user`` step names (None: any prompt)."""
    for step in steps:
        if step.get("op") == "expect_user":
            content = step.get("content")
            return None if content is None else str(content)
    return None


class QueuedRun:
    """One scripted run: its script (``{"format", "settings", "steps"}``), the prompt it
    expects (``prompt``, None for any), a name for messages (``label``) and, once a run of
    your code took it, that run's ``report``."""

    def __init__(self, script: JsonDict, label: str) -> None:
        self.script = script
        self.label = label
        self.prompt = first_prompt(script["steps"])
        self.report: Optional[RunReport] = None
        self.reports_from: Optional[Callable[[], List[RunReport]]] = None
        """Where a run played as a subprocess keeps its report (set when it is installed)."""

    def played_report(self) -> Optional[RunReport]:
        """The report of the run that played it (None: not started yet)."""
        if self.report is None and self.reports_from is not None:
            reports = self.reports_from()
            return reports[-1] if reports else None
        return self.report


class RunQueue:
    """The scripted runs of one switch, each played at most once (any thread)."""

    def __init__(self, runs: List[QueuedRun], refresh: Optional[Callable[[], None]] = None) -> None:
        """``refresh``: called before every claim (a script still being written adds its new
        runs through ``update``)."""
        self.runs = runs
        self.refusals: List[str] = []
        """Why runs of your code found no scripted run (for ``verify()``)."""
        self._refresh = refresh
        self._lock = threading.Lock()
        self._taken: List[QueuedRun] = []

    def update(self, scripts: List[JsonDict], label: Callable[[int, int], str]) -> None:
        """Make the runs ``scripts`` (one script each, in order): runs already taken stay, the
        others are replaced or added."""
        with self._lock:
            for index, script in enumerate(scripts):
                fresh = QueuedRun(script, label(index, len(scripts)))
                if index >= len(self.runs):
                    self.runs.append(fresh)
                elif self.runs[index] not in self._taken and self.runs[index].script != script:
                    self.runs[index] = fresh

    def refuse(self, why: str) -> None:
        """Record a run of your code that found no scripted run."""
        with self._lock:
            self.refusals.append(why)

    def claim(self, prompt: Optional[str]) -> Optional[QueuedRun]:
        """The scripted run for a run of your code whose first user message is ``prompt``
        (None: not known yet, in order): the first unplayed one expecting that prompt, else
        the first unplayed one expecting any prompt; None when none is left."""
        if self._refresh is not None:
            self._refresh()
        with self._lock:
            left = [run for run in self.runs if run not in self._taken]
            chosen = next((run for run in left if prompt is not None and run.prompt == prompt), None)
            if chosen is None:
                chosen = next((run for run in left if run.prompt is None or prompt is None), None)
            if chosen is not None:
                self._taken.append(chosen)
            return chosen

    def claim_unprompted(self) -> Optional[QueuedRun]:
        """The next scripted run, taken now, when it does not begin by waiting for a user
        message (a replay, a script that answers ``initialize`` itself); else None."""
        if self._refresh is not None:
            self._refresh()
        with self._lock:
            left = [run for run in self.runs if run not in self._taken]
            if not left or (left[0].script["steps"][:1] or [{}])[0].get("op") == "expect_user":
                return None
        chosen = self.claim(None)
        return chosen

    def take(self, run: QueuedRun) -> None:
        """Mark ``run`` (one of ``runs``) as taken by a claim made elsewhere (a shared queue)."""
        with self._lock:
            if run in self.runs and run not in self._taken:
                self._taken.append(run)

    def played(self) -> List[QueuedRun]:
        """The scripted runs taken so far, in the order they were taken."""
        with self._lock:
            return list(self._taken)

    def unplayed(self) -> List[QueuedRun]:
        """The scripted runs no run of your code took."""
        with self._lock:
            return [run for run in self.runs if run not in self._taken]

    def describe_left(self) -> str:
        """What is left, for a failure message."""
        left = self.unplayed()
        if not left:
            return f"all {len(self.runs)} scripted run(s) were played already"
        wanted = [repr(run.prompt) if run.prompt is not None else "any prompt" for run in left]
        return f"{len(left)} scripted run(s) left, expecting: {', '.join(wanted)}"
