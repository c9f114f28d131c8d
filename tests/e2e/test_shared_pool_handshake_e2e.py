"""Issue 41, the lean leased connect, against the real CLI: a second process leasing a reset CLI
writes no ``initialize`` (the pool hands over the first process's answer): its run works, its
``server_info`` is the first one's, and the CLI's stdin (tapped by a wrapper script) got one
``initialize`` in all. A plan with hooks is never reused (each of its CLIs gets its own); a
different system prompt gets another CLI, with its own ``initialize``.

Run it once per CLI: ``CLAUDE_SYNC_TEST_CLI=<2.1.197 or 2.1.333 path>``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from helpers import wait_until

from claude_sync import HookMatcher, run
from claude_sync.testing.fake_api import text

from .harness import OptionsFactory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared_pool"))
from poolkit import PoolProcess, running_pool  # noqa: E402

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys
from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_sync.testing import hermetic_env
options = ClaudeAgentOptions(cli_path=sys.argv[1], env=hermetic_env(sys.argv[2], sys.argv[3]),
                             cwd=sys.argv[4], shared_pool=sys.argv[5])
with ClaudeSDKClient(options) as client:
    client.query(sys.argv[6])
    result = [m for m in client.receive_response() if isinstance(m, ResultMessage)][-1]
    lease = client.session.transport.lease
    print(json.dumps({"pid": client.session.pid, "info": client.session.server_info, "text": result.result,
                      "state": lease.state, "reused": lease.initialize_answer is not None}), flush=True)
"""


@pytest.fixture
def pool() -> Iterator[PoolProcess]:
    with running_pool("--spares", "0", "--max-clis", "4") as process:
        yield process


@pytest.fixture
def tapped_cli(real_cli_path: str, tmp_path: Path) -> Iterator[Any]:
    """A wrapper that runs the real CLI with its stdin copied to a file (the CLI is the wrapper's
    pid: ``exec``); ``count()`` says how many ``initialize`` requests all its CLIs received."""
    log = tmp_path / "stdin.log"
    log.touch()
    wrapper = tmp_path / "claude-tapped"
    wrapper.write_text(
        "#!/bin/bash\n"
        f'case " $* " in *" --version "*|*" -v "*) exec "{real_cli_path}" "$@";; esac\n'
        f'exec "{real_cli_path}" "$@" < <(exec tee -a "{log}" 2>/dev/null)\n'
    )
    wrapper.chmod(0o755)

    class Tapped:
        path = str(wrapper)

        @staticmethod
        def count() -> int:
            lines = log.read_text().splitlines()
            return sum('"subtype":"initialize"' in line.replace(" ", "") for line in lines)

    yield Tapped


def _parked(pool: PoolProcess) -> List[int]:
    return [cli["pid"] for cli in pool.status()["clis"] if cli["state"] == "parked"]


def _child(tapped: Any, tmp_path: Path, fake_api: Any, pool: PoolProcess, prompt: str) -> Dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("CLAUDE_SYNC_SHARED_POOL", None)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, tapped.path, str(tmp_path), fake_api.base_url, str(work), pool.path, prompt],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_second_process_writes_no_initialize_and_sees_the_first_ones_answer(
    pool: PoolProcess, tapped_cli: Any, fake_api: Any, tmp_path: Path
) -> None:
    fake_api.add(text("one"), text("two"), text("three"))
    first = _child(tapped_cli, tmp_path, fake_api, pool, "first")
    assert first["text"] == "one" and first["state"] == "cold" and not first["reused"]
    wait_until(lambda: first["pid"] in _parked(pool), 30, "the CLI reset and parked")
    assert tapped_cli.count() == 1

    second = _child(tapped_cli, tmp_path, fake_api, pool, "second")
    assert second["text"] == "two", second
    assert second["pid"] == first["pid"] and second["state"] == "reset" and second["reused"]
    assert second["info"] == first["info"], "the second process sees the first one's initialize answer"
    wait_until(lambda: first["pid"] in _parked(pool), 30, "parked again")
    assert tapped_cli.count() == 1, "the reused CLI received no second initialize"

    third = _child(tapped_cli, tmp_path, fake_api, pool, "third")  # the answer was given back again
    assert third["text"] == "three" and third["pid"] == first["pid"] and third["reused"]
    assert third["info"] == first["info"]
    wait_until(lambda: first["pid"] in _parked(pool), 30, "parked again")
    assert tapped_cli.count() == 1


def test_hooks_are_never_reused_and_another_system_prompt_gets_its_own_cli(
    pool: PoolProcess, tapped_cli: Any, e2e_options: OptionsFactory, fake_api: Any
) -> None:
    fake_api.add(text("h1"), text("h2"), text("p1"), text("p2"))
    seen: List[str] = []

    def on_stop(data: Dict[str, Any], tool_use_id: Any, context: Any) -> Dict[str, Any]:
        seen.append(data.get("hook_event_name", ""))
        return {}

    def options(**fields: Any) -> Any:
        return replace(e2e_options(shared_pool=pool.path, **fields), cli_path=tapped_cli.path)

    hooked = options(hooks={"Stop": [HookMatcher(hooks=[on_stop])]})
    assert run("h1", options=hooked).text == "h1"
    assert run("h2", options=hooked).text == "h2"
    assert tapped_cli.count() == 2, "each hooked run's CLI got its own initialize"
    assert _parked(pool) == [], "a hooked plan's CLI is retired, never reset"

    plain = options(system_prompt="You are terse.")
    assert run("p1", options=plain).text == "p1"
    wait_until(lambda: len(_parked(pool)) == 1, 30, "the plain CLI parked")
    parked = _parked(pool)[0]
    other = options(system_prompt="You are verbose.")
    result = run("p2", options=other)
    assert result.text == "p2"
    wait_until(lambda: len(_parked(pool)) == 2, 30, "both CLIs parked")
    assert parked in _parked(pool), "another system prompt got another CLI"
    assert tapped_cli.count() == 4, "the new CLI got its own initialize"
    bodies = [json.dumps(request.body) for request in fake_api.turn_requests()[-2:]]
    assert "You are terse." in bodies[0] and "You are verbose." in bodies[1]
