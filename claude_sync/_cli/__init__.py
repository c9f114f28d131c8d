"""The command line, ``claude-sync "prompt"`` / ``python -m claude_sync``: ``arguments`` maps the
command line to a request and ``ClaudeAgentOptions`` (pure), ``exit_codes`` names the exit
status of every outcome (pure), ``output`` turns messages into printed lines (pure), and
``shell`` reads the prompt, runs ``query()`` and streams what it prints (I/O).
"""
