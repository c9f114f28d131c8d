"""The engine: one live CLI connection and the threads around it.

``connection`` (the state table at the top) drives a ``transport`` — the subprocess
(``process``, reaped by ``child``) or ``memory`` — with a ``reader`` thread feeding a
``mailbox``, a futures table for our control requests, and ``serving`` of the CLI's requests on
the ``callback_pool`` (``dialogs`` for elicitation). Also: ``control_methods`` (typed control
requests), ``tempfiles``, ``wire_log``, ``notices``, ``tracing``, ``green`` (gevent). The modules
here that start threads or processes are listed in the layering test.
"""
