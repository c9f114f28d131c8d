"""A seeded generator of mutated CLI stdout streams, for ``test_fuzz.py``.

``streams(seed, count)`` yields ``FuzzStream``\\ s: the bytes a fake CLI writes after it answered
``initialize`` (or instead of answering it), and how it exits. Each starts from a plausible
turn — system init, assistant blocks, tool use and results, stream events, retries, control
requests for a permission callback, a hook and an MCP tool, control responses and cancels,
a result — and then gets a few mutations:

truncated lines, values of the wrong type, unknown or non-string ``type``s, huge strings,
very deep nesting, invalid UTF-8, NUL and control bytes, blank and CRLF lines, control frames
of bad shapes, duplicated or missing results, a missing final newline, an exit mid-line, a
broken or missing ``initialize`` answer, and random exit codes or a SIGKILL.

Deterministic for a given seed (``random.Random``); no I/O.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List

__all__ = ["FuzzStream", "streams"]

SESSION = "fuzz-session"


@dataclass
class FuzzStream:
    index: int
    init: bytes
    """What answers our ``initialize`` (one line; may be broken or empty)."""
    body: bytes
    exit_code: int
    """The CLI's exit status; -9 means it SIGKILLs itself."""
    mutations: List[str]


def _base_turn(rng: random.Random) -> List[Dict[str, Any]]:
    tool_id = f"toolu_{rng.randrange(10**6)}"
    lines: List[Dict[str, Any]] = [
        {"type": "system", "subtype": "init", "session_id": SESSION, "tools": ["Bash"], "model": "m",
         "cwd": "/", "permissionMode": "default", "mcp_servers": [], "uuid": "u0"},
        {"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 2, "retry_delay_ms": 5.0,
         "error_status": 529, "error": "overloaded", "session_id": SESSION, "uuid": "u1"},
        {"type": "stream_event", "uuid": "u2", "session_id": SESSION,
         "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "he"}}},
        {"type": "assistant", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "u3",
         "message": {"id": "msg_1", "model": "m", "role": "assistant",
                     "content": [{"type": "text", "text": "hello"}]}},
        {"type": "assistant", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "u4",
         "message": {"id": "msg_1", "model": "m", "role": "assistant",
                     "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "control_request", "request_id": "cli_perm_1",
         "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
                     "tool_use_id": tool_id, "permission_suggestions": []}},
        {"type": "control_request", "request_id": "cli_hook_1",
         "request": {"subtype": "hook_callback", "callback_id": "hook_0",
                     "input": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}},
                     "tool_use_id": tool_id}},
        {"type": "control_request", "request_id": "cli_mcp_1",
         "request": {"subtype": "mcp_message", "server_name": "calc",
                     "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                 "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}}},
        {"type": "control_cancel_request", "request_id": "cli_hook_1"},
        {"type": "control_response", "response": {"subtype": "success", "request_id": "req_999_x", "response": {}}},
        {"type": "user", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "u5",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                   "content": "file", "is_error": False}]}},
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "uuid": "u6", "session_id": SESSION},
        {"type": "assistant", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "u7",
         "message": {"id": "msg_2", "model": "m", "role": "assistant",
                     "content": [{"type": "thinking", "thinking": "hmm", "signature": "s"},
                                 {"type": "text", "text": "done"}]}},
    ]  # fmt: skip
    if rng.random() < 0.5:
        lines.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1,
                      "duration_api_ms": 1, "num_turns": 1, "result": "done", "session_id": SESSION,
                      "total_cost_usd": 0.0, "usage": {}, "uuid": "u8"})  # fmt: skip
    else:
        lines.append({"type": "result", "subtype": "error_during_execution", "is_error": True,
                      "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "session_id": SESSION,
                      "errors": ["boom"], "uuid": "u8"})  # fmt: skip
    if rng.random() < 0.3:
        lines.append({"type": "prompt_suggestion", "suggestion": "next", "uuid": "u9", "session_id": SESSION})
    return lines


def _odd_value(rng: random.Random) -> Any:
    return rng.choice([None, 0, -1, 1.5, float("1e308"), True, "", "x" * rng.randrange(1, 50), [], {},
                       [1, "a", None], {"k": [{}]}, "\ud800".encode("utf-8", "surrogatepass").decode("latin-1")])  # fmt: skip


def _retype(rng: random.Random, obj: Any, depth: int = 0) -> Any:
    """Replace one value somewhere inside ``obj`` with a value of another type."""
    if isinstance(obj, dict) and obj and depth < 6:
        key = rng.choice(list(obj))
        copy = dict(obj)
        copy[key] = _retype(rng, obj[key], depth + 1) if rng.random() < 0.6 else _odd_value(rng)
        return copy
    if isinstance(obj, list) and obj and depth < 6:
        items = list(obj)
        at = rng.randrange(len(items))
        items[at] = _retype(rng, items[at], depth + 1) if rng.random() < 0.6 else _odd_value(rng)
        return items
    return _odd_value(rng)


def _deep(depth: int, leaf: Any) -> Any:
    value: Any = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"d": value}
    return value


