"""Options: ``ClaudeAgentOptions`` and what they mean, worked out once.

The dataclass and its config shapes (``options``, ``config_types``), checks at construction
(``validation``), the spawn plan — argv, initialize
body, environment, where the binary is (``command``, ``argv``, ``environment``, ``discovery``) —
the ``allowed_tools`` rules options imply (``tool_rules``) and what can be pickled (``portable``).
All pure: lookups of the file system and environment are injected.
"""
