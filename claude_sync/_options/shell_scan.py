"""Every simple command bash would run from one command line (pure).

``scan(line)`` walks the line as bash's parser does, far enough to find each **command
position**: the start, after ``;`` ``&`` ``&&`` ``||`` ``|`` ``|&`` ``;;`` and newlines, after
the keywords that start a command (``if then else elif while until do ! {`` and the closing
ones), after leading assignments and redirections, inside subshells, ``$(…)``, backticks,
``<(…)``/``>(…)``, ``${…}`` and unquoted here-documents. Each simple command comes back as its
words after quote and backslash removal, each word marked ``dynamic`` when bash would expand
it (``$x``, ``${…}``, ``$(…)``, backticks, globs, brace lists, ``$'\\…'``): its text is then
not what runs.

It over-approximates on purpose: a ``case`` pattern or a ``[[ … ]]`` operand may come back as a
"command" too (asking about it is the safe side). What it cannot follow (unbalanced quotes or
parentheses, nesting deeper than ``MAX_DEPTH``, more than ``MAX_CHARS`` characters in all,
a ``case`` inside a substitution, a NUL or a lone surrogate) sets ``unsure`` to the reason; the commands found are then
not all there are. Never raises for any ``str``.
"""

from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Tuple

__all__ = ["MAX_CHARS", "MAX_DEPTH", "ShellScan", "Word", "scan"]

MAX_CHARS = 256 * 1024
"""Characters scanned in all for one line (nested ``bash -c`` strings included)."""
MAX_DEPTH = 24
"""Nesting of subshells, substitutions and nested shell strings followed."""

_BREAK = frozenset(" \t\n;&|()<>")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_BRACE_LIST = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_GLOB = re.compile(r"[*?]|\[.*\]")
_PLAIN_RUN = re.compile(r"[^\s;&|()<>'\"\\$`]+")
_FD = re.compile(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}")
_MAYBE_PATTERN = re.compile(r"[*?\[{]")
_UNREADABLE = re.compile("[\x00\ud800-\udfff]")
_OPENERS = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{", "}", "fi", "done", "esac"})
"""Reserved words after which (or instead of which) a command position stays open."""


class Word(NamedTuple):
    """One word of a simple command: ``text`` after quote removal; ``dynamic`` when bash expands
    it at run time (its real value is unknown)."""

    text: str
    dynamic: bool


class ShellScan(NamedTuple):
    """The simple commands of a line (each a tuple of ``Word``) and why the list may be
    incomplete (``unsure``), or None when every command position was followed."""

    commands: Tuple[Tuple[Word, ...], ...]
    unsure: Optional[str]


class _Unsure(Exception):
    pass


class _Budget:
    def __init__(self, chars: int) -> None:
        self.chars = chars

    def spend(self, n: int) -> None:
        self.chars -= n
        if self.chars < 0:
            raise _Unsure(f"the command line is longer than {MAX_CHARS} characters in all")


def scan(line: str, depth: int = 0, budget: Optional[object] = None) -> ShellScan:
    """The simple commands of ``line`` (see the module docstring). ``depth`` and ``budget`` carry
    the limits into nested shell strings (``bash -c``, ``eval``): pass the ``ShellScan``-giving
    caller's own. Never raises."""
    if not isinstance(line, str):
        return ShellScan((), f"the command is a {type(line).__name__}, not a str")
    shared = budget if isinstance(budget, _Budget) else _Budget(MAX_CHARS)
    scanner = _Scanner(line, depth, shared)
    try:
        if depth > MAX_DEPTH:
            raise _Unsure(f"commands nested deeper than {MAX_DEPTH} levels")
        shared.spend(len(line))
        if _UNREADABLE.search(line):
            raise _Unsure("a NUL or a lone surrogate: the shell would not see these characters as written")
        scanner.parse_list(closer=None)
        return ShellScan(tuple(scanner.commands), None)
    except _Unsure as exc:
        return ShellScan(tuple(scanner.commands), str(exc))
    except RecursionError:
        return ShellScan(tuple(scanner.commands), "commands nested too deeply to follow")


