"""The shared pool's pure parts: messages, limits, plans and their ids; the socket's path and
the checks on its directory; the lock."""

from __future__ import annotations

import os
import shutil
import stat

import pytest
from poolkit import short_dir

from claude_sync._options.argv import FileArg
from claude_sync._shared_pool import paths, protocol
from claude_sync._shared_pool.errors import PoolUnavailable, SharedPoolError
from claude_sync._shared_pool.lease_client import LeasePlan, socket_path
from claude_sync._wire.errors import CLIConnectionError


@pytest.fixture
def sdir():
    directory = short_dir()
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def wire(argv=("/bin/cli",), env=None, cwd="/tmp"):
    return protocol.plan_to_wire(list(argv), env if env is not None else {"K": "v"}, cwd)


# ----------------------------------------------------------------------------- messages


def test_a_message_is_one_ascii_json_line_and_comes_back():
    data = protocol.encode({"v": 1, "op": "status", "text": "é\n"})
    assert data.endswith(b"\n") and data.count(b"\n") == 1 and data.isascii()
    reader = protocol.LineReader()
    assert reader.feed(data[:5]) == []
    assert reader.feed(data[5:]) == [{"v": 1, "op": "status", "text": "é\n"}]


def test_an_oversized_message_is_refused_on_both_ends():
    with pytest.raises(protocol.ProtocolError, match="over the limit"):
        protocol.encode({"x": "a" * protocol.MAX_MESSAGE_BYTES})
    reader = protocol.LineReader(limit=100)
    with pytest.raises(protocol.ProtocolError, match="over the limit"):
        reader.feed(b"a" * 100)  # no newline yet: refused before it ends
    with pytest.raises(protocol.ProtocolError, match="over the limit"):
        protocol.LineReader(limit=10).feed(b'{"a": "0123456789"}\n')


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n", b"\xff\xfe\n", b"42\n"])
def test_garbage_is_a_protocol_error(line):
    with pytest.raises(protocol.ProtocolError, match="not valid UTF-8 JSON|must be a JSON object"):
        protocol.LineReader().feed(line)


def test_a_version_mismatch_names_both_versions():
    problem = protocol.request_problem({"v": 7, "op": "lease"})
    assert problem is not None and problem.kind == "version"
    assert "7" in str(problem) and str(protocol.VERSION) in str(problem)
    assert protocol.request_problem({"v": 1, "op": "status"}) is None
    assert protocol.request_problem({"v": 1, "op": "dance"}).kind == "bad_request"
    assert "timeout" in str(protocol.request_problem({"v": 1, "op": "lease", "plan": {}, "timeout": float("nan")}))


# ----------------------------------------------------------------------------- plans


def test_a_plan_round_trips_and_its_id_is_12_hex_of_the_canonical_form():
    argv = ["/bin/cli", "--mcp-config", FileArg('{"k": 1}', ".json", by_fd=True), "--settings", FileArg("{}", ".json")]
    one = protocol.plan_from_wire(protocol.plan_to_wire(argv, {"B": "2", "A": "1"}, "/w"))
    two = protocol.plan_from_wire(protocol.plan_to_wire(argv, {"A": "1", "B": "2"}, "/w"))
    assert one == two and one.plan_id == two.plan_id
    assert len(one.plan_id) == 12 and int(one.plan_id, 16) >= 0
    assert one.argv[2] == FileArg('{"k": 1}', ".json", by_fd=True)


def test_plans_differing_in_one_env_value_differ():
    one = protocol.plan_from_wire(wire(env={"ANTHROPIC_API_KEY": "key-1"}))
    two = protocol.plan_from_wire(wire(env={"ANTHROPIC_API_KEY": "key-2"}))
    assert one != two and one.plan_id != two.plan_id
    three = protocol.plan_from_wire(wire(argv=["/bin/cli", FileArg("a")]))
    four = protocol.plan_from_wire(wire(argv=["/bin/cli", FileArg("b")]))
    assert three != four  # a file argument's content counts


def test_a_plans_repr_shows_no_env_value_or_file_content():
    plan = protocol.plan_from_wire(wire(argv=["/bin/cli", FileArg("file-secret")], env={"TOKEN": "env-secret"}))
    assert "secret" not in repr(plan)
    assert "secret" not in repr(LeasePlan(("/bin/cli",), {"TOKEN": "env-secret"}, None))


