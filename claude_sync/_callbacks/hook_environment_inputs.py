"""What a hook callback receives for the events around the session: worktrees, files,
directories, settings, instructions, tasks, teammates, elicitations, message display.

Thirteen of the CLI's input schemas (CLI 2.1.330), in the pattern of ``hook_inputs`` (which
has the tool and conversation events and the ``HookInput`` union). Type hints only: the
callback gets the plain dict the CLI sent. Pure module, loaded on first use.
"""


from typing import Any, Dict, List, Literal

from typing_extensions import NotRequired

from .hook_input_base import BaseHookInput

__all__ = [
    "ConfigChangeHookInput", "CwdChangedHookInput", "DirectoryAddedHookInput",
    "ElicitationHookInput", "ElicitationResultHookInput", "FileChangedHookInput",
    "InstructionsLoadedHookInput", "MessageDisplayHookInput", "TaskCompletedHookInput",
    "TaskCreatedHookInput", "TeammateIdleHookInput", "WorktreeCreateHookInput",
    "WorktreeRemoveHookInput",
]  # fmt: skip


class TeammateIdleHookInput(BaseHookInput):
    """What a ``TeammateIdle`` hook receives: a teammate has nothing to do.

    Keys:
        hook_event_name: ``"TeammateIdle"``.
        teammate_name: The idle teammate.
        team_name: Its team.
    """

    hook_event_name: Literal["TeammateIdle"]
    teammate_name: str
    team_name: str


class TaskCreatedHookInput(BaseHookInput):
    """What a ``TaskCreated`` hook receives: a task was created.

    Keys:
        hook_event_name: ``"TaskCreated"``.
        task_id: The task's id.
        task_subject: What the task is about, in a line.
        task_description: The task's description.
        teammate_name: The teammate it belongs to.
        team_name: The team it belongs to.
    """

    hook_event_name: Literal["TaskCreated"]
    task_id: str
    task_subject: str
    task_description: NotRequired[str]
    teammate_name: NotRequired[str]
    team_name: NotRequired[str]


class TaskCompletedHookInput(BaseHookInput):
    """What a ``TaskCompleted`` hook receives: a task was completed.

    Keys:
        hook_event_name: ``"TaskCompleted"``.
        task_id: The task's id.
        task_subject: What the task is about, in a line.
        task_description: The task's description.
        teammate_name: The teammate it belongs to.
        team_name: The team it belongs to.
    """

    hook_event_name: Literal["TaskCompleted"]
    task_id: str
    task_subject: str
    task_description: NotRequired[str]
    teammate_name: NotRequired[str]
    team_name: NotRequired[str]


class ElicitationHookInput(BaseHookInput):
    """What an ``Elicitation`` hook receives: an MCP server asks the user for input.

    Keys:
        hook_event_name: ``"Elicitation"``.
        mcp_server_name: The MCP server asking.
        message: What it asks.
        mode: ``"form"`` or ``"url"``.
        url: The page to open, in ``url`` mode.
        elicitation_id: The elicitation's id.
        requested_schema: The form's JSON Schema, in ``form`` mode.
    """

    hook_event_name: Literal["Elicitation"]
    mcp_server_name: str
    message: str
    mode: NotRequired[Literal["form", "url"]]
    url: NotRequired[str]
    elicitation_id: NotRequired[str]
    requested_schema: NotRequired[Dict[str, Any]]


class ElicitationResultHookInput(BaseHookInput):
    """What an ``ElicitationResult`` hook receives: the user answered an elicitation.

    Keys:
        hook_event_name: ``"ElicitationResult"``.
        mcp_server_name: The MCP server that asked.
        elicitation_id: The elicitation's id.
        mode: ``"form"`` or ``"url"``.
        action: ``"accept"``, ``"decline"`` or ``"cancel"``.
        content: The form's values, with ``accept``.
    """

    hook_event_name: Literal["ElicitationResult"]
    mcp_server_name: str
    elicitation_id: NotRequired[str]
    mode: NotRequired[Literal["form", "url"]]
    action: Literal["accept", "decline", "cancel"]
    content: NotRequired[Dict[str, Any]]


