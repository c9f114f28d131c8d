"""``CliSlots``: the CLIs of one ``AgentPool`` — started, parked, busy, leased — and the cap.

The pool (``claude_sync._agents.pool``) keeps the jobs, their futures and shutdown; this class
keeps the CLIs those jobs run on:

- **acquire**: a parked CLI whose options equal the run's (``take_parked``), else a new one
  once there is **room for one** under ``max_clis`` (``room_for_one``: at the cap a parked CLI
  is closed first — one with options other than the pool's — or it waits for a change), then
  **start**\\ ed and initialized on the worker's thread (``start``);
- **park** a CLI after a proven reset (bounded by ``max_parked``: the oldest with options other
  than the pool's goes first), **retire** (close) it otherwise;
- **keep warm**: the ``claude_sync-agentpool-keeper`` thread keeps ``warm`` CLIs with the pool's
  options started and parked, and closes parked CLIs that died (checked every ``KEEPER_TICK``
  s, and again when one is taken);
- the cap: parked, busy (running or starting for a run), the keeper's starting one and room
  reserved for one not started yet together stay under ``max_clis``; leased clients
  (``AgentPool.client()``) come on top.

One lock for the pool and its CLIs: ``cond`` is the pool's condition (its job queue changes
under it too), so a worker waiting for a job and the keeper waiting for room wake on the same
changes. ``still_wanted`` (called holding it) tells ``park`` whether a queued run may still
take a parked CLI once the pool is closing.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set, Tuple

from ..client import ClaudeSDKClient
from .._options.options import ClaudeAgentOptions
from .._redaction.redactor import redacted_logger
from .._wire.errors import UsageError
from .futures import RunFuture
from .reuse import CliSlot, is_alive, snapshot_options

if TYPE_CHECKING:
    from .._engine.transport import Transport

TransportFactory = Callable[[ClaudeAgentOptions], "Transport"]
"""``AgentPool(transport_factory=…)``: a fresh ``Transport`` for each CLI the pool would start
(called on the starting thread with that CLI's options)."""

__all__ = ["CliSlots", "KEEPER_TICK", "START_RETRY_DELAY", "TransportFactory"]

logger = redacted_logger("claude_sync.agents")

KEEPER_TICK = 0.5
"""Seconds between the keeper's checks of parked CLIs (it also wakes on every change)."""
START_RETRY_DELAY = 2.0
"""Seconds the keeper waits after a warm CLI failed to start before trying again."""


class CliSlots:
    """The CLIs of one pool and the rules for starting, parking and closing them.

    Built by ``AgentPool`` (the constructing thread); ``start_keeper`` starts the
    ``claude_sync-agentpool-keeper`` thread, which the pool joins with its workers. Every
    method takes ``cond`` itself unless its docstring says the caller holds it.

    Attributes:
        options: The pool's options: the warm CLIs start with a copy, and at the cap a parked CLI
            with other options is closed first.
        warm: How many CLIs with the pool's options the keeper keeps started ahead.
        max_clis: The most CLIs alive at once (leased ones not counted).
        max_parked: The most CLIs parked at once.
        transport_factory: Called with a CLI's options each time one is started; None: a real CLI.
        cond: The pool's lock and condition (shared with its job queue).
        closing: Set (holding ``cond``) by the pool's ``shutdown``: the keeper stops, no warm
            CLI starts, none is parked unless ``still_wanted``.
    """

    def __init__(
        self,
        options: ClaudeAgentOptions,
        *,
        warm: int,
        max_clis: int,
        max_parked: int,
        transport_factory: Optional[TransportFactory],
        cond: threading.Condition,
        still_wanted: Callable[[], bool],
    ) -> None:
        self.options = options
        self.warm = warm
        self.max_clis = max_clis
        self.max_parked = max_parked
        self.transport_factory = transport_factory
        self.cond = cond
        self.closing = False
        self._still_wanted = still_wanted
        self._parked: List[CliSlot] = []
        self._busy: Set[CliSlot] = set()  # running, starting, leased: closed by shutdown
        self._starting_warm = 0
        self._warming: Set[CliSlot] = set()  # the keeper's CLI being started: closed by shutdown
        self._leased: Set[CliSlot] = set()  # client() leases: not under max_clis, closed at the end
        self._reserved = 0  # room taken under max_clis for a CLI not started yet
        self._capped_logged = False
        self.counts: Dict[str, int] = {"started": 0, "reused": 0, "retired": 0, "replaced_dead": 0, "peak_alive": 0}
        """Totals so far (read and changed holding ``cond``)."""
        self.keeper = threading.Thread(target=self._keep_warm, name="claude_sync-agentpool-keeper", daemon=True)

    def start_keeper(self) -> None:
        """Start the keeper thread (the constructing thread, once). Raises what
        ``Thread.start`` raises."""
        self.keeper.start()

    # ------------------------------------------------------------------ counts

    def alive(self) -> int:
        """The pool's CLIs alive or about to start (caller holds ``cond``): what ``max_clis``
        bounds. Leased clients are not counted."""
        return len(self._parked) + len(self._busy) + len(self._warming) + self._reserved

    def snapshot(self) -> Dict[str, int]:
        """The counts plus ``parked``/``busy``/``alive`` now (caller holds ``cond``)."""
        return dict(self.counts, parked=len(self._parked), busy=len(self._busy), alive=self.alive())

    def parked_pids(self) -> List[Optional[int]]:
        """The pids of the parked CLIs, oldest first (any thread; never raises)."""
        with self.cond:
            return [slot.pid for slot in self._parked]

    # ------------------------------------------------------------------ taking a CLI

    def acquire(self, options: ClaudeAgentOptions, future: RunFuture[Any]) -> Tuple[CliSlot, bool]:
        """Worker: a parked CLI with ``options`` (``True``), or a new one started for
        ``future``'s run once there is room under ``max_clis`` (``False``). Raises what
        ``start`` and ``room_for_one`` raise."""
        slot = self.take_parked(options)
        while slot is None:
            reserved = self.room_for_one(future, wait=False)
            if reserved:
                return self.start(options, future, reserved=True), False
            slot = self.take_parked(options)  # one may have been parked meanwhile
        return slot, True

    def lease(self, options: ClaudeAgentOptions) -> CliSlot:
        """Caller's thread (``AgentPool.client()``): a parked CLI with ``options`` or a new
        one, now leased (outside ``max_clis``; ``retire`` it when done, it is never parked).
        Raises what ``start`` raises."""
        slot = self.take_parked(options) or self.start(options, lease=True)
        with self.cond:
            self._busy.discard(slot)
            self._leased.add(slot)
        return slot

    def room_for_one(self, future: RunFuture[Any], *, wait: bool = True) -> bool:
        """Worker: reserve room for one new CLI under ``max_clis``; True once reserved (the
        caller must start it with ``reserved=True``). At the cap a parked CLI is closed to make
        room; with none parked this waits for a change (one tick) — returning False with
        ``wait=False`` so the caller can look for a newly parked CLI, else until there is room.
        Raises ``UsageError`` when the run is cancelled meanwhile."""
        while True:
            victims: List[CliSlot] = []
            with self.cond:
                if future.cancelled():
                    raise UsageError("the run was cancelled before its CLI started")
                while self.alive() >= self.max_clis and self._parked:
                    victims.append(self._evictee())
                    self._parked.remove(victims[-1])
                room = self.alive() < self.max_clis
                if room:
                    self._reserved += 1
            for victim in victims:
                self.retire(victim, f"making room for a new CLI (max_clis={self.max_clis})", counted=False)
            if room:
                return True
            with self.cond:
                self.cond.wait(KEEPER_TICK)
            if not wait:
                return False

    def _evictee(self) -> CliSlot:
        """The parked CLI to close first (caller holds ``cond``, at least one is parked): the
        oldest with options other than the pool's — the pool's own are the warm ones."""
        others = [s for s in self._parked if s.options != self.options]
        return others[0] if others else self._parked[0]

    def start(
        self,
        options: ClaudeAgentOptions,
        future: Optional[RunFuture[Any]] = None,
        *,
        reserved: bool = False,
        lease: bool = False,
    ) -> CliSlot:
        """Start and initialize a CLI for ``future``'s run, a warm one (``future`` None) or a
        lease, on the calling thread (a worker, the keeper, or ``client()``'s caller).
        ``reserved``: room under ``max_clis`` was reserved for it (released here). Raises
        ``UsageError`` (a warm start after shutdown, or the run was cancelled before its CLI
        started) and what ``connect()`` and the ``transport_factory`` raise; the CLI is
        closed on any failure."""
        try:
            transport = None if self.transport_factory is None else self.transport_factory(options)
            slot = CliSlot(ClaudeSDKClient(options, transport=transport), options)
        except BaseException:
            with self.cond:
                self._reserved -= 1 if reserved else 0
            raise
        with self.cond:
            if reserved:  # the room reserved becomes this CLI, in one step
                self._reserved -= 1
            if self.closing and future is None and not lease:
                raise UsageError("the AgentPool is shut down")
            (self._busy if future is not None else self._leased if lease else self._warming).add(slot)
            self.counts["started"] += 1
            self.counts["peak_alive"] = max(self.counts["peak_alive"], self.alive())
        if future is not None and not future.attach(slot):
            self.retire(slot, "its run was cancelled")
            raise UsageError("the run was cancelled before its CLI started")
        try:
            slot.client.connect()
        except BaseException:
            self.retire(slot, "it failed to start")
            raise
        if future is not None:
            future.note_pid(slot)
        return slot

    def take_parked(self, options: ClaudeAgentOptions) -> Optional[CliSlot]:
        """Any thread: a live parked CLI started with equal options, now busy; None if there
        is none (dead ones found on the way are closed). Never raises."""
        while True:
            with self.cond:
                slot = next((s for s in reversed(self._parked) if s.options == options), None)
                if slot is None:
                    return None
                self._parked.remove(slot)
                self._busy.add(slot)
                self.cond.notify_all()  # the keeper may need to warm another
            if is_alive(slot):
                return slot
            self.retire(slot, "it died while parked", dead=True)

    # ------------------------------------------------------------------ giving one back

    def park(self, slot: CliSlot, *, reused: bool) -> None:
        """Worker or keeper: park ``slot`` for a later run (``reused``: after a reset, counted
        as such); closed instead when the pool is closing and nothing queued wants it, and the
        oldest parked one is closed past ``max_parked``. Never raises."""
        evicted: Optional[CliSlot] = None
        with self.cond:
            self._busy.discard(slot)
            self._warming.discard(slot)
            if self.closing and not self._still_wanted():
                evicted = slot  # nothing queued will want it (queued runs drain on warm CLIs)
            else:
                self._parked.append(slot)
                if reused:
                    self.counts["reused"] += 1
                if len(self._parked) > self.max_parked:
                    evicted = self._evictee()
                    self._parked.remove(evicted)
                self.cond.notify_all()
        if evicted is not None:
            self.retire(evicted, "the pool is closing or full", counted=False)

    def retire(self, slot: CliSlot, reason: str, *, dead: bool = False, counted: bool = True) -> None:
        """Any thread: close ``slot``'s CLI (bounded by the close ladder) and forget it;
        ``dead`` counts it as replaced, ``counted`` as retired. Never raises."""
        logger.debug("Closing CLI pid %s: %s", slot.pid, reason)
        slot.close()
        with self.cond:
            self._busy.discard(slot)
            self._warming.discard(slot)
            self._leased.discard(slot)
            if dead:
                self.counts["replaced_dead"] += 1
            elif counted:
                self.counts["retired"] += 1
            self.cond.notify_all()

    # ------------------------------------------------------------------ keeper

    def _keep_warm(self) -> None:
        """Keeper thread: top the pool's own warm CLIs up to ``warm``; drop dead parked ones.
        Returns once ``closing``; never raises (a failed start is logged and retried)."""
        while True:
            with self.cond:
                if self.closing:
                    return
                ready = sum(1 for s in self._parked if s.options == self.options) + self._starting_warm
                warming = ready < self.warm and self.alive() < self.max_clis
                self._note_cap(ready < self.warm and not warming)
                if not warming:
                    self.cond.wait(KEEPER_TICK)
                    dead = [s for s in self._parked if not is_alive(s)]
                    for slot in dead:
                        self._parked.remove(slot)
                else:
                    dead = []
                    self._starting_warm += 1
                    self._reserved += 1
            for slot in dead:
                self.retire(slot, "it died while parked", dead=True)
            if warming:
                self._warm_one()

    def _note_cap(self, capped: bool) -> None:
        """Keeper (holding ``cond``): log once each time ``max_clis`` starts holding back a
        warm CLI."""
        if capped and not self._capped_logged:
            logger.debug("%d CLIs alive (max_clis=%d): not warming another CLI", self.alive(), self.max_clis)
        self._capped_logged = capped

    def _warm_one(self) -> None:
        """Keeper: start one warm CLI in the room reserved for it and park it; on failure log
        and wait ``START_RETRY_DELAY`` (woken by shutdown). Never raises."""
        try:
            slot = self.start(snapshot_options(self.options), reserved=True)
        except BaseException as exc:  # noqa: BLE001 - logged; retried after a delay
            with self.cond:
                self._starting_warm -= 1
                if not self.closing:
                    logger.warning("A warm CLI failed to start (%r); retrying in %.0fs", exc, START_RETRY_DELAY)
                    self.cond.wait(START_RETRY_DELAY)
            return
        with self.cond:
            self._starting_warm -= 1
        self.park(slot, reused=False)

    # ------------------------------------------------------------------ shutdown

    def close_warming(self) -> None:
        """Shutdown's thread, once ``closing`` is set: close the CLI the keeper is starting
        (its ``start`` then fails). Never raises."""
        with self.cond:
            warming = list(self._warming)
        for slot in warming:
            slot.close()

    def close_busy(self) -> None:
        """Shutdown's thread: close every busy CLI (runs and starts in progress fail). Never
        raises."""
        with self.cond:
            busy = list(self._busy)
        for slot in busy:
            slot.close()

    def drain_parked(self) -> List[CliSlot]:
        """The parked CLIs, taken out of the pool (caller holds ``cond``; the last worker out
        retires them)."""
        parked, self._parked = self._parked, []
        return parked

    def close_all(self) -> None:
        """Shutdown's thread, after every worker and the keeper were joined: close every CLI
        left — parked, busy, leased. Never raises."""
        with self.cond:
            left = self.drain_parked() + list(self._busy) + list(self._leased)
        for slot in left:
            slot.close()
