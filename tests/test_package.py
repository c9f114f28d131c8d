"""Package-level promises: the public names, the pure core's imports, import weight, errors."""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import claude_sync
from claude_sync import _errors

PACKAGE = Path(claude_sync.__file__).parent

PURE_MODULES = ["_record", "_framing", "_protocol", "_parse", "_messages", "_serde", "_callbacks", "_mcp", "_schema", "_command", "_types", "_errors"]
FORBIDDEN = {"threading", "subprocess", "queue", "time", "asyncio", "concurrent", "socket", "select", "signal", "selectors", "multiprocessing"}

PINNED_ALL = sorted(claude_sync.__all__)


def test_all_is_pinned_and_every_name_resolves() -> None:
    expected = {
        "query", "QueryStream", "ClaudeSDKClient", "ClaudeAgentOptions", "AgentDefinition",
        "merge_assistant_messages", "CanUseTool", "CancellationSignal", "HookCallback",
        "HookContext", "HookMatcher", "KNOWN_HOOK_EVENTS", "PermissionMode", "PermissionResult",
        "PermissionResultAllow", "PermissionResultDeny", "PermissionRuleValue", "PermissionUpdate",
        "ToolPermissionContext", "tool", "create_sdk_mcp_server", "SdkMcpServer", "SdkMcpTool",
        "ToolContext", "Message", "UserMessage", "AssistantMessage", "AssistantMessageMerger",
        "SystemMessage", "SystemInitMessage", "StatusMessage", "APIRetryMessage",
        "CompactBoundaryMessage", "TaskStartedMessage", "TaskProgressMessage",
        "TaskUpdatedMessage", "TaskNotificationMessage", "HookEventMessage", "HookStartedMessage",
        "HookProgressMessage", "HookResponseMessage", "InformationalMessage",
        "ThinkingTokensMessage", "ResultMessage", "StreamEvent", "RateLimitEvent",
        "RateLimitInfo", "PromptSuggestionMessage", "ToolProgressMessage", "AuthStatusMessage",
        "UnknownMessage", "OversizedLineSkipped", "message_from_dict", "ContentBlock",
        "TextBlock", "ThinkingBlock", "RedactedThinkingBlock", "ToolUseBlock", "ToolResultBlock",
        "ServerToolUseBlock", "ServerToolResultBlock", "ImageBlock", "UnknownBlock",
        "ClaudeSDKError", "CLIConnectionError", "CLINotFoundError", "ProcessError", "ResultError",
        "CLIJSONDecodeError", "MessageParseError", "ControlRequestError", "ControlTimeoutError",
        "ReceiveTimeoutError", "UsageError", "__version__",
    }  # fmt: skip
    assert set(claude_sync.__all__) == expected
    assert len(claude_sync.__all__) == len(expected)  # no duplicates
    for name in claude_sync.__all__:
        assert getattr(claude_sync, name) is not None


def test_init_only_re_exports() -> None:
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    kinds = {type(node).__name__ for node in tree.body}
    assert kinds <= {"Expr", "ImportFrom", "Assign", "FunctionDef", "If"}, kinds
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert functions in ([], ["__getattr__"])  # only the lazy re-export hook


@pytest.mark.parametrize("module", PURE_MODULES)
def test_pure_core_imports_no_threads_io_or_clocks(module: str) -> None:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & FORBIDDEN, f"{module} imports {sorted(imported & FORBIDDEN)}"


def test_import_loads_no_event_loop_and_nothing_heavy() -> None:
    code = (
        "import sys, claude_sync\n"
        "bad = [m for m in ('asyncio', 'anyio', 'trio', 'mcp', 'pydantic', 'dataclasses_json', 'marshmallow') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_version_is_a_string() -> None:
    assert isinstance(claude_sync.__version__, str) and claude_sync.__version__.count(".") == 2


ERRORS = [
    _errors.ClaudeSDKError("base"),
    _errors.CLIConnectionError("lost"),
    _errors.CLINotFoundError("nope", cli_path="/x/claude"),
    _errors.ProcessError("died", exit_code=3, stderr="tail"),
    _errors.ResultError("bad run", subtype="success", errors=["e"], result="r", api_error_status=401, data={"a": 1}, exit_code=1, stderr="s"),
    _errors.CLIJSONDecodeError("bad json", line="{oops"),
    _errors.MessageParseError("bad shape", data={"type": "assistant"}),
    _errors.ControlRequestError("Unsupported", subtype="frobnicate", request_id="req_1"),
    _errors.ControlTimeoutError("slow", subtype="mcp_status", request_id="req_2", timeout=1.5),
    _errors.ReceiveTimeoutError("quiet", kind="idle", timeout=2.0),
    _errors.UsageError("closed"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_errors_pickle_with_their_attributes(error: Exception) -> None:
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is type(error)
    assert str(clone) == str(error)
    assert vars(clone) == vars(error)


def test_error_tree() -> None:
    assert issubclass(_errors.CLINotFoundError, _errors.CLIConnectionError)
    assert issubclass(_errors.ResultError, _errors.ProcessError)
    assert issubclass(_errors.ControlTimeoutError, TimeoutError)
    assert issubclass(_errors.ReceiveTimeoutError, TimeoutError)
    assert issubclass(_errors.UsageError, RuntimeError)
    for error in ERRORS:
        assert isinstance(error, _errors.ClaudeSDKError)
