"""``options.spawn_command`` (the TS SDK's ``spawnClaudeCodeProcess``) with a real wrapper:
``unshare --uts`` gives the CLI a host name of its own, and claude_sync's guarantees still hold
through it (the close ladder, the host's death, interrupt)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from helpers import StallingResponder, alive, child_pids, wait_until

from claude_sync import ClaudeSDKClient, ResultMessage, SpawnCommand, UsageError
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

from .harness import hermetic_env

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SANDBOX_HOST = "claude-sandbox"


def unshare_works() -> bool:
    try:
        done = subprocess.run(["unshare", "--uts", "--", "true"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


needs_unshare = pytest.mark.skipif(not unshare_works(), reason="unshare --uts needs root (or user namespaces)")


def in_own_uts(command: SpawnCommand) -> SpawnCommand:
    """The wrapper: a new UTS namespace named ``claude-sandbox``, the CLI exec'd in it (same pid)."""
    script = f'hostname {SANDBOX_HOST} && exec "$@"'
    return command.replace(argv=["unshare", "--uts", "--", "sh", "-c", script, "sh", *command.argv])


@needs_unshare
def test_the_cli_runs_inside_the_wrapper_with_what_the_library_built(
    e2e_options: Any, fake_api: FakeAnthropicAPI, e2e_workdir: Path, real_cli_path: str
) -> None:
    seen: List[SpawnCommand] = []

    def spawn(command: SpawnCommand) -> SpawnCommand:
        seen.append(command)
        return in_own_uts(command)

    fake_api.add(tool_use("Bash", {"command": "hostname > where.txt"}), text("done"))
    options = e2e_options(env={"CLAUDE_CODE_MAX_RETRIES": "0"}, spawn_command=spawn, allowed_tools=["Bash"])
    with ClaudeSDKClient(options) as client:
        pid = client.session.pid  # type: ignore[union-attr]
        client.query("where am I?")
        messages = list(client.receive_response(timeout=60))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "done"
    assert (e2e_workdir / "where.txt").read_text().strip() == SANDBOX_HOST
    assert os.uname().nodename != SANDBOX_HOST  # the host's own name is untouched
    (command,) = seen
    assert os.path.realpath(command.argv[0]) == os.path.realpath(real_cli_path)
    assert "--input-format" in command.argv and command.cwd == str(e2e_workdir)
    assert command.env["ANTHROPIC_BASE_URL"] == fake_api.base_url
    wait_until(lambda: not alive([pid]), 10, "the wrapped CLI to be gone after close")


def test_a_wrapper_that_does_not_exec_is_still_reaped_and_interrupt_works(
    e2e_options: Any, fake_api: FakeAnthropicAPI
) -> None:
    """``sh -c '"$@"; true'`` keeps the shell as the CLI's parent (no exec): interrupt still
    goes over the protocol, and close still ends both (the close ladder signals the whole
    process group claude_sync started)."""
    fake_api.add(text(" ".join(f"w{i}" for i in range(300)), delay=0.05), text("second"))

    def wrap(command: SpawnCommand) -> SpawnCommand:
        return command.replace(argv=["sh", "-c", '"$@"; true', "sh", *command.argv])

    before = set(child_pids())
    with ClaudeSDKClient(e2e_options(spawn_command=wrap, include_partial_messages=True)) as client:
        shell = client.session.pid  # type: ignore[union-attr]
        client.query("talk slowly")
        for message in client.receive_messages(timeout=60):
            if type(message).__name__ == "StreamEvent":
                break
        client.interrupt(drain=True, timeout=30)
        client.query("again")
        assert [m for m in client.receive_response(timeout=60)][-1].result == "second"  # type: ignore[union-attr]
    wait_until(lambda: not alive([shell]), 10, "the wrapper shell to be gone")
    wait_until(lambda: set(child_pids()) <= before, 10, "no child left")


def test_spawn_command_with_a_custom_transport_is_refused(e2e_options: Any) -> None:
    from claude_sync.testing import ScriptedCLI

    options = e2e_options(spawn_command=lambda command: command)
    client = ClaudeSDKClient(options, transport=ScriptedCLI().transport())
    with pytest.raises(UsageError, match="custom transport"):
        client.connect()
    client.close()


HOST = r"""
import json, sys
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient
args = json.loads(sys.argv[1])
def spawn(command):
    return command.replace(argv=["unshare", "--uts", "--", "sh", "-c", 'exec "$@"', "sh", *command.argv])
client = ClaudeSDKClient(ClaudeAgentOptions(cli_path=args["cli"], env=args["env"], cwd=args["cwd"], spawn_command=spawn,
                                            close_timeout=5, initialize_timeout=60, control_timeout=60))
client.connect()
client.query("stall: a long turn")
print(json.dumps(client.session.pid), flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def stalling_api() -> Iterator[Tuple[FakeAnthropicAPI, StallingResponder]]:
    behaviour = StallingResponder()
    api = FakeAnthropicAPI(responder=behaviour)
    api.start()
    try:
        yield api, behaviour
    finally:
        behaviour.release.set()
        api.stop()


@needs_unshare
def test_the_wrapped_cli_dies_with_its_host(
    stalling_api: Tuple[FakeAnthropicAPI, StallingResponder], real_cli_path: str, tmp_path: Path
) -> None:
    """SIGKILL to a host whose CLI runs through the wrapper, mid-turn: the CLI dies too (the
    parent-death signal is set on the program claude_sync starts; unshare and sh exec)."""
    api, behaviour = stalling_api
    work = tmp_path / "work"
    work.mkdir()
    env = hermetic_env(tmp_path, api.base_url)
    args: Dict[str, Any] = {"cli": real_cli_path, "env": env, "cwd": str(work)}
    host = subprocess.Popen([sys.executable, "-c", HOST, json.dumps(args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**env, "PYTHONPATH": str(ROOT)})  # fmt: skip
    pid = None
    try:
        assert host.stdout is not None and host.stderr is not None
        line = host.stdout.readline()
        assert line, host.stderr.read()[-3000:]
        pid = json.loads(line)
        wait_until(lambda: behaviour.stalled == ["stall: a long turn"], 60, "the CLI's stalled request")
        killed_at = time.monotonic()
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        gone = wait_until(lambda: not alive([pid]), 2.0, "the wrapped CLI to die with its host", fail=False)
        print(f"\n[figures] wrapped CLI gone {time.monotonic() - killed_at:.3f} s after the host's SIGKILL")
    finally:
        behaviour.release.set()
        if host.poll() is None:
            host.kill()
            host.wait(10)
        for pipe in (host.stdin, host.stdout, host.stderr):
            if pipe is not None:
                pipe.close()
        if pid is not None and alive([pid]):
            os.kill(pid, signal.SIGKILL)
    assert gone, "the wrapped CLI outlived its host by 2 s"
