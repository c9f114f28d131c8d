"""Helpers shared by the tests: ``Kit`` (a kit ``ScriptedCLI`` and how a test connects to it,
with ``SHORT_TIMEOUTS``), message filters (``texts`` is the kit's), ``wait_until``,
``child_pids``, ``require_package`` (optional packages: skipped locally, failed under
CI=true unless ``CLAUDE_SYNC_TEST_EXTRAS`` says their extra is not installed), the steps several tests script, the host's processes as ``/proc`` shows them
(``alive``, ``clis_under``, ``clis_with_home``) and ``StallingResponder`` (a fake-API turn held
in flight)."""

from __future__ import annotations

import configparser
import functools
import importlib
import importlib.util
import os
import re
import sys
import threading
import time
import types
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

import pytest

from claude_sync import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    query,
)
from claude_sync.query import QueryStream
from claude_sync.testing import ScriptedCLI, ScriptedTransport, texts  # noqa: F401 - texts: the kit's, for the tests

SHORT_TIMEOUTS: Dict[str, float] = {"close_timeout": 2.0, "initialize_timeout": 10.0, "control_timeout": 10.0}
"""The timeouts a test's options get unless it says otherwise: a close or an answer that does
not come fails the test in seconds, not minutes."""


def is_init(message: Any) -> bool:
    """A ``system/init`` message, in the official shape: a plain ``SystemMessage``."""
    return type(message).__name__ == "SystemMessage" and message.subtype == "init"


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



def run_together(work: Callable[[int], None], count: int, timeout: float = 60.0) -> List[BaseException]:
    """Run ``work(n)`` for each ``n`` in ``range(count)``, each on its own
    ``claude_sync-test-<n>`` thread, all released at once (a barrier); the exceptions they
    raised. Fails the test when a thread is still running after ``timeout`` seconds."""
    errors: List[BaseException] = []
    start = threading.Barrier(count)

    def run(n: int) -> None:
        try:
            start.wait(timeout)
            work(n)
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,), name=f"claude_sync-test-{n}") for n in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [thread.name for thread in threads if thread.is_alive()]
    if stuck:
        pytest.fail(f"threads still running after {timeout}s: {stuck}")
    return errors

def child_pids() -> List[int]:
    """Our process's live child processes, right now (no grace period)."""
    pids: List[int] = []
    task_dir = Path(f"/proc/{os.getpid()}/task")
    if not task_dir.exists():
        return pids
    for task in task_dir.iterdir():
        try:
            pids += [int(pid) for pid in (task / "children").read_text().split()]
        except OSError:
            continue
    return sorted(pids)


EXTRAS_ENV = "CLAUDE_SYNC_TEST_EXTRAS"
"""The environment variable naming the extras this run installed (comma-separated, e.g.
``test``): under ``CI=true`` a package of an extra it does not name is skipped, not failed.
Unset under ``CI=true``: every extra is installed (``.ci/run``'s full runs), so any missing
optional package fails. ``scripts/test.sh`` sets it to the extras it installs."""

MODULE_DISTRIBUTIONS: Dict[str, str] = {
    "IPython": "ipython", "markdown_it": "markdown-it-py", "psycopg_pool": "psycopg-pool",
    "opentelemetry": "opentelemetry-api", "opentelemetry.sdk": "opentelemetry-sdk",
    "opentelemetry.proto": "opentelemetry-proto", "websocket": "websocket-client",
}  # fmt: skip
"""Importable name (or dotted prefix, for namespace packages) -> distribution name, where
they differ (else the top-level name is the distribution's)."""

ROOT_DIR = Path(__file__).resolve().parents[1]


