"""The shared pool's wire protocol (pure): messages, limits, the version, a plan's canonical
form and its 12-hex id.

A ``SOCK_STREAM`` Unix socket. Each message is one JSON object and ``\\n`` (UTF-8, ASCII
escapes), at most ``MAX_MESSAGE_BYTES``; fds ride on the message they belong to. Every request
carries ``"v": VERSION``; a mismatch is answered with an error naming both versions.

- client → pool: ``{"v":1,"op":"lease","plan":{"argv":[str | {"file":str,"suffix":str,
  "by_fd":bool}],"env":{…},"cwd":str|null},"timeout":float,"pid":int}``
- pool → client: ``{"ok":true,"lease":str,"pid":int,"state":"fresh"|"reset"|"cold","runs":int,
  "cost_before":float,"usage_before":{…}|null,"prefix":base64,"initialize":{…}|null}`` with 3
  fds (stdin write end, stdout read end, stderr read end); or ``{"ok":false,"error":KIND,
  "message":str}``. ``initialize``: the CLI's answer to its first ``initialize``, kept since a
  give-back whose reset passed (null for a fresh or cold CLI): the leaseholder writes no
  second one (the plan's env digests those fields, so it would send the same).
- pool → client during a lease: ``{"event":"exited","returncode":int}`` once the CLI exits.
- client → pool: ``{"v":1,"op":"return","reusable":bool,"reason":str,"leftover":base64,
  "initialize":{…}}`` (``initialize`` optional: the answer the leaseholder used, kept with a
  reusable CLI; anything but an object is ignored), then the client closes the connection (no
  answer).
- ``{"v":1,"op":"status"}`` → ``{"ok":true,"pid":…,"clis":[…],"caps":{…},"waiting":int}``.
- ``{"v":1,"op":"stop"}`` → ``{"ok":true}``, then the pool stops.

The plan id shown in the status and the logs is the first 12 hex digits of the SHA-256 of the
plan's canonical JSON; plans are compared by full equality (``WirePlan``), never by the id.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from .._options.argv import FileArg

try:  # the builtin SHA-256 (~0.2 ms to load): hashlib loads OpenSSL (~2.5 ms, more when cold) at every leased connect
    from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]  # Python 3.12+
except ImportError:  # pragma: no cover - Python 3.9-3.11, or a build without it
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        from hashlib import sha256 as _sha256  # type: ignore[no-redef,unused-ignore]

__all__ = [
    "ERROR_KINDS", "MAX_MESSAGE_BYTES", "VERSION", "LineReader", "ProtocolError", "WirePlan", "b64", "encode",
    "error", "initialize_answer", "plan_from_wire", "plan_to_wire", "request_problem", "sha256_hex", "unb64",
]  # fmt: skip

VERSION = 1
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The longest message (its ``\\n`` included): a longer one is an error and closes the connection."""
MAX_ARGV_ITEMS = 10_000
ERROR_KINDS = ("busy", "refused", "bad_request", "version", "stopping")
OPS = ("lease", "return", "status", "stop")


class ProtocolError(Exception):
    """A message that breaks the protocol: too long, not one JSON object, a bad shape.

    Attributes:
        kind: ``"bad_request"`` or ``"version"`` (the error word the pool answers with).
    """

    def __init__(self, message: str, kind: str = "bad_request") -> None:
        super().__init__(message)
        self.kind = kind


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as its line. Raises ``ProtocolError`` when it is longer than the limit,
    ``TypeError``/``ValueError`` for what JSON cannot carry."""
    data = (json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"a message of {len(data)} bytes is over the limit of {MAX_MESSAGE_BYTES}")
    return data


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex (the builtin implementation: no OpenSSL to load)."""
    return str(_sha256(data).hexdigest())


def error(kind: str, message: str) -> Dict[str, Any]:
    """The pool's refusal ``{"ok": false, "error": kind, "message": message}``."""
    return {"ok": False, "error": kind, "message": message}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: Any, what: str) -> bytes:
    """Bytes from a base64 field. Raises ``ProtocolError`` naming ``what``."""
    if not isinstance(text, str):
        raise ProtocolError(f"{what} must be a base64 string")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ProtocolError(f"{what} is not valid base64") from None


class LineReader:
    """Splits received bytes into messages (one reader per connection; one thread at a time)."""

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self.buffer = bytearray()

    def feed(self, data: bytes) -> List[Dict[str, Any]]:
        """The complete messages ``data`` finishes. Raises ``ProtocolError`` for a line over the
        limit (even before it ends), invalid UTF-8/JSON, or a line that is not a JSON object."""
        self.buffer += data
        out: List[Dict[str, Any]] = []
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) >= self.limit:
                    raise ProtocolError(f"a message is over the limit of {self.limit} bytes")
                return out
            if end + 1 > self.limit:
                raise ProtocolError(f"a message is over the limit of {self.limit} bytes")
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
            out.append(decode(line))

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held."""
        return len(self.buffer)


def decode(line: bytes) -> Dict[str, Any]:
    """One line (no ``\\n``) as its message. Raises ``ProtocolError``."""
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("a message is not valid UTF-8 JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"a message must be a JSON object, not {type(value).__name__}")
    return value


def initialize_answer(value: Any) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """An ``initialize`` field (a lease answer's or a give-back's): ``(answer, None)``, or
    ``(None, why)`` for a value that is not one (absent/null: ``(None, None)``). Fail closed:
    a bad one is dropped and the leaseholder sends its own ``initialize``."""
    if value is None:
        return None, None
    if not isinstance(value, dict):
        return None, f"the initialize answer is a {type(value).__name__}, not an object"
    if not value:
        return None, "the initialize answer is empty"
    return value, None


def request_problem(message: Mapping[str, Any]) -> Optional[ProtocolError]:
    """What is wrong with a request's envelope (``v`` and ``op``), or None."""
    version = message.get("v")
    if version != VERSION:
        return ProtocolError(f"protocol version {version!r} asked, this pool speaks version {VERSION}", kind="version")
    op = message.get("op")
    if op not in OPS:
        return ProtocolError(f"unknown op {op!r} (expected one of {', '.join(OPS)})")
    if op == "lease":
        timeout = message.get("timeout")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout < 0:
            return ProtocolError("a lease's timeout must be a finite number >= 0")
        if "plan" not in message:
            return ProtocolError("a lease has no plan")
    return None


