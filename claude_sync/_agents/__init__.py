"""Many agents: ``run()`` (``run``; its ``RunResult`` lives beside ``query()``, in
``claude_sync._result``), ``AgentPool`` (``pool``) with its ``RunFuture`` (``futures``) and the
policy for reusing a warm CLI (``reuse``).
"""
