"""A running session and its ``session_store``: resume from the store, mirror into it.

Resume (``prepare``, the extension hook the connecting thread calls before the spawn plan): with ``resume`` (or
``continue_conversation``) and a store, ``store_resume.materialize`` writes the session to a
temporary config dir and the CLI runs with ``CLAUDE_CONFIG_DIR`` pointing there and
``--resume=<id>`` (``load_timeout_ms`` bounds each store call; ``SessionStoreError``).

Mirroring (``--session-mirror``): the CLI echoes every transcript write as a
``transcript_mirror`` frame. The reader thread hands them to ``enqueue`` (never blocks);
the ``claude_sync-mirror-<pid>`` thread calls ``store.append``, one call per transcript
file per flush, in order. ``"batched"``: a flush per turn (the reader waits for it before
delivering the turn's ``ResultMessage``, at most ``flush_timeout``, so a result means the
store has the turn) or when 500 entries / 1 MiB are pending; ``"eager"``: after every frame.
A failing ``append`` is retried twice (0.2 s, 0.8 s apart), then reported through
``on_error`` (a ``mirror_error`` system message) and its entries are kept in a backlog: the
next flush sends them first, in order, with the new ones (once, no retry delays while the
store keeps failing), so a store that was down for a while catches up without a gap (stores
treat ``uuid`` as an idempotency key). Past ``MAX_BACKLOG_ENTRIES`` / ``MAX_BACKLOG_BYTES``,
and at close if the store is still failing, the backlog is dropped and reported as lost,
with its entry count. A slow ``append`` is reported once ``flush_timeout`` passes and keeps
the mirror thread busy, never the session. After that one timeout the store counts as
*stuck*: later results are delivered without waiting for it (said once, in that report and
the log) until an ``append`` returns again; the final flush at close still waits, at most
``flush_timeout``. The CLI's own transcript is written before each frame, so nothing local
is lost; a transcript that lived in a temporary resume dir is copied into the real config dir
at close when the store missed anything.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Set, Tuple

from .._engine.extensions import ConnectionExtension
from .._engine.tempfiles import remove_private_dir
from .._engine.transport import Transport
from .._options.command import interpret_options
from .._options.options import ClaudeAgentOptions
from .._options.timeouts import MAX_WAIT
from .._redaction.redactor import redacted_logger
from .._wire.messages import ResultMessage
from .._wire.protocol import TranscriptMirrorReceived
from .store_resume import materialize
from .transcript_files import config_dir
from .types import SessionKey, SessionStore, store_implements

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan

__all__ = ["StoreBridge", "file_key", "mirror_error_frame"]

logger = redacted_logger("claude_sync.session_store")

MAX_PENDING_ENTRIES = 500
MAX_PENDING_BYTES = 1 << 20
RETRY_DELAYS = (0.2, 0.8)
MAX_BACKLOG_ENTRIES = 10_000
MAX_BACKLOG_BYTES = 16 << 20

ErrorSink = Callable[[Optional[SessionKey], str], None]


def mirror_error_frame(key: Optional[Mapping[str, Any]], error: str) -> Dict[str, Any]:
    """The ``system/mirror_error`` frame that tells the consumer the store missed entries of
    the transcript ``key`` (None: no single transcript), and why."""
    session_id = key.get("session_id", "") if key else ""
    return {"type": "system", "subtype": "mirror_error", "error": error, "key": key, "session_id": session_id}


def _slot(key: SessionKey) -> Tuple[str, str, str]:
    return (key["project_key"], key["session_id"], key.get("subpath") or "")


def file_key(file_path: str, projects: str) -> Optional[SessionKey]:
    """The store key of a transcript file under ``projects`` (None if it is not one):
    ``<pk>/<sid>.jsonl`` → main, ``<pk>/<sid>/subagents/…/agent-x.jsonl`` → a subpath.
    Symlinks in either path are resolved when the plain paths do not match."""
    try:
        rel = Path(os.path.relpath(file_path, projects))
        if rel.parts[:1] == ("..",):
            rel = Path(os.path.relpath(os.path.realpath(file_path), os.path.realpath(projects)))
    except ValueError:
        return None
    parts = list(rel.parts)
    if len(parts) < 2 or parts[0] in ("..", ".") or rel.is_absolute():
        return None
    if len(parts) == 2 and parts[1].endswith(".jsonl"):
        return {"project_key": parts[0], "session_id": parts[1][:-6]}
    if len(parts) >= 4 and parts[-1].endswith(".jsonl"):
        return {"project_key": parts[0], "session_id": parts[1], "subpath": "/".join(parts[2:])[:-6]}
    return None


class StoreBridge(ConnectionExtension):
    """One session's link to its store, plugged into the connection as an extension. See the
    module docstring for threads and timing. ``prepare`` (the connect's first step) sets
    ``projects``, ``eager``, ``flush_timeout`` and, for a resume, ``temp_dir`` and
    ``real_projects`` from the options; ``on_error`` reports what the store missed."""

    def __init__(
        self, store: SessionStore, on_error: ErrorSink, *, projects: str = "", eager: bool = False,
        flush_timeout: float = 60.0, temp_dir: Optional[Path] = None, real_projects: Optional[Path] = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.projects = projects
        self.eager = eager
        self.flush_timeout = flush_timeout
        self.on_error = on_error
        self.temp_dir = temp_dir
        self.real_projects = real_projects
        self.failures = 0
        self.lost_entries = 0  # entries dropped for good (reported)
        self._backlog: Dict[Tuple[str, str, str], Tuple[SessionKey, List[Any]]] = {}  # mirror thread only
        self._backlog_bytes = 0
        self._failing: Set[Tuple[str, str, str]] = set()  # transcripts whose last append failed
        self._cond = threading.Condition()
        self._pending: List[Tuple[str, List[Any]]] = []
        self._pending_entries = 0
        self._pending_bytes = 0
        self._enqueued = 0  # frames enqueued so far
        self._flushed = 0  # frames the mirror thread has finished with
        self._wanted = 0  # flush everything up to this frame count
        self._closing = False
        self._stuck = False  # a flush timed out and no append has returned since
        self._thread: Optional[threading.Thread] = None

    # ------------------------------------------------------------------ set-up

    def prepare(
        self, options: ClaudeAgentOptions, plan: OptionsPlan, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
        """The options to spawn with (repointed at a materialized resume) and their plan.

        Connecting thread. Raises ``ValueError`` (options the store cannot serve) and
        ``SessionStoreError`` (a store call failed or passed ``load_timeout_ms``).
        """
        if options.session_store_flush not in ("batched", "eager"):
            raise ValueError(f'session_store_flush must be "batched" or "eager", not {options.session_store_flush!r}')
        load_ms = options.load_timeout_ms
        if isinstance(load_ms, bool) or not isinstance(load_ms, (int, float)) or not 0 <= load_ms <= MAX_WAIT * 1000:  # NaN too
            raise ValueError(
                f"load_timeout_ms must be a number of milliseconds from 0 to {MAX_WAIT * 1000:.0f} "
                f"(the longest wait of this platform), not {load_ms!r}"
            )
        if options.enable_file_checkpointing:
            raise ValueError("session_store cannot be combined with enable_file_checkpointing (checkpoints stay on local disk)")
        if options.continue_conversation and options.resume is None and not store_implements(self.store, "list_sessions"):
            raise ValueError("continue_conversation with a session_store needs a store that implements list_sessions()")
        env = {**environ, **options.env}
        real_projects = config_dir(env) / "projects"
        self.flush_timeout = options.control_timeout
        self.eager = options.session_store_flush == "eager"
        self.projects = str(real_projects)
        resumed = materialize(self.store, options, env)
        if resumed is None:
            return options, plan
        temp_dir, session_id = resumed
        self.temp_dir, self.real_projects, self.projects = temp_dir, real_projects, str(temp_dir / "projects")
        spawned = replace(
            options, env={**options.env, "CLAUDE_CONFIG_DIR": str(temp_dir)}, resume=session_id, continue_conversation=False
        )
        return spawned, self.replan(plan, spawned)

    @staticmethod
    def replan(plan: OptionsPlan, spawned: ClaudeAgentOptions) -> OptionsPlan:
        """The caller's ``interpret_options`` plan, updated for the resumed options ``spawned``.

        A resume from the store changes only the session flags and ``CLAUDE_CONFIG_DIR``, so
        only the argv and the environment overlay are worked out again: the callbacks the
        request handlers were built from (hook ids, permission routing) stay the same objects.
        """
        fresh = interpret_options(spawned)
        return replace(plan, cli_args=fresh.cli_args, env_overlay=fresh.env_overlay)

    def started(self, transport: Transport) -> None:
        """The CLI runs (connecting thread): start the mirror thread."""
        self.start(transport.pid)

    def on_frame(self, frame: TranscriptMirrorReceived) -> None:
        """Reader thread: a ``transcript_mirror`` frame goes to the buffer."""
        self.enqueue(frame.file_path, frame.entries)

    def on_result(self, result: ResultMessage) -> None:
        """Reader thread, at a result: the turn reaches the store first (at most
        ``flush_timeout``; see ``flush``)."""
        self.flush(self.flush_timeout)

    def start(self, pid: Optional[int]) -> None:
        """Start the mirror thread (connecting thread, once the CLI runs)."""
        self._thread = threading.Thread(target=self._run, name=f"claude_sync-mirror-{pid}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ reader thread

    def enqueue(self, file_path: str, entries: List[Any]) -> None:
        """Reader thread: buffer one frame; wake the mirror thread if it should flush now."""
        if not entries:
            return
        size = len(json.dumps(entries))
        with self._cond:
            self._pending.append((file_path, entries))
            self._enqueued += 1
            self._pending_entries += len(entries)
            self._pending_bytes += size
            if self.eager or self._pending_entries > MAX_PENDING_ENTRIES or self._pending_bytes > MAX_PENDING_BYTES:
                self._wanted = self._enqueued
                self._cond.notify_all()

    def flush(self, timeout: float, *, final: bool = False) -> bool:
        """Ask for everything enqueued so far to reach the store and wait, at most ``timeout``
        s (reader thread at a result; ``final`` at close). False if it did not finish in time.
        While the store is stuck (see the module docstring) only a ``final`` flush waits."""
        deadline = time.monotonic() + timeout
        with self._cond:
            target = self._enqueued
            self._wanted = max(self._wanted, target)
            self._cond.notify_all()
            if self._stuck and not final:
                return self._flushed >= target
            while self._flushed < target:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._thread is None or not self._thread.is_alive():
                    break
                self._cond.wait(min(remaining, 0.5))
            done = self._flushed >= target
            first = not done and not self._stuck
            if first:
                self._stuck = True
                self.failures += 1
        if first:
            text = (f"SessionStore.append did not finish within {timeout}s; the mirror goes on in the background, "
                    "and results no longer wait for the store until it answers again")
            logger.warning("%s", text)
            self._report(None, text)
        return done

    # ------------------------------------------------------------------ mirror thread

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._closing or (self._pending and self._wanted > self._flushed)):
                    self._cond.wait()
                if not self._pending:
                    break  # closing with nothing new
                batch = self._pending
                count = len(batch)
                self._pending, self._pending_entries, self._pending_bytes = [], 0, 0
            self._send(batch)
            with self._cond:
                self._flushed += count
                recovered, self._stuck = self._stuck, False
                self._cond.notify_all()
            if recovered:
                logger.warning("The session store answers again; results wait for it again")
        if self._backlog:
            self._send([])  # a last try for what failed before

    def _send(self, batch: List[Tuple[str, List[Any]]]) -> None:
        """Mirror thread: append each transcript's entries, its backlog first."""
        by_key: Dict[Tuple[str, str, str], Tuple[SessionKey, List[Any]]] = {}
        for slot, (kept_key, kept) in self._backlog.items():
            by_key[slot] = (kept_key, list(kept))
        self._backlog, self._backlog_bytes = {}, 0
        for path, entries in batch:
            found = file_key(path, self.projects)
            if found is None:
                logger.warning("Dropping mirrored lines of %s: not under %s (the CLI's CLAUDE_CONFIG_DIR differs?)", path, self.projects)
                continue
            by_key.setdefault(_slot(found), (found, []))[1].extend(entries)
        retrying = any(slot in by_key for slot in self._failing)
        for slot, (key, entries) in by_key.items():
            if self._append_with_retries(key, entries, retry=not retrying):
                if slot in self._failing:
                    self._failing.discard(slot)
                    logger.warning("SessionStore.append works again for %s: the backlog reached the store", key)
            else:
                self._failing.add(slot)
                self._keep(slot, key, entries)

    def _keep(self, slot: Tuple[str, str, str], key: SessionKey, entries: List[Any]) -> None:
        """Mirror thread: put entries that failed into the backlog, or drop it when full."""
        size = len(json.dumps(entries))
        kept = sum(len(e) for _, e in self._backlog.values()) + len(entries)
        if kept > MAX_BACKLOG_ENTRIES or self._backlog_bytes + size > MAX_BACKLOG_BYTES:
            self.drop_backlog(f"the backlog of entries waiting for the store passed {MAX_BACKLOG_ENTRIES} entries / {MAX_BACKLOG_BYTES} bytes")
            self._lose(key, len(entries), "the backlog is full")
            return
        self._backlog[slot] = (key, entries)
        self._backlog_bytes += size

    def drop_backlog(self, why: str) -> None:
        """Mirror or closing thread: give up on every entry still waiting; reported per key."""
        backlog, self._backlog, self._backlog_bytes = self._backlog, {}, 0
        for key, entries in backlog.values():
            self._lose(key, len(entries), why)

    def _lose(self, key: SessionKey, count: int, why: str) -> None:
        with self._cond:
            self.failures += 1
            self.lost_entries += count
        logger.error("%d mirrored entries of %s never reached the session store: %s", count, key, why)
        self._report(key, f"{count} entries never reached the session store ({why}); the local transcript has them")

    def _append_with_retries(self, key: SessionKey, entries: List[Any], *, retry: bool = True) -> bool:
        """Mirror thread: True when ``store.append`` took the entries. A failure (after the
        retries, when ``retry``) is reported; the caller keeps the entries for later."""
        error: Optional[BaseException] = None
        attempts = len(RETRY_DELAYS) + 1 if retry else 1
        for attempt in range(attempts):
            if attempt:
                time.sleep(RETRY_DELAYS[attempt - 1])
            try:
                self.store.append(key, entries)
                return True
            except Exception as exc:  # noqa: BLE001 - a store is user code
                error = exc
                logger.debug("SessionStore.append attempt %d failed for %s: %r", attempt + 1, key, exc)
        logger.error("SessionStore.append failed for %s, %d entries kept to retry with the next flush: %r", key, len(entries), error)
        self._report(key, f"SessionStore.append failed after {attempts} attempt{'s' if attempts > 1 else ''}: {error!r} "
                          f"({len(entries)} entries kept to retry with the next flush)")  # fmt: skip
        return False

    def _report(self, key: Optional[SessionKey], text: str) -> None:
        try:
            self.on_error(key, text)
        except Exception:  # noqa: BLE001 - reporting must not stop the mirror
            logger.exception("Reporting a mirror error failed")

    # ------------------------------------------------------------------ close

    def close(self, timeout: float) -> None:
        """Final flush, stop the mirror thread, remove the temporary resume dir (closing
        thread, after the reader ended; bounded by ``timeout`` per wait). Never raises."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self.flush(timeout, final=True)
            with self._cond:
                self._closing = True
                self._cond.notify_all()
            thread.join(timeout)
            if thread.is_alive():
                logger.error("The session store is still busy in append(); leaving its mirror thread behind")
            else:
                self.drop_backlog("the session closed while the store was still failing")
        if self.temp_dir is not None:
            if self.failures:
                self._keep_transcripts()
            remove_private_dir(str(self.temp_dir))

    def _keep_transcripts(self) -> None:
        """The store missed part of a session that ran in the temporary dir: copy its
        transcripts into the real config dir rather than delete the only full copy."""
        assert self.temp_dir is not None and self.real_projects is not None
        source = self.temp_dir / "projects"
        for path in sorted(source.rglob("*.jsonl")):
            target = self.real_projects / path.relative_to(source)
            if target.exists():
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                logger.warning("The session store missed entries; kept the transcript at %s", target)
            except OSError as exc:
                logger.error("Could not keep %s: %s", path, exc)