def _normalized(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


@functools.cache
def extras_table() -> Dict[str, Tuple[str, ...]]:
    """Distribution (normalized) -> the extras of ``setup.cfg`` that install it, in file order."""
    config = configparser.ConfigParser()
    config.read(ROOT_DIR / "setup.cfg", encoding="utf-8")
    table: Dict[str, List[str]] = {}
    for extra, requirements in config.items("options.extras_require"):
        for line in requirements.splitlines():
            found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
            if found and not line.lstrip().startswith("#"):
                table.setdefault(_normalized(found.group(1)), []).append(extra)
    return {name: tuple(extras) for name, extras in table.items()}


def distribution_of(module: str) -> str:
    """The distribution that installs the (dotted) ``module``: the longest prefix of it in
    ``MODULE_DISTRIBUTIONS``, else its top-level name."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in MODULE_DISTRIBUTIONS:
            return MODULE_DISTRIBUTIONS[prefix]
    return parts[0]


def extras_of(module: str) -> Tuple[str, ...]:
    """The extras that install the importable ``module`` (empty when none does)."""
    return extras_table().get(_normalized(distribution_of(module)), ())


RUN_EXTRAS = os.environ.get(EXTRAS_ENV, "")
"""``CLAUDE_SYNC_TEST_EXTRAS`` as the run started: read once, at import, because what a run
installed does not change while it runs, and the e2e fixtures scrub ``CLAUDE_*`` variables
from a test's environment before its body asks for a package."""


def declared_extras() -> Optional[Set[str]]:
    """The extras ``CLAUDE_SYNC_TEST_EXTRAS`` named when the run started (``RUN_EXTRAS``);
    None when it was unset (or empty)."""
    named = {part.strip() for part in RUN_EXTRAS.split(",") if part.strip()}
    return named or None


def under_ci() -> bool:
    """Whether this is a CI run (``CI=true``): there, a missing optional package fails the
    test instead of skipping it, unless ``CLAUDE_SYNC_TEST_EXTRAS`` says its extra is not
    installed in this run."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing_package_fails(extras: Iterable[str]) -> bool:
    """Whether a missing package of ``extras`` is a failure here: under ``CI=true`` when
    ``CLAUDE_SYNC_TEST_EXTRAS`` is unset (every extra installed) or names one of them."""
    if not under_ci():
        return False
    declared = declared_extras()
    return declared is None or bool(declared & set(extras))


def install_command(extras: Iterable[str]) -> str:
    """``pip install -e '.[test,<extra>]'`` for the narrowest extra (the one listing the
    fewest packages) among ``extras``."""
    sizes = {extra: sum(extra in owners for owners in extras_table().values()) for extra in extras}
    if not sizes:
        return "pip install -e '.[test,test-integrations]'"
    narrowest = min(sizes, key=lambda extra: (sizes[extra], extra))
    return f"pip install -e '.[test,{narrowest}]'" if narrowest != "test" else "pip install -e '.[test]'"


def is_installed(name: str) -> bool:
    """Whether the top-level module ``name`` can be imported (a namespace package, such as
    the ``tests/mcp`` folder on ``sys.path``, does not count)."""
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin not in (None, "namespace")


def _missing(what: str, extras: Tuple[str, ...]) -> None:
    """Skip (or, per ``missing_package_fails``, fail) for the missing package ``what`` of
    ``extras``. Always raises."""
    if not extras:  # a test asking for a package no extra installs: the test's own bug
        pytest.fail(f"no extra of setup.cfg installs {what}", pytrace=False)
    reason = f"the optional package {what} is not installed (extra {' or '.join(extras)}): {install_command(extras)}"
    if missing_package_fails(extras):
        declared = declared_extras()
        told = f"{EXTRAS_ENV}={','.join(sorted(declared))}" if declared else f"{EXTRAS_ENV} unset: every extra"
        pytest.fail(f"{reason} (CI=true, {told})", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require_distribution(distribution: str) -> None:
    """As ``require_package``, for a distribution checked through its installed metadata,
    importing nothing (``opentelemetry-sdk``: an imported ``opentelemetry`` turns tracing on
    for the rest of the process). Raises ``pytest.skip.Exception`` / ``pytest.fail.Exception``."""
    from importlib import metadata

    try:
        metadata.version(distribution)
    except metadata.PackageNotFoundError:
        _missing(repr(distribution), extras_table().get(_normalized(distribution), ()))


def require_package(name: str, *, import_it: bool = True, since: Tuple[int, int] = (3, 9)) -> Any:
    """The optional package ``name`` (installed by an extra of ``setup.cfg``), imported; or
    only checked to be installed with ``import_it=False`` (returns None), for a test that must
    not import it into this process. Missing: the test is skipped, naming its extra and the
    install command — a failure instead under ``CI=true`` unless ``CLAUDE_SYNC_TEST_EXTRAS``
    names the extras installed and none of them has it (``missing_package_fails``). On a
    Python older than ``since`` (the package does not exist there; mcp needs 3.10) the test
    is always skipped.

    ``tests/`` is on ``sys.path``, so a namespace package of the same name (``tests/mcp``)
    does not count as installed. Raises ``pytest.skip.Exception`` / ``pytest.fail.Exception``."""
    if sys.version_info < since:
        pytest.skip(f"{name} needs Python >= {since[0]}.{since[1]}", allow_module_level=True)
    if not is_installed(name):
        _missing(repr(name), extras_of(name))
    if not import_it:
        return None
    with warnings.catch_warnings():  # as pytest.importorskip: a package's own import-time
        warnings.simplefilter("ignore")  # warnings (jupyter_core's on 3.9) are not the test's
        return importlib.import_module(name)


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


# ----------------------------------------------------------------------------- the CLI asking us


Step = Callable[[ScriptedCLI], Any]
"""A step added to a script: ``step(cli)``."""


def hook_request(callback_id: str, event: str = "PreToolUse", tool_use_id: str = "toolu_h") -> Dict[str, Any]:
    """A ``hook_callback`` request shaped like the real CLI's (a ``Bash`` tool call)."""
    return {
        "subtype": "hook_callback",
        "callback_id": callback_id,
        "input": {
            "session_id": "fake-session",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "prompt_id": "p-1",
            "hook_event_name": event,
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": tool_use_id,
        },
        "tool_use_id": tool_use_id,
    }


def ask(request_id: str, request: Dict[str, Any], *, wait: bool = True, error: bool = False, timeout: float = 20) -> Step:
    """Send ``request`` as ``request_id``; wait for the answer (an error answer only with
    ``error``) unless ``wait`` is False (then ``wait_response`` collects it)."""
    return lambda cli: cli.ask_control(request, request_id=request_id, wait=wait, expect_error=error or None, timeout=timeout)


def turn_script(*steps: Any, **settings: Any) -> ScriptedCLI:
    """Wait for the user message, run ``steps`` (lists are flattened), end the turn. The CLI
    answers ``interrupt`` whenever it comes (and what ``auto_answers`` adds)."""
    settings["auto_answers"] = {"interrupt": None, **settings.get("auto_answers", {})}
    cli = ScriptedCLI(**settings).expect_user()
    for step in steps:
        for one in step if isinstance(step, list) else [step]:
            one(cli)
    return cli.result()


def responses(cli: Kit) -> Dict[str, Dict[str, Any]]:
    """Our control_responses to the CLI's requests, by request id (from the frames we wrote)."""
    found: Dict[str, Dict[str, Any]] = {}
    for frame in cli.stdin_frames():
        if frame.get("type") == "control_response":
            body = frame["response"]
            assert body["request_id"] not in found, f"two answers to {body['request_id']}"
            found[body["request_id"]] = body
    return found


# ----------------------------------------------------------------------------- processes (/proc)


def process_table() -> Dict[int, Tuple[int, str, str]]:
    """pid -> (ppid, state, cmdline) of every process on the host (Linux ``/proc``)."""
    table: Dict[int, Tuple[int, str, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), fields[0], cmdline)
    return table


def alive(pids: Iterable[int]) -> Set[int]:
    """Those of ``pids`` still running (a zombie counts as dead)."""
    table = process_table()
    return {pid for pid in pids if pid in table and table[pid][1] != "Z"}


def is_cli_process(cmdline: str, cli_path: str) -> bool:
    return cli_path in cmdline or Path(cli_path).resolve().as_posix() in cmdline


def clis_under(root: int, cli_path: str) -> Set[int]:
    """The live CLI processes descending from process ``root``."""
    table = process_table()
    found: Set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, (ppid, _, _) in table.items() if ppid in frontier}
        found |= children
        frontier = children
    return {pid for pid in found if is_cli_process(table[pid][2], cli_path) and table[pid][1] != "Z"}


