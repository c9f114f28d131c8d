"""``claude-sync serve`` (the pool, in the foreground) and ``claude-sync pool status|stop``.

Loaded by the command line for these subcommands only. ``serve`` runs on the main thread until
SIGTERM, SIGINT or ``claude-sync pool stop``; exit status 0 after a clean stop, 1 when the
pool cannot start (another pool holds the socket's lock: its pid is named; a refused
directory), 2 for a usage error. ``pool status`` prints the pool's CLIs (``--json``: the status
answer as JSON) and exits 0, or 1 when no pool answers; ``pool stop`` asks the pool to stop.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from typing import Any, Dict, List, Optional, Sequence

from .errors import PoolUnavailable, SharedPoolError
from .lease_client import request
from .paths import resolve_socket_path
from .protocol import VERSION
from .server import Caps, SharedPool, configure_logging

__all__ = ["pool_main", "serve_main"]

REQUEST_TIMEOUT = 10.0


def _socket_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--socket", metavar="PATH", default=None,
                        help="the pool's socket (default: $CLAUDE_SYNC_SHARED_POOL when it is a path, else "
                             "$XDG_RUNTIME_DIR/claude_sync/pool.sock, else <tmp>/claude_sync-<uid>/pool.sock)")  # fmt: skip


def _path(option: Optional[str]) -> str:
    if option:
        return os.path.abspath(option)
    value = os.environ.get("CLAUDE_SYNC_SHARED_POOL", "")
    path = resolve_socket_path(os.environ, value if "/" in value else True)
    assert path is not None
    return path


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {text!r}")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text!r}")
    return value


def serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claude-sync serve",
                                     description="Run the machine-wide warm pool of Claude Code CLIs in the foreground "
                                                 "(until SIGTERM, Ctrl-C or `claude-sync pool stop`).")  # fmt: skip
    _socket_arg(parser)
    parser.add_argument("--max-clis", type=_count, default=4, metavar="N", help="most CLIs at once, all plans (default 4)")
    parser.add_argument("--max-memory-mb", type=_positive, default=None, metavar="M",
                        help="no new CLI while the CLIs' RSS (with their children) is over M MiB (default: no limit)")
    parser.add_argument("--spares", type=_count, default=1, metavar="K",
                        help="idle CLIs started ahead per plan after a lease (default 1; 0: none)")
    parser.add_argument("--idle-seconds", type=_positive, default=600.0, metavar="S",
                        help="retire a CLI idle this long (default 600)")
    parser.add_argument("--max-waiting", type=_count, default=256, metavar="W",
                        help="most lease requests waiting for a CLI; more are answered busy at once (default 256)")
    parser.add_argument("--max-runs", type=_count, default=100, metavar="R",
                        help="leases one CLI serves before it is retired (default 100)")
    parser.add_argument("--reset-timeout", type=_positive, default=30.0, metavar="S",
                        help="bound on one /clear reset; over it the CLI is killed (default 30)")
    parser.add_argument("--quiet", action="store_true", help="log warnings only (no line per CLI start/retire)")
    return parser


def serve_main(words: Sequence[str]) -> int:
    """``claude-sync serve …`` (main thread): the exit status."""
    try:
        args = serve_parser().parse_args(list(words))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        caps = Caps(max_clis=args.max_clis, max_memory_mb=args.max_memory_mb, spares=args.spares,
                    idle_seconds=args.idle_seconds, max_waiting=args.max_waiting, max_runs=args.max_runs,
                    reset_timeout=args.reset_timeout)  # fmt: skip
        pool = SharedPool(_path(args.socket), caps)
    except ValueError as exc:
        print(f"claude-sync serve: error: {exc}", file=sys.stderr)
        return 2
    configure_logging(30 if args.quiet else 20)
    previous = {}  # before start: a signal that comes as soon as the socket answers must stop the pool, not kill it
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous[signum] = signal.signal(signum, lambda *_: pool.request_stop())
    try:
        try:
            pool.start()
        except PoolUnavailable as exc:
            print(f"claude-sync serve: error: {exc.reason}", file=sys.stderr)
            return 1
        while not pool.wait(3600):
            pass
    finally:
        pool.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def pool_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claude-sync pool", description="Ask the shared pool how it is, or stop it.")
    _socket_arg(parser)
    parser.add_argument("action", choices=("status", "stop"))
    parser.add_argument("--json", action="store_true", help="status: the whole answer as one JSON object")
    return parser


def pool_main(words: Sequence[str]) -> int:
    """``claude-sync pool status [--json]`` / ``claude-sync pool stop``: the exit status (0,
    1 when no pool answers, 2 for a usage error)."""
    try:
        args = pool_parser().parse_args(list(words))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    path = _path(args.socket)
    try:
        answer = request(path, {"v": VERSION, "op": args.action}, REQUEST_TIMEOUT)
    except (PoolUnavailable, SharedPoolError) as exc:
        print(f"claude-sync pool: {exc}", file=sys.stderr)
        return 1
    if not answer.get("ok"):
        print(f"claude-sync pool: {answer.get('error')}: {answer.get('message')}", file=sys.stderr)
        return 1
    if args.action == "stop":
        print(f"claude-sync pool: asked the pool at {path} to stop")
        return 0
    print(json.dumps(answer, indent=2, sort_keys=True) if args.json else status_text(answer))
    return 0


def status_text(answer: Dict[str, Any]) -> str:
    """The status answer in lines (one per CLI)."""
    caps = answer.get("caps", {})
    clis: List[Dict[str, Any]] = answer.get("clis", [])
    total = sum(int(cli.get("rss_bytes") or 0) for cli in clis)
    lines = [
        f"pool pid {answer.get('pid')} at {answer.get('socket')}: {len(clis)}/{caps.get('max_clis')} CLIs, "
        f"{total / 1048576:.0f} MiB, {answer.get('waiting', 0)} waiting",
    ]
    for cli in clis:
        lines.append(f"  pid {cli.get('pid'):>7}  plan {cli.get('plan')}  {cli.get('state'):<9}  "
                     f"{(cli.get('rss_bytes') or 0) / 1048576:6.0f} MiB  runs {cli.get('runs'):>3}  "
                     f"age {cli.get('age_s')}s  cwd {cli.get('cwd')}")  # fmt: skip
    return "\n".join(lines)
