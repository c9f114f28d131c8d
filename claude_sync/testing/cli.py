"""The scripted CLI as a real process: ``python -m claude_sync.testing.cli --script FILE
[--report-dir DIR] [CLI flags …]`` (a script is ``ScriptedCLI.script`` saved as JSON).

``ScriptedCLI.install(directory)`` writes the script and a small executable that runs this
module, and gives you its path for ``ClaudeAgentOptions(cli_path=…)``: the client then spawns
it exactly as it spawns the real ``claude`` (same argv, pipes, signals). The flags after ours
are the ones the client passed; they are recorded in the run's report (``argv``).

Each run writes ``DIR/run-<pid>.json`` (a ``RunReport``) after every step and at the end; a
SIGTERM (the client's close ladder) is recorded before the process exits 143.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from typing import Any, Dict, List, Optional

from ._scripted_cli.interpreter import ClientGone, RunReport, Wire, check_script_format
from ._scripted_cli.steps import script_runner

__all__ = ["main"]


class StdioWire(Wire):
    """stdin/stdout/stderr of this process. Main thread only."""

    def read_chunk(self, timeout: Optional[float]) -> Optional[bytes]:
        ready, _, _ = select.select([0], [], [], timeout)
        return os.read(0, 65536) if ready else None

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                written = os.write(1, view)
                view = view[written:]
        except (BrokenPipeError, OSError) as exc:
            raise ClientGone(str(exc)) from exc

    def stderr(self, text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def stall(self, seconds: float) -> bool:
        time.sleep(seconds)
        return False

    def finish(self, code: int) -> None:
        """Nothing here: ``main`` exits once the report is written."""

    def ignore_sigterm(self) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _write_report(path: str, report: RunReport) -> None:
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(report.to_json(), handle, default=str)
    os.replace(temporary, path)


def _file_arguments(argv: List[str]) -> Dict[str, str]:
    """The text of every argv value that names a small file (``--mcp-config``, ``--settings``
    temp files), read now: the client deletes them when it closes."""
    found: Dict[str, str] = {}
    for value in argv:
        try:
            if os.path.isfile(value) and os.path.getsize(value) <= 1 << 20:
                with open(value, encoding="utf-8") as handle:
                    found[value] = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
    return found


def main(argv: Optional[List[str]] = None) -> int:
    """Run the script; the exit code (the script's, ``SCRIPT_FAILED_EXIT``, or 143)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "--script":
        sys.stderr.write("usage: python -m claude_sync.testing.cli --script FILE [--report-dir DIR] [CLI flags]\n")
        return 2
    script_path, args = args[1], args[2:]
    report_dir: Optional[str] = None
    if len(args) >= 2 and args[0] == "--report-dir":
        report_dir, args = args[1], args[2:]
    with open(script_path, encoding="utf-8") as handle:
        script: Any = json.load(handle)
    check_script_format(script)
    report = RunReport(len(script["steps"]))
    report.argv = args
    report.argv_files = _file_arguments(report.argv)
    report_path = None if report_dir is None else os.path.join(report_dir, f"run-{os.getpid()}.json")

    def save(report: RunReport) -> None:
        if report_path is not None:
            _write_report(report_path, report)

    runner = script_runner(script, StdioWire(), report, on_change=save)

    def on_sigterm(signum: int, frame: Any) -> None:
        runner.on_terminated()
        save(report)
        os._exit(143)

    signal.signal(signal.SIGTERM, on_sigterm)
    save(report)
    code = runner.run()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
