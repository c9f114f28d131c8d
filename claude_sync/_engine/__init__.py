"""The engine: one live CLI connection and the threads around it.

``connection`` (the state table at the top) drives a ``transport`` — the subprocess
(``process``, reaped by ``child``) or ``memory`` — with a ``reader`` thread feeding a
``mailbox``, a futures table for our control requests, and ``serving`` of the CLI's requests on
the ``callback_pool``; what rides along a connection plugs in as ``extensions``. The engine
names no feature: which handlers serve the CLI's requests and which extensions a connection
gets is chosen by ``claude_sync._wiring``. Also: ``tempfiles``, ``wire_log``, ``notices``,
``tracing``, ``green`` (gevent). The modules here that start threads or processes are listed in the layering test.
"""