@pytest.mark.parametrize(
    "value, match",
    [
        ({"argv": [], "env": {}, "cwd": None}, "non-empty"),
        ({"argv": ["cli"], "env": {}, "cwd": None}, "absolute path"),
        ({"argv": ["/cli", 3], "env": {}, "cwd": None}, r"argv\[1\]"),
        ({"argv": ["/cli", {"file": "x", "suffix": "/../x", "by_fd": False}], "env": {}, "cwd": None}, "suffix"),
        ({"argv": ["/cli\0"], "env": {}, "cwd": None}, "NUL"),
        ({"argv": ["/cli"], "env": {"K": 3}, "cwd": None}, "env entry 'K'"),
        ({"argv": ["/cli"], "env": {"K=": "v"}, "cwd": None}, "env entry"),
        ({"argv": ["/cli"], "env": {}, "cwd": "relative"}, "cwd"),
        ({"argv": ["/cli"], "env": {}}, "exactly argv, env and cwd"),
        ("plan", "exactly argv, env and cwd"),
    ],
)
def test_a_bad_plan_is_refused_naming_the_part(value, match):
    with pytest.raises(protocol.ProtocolError, match=match):
        protocol.plan_from_wire(value)


def test_a_bad_env_value_is_not_echoed():
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.plan_from_wire({"argv": ["/cli"], "env": {"TOKEN": "sk-secret\0"}, "cwd": None})
    assert "sk-secret" not in str(caught.value)


# ----------------------------------------------------------------------------- errors


def test_the_errors():
    assert issubclass(SharedPoolError, CLIConnectionError)
    error = SharedPoolError("busy past the timeout", kind="busy")
    assert error.kind == "busy" and type(error)(**error.init_kwargs()).kind == "busy"
    assert PoolUnavailable("no socket").reason == "no socket"


# ----------------------------------------------------------------------------- paths


def test_socket_path_from_the_option_and_the_environment(tmp_path):
    environ = {"XDG_RUNTIME_DIR": "/nonexistent-runtime"}
    default = paths.default_socket_path(environ)
    assert default.endswith(f"claude_sync-{os.geteuid()}/pool.sock")  # XDG dir not ours: the temp dir
    assert socket_path(environ, False) is None
    assert socket_path(dict(environ, CLAUDE_SYNC_SHARED_POOL="1"), False) is None
    assert socket_path(environ, True) == default
    assert socket_path(environ, "/x/p.sock") == "/x/p.sock"
    assert socket_path(environ, None) is None
    for off in ("", "0"):
        assert socket_path(dict(environ, CLAUDE_SYNC_SHARED_POOL=off), None) is None
    assert socket_path(dict(environ, CLAUDE_SYNC_SHARED_POOL="1"), None) == default
    assert socket_path(dict(environ, CLAUDE_SYNC_SHARED_POOL="/run/p.sock"), None) == "/run/p.sock"
    with pytest.raises(ValueError, match="CLAUDE_SYNC_SHARED_POOL"):
        socket_path(dict(environ, CLAUDE_SYNC_SHARED_POOL="yes"), None)
    with pytest.raises(TypeError):
        socket_path(environ, 3)  # type: ignore[arg-type]
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    assert socket_path({"XDG_RUNTIME_DIR": str(runtime)}, True) == str(runtime / "claude_sync" / "pool.sock")


def test_the_socket_dir_is_created_0700(sdir):
    path = os.path.join(sdir, "inner", "pool.sock")
    assert paths.prepare_dir(path) == os.path.join(sdir, "inner")
    assert stat.S_IMODE(os.stat(os.path.join(sdir, "inner")).st_mode) == 0o700


def test_a_group_writable_socket_dir_is_refused(sdir):
    os.chmod(sdir, 0o770)
    with pytest.raises(PoolUnavailable, match="open to group/other"):
        paths.check_dir(sdir)
    with pytest.raises(PoolUnavailable, match="open to group/other"):
        paths.prepare_dir(os.path.join(sdir, "pool.sock"))


def test_a_symlinked_socket_dir_is_refused(sdir):
    real = os.path.join(sdir, "real")
    os.mkdir(real, 0o700)
    link = os.path.join(sdir, "link")
    os.symlink(real, link)
    with pytest.raises(PoolUnavailable, match="is a symlink"):
        paths.check_dir(link)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_a_foreign_owned_socket_dir_is_refused(sdir):
    os.chown(sdir, 65534, 65534)
    with pytest.raises(PoolUnavailable, match="owned by uid 65534"):
        paths.check_dir(sdir)


def test_a_missing_dir_or_too_long_path():
    with pytest.raises(PoolUnavailable, match="does not exist"):
        paths.check_dir("/nonexistent/claude_sync")
    with pytest.raises(PoolUnavailable, match="longer than"):
        paths.prepare_dir("/tmp/" + "x" * 200 + "/pool.sock")


def test_one_lock_per_socket_naming_the_holder(sdir):
    path = os.path.join(sdir, "pool.sock")
    fd, holder = paths.take_lock(path)
    try:
        assert fd is not None and holder is None
        assert paths.take_lock(path) == (None, os.getpid())
    finally:
        os.close(fd)
    fd, holder = paths.take_lock(path)  # free again once closed
    assert fd is not None
    os.close(fd)
