"""``python -m claude_sync.port``: files in place, ``--diff``, ``--check``, exit status, and
files it must not touch."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from claude_sync.port.cli import main
from claude_sync.port.rules import MARKER

REPO = Path(__file__).resolve().parents[2]

ASYNC_PROGRAM = """\
import asyncio
from claude_agent_sdk import query


async def main():
    async for message in query(prompt="hi"):
        print(message)
    await asyncio.sleep(1)


asyncio.run(main())
"""

PORTED_PROGRAM = """\
import time
from claude_sync import query


def main():
    for message in query(prompt="hi"):
        print(message)
    time.sleep(1)


main()
"""

FLAGGED_PROGRAM = """\
import asyncio


async def main():
    await asyncio.gather(a(), b())
"""


def run(*args: str) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_ports_in_place_with_w_and_exits_0_when_nothing_is_left(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    status, out, err = run("-w", str(path))
    assert (status, out) == (0, "")
    assert path.read_text() == PORTED_PROGRAM
    assert err == "claude_sync.port: 1 file, 1 changed, 0 places to port by hand\n"


def test_flags_are_printed_with_file_line_and_column_and_exit_1(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", FLAGGED_PROGRAM)
    status, _, err = run("-w", str(path))
    assert status == 1
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:6:5: asyncio.gather(…): ")
    assert "AgentPool" in first
    assert "async" not in path.read_text().replace("asyncio", "")


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    status, out, _ = run("--diff", str(path))
    assert status == 0
    assert path.read_text() == ASYNC_PROGRAM
    assert out.startswith(f"--- {path}\n+++ {path}\n@@")
    assert "\n-async def main():\n" in out and "\n+def main():\n" in out
    monkeypatch.chdir(tmp_path)
    assert run("--diff", "app.py")[1].startswith("--- a/app.py\n+++ b/app.py\n@@")


def test_check_fails_while_a_file_needs_porting_or_a_flag_remains(tmp_path: Path) -> None:
    unported = write(tmp_path, "a.py", ASYNC_PROGRAM)
    status, _, err = run("--check", str(unported))
    assert status == 1 and f"{unported}: would be ported" in err
    assert unported.read_text() == ASYNC_PROGRAM

    run("-w", str(unported))
    assert run("--check", str(unported))[0] == 0

    flagged = write(tmp_path, "b.py", FLAGGED_PROGRAM)
    run("-w", str(flagged))
    status, _, err = run("--check", str(flagged))
    assert status == 1 and "asyncio.gather" in err, "the flag survives the port"
    assert err.count("asyncio.gather") == 1, "the call and its marker comment are one flag"
    flagged.write_text("from concurrent.futures import ThreadPoolExecutor\n\n\ndef main():\n    with ThreadPoolExecutor() as pool:\n        list(pool.map(lambda f: f(), [a, b]))\n")
    assert run("--check", str(flagged))[0] == 0


def test_a_file_it_cannot_parse_is_reported_untouched_and_exits_2(tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.py", "async def main(:\n    await x\n")
    fine = write(tmp_path, "fine.py", ASYNC_PROGRAM)
    before = broken.read_bytes()
    status, _, err = run("-w", str(broken), str(fine))
    assert status == 2
    assert f"{broken}:1: cannot parse" in err and "(file left unchanged)" in err
    assert broken.read_bytes() == before
    assert fine.read_text() == PORTED_PROGRAM, "the other files are still ported"


def test_folders_are_walked_for_python_files_hidden_ones_skipped(tmp_path: Path) -> None:
    write(tmp_path, "pkg/a.py", ASYNC_PROGRAM)
    write(tmp_path, "pkg/sub/b.py", ASYNC_PROGRAM)
    write(tmp_path, "pkg/.venv/c.py", ASYNC_PROGRAM)
    write(tmp_path, "pkg/notes.txt", "await nothing")
    status, _, err = run("-w", str(tmp_path / "pkg"))
    assert status == 0 and "2 files, 2 changed" in err
    assert (tmp_path / "pkg/.venv/c.py").read_text() == ASYNC_PROGRAM


def test_missing_path_is_reported_and_exits_2(tmp_path: Path) -> None:
    status, _, err = run(str(tmp_path / "nope.py"))
    assert f"{tmp_path / 'nope.py'}: no such file or folder" in err
    assert status == 2 and "0 files" in err


def test_encoding_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\r\nimport asyncio\r\nasync def f():\r\n    s = '\xe9'; await asyncio.sleep(1)\r\n")
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfasync def g():\n    pass\nasync def f():\n    await g()\n")
    assert run("-w", str(path), str(bom))[0] == 0
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\r\nimport time\r\ndef f():\r\n    s = '\xe9'; time.sleep(1)\r\n"
    assert bom.read_bytes() == b"\xef\xbb\xbfdef g():\n    pass\ndef f():\n    g()\n"


def test_verbose_lists_the_rewrites(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    _, _, err = run("-w", "-v", str(path))
    assert f"{path}:11:1: rewrote asyncio.run(…) -> a direct call" in err
    assert f"{path}:2:1: rewrote claude_agent_sdk -> claude_sync" in err


def test_names_claude_sync_lacks_are_flagged_through_the_real_package(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", "from claude_agent_sdk import query, NotAThing\n")
    status, _, err = run("-w", str(path))
    assert status == 1 and "claude_sync has no NotAThing" in err and "query" not in err.split("NotAThing")[0].split(":")[-1]


def test_runs_as_a_module_and_import_claude_sync_does_not_load_it(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "claude_sync.port", "--check", str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "would be ported" in done.stderr
    probe = "import sys, claude_sync; print(sorted(m for m in sys.modules if m.startswith('claude_sync.port')))"
    loaded = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert loaded.stdout.strip() == "[]", loaded.stderr


# ----------------------------------------------------------------------------- show before writing


def test_by_default_it_shows_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    before = path.stat()
    status, out, err = run(str(path))
    assert status == 0
    assert path.read_text() == ASYNC_PROGRAM and path.stat().st_mtime_ns == before.st_mtime_ns
    assert out.startswith(f"--- {path}\n+++ {path}\n@@") and "\n+def main():\n" in out
    assert err == "claude_sync.port: 1 file, 1 would change, 0 places to port by hand, nothing written (-w writes)\n"


def test_w_with_diff_writes_and_shows(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    status, out, _ = run("-w", "--diff", str(path))
    assert status == 0 and path.read_text() == PORTED_PROGRAM and "\n+def main():\n" in out


def test_check_goes_with_neither_w_nor_diff(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    for other in ("-w", "--diff"):
        with pytest.raises(SystemExit) as stopped:
            run("--check", other, str(path))
        assert stopped.value.code == 2
    assert path.read_text() == ASYNC_PROGRAM


def test_help_documents_the_exit_statuses() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "claude_sync.port", "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for status in ("0 nothing left to do", "1 a flag remains", "2 a file or folder could not be read", "141 stdout or stderr was closed"):
        assert status in " ".join(done.stdout.split()), done.stdout


# ----------------------------------------------------------------------------- diffs that apply


@pytest.mark.parametrize(
    "source",
    [
        "import asyncio\nasync def f():\n    await asyncio.sleep(1)",  # no final newline
        "import asyncio\r\nasync def f():\r\n    await asyncio.sleep(1)\r\n",  # CRLF
        "import asyncio\r\nasync def f():\r\n    await asyncio.sleep(1)",  # CRLF, no final newline
        "x = '\x0c\u2028'\nimport asyncio\nasync def f():\n    await asyncio.sleep(1)\n",  # breaks only str.splitlines sees
    ],
    ids=["no-final-newline", "crlf", "crlf-no-final-newline", "unicode-breaks"],
)
@pytest.mark.parametrize("tool", ["patch", "git"])
def test_the_diff_is_a_patch_that_applies(tmp_path: Path, source: str, tool: str) -> None:
    work = tmp_path / "work"
    path = work / "pkg" / "app.py"
    path.parent.mkdir(parents=True)
    path.write_bytes(source.encode())
    expected = run("-w", str(path))
    assert expected[0] == 0, expected
    wanted = path.read_bytes()
    path.write_bytes(source.encode())
    done = subprocess.run([sys.executable, "-m", "claude_sync.port", "pkg/app.py"], cwd=str(work), env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    patch_file = tmp_path / "port.patch"
    patch_file.write_bytes(done.stdout)
    if tool == "patch":
        applied = subprocess.run(["patch", "-p1", "--binary", "-i", str(patch_file)], cwd=str(work), capture_output=True, timeout=60)
    else:
        applied = subprocess.run(["git", "apply", "--unsafe-paths", "-p1", str(patch_file)], cwd=str(work), capture_output=True, timeout=60)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert path.read_bytes() == wanted


def test_a_diff_piped_into_head_ends_quietly_with_status_141(tmp_path: Path) -> None:
    for index in range(40):
        write(tmp_path, f"pkg/m{index:02}.py", ASYNC_PROGRAM)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    reader, writer = os.pipe()
    with subprocess.Popen([sys.executable, "-m", "claude_sync.port", str(tmp_path / "pkg")], stdout=writer, stderr=subprocess.PIPE, env=env) as child:
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            assert pipe.readline().startswith(b"--- ")
        _, stderr = child.communicate(timeout=60)
    assert child.returncode == 141, stderr
    assert b"Traceback" not in stderr and b"BrokenPipeError" not in stderr and b"Exception ignored" not in stderr, stderr


# ----------------------------------------------------------------------------- writing safely


def temp_files(folder: Path) -> List[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".port-tmp"))


PORT_WITH_FILE_LIMIT = """\
import resource, runpy, sys
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.argv[0] = "claude_sync.port"
runpy.run_module("claude_sync.port", run_name="__main__")
"""

MANY_FLAGS = "import asyncio\n\n\nasync def main():\n" + "    await asyncio.gather(a(), b())\n" * 40
"""Ported, it grows by 40 marker lines (~7 KiB)."""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")
def test_a_write_cut_short_by_a_file_size_limit_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", MANY_FLAGS)
    before = path.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    limit = str(len(before) // 2)  # writing the port cannot finish (Python ignores SIGXFSZ: the write fails, EFBIG)
    done = subprocess.run([sys.executable, "-c", PORT_WITH_FILE_LIMIT, limit, "-w", str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert path.read_bytes() == before
    assert temp_files(tmp_path) == []
    assert done.returncode == 2, done.stderr
    assert f"{path}: cannot write: [Errno 27] File too large" in done.stderr and "(file left unchanged)" in done.stderr


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (root only)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True, timeout=30)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr!r}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True, timeout=30, check=True)


def test_a_full_disk_leaves_the_file_as_it_was(small_tmpfs: Path) -> None:
    path = write(small_tmpfs, "app.py", MANY_FLAGS)
    before = path.read_bytes()
    filler = os.open(small_tmpfs / "filler", os.O_WRONLY | os.O_CREAT)
    try:  # fill the file system to the last block
        while os.write(filler, b"x" * 512):
            pass
    except OSError:
        pass
    finally:
        os.close(filler)
    status, _, err = run("-w", str(path))
    assert path.read_bytes() == before
    assert temp_files(small_tmpfs) == []
    assert status == 2 and "No space left on device" in err and "(file left unchanged)" in err, err


AS_NOBODY = """\
import argparse, difflib, gettext, locale, os, random, sys, tempfile
sys.path.insert(0, sys.argv.pop(1))
import claude_sync, claude_sync.types
from claude_sync.port.cli import main
from claude_sync.port.rules import MARKER
if os.geteuid() == 0:  # root writes and reads anywhere: drop to nobody (imports done: /root is closed to nobody)
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder under the system temp folder that every user can reach (pytest's own tmp_path
    sits under a folder only its owner can enter)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="port-test-"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        for root, dirs, _ in os.walk(folder):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)
        shutil.rmtree(folder)


