"""Issue 22 item 2: secrets handed to the CLI do not outlive it on disk. A host killed with
SIGKILL (no ``atexit``) never wrote its MCP headers to disk (an inherited memory file), and
the files it did write (settings, a store resume's credentials) are swept by the next
claude_sync process; the sweep tells a dead owner from a live one, a reused PID included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

from claude_sync._engine import tempfiles
from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]

HOST = r"""
import json, os, signal, sys, uuid
sys.path.insert(0, sys.argv[1])
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, InMemorySessionStore
from claude_sync._sessions.store_functions import project_key_for_directory

spec = json.loads(sys.argv[2])
sid = str(uuid.uuid4())
store = InMemorySessionStore()
key = {"project_key": project_key_for_directory(os.getcwd()), "session_id": sid}
store.append(key, [{"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": None, "sessionId": sid,
                    "message": {"role": "user", "content": "hi"}}])
options = ClaudeAgentOptions(
    cli_path=spec["cli"], close_timeout=2.0, initialize_timeout=20.0, resume=sid, session_store=store,
    env={"CLAUDE_CONFIG_DIR": spec["home"]},
    mcp_servers={"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                            "headers": {"Authorization": "Bearer header-secret-5f1c"}}},
    settings=json.dumps({"env": {"SETTINGS_SECRET": "settings-secret-77ab"}}),
)
client = ClaudeSDKClient(options)
client.connect()
tmp = os.environ["TMPDIR"]
files = {}
for folder, _, names in os.walk(tmp):
    for name in names:
        with open(os.path.join(folder, name), errors="replace") as handle:
            files[os.path.relpath(os.path.join(folder, name), tmp)] = handle.read()
print(json.dumps({"cli_pid": client.session.pid, "files": files}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no close, no atexit
"""


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def secrets_on_disk(root: Path, *secrets: str) -> List[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and any(s in path.read_text(errors="replace") for s in secrets):
            found.append(str(path.relative_to(root)))
    return found


def test_a_killed_host_leaves_no_mcp_headers_on_disk_and_the_next_start_sweeps_the_rest(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)  # answers initialize, then waits for EOF
    tmpdir, home = tmp_path / "tmp", tmp_path / "home"
    tmpdir.mkdir()
    home.mkdir()
    (home / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "oauth-secret-90d2", "refreshToken": "r"}}')
    env = dict(os.environ, TMPDIR=str(tmpdir))
    spec = {"cli": cli.install(), "home": str(home)}
    done = subprocess.run([sys.executable, "-c", HOST, str(ROOT), json.dumps(spec)],
                          capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    seen = json.loads(done.stdout.splitlines()[0])
    deadline = time.monotonic() + 15
    while not gone(seen["cli_pid"]):  # the orphaned CLI ends on stdin EOF
        assert time.monotonic() < deadline, "the scripted CLI outlived its host"
        time.sleep(0.05)

    during = "\n".join(seen["files"].values())
    assert "header-secret-5f1c" not in during, seen["files"]  # the MCP config never touched the disk
    assert "settings-secret-77ab" in during and "oauth-secret-90d2" in during  # files, while it ran
    left = secrets_on_disk(tmpdir, "settings-secret-77ab", "oauth-secret-90d2")
    assert left, "SIGKILL runs no atexit: the files are still there until the next start"

    sweep = "import sys; sys.path.insert(0, sys.argv[1]); from claude_sync._engine import tempfiles; " \
            "tempfiles.remove_private_file(tempfiles.make_private_file('x', '.json'))"
    subprocess.run([sys.executable, "-c", sweep, str(ROOT)], check=True, timeout=60, env=env)
    assert secrets_on_disk(tmpdir, "settings-secret-77ab", "oauth-secret-90d2") == []
    assert os.listdir(tmpdir) == []


def start_of(pid: int) -> int:
    start = tempfiles.process_start_time(pid)
    assert start is not None
    return start


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="start times come from /proc")
def test_the_sweep_removes_dirs_of_dead_owners_and_reused_pids_only(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    parent = os.getppid()
    names = {
        "dead_owner": f"claude_sync-{dead.pid}-{start_of(os.getpid())}-abc",
        "reused_pid": f"claude_sync-{parent}-{start_of(parent) + 1}-abc",  # that pid, another process
        "live_owner": f"claude_sync-{parent}-{start_of(parent)}-abc",
        "me": f"claude_sync-{os.getpid()}-{start_of(os.getpid())}-xyz",
        "not_ours": "claude_sync-resume-abc",
    }
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "secret.json").write_text("{}")
    (tmp_path / f"claude_sync-{dead.pid}-1-file").write_text("a file, not a directory")
    (tmp_path / f"claude_sync-{dead.pid}-2-link").symlink_to(tmp_path / names["live_owner"])

    removed = tempfiles.sweep_orphans(str(tmp_path))
    assert sorted(removed) == sorted(str(tmp_path / names[k]) for k in ("dead_owner", "reused_pid"))
    left = sorted(os.listdir(tmp_path))
    assert left == sorted([names["live_owner"], names["me"], names["not_ours"],
                           f"claude_sync-{dead.pid}-1-file", f"claude_sync-{dead.pid}-2-link"])  # fmt: skip


def test_private_files_live_in_one_private_dir_removed_with_its_last_entry() -> None:
    first = tempfiles.make_private_file("{}", ".json")
    folder = os.path.dirname(first)
    try:
        resume = tempfiles.make_private_dir("claude_sync-resume-")
        assert os.path.dirname(resume) == folder
        assert os.path.basename(folder).startswith(f"claude_sync-{os.getpid()}-")
        assert (os.stat(folder).st_mode & 0o777, os.stat(first).st_mode & 0o777) == (0o700, 0o600)
        tempfiles.remove_private_file(first)
        assert os.path.isdir(folder)  # the resume dir is still in it
        tempfiles.remove_private_dir(resume)
        assert not os.path.exists(folder)
    finally:
        tempfiles.remove_private_file(first)


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="memory files are Linux only")
def test_a_memory_file_reads_back_through_dev_fd_in_a_child() -> None:
    fd = tempfiles.memory_file('{"mcpServers": {"x": {"headers": {"a": "é"}}}}')
    assert fd is not None
    try:
        assert not os.get_inheritable(fd)  # only a child spawned with pass_fds gets it
        out = subprocess.run([sys.executable, "-c", f"print(open('/dev/fd/{fd}', encoding='utf-8').read()); "
                              f"print(open('/dev/fd/{fd}', encoding='utf-8').read())"],
                             pass_fds=(fd,), capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
        assert out.stdout.split("\n")[:2] == ['{"mcpServers": {"x": {"headers": {"a": "é"}}}}'] * 2  # read twice
    finally:
        os.close(fd)