def clis_with_home(home_root: Path, cli_path: str) -> Set[int]:
    """Every live CLI process on the host whose HOME is under ``home_root``."""
    found = set()
    for pid, (_, state, cmdline) in process_table().items():
        if state == "Z" or not is_cli_process(cmdline, cli_path):
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if f"HOME={home_root}".encode() in environ:
            found.add(pid)
    return found


class StallingResponder:
    """A fake-API responder: answers ``answer to <last word>``; the first request of a prompt
    holding ``stall`` waits for ``release`` (at most ``hold`` s), so a turn is in flight.
    ``stalled`` lists those prompts (their last line) in arrival order."""

    def __init__(self, hold: float = 120.0) -> None:
        self.release = threading.Event()
        self.hold = hold
        self.lock = threading.Lock()
        self.stalled: List[str] = []
        self.seen: Set[str] = set()

    def __call__(self, request: Any) -> Any:
        from claude_sync.testing.fake_api import text

        prompt = request.last_user_text.splitlines()[-1]  # after any <system-reminder> the CLI adds
        with self.lock:
            first = prompt not in self.seen
            self.seen.add(prompt)
            if first and "stall" in prompt:
                self.stalled.append(prompt)
        if first and "stall" in prompt:
            self.release.wait(self.hold)
        return text("answer to " + prompt.split()[-1])


def require_program(variable: str, name: str, install_hint: str) -> str:
    """The executable ``$variable`` names, else ``name`` on PATH: its path. Missing: a skip
    naming ``install_hint``, a *failure* under ``CI=true`` (``.ci/run`` installs it). Raises
    ``pytest.skip.Exception`` / ``pytest.fail.Exception``."""
    import shutil

    found = os.environ.get(variable) or shutil.which(name)
    if found and os.access(found, os.X_OK):
        return found
    reason = f"{name} not found (${variable} or PATH); install it: {install_hint}"
    if under_ci():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)
    raise AssertionError("unreachable")  # pragma: no cover


def package_module_name(path: Path) -> str:
    """The dotted module name of a file of the package (``claude_sync/_wire/__init__.py`` →
    ``claude_sync._wire``), for the tests that read the package's source."""
    import claude_sync

    parts = list(path.relative_to(Path(claude_sync.__file__).parent.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def fake_opentelemetry(monkeypatch: Any, traceparent: str) -> None:
    """An already loaded ``opentelemetry`` (for this test only) whose active span is
    ``traceparent``: what ``claude_sync._tracing.carrier`` reads, without the package."""
    package, propagate = types.ModuleType("opentelemetry"), types.ModuleType("opentelemetry.propagate")
    propagate.inject = lambda carrier: carrier.update(traceparent=traceparent)  # type: ignore[attr-defined]
    package.propagate = propagate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "opentelemetry", package)
    monkeypatch.setitem(sys.modules, "opentelemetry.propagate", propagate)
