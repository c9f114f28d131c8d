"""Log lines for what the CLI reports in passing, so a silent wait is not silent in the logs.

``api_retry``: while the Anthropic API is unreachable or overloaded the CLI retries for minutes
(``CLAUDE_CODE_MAX_RETRIES``, 10 by default, with growing delays) and reports each attempt as a
``system/api_retry`` message. The reader thread logs each one at WARNING on the
``claude_sync.api`` logger, whether or not anybody iterates the messages.

``verbatim_prompts`` on a CLI too old to honour ``client_composed``: one WARNING after connect.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

from .._options.environment import verbatim_prompts_ignored
from .._redaction.redactor import redacted_logger
from .._wire.errors import ClaudeSDKError
from .extensions import ConnectionExtension, RequestFn

__all__ = ["log_api_retry", "warn_if_verbatim_prompts_ignored"]

logger = redacted_logger("claude_sync.api")


def log_api_retry(message: Any) -> None:
    """Reader thread: one WARNING for one ``APIRetryMessage`` (never raises)."""
    delay = message.retry_delay_ms
    delay_text = f"{delay / 1000:.1f}s" if isinstance(delay, (int, float)) else "an unknown delay"
    status = message.error_status
    # No status: no HTTP answer at all (2.1.197 says error "unknown" for a refused connection).
    status_text = f"HTTP {status}" if status is not None else "no HTTP response"
    logger.warning(
        "Claude API call failed (%s, error %s); the CLI retries in %s (attempt %s of %s)",
        status_text,
        message.error,
        delay_text,
        message.attempt,
        message.max_retries,
    )


def warn_if_verbatim_prompts_ignored(request: Callable[[str, Dict[str, Any]], Dict[str, Any]]) -> None:
    """Caller's thread, after connect: ask the CLI its version with ``request`` (a session's
    control request; only with ``verbatim_prompts``) and log a warning if it would ignore
    ``client_composed``, as the official SDK does. Never raises: an unanswered question only
    skips the check."""
    try:
        version = request("get_binary_version", {}).get("version")
    except ClaudeSDKError as exc:
        redacted_logger("claude_sync.session").debug("could not ask the CLI its version: %s", exc)
        return
    problem = verbatim_prompts_ignored(version)
    if problem is not None:
        redacted_logger("claude_sync.session").warning(problem)


class VerbatimPromptsCheck(ConnectionExtension):
    """With ``verbatim_prompts``: once connected, warn if this CLI ignores ``client_composed``."""

    def connected(self, request: RequestFn) -> None:
        warn_if_verbatim_prompts_ignored(request)
