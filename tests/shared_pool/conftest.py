"""``make_pool(*flags)``: a ``claude-sync serve`` child process on a short socket path, stopped
(and its directory removed) after the test."""

from __future__ import annotations

import shutil
from typing import Any, Callable, Iterator, List

import pytest
from poolkit import PoolProcess, short_dir


@pytest.fixture
def make_pool() -> Iterator[Callable[..., PoolProcess]]:
    started: List[PoolProcess] = []

    def make(*flags: str, directory: Any = None, ready: bool = True) -> PoolProcess:
        pool = PoolProcess(directory or short_dir(), *flags)
        started.append(pool)
        return pool.wait_ready() if ready else pool

    yield make
    for pool in started:
        pool.stop()
    for pool in started:
        shutil.rmtree(pool.dir, ignore_errors=True)
