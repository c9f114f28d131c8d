"""``ClaudeAgentOptions.on_process_exit``: told when the CLI process of a connection ended.

Neither official SDK has this (the TS SDK's ``SpawnedProcess.on('exit')`` is for its own
custom-spawn plumbing, and ``prewarm()``'s ``exited`` only covers a parked spare); without it a
CLI that dies while a client is idle (the OOM killer, a crash, ``kill``) is only found out at
the next call, as a ``CLIConnectionError``. The contract:

* **Once** per CLI process a connection started, with a ``ProcessExit``: ``pid``,
  ``exit_code`` (None when a signal ended it), ``signal`` (its name, e.g. ``"SIGKILL"``),
  ``closed_by`` (None when it ended on its own; ``"eof"``, ``"sigterm"`` or ``"sigkill"``
  when ``close()`` ended it, at that rung of the close ladder) and ``stderr_tail`` (the last
  lines it wrote to stderr, drained to EOF first, at most ``close_timeout``).
* **Only for a process this library reaped** (waited for and got the status of): never for
  a custom ``Transport`` (no process of ours), nor for a CLI that outlived SIGKILL (the close
  ladder's "stuck" rung: no status to report).
* **When**: as soon as the end of the CLI's stdout shows and its status is in (the reader
  sees EOF and waits up to ``close_timeout``); when ``close()`` ends it (or it ended unseen),
  at ``close()``, once the ladder reaped it.
* **On its own thread**, ``claude_sync-process-exit-<pid>``, never the reader's; ``close()``
  joins it (at most ``close_timeout``; a callback still running then is logged and left to
  finish). The callback may call ``close()`` (that close cannot wait for the thread it runs
  on, which ends when the callback returns), or start a new client. If it raises, the error
  is logged (``claude_sync.process_exit``) and nothing else changes.

A ``ConnectionExtension``: the connection knows nothing of it; ``_wiring.connection_extensions`` plugs it in.
"""

from __future__ import annotations

import signal as signals
import threading
from typing import Optional

from .._redaction.redactor import redacted_logger
from .._wire.process_exit import OnProcessExit, exit_report
from .extensions import ConnectionExtension
from .transport import Transport

__all__ = ["ProcessExitWatch"]

logger = redacted_logger("claude_sync.process_exit")


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ProcessExitWatch(ConnectionExtension):
    """Calls ``callback`` once with the ``ProcessExit`` of the connection's CLI (see module)."""

    def __init__(self, callback: OnProcessExit) -> None:
        self._callback = callback
        self._transport: Optional[Transport] = None
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def started(self, transport: Transport) -> None:
        """Connecting thread: only a transport with a process of ours is watched."""
        self._transport = transport if transport.pid is not None else None

    def ended(self, transport: Transport, closing: bool) -> None:
        """Reader thread, end of stream: deliver if the status is in (never runs the callback
        here). While closing, ``close`` delivers, once the ladder says which rung ended it."""
        if not closing:
            self._deliver()

    def close(self, timeout: float) -> None:
        """Closing thread, after the close ladder: deliver if not yet, then join the thread."""
        self._deliver()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return
        thread.join(timeout)
        if thread.is_alive():
            logger.warning("on_process_exit is still running %.1f s after close began; left to finish", timeout)

    def _deliver(self) -> None:
        transport = self._transport
        if transport is None:
            return
        with self._lock:
            if self._thread is not None:
                return
            code = transport.exit_code()  # a status means the process was reaped
            if code is None:
                return
            pid = transport.pid
            assert pid is not None
            self._thread = threading.Thread(
                target=self._run, args=(transport, pid, code), name=f"claude_sync-process-exit-{pid}", daemon=True
            )
            self._thread.start()

    def _run(self, transport: Transport, pid: int, code: int) -> None:
        """``claude_sync-process-exit-<pid>``: build the report (waits for stderr's end) and call back."""
        name = _signal_name(-code) if code < 0 else ""
        report = exit_report(pid, code, getattr(transport, "last_rung", None), transport.stderr_tail(), name)
        try:
            self._callback(report)
        except Exception:  # noqa: BLE001 - a callback's failure is reported, never raised into the engine
            logger.exception("on_process_exit raised for CLI pid %s", pid)


