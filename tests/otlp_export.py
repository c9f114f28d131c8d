"""A minimal OTLP/HTTP protobuf span exporter for the tests that send the application's spans
to a real backend (Arize Phoenix): the SDK's ``ReadableSpan`` encoded with
``opentelemetry-proto`` and POSTed to ``<endpoint>/v1/traces`` — what
``opentelemetry-exporter-otlp-proto-http`` does, without adding that package to the test venv.
"""

from __future__ import annotations

import urllib.request
from typing import Any, Sequence


def _any_value(value: Any) -> Any:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue

    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, (list, tuple)):
        return AnyValue(array_value=ArrayValue(values=[_any_value(item) for item in value]))
    return AnyValue(string_value=str(value))


def _key_values(attributes: Any) -> Any:
    from opentelemetry.proto.common.v1.common_pb2 import KeyValue

    return [KeyValue(key=key, value=_any_value(value)) for key, value in dict(attributes or {}).items()]


def encode(spans: Sequence[Any]) -> bytes:
    """One ``ExportTraceServiceRequest`` holding ``spans`` (``ReadableSpan``), as protobuf."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

    request = ExportTraceServiceRequest()
    for span in spans:
        context = span.context
        encoded = Span(
            trace_id=context.trace_id.to_bytes(16, "big"), span_id=context.span_id.to_bytes(8, "big"),
            parent_span_id=span.parent.span_id.to_bytes(8, "big") if span.parent else b"",
            name=span.name, kind=span.kind.value + 1, start_time_unix_nano=span.start_time,
            end_time_unix_nano=span.end_time, attributes=_key_values(span.attributes),
            status=Status(code=span.status.status_code.value),
        )  # fmt: skip
        request.resource_spans.append(ResourceSpans(
            resource=Resource(attributes=_key_values(span.resource.attributes)),
            scope_spans=[ScopeSpans(spans=[encoded])],
        ))  # fmt: skip
    return request.SerializeToString()


class OtlpHttpExporter:
    """A ``SpanExporter`` posting each batch to ``endpoint`` + ``/v1/traces`` (10 s timeout)."""

    def __init__(self, endpoint: str) -> None:
        self.url = endpoint.rstrip("/") + "/v1/traces"

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        request = urllib.request.Request(self.url, data=encode(spans), headers={"Content-Type": "application/x-protobuf"})
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - loopback only
            return SpanExportResult.SUCCESS if answer.status == 200 else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
