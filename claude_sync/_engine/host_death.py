"""The CLIs die with their host: a parent-death signal on every CLI, and SIGTERM closes
every live session first.

**SIGKILL, the OOM killer, a crash.** On Linux each CLI is spawned with
``PR_SET_PDEATHSIG = SIGKILL``: the kernel kills it the moment its parent dies, however that
happens. The catch: the kernel's "parent" is the *thread* that forked, not the process, so a
CLI spawned by a thread that then ends (a pool's worker, a Dask task thread) would die with
that thread. Hence ``popen``:

- on the process's main OS thread (thread id == pid, which lives as long as the process;
  also every greenlet of a gevent host) the CLI is spawned right there;
- on any other thread the spawn is handed to the ``claude_sync-spawner`` thread, which forks
  every such CLI and lives as long as one of them runs (it checks every
  ``SPAWNER_CHECK_INTERVAL`` s, and ends once none is left unreaped).

How the signal is set, cheapest first:

- through util-linux's ``setpriv --pdeathsig KILL -- <cli> …``, which sets it and execs the
  CLI (same pid): ``subprocess`` keeps its vfork path, so the spawn costs what it did
  (measured 0.14 ms for a 516 MB host). Should the host die between the vfork and the
  ``prctl`` (microseconds), the CLI still ends: it is idle and reads EOF on its stdin;
- else between fork and exec (``preexec_fn``: one ``prctl`` call through a function resolved
  beforehand, no import, no lock; then the child checks its parent is still the host).
  A ``preexec_fn`` makes ``subprocess`` fork instead of vfork, which copies the host's page
  tables: measured 1.5 ms for a 16 MB host, 28 ms for a 516 MB one.

A CLI path that is not an executable file is spawned unwrapped, so ``Popen`` raises the
same error it always did. The CLI's own children (Bash tool commands) do not inherit the
signal; they lose their parent and are left to the process group's fate.

**SIGTERM.** ``track`` (each session, once its CLI started) installs a SIGTERM handler the
first time it runs on the main thread, if SIGTERM's disposition is the default one or a
Python handler. On SIGTERM: with the default disposition, every live session is closed the
normal way (interrupt, stdin EOF, the store's last flush, temp files removed) on
``claude_sync-sigterm-*`` threads, all at once, for at most ``SIGTERM_CLOSE_BUDGET`` s, then
the default action runs (the process ends, "killed by SIGTERM"; what is still running dies
by its parent-death signal). With a handler of the host's own (gunicorn, Celery and Dask
workers shut down gracefully on SIGTERM), that handler runs instead, unchanged; if it
raises (``SystemExit``), the live sessions are closed the same way before it propagates.
A host that ignores SIGTERM keeps ignoring it; a handler installed after ours replaces ours.

**Fork.** A child forked from the host (``multiprocessing`` with fork, gunicorn or Celery
prefork after a warm-up) starts with none of this module's threads and none of its sessions:
the spawner thread, the lock and the tracked sessions are reset in the child
(``os.register_at_fork``), so its first spawn from a thread starts a spawner of its own.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, List, Optional

from .._redaction.redactor import redacted_logger
from .extensions import ConnectionExtension
from .green import simple_queue

if TYPE_CHECKING:  # pragma: no cover
    import subprocess

__all__ = ["popen", "track", "close_live_sessions", "SIGTERM_CLOSE_BUDGET", "SPAWNER_CHECK_INTERVAL"]

logger = redacted_logger("claude_sync.host")

SIGTERM_CLOSE_BUDGET = 1.5
"""Seconds the SIGTERM handler gives the live sessions' normal close before the host ends."""
SPAWNER_CHECK_INTERVAL = 0.25
"""How often the spawner thread looks whether any CLI it forked still runs."""
SPAWN_HANDOFF_TIMEOUT = 60.0
"""Bound on waiting for the spawner thread to fork a CLI (it takes milliseconds)."""

_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1
_SIGKILL = int(signal.SIGKILL) if hasattr(signal, "SIGKILL") else 9

_prctl: Optional[Callable[..., int]] = None
_prctl_loaded = False
_sessions: weakref.WeakSet[Any] = weakref.WeakSet()
_state_lock = threading.Lock()
_spawner: Optional[_Spawner] = None
_sigterm_installed = False
_previous_sigterm: Any = None


# ----------------------------------------------------------------------------- spawning


