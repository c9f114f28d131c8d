"""Showing things to people: short reprs and HTML/Markdown renderings (``render``), secrets
kept out of them (``redaction``), the state of a watched run (``live``), ``show()``
(``show``, the one module here with a thread) and how our errors read in a notebook
(``tracebacks``).
"""
