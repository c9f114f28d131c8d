"""Checks ``ClaudeAgentOptions`` when it is built, so bad input fails early and by name.

``ClaudeAgentOptions.__post_init__`` calls ``validate_options``, and so does the session
builder before it spawns anything (options are mutable). Each option with rules has an
entry in ``RULES``: a tuple of checks, each ``check(name, value)`` raising ``TypeError``
(wrong kind of value) or ``ValueError`` (right kind, wrong value) with a message that
starts ``ClaudeAgentOptions.<name>``. Options without an entry are checked where they are
interpreted (``command.interpret_options``). To add a rule, add a check here or an entry to
``RULES`` (``add_rule`` does it from elsewhere).

Callbacks: ``can_use_tool``, ``stderr`` and every hook must be plain callables. An
``async def`` one (easy to carry over from code written for the async SDK) is refused: it
would return a coroutine that is never run, and a hook that answers with a coroutine
would let the tool run — fail open. Detected by the code flags (no ``inspect`` import).

Pure module: no I/O apart from the user lookup for ``user=`` (``pwd``, POSIX only).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Mapping, Tuple

from .hook_registry import HookRegistry
from .timeouts import checked_seconds

__all__ = ["RULES", "Check", "add_rule", "is_async_callable", "validate_options"]

Check = Callable[[str, Any], None]
"""``check(option_name, value)``: returns if fine, else raises TypeError/ValueError."""

_ASYNC_FLAGS = 0x80 | 0x100 | 0x200  # CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR


def _got(value: Any) -> str:
    if isinstance(value, (int, float, bool)) or value is None:
        return repr(value)
    return type(value).__name__


def _fail(error: type, name: str, expected: str, value: Any) -> None:
    raise error(f"ClaudeAgentOptions.{name} must be {expected}, got {_got(value)}")


# ----------------------------------------------------------------------------- checks


def seconds(name: str, value: Any) -> None:
    """A finite number of seconds > 0 the platform can wait (no bool, no str, no None;
    ``timeouts.checked_seconds``)."""
    checked_seconds(f"ClaudeAgentOptions.{name}", value)


def amount(name: str, value: Any) -> None:
    """A finite number > 0 (a budget, say)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(TypeError, name, "a number", value)
    if not (math.isfinite(value) and value > 0):
        _fail(ValueError, name, "a finite number > 0", value)