ArgvWire = Union[str, Dict[str, Any]]


@dataclass(frozen=True)
class WirePlan:
    """A spawn plan as the pool keeps it: compared by full equality (argv with the file
    arguments' contents, the whole env, cwd). Its ``repr`` shows no env values or contents."""

    argv: Tuple[Union[str, FileArg], ...]
    env: Tuple[Tuple[str, str], ...]
    cwd: Optional[str]

    def __repr__(self) -> str:
        return f"WirePlan(id={self.plan_id}, cli={self.cli!r}, cwd={self.cwd!r})"

    @property
    def cli(self) -> str:
        """The program (``argv[0]``): the one part of the argv the status shows."""
        first = self.argv[0] if self.argv else ""
        return first if isinstance(first, str) else "<file>"

    @property
    def canonical(self) -> str:
        """The canonical JSON: keys sorted, no spaces, ASCII."""
        return json.dumps(plan_to_wire(self.argv, dict(self.env), self.cwd), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=True)  # fmt: skip

    @property
    def plan_id(self) -> str:
        """The first 12 hex digits of the SHA-256 of ``canonical``."""
        return sha256_hex(self.canonical.encode("ascii"))[:12]

    def env_dict(self) -> Dict[str, str]:
        return dict(self.env)


def plan_to_wire(argv: Any, env: Mapping[str, str], cwd: Optional[str]) -> Dict[str, Any]:
    """A plan's wire form. Raises ``TypeError`` for an argv item that is neither str nor
    ``FileArg``, env keys/values that are not str, a cwd that is not str/None."""
    items: List[ArgvWire] = []
    for item in argv:
        if isinstance(item, str):
            items.append(item)
        elif isinstance(item, FileArg):
            items.append({"file": item.content, "suffix": item.suffix, "by_fd": bool(item.by_fd)})
        else:
            raise TypeError(f"a plan's argv holds {type(item).__name__}, not str or FileArg")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise TypeError("a plan's env must map str to str")
    if cwd is not None and not isinstance(cwd, str):
        raise TypeError(f"a plan's cwd must be a str or None, not {type(cwd).__name__}")
    return {"argv": items, "env": dict(env), "cwd": cwd}


def plan_from_wire(value: Any) -> WirePlan:
    """The plan a lease request carries. Raises ``ProtocolError`` naming the bad part (never
    an env value or a file's content)."""
    if not isinstance(value, dict) or set(value) != {"argv", "env", "cwd"}:
        raise ProtocolError("a plan must be an object with exactly argv, env and cwd")
    argv, env, cwd = value["argv"], value["env"], value["cwd"]
    if not isinstance(argv, list) or not argv or len(argv) > MAX_ARGV_ITEMS:
        raise ProtocolError(f"a plan's argv must be a non-empty list of at most {MAX_ARGV_ITEMS} items")
    items: List[Union[str, FileArg]] = []
    for index, item in enumerate(argv):
        if isinstance(item, str):
            if "\0" in item:
                raise ProtocolError(f"argv[{index}] holds a NUL character")
            items.append(item)
            continue
        if not isinstance(item, dict) or set(item) != {"file", "suffix", "by_fd"}:
            raise ProtocolError(f"argv[{index}] must be a str or {{file, suffix, by_fd}}")
        content, suffix, by_fd = item["file"], item["suffix"], item["by_fd"]
        if not isinstance(content, str) or not isinstance(suffix, str) or not isinstance(by_fd, bool):
            raise ProtocolError(f"argv[{index}]: file and suffix must be str, by_fd a bool")
        if "/" in suffix or "\0" in suffix or len(suffix) > 32:
            raise ProtocolError(f"argv[{index}]: the suffix must be a short file-name ending")
        items.append(FileArg(content, suffix, by_fd=by_fd))
    if not isinstance(items[0], str) or not items[0].startswith("/"):
        raise ProtocolError("argv[0] must be the CLI's absolute path")
    if not isinstance(env, dict):
        raise ProtocolError("a plan's env must be an object")
    for key, item in env.items():
        if not isinstance(item, str) or not key or "=" in key or "\0" in key or "\0" in item:
            raise ProtocolError(f"env entry {key[:64]!r} must be a str without NUL (a name without '=')")
    if cwd is not None and (not isinstance(cwd, str) or not cwd.startswith("/") or "\0" in cwd):
        raise ProtocolError("a plan's cwd must be an absolute path or null")
    return WirePlan(tuple(items), tuple(sorted(env.items())), cwd)
