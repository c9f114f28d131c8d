"""The commands a Bash line runs, through wrappers and nested shells (pure).

``commands_run(line)`` takes each simple command ``shell_scan.scan`` finds and adds what it runs
in turn: the command behind a wrapper, after the wrapper's own options and their arguments
(``env -u X``, ``nice -n 5``, ``timeout -s KILL 5``, ``sudo -u root``, ``xargs -n 1``,
``exec -a name``, ``stdbuf -o0``, ``time -p``, ``chroot DIR``, ``flock FILE`` …), each
``find -exec/-execdir/-ok/-okdir`` command, and the commands of a string run by a shell
(``bash -c``, ``sh -c``, ``eval``, ``su -c``, ``script -c``, ``flock -c``/``--command``,
``env -S``/``--split-string``, ``watch``, ``ssh host …``, ``sudo -s``, ``trap``, ``alias``,
``parallel``), to ``MAX_DEPTH``;
the program ``hash -p PROGRAM name`` binds a name to counts as a command too, and so does
every word after a tool runner's run subcommand (``uv run``, ``npm exec`` …).

A wrapper option it does not know makes every later word a possible command (one of them is).
What it cannot see sets ``unsure``: a shell reading commands from stdin (``… | bash``,
``bash -s``, ``bash <<EOF``, ``bash /dev/stdin``), ``fc`` (a command from the history), a
``-c``/``eval`` string or a ``source`` file that is computed at run time, and whatever ``scan``
could not follow. Never raises for any ``str``.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from .shell_scan import MAX_DEPTH, ShellScan, Word, new_budget, scan

__all__ = ["Commands", "basename", "commands_run"]

Command = Tuple[Word, ...]


class Commands(NamedTuple):
    """Every command a line may run (wrappers and the commands they run, each), and why the
    list may be incomplete (``unsure``; None when nothing was left unseen)."""

    commands: Tuple[Command, ...]
    unsure: Optional[str]


class _Spec(NamedTuple):
    """A wrapper's options: short ones taking an argument, short flags, long ones taking an
    argument (``--x y``; ``--x=y`` is always one word), long flags, words before the command."""

    short_arg: str = ""
    short_flag: str = ""
    long_arg: FrozenSet[str] = frozenset()
    long_flag: FrozenSet[str] = frozenset()
    positionals: int = 0
    string_opts: str = ""
    """Short options whose argument is a command string (``su -c``, ``env -S``)."""
    long_string: FrozenSet[str] = frozenset()
    """Long options whose argument is a command string (``env --split-string``, ``flock --command``)."""
    join_rest: bool = False
    """The words after the options are one command string (``ssh host …``, ``watch``)."""


def _f(*names: str) -> FrozenSet[str]:
    return frozenset(names)


_WRAPPERS: Dict[str, _Spec] = {
    "env": _Spec("uCS", "i0v", _f("unset", "chdir", "split-string"), _f("ignore-environment", "null", "debug"),
                 string_opts="S", long_string=_f("split-string")),
    "nice": _Spec("n", "", _f("adjustment")),
    "ionice": _Spec("cnpPu", "th", _f("class", "classdata", "pid", "pgid", "uid"), _f("ignore")),
    "timeout": _Spec("sk", "v", _f("signal", "kill-after"), _f("foreground", "preserve-status", "verbose"), positionals=1),
    "setsid": _Spec("", "cfw", long_flag=_f("ctty", "fork", "wait")),
    "stdbuf": _Spec("ioe", "", _f("input", "output", "error")),
    "nohup": _Spec(),
    "command": _Spec("", "p"),
    "builtin": _Spec(),
    "exec": _Spec("a", "cl"),
    "time": _Spec("fo", "pavq", _f("format", "output"), _f("append", "verbose", "quiet", "portability")),
    "sudo": _Spec("CDgpRrTtUu", "AbBEHiKklLnNPSsVve", _f("user", "group", "prompt", "close-from", "chdir", "role",
                  "type", "command-timeout", "other-user", "chroot", "host"),
                  _f("askpass", "background", "bell", "preserve-env", "set-home", "login", "remove-timestamp",
                     "reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell", "validate", "edit"),
                  join_rest=True),  # sudo -s/-i hand the words to a shell as one string
    "doas": _Spec("uC", "nsL"),
    "xargs": _Spec("adEILnPs", "0oprtxei", _f("arg-file", "delimiter", "max-args", "max-procs", "max-chars",
                   "process-slot-var"), _f("null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit",
                   "show-limits", "replace", "eof", "max-lines")),
    "watch": _Spec("nq", "bcdegtxpwrhv", _f("interval", "differences"), _f("beep", "color", "errexit", "chgexit",
                   "no-title", "exec", "precise", "no-wrap", "no-linewrap"), join_rest=True),
    "chroot": _Spec("", "", _f("userspec", "groups"), _f("skip-chdir"), positionals=1),
    "flock": _Spec("wEc", "sxunoFhV", _f("timeout", "wait", "conflict-exit-code", "command"),
                   _f("shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose"),
                   positionals=1, string_opts="c", long_string=_f("command")),
    "unbuffer": _Spec("", "p"),
    "ssh": _Spec("BbcDEeFIiJLlmOoPpQRSWw", "46AaCfGgKkMNnqsTtVvXxYy", positionals=1, join_rest=True),
    "sg": _Spec("", "", positionals=1, string_opts="c", join_rest=True),
    "busybox": _Spec(),
    "toybox": _Spec(),
    "caffeinate": _Spec("tw", "dimsu"),
    "eatmydata": _Spec(),
    "catchsegv": _Spec(),
}
_EVERY_WORD = frozenset({
    "parallel", "coproc", "strace", "ltrace", "valgrind", "gdb", "perf", "taskset", "chrt", "numactl", "unshare",
    "nsenter", "systemd-run", "firejail", "bwrap", "proxychains", "proxychains4", "torsocks", "fakeroot", "pkexec",
    "prlimit", "cgexec", "runuser", "gosu", "su-exec", "chpst", "setpriv", "xvfb-run", "dbus-run-session", "tini",
    "dumb-init", "nocache", "trickle", "rlwrap", "script", "su", "sem", "with-contenv", "s6-setuidgid", "npx", "uvx",
    "bunx", "pnpx",
})  # fmt: skip
"""Wrappers followed through every later word (any of them may be the command)."""
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "ash", "yash", "posh", "rbash",
                     "fish", "csh", "tcsh"})  # fmt: skip
_SHELL_ARG_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_STRING_RUNNERS = frozenset({"eval", "trap", "alias"})
"""Builtins whose arguments are shell code."""
_ARITHMETIC = frozenset({"let", "declare", "typeset", "local", "export", "readonly", "printf", "read", "test", "[",
                         "[[", "unset", "mapfile", "readarray", "source", "."})  # fmt: skip
"""Builtins that may evaluate an array subscript (and the ``$(…)`` in it) from a quoted word."""
_RUN_SUBCOMMANDS: Dict[str, FrozenSet[str]] = {
    "uv": _f("run", "tool"), "poetry": _f("run"), "pipenv": _f("run"), "pdm": _f("run"), "hatch": _f("run"),
    "rye": _f("run"), "pixi": _f("run", "exec"), "conda": _f("run"), "mamba": _f("run"), "micromamba": _f("run"),
    "npm": _f("exec", "x"), "pnpm": _f("exec", "dlx"), "yarn": _f("exec", "dlx"), "bun": _f("x", "exec"),
}  # fmt: skip
"""Tools whose subcommand runs any command given after it (``uv run rm x``, ``npm exec -- rm x``)."""
_STDIN_FILES = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/", "-")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SUFFIXES_FOLLOWED = 256


def basename(word: str) -> str:
    """The name a command word runs under: the last part of a path (``/bin/rm`` → ``rm``)."""
    return word.rstrip("/").rsplit("/", 1)[-1] if "/" in word.rstrip("/") else word


def commands_run(line: str) -> Commands:
    """Every command ``line`` may run (see the module docstring). Never raises."""
    walk = _Walk()
    walk.line(line, 0)
    return Commands(tuple(walk.commands), walk.unsure)


class _Walk:
    def __init__(self) -> None:
        self.commands: List[Command] = []
        self.unsure: Optional[str] = None
        self.budget = new_budget()

    def doubt(self, why: str) -> None:
        if self.unsure is None:
            self.unsure = why

    def line(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.doubt(f"shell strings nested deeper than {MAX_DEPTH} levels")
            return
        result: ShellScan = scan(text, depth, self.budget)
        if result.unsure:
            self.doubt(result.unsure)
        for command in result.commands:
            self.command(command, depth)

    def command(self, words: Sequence[Word], depth: int) -> None:
        if not words:
            return
        if depth > MAX_DEPTH:
            self.doubt(f"wrappers nested deeper than {MAX_DEPTH} levels")
            return
        command = tuple(words)
        self.commands.append(command)
        head = words[0]
        if head.dynamic:
            return  # the matcher asks about a name it cannot know
        name = basename(head.text).casefold()  # a case-insensitive disk runs env for ENV
        rest = list(words[1:])
        if name in _SHELLS:
            self.shell(name, rest, depth)
        elif name in _STRING_RUNNERS:
            self.string_runner(name, rest, depth)
        elif name in _ARITHMETIC:
            self.subscripts(name, rest, depth)
        elif name == "find":
            self.find(rest, depth)
        elif name == "hash":  # hash -p /bin/rm ls: later "ls" runs /bin/rm
            for k, word in enumerate(rest[:-1]):
                if word.text.startswith("-") and "p" in word.text:
                    self.command(rest[k + 1 : k + 2], depth + 1)
        elif name in _RUN_SUBCOMMANDS:
            if any(w.dynamic or w.text in _RUN_SUBCOMMANDS[name] for w in rest):
                self.every_word(rest, depth)
        elif name == "fc" and not any(w.text.startswith("-") and "l" in w.text and not w.dynamic for w in rest):
            self.doubt("fc runs a command from the shell's history (or an editor), which the line does not show")
        elif name in _EVERY_WORD:
            self.every_word(rest, depth)
        elif name in _WRAPPERS and not (name == "command" and any(w.text in ("-v", "-V") for w in rest[:2])):
            self.wrapper(_WRAPPERS[name], rest, depth)

    # ------------------------------------------------------------------ the kinds of runners

    def wrapper(self, spec: _Spec, words: List[Word], depth: int) -> None:
        i, positionals = 0, spec.positionals
        while i < len(words):
            word = words[i]
            text = word.text
            if word.dynamic and text.startswith("-") or word.dynamic and i == 0 and positionals:
                self.every_word(words[i:], depth)
                return
            if text == "--":
                i += 1
                break
            if text.startswith("--"):
                key = text[2:].split("=", 1)[0]
                if key in spec.long_string:
                    attached = "=" in text
                    argument = words[i] if attached else (words[i + 1] if i + 1 < len(words) else Word("", False))
                    self.string(argument.text.split("=", 1)[-1] if attached else argument.text, argument.dynamic, depth)
                    i += 1 if attached else 2
                    continue
                if "=" in text or key in spec.long_flag:
                    i += 1
                    continue
                if key in spec.long_arg:
                    i += 2
                    continue
                self.every_word(words[i:], depth)
                return
            if text.startswith("-") and len(text) > 1:
                used = self.short_options(spec, words, i, depth)
                if used == 0:
                    self.every_word(words[i:], depth)
                    return
                i += used
                continue
            if "=" in text and spec is _WRAPPERS["env"]:
                i += 1
                continue
            if positionals:
                positionals -= 1
                i += 1
                continue
            break
        if spec is _WRAPPERS["ssh"] and i >= len(words):
            self.doubt("ssh without a command runs a remote shell reading stdin, which the line does not show")
        elif spec.join_rest and i < len(words):
            self.joined(words[i:], depth)
        elif i < len(words):
            self.command(words[i:], depth + 1)

    def short_options(self, spec: _Spec, words: List[Word], i: int, depth: int) -> int:
        """Words one short-option cluster takes (0: an option the spec does not know)."""
        cluster = words[i].text[1:]
        for k, letter in enumerate(cluster):
            if letter in spec.short_arg:
                attached = cluster[k + 1 :]
                argument = attached if attached else (words[i + 1].text if i + 1 < len(words) else "")
                if letter in spec.string_opts:
                    self.string(argument, (not attached and i + 1 < len(words) and words[i + 1].dynamic), depth)
                return 1 if attached else 2
            if letter.isdigit() and cluster.isdigit():
                return 1  # nice -5
            if letter not in spec.short_flag:
                return 0
        return 1

    def every_word(self, words: Sequence[Word], depth: int) -> None:
        """An unknown option (or a wrapper too rich to parse): each later word may be the command."""
        starts = [k for k, word in enumerate(words) if word.dynamic or not word.text.startswith("-")]
        if len(starts) > _SUFFIXES_FOLLOWED:
            self.doubt("too many words after a wrapper to follow each")
            return
        for k in starts:
            word = words[k]
            self.command(words[k:], depth + 1)
            if " " in word.text or ";" in word.text:
                self.string(word.text, word.dynamic, depth)  # parallel "rm {}", su -c, script -c
        for word in words:
            value = word.text.split("=", 1)[-1]
            if word.text.startswith("--") and "=" in word.text and (" " in value or ";" in value):
                self.string(value, word.dynamic, depth)  # su --command="rm x", script --command=…

    def shell(self, name: str, words: List[Word], depth: int) -> None:
        i, command_string, reads_stdin = 0, False, False
        while i < len(words) and words[i].text[:1] in "-+" and words[i].text not in ("-", "--"):
            text = words[i].text
            if words[i].dynamic:
                self.doubt(f"{name} is given an option computed at run time")
                return
            if text in _SHELL_ARG_OPTS:
                i += 2
                continue
            if text.startswith("--"):
                command_string = command_string or text.startswith("--command")
                i += 1
                continue
            command_string = command_string or "c" in text[1:]
            reads_stdin = reads_stdin or "s" in text[1:]
            i += 1
        if i < len(words) and words[i].text == "--":
            i += 1
        if command_string:
            if i >= len(words):
                self.doubt(f"{name} -c without a command string")
            else:
                self.string(words[i].text, words[i].dynamic, depth)
        elif reads_stdin or i >= len(words) or words[i].text == "-" or words[i].text.startswith(_STDIN_FILES[:3]):
            self.doubt(f"{name} reads its commands from stdin, which the line does not show")
        elif words[i].dynamic:
            self.doubt(f"{name} runs a script whose name is computed at run time")

    def string_runner(self, name: str, words: List[Word], depth: int) -> None:
        if name == "alias":
            for word in words:
                self.string(word.text.split("=", 1)[-1], word.dynamic, depth)
        elif name == "trap":
            handlers = [w for w in words if w.dynamic or not w.text.startswith("-")]
            if handlers:
                self.string(handlers[0].text, handlers[0].dynamic, depth)
        else:
            self.string(" ".join(w.text for w in words), any(w.dynamic for w in words), depth)

    def subscripts(self, name: str, words: List[Word], depth: int) -> None:
        for word in words:
            if "$(" in word.text or "`" in word.text:
                self.line(word.text, depth + 1)
        if name in ("source", ".") and words:
            target = words[0]
            if target.dynamic or target.text.startswith(_STDIN_FILES):
                self.doubt(f"{name} reads commands from a file the line does not show ({target.text or 'computed'})")

    def find(self, words: List[Word], depth: int) -> None:
        i = 0
        while i < len(words):
            if words[i].text in _FIND_EXEC and not words[i].dynamic:
                end = i + 1
                while end < len(words) and words[end].text not in (";", "+"):
                    end += 1
                self.command(words[i + 1 : end], depth + 1)
                i = end
            i += 1

    def joined(self, words: Sequence[Word], depth: int) -> None:
        """Words a shell reads again as one command string (``ssh host rm x``, ``watch rm x``)."""
        self.command(words, depth + 1)
        self.string(" ".join(w.text for w in words), any(w.dynamic for w in words), depth)

    def string(self, text: str, dynamic: bool, depth: int) -> None:
        if dynamic:
            self.doubt("shell code computed at run time (a -c, eval or similar string with $ or a substitution)")
        self.line(text, depth + 1)
