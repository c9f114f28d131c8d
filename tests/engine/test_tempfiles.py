"""Issue 22 item 2: secrets handed to the CLI do not outlive it on disk. A host killed with
SIGKILL (no ``atexit``) never wrote its MCP headers to disk (an inherited memory file), and
the files it did write (settings, a store resume's credentials) are swept by the next
claude_sync process; the sweep tells a dead owner from a live one by the
lock the owner holds, in whatever PID namespace it runs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import pytest
from helpers import wait_until

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


OWNER = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from claude_sync._engine import tempfiles
path = tempfiles.make_private_file('{"token": "settings-secret"}', ".json")
if sys.argv[2] != "plain":  # a child forked after the parent made its dir (and makes its own)
    if os.fork() == 0:
        mine = tempfiles.make_private_file("{}", ".json") if sys.argv[2] == "fork" else None
        os.write(1, (json.dumps({"child": os.getpid(), "path": mine}) + "\n").encode())  # one write: no interleaving
        sys.stdin.readline()
        os._exit(0)
os.write(1, (json.dumps({"pid": os.getpid(), "path": path}) + "\n").encode())
sys.stdin.readline()
os._exit(0)  # no atexit: the dir stays, as after a SIGKILL
"""
"""A claude_sync host: makes its private dir (a settings file in it), prints where, then
waits for a line on stdin and ends without cleaning up."""

SWEEPER = "import json, sys; sys.path.insert(0, sys.argv[1]); from claude_sync._engine import tempfiles; " \
          "print(json.dumps(tempfiles.sweep_orphans(sys.argv[2])))"  # fmt: skip

UNSHARE = shutil.which("unshare")


def in_new_pid_namespace() -> List[str]:
    """The argv prefix that runs a command as PID 1 of a new PID namespace (its own /proc),
    sharing this machine's /tmp — two containers sharing a temp dir. Skips where it cannot."""
    if UNSHARE is None or os.geteuid() != 0:
        pytest.skip("a second PID namespace needs unshare(1) and root here")
    probe = subprocess.run([UNSHARE, "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-c",
                            "import os; print(os.getpid())"], capture_output=True, text=True, timeout=60)  # fmt: skip
    if probe.returncode != 0 or probe.stdout.strip() != "1":
        pytest.skip(f"unshare --pid does not work here: {probe.stderr.strip()}")
    return [UNSHARE, "--pid", "--fork", "--mount-proc", "--kill-child"]


def start_owner(tmpdir: Path, mode: str = "plain", prefix: Sequence[str] = ()) -> Tuple[subprocess.Popen[str], List[Dict[str, Any]]]:
    owner = subprocess.Popen([*prefix, sys.executable, "-c", OWNER, str(ROOT), mode], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(tmpdir)))  # fmt: skip
    assert owner.stdout is not None
    lines = [json.loads(owner.stdout.readline()) for _ in range(1 if mode == "plain" else 2)]
    return owner, lines


def end_owner(owner: subprocess.Popen[str]) -> None:
    assert owner.stdin is not None and owner.stdout is not None
    try:
        owner.stdin.write("end\n")
        owner.stdin.flush()
    except BrokenPipeError:
        pass
    owner.wait(30)
    owner.stdin.close()
    owner.stdout.close()


