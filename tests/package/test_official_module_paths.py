"""The official SDK's public module paths exist under claude_sync, as the same objects: the
string forms instrumentors and tests use (``importlib``, ``mock.patch``, ``wrapt``) resolve to
what users call, and ``claude_sync.query`` stays the function (as ``claude_agent_sdk.query``)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from unittest import mock

import pytest

import claude_sync

ROOT = Path(__file__).resolve().parents[2]

OFFICIAL_PUBLIC_MODULES = {
    # claude_agent_sdk 0.2.189's modules without a leading underscore in any part
    "claude_agent_sdk": "claude_sync",
    "claude_agent_sdk.client": "claude_sync.client",
    "claude_agent_sdk.query": "claude_sync.query",
    "claude_agent_sdk.types": "claude_sync.types",
    "claude_agent_sdk.testing": "claude_sync.testing",
}


@pytest.mark.parametrize("ours", sorted(OFFICIAL_PUBLIC_MODULES.values()))
def test_each_official_public_module_path_imports(ours: str) -> None:
    assert isinstance(importlib.import_module(ours), ModuleType)


def test_client_and_query_are_the_modules_that_define_the_names() -> None:
    client = importlib.import_module("claude_sync.client")
    query_module = importlib.import_module("claude_sync.query")
    assert client.ClaudeSDKClient is claude_sync.ClaudeSDKClient
    assert claude_sync.ClaudeSDKClient.__module__ == "claude_sync.client"
    assert query_module.query is claude_sync.query
    assert claude_sync.query.__module__ == "claude_sync.query"
    assert callable(claude_sync.query) and not isinstance(claude_sync.query, ModuleType)
    __import__("claude_sync.query")  # ``import claude_sync.query``: the function stays bound
    assert callable(claude_sync.query) and claude_sync.client is client


def test_string_targets_patch_what_users_call() -> None:
    with mock.patch("claude_sync.client.ClaudeSDKClient.connect") as connect:
        claude_sync.ClaudeSDKClient().connect()
    connect.assert_called_once_with()
    # wrapt's "module:attr" targets resolve the same way (sys.modules[module], then getattr)
    assert pkgutil.resolve_name("claude_sync.client:ClaudeSDKClient.connect") is claude_sync.ClaudeSDKClient.connect
    assert pkgutil.resolve_name("claude_sync.query:query") is claude_sync.query


def test_the_submodules_cost_import_claude_sync_nothing() -> None:
    code = (
        "import sys, json\n"
        "import claude_sync\n"
        "print(json.dumps(['claude_sync.query' in sys.modules, 'claude_sync.client' in sys.modules,"
        " callable(claude_sync.query)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, True, True]  # the modules that were loaded anyway
