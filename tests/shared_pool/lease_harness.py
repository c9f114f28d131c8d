"""A leased CLI without a pool, for the leaseholder's unit tests: the fake CLI
(``lease_fake_cli.py``) as a real subprocess with real pipes, and a real ``lease_client.Lease``
over one end of a socketpair; the test holds the other end (the "pool" side) and the CLI's
own pipe objects, as the pool would."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from claude_sync._shared_pool import protocol
from claude_sync._shared_pool.lease_client import Lease

FAKE_CLI = str(Path(__file__).with_name("lease_fake_cli.py"))


class FakeLease:
    """One fake CLI and one ``Lease`` of it (see the module docstring)."""

    def __init__(self, *, state: bool = False, cost_before: float = 0.0, usage_before: Optional[dict] = None,
                 prefix: bytes = b"") -> None:  # fmt: skip
        env = dict(os.environ, FAKE_STATE="1" if state else "0")
        self.proc = subprocess.Popen([sys.executable, FAKE_CLI], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)  # fmt: skip
        self.pool_end, ours = socket.socketpair()
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        fds = [os.dup(f.fileno()) for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr)]
        for fd in fds:
            os.set_inheritable(fd, False)
        answer = {"ok": True, "lease": "L1", "pid": self.proc.pid, "state": "cold", "runs": 0,
                  "cost_before": cost_before, "usage_before": usage_before, "prefix": protocol.b64(prefix)}  # fmt: skip
        self.lease = Lease(ours, protocol.LineReader(), answer, fds)
        self._received = protocol.LineReader()

    def returned(self, timeout: float = 10.0) -> Dict[str, Any]:
        """The ``return`` message the leaseholder sent (waits for it)."""
        self.pool_end.settimeout(timeout)
        messages: List[Dict[str, Any]] = []
        while not messages:
            data = self.pool_end.recv(65536)
            assert data, "the lease's connection closed without a return"
            messages = self._received.feed(data)
        return messages[0]

    def connection_closed(self, timeout: float = 10.0) -> bool:
        self.pool_end.settimeout(timeout)
        try:
            while True:
                if not self.pool_end.recv(65536):
                    return True
        except OSError:
            return True

    def exited(self, returncode: int) -> None:
        """The pool's exit notice."""
        self.pool_end.sendall(json.dumps({"event": "exited", "returncode": returncode}).encode() + b"\n")

    def turn(self, prompt: str) -> List[Dict[str, Any]]:
        """As the pool would after a give-back: write a prompt, read lines up to its result."""
        assert self.proc.stdin and self.proc.stdout
        frame = {"type": "user", "message": {"role": "user", "content": prompt}, "session_id": "default"}
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = json.loads(self.proc.stdout.readline())
            lines.append(line)
            if line.get("type") == "result":
                return lines

    def close(self) -> None:
        self.lease.give_back(False, "test over")
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.pool_end.close()