def popen(argv: List[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **kwargs)``, the child killed by the kernel when this process
    dies (Linux; elsewhere a plain ``Popen``). Any thread. Raises what ``Popen`` raises, and
    ``OSError`` when the spawner thread does not answer within ``SPAWN_HANDOFF_TIMEOUT``."""
    import subprocess  # a CLI is spawned: a leased connection (the watch is wired in) never loads it
    if not _LINUX or kwargs.get("preexec_fn") is not None or not argv or not _is_executable(argv[0]):
        return subprocess.Popen(argv, **kwargs)
    setpriv = _setpriv()
    if setpriv is not None:
        argv = [setpriv, "--pdeathsig", "KILL", "--", *argv]
    elif _load_prctl() is None:
        return subprocess.Popen(argv, **kwargs)
    if _on_main_os_thread():
        return _spawn_here(argv, kwargs, os.getpid(), setpriv is not None)
    return _hand_to_spawner(argv, kwargs, setpriv is not None)


def _spawn_here(argv: List[str], kwargs: Any, parent: int, wrapped: bool) -> subprocess.Popen[bytes]:
    """Spawn on this thread: the CLI dies when this thread (or the process) does."""
    import subprocess  # loaded by ``popen`` already
    if wrapped:
        return subprocess.Popen(argv, **kwargs)
    prctl = _load_prctl()
    assert prctl is not None
    return subprocess.Popen(argv, preexec_fn=_die_with(parent, prctl), **kwargs)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


_setpriv_path: Optional[str] = None
_setpriv_checked = False


def _setpriv() -> Optional[str]:
    """The path of a ``setpriv`` that knows ``--pdeathsig`` (util-linux 2.33+), checked once."""
    global _setpriv_path, _setpriv_checked
    if not _setpriv_checked:
        import shutil  # a spawn's only: a leased CLI never needs it
        import subprocess  # loaded by ``popen`` already

        found = shutil.which("setpriv")
        if found is not None:
            try:
                usage = subprocess.run([found, "--help"], capture_output=True, timeout=10, check=False).stdout
                _setpriv_path = found if b"--pdeathsig" in usage else None
            except (OSError, subprocess.SubprocessError):
                _setpriv_path = None
        _setpriv_checked = True
    return _setpriv_path


def _on_main_os_thread() -> bool:
    """True on the thread that lives as long as the process (its id is the pid)."""
    return threading.get_native_id() == os.getpid()


def _load_prctl() -> Optional[Callable[..., int]]:
    """libc's ``prctl``, resolved once (None, logged once, where it cannot be had)."""
    global _prctl, _prctl_loaded
    if not _prctl_loaded:
        try:
            import ctypes

            function = ctypes.CDLL(None, use_errno=True).prctl
            function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            function.restype = ctypes.c_int
            _prctl = function
        except (ImportError, OSError, AttributeError) as exc:
            logger.warning("No prctl (%s): a CLI will outlive a host killed by SIGKILL", exc)
        _prctl_loaded = True
    return _prctl


def _die_with(parent: int, prctl: Callable[..., int]) -> Callable[[], None]:
    """The ``preexec_fn``: in the child, between fork and exec. No import, no lock."""

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the host died before the prctl: nobody would kill us
            os._exit(127)

    return preexec


class _Request:
    """One spawn handed to the spawner thread, and its outcome."""

    __slots__ = ("argv", "kwargs", "wrapped", "done", "process", "error", "abandoned")

    def __init__(self, argv: List[str], kwargs: Any, wrapped: bool) -> None:
        self.argv = argv
        self.kwargs = kwargs
        self.wrapped = wrapped
        self.done = threading.Event()
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.error: Optional[BaseException] = None
        self.abandoned = False


class _Spawner:
    """The ``claude_sync-spawner`` thread: forks the CLIs asked for by other threads and lives
    while any of them runs (a dead parent thread would take them along)."""

    def __init__(self) -> None:
        self.requests, self.empty = simple_queue()
        self.children: List[subprocess.Popen[bytes]] = []
        self.thread = threading.Thread(target=self._run, name="claude_sync-spawner", daemon=True)

    def _run(self) -> None:
        global _spawner
        parent = os.getpid()
        while True:
            try:
                request = self.requests.get(timeout=SPAWNER_CHECK_INTERVAL)
            except self.empty:
                request = None
            if request is not None:
                self._spawn(request, parent)
                continue
            with _state_lock:
                self.children = [child for child in self.children if child.returncode is None]
                if not self.children and self.requests.empty():
                    _spawner = None  # the next spawn starts a new thread
                    return

    def _spawn(self, request: _Request, parent: int) -> None:
        try:
            process = _spawn_here(request.argv, request.kwargs, parent, request.wrapped)
        except BaseException as exc:  # noqa: BLE001 - handed to the asking thread
            request.error = exc
            request.done.set()
            return
        self.children.append(process)
        with _state_lock:
            request.process = process
            abandoned = request.abandoned
            request.done.set()
        if abandoned:  # the asking thread gave up: nobody else will stop this one
            process.kill()
            process.wait()


def _hand_to_spawner(argv: List[str], kwargs: Any, wrapped: bool) -> subprocess.Popen[bytes]:
    global _spawner
    request = _Request(argv, kwargs, wrapped)
    with _state_lock:
        spawner = _spawner
        if spawner is None:
            spawner = _spawner = _Spawner()
            spawner.thread.start()
        spawner.requests.put(request)
    finished = False
    try:
        finished = request.done.wait(SPAWN_HANDOFF_TIMEOUT)
    finally:
        with _state_lock:
            if request.process is None and request.error is None:
                request.abandoned = True
    if request.error is not None:
        raise request.error
    if not finished or request.process is None:
        raise OSError(f"the claude_sync-spawner thread did not start the CLI within {SPAWN_HANDOFF_TIMEOUT}s")
    return request.process


# ----------------------------------------------------------------------------- SIGTERM


class HostDeathWatch(ConnectionExtension):
    """The extension that puts a started session under the host's SIGTERM (``track``)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def started(self, transport: Any) -> None:
        track(self.session)


def track(session: Any) -> None:
    """A session whose CLI runs (its connecting thread): closed on the host's SIGTERM. The
    first call on the main thread installs the SIGTERM handler (see the module docstring)."""
    _sessions.add(session)
    if not _sigterm_installed and _on_main_os_thread():
        _install_sigterm()


def _install_sigterm() -> None:
    global _sigterm_installed, _previous_sigterm
    with _state_lock:
        if _sigterm_installed:
            return
        _sigterm_installed = True  # tried once, whatever comes of it
    if "gevent" in sys.modules and _gevent_patched():
        return  # its hub cannot block in a signal handler; gevent hosts handle SIGTERM
    try:
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_IGN or previous is None:  # ignored, or a handler not from Python
            return
        _previous_sigterm = previous
        signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError, AttributeError) as exc:  # not the main interpreter, no SIGTERM
        logger.debug("SIGTERM handler not installed: %s", exc)


def _gevent_patched() -> bool:
    monkey = sys.modules.get("gevent.monkey")
    return bool(monkey is not None and monkey.is_module_patched("threading"))


def _on_sigterm(signum: int, frame: Any) -> None:
    """The SIGTERM handler (main thread)."""
    previous = _previous_sigterm
    if callable(previous):
        try:
            previous(signum, frame)
        except BaseException:
            close_live_sessions(SIGTERM_CLOSE_BUDGET)
            raise
        return
    close_live_sessions(SIGTERM_CLOSE_BUDGET)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)  # the default action: this process ends here


def _after_fork_in_child() -> None:
    """In a child forked from this process (``os.register_at_fork``; the forking thread, now
    the child's only one). None of the parent's threads run here: no spawner thread (a spawn
    handed to it would wait ``SPAWN_HANDOFF_TIMEOUT`` for nothing, every time), and a lock one
    of them held at the fork would stay held forever. The parent's sessions are not the
    child's to close on its SIGTERM (their pipes are the parent's CLIs'). The SIGTERM handler
    itself is inherited with the process and stays; ``prctl``/``setpriv`` look-ups stay valid."""
    global _spawner, _state_lock, _sessions
    _state_lock = threading.Lock()
    _spawner = None
    _sessions = weakref.WeakSet()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def close_live_sessions(budget: float) -> int:
    """Close every live session the normal way, all at once, waiting at most ``budget`` s.
    Returns how many were still closing then. Any thread; never raises."""
    live = [session for session in list(_sessions) if not session.closed]
    if not live:
        return 0
    logger.warning("SIGTERM: closing %d live Claude Code sessions", len(live))
    threads = [
        threading.Thread(target=_close_quietly, args=(session,), name=f"claude_sync-sigterm-{index}", daemon=True)
        for index, session in enumerate(live)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + budget
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    still = sum(thread.is_alive() for thread in threads)
    if still:
        logger.warning("SIGTERM: %d sessions still closing after %.1fs; their CLIs die with this process", still, budget)
    return still


def _close_quietly(session: Any) -> None:
    try:
        session.close()
    except BaseException:  # noqa: BLE001 - one session's close must not stop the others
        logger.exception("Closing a session on SIGTERM failed")
