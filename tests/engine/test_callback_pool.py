"""The callback pool: threads on demand, reuse, early release, bounded shutdown."""

from __future__ import annotations

import threading
from typing import Any, List

import pytest
from helpers import wait_until

from claude_sync._engine.callback_pool import CallbackPool


@pytest.fixture
def pool() -> Any:
    made: List[CallbackPool] = []

    def make(workers: int = 4) -> CallbackPool:
        made.append(CallbackPool(workers, "claude_sync-test-pool"))
        return made[-1]

    yield make
    for p in made:
        assert p.shutdown(5.0) == []


def test_rejects_a_bad_size() -> None:
    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match="callback_workers"):
            CallbackPool(bad, "claude_sync-test-pool")  # type: ignore[arg-type]


def test_threads_start_on_demand_up_to_the_limit(pool: Any) -> None:
    p = pool(3)
    assert p.thread_count == 0
    gate = threading.Event()
    started: List[str] = []
    for _ in range(5):
        p.submit(lambda: (started.append(threading.current_thread().name), gate.wait(10)))
    wait_until(lambda: len(started) == 3)
    assert p.thread_count == 3  # five jobs, three threads; two wait in the queue
    assert sorted(started) == ["claude_sync-test-pool-0", "claude_sync-test-pool-1", "claude_sync-test-pool-2"]
    gate.set()
    wait_until(lambda: len(started) == 5)
    assert p.thread_count == 3


def test_an_idle_worker_is_reused(pool: Any) -> None:
    p = pool(4)
    for _ in range(20):
        done = threading.Event()
        p.submit(done.set)
        assert done.wait(10)
        wait_until(lambda: p._idle == 1)  # the worker has counted itself idle again
    assert p.thread_count == 1


def test_sequential_jobs_whose_final_act_submits_the_next_stay_on_one_thread(pool: Any) -> None:
    """Each job's final act submits the next job (as answering a CLI request makes the CLI
    send the next): run after the worker counts as idle, it finds that worker free."""
    p = pool(4)
    threads: List[str] = []
    finished = threading.Event()

    def hop(left: int) -> Any:
        threads.append(threading.current_thread().name)
        if not left:
            finished.set()
            return None
        return (p.submit, hop, left - 1)

    p.submit(hop, 50)
    assert finished.wait(10)
    assert p.thread_count == 1 and set(threads) == {"claude_sync-test-pool-0"}


def test_a_raising_final_act_is_logged_and_the_worker_survives(pool: Any, caplog: Any) -> None:
    p = pool(1)
    p.submit(lambda: (lambda: 1 / 0,))
    done = threading.Event()
    p.submit(done.set)
    assert done.wait(10)
    assert p.thread_count == 1
    assert any("callback job raised" in r.message and r.exc_info for r in caplog.records)


def test_a_non_tuple_return_is_ignored(pool: Any) -> None:
    p = pool(1)
    called = threading.Event()
    marker = threading.Event()
    p.submit(lambda: [called.set])  # a list, not a final act
    p.submit(lambda: "text")
    p.submit(marker.set)  # one worker: it runs after the others' returns were handled
    assert marker.wait(10)
    assert not called.is_set()


def test_a_raising_job_is_logged_and_the_worker_survives(pool: Any, caplog: Any) -> None:
    p = pool(1)
    p.submit(lambda: 1 / 0)
    done = threading.Event()
    p.submit(done.set)
    assert done.wait(10)
    assert p.thread_count == 1
    assert any("callback job raised" in r.message and r.exc_info for r in caplog.records)


def test_in_worker(pool: Any) -> None:
    p = pool(1)
    seen: List[bool] = []
    done = threading.Event()
    p.submit(lambda: (seen.append(p.in_worker()), done.set()))
    assert done.wait(10)
    assert seen == [True] and p.in_worker() is False


def test_shutdown_waits_for_queued_jobs_then_refuses_more() -> None:
    p = CallbackPool(1, "claude_sync-test-pool")
    ran: List[int] = []
    for i in range(3):
        p.submit(ran.append, i)
    assert p.shutdown(5.0) == []
    assert ran == [0, 1, 2]
    with pytest.raises(RuntimeError, match="shut down"):
        p.submit(ran.append, 3)


def test_shutdown_is_bounded_and_names_a_stuck_callback(caplog: Any) -> None:
    p = CallbackPool(2, "claude_sync-test-pool")
    release = threading.Event()
    running = threading.Event()
    p.submit(lambda: (running.set(), release.wait(30)))
    assert running.wait(10)
    try:
        assert p.shutdown(0.2) == ["claude_sync-test-pool-0"]
        assert "still running" in caplog.text
    finally:
        release.set()
        p._threads[0].join(10)  # let the test's leak check see it gone
