"""A real OTLP/HTTP trace receiver on loopback, for the tests that check the CLI's own spans:
it decodes the protobuf (or JSON) ``ExportTraceServiceRequest`` bodies the exporters POST to
``/v1/traces`` (``opentelemetry-proto``), and keeps every span as a plain dict.

    with OtlpReceiver() as receiver:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.endpoint
        ...
        spans = receiver.wait_for(lambda spans: any(s["name"] == "claude_code.llm_request" for s in spans), timeout=30)
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional


def _hex(value: Any) -> Optional[str]:
    return value.hex() if isinstance(value, bytes) and value else None


def spans_of_protobuf(body: bytes) -> List[Dict[str, Any]]:
    """The spans of one protobuf ``ExportTraceServiceRequest``."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        service = {kv.key: kv.value.string_value for kv in resource_spans.resource.attributes}.get("service.name")
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "name": span.name, "trace": _hex(span.trace_id), "id": _hex(span.span_id),
                    "parent": _hex(span.parent_span_id), "service": service,
                    "attributes": {kv.key: _value(kv.value) for kv in span.attributes},
                })  # fmt: skip
    return spans


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return None if kind is None else getattr(value, kind) if kind != "array_value" else [_value(v) for v in value.array_value.values]


class OtlpReceiver:
    """The receiver (``start``/``stop``, or a ``with`` block); ``spans`` is what arrived."""

    def __init__(self) -> None:
        self.spans: List[Dict[str, Any]] = []
        self.requests = 0
        self._lock = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path.endswith("/v1/traces"):
                    if "json" in (self.headers.get("content-type") or ""):
                        raise ValueError("JSON OTLP is not decoded here: the CLI sends protobuf by default")
                    receiver._add(spans_of_protobuf(body))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="otlp-receiver", daemon=True)

    @property
    def endpoint(self) -> str:
        """``http://127.0.0.1:PORT`` (the OTLP/HTTP base: exporters add ``/v1/traces``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _add(self, spans: List[Dict[str, Any]]) -> None:
        with self._lock:
            self.requests += 1
            self.spans.extend(spans)
            self._lock.notify_all()

    def wait_for(self, condition: Callable[[List[Dict[str, Any]]], bool], timeout: float) -> List[Dict[str, Any]]:
        """The spans, once ``condition(spans)`` holds; raises ``TimeoutError`` with what came."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not condition(list(self.spans)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"OTLP receiver: condition not met in {timeout}s; got {json.dumps(self.spans)[:3000]}")
                self._lock.wait(left)
            return list(self.spans)

    def start(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
