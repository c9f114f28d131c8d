"""``PendingApproval``, ``ApprovalDecision`` and the approval errors (pure data, no I/O).

A ``PendingApproval`` is everything a later resume needs, as plain JSON: the session, the
deferred call (``tool_use`` id, tool name, input), the ``cwd`` the session's transcript is
filed under, the permission mode to restore (``--resume`` does not), the reason the person
is shown and when it was asked, and the calls the gate held back in the same run
(``held_back``: not run, the model was told so; see ``ApprovalGate``). ``to_dict()`` /
``to_json()`` and ``from_dict()`` / ``from_json()`` round-trip it; ``from_dict`` checks every
field and raises ``ApprovalRecordError`` naming the bad one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .._wire.errors import ClaudeSDKError

__all__ = [
    "ApprovalClaimedError",
    "ApprovalDecision",
    "ApprovalDroppedError",
    "ApprovalError",
    "ApprovalNotAppliedError",
    "ApprovalPendingError",
    "ApprovalRecordError",
    "ApprovalStaleError",
    "HELD_BACK_WHERE",
    "PendingApproval",
    "RECORD_VERSION",
]

RECORD_VERSION = 1
_ID = re.compile(r"\A[A-Za-z0-9_-]{1,200}\Z")
_SESSION = re.compile(r"\A[A-Za-z0-9_-]{1,200}\Z")
_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")
HELD_BACK_WHERE = ("message", "subagent", "can_use_tool", "dropped")
"""Why a held call is not the pending one: another call of the same message already waits for
a person (``"message"``), it was a subagent's call (``"subagent"``: the CLI cannot keep one
waiting), the CLI asked ``can_use_tool`` about it (``"can_use_tool"``: no defer there), or the
gate deferred it and the CLI's result did not report it (``"dropped"``). None of them ran."""
_HELD_BACK_KEYS = {"tool_use_id", "tool_name", "tool_input", "reason", "where"}


class ApprovalError(ClaudeSDKError):
    """Base of the approval errors.

    Attributes:
        tool_use_id: The call concerned ("" if none).
    """

    def __init__(self, message: str = "", tool_use_id: str = "") -> None:
        super().__init__(message)
        self.tool_use_id = tool_use_id

    def init_kwargs(self) -> Dict[str, Any]:
        return {"message": str(self), "tool_use_id": self.tool_use_id}


class ApprovalRecordError(ApprovalError, ValueError):
    """A pending-approval record or a decision is malformed (the message names the field)."""


class ApprovalStaleError(ApprovalError):
    """The decision no longer applies: the session moved on past the call (it has a result,
    or a later turn), the call is not in the session, or its input differs. Nothing ran."""


class ApprovalClaimedError(ApprovalStaleError):
    """Another resume of the same pending approval claimed it first; this one ran nothing.

    Attributes:
        claim: The winning claim entry (``claimant``, ``claimed_at``, ``decision``).
    """

    def __init__(self, message: str = "", tool_use_id: str = "", claim: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message, tool_use_id)
        self.claim = claim or {}

    def init_kwargs(self) -> Dict[str, Any]:
        return dict(super().init_kwargs(), claim=self.claim)


class ApprovalDroppedError(ApprovalError):
    """The gate held calls that no pending approval can carry — a subagent's call (the CLI
    ends a subagent at a deferral and nothing of it can be resumed), a call the CLI asked
    ``can_use_tool`` about, or a deferral the CLI did not report — so the run is not a
    success. None of the calls ran (each was refused; the model saw why).

    Attributes:
        calls: The held calls (``tool_use_id``, ``tool_name``, ``tool_input``, ``reason``,
            ``where``: see ``HELD_BACK_WHERE``).
        session_id: The run's session.
    """

    def __init__(self, message: str = "", tool_use_id: str = "", calls: Any = (), session_id: str = "") -> None:
        super().__init__(message, tool_use_id)
        self.calls = [dict(call) for call in calls]
        self.session_id = session_id

    def init_kwargs(self) -> Dict[str, Any]:
        return dict(super().init_kwargs(), calls=self.calls, session_id=self.session_id)


class ApprovalNotAppliedError(ApprovalError):
    """The resumed CLI ended its turn without asking about the call the decision names, so
    the decision was not applied (the claim is spent: the call did not run through us)."""


