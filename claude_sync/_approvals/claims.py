"""One claim per pending approval, and the session's transcript to check it against (I/O).

Two resumes of one pending approval may race (two workers picked up the same decision, a
person clicked twice). Just before a resume's CLI process starts (``flow`` calls ``claim`` from
the options' ``spawn_command``) it claims the approval; only the first claim wins, and a loser
raises ``ApprovalClaimedError`` having started nothing. A claimant names one delivery of a
decision, never a worker:

- **with a session store**: the claim is an entry appended under the session's key with the
  subpath ``approvals/claim-<tool_use_id>``, carrying a uuid derived from the session and the
  call. The first entry stored there wins. This relies only on ``append`` being atomic and
  ordered, which every store claims: ``InMemorySessionStore`` appends under its lock, the
  SQLite store in one ``BEGIN IMMEDIATE`` transaction (and ignores the second entry with the
  same uuid), the PostgreSQL store under the session's advisory lock (and a unique uuid
  index). So two machines resuming through one PostgreSQL database run the call once.
- **without a store** (the transcript is a local file): the file
  ``<config>/projects/<project>/<session>/approvals/claim-<tool_use_id>.json``, written whole
  beside it and hard-linked into place (``link`` fails when the name exists: atomic, and a
  reader never sees half a claim).

A claim is final: a resume that claimed and then died (or whose CLI then failed to start)
leaves the approval claimed. Passing the same ``claimant`` again is the deliberate retry (the
transcript check still refuses it once the call has a result). Store calls block as the
store's own calls do.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, cast

from .._options.options import ClaudeAgentOptions
from .._sessions.store_functions import project_key_for_directory
from .._sessions.transcript import sanitize_path
from .._sessions.transcript_files import canonical, read_entries
from .hold_check import cli_config_dir
from .records import ApprovalClaimedError, ApprovalDecision, ApprovalStaleError, PendingApproval

__all__ = ["CLAIM_TYPE", "claim", "claim_subpath", "load_transcript"]

CLAIM_TYPE = "approval_claim"
_NAMESPACE = uuid.UUID("0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01")


def claim_subpath(tool_use_id: str) -> str:
    return f"approvals/claim-{tool_use_id}"


def load_transcript(pending: PendingApproval, options: ClaudeAgentOptions) -> List[Dict[str, Any]]:
    """The session's transcript entries, from ``options.session_store`` or the local file.
    Raises ``ApprovalStaleError`` when the session is in neither; what the store raises."""
    store = options.session_store
    if store is not None:
        entries = store.load({"project_key": project_key_for_directory(pending.cwd), "session_id": pending.session_id})
        if entries is None:
            raise ApprovalStaleError(
                f"session {pending.session_id} is not in the session store (cwd {pending.cwd!r})", pending.tool_use_id
            )
        return [dict(e) for e in entries]
    path = _session_dir(pending, options.env).with_suffix(".jsonl")
    if not path.is_file():
        raise ApprovalStaleError(
            f"session {pending.session_id} has no transcript at {path} (set session_store to resume on another machine)",
            pending.tool_use_id,
        )
    return read_entries(path)


def claim(pending: PendingApproval, decision: ApprovalDecision, options: ClaudeAgentOptions, claimant: str, now: str) -> None:
    """Claim ``pending`` for ``claimant`` (any thread). Raises ``ApprovalClaimedError`` when
    another claimant was first; what the store or the file system raises."""
    entry: Dict[str, Any] = {
        "type": CLAIM_TYPE,
        "uuid": str(uuid.uuid5(_NAMESPACE, f"{pending.session_id}/{pending.tool_use_id}")),
        "tool_use_id": pending.tool_use_id,
        "claimant": claimant,
        "decision": decision.to_dict(),
        "claimed_at": now,
    }
    store = options.session_store
    if store is not None:
        key: Any = {
            "project_key": project_key_for_directory(pending.cwd),
            "session_id": pending.session_id,
            "subpath": claim_subpath(pending.tool_use_id),
        }
        store.append(key, [cast(Any, entry)])
        stored: List[Dict[str, Any]] = [dict(e) for e in store.load(key) or [] if isinstance(e, dict) and e.get("type") == CLAIM_TYPE]
        first: Optional[Dict[str, Any]] = stored[0] if stored else None
    else:
        first = _claim_file(pending, options.env, entry)
    if first is None or first.get("claimant") != claimant:
        raise ApprovalClaimedError(
            f"approval of {pending.tool_name} call {pending.tool_use_id} was already claimed by "
            f"{(first or {}).get('claimant')!r} at {(first or {}).get('claimed_at')!r}; nothing ran here",
            pending.tool_use_id,
            first,
        )


def _claim_file(pending: PendingApproval, env: Mapping[str, str], entry: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    folder = _session_dir(pending, env) / "approvals"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"claim-{pending.tool_use_id}.json"
    draft = folder / f".claim-{pending.tool_use_id}.{uuid.uuid4().hex}.tmp"
    try:
        with open(draft, "x", encoding="utf-8") as file:
            os.chmod(draft, 0o600)
            json.dump(entry, file)
        os.link(draft, path)  # atomic, and only if no claim is there: readers never see half a claim
    except FileExistsError:
        existing = json.loads(path.read_text(encoding="utf-8"))
        return existing if isinstance(existing, dict) else {"claimant": repr(existing)}
    finally:
        draft.unlink(missing_ok=True)
    return entry


def _session_dir(pending: PendingApproval, env: Mapping[str, str]) -> Path:
    """``<config>/projects/<project>/<session_id>``: the config dir of the CLI the options start
    (``hold_check.cli_config_dir``: the options' ``env`` over this process's)."""
    cwd = canonical(pending.cwd)
    return cli_config_dir({**os.environ, **(env or {})}, cwd) / "projects" / sanitize_path(cwd) / pending.session_id
