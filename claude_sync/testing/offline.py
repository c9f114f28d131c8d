"""Run the **real** ``claude`` CLI offline: against ``FakeAnthropicAPI`` on 127.0.0.1, in a
scratch HOME, with no key, provider or proxy of yours reaching it.

::

    from claude_sync import query
    from claude_sync.testing import FakeAnthropicAPI, offline_options, scrubbed_environ, text

    with FakeAnthropicAPI([text("4")]) as api, scrubbed_environ():
        options = offline_options(api, "/tmp/scratch")     # cli_path, env, cwd filled in
        for message in query("What is 2 + 2?", options=options):
            print(message)

* ``find_offline_cli()``: which binary (``$CLAUDE_SYNC_TEST_CLI``, else the pinned version's
  cache install, else None).
* ``hermetic_env(home, base_url, **extra)``: the child's environment (fresh HOME and XDG
  folders, a fake key, every request to ``base_url``, the quiet flags).
* ``scrubbed_environ()``: a context manager that takes ``ANTHROPIC_*``, ``CLAUDE*``, cloud
  provider and proxy variables out of ``os.environ`` for its duration. Needed because the
  library builds the child's environment as ``os.environ`` overlaid with ``options.env``:
  ``options.env`` can add and replace, never remove. (It changes the process environment, so
  use it from one thread, e.g. a test.)
* ``offline_options(api, home, **fields)``: ``ClaudeAgentOptions`` with all of the above.

Facts that shape this (CLI 2.1.197): run as root the CLI refuses ``bypassPermissions`` unless
``IS_SANDBOX=1``; ``CLAUDE_CODE_MAX_RETRIES=0`` means one request and no ``api_retry``.
Standard library only (plus claude_sync itself).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Union

from .. import ClaudeAgentOptions, CLINotFoundError
from .._options import discovery

if TYPE_CHECKING:
    from .fake_api import FakeAnthropicAPI

__all__ = [
    "FAKE_API_KEY",
    "INSTALL_COMMAND",
    "PINNED_CLI_VERSION",
    "default_cli_path",
    "find_offline_cli",
    "hermetic_env",
    "is_stripped",
    "offline_options",
    "scrubbed_environ",
]

PINNED_CLI_VERSION = os.environ.get("CLAUDE_SYNC_CLI_VERSION") or discovery.PINNED_CLI_VERSION
"""The CLI version the kit (and our e2e tests) expect; ``.ci/install_cli.sh`` honours the same
override."""

FAKE_API_KEY = "sk-ant-fake-e2e-0000000000000000"

STRIPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "AWS_", "GOOGLE_", "VERTEX_", "OTEL_", "DEBUG")
STRIPPED_NAMES = frozenset(
    {"NODE_OPTIONS", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "NO_PROXY"}
)
LOOPBACK_NO_PROXY = "127.0.0.1,localhost,::1"
QUIET_FLAGS = (
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "DISABLE_BUG_COMMAND",
    "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL",
)


def default_cli_path(version: str = PINNED_CLI_VERSION) -> Path:
    """Where the pinned install of ``version`` lives: ``$CLAUDE_SYNC_CLI_CACHE`` (default
    ``~/.cache/claude_sync/cli``) ``/<version>/node_modules/.bin/claude``."""
    cache = os.environ.get("CLAUDE_SYNC_CLI_CACHE") or str(
        Path.home() / ".cache" / "claude_sync" / "cli"
    )
    return Path(cache) / version / "node_modules" / ".bin" / "claude"


INSTALL_COMMAND = (
    f"npm install --no-audit --no-fund --prefix {default_cli_path().parents[2]} "
    f"@anthropic-ai/claude-code@{PINNED_CLI_VERSION}"
    "  (from a claude_sync checkout: bash .ci/install_cli.sh;"
    " or point CLAUDE_SYNC_TEST_CLI at any claude binary)"
)
"""How to get the binary ``find_offline_cli`` looks for (shown when it is missing)."""


def find_offline_cli() -> Optional[str]:
    """The real CLI to run offline: ``$CLAUDE_SYNC_TEST_CLI`` if set, else the cached install
    of the pinned version if it exists, else None. Never raises."""
    explicit = os.environ.get("CLAUDE_SYNC_TEST_CLI")
    if explicit:
        return explicit
    cached = default_cli_path()
    return str(cached) if cached.exists() else None


def is_stripped(name: str) -> bool:
    """Whether the environment variable ``name`` is kept away from an offline CLI."""
    upper = name.upper()
    return upper.startswith(STRIPPED_PREFIXES) or upper in STRIPPED_NAMES


def hermetic_env(
    home: Union[str, Path], base_url: str, **extra: Optional[Union[str, int]]
) -> Dict[str, str]:
    """The environment for a real CLI talking only to ``base_url`` (the fake API).

    ``home / "home"`` becomes HOME (created, with ``.claude``, XDG folders and TMPDIR under
    it). Inherited variables that could reach a real service or change the CLI
    (``ANTHROPIC_*``, ``CLAUDE*``, ``AWS_*``, ``GOOGLE_*``, ``VERTEX_*``, ``OTEL_*``,
    ``DEBUG*``, ``NODE_OPTIONS``, proxies) are removed. ``extra`` sets more variables (ints
    become strings; ``None`` removes one), e.g. ``CLAUDE_CODE_MAX_RETRIES=0``.
    """
    root = Path(home) / "home"
    folders = {
        "CLAUDE_CONFIG_DIR": root / ".claude",
        "TMPDIR": root / "tmp",
        "XDG_CONFIG_HOME": root / ".config",
        "XDG_CACHE_HOME": root / ".cache",
        "XDG_DATA_HOME": root / ".local" / "share",
        "XDG_STATE_HOME": root / ".local" / "state",
        "XDG_RUNTIME_DIR": root / ".run",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    folders["XDG_RUNTIME_DIR"].chmod(0o700)
    env = {name: value for name, value in os.environ.items() if not is_stripped(name)}
    env.update({name: str(path) for name, path in folders.items()})
    env.update({flag: "1" for flag in QUIET_FLAGS})
    env.update(
        HOME=str(root),
        ANTHROPIC_API_KEY=FAKE_API_KEY,
        ANTHROPIC_BASE_URL=base_url,
        NO_PROXY=LOOPBACK_NO_PROXY,
        no_proxy=LOOPBACK_NO_PROXY,
    )
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


@contextlib.contextmanager
def scrubbed_environ() -> Iterator[Dict[str, str]]:
    """Take the variables ``is_stripped`` names out of ``os.environ``; put them back on exit.

    Our own ``CLAUDE_SYNC_*`` settings (which CLI to use, where the cache is) stay. Yields
    what was removed. Not thread-safe (it edits the process environment).
    """
    removed = {
        name: os.environ.pop(name)
        for name in list(os.environ)
        if is_stripped(name) and not name.upper().startswith("CLAUDE_SYNC_")
    }
    try:
        yield removed
    finally:
        os.environ.update(removed)


def offline_options(
    api: FakeAnthropicAPI,
    home: Union[str, Path],
    *,
    cli_path: Optional[str] = None,
    env: Optional[Dict[str, Any]] = None,
    **fields: Any,
) -> ClaudeAgentOptions:
    """``ClaudeAgentOptions`` for the real CLI against ``api``, HOME under ``home``.

    ``cli_path`` defaults to ``find_offline_cli()``; ``env`` adds variables on top of
    ``hermetic_env`` (default ``CLAUDE_CODE_MAX_RETRIES=0``); ``cwd`` defaults to
    ``home/"work"`` (created). Any other ``fields`` go to ``ClaudeAgentOptions``.
    Combine with ``scrubbed_environ()`` so nothing of yours leaks in.

    Raises ``CLINotFoundError`` (naming ``INSTALL_COMMAND``) when no CLI is found.
    """
    path = cli_path or find_offline_cli()
    if path is None:
        raise CLINotFoundError(
            f"no claude CLI {PINNED_CLI_VERSION} for offline runs at {default_cli_path()}; "
            f"install it: {INSTALL_COMMAND}"
        )
    extra: Dict[str, Any] = {"CLAUDE_CODE_MAX_RETRIES": 0}
    extra.update(env or {})
    if "cwd" not in fields:
        work = Path(home) / "work"
        work.mkdir(parents=True, exist_ok=True)
        fields["cwd"] = str(work)
    return ClaudeAgentOptions(cli_path=path, env=hermetic_env(home, api.base_url, **extra), **fields)
