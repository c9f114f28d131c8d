"""Agents on a Dask cluster: ``distributed.LocalCluster`` with two worker processes, each
keeping its own ``AgentPool`` through ``AgentPoolPlugin``; eight runs of the real CLI against
the fake API (which lives in this process; the workers reach it on 127.0.0.1)."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List

import pytest
from helpers import child_pids, require_package

from claude_sync import PermissionResultAllow, RunResult
from claude_sync.testing.fake_api import FakeAnthropicAPI, text

distributed = require_package("distributed")  # skipped without it, failed under CI=true

from claude_sync.integrations.dask import (  # noqa: E402 - after the require_package
    AgentPoolPlugin,
    install,
    pool_stats,
    submit_runs,
)

pytestmark = pytest.mark.e2e


def stop_resource_tracker() -> None:
    """Dask's worker processes start multiprocessing's resource tracker: one helper process
    (and a pipe to it) per interpreter, otherwise kept until exit. Stop it so the leak check
    (and every later test's view of our children) sees only what claude_sync left."""
    from multiprocessing import resource_tracker

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)  # 3.8+; private
    if stop is not None:
        stop()


@pytest.fixture
def tracker_stopped_after() -> Iterator[None]:
    try:
        yield
    finally:
        stop_resource_tracker()  # also when the test failed half-way


def test_eight_runs_on_two_worker_processes(
    fake_api: FakeAnthropicAPI, e2e_options: Any, tracker_stopped_after: None
) -> None:
    fake_api.add(*[lambda request: text("answer to " + request.last_user_text.split()[-1])] * 8)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as cluster, distributed.Client(cluster) as client:
        install(client, options=e2e_options(), max_workers=2, warm=1)
        futures = submit_runs(client, [f"question q{i}" for i in range(8)], timeout=120)
        results = client.gather(futures)
        stats: Dict[str, Dict[str, int]] = client.run(pool_stats)
        assert len(client.run(lambda: 1)) == 2
    assert [r.text for r in results] == [f"answer to q{i}" for i in range(8)]
    assert all(isinstance(r, RunResult) for r in results)
    assert len(stats) == 2 and sum(s["runs"] for s in stats.values()) == 8
    # Warm CLIs stayed warm between tasks: fewer CLIs started than runs, resets reused them.
    assert sum(s["reused"] for s in stats.values()) >= 4, stats
    assert sum(s["started"] for s in stats.values()) < 8, stats
    stop_resource_tracker()
    assert child_pids() == []  # workers closed: their pools reaped every CLI
    fake_api.assert_no_surprises()


def test_options_with_callables_are_refused_before_they_travel(e2e_options: Any) -> None:
    options = e2e_options(can_use_tool=lambda *args: PermissionResultAllow())
    with pytest.raises(TypeError, match=r"ClaudeAgentOptions\.can_use_tool .*options_factory"):
        AgentPoolPlugin(options)


def test_options_factory_builds_callables_inside_the_worker(e2e_options: Any) -> None:
    made: List[Any] = []

    def factory() -> Any:
        options = e2e_options(can_use_tool=lambda *args: PermissionResultAllow())
        made.append(options)
        return options

    plugin = AgentPoolPlugin(options_factory=factory, max_workers=1)
    plugin.setup(worker=None)  # what Dask does on each worker
    try:
        assert plugin.pool is not None and plugin.pool.options is made[0]
        assert plugin.__getstate__()["pool"] is None  # a pool never travels
    finally:
        plugin.teardown(worker=None)
    assert plugin.pool is None
    with pytest.raises(ValueError, match="not both"):
        AgentPoolPlugin(e2e_options(), options_factory=factory)