class ConfigChangeHookInput(BaseHookInput):
    """What a ``ConfigChange`` hook receives: settings changed.

    Keys:
        hook_event_name: ``"ConfigChange"``.
        source: Which settings changed (``user_settings``, ``project_settings``, ``local_settings``,
            ``policy_settings``, ``skills``).
        file_path: The file that changed, when there is one.
    """

    hook_event_name: Literal["ConfigChange"]
    source: Literal["user_settings", "project_settings", "local_settings", "policy_settings", "skills"]
    file_path: NotRequired[str]


class InstructionsLoadedHookInput(BaseHookInput):
    """What an ``InstructionsLoaded`` hook receives: an instructions file (``CLAUDE.md`` …) was loaded.

    Keys:
        hook_event_name: ``"InstructionsLoaded"``.
        file_path: The instructions file (``CLAUDE.md`` …) loaded.
        memory_type: ``"User"``, ``"Project"``, ``"Local"`` or ``"Managed"``.
        load_reason: Why it was loaded (``session_start``, ``nested_traversal``,
            ``path_glob_match``, ``include``, ``compact``).
        globs: The path globs that made it apply.
        trigger_file_path: The file whose access loaded it.
        parent_file_path: The file that included it.
    """

    hook_event_name: Literal["InstructionsLoaded"]
    file_path: str
    memory_type: Literal["User", "Project", "Local", "Managed"]
    load_reason: Literal["session_start", "nested_traversal", "path_glob_match", "include", "compact"]
    globs: NotRequired[List[str]]
    trigger_file_path: NotRequired[str]
    parent_file_path: NotRequired[str]


class WorktreeCreateHookInput(BaseHookInput):
    """What a ``WorktreeCreate`` hook receives: a git worktree is to be created.

    Keys:
        hook_event_name: ``"WorktreeCreate"``.
        name: The new worktree's name.
    """

    hook_event_name: Literal["WorktreeCreate"]
    name: str


class WorktreeRemoveHookInput(BaseHookInput):
    """What a ``WorktreeRemove`` hook receives: a git worktree is to be removed.

    Keys:
        hook_event_name: ``"WorktreeRemove"``.
        worktree_path: The worktree being removed.
    """

    hook_event_name: Literal["WorktreeRemove"]
    worktree_path: str


class CwdChangedHookInput(BaseHookInput):
    """What a ``CwdChanged`` hook receives: the working directory changed.

    Keys:
        hook_event_name: ``"CwdChanged"``.
        old_cwd: The previous working directory.
        new_cwd: The new one.
    """

    hook_event_name: Literal["CwdChanged"]
    old_cwd: str
    new_cwd: str


class FileChangedHookInput(BaseHookInput):
    """What a ``FileChanged`` hook receives: a watched file changed.

    Keys:
        hook_event_name: ``"FileChanged"``.
        file_path: The watched file.
        event: ``"change"``, ``"add"`` or ``"unlink"``.
    """

    hook_event_name: Literal["FileChanged"]
    file_path: str
    event: Literal["change", "add", "unlink"]


class DirectoryAddedHookInput(BaseHookInput):
    """A directory joined the session: ``/add-dir`` or the SDK's ``register_repo_root``.

    Keys:
        hook_event_name: ``"DirectoryAdded"``.
        directory: The directory added.
        source: ``"slash_command"`` or ``"register_repo_root"``.
    """

    hook_event_name: Literal["DirectoryAdded"]
    directory: str
    source: Literal["slash_command", "register_repo_root"]


class MessageDisplayHookInput(BaseHookInput):
    """Newly completed lines of a streaming assistant message (display only).

    Keys:
        hook_event_name: ``"MessageDisplay"``.
        turn_id: The turn's id.
        message_id: The message's id.
        index: The position of this piece in the message.
        final: Whether the message is complete.
        delta: The newly completed lines.
    """

    hook_event_name: Literal["MessageDisplay"]
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str
