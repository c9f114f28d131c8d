"""Moved to ``claude_sync.testing.fake_api``; this name stays for the e2e tests."""

from claude_sync.testing.fake_api import *  # noqa: F401,F403
