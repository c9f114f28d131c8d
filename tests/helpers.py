"""Helpers shared by the tests: ``Kit`` (a kit ``ScriptedCLI`` and how a test connects to it,
with ``SHORT_TIMEOUTS``), message filters, ``wait_until``, and a few scripts several tests use."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

from claude_sync import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    TextBlock,
    query,
)
from claude_sync._query import QueryStream
from claude_sync.testing import ScriptedCLI, ScriptedTransport

SHORT_TIMEOUTS: Dict[str, float] = {"close_timeout": 2.0, "initialize_timeout": 10.0, "control_timeout": 10.0}
"""The timeouts a test's options get unless it says otherwise: a close or an answer that does
not come fails the test in seconds, not minutes."""


def texts(messages: List[Any]) -> List[str]:
    """The text of every TextBlock of every AssistantMessage, in order."""
    return [b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]


def results(messages: List[Any]) -> List[ResultMessage]:
    """Every ResultMessage, in order."""
    return [m for m in messages if isinstance(m, ResultMessage)]


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition", *, fail: bool = True) -> bool:
    """Poll ``predicate`` (2 ms steps) until it is true: True. When ``timeout`` seconds pass
    first: ``AssertionError`` naming ``what``, or False with ``fail=False``. The one polling
    helper of the test suite (unit, e2e and the leak check)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            if fail:
                raise AssertionError(f"{what} not reached within {timeout}s")
            return bool(predicate())
        time.sleep(0.002)
    return True


def control_frames(cli: Any, subtype: str) -> List[Dict[str, Any]]:
    """The ``request`` of every control request of ``subtype`` the CLI received."""
    return [
        f["request"]
        for f in cli.stdin_frames()
        if f.get("type") == "control_request" and f["request"]["subtype"] == subtype
    ]


BOTH = pytest.mark.parametrize("mode", ["memory", "subprocess"], indirect=True)
"""Run the test twice: the scripted CLI in-process and as a subprocess (the ``mode`` fixture)."""

SUBPROCESS = pytest.mark.parametrize("mode", ["subprocess"], indirect=True)
"""Run the test with the scripted CLI as a subprocess only."""


def interruptible_turn() -> Kit:
    """A turn that writes "partial", waits for our ``interrupt``, ends aborted (as the real
    CLI does), then answers one more turn with "second answer"."""
    return Kit(ScriptedCLI().expect_user().text("partial").expect_interrupt().interrupted().answer("second answer"))


class Kit:
    """A kit ``ScriptedCLI`` and how a test connects to it: in-process (``mode="memory"``:
    a fresh ``transport()`` per connection, the latest kept as ``transport``) or as a real
    subprocess (``"subprocess"``: ``install()`` into ``tmp_path``), with ``SHORT_TIMEOUTS``
    unless the test's options say otherwise."""

    def __init__(self, cli: ScriptedCLI, mode: str = "memory", tmp_path: Optional[Path] = None) -> None:
        if mode not in ("memory", "subprocess") or (mode == "subprocess" and tmp_path is None):
            raise ValueError(f"Kit mode {mode!r} (a subprocess needs tmp_path)")
        self.cli, self.mode, self.tmp_path = cli, mode, tmp_path
        self.transport: Optional[ScriptedTransport] = None

    def options(self, **kwargs: Any) -> ClaudeAgentOptions:
        for name, value in SHORT_TIMEOUTS.items():
            kwargs.setdefault(name, value)
        if self.mode == "subprocess":
            return ClaudeAgentOptions(cli_path=self.cli.install(self.tmp_path), **kwargs)
        return ClaudeAgentOptions(**kwargs)

    def connect(self, **kwargs: Any) -> Dict[str, Any]:
        """``options=`` (and ``transport=`` in-process) for ``query``/``ClaudeSDKClient``."""
        found: Dict[str, Any] = {"options": self.options(**kwargs)}
        if self.mode == "memory":
            self.transport = found["transport"] = self.cli.transport()
        return found

    def client(self, **kwargs: Any) -> ClaudeSDKClient:
        return ClaudeSDKClient(**self.connect(**kwargs))

    def query(self, prompt: Any, **kwargs: Any) -> QueryStream:
        return query(prompt, **self.connect(**kwargs))

    def stdin_frames(self) -> List[Dict[str, Any]]:
        """Every frame we wrote to the latest run, in order (live while it goes on)."""
        return [f for f in self.cli.last_run.received if isinstance(f, dict)]

    def steps_done(self) -> int:
        """How many steps the latest run has played (0 before it started)."""
        runs = self.cli.runs
        return runs[-1].steps_done if runs else 0

    def never_started(self) -> bool:
        return not self.cli.runs
