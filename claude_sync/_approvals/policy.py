"""``ApprovalPolicy``: which tool calls must wait for a person (pure).

::

    ApprovalPolicy(rules=["Bash(rm:*)", "Write(/etc/*)"])         # the allowed_tools syntax
    ApprovalPolicy(check=lambda name, tool_input: name == "Bash")  # or a callable
    ApprovalPolicy(rules=["WebFetch"], check=costs_money)          # either one asks

Rules are matched by ``_options.tool_rules.rule_matches`` (one matcher for the library), which
fails closed: a call it cannot show to fall outside a rule waits for a person. A rule that can
never match a call the CLI makes is refused when the policy is built. Path rules resolve against
the session's ``cwd`` and home (``reason_for``'s arguments); the call's path is also checked
with its symlinks resolved on this machine (``os.path.realpath``, the one filesystem read here).
``check(tool_name, tool_input)`` returns a truthy value to ask (a ``str`` is the reason the
person is shown) or a falsy one to let the call go on as usual; when it raises, the call
waits for a person with the error as the reason (fail closed, never silently allowed). The
policy pickles when ``check`` is a module-level function (for process pools and Dask).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .._options.tool_rules import check_policy_rule, rule_matches

__all__ = ["ApprovalPolicy", "PolicyCheck"]

PolicyCheck = Callable[[str, Dict[str, Any]], Union[bool, str, None]]
"""``check(tool_name, tool_input)``: truthy → ask a person (a ``str`` is the reason)."""


@dataclass(frozen=True)
class ApprovalPolicy:
    """Which tool calls need a person's approval: any of ``rules`` matches, or ``check`` says so.

    Raises ``TypeError`` when ``rules`` is a bare ``str`` or holds a non-str, or ``check`` is
    not callable; ``ValueError`` for a malformed rule or one that can never match (named);
    ``ValueError`` when the policy has neither rules nor a check (it would never ask).

    Attributes:
        rules: Rules in the ``allowed_tools`` syntax (``"Bash(rm:*)"``, ``"Write"``, …), a tuple.
        check: ``check(tool_name, tool_input)``, or None (see ``PolicyCheck``).
    """

    rules: Sequence[str] = ()
    check: Optional[PolicyCheck] = None

    def __post_init__(self) -> None:
        if isinstance(self.rules, (str, bytes)) or not isinstance(self.rules, (list, tuple)):
            hint = f" Did you mean [{self.rules!r}]?" if isinstance(self.rules, str) else ""
            raise TypeError(f"ApprovalPolicy.rules must be a list of rules, got {self.rules!r:.100}.{hint}")
        for rule in self.rules:
            check_policy_rule(rule)
        object.__setattr__(self, "rules", tuple(self.rules))
        if self.check is not None and not callable(self.check):
            raise TypeError(f"ApprovalPolicy.check must be callable, got {type(self.check).__name__}")
        if not self.rules and self.check is None:
            raise ValueError("an ApprovalPolicy needs rules or a check: this one would never ask")

    def reason_for(
        self, tool_name: str, tool_input: Dict[str, Any], cwd: Optional[str] = None, home: Optional[str] = None
    ) -> Optional[str]:
        """Why this call needs a person (None: it does not). Any thread; runs ``check``.

        ``cwd`` is the session's working directory (the hook input's ``cwd``) and ``home`` the
        CLI's home directory, for path rules (``Read(~/.ssh/*)``, ``Read(.env)``); unknown, a
        relative pattern matches at any depth. Never raises for the call's content: a
        malformed input, a rule it cannot decide or a ``check`` that raises gives a reason
        (the call waits), not an error.
        """
        try:
            matched = self._matching_rule(tool_name, tool_input, cwd, home)
        except Exception as exc:  # noqa: BLE001 - fail closed: the call waits for a person
            return f"the approval rules could not be checked ({type(exc).__name__}); asking"
        if matched is not None:
            return f"{tool_name} call matches the approval rule {matched!r}"
        if self.check is None:
            return None
        try:
            verdict = self.check(tool_name, dict(tool_input))
            if isinstance(verdict, str) and verdict:
                return verdict
            return f"{tool_name} call needs approval (policy check)" if verdict else None
        except Exception as exc:  # noqa: BLE001 - fail closed: the call waits for a person
            return f"the approval policy's check raised {type(exc).__name__}: {exc}"

    def _matching_rule(self, tool_name: Any, tool_input: Any, cwd: Optional[str], home: Optional[str]) -> Optional[str]:
        if not self.rules:
            return None
        name = tool_name if isinstance(tool_name, str) else ""
        homes = _homes(home)
        inputs = _with_real_paths(tool_input, cwd, homes) if isinstance(tool_input, dict) else [None]
        for rule in self.rules:
            if any(rule_matches(rule, name, each, cwd, homes) for each in inputs):
                return rule
        return None

    def shadowing_rules(
        self,
        allowed_tools: Sequence[str],
        tool_name: str,
        tool_input: Dict[str, Any],
        cwd: Optional[str] = None,
        home: Optional[str] = None,
    ) -> Tuple[str, ...]:
        """The ``allowed_tools`` entries that may approve this call outright (dropped on resume,
        so a CLI that skips the hook must ask ``can_use_tool``). Fails closed: an entry that
        cannot be shown not to approve the call is dropped."""
        homes = _homes(home)
        inputs = _with_real_paths(tool_input, cwd, homes) if isinstance(tool_input, dict) else [None]
        return tuple(rule for rule in allowed_tools if any(rule_matches(rule, tool_name, each, cwd, homes) for each in inputs))


_PATH_KEYS = ("file_path", "notebook_path", "path")


def _homes(home: Optional[str]) -> Tuple[str, ...]:
    """The CLI's home (when known), this process's and the account's (a CLI given ``HOME=""``
    uses that one): a ``~`` rule is checked against each."""
    found = [home] if isinstance(home, str) and home.startswith("/") else []
    found.append(os.path.expanduser("~"))
    found.append(_account_home())
    return tuple(dict.fromkeys(h for h in found if h.startswith("/")))


def _account_home() -> str:
    try:
        import pwd  # POSIX only

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError, AttributeError):
        return ""


def _with_real_paths(tool_input: Dict[str, Any], cwd: Optional[str], homes: Sequence[str]) -> List[Any]:
    """The input, and a copy for each path with its symlinks resolved (so a link cannot walk
    around a path rule): an absolute path as it is, a relative one from ``cwd`` (``Grep``'s
    ``path: "innocent"`` searched ``~/.ssh`` through a link in the project, red team), a ``~``
    one from each home. A path that cannot be resolved becomes None in its copy (the rule then
    matches)."""
    variants: List[Any] = [tool_input]
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if not isinstance(value, str) or not value:
            continue
        for absolute in _absolute_forms(value, cwd, homes):
            try:
                real: Optional[str] = os.path.realpath(absolute)
            except (OSError, ValueError):
                real = None  # unresolvable: the rule matches
            if real != value:
                variants.append({**tool_input, key: real})
    return variants


def _absolute_forms(path: str, cwd: Optional[str], homes: Sequence[str]) -> List[str]:
    if path.startswith("/"):
        return [path]
    if path == "~" or path.startswith("~/"):
        return [home + path[1:] for home in homes]
    return [cwd + "/" + path] if isinstance(cwd, str) and cwd.startswith("/") else []
