"""The ``claude-sync`` program: ``shell.main``, then a quick exit.

A short command's interpreter teardown (every module's dictionary cleared, every object
freed, several garbage collections) costs 10–20 ms of CPU after the answer is written: a
tenth of a leased run (``claude_sync._shared_pool``). The program skips it the way the C
runtime would: the ``atexit`` hooks run (logging's flush, the private temp files' removal,
the CLI reaper), stdout and stderr are flushed, then ``os._exit``. When another non-daemon
thread is still alive, the ordinary exit runs instead: it waits for that thread, as Python
promises.

Runs on the main thread, once, at the end of the process (the console script
``claude-sync`` and ``python -m claude_sync``).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from .shell import main

__all__ = ["FLUSH_FAILED", "exit_now", "run_program"]

FLUSH_FAILED = 120
"""The status when stdout or stderr cannot be flushed at the end: Python's own (``Py_Exit``)."""


def run_program() -> NoReturn:
    """Main thread: run the command line with ``sys.argv``, then ``exit_now`` with its status.
    Never returns."""
    exit_now(main())


def exit_now(status: int) -> NoReturn:
    """Main thread: end the process with ``status`` without the interpreter's teardown — the
    ``atexit`` hooks first, then stdout and stderr flushed (a failed flush makes the status
    ``FLUSH_FAILED``, as in Python). ``sys.exit(status)`` instead while another non-daemon
    thread is alive. Never returns."""
    if _other_threads_alive():
        sys.exit(status)
    atexit._run_exitfuncs()  # what Py_FinalizeEx runs first; os._exit runs none
    if not _flushed():
        status = FLUSH_FAILED
    os._exit(status)


def _other_threads_alive() -> bool:
    main_thread = threading.main_thread()
    return any(t is not main_thread and not t.daemon and t.is_alive() for t in threading.enumerate())


def _flushed() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream
            ok = False
    return ok
