"""Transcripts written by hand for the session tests: ``entry`` (one line as the CLI writes it),
``conversation`` (turns of them), ``write`` (a JSONL file) and ``folder`` (the CLI's project
folder for a working directory under a config dir)."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

from claude_sync._sessions.transcript import sanitize_path


def folder(config: Path, project: Path) -> Path:
    out = config / "projects" / sanitize_path(os.path.realpath(project))
    out.mkdir(parents=True, exist_ok=True)
    return out


def entry(kind: str, text: str, parent: Optional[str], sid: str, ts: str = "2025-01-01T00:00:00.000Z", **extra: Any) -> Dict[str, Any]:
    role = "user" if kind == "user" else "assistant"
    return {
        "type": kind, "uuid": str(uuid.uuid4()), "parentUuid": parent, "sessionId": sid, "timestamp": ts,
        "cwd": "/somewhere", "gitBranch": "main", "message": {"role": role, "content": [{"type": "text", "text": text}]},
        **extra,
    }  # fmt: skip


def conversation(sid: str, turns: int = 2) -> List[Dict[str, Any]]:
    lines: List[Dict[str, Any]] = []
    parent = None
    for i in range(turns):
        for kind, text in (("user", f"question {i}"), ("assistant", f"answer {i}")):
            e = entry(kind, text, parent, sid, ts=f"2025-01-01T00:00:{i:02d}.000Z")
            lines.append(e)
            parent = e["uuid"]
    return lines


def write(path: Path, lines: List[Any]) -> None:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
