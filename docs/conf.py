"""Sphinx configuration for the claude_sync documentation (``python -m sphinx -W docs out``).

``api.rst`` includes ``_generated/api_names.rst``, written here from ``claude_sync.__all__``
at every build, so the reference always covers every public name
(``tests/package/test_docs.py`` checks each has a docstring and is in the page).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import claude_sync  # noqa: E402

project = "claude_sync"
author = "claude_sync contributors"
copyright = "claude_sync contributors, MIT licence"  # noqa: A001
release = claude_sync.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": False}
exclude_patterns = ["_build", "_generated", "protocol", "Thumbs.db", ".DS_Store"]
suppress_warnings = ["ref.python"]  # typing names inside annotations have no target here
nitpicky = False

try:
    import furo  # noqa: F401

    html_theme = "furo"
except ImportError:  # pragma: no cover - the docs extra installs furo
    html_theme = "alabaster"
html_title = f"claude_sync {release}"


ALIAS_DOCS = {
    "CanUseTool": "The type of ``ClaudeAgentOptions.can_use_tool``: ``(tool_name, tool_input, context: "
    "ToolPermissionContext) -> PermissionResultAllow | PermissionResultDeny``, run on the callback pool.",
    "HookCallback": "The type of a hook function: ``(hook_input: dict, tool_use_id: str | None, context: "
    "HookContext) -> dict | None``, run on the callback pool.",
    "KNOWN_HOOK_EVENTS": "The hook event names the CLI knows (``PreToolUse``, ``PostToolUse``, ``Stop`` …), "
    "the keys of ``ClaudeAgentOptions.hooks``.",
    "PermissionMode": "``\"default\"``, ``\"acceptEdits\"``, ``\"plan\"``, ``\"bypassPermissions\"``, "
    "``\"dontAsk\"`` or ``\"auto\"``.",
    "PermissionResult": "``PermissionResultAllow | PermissionResultDeny``: what a ``can_use_tool`` callback returns.",
    "Message": "Any message a stream yields: ``UserMessage``, ``AssistantMessage``, ``SystemMessage`` (and its "
    "subclasses), ``ResultMessage``, ``StreamEvent``, ``RateLimitEvent`` …, ``UnknownMessage``.",
    "ContentBlock": "Any item of a message's ``content``: ``TextBlock``, ``ThinkingBlock``, ``ToolUseBlock``, "
    "``ToolResultBlock`` …, ``UnknownBlock``.",
    "EffortLevel": "``ClaudeAgentOptions.effort``: ``\"low\"``, ``\"medium\"``, ``\"high\"``, ``\"xhigh\"`` or ``\"max\"``.",
    "FastModeDisabledReason": "Why fast mode is off, as ``system/init`` reports it (``\"free\"``, "
    "``\"preference\"``, ``\"network_error\"``, ``\"model_not_allowed\"`` …).",
    "FastModeState": "``\"off\"``, ``\"cooldown\"`` or ``\"on\"`` (``system/init`` ``fast_mode_state``).",
    "HookJSONOutput": "What a hook returns: the synchronous output (``continue``, ``decision``, "
    "``hookSpecificOutput`` …) or the asynchronous one (``async``, ``asyncTimeout``).",
    "McpServerConfig": "A value of ``ClaudeAgentOptions.mcp_servers``: a stdio, SSE or HTTP server config, "
    "an in-process server (``create_sdk_mcp_server``), or a plain dict.",
    "McpServerConnectionStatus": "``\"connected\"``, ``\"failed\"``, ``\"needs-auth\"``, ``\"pending\"`` "
    "or ``\"disabled\"`` (``get_mcp_status()``).",
    "McpServerStatusConfig": "The ``config`` of a server in ``get_mcp_status()``: stdio, SSE, HTTP, an "
    "in-process server, or a claude.ai proxy.",
    "MessageOriginKind": "Who a turn came from: ``\"human\"``, ``\"channel\"``, ``\"peer\"``, "
    "``\"task-notification\"``, ``\"coordinator\"`` ….",
    "RateLimitStatus": "``\"allowed\"``, ``\"allowed_warning\"`` or ``\"rejected\"`` (``RateLimitInfo.status``).",
    "RateLimitType": "Which limit a ``RateLimitEvent`` is about: ``\"five_hour\"``, ``\"seven_day\"``, "
    "``\"seven_day_opus\"``, ``\"seven_day_sonnet\"`` or ``\"overage\"``.",
    "SandboxIgnoreViolations": "Sandbox violations to ignore: a kind (``\"file\"``, ``\"network\"``) to a list "
    "of patterns.",
    "ServerToolName": "The tools the API runs itself (``ServerToolUseBlock.name``): ``\"web_search\"``, "
    "``\"web_fetch\"``, ``\"code_execution\"`` ….",
    "SettingSource": "Where the CLI reads settings from (``setting_sources``): ``\"user\"``, ``\"project\"``, ``\"local\"``.",
    "TaskNotificationOriginSubkind": "``\"scheduled-trigger\"`` or ``\"peer-send-message\"``.",
    "TaskNotificationStatus": "How a task ended (``TaskNotificationMessage.status``): ``\"completed\"``, "
    "``\"failed\"`` or ``\"stopped\"``.",
    "TaskUpdatedStatus": "A task's status in ``TaskUpdatedMessage``: ``\"pending\"``, ``\"running\"``, "
    "``\"paused\"``, ``\"completed\"``, ``\"failed\"`` or ``\"killed\"``.",
    "ThinkingConfig": "``ClaudeAgentOptions.thinking``: adaptive, enabled with a ``budget_tokens``, or disabled.",
    "SessionStoreFlushMode": "``\"batched\"``: a session store is written once per turn (and past 500 "
    "entries / 1 MiB); ``\"eager\"``: after every transcript write.",
}
"""One line for each public name that is a type alias or a constant (they carry no docstring)."""


@functools.cache
def source_docstrings() -> dict:
    """``name -> text`` of every module-level string literal right after an assignment in the
    package (how aliases and functional TypedDicts are documented in the code)."""
    import ast

    found = {}
    for path in sorted((HERE.parent / "claude_sync").rglob("*.py")):
        body = ast.parse(path.read_text()).body
        for node, after in zip(body, body[1:]):
            targets = [t for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets.append(node.target)
            value = getattr(after, "value", None)
            if targets and isinstance(after, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                for target in targets:
                    found.setdefault(target.id, " ".join(value.value.split()))
    return found


def doc_for(name: str) -> str:
    """The documentation of a public name: its docstring, else the string after its
    assignment in the source, else its ``ALIAS_DOCS`` line; "" when there is none."""
    obj = getattr(claude_sync, name)
    own = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    if (isinstance(obj, type) or callable(obj) and hasattr(obj, "__code__")) and own and own.strip():
        return own
    return source_docstrings().get(name) or ALIAS_DOCS.get(name, "")


def api_directives() -> str:
    """The reference body: one autodoc (or ``data``) directive per public name."""
    lines = []
    for name in claude_sync.__all__:
        if name == "__version__":
            continue
        obj = getattr(claude_sync, name)
        own = obj.__dict__.get("__doc__") if isinstance(obj, type) else None
        if isinstance(obj, type) and own and own.strip():
            lines.append(f".. autoclass:: claude_sync.{name}\n   :members:\n   :exclude-members: {_SERDE}\n\n")
        elif callable(obj) and hasattr(obj, "__code__"):
            lines.append(f".. autofunction:: claude_sync.{name}\n\n")
        else:
            text = doc_for(name) or "(not documented yet: add a docstring, or a line to ALIAS_DOCS in docs/conf.py)"
            lines.append(f".. data:: claude_sync.{name}\n\n   {text}\n\n")
    return "".join(lines)


_SERDE = "to_dict, to_json, from_dict, from_json, schema"


def _write_api_names() -> None:
    target = HERE / "_generated" / "api_names.rst"
    target.parent.mkdir(exist_ok=True)
    text = api_directives()
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


_write_api_names()


def _plain_section_headers(app: object, what: str, name: str, obj: object, options: object, lines: list) -> None:
    """``Raises (on construction):`` → a sentence, then ``Raises:``, so napoleon (which runs
    after this) formats the section instead of docutils reading a broken definition list."""
    import re

    pattern = re.compile(r"^(\s*)(Raises|Returns|Args) \(([^)]*)\):\s*$")
    for index, line in enumerate(list(lines)):
        match = pattern.match(line)
        if match:
            indent, section, note = match.groups()
            lines[index : index + 1] = [f"{indent}{note[:1].upper()}{note[1:]}:", "", f"{indent}{section}:"]


def setup(app: object) -> None:
    app.connect("autodoc-process-docstring", _plain_section_headers, priority=400)  # type: ignore[attr-defined]
