"""What ``claude-sync doctor`` concludes from what it found (pure: facts in, findings out).

A ``Finding`` is one line of the report: ``ok``, ``warn``, ``FAIL`` or ``info``, a topic, the
words, and for a ``FAIL`` the exit status it stands for (the doctor exits with the first).
``version_finding`` puts the CLI's version against the range this release was tested with;
``environment_findings`` lists the variables that change how the CLI behaves (proxies, keys,
base URLs, ``CLAUDE_CODE_*`` …) with every secret redacted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Mapping, Optional, Tuple

from .._redaction.redactor import redact, redact_text
from .exit_codes import CLI_TOO_OLD

__all__ = ["OK", "FAIL", "INFO", "WARN", "Finding", "environment_findings", "parse_version", "version_finding"]

OK, WARN, FAIL, INFO = "ok", "warn", "FAIL", "info"

OLDEST_TESTED_CLI = "2.1.197"
"""The oldest ``claude`` this release was tested with (the pinned CLI of the e2e suite)."""

BEHAVIOUR_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "DISABLE_", "AWS_", "GOOGLE_", "VERTEX_", "CLOUD_ML_", "OTEL_", "MCP_")
BEHAVIOUR_NAMES = frozenset({
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS",
    "NODE_TLS_REJECT_UNAUTHORIZED", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "DEBUG",
    "MAX_THINKING_TOKENS", "API_TIMEOUT_MS", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS",
    "USE_BUILTIN_RIPGREP", "IS_SANDBOX",
})  # fmt: skip
"""Variables the CLI (or Node under it) reads: proxies, certificates, keys, providers, limits."""


@dataclass(frozen=True)
class Finding:
    """One line of the doctor's report; ``code`` is the exit status a ``FAIL`` stands for."""

    level: str
    topic: str
    text: str
    code: Optional[int] = None


def parse_version(text: Optional[str]) -> Optional[Tuple[int, int, int]]:
    """``"2.1.332 (Claude Code)"`` → ``(2, 1, 332)``; None when there is no version in it."""
    match = re.match(r"\s*(\d{1,9})\.(\d{1,9})\.(\d{1,9})", text or "")
    return None if match is None else (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def _dotted(version: Tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def version_finding(reported: str, newest_tested: str) -> Finding:
    """``reported`` (``claude --version``'s first line) against ``OLDEST_TESTED_CLI`` …
    ``newest_tested``: older is a ``FAIL`` (exit ``CLI_TOO_OLD``), newer a warning."""
    version = parse_version(reported)
    oldest, newest = parse_version(OLDEST_TESTED_CLI), parse_version(newest_tested)
    tested = f"{OLDEST_TESTED_CLI} … {newest_tested}"
    if version is None or oldest is None or newest is None:
        return Finding(WARN, "version", f"{reported!r} has no version number in it (tested with {tested})")
    if version < oldest:
        return Finding(FAIL, "version", f"{_dotted(version)} is older than {OLDEST_TESTED_CLI}, the oldest this "
                       "release supports: update it (npm install -g @anthropic-ai/claude-code@latest)", CLI_TOO_OLD)
    if version > newest:
        return Finding(WARN, "version", f"{_dotted(version)} is newer than this release was tested with ({tested}); "
                       "it should work, and a failure is worth a report")
    return Finding(OK, "version", f"{reported} (tested with {tested})")


def _matters(name: str) -> bool:
    upper = name.upper()
    return upper in BEHAVIOUR_NAMES or upper.startswith(BEHAVIOUR_PREFIXES)


def environment_findings(environ: Mapping[str, str]) -> List[Finding]:
    """An ``info`` line per variable that changes the CLI's behaviour, values redacted
    (secret-named ones entirely, credentials inside URLs and tokens inside values)."""
    chosen = {name: value for name, value in environ.items() if _matters(name)}
    shown = redact(chosen)
    findings = [Finding(INFO, "environment", f"{name}={redact_text(str(shown[name]))}") for name in sorted(shown)]
    if not any(name.upper().endswith("_PROXY") for name in chosen):
        findings.append(Finding(INFO, "environment", "no proxy variables set"))
    return findings
