"""``python -m claude_sync.port``: files in place, ``--diff``, ``--check``, exit status, and
files it must not touch."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Tuple

import pytest

from claude_sync.port.cli import main

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
