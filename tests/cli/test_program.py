"""The ``claude-sync`` program's quick exit (``claude_sync._cli.program``): the ``atexit``
hooks run and the output is flushed, a live non-daemon thread gets the ordinary exit, and a
flush that fails ends with Python's own status. Each case is a child interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from claude_sync._cli.program import FLUSH_FAILED


def child(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as by default
    argv = [sys.executable, "-c", textwrap.dedent(code)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_the_atexit_hooks_run_then_the_buffered_output_is_written() -> None:
    done = child("""
        import atexit
        from claude_sync._cli.program import exit_now
        atexit.register(lambda: print("hook ran"))
        print("answer", end=" ")  # a pipe: still in the buffer
        exit_now(3)
    """)
    assert (done.returncode, done.stdout, done.stderr) == (3, "answer hook ran\n", "")


def test_a_live_non_daemon_thread_is_waited_for() -> None:
    done = child("""
        import threading, time
        from claude_sync._cli.program import exit_now
        def late():
            time.sleep(0.3)
            print("thread finished", flush=True)
        threading.Thread(target=late, name="late").start()
        exit_now(4)
    """)
    assert (done.returncode, done.stdout) == (4, "thread finished\n"), done.stderr


def test_output_that_cannot_be_flushed_ends_with_pythons_status() -> None:
    done = child("""
        import os
        from claude_sync._cli.program import exit_now
        print("lost", end="")
        os.close(1)
        exit_now(0)
    """)
    assert done.returncode == FLUSH_FAILED == 120, done.stderr


def test_python_dash_m_is_the_program() -> None:
    done = subprocess.run([sys.executable, "-m", "claude_sync", "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.startswith("claude-sync (claude_sync) "), done