def port_as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", AS_NOBODY, str(REPO), *args], capture_output=True, text=True, timeout=60, cwd="/")


def test_a_read_only_folder_leaves_the_file_as_it_was(open_tmp: Path) -> None:
    tmp_path = open_tmp
    if not hasattr(os, "geteuid"):
        pytest.skip("POSIX permissions")
    folder = tmp_path / "ro"
    path = write(folder, "app.py", ASYNC_PROGRAM)
    os.chmod(path, 0o666)
    os.chmod(folder, 0o555)
    os.chmod(tmp_path, 0o755)
    try:
        done = port_as_nobody("-w", str(path))
    finally:
        os.chmod(folder, 0o755)
    assert done.returncode == 2 and f"{path}: cannot write: [Errno 13] Permission denied" in done.stderr, done.stderr
    assert path.read_text() == ASYNC_PROGRAM and temp_files(tmp_path) == []


def test_mode_and_owner_are_kept_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    os.chmod(path, 0o751)
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if as_root:  # a file of another user: root can give the new file the same owner
        os.chown(path, 65534, 65534)
    status, _, err = run("-w", str(path))
    assert status == 0 and "owner" not in err
    assert path.read_text() == PORTED_PROGRAM and (path.stat().st_mode & 0o7777) == 0o751
    if as_root:
        assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)
    assert temp_files(tmp_path) == []


