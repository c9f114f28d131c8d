"""The scripted CLI behind ``ScriptedCLI`` (private): the interpreter that plays a script over a
``Wire`` (``interpreter``), what each step does (``steps``), the lines it writes, shaped like the
real CLI's (``cli_lines``), how a client's frame is compared with the script (``match``) and the
in-process player (``in_process``: ``ScriptedTransport``). The subprocess player is the public
``claude_sync.testing.cli``; the user-facing API is ``claude_sync.testing.scripted``.
"""
