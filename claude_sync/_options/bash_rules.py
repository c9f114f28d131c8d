"""Whether a ``Bash(…)`` rule names a command line, failing closed (pure).

The rule's content, as the CLI documents it: ``Bash(rm:*)`` (a prefix: ``rm`` and whatever
follows), ``Bash(git commit *)`` (a wildcard: ``*`` matches anything, a single trailing `` *``
also matches nothing, so ``git commit`` too), ``Bash(npm run test)`` (exactly that command).

It is checked against **every** command ``shell_commands.commands_run`` finds in the line —
each simple command, the commands behind wrappers, in nested shells and substitutions — with
the command's name compared as written (after quote removal) and as a path's last part
(``/bin/rm`` is ``rm``), letter case aside (on a case-insensitive disk ``RM`` runs ``rm``). A
multi-word prefix lets options (and one argument each) stand in
between (``git -C repo push`` is ``git push``). It says "matches" whenever it cannot show that
no command matches: a line it could not follow (``unsure``), a command name computed at run
time (``$cmd x``), a later word computed at run time where the rule needs a word, a command
that is not a ``str``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, List, Optional, Pattern, Sequence, Set, Tuple

from .shell_commands import basename, commands_run
from .shell_scan import Word

__all__ = ["bash_content_problem", "bash_rule_matches"]


def bash_content_problem(content: str) -> Optional[str]:
    """Why a ``Bash(content)`` rule can never match (None: it can)."""
    if content.endswith(":*") and not content[:-2].strip():
        return "':*' needs a command in front of it, e.g. 'Bash(rm:*)'"
    if ":*" in content[:-2]:
        return "':*' is a prefix marker and only means that at the end, e.g. 'Bash(git push:*)'"
    return None


def bash_rule_matches(content: str, line: Any) -> bool:
    """Whether the line may run a command ``content`` names (see the module docstring).
    Never raises."""
    if not isinstance(line, str):
        return True
    found = commands_run(line)
    if found.unsure is not None:
        return True
    rule = _compiled(content)
    return any(rule.matches(command) for command in found.commands)


class _Rule:
    def __init__(self, content: str) -> None:
        self.prefix: Optional[List[str]] = None
        self.pattern: Optional[Pattern[str]] = None
        if content.endswith(":*"):
            self.prefix = content[:-2].split()
            self.first = self.prefix[0] if self.prefix else ""
        else:
            normal = " ".join(content.split())
            self.first = normal.split(" ", 1)[0] if normal else ""
            self.pattern = _wildcard(normal)

    def matches(self, command: Sequence[Word]) -> bool:
        head = command[0]
        if head.dynamic:
            return True
        names = {head.text, basename(head.text)}
        folded = {name.casefold() for name in names}  # a case-insensitive disk finds /bin/rm for RM
        own = {self.first, basename(self.first)}
        if self.prefix is not None:
            if not self.prefix or not ({name.casefold() for name in own} & folded):
                return False
            return _words_follow(self.prefix[1:], command[1:])
        assert self.pattern is not None
        if "*" not in self.first and not ({name.casefold() for name in own} & folded):
            return False
        if any(word.dynamic for word in command[1:]):
            return True
        rest = "".join(" " + word.text for word in command[1:])
        spelled = names | {name for name in own if name.casefold() in folded}  # RM x as the rule spells rm
        return any(self.pattern.fullmatch(name + rest) for name in spelled)


@lru_cache(maxsize=256)
def _compiled(content: str) -> _Rule:
    return _Rule(content)


def _wildcard(content: str) -> Pattern[str]:
    """``*`` matches anything; a lone trailing `` *`` may also match nothing."""
    if content.endswith(" *") and content.count("*") == 1:
        return re.compile(re.escape(content[:-2]) + r"(?: .*)?", re.DOTALL)
    return re.compile(".*".join(re.escape(part) for part in content.split("*")), re.DOTALL)


def _words_follow(wanted: Sequence[str], args: Sequence[Word]) -> bool:
    """Whether ``wanted`` can be the next words of ``args``, options (each with at most one
    argument) allowed in between; a word computed at run time may be anything."""
    if not wanted:
        return True
    reach: List[Set[int]] = [set() for _ in range(len(args) + 3)]
    reach[0].add(0)
    for j, arg in enumerate(args):
        for k in reach[j]:
            if arg.dynamic:
                return True
            if arg.text == wanted[k]:
                if k + 1 == len(wanted):
                    return True
                reach[j + 1].add(k + 1)
            if arg.text.startswith("-"):
                reach[j + 1].add(k)
                reach[j + 2].add(k)
    return False


def command_words(command: Sequence[Word]) -> Tuple[str, ...]:
    """The texts of a command's words (for messages and tests)."""
    return tuple(word.text for word in command)
