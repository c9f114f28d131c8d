"""The caller's OpenTelemetry trace context, handed to the CLI: a connection extension (I/O shell).

The CLI parents its own spans under the W3C ``traceparent``/``tracestate`` it finds in its
environment (``claude_sync._options.environment`` puts them there; ``options.env`` wins).
The wiring adds ``TraceContext`` only when the program has already loaded
``opentelemetry``; nothing here imports it otherwise, so programs without it pay nothing.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Dict, Mapping, Optional, Tuple

from .._engine.extensions import ConnectionExtension
from .._redaction.redactor import redacted_logger

if TYPE_CHECKING:  # pragma: no cover
    from .._options.command import OptionsPlan
    from .._options.options import ClaudeAgentOptions

__all__ = ["TraceContext", "trace_carrier"]

logger = redacted_logger(__name__)


class TraceContext(ConnectionExtension):
    """Puts the connecting thread's active span into the plan (``OptionsPlan.trace_carrier``)."""

    def prepare(
        self, options: ClaudeAgentOptions, plan: OptionsPlan, environ: Mapping[str, str]
    ) -> Tuple[ClaudeAgentOptions, OptionsPlan]:
        """Connecting thread (the active span is per thread/context). Never raises."""
        carrier = trace_carrier()
        return options, (plan if carrier is None else replace(plan, trace_carrier=carrier))


def trace_carrier() -> Optional[Dict[str, str]]:
    """The W3C ``traceparent``/``tracestate`` of the active span (None without one).

    Never raises: tracing must not break ``connect()``; a failure is logged at debug level.
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