class ApprovalPendingError(ApprovalError):
    """A resume was refused before any CLI started: the session waits for a person's decision
    on a deferred call (the CLI would run it again, unasked), or its transcript could not be
    read to tell. Nothing ran and nothing was written, so the decision still applies: apply it
    with ``resume_approval``.

    Attributes:
        session_id: The session refused.
        held: The calls it waits on: dicts with ``tool_use_id``, ``tool_name``, ``tool_input``
            (empty when the transcript could not be read; the message says why).
    """

    def __init__(
        self, message: str = "", tool_use_id: str = "", session_id: str = "", held: Optional[List[Dict[str, Any]]] = None
    ) -> None:
        super().__init__(message, tool_use_id)
        self.session_id = session_id
        self.held = list(held or [])

    def init_kwargs(self) -> Dict[str, Any]:
        return dict(super().init_kwargs(), session_id=self.session_id, held=self.held)


@dataclass(frozen=True)
class ApprovalDecision:
    """A person's answer to one ``PendingApproval``.

    Use ``ApprovalDecision.allow(updated_input=None)`` (run the call, or run it with the edited
    input) or ``ApprovalDecision.deny(message)`` (the model sees ``message`` as the tool's error).
    Raises ``ApprovalRecordError`` for another behavior, an input that is not a JSON object,
    an input with a deny, or a deny without a message.

    Attributes:
        behavior: ``"allow"`` or ``"deny"``.
        updated_input: For an allow, the input to run the call with instead (None: as asked).
        message: For a deny, what the model is told.
    """

    behavior: str
    updated_input: Optional[Dict[str, Any]] = None
    message: str = ""

    def __post_init__(self) -> None:
        if self.behavior not in ("allow", "deny"):
            raise ApprovalRecordError(f"ApprovalDecision.behavior must be 'allow' or 'deny', got {self.behavior!r}")
        if self.updated_input is not None:
            if self.behavior != "allow":
                raise ApprovalRecordError("ApprovalDecision.updated_input only goes with 'allow'")
            _check_json_object("ApprovalDecision.updated_input", self.updated_input)
        if not isinstance(self.message, str):
            raise ApprovalRecordError(f"ApprovalDecision.message must be a str, got {type(self.message).__name__}")
        if self.behavior == "deny" and not self.message.strip():
            raise ApprovalRecordError("a deny needs a message: it is what the model is told")

    @classmethod
    def allow(cls, updated_input: Optional[Dict[str, Any]] = None) -> ApprovalDecision:
        """Run the call (with ``updated_input`` instead of the model's input, if given)."""
        return cls("allow", updated_input=updated_input)

    @classmethod
    def deny(cls, message: str) -> ApprovalDecision:
        """Do not run the call; the model gets ``message`` as the tool's error."""
        return cls("deny", message=message)

    def to_dict(self) -> Dict[str, Any]:
        """A plain dict of JSON values (``from_dict`` takes it back)."""
        return {"behavior": self.behavior, "updated_input": self.updated_input, "message": self.message}

    @classmethod
    def from_dict(cls, data: Any) -> ApprovalDecision:
        """Raises ``ApprovalRecordError`` for anything but the ``to_dict()`` shape."""
        if not isinstance(data, dict) or set(data) - {"behavior", "updated_input", "message"}:
            raise ApprovalRecordError(f"not an approval decision: {data!r:.200}")
        return cls(data.get("behavior", ""), data.get("updated_input"), data.get("message", ""))


