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
``APP_PASSWORD``      The web app only: the shared password people sign in with before they can
                      see or decide anything (at least 16 characters). Required, never shown,
                      unless the web app is started as a loopback-only demo
                      (``python -m approvals_app.web --loopback-demo``).
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


PASSWORD_ENV = "APP_PASSWORD"
MIN_PASSWORD = 16


def web_password(env: Mapping[str, str] = os.environ, *, loopback_demo: bool = False) -> Optional[str]:
    """The password the web app asks for (``APP_PASSWORD``), or None for a loopback-only demo.
    Raises ``ConfigError`` when it is missing or shorter than ``MIN_PASSWORD`` characters
    (never quoting it), or set together with ``loopback_demo``."""
    password = env.get(PASSWORD_ENV, "")
    if loopback_demo:
        if password:
            raise ConfigError(f"{PASSWORD_ENV} is set: start the web app normally, not as a --loopback-demo")
        return None
    if not password.strip():
        raise ConfigError(
            f"set {PASSWORD_ENV} (at least {MIN_PASSWORD} characters): without it anyone who reaches the port decides; "
            "or try it on this machine only: python -m approvals_app.web --loopback-demo"
        )
    if len(password) < MIN_PASSWORD:
        raise ConfigError(f"{PASSWORD_ENV} is too short ({len(password)} characters; at least {MIN_PASSWORD})")
    return password
