"""The offline fake Anthropic API behind ``claude_sync.testing.fake_api`` (private): the
Messages API's requests and replies as data and their server-sent-event encoding
(``messages_api``). The server itself, and every public name, is ``claude_sync.testing.fake_api``.
"""
