"""The caller's OpenTelemetry trace context, for the CLI to parent its spans under (I/O shell).

Only when the program already uses OpenTelemetry: ``opentelemetry`` is never imported here
unless it is already loaded, so programs without it pay nothing.
"""

from __future__ import annotations

import importlib
import sys
from typing import Dict, Optional

from .._redaction.redactor import redacted_logger

__all__ = ["trace_carrier"]

logger = redacted_logger(__name__)


def trace_carrier() -> Optional[Dict[str, str]]:
    """The W3C ``traceparent``/``tracestate`` of the active span (None without one).

    Runs on the thread that connects (the active span is per thread/context). Never raises:
    tracing must not break ``connect()``; a failure is logged at debug level.
    """
    if "opentelemetry" not in sys.modules:
        return None
    try:
        propagate = importlib.import_module("opentelemetry.propagate")  # untyped optional extra
        carrier: Dict[str, str] = {}
        propagate.inject(carrier)
    except Exception:  # noqa: BLE001 - best effort, like the official SDK
        logger.debug("could not read the OpenTelemetry trace context", exc_info=True)
        return None
    return carrier or None
