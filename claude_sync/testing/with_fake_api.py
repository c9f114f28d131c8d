"""Run any command with the real ``claude`` CLI pointed at ``FakeAnthropicAPI``: your own
script, ``claude-sync``, a notebook, offline, with no account (I/O: a server and a child
process).

::

    python -m claude_sync.testing.with_fake_api python examples/quick_start.py "What is 2 + 2?"
    python -m claude_sync.testing.with_fake_api claude-sync "What is 2 + 2?"
    python -m claude_sync.testing.with_fake_api claude-sync doctor
    python -m claude_sync.testing.with_fake_api jupyter nbconvert --to notebook --execute examples/notebook.ipynb

It starts the fake API on 127.0.0.1, runs COMMAND with an environment that sends every CLI
that command starts to it (``ANTHROPIC_BASE_URL``, a fake ``ANTHROPIC_API_KEY``, a scratch
``CLAUDE_CONFIG_DIR``, your ``ANTHROPIC_*``/``CLAUDE*``/cloud/proxy variables removed, as
``offline.hermetic_env`` does; ``HOME`` stays, so the pinned CLI the installer cached is still
found), stops the server when COMMAND ends and exits with COMMAND's status (127: it could not
start). The fake is no model: every turn is answered with ``reply_for(prompt)``, a sentence
that says so and quotes the prompt. Main thread only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .fake_api import ApiRequest, FakeAnthropicAPI, Reply, text
from .offline import FAKE_API_KEY, LOOPBACK_NO_PROXY, QUIET_FLAGS, is_stripped

__all__ = ["USAGE", "fake_api_environ", "main", "prompt_of", "reply_for"]

USAGE = """usage: python -m claude_sync.testing.with_fake_api COMMAND [ARGS...]

Run COMMAND with every claude CLI it starts talking to claude_sync's fake Anthropic API on
127.0.0.1 (no account, no network; a scripted stand-in that quotes your prompt, not a model).
Exits with COMMAND's status. Examples:
  python -m claude_sync.testing.with_fake_api python examples/quick_start.py "What is 2 + 2?"
  python -m claude_sync.testing.with_fake_api claude-sync doctor
"""

NOT_STARTED_EXIT = 127


def prompt_of(request: ApiRequest) -> str:
    """The user's own words in the turn: the last text block that is not a CLI reminder."""
    message = request.last_user_message or {}
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    words = [
        block.get("text", "")
        for block in (blocks if isinstance(blocks, list) else [])
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    own = [text_ for text_ in words if text_.strip() and not text_.lstrip().startswith("<")]
    return (own or words or [""])[-1].strip()


def reply_for(request: ApiRequest) -> Reply:
    """The fake's answer to any turn: it says it is scripted and quotes the prompt."""
    prompt = prompt_of(request)
    quoted = prompt if len(prompt) <= 200 else prompt[:200] + "…"
    return text(f"(claude_sync's fake API, no model: you asked {quoted!r}; a real model would answer here.)")


def fake_api_environ(base_url: str, config_dir: str, environ: Dict[str, str]) -> Dict[str, str]:
    """``environ`` without what could reach a real service, plus what sends the CLI to
    ``base_url`` with ``config_dir`` as its ``CLAUDE_CONFIG_DIR``. Our ``CLAUDE_SYNC_*``
    settings stay."""
    env = {
        name: value
        for name, value in environ.items()
        if not is_stripped(name) or name.upper().startswith("CLAUDE_SYNC_")
    }
    env.update({flag: "1" for flag in QUIET_FLAGS})
    env.update(
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY=FAKE_API_KEY,
        CLAUDE_CONFIG_DIR=config_dir,
        CLAUDE_CODE_MAX_RETRIES="0",
        NO_PROXY=LOOPBACK_NO_PROXY,
        no_proxy=LOOPBACK_NO_PROXY,
    )
    return env


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``argv`` (default ``sys.argv[1:]``) against the fake API; its exit status."""
    command: List[str] = list(sys.argv[1:] if argv is None else argv)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command or command[0] in ("-h", "--help"):
        (sys.stdout if command else sys.stderr).write(USAGE)
        return 0 if command else 2
    with FakeAnthropicAPI(responder=reply_for, idle_timeout=None, lifetime=None) as api, \
            tempfile.TemporaryDirectory(prefix="claude_sync-fake-api-") as scratch:  # fmt: skip
        config_dir = Path(scratch) / ".claude"
        config_dir.mkdir()
        env = fake_api_environ(api.base_url, str(config_dir), dict(os.environ))
        sys.stderr.write(f"with_fake_api: the fake Anthropic API at {api.base_url} (scripted, no model); "
                         f"running {' '.join(command)}\n")  # fmt: skip
        sys.stderr.flush()
        try:
            child = subprocess.Popen(command, env=env)
        except OSError as exc:
            sys.stderr.write(f"with_fake_api: could not start {command[0]!r}: {exc.strerror or exc}\n")
            return NOT_STARTED_EXIT
        try:
            return child.wait()
        except KeyboardInterrupt:  # the terminal sent SIGINT to the child too: let it finish
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            return 130


if __name__ == "__main__":
    sys.exit(main())
