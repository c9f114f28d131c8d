"""A running session and its ``session_store``: resume from the store, mirror into it.

Resume (``prepare``, the connecting thread, before the CLI starts): with ``resume`` (or
``continue_conversation``) and a store, the session is loaded from the store and written to
a private temporary config dir laid out like ``~/.claude`` (plus the caller's credentials
and settings, so the CLI can log in); the CLI then runs with ``CLAUDE_CONFIG_DIR`` pointing
there and ``--resume=<id>``. Every store call is bounded by ``load_timeout_ms`` (it runs on
a ``claude_sync-store-load`` thread; past the bound the connect fails with
``SessionStoreError`` naming the call, and the call is abandoned). A session the store does
not have is resumed from local disk as usual.

Mirroring (``--session-mirror``): the CLI echoes every transcript write as a
``transcript_mirror`` frame. The reader thread hands them to ``enqueue`` (never blocks);
the ``claude_sync-mirror-<pid>`` thread calls ``store.append``, one call per transcript
file per flush, in order. ``"batched"``: a flush per turn (the reader waits for it before
delivering the turn's ``ResultMessage``, at most ``flush_timeout``, so a result means the
store has the turn) or when 500 entries / 1 MiB are pending; ``"eager"``: after every frame.
A failing ``append`` is retried twice (0.2 s, 0.8 s apart), then the batch is dropped and
reported through ``on_error`` (a ``mirror_error`` system message); a slow one is reported
once ``flush_timeout`` passes and keeps the mirror thread busy, never the session. The
CLI's own transcript is written before each frame, so nothing local is lost; a transcript
that lived in a temporary resume dir is copied into the real config dir at close when the
store missed anything.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .._core.errors import SessionStoreError
from .._core.options import ClaudeAgentOptions
from .._core.session_types import SessionKey, SessionStore, store_implements
from .._core.transcript import split_agent_metadata, valid_uuid
from .store_functions import project_key_for_directory
from .transcripts import config_dir

__all__ = ["StoreBridge", "file_key"]

logger = logging.getLogger("claude_sync.session_store")

MAX_PENDING_ENTRIES = 500
MAX_PENDING_BYTES = 1 << 20
RETRY_DELAYS = (0.2, 0.8)
_SETTINGS_DROPPED = ("enabledPlugins", "extraKnownMarketplaces")

ErrorSink = Callable[[Optional[SessionKey], str], None]


def file_key(file_path: str, projects: str) -> Optional[SessionKey]:
    """The store key of a transcript file under ``projects`` (None if it is not one):
    ``<pk>/<sid>.jsonl`` → main, ``<pk>/<sid>/subagents/…/agent-x.jsonl`` → a subpath."""
    try:
        rel = Path(os.path.relpath(file_path, projects))
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


def _bounded(call: Callable[[], Any], timeout: float, what: str) -> Any:
    """Run one store call on a helper thread, at most ``timeout`` s. Raises ``SessionStoreError``."""
    box: Dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="claude_sync-store-load", daemon=True).start()
    if not done.wait(max(timeout, 0.0)):
        raise SessionStoreError(f"{what} did not finish within load_timeout_ms={int(timeout * 1000)}")
    if "error" in box:
        raise SessionStoreError(f"{what} failed: {box['error']!r}") from box["error"]
    return box.get("value")


class StoreBridge:
    """One session's link to its store. See the module docstring for threads and timing."""

    def __init__(
        self, store: SessionStore, projects: str, *, eager: bool, flush_timeout: float,
        on_error: ErrorSink, temp_dir: Optional[Path] = None, real_projects: Optional[Path] = None,
    ) -> None:  # fmt: skip
        self.store = store
        self.projects = projects
        self.eager = eager
        self.flush_timeout = flush_timeout
        self.on_error = on_error
        self.temp_dir = temp_dir
        self.real_projects = real_projects
        self.failures = 0
        self._cond = threading.Condition()
        self._pending: List[Tuple[str, List[Any]]] = []
        self._pending_entries = 0
        self._pending_bytes = 0
        self._enqueued = 0  # frames enqueued so far
        self._flushed = 0  # frames the mirror thread has finished with
        self._wanted = 0  # flush everything up to this frame count
        self._closing = False
        self._thread: Optional[threading.Thread] = None

    # ------------------------------------------------------------------ set-up

    @classmethod
    def prepare(
        cls, options: ClaudeAgentOptions, environ: Mapping[str, str], on_error: ErrorSink
    ) -> Tuple[StoreBridge, ClaudeAgentOptions]:
        """The bridge and the options to spawn with (repointed at a materialized resume).

        Connecting thread. Raises ``ValueError`` (options the store cannot serve) and
        ``SessionStoreError`` (a store call failed or passed ``load_timeout_ms``).
        """
        store = options.session_store
        assert store is not None
        if options.enable_file_checkpointing:
            raise ValueError("session_store cannot be combined with enable_file_checkpointing (checkpoints stay on local disk)")
        if options.continue_conversation and options.resume is None and not store_implements(store, "list_sessions"):
            raise ValueError("continue_conversation with a session_store needs a store that implements list_sessions()")
        env = {**environ, **options.env}
        real_projects = config_dir(env) / "projects"
        flush_timeout = options.control_timeout
        eager = options.session_store_flush == "eager"
        resumed = _materialize(store, options, env)
        if resumed is None:
            return cls(store, str(real_projects), eager=eager, flush_timeout=flush_timeout, on_error=on_error), options
        temp_dir, session_id = resumed
        options = replace(
            options, env={**options.env, "CLAUDE_CONFIG_DIR": str(temp_dir)}, resume=session_id, continue_conversation=False
        )
        bridge = cls(
            store, str(temp_dir / "projects"), eager=eager, flush_timeout=flush_timeout,
            on_error=on_error, temp_dir=temp_dir, real_projects=real_projects,
        )  # fmt: skip
        return bridge, options

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

    def flush(self, timeout: float) -> bool:
        """Ask for everything enqueued so far to reach the store and wait, at most ``timeout``
        s (reader thread at a result, or close). False if it did not finish in time."""
        deadline = time.monotonic() + timeout
        with self._cond:
            target = self._enqueued
            self._wanted = max(self._wanted, target)
            self._cond.notify_all()
            while self._flushed < target:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._thread is None or not self._thread.is_alive():
                    break
                self._cond.wait(min(remaining, 0.5))
            done = self._flushed >= target
        if not done:
            self.failures += 1
            self._report(None, f"SessionStore.append did not finish within {timeout}s; the mirror goes on in the background")
        return done

    # ------------------------------------------------------------------ mirror thread

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._closing or (self._pending and self._wanted > self._flushed)):
                    self._cond.wait()
                if not self._pending:
                    return  # closing with nothing left
                batch = self._pending
                count = len(batch)
                self._pending, self._pending_entries, self._pending_bytes = [], 0, 0
            self._send(batch)
            with self._cond:
                self._flushed += count
                self._cond.notify_all()

    def _send(self, batch: List[Tuple[str, List[Any]]]) -> None:
        by_file: Dict[str, List[Any]] = {}
        for path, entries in batch:
            by_file.setdefault(path, []).extend(entries)
        for path, entries in by_file.items():
            key = file_key(path, self.projects)
            if key is None:
                logger.warning("Dropping mirrored lines of %s: not under %s (the CLI's CLAUDE_CONFIG_DIR differs?)", path, self.projects)
                continue
            self._append_with_retries(key, entries)

    def _append_with_retries(self, key: SessionKey, entries: List[Any]) -> None:
        error: Optional[BaseException] = None
        for attempt in range(len(RETRY_DELAYS) + 1):
            if attempt:
                time.sleep(RETRY_DELAYS[attempt - 1])
            try:
                self.store.append(key, entries)
                return
            except Exception as exc:  # noqa: BLE001 - a store is user code
                error = exc
                logger.debug("SessionStore.append attempt %d failed for %s: %r", attempt + 1, key, exc)
        self.failures += 1
        logger.error("SessionStore.append failed for %s, %d entries dropped: %r", key, len(entries), error)
        self._report(key, f"SessionStore.append failed after {len(RETRY_DELAYS) + 1} attempts: {error!r}")

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
            self.flush(timeout)
            with self._cond:
                self._closing = True
                self._cond.notify_all()
            thread.join(timeout)
            if thread.is_alive():
                logger.error("The session store is still busy in append(); leaving its mirror thread behind")
        if self.temp_dir is not None:
            if self.failures:
                self._keep_transcripts()
            shutil.rmtree(self.temp_dir, ignore_errors=True)

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


