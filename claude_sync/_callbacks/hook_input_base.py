"""What every hook input shares: ``BaseHookInput``, ``HookEffort``, ``HookMcpServer``.

The keys common to all events (``BaseHookInput``), the session's effort level on each of them
(``HookEffort``) and the MCP server of an ``mcp__*`` tool (``HookMcpServer``, on the tool
events).

The CLI's own input schemas (CLI 2.1.330); type hints only, the callback gets the plain dict
the CLI sent. Pure module, loaded on first use like ``hook_inputs``.
"""


from typing_extensions import NotRequired, TypedDict

__all__ = ["BaseHookInput", "HookEffort", "HookMcpServer"]


class HookEffort(TypedDict):
    """The session's effort level, on every hook input (``effort``).

    Keys:
        level: The effort level (``low`` … ``max``).
    """

    level: str


class HookMcpServer(TypedDict):
    """For ``mcp__*`` tools: the server's config key and where its definition came from.

    Keys:
        name: The server's key in the MCP config.
        source: Where its definition came from (``sdk``, ``project``, ``user`` …).
    """

    name: str
    source: str


class BaseHookInput(TypedDict):
    """Keys common to every hook input.

    Keys:
        session_id: The session's id.
        transcript_path: The path of the session's JSONL transcript.
        cwd: The CLI's working directory.
        permission_mode: The permission mode in force.
        prompt_id: The id of the user prompt being answered.
        effort: The session's effort level.
    """

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: NotRequired[str]
    prompt_id: NotRequired[str]
    effort: NotRequired[HookEffort]
