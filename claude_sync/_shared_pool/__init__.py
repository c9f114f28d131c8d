"""The machine-wide warm pool (issue 41): a ``claude-sync serve`` process keeps warm CLIs per
spawn plan and lends them to any process of the same user over a Unix socket, passing the
CLI's pipe ends (``SCM_RIGHTS``) so the leaseholder talks to the CLI directly.

``paths`` (where the socket lives, and the checks on its directory), ``protocol`` (the
messages, pure), ``lease_client`` (the leaseholder's end of the socket), ``server`` (the pool
process), ``clis`` (one pooled CLI: spawn, reset, kill), ``command`` (``claude-sync serve`` and
``claude-sync pool …``). Nothing here is imported by ``import claude_sync``.
"""
