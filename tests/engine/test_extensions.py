"""Connection extensions: the wiring picks them, ``prepare`` may re-plan the spawned options,
and each is closed once (a close cut short by Ctrl-C resumes with the one it interrupted)."""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import Any, List, Mapping, Tuple

import pytest
from helpers import fake_opentelemetry, wait_until

from claude_sync import ClaudeAgentOptions, ClaudeSDKClient, InMemorySessionStore
from claude_sync._engine.connection import Session, SessionState
from claude_sync._engine.extensions import ConnectionExtension, Extensions
from claude_sync._options.command import interpret_options
from claude_sync.testing import ScriptedCLI


class Named(ConnectionExtension):
    def __init__(
        self, name: str, closed: List[str], interrupt: bool = False, fail: bool = False
    ) -> None:
        self.name, self.closed, self.interrupt, self.fail = name, closed, interrupt, fail

    def close(self, timeout: float) -> None:
        if self.interrupt:
            self.interrupt = False
            raise KeyboardInterrupt
        self.closed.append(self.name)
        if self.fail:
            raise OSError(f"{self.name} failed to close")


def test_extensions_close_last_first_once_and_a_cut_close_resumes() -> None:
    closed: List[str] = []
    extensions = Extensions(
        [Named("a", closed), Named("b", closed, interrupt=True), Named("c", closed)]
    )
    with pytest.raises(KeyboardInterrupt):
        extensions.close(1.0)
    assert closed == ["c"]
    extensions.close(1.0)  # the close ladder's second try: b (interrupted) and a
    assert closed == ["c", "b", "a"]
    extensions.close(1.0)
    assert closed == ["c", "b", "a"]


def test_every_extension_is_closed_when_one_fails_and_the_first_error_is_raised() -> None:
    closed: List[str] = []
    extensions = Extensions([Named("a", closed, fail=True), Named("b", closed, fail=True)])
    with pytest.raises(OSError, match="b failed"):
        extensions.close(1.0)
    assert closed == ["b", "a"]


class Model(ConnectionExtension):
    """Re-plans the options: the CLI must be spawned with this model."""

    def prepare(
        self, options: ClaudeAgentOptions, plan: Any, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, Any]:
        assert (
            plan.cli_args[plan.cli_args.index("--model") + 1] == "from-options"
        )  # made for the bare session
        spawned = dataclasses.replace(options, model="from-prepare")
        return spawned, interpret_options(spawned)


def test_an_extension_prepare_re_plans_the_options_the_cli_is_spawned_with(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    session = Session(cli.options(model="from-options"), extensions=lambda s: [Model()])
    session.connect()
    try:
        assert [type(e) for e in session.extensions] == [Model]
    finally:
        session.close()
    argv = cli.last_run.argv
    assert argv[argv.index("--model") + 1] == "from-prepare"


class Refuses(ConnectionExtension):
    def __init__(self, closed: List[str]) -> None:
        self.closed = closed

    def prepare(self, options: Any, plan: Any, environ: Mapping[str, str]) -> Tuple[Any, Any]:
        raise ValueError("this extension refuses the options")

    def close(self, timeout: float) -> None:
        self.closed.append("refuses")


def test_a_refusing_prepare_fails_the_connect_and_every_extension_is_closed(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    closed: List[str] = []
    session = Session(cli.options(), extensions=lambda s: [Named("first", closed), Refuses(closed)])
    with pytest.raises(ValueError, match="refuses the options"):
        session.connect()
    assert session.state is SessionState.CLOSED
    assert closed == ["refuses", "first"]
    assert cli.runs == []  # nothing was spawned


def test_a_bare_session_gets_no_extension_and_the_wiring_picks_them(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.delitem(
        sys.modules, "opentelemetry", raising=False
    )  # a program that does not trace
    cli = ScriptedCLI(directory=tmp_path)
    bare = Session(cli.options())
    bare.connect()
    try:
        assert bare.extensions == []  # the engine picks none itself
    finally:
        bare.close()
    with ClaudeSDKClient(cli.options(session_store=InMemorySessionStore())) as client:
        assert client.session is not None
        kinds = [type(e).__name__ for e in client.session.extensions]
    assert kinds == ["StoreBridge", "HostDeathWatch"]  # the wire log only at DEBUG


def test_a_traced_program_hands_the_cli_its_trace_context_through_the_extension(
    tmp_path: Path, monkeypatch: Any
) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    monkeypatch.setenv("TRACEPARENT", "00-stale-stale-01")
    fake_opentelemetry(monkeypatch, "00-abc-def-01")
    with ClaudeSDKClient(cli.options(session_store=InMemorySessionStore())) as client:
        assert client.session is not None and client.session.spawn_plan is not None
        kinds = [type(e).__name__ for e in client.session.extensions]
        env = client.session.spawn_plan.env
    assert kinds == ["StoreBridge", "TraceContext", "HostDeathWatch"]  # after the store's re-plan
    assert env["TRACEPARENT"] == "00-abc-def-01"  # the active span, not the inherited one
    monkeypatch.delitem(sys.modules, "opentelemetry")
    with ClaudeSDKClient(cli.options()) as client:
        assert client.session is not None and client.session.spawn_plan is not None
        assert "TraceContext" not in [type(e).__name__ for e in client.session.extensions]
        assert client.session.spawn_plan.env["TRACEPARENT"] == "00-stale-stale-01"  # untouched


class SlowToPrepareAndClose(ConnectionExtension):
    """Holds the connect in ``prepare`` and the closer in ``close`` until the test lets go."""

    def __init__(self) -> None:
        self.preparing, self.let_prepare = threading.Event(), threading.Event()
        self.closing, self.let_close = threading.Event(), threading.Event()
        self.closes: List[str] = []

    def prepare(self, options: Any, plan: Any, environ: Mapping[str, str]) -> Tuple[Any, Any]:
        self.preparing.set()
        assert self.let_prepare.wait(10)
        return options, plan

    def close(self, timeout: float) -> None:
        self.closes.append(threading.current_thread().name)
        self.closing.set()
        assert self.let_close.wait(10)


def test_a_close_that_stops_waiting_for_a_slow_connect_and_the_undone_connect_close_each_extension_once(
    tmp_path: Path,
) -> None:
    cli = ScriptedCLI(directory=tmp_path)
    slow = SlowToPrepareAndClose()
    session = Session(cli.options(close_timeout=0.2), extensions=lambda s: [slow])
    failures: List[BaseException] = []

    def connect() -> None:
        try:
            session.connect()
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            failures.append(exc)

    connecting = threading.Thread(target=connect, name="test-connect")
    connecting.start()
    assert slow.preparing.wait(10)
    closer = threading.Thread(target=session.close, name="test-close")
    closer.start()  # waits 0.2 s for the start, then runs its ladder: closes the extension
    assert slow.closing.wait(10)
    slow.let_prepare.set()  # the connect sees the close and undoes its start meanwhile
    wait_until(lambda: _running(connecting, "_undo_start"), what="the connect undoing its start")
    slow.let_close.set()
    closer.join(10)
    connecting.join(10)
    assert not closer.is_alive() and not connecting.is_alive()
    assert slow.closes == ["test-close"]  # once, by the first to get there
    assert [type(e).__name__ for e in failures] == ["UsageError"]
    assert cli.runs == []  # nothing was spawned


def _running(thread: threading.Thread, function: str) -> bool:
    """``function`` is on ``thread``'s stack right now."""
    frame = sys._current_frames().get(thread.ident or 0)
    while frame is not None:
        if frame.f_code.co_name == function:
            return True
        frame = frame.f_back
    return False
