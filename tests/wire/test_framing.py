"""Pure framing: bytes → lines under a size cap; objects → frames."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import pytest
from helpers import run_together

from claude_sync._wire.framing import PREFIX_BYTES, LineFramer, OversizedLine, encode_frame


def feed_all(framer: LineFramer, chunks: List[bytes]) -> Tuple[List[bytes], List[OversizedLine]]:
    lines: List[bytes] = []
    for chunk in chunks:
        lines += framer.feed(chunk)
    tail = framer.finish()
    if tail is not None:
        lines.append(tail)
    return lines, list(framer.oversized)


@pytest.mark.parametrize(
    "chunks, expected",
    [
        ([b'{"a":1}\n'], [b'{"a":1}']),
        ([b'{"a":1}\n{"b":2}\n'], [b'{"a":1}', b'{"b":2}']),
        ([b'{"a"', b":1}\n"], [b'{"a":1}']),
        ([b"{", b'"a"', b":", b"1}", b"\n"], [b'{"a":1}']),
        ([b'{"a":1}\n{"b"', b":2}\n"], [b'{"a":1}', b'{"b":2}']),
        ([b"\n\n{}\n\n"], [b"{}"]),
        ([b"{}\r\n"], [b"{}\r"]),
        ([b'{"cut"'], [b'{"cut"']),  # EOF without newline: finish() returns it
        ([], []),
    ],
)
def test_lines_are_split_across_any_chunking(chunks: List[bytes], expected: List[bytes]) -> None:
    lines, oversized = feed_all(LineFramer(1024), chunks)
    assert lines == expected
    assert oversized == []


def test_every_split_point_gives_the_same_lines() -> None:
    stream = b'{"type":"a","x":"' + b"y" * 50 + b'"}\n{"type":"b"}\n{"type":"c"}\n'
    for cut in range(len(stream) + 1):
        lines, _ = feed_all(LineFramer(1024), [stream[:cut], stream[cut:]])
        assert lines == [stream.split(b"\n")[0], b'{"type":"b"}', b'{"type":"c"}'], cut


def test_line_at_exactly_the_cap_is_kept() -> None:
    line = b"{" + b"x" * 8 + b"}"
    lines, oversized = feed_all(LineFramer(len(line)), [line + b"\n"])
    assert lines == [line] and oversized == []


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1000, 100000])
def test_oversized_line_is_skipped_whole_and_the_next_delivered(chunk_size: int) -> None:
    big = b'{"big":"' + b"z" * 5000 + b'"}'
    stream = b'{"n":1}\n' + big + b'\n{"n":2}\n'
    framer = LineFramer(1000)
    chunks = [stream[i : i + chunk_size] for i in range(0, len(stream), chunk_size)]
    lines, oversized = feed_all(framer, chunks)
    assert lines == [b'{"n":1}', b'{"n":2}']
    assert len(oversized) == 1
    assert oversized[0].size == len(big)
    assert oversized[0].limit == 1000
    assert oversized[0].prefix == big[:PREFIX_BYTES] or big.startswith(oversized[0].prefix)


def test_skipped_line_is_not_buffered() -> None:
    framer = LineFramer(100)
    framer.feed(b"{" + b"a" * 99)
    for _ in range(1000):
        framer.feed(b"b" * 1000)  # a megabyte of one endless line
    assert framer._parts == [] and framer._pending == 0  # nothing kept while skipping
    assert framer.feed(b'"}\n{"ok":1}\n') == [b'{"ok":1}']
    assert framer.oversized[0].size == 100 + 1_000_000 + 2


def test_oversized_line_cut_by_eof_is_still_reported() -> None:
    framer = LineFramer(10)
    framer.feed(b"{" + b"x" * 50)
    assert framer.finish() is None
    assert framer.oversized and framer.oversized[0].size == 51


def test_twenty_mib_line_in_pipe_sized_chunks() -> None:
    text = "é" * (10 * 1024 * 1024)  # 20 MiB of UTF-8
    line = json.dumps({"type": "assistant", "t": text}, ensure_ascii=False).encode()
    framer = LineFramer(64 * 1024 * 1024)
    out: List[bytes] = []
    for i in range(0, len(line), 65536):
        out += framer.feed(line[i : i + 65536])
    out += framer.feed(b"\n")
    assert out == [line]


@pytest.mark.parametrize("bad", [0, -1, 1.5, None])
def test_cap_must_be_a_positive_int(bad: object) -> None:
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineFramer(bad)  # type: ignore[arg-type]


def test_encode_frame_is_one_utf8_line() -> None:
    frame = encode_frame({"text": "line one\nline two \u2028 é", "n": 1})
    assert frame.endswith(b"\n") and frame.count(b"\n") == 1
    assert json.loads(frame) == {"text": "line one\nline two \u2028 é", "n": 1}


def test_encode_frame_rejects_nan() -> None:
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})


_STANDARD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _Str(str):
    pass


class _Int(int):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {"type": "control_response", "response": {"subtype": "success", "request_id": "r-1", "response": {}}},
        {"a": [1, 2.5, -0.0, 1e300, None, True, False], "é\u2028": "tab\t\"quote\" \\ \x00 \U0001f600"},
        {"nested": [[[{"k": [{}]}]]], "big": 10**40, "float": 0.1 + 0.2},
        {_Str("sub"): _Int(3), "keys": {1: "int key", 2.5: "float key", False: "bool key", None: "none"}},
        [],
        "a bare string",
    ],
)
def test_encode_frame_bytes_are_the_standard_encoders(value: Any) -> None:
    # encode_frame keeps one C encoder for every call: the bytes must be exactly those the
    # standard JSONEncoder (the one it replaced) writes.
    assert encode_frame(value) == (_STANDARD.encode(value) + "\n").encode("utf-8")


def test_encode_frame_raises_what_the_standard_encoder_raises() -> None:
    cycle: Dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(ValueError, match="Circular reference detected"):  # not a RecursionError
        encode_frame({"frame": cycle})
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encode_frame({"x": {1, 2}})
    with pytest.raises(ValueError, match="Out of range float values"):
        encode_frame({"x": float("inf")})
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: the caller escapes and retries
        encode_frame({"x": "\ud800"})
    # and a failure leaves nothing behind: the same encoder serves the next frame
    assert encode_frame({"after": "ok"}) == b'{"after":"ok"}\n'


def test_encode_frame_from_many_threads_at_once() -> None:

    shared = {"list": list(range(50)), "text": "é" * 20}

    def encode_often(index: int) -> None:
        for _ in range(300):
            frame = {"index": index, "shared": shared}
            assert encode_frame(frame) == (_STANDARD.encode(frame) + "\n").encode("utf-8")

    assert run_together(encode_often, 4, timeout=30) == []
