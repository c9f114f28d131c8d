"""``claude_sync.testing``: test your own code without an account or a network.

* ``ScriptedCLI``: say step by step what the CLI says, asks and expects; run your code against
  it in-process (``transport()``) or as a real subprocess (``install()`` -> ``cli_path``);
  ``verify()`` says which step was not followed. ``ScriptedCLI.answer("4")`` is a whole run.
* The switch (``use_scripted_cli``, ``no_real_cli``, the ``claude_cli`` fixture,
  ``CLAUDE_SYNC_TESTING=block``): every run in the process plays a script or fails with
  ``UnscriptedRunError`` — it never reaches the real CLI by accident.
* Record and replay: ``recording_transport`` / ``RecordingTransport`` write a real session to
  JSONL (secrets redacted); ``ScriptedCLI.from_recording`` replays it and checks your frames.
* The real CLI, offline: ``FakeAnthropicAPI`` with ``text``/``tool_use``/``thinking``/``error``
  replies, ``offline_options``, ``hermetic_env``, ``scrubbed_environ``, ``find_offline_cli``.
* Assertions: ``texts``, ``tool_uses``, ``result_of``, ``assert_result``.
* The pytest plugin (``claude_sync.testing.pytest_plugin``, registered through ``pytest11``):
  fixtures ``claude_cli`` and ``claude_offline``.

Nothing here is imported by ``import claude_sync``, and nothing here imports pytest unless
you use the pytest plugin. Each public name loads its module on first use (PEP 562), so
``from claude_sync.testing import X`` costs only what ``X`` needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Dict

_LAZY: Dict[str, str] = {
    # name -> module (relative to this package) that defines it; one entry per public name
    # the real CLI, offline: a fake Anthropic Messages API on 127.0.0.1 and its environment
    "FakeAnthropicAPI": ".fake_api",
    "ApiRequest": ".fake_api",
    "Reply": ".fake_api",
    "ErrorReply": ".fake_api",
    "text": ".fake_api",
    "tool_use": ".fake_api",
    "thinking": ".fake_api",
    "reply": ".fake_api",
    "error": ".fake_api",
    "large_text": ".fake_api",
    "find_offline_cli": ".offline",
    "hermetic_env": ".offline",
    "offline_options": ".offline",
    "scrubbed_environ": ".offline",
    "INSTALL_COMMAND": ".offline",
    "PINNED_CLI_VERSION": ".offline",
    # the scripted CLI: in-process (transport()) or as a subprocess (install() -> cli_path)
    "ScriptedCLI": ".scripted",
    "ScriptedTransport": "._scripted_cli.in_process",
    "SCRIPT_FORMAT": ".scripted",
    "RunReport": "._scripted_cli.interpreter",
    "ScriptFailure": "._scripted_cli.interpreter",
    "SCRIPT_FAILED_EXIT": "._scripted_cli.interpreter",
    # the switch: every run in the process plays a script, never the real CLI
    "use_scripted_cli": ".switch",
    "no_real_cli": ".switch",
    "UnscriptedRunError": ".switch",
    # record a real session, replay it offline
    "RecordingTransport": ".record",
    "recording_transport": ".record",
    "redact": ".record",
    "load_recording": ".replay",
    "RecordingFormatError": ".replay",
    # assertion helpers for the messages a run yields
    "texts": ".assertions",
    "tool_uses": ".assertions",
    "result_of": ".assertions",
    "assert_result": ".assertions",
    # store conformance (the sessions module)
    "run_session_store_conformance": ".conformance",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    """Resolve a public name on first use; anything else is an AttributeError."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'claude_sync.testing' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