def int_at_least(minimum: int) -> Check:
    def check(name: str, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(TypeError, name, "an int", value)
        if value < minimum:
            _fail(ValueError, name, f"an int >= {minimum}", value)

    return check


def optional(check: Check) -> Check:
    def check_unless_none(name: str, value: Any) -> None:
        if value is not None:
            check(name, value)

    return check_unless_none


def boolean(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        _fail(TypeError, name, "True or False", value)


def text(name: str, value: Any) -> None:
    """A str."""
    if not isinstance(value, str):
        _fail(TypeError, name, "a str", value)


def delivery(name: str, value: Any) -> None:
    """``"argv"`` or ``"initialize"``."""
    if value not in ("argv", "initialize"):
        _fail(ValueError, name, "'argv' or 'initialize'", value)


def mcp_delivery(name: str, value: Any) -> None:
    """``"auto"``, ``"argv"`` or ``"initialize"``."""
    if value not in ("auto", "argv", "initialize"):
        _fail(ValueError, name, "'auto', 'argv' or 'initialize'", value)


def mapping(name: str, value: Any) -> None:
    """A dict (checked to write as JSON when the command is built)."""
    if not isinstance(value, Mapping):
        _fail(TypeError, name, "a dict", value)


def writable(name: str, value: Any) -> None:
    """A text stream: anything with a callable ``write``."""
    if not callable(getattr(value, "write", None)):
        _fail(TypeError, name, "a text stream with a write() method", value)


def is_async_callable(fn: Any) -> bool:
    """True for an ``async def`` function or async generator function, also behind
    ``functools.partial``, a bound method or an object whose ``__call__`` is one."""
    for _ in range(8):  # unwrap partials / methods / callable objects, boundedly
        code = getattr(fn, "__code__", None)
        if code is not None:
            return bool(code.co_flags & _ASYNC_FLAGS)
        inner = getattr(fn, "func", None) or getattr(fn, "__func__", None)
        if inner is None:
            call = getattr(type(fn), "__call__", None)  # noqa: B004 - the method, to read its code
            if call is None or call is fn or isinstance(fn, type):
                return False
            inner = call
        fn = inner
    return False


def _refuse_async(where: str, fn: Any) -> None:
    if is_async_callable(fn):
        raise TypeError(
            f"ClaudeAgentOptions.{where} is an async function; claude_sync calls callbacks as "
            f"plain functions on its callback threads: drop `async` (and `await` inside it)"
        )


def sync_callable(name: str, value: Any) -> None:
    if not callable(value):
        _fail(TypeError, name, "a callable", value)
    _refuse_async(name, value)


def hook_table(name: str, value: Any) -> None:
    """The shape rules of ``hook_registry.HookRegistry`` (run now, not at connect), then no
    ``async`` hook."""
    try:
        registry = HookRegistry.from_options(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"ClaudeAgentOptions.{exc}") from None
    for callback_id in registry.callback_ids:
        entry = registry.registered(callback_id)
        where = f"hooks[{entry.event!r}][{entry.matcher_index}] hook {_callable_name(entry.callback)}"
        _refuse_async(where, entry.callback)


def _callable_name(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__)


def os_user(name: str, value: Any) -> None:
    """A user name that exists on this machine, or a uid (an int >= 0)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        _fail(TypeError, name, "a user name (str) or a uid (int)", value)
    if isinstance(value, int):
        if value < 0:
            _fail(ValueError, name, "a uid >= 0", value)
        return
    try:
        import pwd
    except ImportError:  # pragma: no cover - Windows: Popen has no user=
        raise ValueError(f"ClaudeAgentOptions.{name} is supported on POSIX only") from None
    try:
        pwd.getpwnam(value)
    except KeyError:
        raise ValueError(f"ClaudeAgentOptions.{name}: no such user on this machine: {value!r}") from None


def output_format(name: str, value: Any) -> None:
    """A ``{"type": "json_schema", …}`` dict (its shape is checked when the command is built)
    or a class with a JSON form: a dataclass, a TypedDict, a pydantic v2 model. The class's
    schema is made (and cached) now, so a field without a JSON form fails here, by name."""
    if value is None or isinstance(value, Mapping):
        return
    if not isinstance(value, type):
        _fail(
            TypeError,
            name,
            "a dataclass, TypedDict or pydantic v2 model class, or {'type': 'json_schema', 'schema': {...}}",
            value,
        )
    from .._structured.class_schema import json_schema_of  # typed output: first use only

    try:
        json_schema_of(value)
    except TypeError as exc:
        raise TypeError(f"ClaudeAgentOptions.{name}: {exc}") from None


def pool_switch(name: str, value: Any) -> None:
    """None, a bool, or a socket path: a non-empty str without NUL."""
    if value is None or isinstance(value, bool):
        return
    if not isinstance(value, str):
        _fail(TypeError, name, "None, True, False or a socket path (str)", value)
    if not value or "\0" in value:
        raise ValueError(f"ClaudeAgentOptions.{name} must be a socket path, got {value!r}")


# ----------------------------------------------------------------------------- the table

RULES: Dict[str, Tuple[Check, ...]] = {
    "close_timeout": (seconds,),
    "control_timeout": (seconds,),
    "initialize_timeout": (seconds,),
    "callback_workers": (int_at_least(1),),
    "max_buffer_size": (optional(int_at_least(1)),),
    "max_turns": (optional(int_at_least(0)),),
    "max_retries": (optional(int_at_least(0)),),
    "max_budget_usd": (optional(amount),),
    "max_thinking_tokens": (optional(int_at_least(0)),),
    "deny_all_permissions": (boolean,),
    "trace_cli": (boolean,),
    "raise_on_error_result": (boolean,),
    "strict_mcp_config": (boolean,),
    "continue_conversation": (boolean,),
    "fork_session": (boolean,),
    "include_partial_messages": (boolean,),
    "include_hook_events": (boolean,),
    "forward_subagent_text": (boolean,),
    "enable_file_checkpointing": (boolean,),
    "user": (optional(os_user),),
    "can_use_tool": (optional(sync_callable),),
    "stderr": (optional(sync_callable),),
    "on_process_exit": (optional(sync_callable),),
    "spawn_command": (optional(sync_callable),),
    "hooks": (optional(hook_table),),
    "verbatim_prompts": (boolean,),
    "slash_commands": (boolean,),
    "resume_drops_turn": (optional(text),),
    "client_app": (optional(text),),
    "debug_stderr": (optional(writable),),
    "output_format": (output_format,),
    "managed_settings": (optional(mapping),),
    "mcp_servers_delivery": (mcp_delivery,),
    "plugin_delivery": (delivery,),
    "shared_pool": (pool_switch,),
}


def add_rule(option: str, *checks: Check) -> None:
    """Append checks for ``option`` (for modules that add options)."""
    RULES[option] = RULES.get(option, ()) + checks


def validate_options(options: Any) -> None:
    """Run every rule on ``options``; raises the first ``TypeError``/``ValueError``."""
    values = options.__dict__
    for name, checks in RULES.items():
        if name in values:
            value = values[name]
            for check in checks:
                check(name, value)


def check_initialize_only_options(options: Any) -> None:
    """Raises ``TypeError`` for a value of the wrong type and ``ValueError`` for
    ``supported_dialog_kinds`` without ``on_user_dialog`` (nothing would answer the dialogs;
    the TypeScript SDK refuses this too)."""
    aliases = options.tool_aliases
    if aliases is not None and (
        not isinstance(aliases, Mapping)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in aliases.items())
    ):
        raise TypeError(f"tool_aliases must map tool names (str) to tool names, not {aliases!r}")
    for name in ("plan_mode_instructions", "title"):
        value = getattr(options, name)
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    kinds = options.supported_dialog_kinds
    if kinds is not None:
        if isinstance(kinds, str) or not all(isinstance(k, str) for k in kinds):
            raise TypeError(f"supported_dialog_kinds must be a list of str, not {kinds!r}")
        if kinds and options.on_user_dialog is None:
            raise ValueError(
                "supported_dialog_kinds needs on_user_dialog: the CLI would ask this process "
                "to render those dialogs and nothing would answer"
            )
    for name in ("on_elicitation", "on_user_dialog"):
        value = getattr(options, name)
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be callable, not {type(value).__name__}")
