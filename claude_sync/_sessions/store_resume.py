"""Resuming a session that lives in a ``SessionStore``: load it, lay it out on disk.

``materialize`` (the connecting thread, before the CLI starts) loads the session — the given
``resume`` id, or for ``continue_conversation`` the store's newest session that is not a
subagent's — and writes it, with its subagent transcripts and their metadata, to a private
temporary dir laid out like ``~/.claude``, plus the caller's credentials and user settings
so the CLI can log in. Every store call is bounded by ``load_timeout_ms``: it runs on a
``claude_sync-store-load`` thread and past the bound the connect fails with
``SessionStoreError`` naming the call (the call itself is abandoned: a thread cannot be
cancelled). Subpaths from the store never leave the session's folder.
"""

from __future__ import annotations

import json
import os
import threading
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .._engine.tempfiles import make_private_dir, remove_private_dir
from .._options.options import ClaudeAgentOptions
from .._redaction.redactor import redacted_logger
from .._wire.errors import SessionStoreError
from .store_functions import project_key_for_directory
from .transcript import json_line, valid_uuid
from .transcript_messages import split_agent_metadata
from .types import SessionKey, SessionStore, store_implements

__all__ = ["materialize"]

logger = redacted_logger("claude_sync.session_store")

_SETTINGS_DROPPED = ("enabledPlugins", "extraKnownMarketplaces")


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


def materialize(store: SessionStore, options: ClaudeAgentOptions, env: Mapping[str, str]) -> Optional[Tuple[Path, str]]:
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
    temp_dir = Path(make_private_dir("claude_sync-resume-"))  # removed at exit if close never runs
    try:
        project = temp_dir / "projects" / pk
        project.mkdir(parents=True)
        _write_jsonl(project / f"{session_id}.jsonl", entries)
        _copy_login(temp_dir, env)
        if store_implements(store, "list_subkeys"):
            _materialize_subagents(store, project, pk, session_id, timeout)
    except BaseException:
        remove_private_dir(str(temp_dir))
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
            handle.write(json_line(entry) + "\n")


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
