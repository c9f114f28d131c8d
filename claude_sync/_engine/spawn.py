"""From options to a started transport: the spawn plan (``mcp_servers_delivery="auto"`` decided by the CLI's version, then the extensions' ``prepare``: a
session store's resume, when there is one), private temp files for arguments too big for argv, the CLI subprocess, and the
``initialize`` handshake.

Runs on the caller's thread during ``connect``. Everything imported here is loaded on the
first connect only, not at ``import claude_sync``.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple

from .._options.argv import resolved_mcp_delivery
from .._options.command import FileArg, build_spawn_plan, find_cli, interpret_options, partition_mcp_servers
from .._options.options import ClaudeAgentOptions, SpawnCommand
from .._wire.errors import (
    ClaudeSDKError,
    CLIConnectionError,
    CLINotFoundError,
    ControlTimeoutError,
    ProcessError,
    ReceiveTimeoutError,
    UsageError,
)
from .extensions import Extensions
from .process import SubprocessTransport, stderr_sink
from .stand_in import route
from .transport import Transport

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan, SpawnPlan

__all__ = ["initialize", "materialize_argv", "plan_spawn", "routed_transport", "start_transport"]


def initialize(
    request: Callable[..., Dict[str, Any]], plan: SpawnPlan, run_timeout: Optional[float]
) -> Dict[str, Any]:
    """Send ``initialize`` with ``request`` (the session's control request) and return the
    answer, waiting at most ``plan.initialize_timeout`` — or ``run_timeout`` (the caller's
    bound on its whole run) when that is shorter: then raises ``ReceiveTimeoutError(kind=
    "total")`` instead of ``ControlTimeoutError``."""
    if run_timeout is None or run_timeout >= plan.initialize_timeout:
        return request("initialize", dict(plan.initialize_fields), timeout=plan.initialize_timeout)
    try:
        return request("initialize", dict(plan.initialize_fields), timeout=run_timeout)
    except ControlTimeoutError:
        raise ReceiveTimeoutError(
            f"No complete response within {run_timeout}s (the CLI did not finish starting)",
            kind="total",
            timeout=run_timeout,
        ) from None
def routed_transport(
    options: ClaudeAgentOptions, environ: Optional[Dict[str, str]], custom_transport: Optional[Transport]
) -> Tuple[Optional[Transport], Optional[str]]:
    """The transport a run uses and the CLI path it must spawn, after the testing kit's switch
    (``stand_in.route``): ``(custom_transport, None)`` when the caller gave one; else the
    stand-in's transport, or the path of the executable it names, or ``(None, None)`` to spawn
    as usual. Raises ``UnscriptedRunError`` (the switch is on and nothing stands in) and
    ``UsageError`` (a bad ``CLAUDE_SYNC_TESTING``, or ``spawn_command`` with a custom
    transport: it could not apply)."""
    if custom_transport is not None:
        if options.spawn_command is not None:
            raise UsageError("options.spawn_command starts the CLI, so it cannot apply to a custom transport")
        return custom_transport, None

    routed = route(options, environ if environ is not None else os.environ)
    if isinstance(routed, str):
        return None, routed
    return routed, None


def plan_spawn(
    options: ClaudeAgentOptions,
    plan: Optional[OptionsPlan],
    environ: Optional[Dict[str, str]],
    custom_transport: Optional[Transport],
    extensions: Extensions,
    cli_path: Optional[str] = None,
) -> SpawnPlan:
    """The spawn plan, from the options and their plan (``interpret_options`` when the caller
    made none) as the ``extensions`` prepared them (``ConnectionExtension.prepare``: a session
    store's resume re-plans them, the tracing extension adds the caller's trace context).

    With a custom transport only the protocol part of the plan is used (the options are
    still validated); the CLI path is a placeholder, so no CLI needs to be installed.
    ``cli_path``: spawn this executable instead of discovering one (the kit's switch).
    Raises ``CLINotFoundError``, what an extension's ``prepare`` raises (``SessionStoreError``
    …), ``ValueError``/``TypeError`` for options that cannot be carried out.
    """
    environ = environ if environ is not None else dict(os.environ)
    cli = "claude" if custom_transport is not None else cli_path or find_cli(options.cli_path)
    plan = plan if plan is not None else interpret_options(options)
    if options.mcp_servers_delivery == "auto" and custom_transport is None and options.spawn_command is None:
        options, plan = decide_mcp_delivery(options, plan, cli)
    spawned, prepared = extensions.prepare(options, plan, environ)
    return build_spawn_plan(spawned, cli, environ=environ, interpreted=prepared)


def decide_mcp_delivery(options: ClaudeAgentOptions, plan: OptionsPlan, cli: str) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
    """``mcp_servers_delivery="auto"`` decided for the CLI at ``cli``: ``"initialize"`` when it
    reports 2.1.326 or newer (``argv.resolved_mcp_delivery``), asked only when there are
    external servers to send. The plan (made with ``"auto"``, which plans as ``"argv"``) is
    redone for the argv and the ``initialize`` body only: the callbacks the request handlers
    were built from stay the same objects. Runs ``cli --version`` (bounded) at most once per
    binary and process."""
    servers = options.mcp_servers
    external = partition_mcp_servers(servers)[0] if isinstance(servers, Mapping) else {}
    if not external or resolved_mcp_delivery(options, cli_version_of(cli)) != "initialize":
        return options, plan
    decided = replace(options, mcp_servers_delivery="initialize")
    fresh = interpret_options(decided)
    return decided, replace(plan, cli_args=fresh.cli_args, initialize_fields=fresh.initialize_fields)


_VERSIONS: Dict[Tuple[str, int, int], Optional[Tuple[int, ...]]] = {}
"""``cli_version_of``'s answers by (real path, size, mtime): a binary replaced in place is
asked again."""

VERSION_TIMEOUT = 10.0
"""How long ``cli --version`` may take (a cold node CLI: ~0.6 s)."""


def cli_version_of(cli: str) -> Optional[Tuple[int, ...]]:
    """The version ``cli --version`` reports (``(2, 1, 333)``), or None when it cannot be run,
    overruns ``VERSION_TIMEOUT`` (killed by ``subprocess.run``) or prints no version. Never
    raises; cached per binary (see ``_VERSIONS``)."""
    path = shutil.which(cli) or cli
    try:
        real = os.path.realpath(path)
        stat = os.stat(real)
    except OSError:
        return None
    key = (real, stat.st_size, stat.st_mtime_ns)
    if key not in _VERSIONS:
        _VERSIONS[key] = _ask_version(real)
    return _VERSIONS[key]


def _ask_version(path: str) -> Optional[Tuple[int, ...]]:
    import subprocess  # runs the CLI: a leased connection never loads it

    try:
        done = subprocess.run([path, "--version"], capture_output=True, timeout=VERSION_TIMEOUT, check=False,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.match(rb"\s*(\d+)\.(\d+)\.(\d+)", done.stdout) if done.returncode == 0 else None
    return tuple(int(part) for part in found.groups()) if found else None


def start_transport(
    options: ClaudeAgentOptions,
    plan: SpawnPlan,
    custom_transport: Optional[Transport],
    temp_files: List[str],
) -> Transport:
    """``custom_transport``, or the CLI as a subprocess per ``plan``, connected.

    Big arguments (``FileArg``) become inherited memory files or private temp files
    (``materialize_argv``); the files are appended to ``temp_files`` (the caller removes
    them at close; at exit they go anyway). ``options.spawn_command`` then turns the command
    into the one to run (``custom_command``). Raises what ``connect`` raises, what
    ``spawn_command`` raises, and ``TypeError``/``ValueError``/``CLINotFoundError`` for what
    it returned.
    """

    transport = custom_transport
    if transport is None:
        argv, fds = materialize_argv(plan.argv, temp_files)
        env, cwd = plan.env, plan.cwd
        if options.spawn_command is not None:
            try:
                argv, env, cwd = custom_command(options.spawn_command, argv, env, cwd)
            except BaseException:
                for fd in fds:
                    os.close(fd)
                raise
        transport = SubprocessTransport(
            argv,
            env=env,
            cwd=cwd,
            user=plan.user,
            stderr_callback=stderr_sink(options),
            close_timeout=options.close_timeout,
            pass_fds=fds,
        )
    transport.connect()
    return transport


def custom_command(
    spawn_command: Callable[..., Any], argv: List[str], env: Optional[Dict[str, str]], cwd: Optional[str]
) -> Tuple[List[str], Dict[str, str], Optional[str]]:
    """``spawn_command(SpawnCommand(argv, env, cwd))``, checked: ``(argv, env, cwd)`` to run,
    with a bare program name resolved on the returned ``PATH``. Raises what the callable
    raises; ``TypeError`` when it returns something else than a ``SpawnCommand`` or one whose
    parts have the wrong types; ``ValueError`` for an empty argv or a NUL in it;
    ``CLINotFoundError`` when the program is not found."""
    built = SpawnCommand(argv=list(argv), env=dict(env if env is not None else os.environ), cwd=cwd)
    command = spawn_command(built)
    if not isinstance(command, SpawnCommand):
        raise TypeError(f"spawn_command must return a SpawnCommand (command.replace(...)), not {type(command).__name__}")
    new_argv, new_env, new_cwd = command.argv, command.env, command.cwd
    if not isinstance(new_argv, (list, tuple)) or not all(isinstance(item, str) for item in new_argv):
        raise TypeError("spawn_command returned an argv that is not a list of str")
    if not new_argv or any("\0" in item for item in new_argv):
        raise ValueError("spawn_command returned an empty argv or one with a NUL character")
    if not isinstance(new_env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in new_env.items()):
        raise TypeError("spawn_command returned an env that is not a dict of str to str")
    if new_cwd is not None and not isinstance(new_cwd, str):
        raise TypeError(f"spawn_command returned a cwd that is not a str or None: {new_cwd!r}")
    program = new_argv[0]
    if os.sep not in program:
        found = shutil.which(program, path=new_env.get("PATH", os.defpath))
        if found is None:
            raise CLINotFoundError(f"spawn_command's program {program!r} is not on its PATH", cli_path=program)
        program = os.path.abspath(found)
    return [program, *new_argv[1:]], dict(new_env), new_cwd


def materialize_argv(argv: List[Any], temp_files: List[str]) -> Tuple[List[str], List[int]]:
    """``argv`` as strings, and the fds the CLI must inherit. A ``FileArg`` with ``by_fd``
    becomes ``/dev/fd/N`` of a memory file where the system has them (its fd is in the
    second list: ``SubprocessTransport`` closes our copy once the CLI is spawned); any other
    ``FileArg`` becomes the path of a private temp file, appended to ``temp_files``. Raises
    ``OSError`` (nothing is left open then)."""
    out: List[str] = []
    fds: List[int] = []
    try:
        for arg in argv:
            if not isinstance(arg, FileArg):
                out.append(str(arg))
                continue
            from .tempfiles import make_private_file, memory_file  # a run with file arguments only

            fd = memory_file(arg.content) if arg.by_fd else None
            if fd is not None:
                fds.append(fd)
                out.append(f"/dev/fd/{fd}")
                continue
            path = make_private_file(arg.content, arg.suffix)
            temp_files.append(path)
            out.append(path)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return out, fds


def startup_failure(
    error: CLIConnectionError, transport: Optional[Transport], ended: Optional[BaseException], close_timeout: float
) -> ClaudeSDKError:
    """What the handshake's ``error`` means (connecting thread): when the CLI process has
    exited, a ``ProcessError`` with its exit code and stderr — one text whether the exit came
    before our ``initialize`` was written or while it waited (``ended``: the connection's
    terminal error); else ``error``."""
    if transport is None:
        return error
    if isinstance(ended, ProcessError):
        code, stderr = ended.exit_code, ended.stderr
    else:
        code = transport.wait(close_timeout)
        if code is None:  # still running: the connection broke some other way
            return error
        stderr = transport.stderr_tail()
    return ProcessError("Claude Code CLI exited during start-up", exit_code=code, stderr=stderr or None)
