"""Print the shell commands of one marked literal block of README.rst, for .ci/run to run
verbatim (so the README cannot drift from what CI runs).

    python .ci/readme_commands.py NAME [README]            # the commands, one a line
    python .ci/readme_commands.py --script NAME [README]   # a bash script running them

A block is marked by an RST comment right before it, ``.. ci-run: NAME`` (anything after the
name is a note), followed by a ``::`` paragraph and the indented literal block. The block's
lines are printed dedented, one command a line (a line ending in ``\\`` continues on the
next); with ``--script``, as a bash script that echoes
each command, runs it in the same shell (so ``. .venv/bin/activate`` carries on to the next
line) and stops at the first that fails — the whole line, so a failure at the start of an
``a && b`` line counts too — naming it and its exit status. Exits 1, naming what is wrong, when the
marker is missing, used twice, or not followed by a non-empty literal block. Python 3.9+,
standard library only.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import List

MARKER = re.compile(r"^\.\. ci-run: (?P<name>[\w-]+)(?:\s.*)?$")


def block(text: str, name: str) -> List[str]:
    """The dedented lines of the literal block marked ``name``. Raises ``ValueError``."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if (m := MARKER.match(line)) and m.group("name") == name]
    if len(starts) != 1:
        raise ValueError(f"README.rst has {len(starts)} '.. ci-run: {name}' markers, expected 1")
    i = starts[0] + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i].strip() != "::":
        raise ValueError(f"'.. ci-run: {name}' is not followed by a '::' paragraph")
    i += 1
    body: List[str] = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
        body.append(lines[i])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    if not any(line.strip() for line in body):
        raise ValueError(f"the '.. ci-run: {name}' block is empty")
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
    commands: List[str] = []
    pending = ""
    for line in (line[indent:] for line in body if line.strip()):
        pending += line
        if pending.endswith("\\"):  # continued on the next line: one command
            pending += "\n"
            continue
        commands.append(pending)
        pending = ""
    if pending:
        raise ValueError(f"the '.. ci-run: {name}' block ends inside a continued line")
    return commands


def script(commands: List[str]) -> str:
    """A bash script running ``commands`` in order in one shell, stopping at the first failure."""
    out = ["set -o pipefail"]
    for command in commands:
        quoted = shlex.quote(command)
        out += [
            f"echo '$ '{quoted}",
            "{ " + command,
            f"}} || {{ status=$?; echo 'README command failed (exit '$status'): '{quoted} >&2; exit 1; }}",
        ]
    return "\n".join(out)


def main(argv: List[str]) -> int:
    as_script = argv[:1] == ["--script"]
    argv = argv[1:] if as_script else argv
    if len(argv) not in (1, 2):
        print("usage: python .ci/readme_commands.py [--script] NAME [README]", file=sys.stderr)
        return 2
    readme = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parents[1] / "README.rst"
    try:
        commands = block(readme.read_text(encoding="utf-8"), argv[0])
        print(script(commands) if as_script else "\n".join(commands))
    except (OSError, ValueError) as problem:
        print(f"readme_commands: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
