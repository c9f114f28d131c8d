"""The application's settings, read from environment variables (the web app and the workers
read the same ones).

``DATABASE_URL``      PostgreSQL (``postgresql://user@host:5432/db``): the app's tables and the
                      session store (``PostgresSessionStore``) live there. Required.
``REDIS_URL``         Celery's broker (``redis://127.0.0.1:6379/0``). Required.
``CLAUDE_CLI_PATH``   The ``claude`` executable (default: the one the library finds).
``AGENT_WORKDIR``     The agent's working directory; the same path on every worker (the session
                      is filed under it). Required.
``APPROVAL_RULES``    Comma-separated rules of calls that wait for a person (default ``Bash``),
                      in the ``allowed_tools`` syntax: ``Bash(rm:*),Write``.
``SECRET_KEY``        Signs the session cookie that carries the CSRF token. Required, never shown.
``AGENT_TIMEOUT``     Seconds a run or a resume may take in a worker (default 600).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional, Tuple


class ConfigError(RuntimeError):
    """A required setting is missing or malformed (the message names it)."""


@dataclass(frozen=True)
class Config:
    database_url: str
    redis_url: str
    workdir: str
    secret_key: str
    cli_path: Optional[str]
    rules: Tuple[str, ...]
    agent_timeout: float

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Config:
        """Raises ``ConfigError`` naming the first missing or bad variable."""

        def need(name: str) -> str:
            value = env.get(name, "").strip()
            if not value:
                raise ConfigError(f"set {name} (see examples/approvals_app/README.md)")
            return value

        workdir = need("AGENT_WORKDIR")
        if not os.path.isabs(workdir):
            raise ConfigError(f"AGENT_WORKDIR must be an absolute path (every worker resumes there), got {workdir!r}")
        rules = tuple(rule.strip() for rule in env.get("APPROVAL_RULES", "Bash").split(",") if rule.strip())
        if not rules:
            raise ConfigError("APPROVAL_RULES names no rule: every tool call would run unasked")
        try:
            timeout = float(env.get("AGENT_TIMEOUT", "600"))
        except ValueError:
            raise ConfigError(f"AGENT_TIMEOUT must be a number of seconds, got {env.get('AGENT_TIMEOUT')!r}") from None
        if not timeout > 0:
            raise ConfigError(f"AGENT_TIMEOUT must be > 0, got {timeout}")
        return cls(
            database_url=need("DATABASE_URL"),
            redis_url=need("REDIS_URL"),
            workdir=workdir,
            secret_key=need("SECRET_KEY"),
            cli_path=env.get("CLAUDE_CLI_PATH") or None,
            rules=rules,
            agent_timeout=timeout,
        )
