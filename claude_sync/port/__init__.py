"""``claude_sync.port``: the codemod that ports code written for the official async SDK
(``claude_agent_sdk``, and the older ``claude_code_sdk``) to claude_sync.

Run it as ``python -m claude_sync.port [-w | --check] [--diff] FILE_OR_FOLDER…`` (without
``-w`` it writes nothing and prints a diff), or call ``port_source(text)`` for one module's
text. It rewrites what is mechanical (the imports,
``async``/``await``, ``asyncio.run``/``anyio.run``/``trio.run``, ``asyncio.sleep`` ->
``time.sleep`` …) and flags, with the line and the sync equivalent, what needs a human
(``asyncio.gather``, ``wait_for``, tasks, task groups …). Standard library only (``ast`` finds
the nodes, ``tokenize`` the exact places; the text is edited by position, so comments and
layout stay). ``import claude_sync`` does not import this package.

What lives here:

* ``engine``: ``port_source`` and its result types — the passes in order;
* ``official``, ``timeouts``, ``keywords``, ``awaits``, ``references``, ``cleanup``,
  ``markers``: the passes;
* ``rules``: what each asyncio / anyio / trio name becomes (the data);
* ``plan``, ``imports``, ``source``: the shared state, import statements, text positions;
* ``cli``, ``files``: the command line (diff, ``-w``, ``--check``, exit status) and the
  atomic file replacement (the only modules with I/O).
"""

from .engine import Finding, PortBug, PortResult, UnparsableSource, port_source

__all__ = ["Finding", "PortBug", "PortResult", "UnparsableSource", "port_source"]
