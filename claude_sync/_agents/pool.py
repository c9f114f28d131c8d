"""``AgentPool``: many runs at once on warm, reused CLIs, in the ``concurrent.futures`` shape.

::

    with AgentPool(options, max_workers=4, warm=2) as pool:
        futures = [pool.submit(p) for p in prompts]       # Future[RunResult]
        for future in as_completed(futures): ...
        with pool.client() as client: ...                 # a warm ClaudeSDKClient

Threads (all named ``claude_sync-agentpool-…`` and joined by ``shutdown``):

- ``…-worker-<n>`` (``max_workers`` of them): take a job, take a parked CLI whose options
  equal the job's (or start one cold), run it (``collect_turn``, the turn driver ``run()`` uses too), settle the future, then reset
  the CLI with ``/clear`` and park it — or close it (see ``claude_sync._agents.reuse`` for when).
- ``…-keeper``: keeps ``warm`` CLIs with the pool's options started and initialized, and
  replaces a parked CLI that died (checked every ``KEEPER_TICK`` s and again when taken).

At most ``max_workers`` runs run at once, and at most ``max_clis`` (default ``max_workers``)
of the pool's CLIs are alive at once — running, parked and starting together (a real CLI is
~300 MB): the keeper does not top ``warm`` up while that many are alive, and a run that needs
a new CLI at the cap first closes a parked one (one with options other than the pool's
first), or waits for a starting one. ``max_clis > max_workers`` keeps warm CLIs ready even
while every worker is busy. Clients leased with ``client()`` come on top (the caller asked).
Parked CLIs are bounded by ``max(warm, max_workers)`` (the oldest with options other than the
pool's is closed first). ``Future.cancel()`` on a running
run closes its CLI (the close ladder reaps it) before returning ``True``; ``shutdown(
cancel_futures=True)`` and leaving the ``with`` block by an exception (Ctrl-C included) do
that for every run; every pending future ends cancelled or failed, never left pending.

A run's options are copied when it is submitted (``reuse.snapshot_options``): changing the
options object afterwards changes later runs only, and a parked CLI serves a run only when its
copy equals the run's. After ``shutdown`` the queued runs still reuse warm CLIs; the last
worker to finish closes every parked CLI (also after ``shutdown(wait=False)``), and a run that
ends once the pool is shut down with nothing queued closes its CLI without the ``/clear``.

The pool keeps the jobs, their futures, the workers and shutdown; its CLIs — acquire, start,
park, retire, keep warm, the cap — are a ``CliSlots`` (``claude_sync._agents.slots``), under
the same lock. ``RunFuture`` is in ``claude_sync._agents.futures``, the reset and its policy
in ``claude_sync._agents.reuse``.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import (
    Any,
    Deque,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Set,
    Type,
    overload,
)

from .._options.options import ClaudeAgentOptions
from .._options.timeouts import optional_seconds
from .._redaction.redactor import redacted_logger
from .._shared_pool.switch import leasing_path
from .._tracing.otel import attached, caller_context, untraced, watch_pool
from .._wire.errors import CLIConnectionError, ProcessError, ReceiveTimeoutError, UsageError
from .._wire.messages import ResultMessage
from .._wire.protocol import StreamItem
from .futures import RunFuture, settle
from .reuse import CliSlot, reset_conversation, retire_reason, snapshot_options
from .run import RunResult, T, collect_turn, outcome_error
from .slots import KEEPER_TICK, CliSlots, TransportFactory

__all__ = ["AgentPool", "TransportFactory"]

logger = redacted_logger("claude_sync.agents")


class _Job:
    __slots__ = ("future", "prompt", "options", "timeout", "context")

    def __init__(self, future: RunFuture[Any], prompt: str, options: ClaudeAgentOptions, timeout: Optional[float]):
        self.future = future
        self.prompt = prompt
        self.options = options
        self.timeout = timeout
        self.context = caller_context()
        """The submitting thread's OpenTelemetry context (None without OpenTelemetry): the run's
        span, and a CLI started for it, go under the caller's span."""