def sweep(tmpdir: Path, prefix: Sequence[str] = ()) -> List[str]:
    done = subprocess.run([*prefix, sys.executable, "-c", SWEEPER, str(ROOT), str(tmpdir)], capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("where", ["owner_in_a_new_pid_namespace", "sweeper_in_a_new_pid_namespace"])
def test_a_live_owner_in_another_pid_namespace_keeps_its_dir(tmp_path: Path, where: str) -> None:
    """Issue 26 item 4: two hosts sharing a temp dir from different PID namespaces (containers
    sharing /tmp). "Owner gone" was judged by a PID and start time read from the sweeper's own
    /proc, where the owner's PID is another process or none: the live owner's dir (its
    settings, a resume dir's .credentials.json) was removed under it. Ownership is now a lock
    the owner holds on a file in its dir, which every namespace sees the same way."""
    namespace = in_new_pid_namespace()
    owner_prefix = namespace if where == "owner_in_a_new_pid_namespace" else []
    sweeper_prefix = namespace if where == "sweeper_in_a_new_pid_namespace" else []
    owner, [made] = start_owner(tmp_path, prefix=owner_prefix)
    try:
        if owner_prefix:
            assert made["pid"] == 1  # its PID in its namespace: here, that is init
        assert sweep(tmp_path, sweeper_prefix) == []
        assert Path(made["path"]).read_text() == '{"token": "settings-secret"}'
    finally:
        end_owner(owner)
    assert sweep(tmp_path, sweeper_prefix) == [os.path.dirname(made["path"])]  # ended: swept
    assert os.listdir(tmp_path) == []


def test_the_sweep_removes_dead_owners_dirs_only(tmp_path: Path) -> None:
    live, [live_made] = start_owner(tmp_path)
    dead, [dead_made] = start_owner(tmp_path)
    end_owner(dead)
    mine = tempfiles.make_private_file("{}", ".json")
    (tmp_path / "claude_sync-1-1-nolock").mkdir()  # no lock file: an older layout, or one being made
    (tmp_path / "claude_sync-1-1-nolock" / "secret.json").write_text("{}")
    (tmp_path / "claude_sync-resume-abc").mkdir()  # not a per-process dir
    (tmp_path / "claude_sync-9-1-file").write_text("a file, not a directory")
    (tmp_path / "claude_sync-9-2-link").symlink_to(os.path.dirname(live_made["path"]))
    (tmp_path / "claude_sync-9-3-planted").mkdir()  # its lock file a symlink to a free lock: not followed
    (tmp_path / "free.lock").write_text("")
    (tmp_path / "claude_sync-9-3-planted" / tempfiles.LOCK_NAME).symlink_to(tmp_path / "free.lock")
    try:
        removed = tempfiles.sweep_orphans(str(tmp_path))
        assert removed == [os.path.dirname(dead_made["path"])]
        assert Path(live_made["path"]).exists() and Path(mine).exists()
        assert sorted(os.listdir(tmp_path)) == sorted([
            os.path.basename(os.path.dirname(live_made["path"])), "claude_sync-1-1-nolock", "claude_sync-resume-abc",
            "claude_sync-9-1-file", "claude_sync-9-2-link", "claude_sync-9-3-planted", "free.lock",
        ])  # fmt: skip  (the test's own dir is in the real temp dir)
    finally:
        end_owner(live)
        tempfiles.remove_private_file(mine)
    assert tempfiles.sweep_orphans(str(tmp_path)) == [os.path.dirname(live_made["path"])]


@pytest.mark.parametrize("mode", ["fork", "fork_idle"])
def test_a_forked_child_holds_its_own_dir_not_its_parents(tmp_path: Path, mode: str) -> None:
    """The parent's lock is not the child's: once the parent is gone its dir is swept while the
    child lives on — whether the child made a dir of its own (``fork``) or never used this
    module (``fork_idle``: its inherited copy of the lock fd was closed at the fork) — and the
    child's dir stays until the child is gone too."""
    owner, lines = start_owner(tmp_path, mode)
    child = next(line for line in lines if "child" in line)
    parent = next(line for line in lines if "pid" in line)
    try:
        assert tempfiles.sweep_orphans(str(tmp_path)) == []
        os.kill(parent["pid"], signal.SIGKILL)
        owner.wait(30)
        assert tempfiles.sweep_orphans(str(tmp_path)) == [os.path.dirname(parent["path"])]
        if child["path"] is not None:
            assert os.path.dirname(child["path"]) != os.path.dirname(parent["path"])
            assert Path(child["path"]).exists()  # the child still runs
    finally:
        end_owner(owner)  # the child reads the same stdin
    if child["path"] is not None:
        wait_until(lambda: tempfiles.sweep_orphans(str(tmp_path)) == [os.path.dirname(child["path"])], 30, "the child's dir swept")
    wait_until(lambda: os.listdir(tmp_path) == [], 30, "nothing left")


def test_hosts_starting_together_never_sweep_each_others_new_dirs(tmp_path: Path) -> None:
    """Each first use sweeps while the others are making their dirs: a dir is never seen
    unlocked (its lock file is renamed into place already locked)."""
    procs = [subprocess.Popen([sys.executable, "-c", OWNER, str(ROOT), "plain"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(tmp_path)))
             for _ in range(8)]  # fmt: skip
    try:
        made = [json.loads(p.stdout.readline()) for p in procs if p.stdout is not None]
        assert all(Path(m["path"]).exists() for m in made), made
        assert len({os.path.dirname(m["path"]) for m in made}) == 8
        assert tempfiles.sweep_orphans(str(tmp_path)) == []
    finally:
        for proc in procs:
            end_owner(proc)
    assert len(tempfiles.sweep_orphans(str(tmp_path))) == 8


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