# ---------------------------------------------------------------------- materialize


def _materialize(store: SessionStore, options: ClaudeAgentOptions, env: Mapping[str, str]) -> Optional[Tuple[Path, str]]:
    """Write the session to resume into a temp config dir; None when there is nothing to
    resume from the store (no resume asked, not a UUID, or the store does not have it)."""
    if options.resume is None and not options.continue_conversation:
        return None
    timeout = options.load_timeout_ms / 1000.0
    pk = project_key_for_directory(None if options.cwd is None else os.fspath(options.cwd))
    if options.resume is not None:
        if not valid_uuid(options.resume):
            return None
        found = _load(store, pk, options.resume, timeout)
    else:
        found = _newest(store, pk, timeout)
    if found is None:
        return None
    session_id, entries = found
    temp_dir = Path(tempfile.mkdtemp(prefix="claude_sync-resume-"))
    try:
        project = temp_dir / "projects" / pk
        project.mkdir(parents=True)
        _write_jsonl(project / f"{session_id}.jsonl", entries)
        _copy_login(temp_dir, env)
        if store_implements(store, "list_subkeys"):
            _materialize_subagents(store, project, pk, session_id, timeout)
    except BaseException:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    return temp_dir, session_id


def _load(store: SessionStore, pk: str, session_id: str, timeout: float) -> Optional[Tuple[str, List[Any]]]:
    key: SessionKey = {"project_key": pk, "session_id": session_id}
    entries = _bounded(lambda: store.load(key), timeout, f"SessionStore.load() of session {session_id}")
    return (session_id, list(entries)) if entries else None