def test_a_symlink_is_followed_its_target_rewritten_and_the_link_kept(tmp_path: Path) -> None:
    target = write(tmp_path, "real/app.py", ASYNC_PROGRAM)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    status, _, err = run("-w", str(link))
    assert status == 0 and f"wrote the link's target {target}" in err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == PORTED_PROGRAM


def test_a_hard_linked_file_is_replaced_under_the_name_given_the_others_keep_the_old_text(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    other = tmp_path / "other.py.orig"
    os.link(path, other)
    status, _, err = run("-w", str(path))
    assert status == 0 and f"{path}: had 1 other hard link(s): they keep the old text" in err
    assert path.read_text() == PORTED_PROGRAM and other.read_text() == ASYNC_PROGRAM


def test_the_same_file_given_twice_or_through_a_link_is_ported_once(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", ASYNC_PROGRAM)
    (tmp_path / "again.py").symlink_to(path)
    status, out, err = run(str(path), str(path), str(tmp_path / "again.py"), str(tmp_path))
    assert status == 0 and out.count("\n+def main():\n") == 1 and "1 file, 1 would change" in err


# ----------------------------------------------------------------------------- hostile input


def test_unreadable_files_and_folders_are_reported_and_the_rest_ported(open_tmp: Path) -> None:
    tmp_path = open_tmp
    if not hasattr(os, "geteuid"):
        pytest.skip("POSIX permissions")
    fine = write(tmp_path, "pkg/fine.py", ASYNC_PROGRAM)
    secret = write(tmp_path, "pkg/secret.py", ASYNC_PROGRAM)
    locked = tmp_path / "pkg" / "locked"
    write(locked, "inner.py", ASYNC_PROGRAM)
    os.chmod(tmp_path / "pkg", 0o777)
    os.chmod(fine, 0o666)
    os.chmod(secret, 0)
    os.chmod(locked, 0)
    try:
        done = port_as_nobody("-w", str(tmp_path / "pkg"))
        unreachable = port_as_nobody("-w", str(locked / "inner.py"))
    finally:
        os.chmod(secret, 0o644)
        os.chmod(locked, 0o755)
    assert done.returncode == 2, done.stderr
    assert f"{secret}: cannot read: [Errno 13] Permission denied" in done.stderr
    assert f"{locked}: cannot read folder: Permission denied" in done.stderr
    assert unreachable.returncode == 2 and f"{locked / 'inner.py'}: cannot read: [Errno 13] Permission denied" in unreachable.stderr
    assert fine.read_text() == PORTED_PROGRAM and secret.read_text() == ASYNC_PROGRAM


def test_bad_bytes_and_odd_files_are_reported_never_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"import asyncio\nasync def f():\n    await asyncio.sleep(1)  # \xff\xfe\n")
    cookie = tmp_path / "cookie.py"
    cookie.write_bytes(b"# -*- coding: no-such-codec -*-\nasync def f():\n    pass\n")
    bom_and_cookie = tmp_path / "clash.py"
    bom_and_cookie.write_bytes(b"\xef\xbb\xbf# coding: latin-1\nasync def f():\n    pass\n")
    fifo = tmp_path / "pipe.py"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
    before = {p: p.read_bytes() for p in (bad, cookie, bom_and_cookie)}
    status, _, err = run("-w", str(tmp_path), "-")
    assert status == 2
    assert f"{bad}: cannot read: 'utf-8' codec can't decode byte 0xff" in err
    assert f"{cookie}: cannot read: unknown encoding" in err
    assert f"{bom_and_cookie}: cannot read: encoding problem" in err
    assert "-: reading standard input is not supported" in err
    if hasattr(os, "mkfifo"):
        assert f"{fifo}: not a regular file" in err
    assert {p: p.read_bytes() for p in before} == before


def test_a_latin_1_file_gets_ascii_markers_it_can_hold(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nimport asyncio\nasync def f():\n    s = '\xe9'\n    await asyncio.gather(a(), b())\n")
    assert run("-w", str(path))[0] == 1
    text = path.read_bytes().decode("latin-1")
    assert "    # claude_sync.port: asyncio.gather(...): run the calls" in text and "s = '\xe9'" in text


def test_a_big_or_deeply_nested_file_is_ported_or_reported_never_a_traceback(tmp_path: Path) -> None:
    big = write(tmp_path, "big.py", "import asyncio\n" + "async def f():\n    await asyncio.sleep(1)\n" * 2000)
    deep = write(tmp_path, "deep.py", "async def f():\n    return " + "+".join(["x"] * 1000) + "\n")  # deeper than the walk's recursion
    deeper = write(tmp_path, "deeper.py", "async def f():\n    return " + "+".join(["x"] * 100000) + "\n")  # deeper than the parser's
    status, _, err = run("-w", str(big), str(deep), str(deeper))
    assert "Traceback" not in err
    assert big.read_text().count("time.sleep(1)") == 2000
    assert status == 2
    assert f"{deep}: cannot parse: nested too deeply for the porting tool (file left unchanged)" in err
    assert f"{deeper}: cannot parse: " in err and "(file left unchanged)" in err


def test_flags_point_at_the_file_as_the_run_leaves_it(tmp_path: Path) -> None:
    path = write(tmp_path, "app.py", FLAGGED_PROGRAM)
    assert run(str(path))[2].startswith(f"{path}:5:11: asyncio.gather"), "not written: the line of the file as it is"
    assert run("--check", str(path))[2].startswith(f"{path}:5:11: asyncio.gather")
    assert run("-w", str(path))[2].startswith(f"{path}:6:5: asyncio.gather"), "written: the line in the ported file"
    assert path.read_text().splitlines()[4].startswith(f"    {MARKER} asyncio.gather(...)")
    assert run("-w", str(path))[2].startswith(f"{path}:6:5: asyncio.gather"), "a second run adds no second marker"
    assert path.read_text().count(MARKER) == 1


def test_a_file_whose_port_would_not_run_is_never_written(tmp_path: Path) -> None:
    source = "import asyncio\n\n\nasync def main(client):\n    async with asyncio.timeout(5):\n        await client.query('hi')\n"
    path = write(tmp_path, "app.py", source)
    for mode in ([], ["-w"], ["--check"]):
        status, out, err = run(*mode, str(path))
        assert (status, out) == (2, ""), err
        assert f"{path}:5:16: blocks the port: `async with asyncio.timeout(…)`" in err
        assert f"{path}: not ported: the ported text would not run" in err
    assert path.read_text() == source


def test_a_file_of_another_user_says_so_when_its_owner_cannot_be_kept(open_tmp: Path) -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root to make a file of another user")
    folder = open_tmp / "shared"
    path = write(folder, "app.py", ASYNC_PROGRAM)
    os.chmod(folder, 0o777)
    os.chmod(path, 0o666)  # root's file, writable by all: nobody may replace it, not chown it
    done = port_as_nobody("-w", str(path))
    assert done.returncode == 0, done.stderr
    assert f"{path}: now owned by this user (the file's owner could not be kept)" in done.stderr
    assert path.read_text() == PORTED_PROGRAM and path.stat().st_uid == 65534 and (path.stat().st_mode & 0o777) == 0o666
