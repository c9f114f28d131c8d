"""Issue 36 item 9: every timeout a caller gives is checked against what the platform can wait
(``threading.TIMEOUT_MAX``) before anything is sent or started, by the one check
(``claude_sync._options.timeouts.checked_seconds``). Today's failures: ``close_timeout=1e10``
passed, then killed the reader thread with ``OverflowError`` (``run()`` never returned);
``initialize_timeout=1e10`` and control methods with ``timeout=1e10`` raised a bare
``OverflowError`` after the request went out."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from claude_sync import (
    AgentPool,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    SQLiteSessionStore,
    query,
    resolve_settings,
    run,
)
from claude_sync.testing import ScriptedCLI

TOO_LONG = [1e10, threading.TIMEOUT_MAX * 2, 10**400, float("inf")]
NOT_SECONDS = [float("nan"), -1.0, 0, -1e10]
WRONG_TYPES = [True, "5", None, [1]]


@pytest.mark.parametrize("field", ["close_timeout", "control_timeout", "initialize_timeout"])
@pytest.mark.parametrize("value", TOO_LONG + NOT_SECONDS)
def test_an_options_timeout_the_platform_cannot_wait_is_refused_naming_it(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"ClaudeAgentOptions\.{field} must be"):
        ClaudeAgentOptions(**{field: value})


@pytest.mark.parametrize("field", ["close_timeout", "control_timeout", "initialize_timeout"])
@pytest.mark.parametrize("value", WRONG_TYPES)
def test_an_options_timeout_that_is_not_a_number_is_a_type_error(field: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"ClaudeAgentOptions\.{field} must be a number of seconds"):
        ClaudeAgentOptions(**{field: value})


def test_the_longest_wait_the_platform_has_is_a_timeout_and_a_run_with_it_returns() -> None:
    """``close_timeout=TIMEOUT_MAX`` (and the waits derived from it: ``5 *``, ``2 *``) and a
    run's ``timeout=TIMEOUT_MAX``: the run returns its result and closes."""
    longest = threading.TIMEOUT_MAX
    options = ClaudeAgentOptions(close_timeout=longest, control_timeout=longest, initialize_timeout=longest)
    cli = ScriptedCLI().expect_user().text("ok").result("ok")
    done: List[Any] = []
    runner = threading.Thread(target=lambda: done.append(run("hi", options=options, timeout=longest, transport=cli.transport())),
                              name="claude_sync-test-longest", daemon=True)  # fmt: skip
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), "run() with the longest timeouts did not return"
    assert done and done[0].text == "ok"


def _calls(cli: ScriptedCLI) -> Dict[str, Callable[[Any], Any]]:
    """Every public entry point that takes a timeout, given one value."""
    return {
        "query() timeout": lambda t: query("hi", timeout=t, transport=cli.transport()),
        "query() idle_timeout": lambda t: query("hi", idle_timeout=t, transport=cli.transport()),
        "query() timeout ": lambda t: run("hi", timeout=t, transport=cli.transport()),  # run() is query(timeout=)
        "resolve_settings() timeout": lambda t: resolve_settings(ClaudeAgentOptions(cli_path="/nonexistent/claude"), timeout=t),
        "SQLiteSessionStore busy_timeout": lambda t: SQLiteSessionStore(":memory:", busy_timeout=t),
    }


@pytest.mark.parametrize("value", TOO_LONG + NOT_SECONDS)
def test_every_entry_point_refuses_a_timeout_before_anything_starts(value: Any) -> None:
    cli = ScriptedCLI()  # expects nothing: any frame sent to it fails its verify()
    for name, call in _calls(cli).items():
        with pytest.raises(ValueError, match=re.escape(name.strip()) + " must be"):
            call(value)
    with AgentPool(max_workers=1, transport_factory=lambda options: cli.transport()) as pool:
        with pytest.raises(ValueError, match=r"AgentPool\.submit\(\) timeout must be"):
            pool.submit("hi", timeout=value)
        with pytest.raises(ValueError, match=r"AgentPool\.map\(\) timeout must be"):
            pool.map(["hi"], timeout=value)
    assert cli.runs == []  # no CLI was started


@pytest.mark.parametrize("value", [1e10, float("nan"), True])
def test_a_client_refuses_a_write_or_receive_timeout_before_anything_is_sent(value: Any) -> None:
    cli = ScriptedCLI().expect_user("after").text("ok").result("ok")
    error = TypeError if value is True else ValueError
    with ClaudeSDKClient(ClaudeAgentOptions(close_timeout=2.0), transport=cli.transport()) as client:
        with pytest.raises(error, match="write timeout must be"):
            client.query("before", timeout=value)
        with pytest.raises(error, match="timeout must be"):
            list(client.receive_response(timeout=value))
        with pytest.raises(error, match="idle_timeout must be"):
            list(client.receive_messages(idle_timeout=value))
        client.query("after")  # the first frame the CLI sees: "before" was never written
        assert [m for m in client.receive_response(timeout=30)][-1].result == "ok"
    cli.verify()


def test_a_postgres_statement_timeout_beyond_the_servers_limit_is_refused() -> None:
    pytest.importorskip("psycopg")
    from claude_sync import PostgresSessionStore

    for value in (3_000_000, 1e10, float("inf")):
        with pytest.raises(ValueError, match="statement_timeout must be"):
            PostgresSessionStore("postgresql://127.0.0.1:1/none", statement_timeout=value)
    with pytest.raises(ValueError, match="connect_timeout must be"):
        PostgresSessionStore("postgresql://127.0.0.1:1/none", connect_timeout=1e10)


def test_the_check_is_one_function() -> None:
    """One implementation (``DEVELOPERS.md``): no other module compares with TIMEOUT_MAX."""
    root = Path(__file__).resolve().parents[2] / "claude_sync"
    users = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if "TIMEOUT_MAX" in p.read_text(encoding="utf-8"))
    assert users == ["_options/timeouts.py"], users