def _encode(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


# Mutations work on a list of encoded lines (bytes, without the newline).
Mutation = Callable[[random.Random, List[bytes], List[Dict[str, Any]]], None]


# Mutations may insert lines, so an index into ``objs`` is not one into ``lines``: they pick
# a line by its own index, and an object to re-encode at random.


def _truncate(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    at = rng.randrange(len(lines))
    lines[at] = lines[at][: rng.randrange(max(1, len(lines[at])))]


def _wrong_type(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    lines[rng.randrange(len(lines))] = _encode(_retype(rng, rng.choice(objs)))


def _unknown_type(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    odd = dict(rng.choice(objs), type=rng.choice(["zzz_new_type", "", 5, None, ["assistant"], {"t": 1}, "result "]))
    lines[rng.randrange(len(lines))] = _encode(odd)


def _huge(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    size = rng.choice([70_000, 300_000, 1_100_000])
    text = "y" * size
    lines.insert(rng.randrange(len(lines) + 1), _encode(
        {"type": "assistant", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "big",
         "message": {"id": "msg_big", "model": "m", "role": "assistant", "content": [{"type": "text", "text": text}]}}
    ))  # fmt: skip


def _deep_value(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    depth = rng.choice([50, 900, 3000, 20000])
    kind = rng.choice(["tool_input", "whole", "control"])
    if kind == "tool_input":
        obj: Any = {"type": "assistant", "session_id": SESSION, "parent_tool_use_id": None, "uuid": "deep",
                    "message": {"id": "msg_d", "model": "m", "role": "assistant",
                                "content": [{"type": "tool_use", "id": "t", "name": "X", "input": _deep(depth, 1)}]}}
    elif kind == "control":
        obj = {"type": "control_request", "request_id": "deep_1",
               "request": {"subtype": "can_use_tool", "tool_name": "X", "input": _deep(depth, 1)}}
    else:
        obj = _deep(depth, {"type": "assistant"})
    try:
        line = _encode(obj)
    except RecursionError:
        line = b"[" * depth + b"]" * depth
    lines.insert(rng.randrange(len(lines) + 1), line)


def _bad_utf8(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    at = rng.randrange(len(lines))
    line = lines[at]
    cut = rng.randrange(len(line) + 1)
    lines[at] = line[:cut] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x1b[31m", b"\r"]) + line[cut:]


def _blank_and_crlf(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, rng.choice([b"", b"   ", b"\r", b"not json at all", b"{}", b"[]", b"null", b"1", b'"s"']))
    if rng.random() < 0.5:
        lines[rng.randrange(len(lines))] += b"\r"


def _bad_control(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    frame = rng.choice([
        {"type": "control_request"},
        {"type": "control_request", "request_id": "x1"},
        {"type": "control_request", "request_id": "x2", "request": "can_use_tool"},
        {"type": "control_request", "request_id": 5, "request": {"subtype": "can_use_tool"}},
        {"type": "control_request", "request_id": "x3", "request": {"subtype": ["can_use_tool"]}},
        {"type": "control_request", "request_id": "x4", "request": {"subtype": "can_use_tool", "input": "ls"}},
        {"type": "control_request", "request_id": "x5", "request": {"subtype": "hook_callback", "callback_id": 3}},
        {"type": "control_request", "request_id": "x6", "request": {"subtype": "mcp_message", "server_name": "nope",
                                                                      "message": {"id": 1, "method": "tools/list"}}},
        {"type": "control_request", "request_id": "x7", "request": {"subtype": "mcp_message", "server_name": "calc",
                                                                      "message": "notjsonrpc"}},
        {"type": "control_request", "request_id": "x8", "request": {"subtype": "never_heard_of_it"}},
        {"type": "control_response"},
        {"type": "control_response", "response": []},
        {"type": "control_response", "response": {"subtype": "error", "request_id": None}},
        {"type": "control_response", "response": {"subtype": "success", "request_id": "req_1_zz", "response": 3}},
        {"type": "control_cancel_request"},
        {"type": "control_cancel_request", "request_id": {"a": 1}},
        {"type": "keep_alive"},
    ])  # fmt: skip
    lines.insert(rng.randrange(len(lines) + 1), _encode(frame))


def _results(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    last = [i for i, o in enumerate(objs) if o.get("type") == "result"]
    if not last or last[0] >= len(lines):
        return  # an earlier mutation moved the lines: nothing reliable to drop or repeat
    if rng.random() < 0.5:
        del lines[last[0]]
    else:
        lines.append(lines[last[0]])


def _odd_errors(rng: random.Random, lines: List[bytes], objs: List[Dict[str, Any]]) -> None:
    lines.append(_encode({"type": "result", "subtype": "error_during_execution", "is_error": True,
                          "session_id": SESSION, "errors": _odd_value(rng), "result": _odd_value(rng)}))  # fmt: skip


MUTATIONS: Dict[str, Mutation] = {
    "truncate": _truncate,
    "wrong_type": _wrong_type,
    "unknown_type": _unknown_type,
    "huge": _huge,
    "deep": _deep_value,
    "bad_utf8": _bad_utf8,
    "blank_crlf": _blank_and_crlf,
    "bad_control": _bad_control,
    "results": _results,
    "odd_errors": _odd_errors,
}


def _init_answer(rng: random.Random, mutations: List[str]) -> bytes:
    roll = rng.random()
    if roll < 0.9:
        return b"OK"  # the fake CLI writes the proper answer with the request's id
    mutations.append("init_broken")
    return rng.choice([b"", b"{", b'{"type":"control_response","response":{"subtype":"error","request_id":"REQ","error":"no"}}',
                       b'{"type":"control_response","response":"x"}'])  # fmt: skip


def streams(seed: int, count: int) -> Iterator[FuzzStream]:
    rng = random.Random(seed)
    names = sorted(MUTATIONS)
    for index in range(count):
        objs = _base_turn(rng)
        lines = [_encode(o) for o in objs]
        chosen = [rng.choice(names) for _ in range(rng.randrange(1, 4))]
        for name in chosen:
            MUTATIONS[name](rng, lines, objs)
        body = b"\n".join(lines)
        if rng.random() < 0.85:
            body += b"\n"
        else:
            chosen.append("no_final_newline")
        init = _init_answer(rng, chosen)
        exit_code = rng.choice([0, 0, 0, 1, 1, 2, 143, -9])
        yield FuzzStream(index, init, body, exit_code, chosen)
