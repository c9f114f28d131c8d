"""Showing things to people: short reprs and HTML/Markdown renderings (``render``), secrets
kept out of them (``redaction``), the state of a watched run (``live``) and how our errors
read in a notebook (``tracebacks``). ``show()``, which drives a run and redraws it from a
thread, lives above ``query()`` (``claude_sync._show``).
"""
