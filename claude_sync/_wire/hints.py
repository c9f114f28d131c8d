"""One-line hints for the failures a newcomer meets first (pure, no I/O).

The CLI's own text stays as it is; ``hint_for(result)`` adds what to *do*. What each case
looks like on the wire (CLI 2.1.197 and 2.1.330, observed against the fake API; the CLI
sends a synthetic ``AssistantMessage`` with ``error`` set, then a ``result`` with
``is_error`` true and — for API failures — ``subtype == "success"``):

====================  ==========================================================  ======
case                  the result's text                                           status
====================  ==========================================================  ======
not logged in         ``Not logged in · Please run /login``                       —
invalid API key       ``Invalid API key · Fix external API key``                  401
API unreachable       2.1.197 ``API Error: Unable to connect to API               —
                      (ConnectionRefused)``; 2.1.330 ``API Error: Connection
                      refused — a firewall or proxy may be blocking it
                      (ECONNREFUSED)``
model not found       ``There's an issue with the selected model (<model>). It    404
                      may not exist or you may not have access to it.``
budget exceeded       ``subtype == "error_max_budget_usd"``, ``errors`` ``Reached  —
                      maximum budget ($…)``
max turns             ``subtype == "error_max_turns"``                            —
overloaded            ``API Error: 529 Overloaded. …``                            529
====================  ==========================================================  ======
"""

from __future__ import annotations

import re
from typing import Any, List, Optional

__all__ = ["hint_for"]

NOT_LOGGED_IN = (
    "you are not logged in: run `claude` once in a terminal and log in (/login), "
    "or set ANTHROPIC_API_KEY (in the environment or ClaudeAgentOptions.env)"
)
INVALID_KEY = (
    "the API key was refused: check ANTHROPIC_API_KEY (environment or ClaudeAgentOptions.env), "
    "or unset it to use your `claude` login"
)
UNREACHABLE = (
    "the API could not be reached: check the network and any proxy, and ANTHROPIC_BASE_URL "
    "if you set one"
)
MODEL_NOT_FOUND = (
    "check ClaudeAgentOptions.model (and fallback_model): the name may be wrong or your "
    "account may not have access to that model"
)
BUDGET = "the run reached ClaudeAgentOptions.max_budget_usd: raise it (or leave it unset) to let runs go further"
MAX_TURNS = "the run reached ClaudeAgentOptions.max_turns: raise it to let the agent take more turns"
OVERLOADED = "the API is overloaded or rate-limited: this is usually temporary; try again shortly"

_UNREACHABLE_TEXT = re.compile(
    r"unable to connect|connection refused|econnrefused|enotfound|getaddrinfo|etimedout|"
    r"network error|socket hang up|connection error",
    re.I,
)


def hint_for(result: Any) -> Optional[str]:
    """What to do about an error ``ResultMessage``, or None when there is nothing to add."""
    if not getattr(result, "is_error", False):
        return None
    subtype = getattr(result, "subtype", "")
    if subtype == "error_max_budget_usd":
        return BUDGET
    if subtype == "error_max_turns":
        return MAX_TURNS
    text = " ".join(_texts(result))
    status = getattr(result, "api_error_status", None)
    lowered = text.lower()
    if "not logged in" in lowered:
        return NOT_LOGGED_IN
    if status == 401 or "invalid api key" in lowered:
        return INVALID_KEY
    if status == 404 or "issue with the selected model" in lowered:
        return MODEL_NOT_FOUND
    if status in (429, 529) or "overloaded" in lowered:
        return OVERLOADED
    if _UNREACHABLE_TEXT.search(text):
        return UNREACHABLE
    return None


def _texts(result: Any) -> List[str]:
    texts = []
    if isinstance(getattr(result, "result", None), str):
        texts.append(result.result)
    errors = getattr(result, "errors", None)
    if isinstance(errors, list):
        texts.extend(item for item in errors if isinstance(item, str))
    return texts