@dataclass(frozen=True)
class PendingApproval:
    """A run stopped before ``tool_name(tool_input)`` until a person decides (JSON-ready).

    Attributes:
        session_id: The session to resume.
        tool_use_id: The deferred call's ``tool_use`` id; a decision applies to it only.
        tool_name: The tool, e.g. ``"Bash"``.
        tool_input: The input the model gave (a JSON object).
        cwd: The working directory the session is filed under (resume there).
        permission_mode: The mode the run had (restored on resume), or None.
        reason: Why a person must decide (what the policy said).
        asked_at: When the run stopped, ISO 8601 UTC.
        held_back: The other calls the gate held in the same run, not run (each a dict:
            ``tool_use_id``, ``tool_name``, ``tool_input``, ``reason``, ``where`` — see
            ``HELD_BACK_WHERE``). Show them to the person: the model was told they did not
            run, and a call it asks for again waits for its own decision. A decision applies
            to ``tool_use_id`` only.
        version: The record format (``RECORD_VERSION``).
    """

    session_id: str
    tool_use_id: str
    tool_name: str
    tool_input: Dict[str, Any]
    cwd: str
    permission_mode: Optional[str]
    reason: str
    asked_at: str
    held_back: Tuple[Dict[str, Any], ...] = ()
    version: int = field(default=RECORD_VERSION)

    def __post_init__(self) -> None:
        if isinstance(self.held_back, list):  # from JSON
            object.__setattr__(self, "held_back", tuple(self.held_back))
        _check_fields(self.__dict__)

    def to_dict(self) -> Dict[str, Any]:
        """A plain dict of JSON values (a copy)."""
        out = dict(self.__dict__)
        out["tool_input"] = json.loads(json.dumps(self.tool_input))
        out["held_back"] = json.loads(json.dumps(list(self.held_back)))
        return out

    def to_json(self) -> str:
        """``to_dict()`` as ASCII JSON (lone surrogates in the input survive as escapes)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Any) -> PendingApproval:
        """Raises ``ApprovalRecordError`` naming the missing, unknown or wrongly typed field."""
        if not isinstance(data, dict):
            raise ApprovalRecordError(f"a pending approval is a JSON object, got {type(data).__name__}")
        names = set(cls.__dataclass_fields__)
        unknown, missing = set(data) - names, names - set(data) - {"version", "held_back"}
        if unknown or missing:
            raise ApprovalRecordError(
                f"pending approval fields: missing {sorted(missing)}, unknown {sorted(map(str, unknown))}"
            )
        return cls(**data)

    @classmethod
    def from_json(cls, text: Any) -> PendingApproval:
        """Raises ``ApprovalRecordError`` for text that is not a pending approval's JSON."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise ApprovalRecordError(f"from_json takes str or bytes, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ApprovalRecordError(f"not JSON: {exc}") from exc
        return cls.from_dict(data)


def _check_fields(data: Dict[str, Any]) -> None:
    def bad(name: str, want: str) -> ApprovalRecordError:
        return ApprovalRecordError(f"PendingApproval.{name} must be {want}, got {data[name]!r:.200}")

    if data["version"] != RECORD_VERSION or type(data["version"]) is not int:
        raise bad("version", f"{RECORD_VERSION} (a record from another library version)")
    if not isinstance(data["session_id"], str) or not _SESSION.match(data["session_id"]):
        raise bad("session_id", "a session id (letters, digits, '-', '_')")
    if not isinstance(data["tool_use_id"], str) or not _ID.match(data["tool_use_id"]):
        raise bad("tool_use_id", "a tool_use id (letters, digits, '-', '_')")
    for name in ("tool_name", "cwd", "asked_at"):
        if not isinstance(data[name], str) or not data[name]:
            raise bad(name, "a non-empty str")
    if not isinstance(data["reason"], str):
        raise bad("reason", "a str")
    if data["permission_mode"] is not None and data["permission_mode"] not in _MODES:
        raise bad("permission_mode", f"None or one of {_MODES}")
    _check_json_object("PendingApproval.tool_input", data["tool_input"])
    _check_held_back(data["held_back"], data["tool_use_id"])


def _check_held_back(held: Any, tool_use_id: str) -> None:
    if not isinstance(held, tuple):
        raise ApprovalRecordError(f"PendingApproval.held_back must be a list of calls, got {type(held).__name__}")
    for index, call in enumerate(held):
        where = f"PendingApproval.held_back[{index}]"
        if not isinstance(call, dict) or set(call) != _HELD_BACK_KEYS:
            raise ApprovalRecordError(f"{where} must be an object with exactly {sorted(_HELD_BACK_KEYS)}, got {call!r:.200}")
        if not isinstance(call["tool_use_id"], str) or not _ID.match(call["tool_use_id"]) or call["tool_use_id"] == tool_use_id:
            raise ApprovalRecordError(f"{where}.tool_use_id must be a tool_use id other than the pending call's, got {call['tool_use_id']!r:.200}")
        if not isinstance(call["tool_name"], str) or not isinstance(call["reason"], str):
            raise ApprovalRecordError(f"{where}.tool_name and .reason must be str")
        if call["where"] not in HELD_BACK_WHERE:
            raise ApprovalRecordError(f"{where}.where must be one of {HELD_BACK_WHERE}, got {call['where']!r:.200}")
        _check_json_object(f"{where}.tool_input", call["tool_input"])


def _check_json_object(name: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise ApprovalRecordError(f"{name} must be a JSON object (dict), got {type(value).__name__}")
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ApprovalRecordError(f"{name} is not JSON-serialisable: {exc}") from exc
