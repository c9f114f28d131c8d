"""A client never closed, or whose close was cut short, leaves no temp file (a ``--settings``
file may hold secrets) once the interpreter exits. (The MCP config, which may hold headers,
never reaches the disk on Linux: it is an inherited memory file.)

Each case runs in a fresh interpreter with its own ``TMPDIR``, connects a client over the
testing kit's scripted CLI (a subprocess) with an MCP server that has headers, and exits
without a (complete) close.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claude_sync.testing import ScriptedCLI

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient

spec = json.loads(sys.argv[2])
options = ClaudeAgentOptions(
    cli_path=spec["cli"], env=spec["env"], close_timeout=2.0, initialize_timeout=20.0,
    mcp_servers={"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                            "headers": {"Authorization": "Bearer header-secret"}}},
    settings=json.dumps({"env": {"SETTINGS_SECRET": "settings-secret"}}),
)
client = ClaudeSDKClient(options)
client.connect()
tmp = os.environ["TMPDIR"]
print(json.dumps(sorted(os.path.relpath(os.path.join(d, f), tmp) for d, _, files in os.walk(tmp) for f in files)), flush=True)
if spec["mode"] == "cut_short":
    # A second Ctrl-C lands inside close(), before the temp files are removed.
    transport = client.session.transport
    def interrupted(grace):
        raise KeyboardInterrupt
    transport.stop = interrupted
    try:
        client.close()
    except KeyboardInterrupt:
        pass
    transport.stop = type(transport).stop.__get__(transport)  # the atexit reaper still works
KEEP = client  # never closed: alive until the interpreter exits
"""


@pytest.mark.parametrize("mode", ["never_closed", "cut_short"])
def test_mcp_config_temp_file_is_removed_at_interpreter_exit(tmp_path: Path, mode: str) -> None:
    cli = ScriptedCLI(directory=tmp_path)  # answers initialize, then waits for EOF
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    spec = {"cli": cli.install(), "env": {}, "mode": mode}
    env = dict(os.environ, TMPDIR=str(tmpdir))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), json.dumps(spec)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    during = [p for p in json.loads(done.stdout.splitlines()[0]) if not p.endswith("/.owner.lock")]  # the dir's lock
    assert len(during) == 1 and during[0].startswith("claude_sync-") and during[0].endswith(".json"), during  # settings only
    assert sorted(os.listdir(tmpdir)) == [], "temp files left after the interpreter exited"


LEFT_OPEN = r"""
import json, os, sys, uuid
sys.path.insert(0, sys.argv[1])
from claude_sync import ClaudeAgentOptions, InMemorySessionStore
from claude_sync._sessions.store_functions import project_key_for_directory

spec = json.loads(sys.argv[2])
tmp = os.environ["TMPDIR"]
if spec["what"] == "store_resume":
    from claude_sync._sessions.store_resume import materialize

    sid = str(uuid.uuid4())
    store = InMemorySessionStore()
    key = {"project_key": project_key_for_directory(os.getcwd()), "session_id": sid}
    store.append(key, [{"type": "user", "uuid": str(uuid.uuid4()), "sessionId": sid, "message": {"role": "user", "content": "hi"}}])
    temp_dir, _ = materialize(store, ClaudeAgentOptions(resume=sid), {"CLAUDE_CONFIG_DIR": spec["home"]})
    print(json.dumps(sorted(os.listdir(temp_dir))), flush=True)
else:
    from claude_sync.testing import recording_transport

    options = ClaudeAgentOptions(cli_path=sys.executable, mcp_servers={"remote": {
        "type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer header-secret"}}})
    options.settings = json.dumps({"env": {"SETTINGS_SECRET": "settings-secret"}})
    KEEP = recording_transport(options, os.path.join(spec["home"], "rec.jsonl"))  # never connected nor closed
    print(json.dumps(sorted(f for _, _, files in os.walk(tmp) for f in files)), flush=True)
"""


@pytest.mark.parametrize("what", ["store_resume", "recording_transport"])
def test_private_temp_paths_left_open_are_removed_at_interpreter_exit(tmp_path: Path, what: str) -> None:
    """The store-resume config dir (holds ``.credentials.json``) and the recorder's
    ``--settings`` file go through ``_engine/tempfiles``, so they too go at exit."""
    tmpdir, home = tmp_path / "tmp", tmp_path / "home"
    tmpdir.mkdir()
    home.mkdir()
    (home / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "a", "refreshToken": "r"}}')
    env = dict(os.environ, TMPDIR=str(tmpdir))
    done = subprocess.run(
        [sys.executable, "-c", LEFT_OPEN, str(ROOT), json.dumps({"what": what, "home": str(home)})],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    during = json.loads(done.stdout.splitlines()[0])
    if what == "store_resume":
        assert ".credentials.json" in during, during
    else:
        assert any(name.endswith(".json") for name in during), during
    assert sorted(os.listdir(tmpdir)) == [], "temp files left after the interpreter exited"
