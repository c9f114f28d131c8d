"""Integrations with engines users already run. Each submodule imports its engine; nothing
here is imported by ``import claude_sync``."""
