"""Types of the session functions and session stores (pure data, no I/O).

``SDKSessionInfo``, ``SessionMessage`` and ``ForkSessionResult`` are what the session
functions return; ``SessionKey`` and friends are what a ``SessionStore`` sees. The names and
fields are the official SDK's, so ported code keeps working; ``SessionStore`` has the official
methods as plain (blocking) methods instead of coroutines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, Protocol

from typing_extensions import Required, TypedDict  # Required needs this TypedDict before 3.11

__all__ = [
    "ForkSessionResult",
    "SDKSessionInfo",
    "SessionKey",
    "SessionListSubkeysKey",
    "SessionMessage",
    "SessionStore",
    "SessionStoreEntry",
    "SessionStoreFlushMode",
    "SessionStoreListEntry",
    "SessionSummaryEntry",
    "store_implements",
]


@dataclass
class SDKSessionInfo:
    """One session as ``list_sessions`` / ``get_session_info`` see it.

    ``summary`` is the display title: the custom (or AI) title, else the last prompt, else
    the CLI's summary, else the first prompt. Times are epoch milliseconds; ``file_size`` is
    the transcript's size in bytes (``None`` for a store, which has no file).

    Attributes:
        session_id: The session's id.
        summary: The display title (see above).
        last_modified: When the transcript last changed, in epoch milliseconds.
        file_size: The transcript's size in bytes (None for a store).
        custom_title: The title set with ``rename_session`` (or by the CLI's AI title), if any.
        first_prompt: The session's first prompt.
        git_branch: The git branch the session ran on, when known.
        cwd: The working directory it ran in.
        tag: The tag set with ``tag_session``, if any.
        created_at: When the session started, in epoch milliseconds, when known.
        archived: ``True`` if ``archive_session`` marked it and no prompt was sent in it
            since; ``False`` if it was and has been unarchived (``unarchive_session``, or a
            prompt); ``None`` if it never was, and always from a session store (the mark is
            a file beside the local transcript).
    """

    session_id: str
    summary: str
    last_modified: int
    file_size: Optional[int] = None
    custom_title: Optional[str] = None
    first_prompt: Optional[str] = None
    git_branch: Optional[str] = None
    cwd: Optional[str] = None
    tag: Optional[str] = None
    created_at: Optional[int] = None
    archived: Optional[bool] = None


@dataclass
class SessionMessage:
    """A user or assistant message of a transcript; ``message`` is the raw API message dict.

    ``parent_tool_use_id`` / ``parent_agent_id`` are set only for subagent messages: the
    Agent ``tool_use`` that spawned the subagent, and the spawning subagent if nested.

    Attributes:
        type: ``"user"`` or ``"assistant"``.
        uuid: The message's id in the transcript.
        session_id: The session it belongs to.
        message: The raw API message dict (``role``, ``content`` …).
        parent_tool_use_id: For a subagent's message: the Agent ``tool_use`` that spawned it.
        parent_agent_id: For a nested subagent's message: the subagent that spawned it.
    """

    type: Literal["user", "assistant"]
    uuid: str
    session_id: str
    message: Any
    parent_tool_use_id: Optional[str] = None
    parent_agent_id: Optional[str] = None


@dataclass
class ForkSessionResult:
    """What ``fork_session`` returns: the id of the new session.

    Attributes:
        session_id: The new session's id (resume it with ``ClaudeAgentOptions(resume=…)``).
    """

    session_id: str


class _SessionKeyRequired(TypedDict):
    project_key: str
    session_id: str


class SessionKey(_SessionKeyRequired, total=False):
    """Names one transcript in a store: ``subpath`` (e.g. ``"subagents/agent-<id>"``) only
    for a subagent's transcript, absent for the main one.

    Keys:
        project_key: The project (``project_key_for_directory(cwd)``).
        session_id: The session's id.
        subpath: A subagent transcript's path within the session (``"subagents/agent-<id>"``);
            absent for the main one.
    """

    subpath: str


class SessionListSubkeysKey(TypedDict):
    """The argument of ``SessionStore.list_subkeys`` (a session, no ``subpath``).

    Keys:
        project_key: The project.
        session_id: The session.
    """

    project_key: str
    session_id: str


class SessionStoreEntry(TypedDict, total=False):
    """One transcript line as a JSON object; stores pass every field through untouched.

    Keys:
        type: The line's type (``user``, ``assistant``, ``summary`` …); the only key every entry
            has.
        uuid: The line's id, when it has one (an idempotency key for ``append``).
        timestamp: When the line was written (ISO 8601), when it says.
    """

    type: Required[str]
    uuid: str
    timestamp: str


class SessionStoreListEntry(TypedDict):
    """One row of ``SessionStore.list_sessions``: ``mtime`` is epoch milliseconds.

    Keys:
        session_id: The session's id.
        mtime: When it last changed, in epoch milliseconds.
    """

    session_id: str
    mtime: int


class SessionSummaryEntry(TypedDict):
    """A store's running summary of one session (see ``fold_session_summary``).

    ``mtime`` is the store's own write time, on the clock ``list_sessions`` reports; ``data``
    belongs to claude_sync and must be persisted verbatim.

    Keys:
        session_id: The session's id.
        mtime: The store's own write time, in epoch milliseconds.
        data: claude_sync's summary; store it verbatim.
    """

    session_id: str
    mtime: int
    data: Dict[str, Any]


SessionStoreFlushMode = Literal["batched", "eager"]
"""``"batched"``: mirror once per turn (and past 500 entries / 1 MiB); ``"eager"``: after
every transcript write."""


class SessionStore(Protocol):
    """Where session transcripts are mirrored to and resumed from (blocking methods).

    Only ``append`` and ``load`` are required. The other four are optional: a store that does
    not define them (or inherits these defaults, which raise ``NotImplementedError``) is
    treated as lacking them — ``store_implements`` tells. claude_sync calls a store from its
    own threads (the mirror thread of a running session, or the caller's thread for the
    helper functions), one call at a time per session; a store shared by several sessions
    must be thread-safe.
    """

    def append(self, key: SessionKey, entries: List[SessionStoreEntry]) -> None:
        """Persist ``entries`` after the ones already stored under ``key``, in call order.

        Entries with a ``uuid`` may be retried after a failure: treat ``uuid`` as an
        idempotency key when you can.
        """
        ...

    def load(self, key: SessionKey) -> Optional[List[SessionStoreEntry]]:
        """Every entry stored under ``key`` in append order (deep-equal to what was appended),
        or ``None`` if nothing was ever stored there."""
        ...

    def list_sessions(self, project_key: str) -> List[SessionStoreListEntry]:
        """Main transcripts (no subpath) of ``project_key``, with epoch-ms mtimes; any order."""
        raise NotImplementedError

    def list_session_summaries(self, project_key: str) -> List[SessionSummaryEntry]:
        """The summaries kept by ``append`` (via ``fold_session_summary``) for ``project_key``."""
        raise NotImplementedError

    def delete(self, key: SessionKey) -> None:
        """Remove ``key``; without a subpath also every subpath under that session."""
        raise NotImplementedError

    def list_subkeys(self, key: SessionListSubkeysKey) -> List[str]:
        """The subpaths stored under a session (never the main transcript)."""
        raise NotImplementedError


_OPTIONAL_METHODS = ("list_sessions", "list_session_summaries", "delete", "list_subkeys")


def store_implements(store: object, method: str) -> bool:
    """True if ``store`` has its own ``method`` (not the ``SessionStore`` default that raises)."""
    if getattr(store, method, None) is None:
        return False
    if method not in _OPTIONAL_METHODS:
        return True
    return getattr(type(store), method, None) is not getattr(SessionStore, method)
