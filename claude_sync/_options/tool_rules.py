"""Which tool calls run unasked, and who is asked about the rest (pure).

``PermissionRouting`` reads the three permission options once (``can_use_tool``,
``permission_prompt_tool_name``, ``deny_all_permissions``): the CLI's
``--permission-prompt-tool`` and what the ``can_use_tool`` handler
(``claude_sync._callbacks.permissions.permission_server``) is given.

``skills`` adds ``Skill`` / ``Skill(name)`` rules (names checked as the official SDK checks
them) and defaults ``setting_sources``; ``can_use_tool_shadowing`` says which calls an allow
rule or the permission mode approves before ``can_use_tool`` is asked; ``rule_matches`` says
whether a rule in the ``allowed_tools`` syntax names a given call, failing closed
(``check_rule`` checks one, ``check_policy_rule`` also refuses a rule that can never match).
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from .._callbacks.permission_types import CanUseTool
from .._wire.record import FrozenRecord, frozen_record
from .argv import str_list
from .options import ClaudeAgentOptions

__all__ = [
    "PermissionRouting", "can_use_tool_shadowing", "check_policy_rule", "check_rule", "rule_matches", "skills_defaults",
]


@frozen_record
class PermissionRouting(FrozenRecord):
    """Who answers the CLI's permission prompts, decided once from the options.

    ``callback`` set: the CLI asks us (``--permission-prompt-tool stdio``) and the shell calls
    it. ``deny_all``: the CLI asks us and the shell denies every request without a call.
    ``prompt_tool_name`` set: the CLI asks that MCP tool instead. None of them: the CLI
    decides alone (``permission_mode``, settings); a ``can_use_tool`` request that still
    arrives is denied (fail-closed).
    """

    callback: Optional[CanUseTool] = None
    deny_all: bool = False
    prompt_tool_name: Optional[str] = None

    @classmethod
    def from_options(
        cls,
        can_use_tool: Optional[CanUseTool],
        permission_prompt_tool_name: Optional[str],
        deny_all_permissions: bool,
    ) -> PermissionRouting:
        """The routing the three permission options ask for.

        Raises ``ValueError`` when two of them are set (each one routes the prompts
        somewhere else).
        """
        if can_use_tool is not None and permission_prompt_tool_name is not None:
            raise ValueError(
                "can_use_tool and permission_prompt_tool_name are mutually exclusive: "
                "can_use_tool already routes permission prompts to this process"
            )
        if deny_all_permissions and can_use_tool is not None:
            raise ValueError("deny_all_permissions and can_use_tool are mutually exclusive")
        if deny_all_permissions and permission_prompt_tool_name is not None:
            raise ValueError(
                "deny_all_permissions and permission_prompt_tool_name are mutually exclusive: "
                "deny_all_permissions needs the prompts routed to this process"
            )
        return cls(
            callback=can_use_tool,
            deny_all=bool(deny_all_permissions),
            prompt_tool_name=permission_prompt_tool_name,
        )

    @property
    def prompt_tool(self) -> Optional[str]:
        """The CLI's ``--permission-prompt-tool`` value: ``"stdio"`` when the prompts come to
        this process, the named MCP tool, or None (flag left out)."""
        if self.callback is not None or self.deny_all:
            return "stdio"
        return self.prompt_tool_name


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


_SKILL_NAME_FORBIDDEN = r"[(),\x00-\x1f\x7f-\x9f\ufeff]|[\ud800-\udfff]"
"""Characters the CLI's ``--allowedTools`` splitter or rule parser would mangle (a pattern
compiled on first use, by ``re``'s cache: ~1 ms, for runs with ``skills`` only)."""


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
    if re.search(_SKILL_NAME_FORBIDDEN, name):
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


# ------------------------------------------------------------------ matching one call

_RULE = re.compile(r"\A([A-Za-z0-9_.-]+)(?:\((.*)\))?\Z", re.DOTALL)
_NAME_FIELDS = {"Skill": "skill", "Agent": "subagent_type", "Task": "subagent_type"}
_OTHER_FIELDS = ("file_path", "notebook_path", "path", "url", "pattern", "query", "skill", "subagent_type")


