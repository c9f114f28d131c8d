"""The shared pool with the real CLI (issue 41): a CLI leased, driven through the lease's pipes
(the leaseholder's own ``initialize``, a turn against the fake API), given back, reset by the
pool with ``/clear`` and leased again — the same process, a new conversation, per-run figures
from ``cost_before``; a CLI given back not reusable, or whose leaseholder vanished, is killed.

The leaseholder's side here is raw (lines on the lease's fds); the library's leased transport
is tested by its own tests.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from claude_sync._options.command import build_spawn_plan
from claude_sync._shared_pool.lease_client import Lease, LeasePlan, lease
from claude_sync.testing.fake_api import text

from shared_pool.poolkit import PoolProcess, pid_alive, read_until_control, read_until_result, short_dir, wait_gone

pytestmark = pytest.mark.e2e


@pytest.fixture
def pool() -> Iterator[PoolProcess]:
    process = PoolProcess(short_dir(), "--spares", "0", "--max-clis", "2")
    try:
        yield process.wait_ready()
    finally:
        process.stop()
        shutil.rmtree(process.dir, ignore_errors=True)


def _plan(e2e_options: Any) -> Tuple[LeasePlan, Dict[str, Any]]:
    spawn = build_spawn_plan(e2e_options(), e2e_options().cli_path, environ=dict(os.environ))
    return LeasePlan(tuple(spawn.argv), dict(spawn.env), spawn.cwd), dict(spawn.initialize_fields)


def _run(held: Lease, fields: Dict[str, Any], prompt: str) -> List[Dict[str, Any]]:
    request = {"type": "control_request", "request_id": "init-1", "request": dict(fields, subtype="initialize")}
    user = {"type": "user", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": None,
            "session_id": "default"}  # fmt: skip
    os.write(held.stdin_fd, (json.dumps(request) + "\n").encode())
    answer, rest = read_until_control(held, held.prefix, timeout=60)
    assert answer["response"]["subtype"] == "success", answer
    os.write(held.stdin_fd, (json.dumps(user) + "\n").encode())
    lines, rest = read_until_result(held, rest, timeout=60)
    # 2.1.33x writes system/session_state_changed "idle" after a result (in the same read or not)
    assert all(json.loads(line)["subtype"] == "session_state_changed" for line in rest.splitlines()), rest
    return lines


def _user_texts(body: Any) -> List[str]:
    texts = []
    for message in (body or {}).get("messages", []):
        content = message.get("content")
        blocks = [{"text": content}] if isinstance(content, str) else content or []
        texts += [block.get("text", "").strip() for block in blocks if message.get("role") == "user"]
    return texts


def test_a_real_cli_is_leased_reset_and_leased_again(pool, fake_api, e2e_options):
    plan, fields = _plan(e2e_options)
    fake_api.add(text("first answer"), text("second answer"))
    first = lease(plan, path=pool.path, timeout=30)
    lines = _run(first, fields, "one")
    result = lines[-1]
    assert result["result"] == "first answer" and result["num_turns"] == 1
    session = result["session_id"]
    first.give_back(True, "idle after its result")
    second = lease(plan, path=pool.path, timeout=60)  # waits for the reset, if it still runs
    try:
        assert second.pid == first.pid and second.state == "reset" and second.runs == 1
        lines = _run(second, fields, "two")  # a second initialize on the same CLI works
        result = lines[-1]
        assert result["result"] == "second answer" and result["session_id"] != session
        # the reset dropped the first conversation: the request for "two" carries no "one"
        asked = [r for r in fake_api.requests() if "two" in (r.last_user_text or "")]
        assert asked and all("one" not in _user_texts(r.body) for r in asked)
        cost = result.get("total_cost_usd") or 0.0
        assert cost - second.cost_before >= 0.0  # a run's own cost is the difference (2.1.197 keeps totals)
    finally:
        second.give_back(False, "the test is done")
    wait_gone([first.pid], 20)
    pool.wait_log("the test is done")


def test_a_real_cli_whose_leaseholder_vanished_is_killed(pool, fake_api, e2e_options):
    plan, fields = _plan(e2e_options)
    fake_api.add(text("answer"))
    held = lease(plan, path=pool.path, timeout=30)
    _run(held, fields, "one")
    assert pid_alive(held.pid)
    held._close_fds()  # noqa: SLF001 - what a dead leaseholder leaves: nothing, no give-back
    held._close_socket()  # noqa: SLF001
    wait_gone([held.pid], 20)
    pool.wait_log("disconnected without giving it back")
    assert pool.status()["clis"] == []