def _newest(store: SessionStore, pk: str, timeout: float) -> Optional[Tuple[str, List[Any]]]:
    rows = _bounded(lambda: store.list_sessions(pk), timeout, "SessionStore.list_sessions()") or []
    for row in sorted(rows, key=lambda r: r["mtime"], reverse=True):
        if not valid_uuid(row["session_id"]):
            continue
        found = _load(store, pk, row["session_id"], timeout)
        if found is not None and not (isinstance(found[1][0], dict) and found[1][0].get("isSidechain") is True):
            return found
    return None


def _materialize_subagents(store: SessionStore, project: Path, pk: str, session_id: str, timeout: float) -> None:
    session_dir = project / session_id
    subkeys = _bounded(
        lambda: store.list_subkeys({"project_key": pk, "session_id": session_id}), timeout,
        f"SessionStore.list_subkeys() of session {session_id}",
    )  # fmt: skip
    for subpath in subkeys or []:
        target = _safe_target(session_dir, subpath)
        if target is None:
            logger.warning("Skipping unsafe subpath %r from the session store", subpath)
            continue
        key: SessionKey = {"project_key": pk, "session_id": session_id, "subpath": subpath}
        entries = _bounded(partial(store.load, key), timeout, f"SessionStore.load() of {session_id}/{subpath}")
        metadata, transcript = split_agent_metadata(list(entries or []))
        if transcript:
            _write_jsonl(target, transcript)
        if metadata is not None:
            metadata.pop("type", None)
            sidecar = target.with_name(target.name[:-6] + ".meta.json")
            sidecar.parent.mkdir(parents=True, exist_ok=True)
            sidecar.write_text(json.dumps(metadata), encoding="utf-8")


def _safe_target(session_dir: Path, subpath: str) -> Optional[Path]:
    """``<session_dir>/<subpath>.jsonl`` if ``subpath`` stays inside ``session_dir``, else None."""
    parts = subpath.replace("\\", "/").split("/")
    if not subpath or "\x00" in subpath or subpath.startswith(("/", "\\")) or ":" in parts[0]:
        return None
    if any(p in ("", ".", "..") for p in parts):
        return None
    target = session_dir.joinpath(*parts[:-1], parts[-1] + ".jsonl")
    try:
        target.resolve().relative_to(session_dir.resolve())
    except (ValueError, OSError):
        return None
    return target


def _write_jsonl(path: Path, entries: List[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n")


def _copy_login(temp_dir: Path, env: Mapping[str, str]) -> None:
    """Seed the temp config dir with the caller's login and user settings: credentials
    without the refresh token (a refresh there would revoke the caller's), ``.claude.json``,
    and ``settings.json`` without plugin declarations (they would reinstall into the empty
    temp dir). Missing or unreadable files are skipped (logged)."""
    custom = env.get("CLAUDE_CONFIG_DIR")
    source = Path(custom) if custom else Path.home() / ".claude"
    credentials = _read(source / ".credentials.json")
    if credentials is not None:
        _write_private(temp_dir / ".credentials.json", _without_refresh_token(credentials))
    state = _read(Path(custom) / ".claude.json" if custom else Path.home() / ".claude.json")
    if state is not None:
        _write_private(temp_dir / ".claude.json", state)
    for name in ("settings.json", "cowork_settings.json"):
        settings = _read(source / name)
        if settings is not None:
            _write_private(temp_dir / name, _strip_settings(settings))


def _read(path: Path) -> Optional[bytes]:
    try:
        if not path.is_file():
            return None
        return path.read_bytes()
    except OSError as exc:
        logger.warning("Resume from the session store: skipping %s (%s)", path, exc)
        return None


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _without_refresh_token(data: bytes) -> bytes:
    try:
        parsed = json.loads(data)
    except ValueError:
        return data
    oauth = parsed.get("claudeAiOauth") if isinstance(parsed, dict) else None
    if isinstance(oauth, dict) and "refreshToken" in oauth:
        del oauth["refreshToken"]
        return json.dumps(parsed).encode()
    return data


def _strip_settings(data: bytes) -> bytes:
    try:
        parsed = json.loads(data.decode("utf-8-sig"))
    except ValueError:
        return data
    if not isinstance(parsed, dict):
        return data
    changed = [parsed.pop(k) for k in _SETTINGS_DROPPED if k in parsed]
    env = parsed.get("env")
    if isinstance(env, dict) and "CLAUDE_CONFIG_DIR" in env:
        changed.append(env.pop("CLAUDE_CONFIG_DIR"))
    if not changed:
        return data
    try:
        return json.dumps(parsed, allow_nan=False).encode()
    except ValueError:
        return data
