"""``allowed_tools`` rules the options imply or affect: ``skills`` and ``can_use_tool`` shadowing (pure).

``skills`` adds ``Skill`` / ``Skill(name)`` rules (names checked as the official SDK checks
them) and defaults ``setting_sources``; ``can_use_tool_shadowing`` says which calls an allow
rule or the permission mode approves before ``can_use_tool`` is asked.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, Tuple

from .argv import str_list
from .options import ClaudeAgentOptions

__all__ = ["can_use_tool_shadowing", "skills_defaults"]


def skills_defaults(options: ClaudeAgentOptions) -> Tuple[List[str], Optional[List[str]]]:
    """``allowed_tools`` and ``setting_sources`` with what ``skills`` implies added.

    Raises ``TypeError`` when ``skills`` is neither a list nor ``"all"`` (a bare name would be
    taken apart into characters), ``ValueError`` for a name no ``Skill(name)`` rule can carry.
    """
    allowed = str_list("allowed_tools", options.allowed_tools)
    sources = None
    if options.setting_sources is not None:
        sources = str_list("setting_sources", options.setting_sources)
    skills = options.skills
    if skills is None:
        return allowed, sources
    if skills == "all":
        wanted = ["Skill"]
    elif isinstance(skills, (list, tuple)):
        wanted = [f"Skill({_checked_skill_name(name)})" for name in skills]
    else:
        hint = f" Did you mean [{skills!r}]?" if isinstance(skills, str) else ""
        raise TypeError(f'skills must be a list of skill names or "all", got {skills!r}.{hint}')
    allowed += [rule for rule in wanted if rule not in allowed]
    return allowed, (["user", "project"] if sources is None else sources)


_SKILL_NAME_FORBIDDEN = re.compile(r"[(),\x00-\x1f\x7f-\x9f\ufeff]|[\ud800-\udfff]")
"""Characters the CLI's ``--allowedTools`` splitter or rule parser would mangle."""


def _checked_skill_name(name: Any) -> str:
    """The name, if a ``Skill(name)`` rule can carry it and could ever match a skill.

    Spaces inside a name are fine (the CLI splits rules outside parentheses only). Raises
    ``TypeError`` for a non-str, ``ValueError`` for an empty name, surrounding whitespace,
    parentheses, commas or control characters, ``*`` / wildcard suffixes, a leading ``/``
    (the slash-command form, not the skill's name) and doubled or trailing backslashes.
    """
    if not isinstance(name, str):
        raise TypeError(f"skill names must be str, got {type(name).__name__}: {name!r}")
    problem = _skill_name_problem(name)
    if problem:
        raise ValueError(f"invalid skill name {name!r}: {problem}")
    return name


def _skill_name_problem(name: str) -> str:
    if not name.strip():
        return "it is empty"
    if name != name.strip():
        return "leading or trailing whitespace never matches (the Skill tool trims names)"
    if _SKILL_NAME_FORBIDDEN.search(name):
        return "parentheses, commas and control characters cannot ride in a Skill(name) rule"
    if name == "*":
        return 'use skills="all" to enable every skill'
    if name.endswith((":*", " *")):
        return "wildcard suffixes are not allowed; list each skill by name"
    if name.startswith("/"):
        return "give the skill's name, not its /slash-command form"
    if "\\\\" in name or name.endswith("\\"):
        return "doubled or trailing backslashes name a different skill after rule parsing"
    return ""


def can_use_tool_shadowing(options: ClaudeAgentOptions, allowed_tools: Sequence[str]) -> Optional[str]:
    """Why ``can_use_tool`` will not be asked about some calls (None: it always will).

    ``allowed_tools`` is the effective list (what ``skills`` implies included).
    """
    if options.can_use_tool is None:
        return None
    if options.permission_mode == "bypassPermissions":
        return (
            "can_use_tool will not be called: permission_mode 'bypassPermissions' approves "
            "every tool call (except explicit deny rules) first; use a PreToolUse hook to "
            "gate every call"
        )
    shadowed = list(dict.fromkeys(t for t in map(_whole_tool, allowed_tools) if t is not None))
    if not shadowed:
        return None
    return (
        f"can_use_tool will not be called for: {', '.join(shadowed)}: an allowed_tools entry "
        "naming a whole tool approves it first. Narrow the entry, or use a PreToolUse hook "
        "(allow rules in settings files can shadow the callback too)"
    )


def _whole_tool(rule: str) -> Optional[str]:
    """The tool a rule allows outright (``"Read"``, ``"Read()"``, ``"Read(*)"``), else None."""
    if not rule.strip():
        return None
    open_at = rule.find("(")
    if open_at == -1:
        return rule
    if open_at == 0 or not rule.endswith(")"):
        return None
    return rule[:open_at] if rule[open_at + 1 : -1] in ("", "*") else None