class AgentPool:
    """Runs agents on up to ``max_workers`` CLIs at once, ``warm`` of them started ahead.

    ``reuse`` (default True) resets a CLI with ``/clear`` after a run and gives it the next
    run with equal options, where isolation is proven (see ``claude_sync._agents.reuse``);
    ``max_runs_per_cli`` bounds how often; ``reset_timeout`` bounds one reset.
    ``max_clis`` (default ``max_workers``): the most CLIs of the pool alive at once (see the
    module doc). ``transport_factory``: called with a CLI's options each time the pool would
    start one, it returns the ``Transport`` to use instead (e.g. ``lambda options:
    scripted.transport()``); as with ``ClaudeSDKClient(transport=)``, the options that become
    CLI flags are then not applied. With leasing on (``options.shared_pool``, or
    ``CLAUDE_SYNC_SHARED_POOL``; no ``transport_factory``) each run leases its CLI from the
    machine-wide pool and gives it back when it ends (that pool resets and parks it): ``warm``
    is ignored (logged) and nothing is parked here. Raises ``ValueError`` for ``max_workers < 1``, ``warm < 0``,
    ``warm > max_workers``, ``max_runs_per_cli < 1``, ``max_clis < max_workers``
    (``TypeError`` for a ``max_clis`` that is not an int, a ``transport_factory`` that is not
    callable).

    Attributes:
        max_workers: The most runs (and CLIs) at once.
        reuse: Whether a CLI serves another run after a ``/clear`` reset, where that is proven to
            isolate runs.
        max_runs_per_cli: The most runs one CLI serves before it is retired.
        reset_timeout: Seconds one ``/clear`` reset may take before the CLI is retired instead.
    """

    def __init__(
        self,
        options: Optional[ClaudeAgentOptions] = None,
        *,
        max_workers: int = 4,
        warm: int = 0,
        reuse: bool = True,
        max_runs_per_cli: int = 100,
        reset_timeout: float = 30.0,
        max_clis: Optional[int] = None,
        transport_factory: Optional[TransportFactory] = None,
    ) -> None:
        self._check_sizes(max_workers, warm, max_runs_per_cli)
        checked_max_clis = self._check_max_clis(max_clis, max_workers)
        if transport_factory is not None and not callable(transport_factory):
            raise TypeError(f"transport_factory must be callable, got {type(transport_factory).__name__}")
        options = options or ClaudeAgentOptions()
        if warm and options.trace_cli:
            raise ValueError("warm CLIs cannot have trace_cli=True: a CLI started ahead has no run's trace to join")
        if warm and transport_factory is None and leasing_path(options) is not None:
            logger.info("AgentPool: warm=%d ignored: each run leases a warm CLI from the shared pool", warm)
            warm = 0
        self.max_workers = max_workers
        self.reuse = reuse
        self.max_runs_per_cli = max_runs_per_cli
        self.reset_timeout = reset_timeout
        self._cond = threading.Condition()
        self._jobs: Deque[_Job] = deque()
        self._running: Set[RunFuture[Any]] = set()  # stopped (cancelled) by shutdown(cancel_futures=True)
        self._workers_left = max_workers  # the last worker out closes the parked CLIs
        self._runs = 0
        self._slots = CliSlots(
            options, warm=warm, max_clis=checked_max_clis, max_parked=max(warm, max_workers),
            transport_factory=transport_factory, cond=self._cond, still_wanted=self._queued_runs_left,
        )  # fmt: skip
        self._threads = [
            threading.Thread(target=self._work, name=f"claude_sync-agentpool-worker-{n}", daemon=True)
            for n in range(max_workers)
        ]
        for thread in self._threads:
            thread.start()
        self._slots.start_keeper()
        self._threads.append(self._slots.keeper)
        watch_pool(self)

    @property
    def options(self) -> ClaudeAgentOptions:
        """The options runs use unless ``submit`` gets others; only runs with these options
        take a warm or reused CLI."""
        return self._slots.options

    @property
    def warm(self) -> int:
        """How many CLIs the pool keeps started ahead, past ``initialize``."""
        return self._slots.warm

    @property
    def max_clis(self) -> int:
        """The most CLIs of the pool alive at once (leased clients not counted)."""
        return self._slots.max_clis

    @property
    def transport_factory(self) -> Optional[TransportFactory]:
        """Called with a CLI's options each time the pool would start one; returns the
        ``Transport`` to use instead. None: the pool starts real CLIs."""
        return self._slots.transport_factory

    def _never_wanted_again(self) -> bool:
        """Worker, after a run: the pool is shut down with nothing queued, so a parked CLI would
        serve no other run (``submit`` and ``client()`` refuse from now on): the reset is skipped."""
        with self._cond:
            return self._slots.closing and not self._jobs

    def _queued_runs_left(self) -> bool:
        """Holding ``_cond``: whether a queued run may still take a parked CLI (a worker is
        left to run it)."""
        return bool(self._jobs) and self._workers_left != 0

    @staticmethod
    def _check_sizes(max_workers: int, warm: int, max_runs_per_cli: int) -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        if warm < 0:
            raise ValueError(f"warm must be 0 or more, got {warm}")
        if warm > max_workers:
            raise ValueError(f"warm ({warm}) cannot exceed max_workers ({max_workers})")
        if max_runs_per_cli < 1:
            raise ValueError(f"max_runs_per_cli must be at least 1, got {max_runs_per_cli}")

    @staticmethod
    def _check_max_clis(max_clis: Optional[int], max_workers: int) -> int:
        if max_clis is None:
            return max_workers
        if isinstance(max_clis, bool) or not isinstance(max_clis, int):
            raise TypeError(f"max_clis must be an int, got {type(max_clis).__name__}")
        if max_clis < max_workers:
            raise ValueError(f"max_clis ({max_clis}) cannot be less than max_workers ({max_workers})")
        return max_clis

    # ------------------------------------------------------------------ public API

    @overload
    def submit(
        self,
        prompt: str,
        *,
        options: Optional[ClaudeAgentOptions] = None,
        timeout: Optional[float] = None,
        output_format: Type[T],
    ) -> RunFuture[T]: ...

    @overload
    def submit(
        self,
        prompt: str,
        *,
        options: Optional[ClaudeAgentOptions] = None,
        timeout: Optional[float] = None,
        output_format: Optional[Dict[str, Any]] = None,
    ) -> RunFuture[Any]: ...

    def submit(
        self,
        prompt: str,
        *,
        options: Optional[ClaudeAgentOptions] = None,
        timeout: Optional[float] = None,
        output_format: Any = None,
    ) -> RunFuture[Any]:
        """Queue one run; returns its future (any thread). ``timeout`` bounds the run once
        it has a CLI. ``output_format`` (a class or a schema dict) replaces the options'
        one for this run: the future's ``RunResult`` has the instance in ``output``. The
        schema goes to the CLI when it starts, so only CLIs started with the same
        ``output_format`` are reused for the run — give the pool's options the class to
        keep warm CLIs for it. Raises ``TypeError`` for a non-str prompt or an
        ``output_format`` class without a JSON form, ``TypeError``/``ValueError`` for a
        ``timeout`` the platform cannot wait, ``UsageError`` after shutdown."""
        if not isinstance(prompt, str):
            raise TypeError(f"AgentPool runs take a str prompt, got {type(prompt).__name__}")
        timeout = optional_seconds("AgentPool.submit() timeout", timeout)
        options = options or self.options
        if output_format is not None and output_format is not options.output_format:
            options = dataclasses.replace(options, output_format=output_format)
        frozen = snapshot_options(options)
        future: RunFuture[Any] = RunFuture()
        with self._cond:
            if self._slots.closing:
                raise UsageError("cannot submit to an AgentPool that is shut down")
            self._jobs.append(_Job(future, prompt, frozen, timeout))
            self._cond.notify_all()
        return future

    @overload
    def map(
        self,
        prompts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        options: Optional[ClaudeAgentOptions] = None,
        output_format: Type[T],
    ) -> Iterator[RunResult[T]]: ...

    @overload
    def map(
        self,
        prompts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        options: Optional[ClaudeAgentOptions] = None,
        output_format: Optional[Dict[str, Any]] = None,
    ) -> Iterator[RunResult[Any]]: ...

    def map(
        self,
        prompts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        options: Optional[ClaudeAgentOptions] = None,
        output_format: Any = None,
    ) -> Iterator[RunResult[Any]]:
        """Submit every prompt now; yield results in order. ``timeout`` bounds the whole
        iteration (``concurrent.futures.TimeoutError``). Leaving early cancels (and stops)
        the runs not yet yielded. ``output_format`` as for ``submit``. If submitting raises
        (``prompts`` raised, a prompt is not a str, the pool shut down), the runs already
        submitted are cancelled (and stopped) before the error propagates; a ``timeout``
        the platform cannot wait raises ``TypeError``/``ValueError`` before any is."""
        timeout = optional_seconds("AgentPool.map() timeout", timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        futures: List[RunFuture[Any]] = []
        try:
            for prompt in prompts:
                futures.append(self.submit(prompt, options=options, output_format=output_format))
        except BaseException:
            for future in futures:
                future.cancel()
            raise

        def results() -> Iterator[RunResult[Any]]:
            try:
                futures.reverse()
                while futures:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    yield futures[-1].result(remaining)
                    futures.pop()
            finally:
                for future in futures:
                    future.cancel()

        return results()

    @contextmanager
    def client(self, options: Optional[ClaudeAgentOptions] = None) -> Iterator[Any]:
        """Lease a connected ``ClaudeSDKClient`` (warm if one is parked) for a multi-turn
        conversation on the caller's thread. It is closed when the block ends, never reused.
        Raises ``UsageError`` after shutdown, and what ``connect()`` raises."""
        options = snapshot_options(options or self.options)
        with self._cond:
            if self._slots.closing:
                raise UsageError("cannot lease a client from an AgentPool that is shut down")
        slot = self._slots.lease(options)
        try:
            yield slot.client
        finally:
            self._slots.retire(slot, "leased clients are not reused")

    def stats(self) -> Dict[str, int]:
        """A snapshot: CLIs ``parked``/``busy``/``alive`` (the pool's own, under ``max_clis``)
        and runs ``queued`` now; so far: ``runs`` completed, CLIs ``started``, ``reused``
        (reset and parked again), ``retired``, ``replaced_dead`` and ``peak_alive``."""
        with self._cond:
            slots = self._slots.snapshot()
            alive = slots.pop("alive")
            return dict({"runs": self._runs}, **slots, queued=len(self._jobs), alive=alive)

    def parked_pids(self) -> List[Optional[int]]:
        """The process ids of the CLIs parked (started, idle) right now, oldest first; None for one
        whose transport has no pid. Any thread.
        """
        return self._slots.parked_pids()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking work. ``cancel_futures``: cancel queued runs *and stop running ones*
        (their CLIs are reaped). ``wait``: join every thread, then close every CLI."""
        with self._cond:
            self._slots.closing = True
            jobs = list(self._jobs) if cancel_futures else []
            if cancel_futures:
                self._jobs.clear()
            self._cond.notify_all()
        for job in jobs:
            job.future.cancel()
        self._slots.close_warming()
        if cancel_futures:
            self._stop_busy()
        if not wait:
            return
        try:
            self._join()
        except BaseException:  # Ctrl-C while waiting for runs: stop them all, then re-raise
            if not cancel_futures:
                self.shutdown(wait=True, cancel_futures=True)
            raise

    def close(self) -> None:
        """``shutdown(wait=True, cancel_futures=True)``: bounded, every CLI reaped."""
        self.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> AgentPool:
        return self

    def __exit__(self, exc_type: Any, *exc_info: Any) -> None:
        self.shutdown(wait=True, cancel_futures=exc_type is not None)

    # ------------------------------------------------------------------ workers

    def _work(self) -> None:
        """Worker thread: run jobs until shutdown and an empty queue; the last one out
        closes the parked CLIs."""
        while True:
            with self._cond:
                while not self._jobs and not self._slots.closing:
                    self._cond.wait(KEEPER_TICK)
                if not self._jobs:
                    self._workers_left -= 1
                    parked = self._slots.drain_parked() if self._workers_left == 0 else []
                    break
                job = self._jobs.popleft()
                started = job.future.start()
                if started:
                    self._running.add(job.future)
            if started:
                try:
                    with attached(job.context):
                        self._execute(job)
                finally:
                    with self._cond:
                        self._running.discard(job.future)
        for slot in parked:
            self._slots.retire(slot, "the pool is shut down and its queue is empty", counted=False)

    def _execute(self, job: _Job) -> None:
        """Worker: run ``job`` on a CLI and settle its future (with the result, or with what
        the run raised); then reset and park the CLI, or close it. Never raises."""
        slots = self._slots
        slot: Optional[CliSlot] = None
        try:
            slot, was_parked = slots.acquire(job.options, job.future)
            if was_parked and not job.future.attach(slot):
                slots.retire(slot, "its run was cancelled")
                return
            messages = self._turn(slot, job, may_retry=was_parked)
            if messages is None:
                slots.retire(slot, "it died while parked", dead=True)
                slot = None
                slot = slots.start(job.options, job.future, reserved=slots.room_for_one(job.future))
                messages = self._turn(slot, job, may_retry=False)
            assert messages is not None
            outcome = RunResult.from_messages(messages, slot.cost_before, job.options.output_format, slot.usage_before)
        except BaseException as exc:  # noqa: BLE001 - the future carries it to the caller
            if slot is not None:
                slots.retire(slot, f"the run failed: {exc!r}")
            settle(job.future, exc=exc)
            return
        slot.runs += 1
        slot.session_ids.append(outcome.session_id)
        with self._cond:
            self._runs += 1
        error = outcome_error(outcome)
        if error is not None and job.options.raise_on_error_result:
            settle(job.future, exc=error)
        else:
            settle(job.future, result=outcome)
        self._after_run(slot, outcome, job)

    def _turn(self, slot: CliSlot, job: _Job, *, may_retry: bool) -> Optional[List[StreamItem]]:
        """Worker: send the prompt and collect the turn. None when ``may_retry`` and the CLI
        (a parked one) turned out dead before it said anything about this run: the prompt
        had no effect, so the run may move to a fresh CLI. Leading messages that belong to an
        earlier run's session (a late line after that run's reset) are dropped."""
        job.future.note_pid(slot)
        received: List[StreamItem] = []
        earlier = set(slot.session_ids[:-1])  # sessions of earlier runs on this CLI
        deadline = None if job.timeout is None else time.monotonic() + job.timeout

        def this_runs_messages() -> Iterator[StreamItem]:
            # A run is everything until the CLI is idle: while an agent task it started runs,
            # the result only ended a turn, and the task's end wakes another (RunResult).
            while True:
                remaining = _left(deadline, job.timeout)
                ended_turn = False
                for message in slot.client.receive_response(timeout=remaining):
                    if not received and getattr(message, "session_id", None) in earlier:
                        logger.debug("Dropped a late %s of an earlier run on this CLI", type(message).__name__)
                        continue
                    received.append(message)
                    ended_turn = ended_turn or message.__class__ is ResultMessage
                    yield message
                session = slot.client.session
                if not ended_turn or session is None or not session.agent_tasks_running:
                    return

        try:
            slot.client.query(job.prompt, timeout=job.timeout)
            return collect_turn(this_runs_messages())
        except (CLIConnectionError, ProcessError):
            if may_retry and not received and not job.future.cancelled():
                return None
            raise

    def _after_run(self, slot: CliSlot, outcome: RunResult[Any], job: _Job) -> None:
        """Worker: reset and park the CLI, or close it. Never raises (a failed reset retires
        the CLI)."""
        if self.transport_factory is None and leasing_path(job.options) is not None:
            # leased from the shared pool: closing gives it back (the pool judges, resets, parks)
            self._slots.retire(slot, "the shared pool takes its leased CLI back", counted=False)
            return
        reason = (
            "reuse=False" if not self.reuse
            else retire_reason(slot, list(outcome.messages), self.max_runs_per_cli, prompt=job.prompt)
        )  # fmt: skip
        if reason is None and outcome.is_error:
            reason = "the run ended with an error result"
        if reason is None and job.future.cancelled():
            reason = "its run was cancelled"
        if reason is None and self._never_wanted_again():
            self._slots.retire(slot, "the pool is shut down and its queue is empty: no reset", counted=False)
            return
        if reason is None:
            try:
                with untraced():  # the pool's own turn: not a run of the application's
                    reason = reset_conversation(slot, self.reset_timeout)
            except BaseException as exc:  # noqa: BLE001 - any failure retires the CLI
                reason = f"/clear failed: {exc!r}"
        if reason is not None:
            self._slots.retire(slot, reason)
            return
        self._slots.park(slot, reused=True)

    # ------------------------------------------------------------------ shutdown

    def _stop_busy(self) -> None:
        """Shutdown's thread: cancel (stop) every running run and close every busy CLI.
        Never raises."""
        with self._cond:
            running = list(self._running)
        for future in running:
            future.cancel()
        self._slots.close_busy()

    def _join(self) -> None:
        """Shutdown's thread: join the workers and the keeper (unbounded: each run is bounded
        by its own timeout), then close every CLI left. Raises ``KeyboardInterrupt`` if the
        wait is interrupted (``shutdown`` then stops every run)."""
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
        self._slots.close_all()


def _left(deadline: Optional[float], timeout: Optional[float]) -> Optional[float]:
    """Seconds left of a run's ``timeout``; raises ``ReceiveTimeoutError`` once none are."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise ReceiveTimeoutError(f"No complete response within {timeout}s", kind="total", timeout=timeout)
    return left
