"""Showing things to people, pure renderers only: short reprs and HTML/Markdown renderings
(``render``), the state of a watched run (``live``) and how our errors read in a notebook
(``tracebacks``). ``show()``, which drives a run and redraws it from a thread, lives above
``query()`` (``claude_sync._show``); secrets are kept out by the redactor below the wire
(``claude_sync._redaction``).
"""
