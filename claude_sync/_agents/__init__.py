"""Many agents: ``run()`` and ``RunResult`` (``run``), ``AgentPool`` (``pool``) with its
``RunFuture`` (``futures``), its CLIs (``slots``) and the policy for reusing a warm CLI (``reuse``).
"""
