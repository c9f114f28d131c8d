"""The settings files the CLI will read, the environment it will really run with, and the
secrets both hold (pure; files are read through ``read_text``).

The real CLI lays the ``env`` block of every settings layer it loads over its process
environment, later layers winning: user < project < local < flag (``--settings``) <
managed. Checked with the real CLI (2.1.197 and 2.1.332; ``tests/kit/test_switch.py``): an
``ANTHROPIC_BASE_URL`` in any of them beats the one in ``options.env``, and
``setting_sources`` decides which of user / project / local are read.

The layers (``settings_layers``):

- user: ``$CLAUDE_CONFIG_DIR/settings.json``, else ``$HOME/.claude/settings.json`` (both
  from the environment the CLI gets);
- project: ``<cwd>/.claude/settings.json``; local: ``<cwd>/.claude/settings.local.json``
  (``cwd``: ``options.cwd``, else this process's);
- these three only when ``setting_sources`` is None (the CLI's default: all) or names them;
- flag: ``options.settings`` (JSON text, or a path relative to ``cwd``) and a ``settings``
  entry of ``extra_args``;
- managed: ``/etc/claude-code/managed-settings.json`` and ``managed-settings.d/*.json``
  (Linux), ``/Library/Application Support/ClaudeCode/…`` (macOS).

Not covered: settings the CLI fetches from a server (remote managed settings), and the
parent-directory lookup a CLI may do for project settings outside ``cwd``.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional

from .._redaction.secrets import remember_config, remember_env, remember_options
from .options import ClaudeAgentOptions

__all__ = ["SettingsLayer", "cli_environment", "read_utf8", "remember_run_secrets", "settings_layers"]

PROVIDER_SWITCHES = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY")
"""Variables that send the CLI's turns to a cloud provider instead of ``ANTHROPIC_BASE_URL``."""


class SettingsLayer(NamedTuple):
    """One settings source the CLI will load: its name, where it came from (a path, or
    ``"options.settings"``), its parsed object (None when it could not be read or parsed),
    and why not (``problem``)."""

    source: str
    origin: str
    settings: Optional[Dict[str, Any]]
    problem: Optional[str]


MAX_SETTINGS_BYTES = 16 * 1024 * 1024
"""A settings file larger than this is not read (counts as unreadable)."""


def read_utf8(path: str) -> str:
    """The text of the regular file at ``path`` (UTF-8, a BOM dropped), never blocking: a
    FIFO, a device or a file over ``MAX_SETTINGS_BYTES`` raises ``OSError`` instead of being
    read. Raises ``OSError`` (``FileNotFoundError`` when there is none), ``ValueError`` for
    text that is not UTF-8."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > MAX_SETTINGS_BYTES:
            raise OSError(f"{path} is larger than {MAX_SETTINGS_BYTES} bytes")
        data = handle.read(MAX_SETTINGS_BYTES + 1)
    return data.decode("utf-8-sig")


def _managed_paths() -> List[str]:
    base = "/Library/Application Support/ClaudeCode" if sys.platform == "darwin" else "/etc/claude-code"
    paths = [os.path.join(base, "managed-settings.json")]
    folder = os.path.join(base, "managed-settings.d")
    try:
        paths += [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".json")]
    except OSError:
        pass
    return paths


def _process_cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the working directory was removed: the CLI would fail to start anyway
        return "."


def _layer(source: str, origin: str, text: Optional[str]) -> SettingsLayer:
    if text is None:
        return SettingsLayer(source, origin, None, "cannot be read")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return SettingsLayer(source, origin, None, f"is not valid JSON ({exc})")
    if not isinstance(parsed, dict):
        return SettingsLayer(source, origin, None, "is not a JSON object")
    return SettingsLayer(source, origin, parsed, None)


def _file_layer(source: str, path: str, read_text: Callable[[str], str]) -> Optional[SettingsLayer]:
    """The layer at ``path``; None when there is no such file (the CLI skips it too)."""
    try:
        text = read_text(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return _layer(source, path, None)
    return _layer(source, path, text)


def settings_layers(
    options: ClaudeAgentOptions, env: Mapping[str, str], read_text: Callable[[str], str] = read_utf8
) -> List[SettingsLayer]:
    """The settings the CLI started with ``options`` and environment ``env`` will load, lowest
    precedence first (see the module docstring)."""
    cwd = os.fspath(options.cwd) if options.cwd is not None else _process_cwd()
    sources = options.setting_sources
    layers: List[Optional[SettingsLayer]] = []
    if sources is None or "user" in sources:
        config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")
        layers.append(_file_layer("user", os.path.join(config_dir, "settings.json"), read_text))
    if sources is None or "project" in sources:
        layers.append(_file_layer("project", os.path.join(cwd, ".claude", "settings.json"), read_text))
    if sources is None or "local" in sources:
        layers.append(_file_layer("local", os.path.join(cwd, ".claude", "settings.local.json"), read_text))
    extra = options.extra_args.get("settings") if isinstance(options.extra_args, Mapping) else None
    for given in (options.settings, extra):
        if given is None:
            continue
        if isinstance(given, Mapping):  # settings given as a dict: the settings object itself
            try:
                layers.append(SettingsLayer("flag", "options.settings", json.loads(json.dumps(given)), None))
            except (TypeError, ValueError, RecursionError) as exc:
                layers.append(SettingsLayer("flag", "options.settings", None, f"is not JSON ({exc})"))
            continue
        text = os.fspath(given).strip() if not isinstance(given, str) else given.strip()
        if text.startswith("{"):
            layers.append(_layer("flag", "options.settings", text))
        else:
            path = os.path.join(cwd, text)
            layers.append(_file_layer("flag", path, read_text) or _layer("flag", path, None))
    layers += [_file_layer("managed", path, read_text) for path in _managed_paths()]
    return [layer for layer in layers if layer is not None]


def cli_environment(
    options: ClaudeAgentOptions,
    environ: Mapping[str, str],
    read_text: Callable[[str], str] = read_utf8,
) -> Dict[str, str]:
    """The environment the CLI will make its requests with: ``environ`` with ``options.env``
    on top, then every loaded settings layer's ``env`` block (``settings_layers``)."""
    env = dict(environ)
    env.update((k, v) for k, v in options.env.items() if isinstance(k, str) and isinstance(v, str))
    for layer in settings_layers(options, env, read_text):
        block = layer.settings.get("env") if layer.settings is not None else None
        if isinstance(block, dict):
            env.update((str(k), str(v)) for k, v in block.items() if v is not None)
    return env


def remember_run_secrets(
    options: ClaudeAgentOptions, environ: Mapping[str, str], read_text: Callable[[str], str] = read_utf8
) -> None:
    """Put every secret a run of ``options`` holds into the redactor's registry
    (``_redaction.secrets``): the options' own (settings and MCP config files read), the
    secret variables of the inherited ``environ``, and the secrets of every settings file
    the CLI will load (``env`` blocks, ``apiKeyHelper`` …). Spawn planning calls it."""
    remember_options(options, read_text)
    remember_env(environ)
    env = dict(environ)
    env.update((k, v) for k, v in options.env.items() if isinstance(k, str) and isinstance(v, str))
    for layer in settings_layers(options, env, read_text):
        if layer.settings is not None:
            remember_config(layer.settings)