def _skip_blanks(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t":
        i += 1
    return i


def new_budget() -> object:
    """A fresh character budget for one line and everything nested in it."""
    return _Budget(MAX_CHARS)


class _Scanner:
    def __init__(self, s: str, depth: int, budget: _Budget) -> None:
        self.s = s
        self.i = 0
        self.depth = depth
        self.budget = budget
        self.commands: List[Tuple[Word, ...]] = []
        self.heredocs: List[Tuple[str, bool, bool]] = []

    # ------------------------------------------------------------------ lists and commands

    def parse_list(self, closer: Optional[str]) -> None:
        """Commands until ``closer`` (``)``) or the end; a missing closer is unsure."""
        s, n = self.s, len(self.s)
        words: List[Word] = []
        while True:
            self.i = _skip_blanks(s, self.i)
            if self.i >= n:
                self._end(words)
                if closer is not None:
                    raise _Unsure("a '(' , '$(' or '<(' is never closed")
                return
            c = s[self.i]
            if c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = n if end == -1 else end
            elif c == "\n":
                self._end(words)
                self.i += 1
                self._read_heredocs()
            elif c == ")":
                self._end(words)
                self.i += 1
                if closer == ")":
                    return
            elif c == "(" and not words and self._arithmetic(2):
                continue
            elif c == "(":
                self._end(words)
                self.i += 1
                self._nested(")")
            elif c in "<>" and s.startswith("(", self.i + 1):
                words.append(self._read_word())
            elif c in "<>" or s.startswith("&>", self.i):
                self._redirection(words)
            elif c in ";&|":
                self._end(words)
                self.i += 1
                while self.i < n and s[self.i] in ";&|":
                    self.i += 1
            else:
                start = self.i
                word = self._read_word()
                if self.i < n and s[self.i] in "<>" and _FD.fullmatch(s, start, self.i):
                    continue  # a file descriptor in front of a redirection
                raw = s[start : self.i]
                if raw == "case" and not words and closer is not None:
                    raise _Unsure("a case statement inside a substitution or subshell")
                if raw == "{":  # a group or function body opens here (echo { is merely over-scanned)
                    self._end(words)
                    continue
                if not words and self._opens(raw):
                    continue
                words.append(word)

    @staticmethod
    def _opens(raw: str) -> bool:
        """Whether a word at a command position leaves the position open (keyword, assignment)."""
        return raw in _OPENERS or _ASSIGNMENT.match(raw) is not None

    def _arithmetic(self, skip: int) -> bool:
        """At ``((`` (``skip`` 2) or ``$((`` (3): when a matching ``))`` follows, the
        substitutions inside are scanned, the position moves past it, and True (else False:
        bash reads nested subshells then)."""
        s, n = self.s, len(self.s)
        if not s.startswith("((", self.i + skip - 2):
            return False
        depth, j = 0, self.i + skip
        while j < n:
            if s[j] == "(":
                depth += 1
            elif s[j] == ")":
                if depth == 0:
                    if s.startswith("))", j):
                        self._expansions_in(s[self.i + skip : j])
                        self.i = j + 2
                        return True
                    return False
                depth -= 1
            j += 1
        return False

    def _end(self, words: List[Word]) -> None:
        if words:
            self.commands.append(tuple(words))
            words.clear()

    def _nested(self, closer: str) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Unsure(f"commands nested deeper than {MAX_DEPTH} levels")
        self.parse_list(closer)
        self.depth -= 1

    def _redirection(self, words: List[Word]) -> None:
        s = self.s
        match = re.compile(r"<<<|<<-|<<|<>|<&|>>|>\||>&|&>>|&>|<|>").match(s, self.i)
        assert match is not None
        op = match.group()
        self.i = match.end()
        if op in ("<&", ">&"):
            dup = re.compile(r"[0-9]*-?(?=[\s;&|()<>]|\Z)").match(s, self.i)
            if dup is not None and dup.end() > self.i:
                self.i = dup.end()
                return
        while self.i < len(s) and s[self.i] in " \t":
            self.i += 1
        if self.i >= len(s) or s[self.i] in "\n;&|()" or (s[self.i] in "<>" and not s.startswith("(", self.i + 1)):
            raise _Unsure(f"a '{op}' redirection without a target")
        start = self.i
        target = self._read_word()
        if op in ("<<", "<<-"):
            raw = s[start : self.i]
            self.heredocs.append((target.text, any(q in raw for q in "'\"\\"), op == "<<-"))

    def _read_heredocs(self) -> None:
        """The bodies of the here-documents opened on the line just ended."""
        pending, self.heredocs = self.heredocs, []
        for delimiter, quoted, strip_tabs in pending:
            body_start = self.i
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end == -1 else end
                line = self.s[self.i : end]
                self.i = min(end + 1, len(self.s))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    body_end = self.i - len(line) - 1
                    break
            else:
                body_end = len(self.s)
            if not quoted:
                self._expansions_in(self.s[body_start:max(body_start, body_end)])

    def _expansions_in(self, text: str) -> None:
        """Commands in the ``$(…)``/backticks of text bash expands but does not split into
        commands (a here-document body, arithmetic)."""
        inner = _Scanner(text, self.depth, self.budget)
        inner.commands = self.commands
        n = len(text)
        while inner.i < n:
            c = text[inner.i]
            if c == "\\":
                inner.i += 2
            elif c == "$":
                inner._read_dollar(in_quotes=True)
            elif c == "`":
                inner._read_backticks()
            else:
                inner.i += 1

    # ------------------------------------------------------------------ words

    def _read_word(self) -> Word:
        s, n = self.s, len(self.s)
        text: List[str] = []
        unquoted: List[str] = []
        dynamic = False
        if s[self.i] in "<>":  # process substitution <(…) / >(…)
            self.i += 2
            self._nested(")")
            dynamic = True
        while self.i < n and s[self.i] not in _BREAK:
            c = s[self.i]
            run = _PLAIN_RUN.match(s, self.i)
            if run is not None:
                text.append(run.group())
                unquoted.append(run.group())
                self.i = run.end()
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end == -1:
                    raise _Unsure("an unterminated ' quote")
                text.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                self.i += 1
                part, dyn = self._read_double_quoted()
                text.append(part)
                dynamic = dynamic or dyn
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":
                        text.append(s[self.i + 1])
                    self.i += 2
                else:
                    text.append("\\")
                    self.i += 1
            elif c in "$`":
                part, dyn = self._read_expansion(in_quotes=False)
                text.append(part)
                dynamic = dynamic or dyn
            else:
                text.append(c)
                unquoted.append(c)
                self.i += 1
        plain = "".join(unquoted)
        if _MAYBE_PATTERN.search(plain) and (_GLOB.search(plain) or _BRACE_LIST.search(plain)):
            dynamic = True
        return Word("".join(text), dynamic)

    def _read_double_quoted(self) -> Tuple[str, bool]:
        """From just after an opening ``"`` to just after its closing one."""
        s, n = self.s, len(self.s)
        text: List[str] = []
        dynamic = False
        while self.i < n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return "".join(text), dynamic
            if c == "\\" and self.i + 1 < n:
                nxt = s[self.i + 1]
                if nxt in '$`"\\':
                    text.append(nxt)
                elif nxt != "\n":
                    text.append(c + nxt)
                self.i += 2
            elif c in "$`":
                part, dyn = self._read_expansion(in_quotes=True)
                text.append(part)
                dynamic = dynamic or dyn
            else:
                text.append(c)
                self.i += 1
        raise _Unsure('an unterminated " quote')

    def _read_expansion(self, in_quotes: bool) -> Tuple[str, bool]:
        """At a ``$`` or a backtick: the text it stands for and whether it is computed."""
        if self.s[self.i] == "`":
            self._read_backticks()
            return "", True
        return self._read_dollar(in_quotes)

    def _read_dollar(self, in_quotes: bool = False) -> Tuple[str, bool]:
        s = self.s
        nxt = s[self.i + 1 : self.i + 2]
        if nxt == "(" and self._arithmetic(3):
            return "", True
        if nxt == "(":
            self.i += 2
            self._nested(")")
            return "", True
        if nxt == "{":
            self.i += 2
            self._read_braced()
            return "", True
        if nxt == "[":
            end = s.find("]", self.i)
            if end == -1:
                raise _Unsure("an unterminated $[")
            self._expansions_in(s[self.i + 2 : end])
            self.i = end + 1
            return "", True
        if nxt == "'" and not in_quotes:
            match = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.DOTALL).match(s, self.i)
            if match is None:
                raise _Unsure("an unterminated $' quote")
            self.i = match.end()
            return match.group(1), "\\" in match.group(1)
        if nxt == '"' and not in_quotes:
            self.i += 2
            return self._read_double_quoted()
        match = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])").match(s, self.i)
        if match is not None:
            self.i = match.end()
            return "", True
        self.i += 1
        return "$", False

    def _read_braced(self) -> None:
        """A ``${…}`` from just after ``${`` to after its ``}``; substitutions inside it run."""
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c == "}":
                self.i += 1
                return
            if c == "\\":
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end == -1:
                    raise _Unsure("an unterminated ' quote in ${…}")
                self.i = end + 1
            elif c == '"':
                self.i += 1
                self._read_double_quoted()
            elif c in "$`":
                self._read_expansion(in_quotes=True)
            else:
                self.i += 1
        raise _Unsure("an unterminated ${")

    def _read_backticks(self) -> None:
        """A backtick substitution: its text (``\\``` ``\\$`` ``\\\\`` unescaped) is scanned."""
        s, n = self.s, len(self.s)
        j = self.i + 1
        inner: List[str] = []
        while j < n and s[j] != "`":
            if s[j] == "\\" and j + 1 < n:
                inner.append(s[j + 1] if s[j + 1] in "`$\\" else s[j : j + 2])
                j += 2
            else:
                inner.append(s[j])
                j += 1
        if j >= n:
            raise _Unsure("an unterminated ` substitution")
        self.i = j + 1
        self.depth += 1
        nested = scan("".join(inner), self.depth, self.budget)
        self.depth -= 1
        self.commands.extend(nested.commands)
        if nested.unsure:
            raise _Unsure(nested.unsure)
