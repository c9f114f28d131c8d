"""Replay a recording (``record``) as a scripted CLI that checks what the client sends.

::

    cli = ScriptedCLI.from_recording("tests/recordings/deny.jsonl")   # or load_recording(...)
    list(query("delete the logs", options=ClaudeAgentOptions(can_use_tool=my_policy),
               transport=cli.transport()))
    cli.verify()     # AssertionError with a diff when the client sent something else

Every CLI line of the recording is written back in order; every client frame of the
recording becomes a step that waits for an *equivalent* frame (the client's own request ids,
uuids, session ids, timestamps and durations normalised; order between frames the client
sends concurrently does not matter). Answers to the client's control requests get the
client's live request ids. A mismatch fails the step with a unified diff against the closest
frame the client did send.

Versions: a file of format version ``RECORDING_VERSION`` or older is read (version 0 — bare
``{"in": frame}`` / ``{"out": frame}`` lines with no header — is upgraded); a newer format is
refused with ``RecordingFormatError``. A recording made with a CLI newer than
``NEWEST_KNOWN_CLI`` is refused too unless ``allow_newer_cli=True`` (its lines may mean things
this claude_sync cannot know yet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from .._controls import NEWEST_CHECKED_CLI
from ._scripted_cli.interpreter import SCRIPT_FORMAT
from .record import RECORDING_FORMAT, RECORDING_VERSION

__all__ = ["NEWEST_KNOWN_CLI", "Recording", "RecordingFormatError", "load_recording", "recording_script"]

NEWEST_KNOWN_CLI = NEWEST_CHECKED_CLI
"""The newest CLI version whose wire this claude_sync was tested against (the library's
``NEWEST_CHECKED_CLI``: one figure for both)."""

JsonDict = Dict[str, Any]


class RecordingFormatError(ValueError):
    """A recording this claude_sync cannot replay (the message says why and what to do)."""


class Recording:
    """A parsed recording: ``entries`` (``{"dir", "frame" | "raw", "t"}``), ``header``,
    ``exit_code`` and ``cli_version`` (from the recorded ``system/init``, if any)."""

    def __init__(self, header: JsonDict, entries: List[JsonDict], exit_code: Optional[int]) -> None:
        self.header = header
        self.entries = entries
        self.exit_code = exit_code
        self.cli_version: Optional[str] = None
        for entry in entries:
            frame = entry.get("frame") or {}
            if entry["dir"] == "out" and frame.get("type") == "system" and frame.get("subtype") == "init":
                self.cli_version = frame.get("claude_code_version")
                break


def _version_tuple(text: str) -> Tuple[int, ...]:
    parts: List[int] = []
    for piece in text.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def load_recording(path: Union[str, Path], *, allow_newer_cli: bool = False) -> Recording:
    """Read and check a recording. Raises ``RecordingFormatError`` (newer format, newer CLI,
    not a recording) or ``OSError``."""
    # Lines end at "\n" only: ``splitlines`` would also cut at U+2028/U+2029/U+0085, which JSON
    # text (written with ensure_ascii=False) may hold raw inside strings.
    lines = [line for line in Path(path).read_text(encoding="utf-8").split("\n") if line.strip()]
    records: List[JsonDict] = []
    for number, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise RecordingFormatError(f"{path}:{number}: not a JSON line ({exc})") from None
        if not isinstance(value, dict):
            raise RecordingFormatError(f"{path}:{number}: not a JSON object")
        records.append(value)
    if not records:
        raise RecordingFormatError(f"{path}: empty file, not a claude_sync recording")
    header: JsonDict = {"format": RECORDING_FORMAT, "version": 0}
    if "format" in records[0]:
        header = records.pop(0)
        if header.get("format") != RECORDING_FORMAT:
            raise RecordingFormatError(f"{path}: format {header.get('format')!r} is not a claude_sync recording")
        version = header.get("version")
        if not isinstance(version, int) or version > RECORDING_VERSION:
            raise RecordingFormatError(
                f"{path}: recording format version {version!r} was written by a newer claude_sync; "
                f"this one reads versions 0 to {RECORDING_VERSION}: upgrade claude_sync or re-record")
    entries, exit_code = _entries(records, int(header["version"]), path)
    recording = Recording(header, entries, exit_code)
    cli = recording.cli_version
    if cli and not allow_newer_cli and _version_tuple(cli) > _version_tuple(NEWEST_KNOWN_CLI):
        raise RecordingFormatError(
            f"{path}: recorded with claude CLI {cli}, newer than any this claude_sync knows ({NEWEST_KNOWN_CLI}); "
            "its lines may mean things this version cannot check. Re-record with a known CLI, or pass "
            "allow_newer_cli=True to replay it anyway")
    return recording


def _entries(records: List[JsonDict], version: int, path: Union[str, Path]) -> Tuple[List[JsonDict], Optional[int]]:
    entries: List[JsonDict] = []
    exit_code: Optional[int] = None
    for record in records:
        if "end" in record:
            exit_code = (record["end"] or {}).get("exit_code")
            continue
        if version == 0:  # {"in": frame} / {"out": frame}
            direction = "in" if "in" in record else "out" if "out" in record else None
            if direction is None:
                raise RecordingFormatError(f"{path}: a version-0 line needs an 'in' or 'out' key: {record}")
            record = {"dir": direction, "frame": record[direction]}
        if record.get("dir") not in ("in", "out") or not ("frame" in record or "raw" in record):
            raise RecordingFormatError(f"{path}: not a recording entry: {json.dumps(record)[:200]}")
        entries.append(record)
    return entries, exit_code


def recording_script(recording: Recording, *, timeout: float = 10.0) -> JsonDict:
    """The ``ScriptedCLI`` script that replays ``recording``."""
    steps: List[JsonDict] = []
    for index, entry in enumerate(recording.entries, 1):
        if entry["dir"] == "out":
            if "frame" in entry:
                steps.append({"op": "emit", "line": entry["frame"]})
            else:
                steps.append({"op": "raw", "data": str(entry["raw"]) + "\n"})
        elif "frame" in entry:
            steps.append({"op": "expect_frame", "frame": entry["frame"], "index": index})
    settings = {"auto_initialize": False, "auto_init": False, "timeout": timeout,
                "session_id": "replayed", "model": "replayed"}
    return {"format": SCRIPT_FORMAT, "settings": settings, "steps": steps}