def check_rule(rule: object) -> Tuple[str, Optional[str]]:
    """``(tool, content)`` of a rule such as ``"Bash"``, ``"Bash(rm:*)"``, ``"Read(/etc/*)"``,
    ``"WebFetch(domain:example.com)"`` or ``"mcp__server"`` (content None: the whole tool).

    Raises ``TypeError`` for a non-str, ``ValueError`` naming the rule when it has no tool name,
    unbalanced parentheses, or control characters.
    """
    if not isinstance(rule, str):
        raise TypeError(f"a tool rule must be a str, got {type(rule).__name__}: {rule!r}")
    match = _RULE.match(rule.strip())
    if match is None or re.search(r"[\x00-\x08\x0b-\x1f\x7f]|[\ud800-\udfff]", rule):
        raise ValueError(
            f"invalid tool rule {rule!r}: expected Tool or Tool(content), e.g. 'Bash(rm:*)', 'Read(/etc/*)'"
        )
    content = match.group(2)
    return match.group(1), (None if content is None or content.strip() in ("", "*") else content.strip())


def check_policy_rule(rule: object) -> Tuple[str, Optional[str]]:
    """``check_rule``, and also ``ValueError`` naming the rule when it could never match a call
    the CLI makes (``Bash(:*)``, ``WebFetch(example.com)``, ``Read(domain:x)``, ``Read(~bob/x)``):
    an approval rule that never matches would let every call through unasked."""
    from .path_rules import PATH_RULE_TOOLS, path_pattern_problem  # rules of a policy only

    tool, content = check_rule(rule)
    problem = None
    if content is not None:
        if tool == "Bash":
            from .bash_rules import bash_content_problem  # the shell scanner: rules of a policy only

            problem = bash_content_problem(content)
        elif tool == "WebFetch" and not (content.startswith("domain:") and content[len("domain:"):].strip()):
            problem = "WebFetch rules take 'domain:host', e.g. 'WebFetch(domain:example.com)'"
        elif tool in PATH_RULE_TOOLS:
            problem = path_pattern_problem(content)
        elif tool.startswith("mcp__"):
            problem = "MCP rules name a server or a tool, without parentheses"
    if problem:
        raise ValueError(f"tool rule {rule!r} can never match: {problem}")
    return tool, content


def rule_matches(
    rule: str, tool_name: str, tool_input: Any, cwd: Optional[str] = None, homes: Sequence[str] = ()
) -> bool:
    """Whether ``rule`` (the ``allowed_tools`` syntax) names this call, failing closed: True
    whenever the call cannot be shown to fall outside it.

    ``Tool`` / ``Tool(*)``: every call of it; ``mcp__server``: every tool of that server.
    ``Bash(…)``: ``bash_rules.bash_rule_matches`` (every command of the line, through shell
    grammar, wrappers and nested shells). Path rules (``Read``, ``Edit``, ``Write`` …):
    ``path_rules.path_rule_matches`` against ``cwd`` and ``homes`` (a ``Read`` rule covers
    every tool that reads a file). ``WebFetch(domain:host)``: the URL's host is ``host`` or
    under it. ``Skill(name)``/``Agent(type)``: that name (``*`` wildcards). A missing or
    non-``str`` field the rule needs, or a non-mapping input, matches. Raises as ``check_rule``.
    """
    from .path_rules import PATH_RULE_TOOLS, path_rule_matches, path_rule_tools  # rules of a policy only

    tool, content = check_rule(rule)
    if tool.startswith("mcp__") and tool.count("__") == 1:
        return tool_name == tool or tool_name.startswith(tool + "__")
    if content is not None and tool in PATH_RULE_TOOLS:
        if tool_name not in path_rule_tools(tool):
            return False
    elif tool != tool_name:
        return False
    if content is None:
        return True
    if not isinstance(tool_input, Mapping):
        return True
    if tool_name == "Bash":
        from .bash_rules import bash_rule_matches

        return bash_rule_matches(content, tool_input.get("command"))
    if tool in PATH_RULE_TOOLS:
        return path_rule_matches(content, tool_name, tool_input, cwd, homes)
    if content.startswith("domain:"):
        return _domain_matches(content[len("domain:"):], tool_input.get("url"))
    if tool in _NAME_FIELDS:
        value = tool_input.get(_NAME_FIELDS[tool])
        return not isinstance(value, str) or fnmatchcase(value, content)
    values = [tool_input[k] for k in _OTHER_FIELDS if k in tool_input]
    return any(not isinstance(v, str) or fnmatchcase(v, content) for v in values)


def _domain_matches(want: str, url: Any) -> bool:
    """Whether the URL's host is ``want`` or under it; an unparsable URL, one without a host
    and one with a backslash (URL parsers disagree on its host) match."""
    if not isinstance(url, str):
        return True
    from urllib.parse import urlsplit  # loads ipaddress: WebFetch rules only

    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return True
    if not host or "\\" in url:
        return True
    want = want.strip().lower().rstrip(".")
    return host == want or host.endswith("." + want)
