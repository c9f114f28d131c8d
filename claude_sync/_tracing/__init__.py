"""OpenTelemetry for runs: spans of the library's own (a run, its tool calls, the callbacks it
served), the CLI's own spans joined to them, and metrics; only when the application uses
OpenTelemetry (``docs/tutorial/tracing.rst``)."""
