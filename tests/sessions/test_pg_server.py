"""The test suite's PostgreSQL server (``tests/pg_server.py``) never outlives a failed start:
without psycopg nothing is launched, and a server whose readiness wait fails is stopped."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import require_package
from pg_server import PostgresServer, require_pg_bin


def postmasters_of(data: Path) -> list:
    """PIDs of live (non-zombie) processes whose command line names the data dir ``data``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if str(data).encode() in cmdline and stat[stat.rindex(")") + 2] != "Z":
            found.append(int(entry.name))
    return found


def test_a_start_without_psycopg_launches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    server = PostgresServer(require_pg_bin())
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg: ImportError
    try:
        with pytest.raises(ImportError):
            server.start()
        assert server.server_pid is None and postmasters_of(server.data) == []
    finally:
        server.cleanup()


def test_a_start_whose_wait_fails_stops_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    require_package("psycopg", import_it=False)  # start() needs it; only this failure mode is under test
    server = PostgresServer(require_pg_bin())

    def fail(self: Any, timeout: float) -> None:
        raise RuntimeError("readiness wait failed")

    monkeypatch.setattr(PostgresServer, "_wait_ready", fail)
    try:
        with pytest.raises(RuntimeError, match="readiness wait failed"):
            server.start()
        assert server.server_pid is None and postmasters_of(server.data) == []
    finally:
        server.cleanup()
