"""``AgentPool`` never runs more CLIs than ``max_workers`` at once (busy, parked and starting
together; each real CLI is ~300 MB) unless ``max_clis`` asks for more: the keeper does not top
``warm`` up while every worker is busy, and a cold start at the cap closes a parked CLI first."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict

import pytest
from helpers import wait_until

from claude_sync import AgentPool, ClaudeAgentOptions
from claude_sync.testing import ScriptedCLI

CAPPED = "not warming another CLI"


def gated_cli(tmp_path: Path, gate: Path) -> ScriptedCLI:
    """One run: wait for the gate to open, answer, end (the pool's /clear then retires it)."""
    return ScriptedCLI(directory=tmp_path).expect_user().wait_for_file(gate, timeout=60).text("done").result()


def test_warm_is_not_topped_up_past_max_workers_while_every_worker_is_busy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gate = tmp_path / "gate"
    cli = gated_cli(tmp_path, gate)
    caplog.set_level(logging.DEBUG, logger="claude_sync.agents")
    with AgentPool(cli.options(), max_workers=2, warm=2) as pool:
        wait_until(lambda: pool.stats()["parked"] == 2, 60, "two warm CLIs")
        futures = [pool.submit("a"), pool.submit("b")]
        wait_until(lambda: pool.stats()["busy"] == 2, 60, "both workers busy")
        wait_until(lambda: CAPPED in caplog.text, 30, "the keeper seeing the cap")
        assert pool.stats()["started"] == 2
        gate.touch()
        assert [f.result(60).text for f in futures] == ["done", "done"]
    assert pool.stats()["peak_alive"] == 2


def test_pool_without_warm_clis_stays_within_max_workers(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    cli = gated_cli(tmp_path, gate)
    with AgentPool(cli.options(), max_workers=2) as pool:
        futures = [pool.submit(p) for p in "abc"]
        wait_until(lambda: pool.stats()["busy"] == 2, 60, "both workers busy")
        gate.touch()
        assert [f.result(60).text for f in futures] == ["done", "done", "done"]
    assert pool.stats()["peak_alive"] == 2


def test_max_clis_asks_for_warm_clis_beyond_the_workers(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    cli = gated_cli(tmp_path, gate)
    with AgentPool(cli.options(), max_workers=2, warm=2, max_clis=4) as pool:
        wait_until(lambda: pool.stats()["parked"] == 2, 60, "two warm CLIs")
        futures = [pool.submit("a"), pool.submit("b")]
        wait_until(lambda: pool.stats()["started"] == 4 and pool.stats()["parked"] == 2, 60, "two more warm CLIs")
        gate.touch()
        assert [f.result(60).text for f in futures] == ["done", "done"]


def test_a_cold_start_at_the_cap_closes_a_parked_cli_first(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.touch()
    cli = gated_cli(tmp_path, gate)
    pool_options = cli.options()
    other = ClaudeAgentOptions(**{**vars(pool_options), "model": "another"})
    with AgentPool(pool_options, max_workers=2, warm=2) as pool:
        wait_until(lambda: pool.stats()["parked"] == 2, 60, "two warm CLIs")
        future = pool.submit("x", options=other)  # no parked CLI has these options
        assert future.result(60).text == "done"
        stats: Dict[str, Any] = pool.stats()
    assert stats["started"] >= 3  # the cold one (and the keeper's replacement afterwards)
    assert stats["peak_alive"] == 2


@pytest.mark.parametrize("kwargs, match", [
    ({"max_workers": 2, "max_clis": 1}, "max_clis"),
    ({"max_workers": 2, "max_clis": "4"}, "max_clis"),
])  # fmt: skip
def test_bad_max_clis(kwargs: Dict[str, Any], match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        AgentPool(**kwargs)
