"""The kit's switch: every run in the process plays a scripted or recorded CLI — never the real
one, even where discovery would find the CLI bundled with ``claude-agent-sdk`` first.

::

    from claude_sync.testing import ScriptedCLI, use_scripted_cli, no_real_cli

    with use_scripted_cli(ScriptedCLI.answer("4")):
        my_app.ask("2 + 2?")      # its query()/ClaudeSDKClient/run()/AgentPool play the script
    with no_real_cli():
        my_app.ask("2 + 2?")      # UnscriptedRunError: nothing scripted, no CLI started

While the switch is on, a run that was given no ``transport`` plays the next scripted run (in
process by default; ``subprocess=True`` spawns it as a real process with the full argv, so a
test can check the flags), whatever ``cli_path`` it has; a run with nothing left to play raises
``UnscriptedRunError`` before anything starts. Each scripted run plays once: a ``ScriptedCLI``
holds one run per ``answer()`` (or ``next_run()``), a list one or more per item; in process,
each run of your code takes, at its first user message, the first scripted run left whose
``expect_user`` names that prompt, else the next one in order (as a subprocess: in order), and
a CLI an ``AgentPool`` reuses after ``/clear`` takes the next. Still allowed: a CLI the kit installed
(``ScriptedCLI.install()`` / ``.options()``) and a real CLI aimed at a running
``FakeAnthropicAPI`` (``offline_options``, the ``claude_offline`` fixture) — judged by where
the CLI will really send its requests: ``ANTHROPIC_BASE_URL`` from the environment,
``options.env`` and the ``env`` of every settings layer it loads (``settings`` JSON or file,
the user / project / local files ``setting_sources`` lets it read, managed settings; see
``claude_sync._engine.stand_in.endpoint``).

Also on: the ``claude_cli`` pytest fixture (for its test), and ``CLAUDE_SYNC_TESTING=block``
in the environment (a whole process, e.g. a CI job, with no stand-in: every run without a
transport or script fails).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Callable, Iterator, List, Optional, Sequence, Union

from .._engine import stand_in
from .._engine.transport import Transport
from .._wire.errors import UnscriptedRunError
from ._scripted_cli.run_queue import QueuedRun, RunQueue
from .scripted import ScriptedCLI

if TYPE_CHECKING:
    from .. import ClaudeAgentOptions

__all__ = ["ScriptRouter", "UnscriptedRunError", "no_real_cli", "use_scripted_cli"]

ScriptSource = Union["ScriptedCLI", Sequence["ScriptedCLI"], Callable[["ClaudeAgentOptions"], "ScriptedCLI"]]
"""One ``ScriptedCLI`` (its scripted runs, each played once), a sequence (the runs of each, in
order or matched by prompt, each played once), or a function of the run's options that
returns the ``ScriptedCLI`` to play (every call: a fresh play of what it returns)."""

HOW_TO_SCRIPT = (
    "Script it (claude_cli.answer('…'), use_scripted_cli(ScriptedCLI…)) or pass transport= to "
    "query()/ClaudeSDKClient()/run() (AgentPool: transport_factory=)."
)


class ScriptRouter:
    """The stand-in ``use_scripted_cli`` installs: hands each run its script (any thread)."""

    def __init__(self, source: Optional[ScriptSource], *, subprocess: bool = False, name: str = "use_scripted_cli") -> None:
        self.subprocess = subprocess
        self.name = name
        self.routed = 0
        """How many runs were given a script so far."""
        self._lock = threading.Lock()
        self._pick: Optional[Callable[[ClaudeAgentOptions], Optional[ScriptedCLI]]] = None
        self._clis: List[ScriptedCLI] = []
        self._queue: Optional[RunQueue] = None
        if source is None:
            self._pick = lambda options: None
        elif callable(source) and not hasattr(source, "steps"):
            self._pick = source
        elif isinstance(source, Sequence):
            self._clis = list(source)
            self._queue = _joined_queue(self._clis) if len(self._clis) != 1 else None
        else:
            self._clis = [source]  # type: ignore[list-item]

    def __call__(self, options: ClaudeAgentOptions) -> Union[Transport, str]:
        """Connecting thread: the transport (or executable path) of this run's script.
        Raises ``UnscriptedRunError`` when there is none or it has no steps."""
        if self._pick is not None:
            return self._picked(options)
        if not any(cli.steps for cli in self._clis):
            raise UnscriptedRunError(
                f"{self.name} is on but its scripted CLI has no steps; the real claude CLI is blocked "
                f"and nothing was started. {HOW_TO_SCRIPT}"
            )
        queue = self._queue if self._queue is not None else self._clis[0].run_queue()
        if not queue.unplayed():
            raise UnscriptedRunError(
                f"{self.name} is on and has no script left for this run ({self.routed} run(s) played: "
                f"{queue.describe_left()}); the real claude CLI is blocked and nothing was started. {HOW_TO_SCRIPT}"
            )
        with self._lock:
            self.routed += 1
        if not self.subprocess:
            return self._clis[0].queued_transport(queue)
        queued = queue.claim(None)  # a subprocess takes its run now, in order
        if queued is None:
            raise UnscriptedRunError(f"{self.name}: no script left for this run ({queue.describe_left()}). {HOW_TO_SCRIPT}")
        one = ScriptedCLI.from_script(queued.script)
        one.directory = next((cli.directory for cli in self._clis if cli.directory is not None), None)
        path = one.install()
        queued.reports_from = lambda: one.runs
        return path

    def _picked(self, options: ClaudeAgentOptions) -> Union[Transport, str]:
        assert self._pick is not None
        with self._lock:
            cli = self._pick(options)
            if cli is not None and cli.steps:
                self.routed += 1
        if cli is None:
            raise UnscriptedRunError(
                f"{self.name} is on and has no script left for this run ({self.routed} run(s) played); "
                f"the real claude CLI is blocked and nothing was started. {HOW_TO_SCRIPT}"
            )
        if not cli.steps:
            raise UnscriptedRunError(
                f"{self.name} is on but its scripted CLI has no steps; the real claude CLI is blocked "
                f"and nothing was started. {HOW_TO_SCRIPT}"
            )
        return cli.install() if self.subprocess else cli.transport()


def _joined_queue(clis: List[ScriptedCLI]) -> RunQueue:
    """One queue over the scripted runs of every CLI in ``clis``, in order; each CLI still
    sees (``runs``, ``verify()``) the runs of its own scripts."""
    runs = []
    for number, cli in enumerate(clis, 1):
        queue = cli.run_queue()
        for queued in queue.unplayed():
            queued.label = f"script {number} of {len(clis)}, {queued.label}"
            runs.append(queued)
    return _SharedQueue(runs, [cli.run_queue() for cli in clis])


class _SharedQueue(RunQueue):
    """A ``RunQueue`` over runs owned by several CLIs' queues: a claim is recorded in the
    owner's queue too, so the owner's ``verify()`` sees it."""

    def __init__(self, runs: List[QueuedRun], owners: List[RunQueue]) -> None:
        super().__init__(runs)
        self._owners = owners

    def claim(self, prompt: Optional[str]) -> Optional[QueuedRun]:
        chosen = super().claim(prompt)
        if chosen is not None:
            for owner in self._owners:
                owner.take(chosen)
        return chosen

    def refuse(self, why: str) -> None:
        super().refuse(why)
        for owner in self._owners:
            owner.refuse(why)


@contextlib.contextmanager
def use_scripted_cli(source: ScriptSource, *, subprocess: bool = False) -> Iterator[ScriptRouter]:
    """Turn the switch on for the block: every run without a transport plays ``source``
    (``ScriptSource``); ``subprocess=True`` runs each script as a real process (the
    ``ScriptedCLI`` then needs a ``directory``). The previous switch state comes back at the
    end. Yields the router (``.routed`` counts the runs it served)."""
    router = ScriptRouter(source, subprocess=subprocess)
    previous = stand_in.set_stand_in(router)
    try:
        yield router
    finally:
        stand_in.set_stand_in(previous)


@contextlib.contextmanager
def no_real_cli() -> Iterator[None]:
    """Turn the switch on with nothing scripted: every run without a transport (or a kit CLI)
    raises ``UnscriptedRunError`` and starts nothing."""
    previous = stand_in.set_stand_in(ScriptRouter(None, name="no_real_cli"))
    try:
        yield
    finally:
        stand_in.set_stand_in(previous)
