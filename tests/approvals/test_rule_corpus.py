"""Bash approval rules fail closed, measured on two corpora (``data/``).

``dangerous_bash.txt``: lines where bash runs the command the rule names (behind shell grammar,
wrappers, nested shells, quoting); every one must ask. A sample is run by real bash with the
named programs shimmed on ``PATH`` (they record that they ran), so the corpus is real.
``benign_bash.txt``: everyday commands running none of them; the share the rules still ask
about (the false-ask rate) is printed and bounded.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

from claude_sync import ApprovalPolicy

DATA = Path(__file__).parent / "data"
BENIGN_RULES = ("Bash(rm:*)", "Bash(curl:*)", "Bash(git push:*)")
FALSE_ASK_BOUND = 0.06
"""At most this share of the benign corpus may ask (measured: see the printed figure)."""


def corpus(name: str) -> List[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line.replace("\u23ce", "\n") for line in text.split("\n") if line and not line.startswith("#")]


def dangerous() -> List[Tuple[str, str]]:
    return [(rule, line) for rule, line in (entry.split("\t", 1) for entry in corpus("dangerous_bash.txt"))]


def test_the_corpora_are_big_enough() -> None:
    assert len(dangerous()) >= 200 and len(corpus("benign_bash.txt")) >= 150


@pytest.mark.parametrize("rule,line", dangerous())
def test_every_line_that_runs_the_named_command_asks(rule: str, line: str) -> None:
    assert ApprovalPolicy(rules=[rule]).reason_for("Bash", {"command": line}) is not None


def test_the_benign_corpus_rarely_asks() -> None:
    policy = ApprovalPolicy(rules=list(BENIGN_RULES))
    lines = corpus("benign_bash.txt")
    asked = [line for line in lines if policy.reason_for("Bash", {"command": line}) is not None]
    rate = len(asked) / len(lines)
    print(f"\n[figures] benign corpus: {len(asked)} of {len(lines)} lines ask ({rate:.1%}): {asked!r}")
    assert rate <= FALSE_ASK_BOUND, asked


# ----------------------------------------------------------------------------- real bash

NOT_HERE = ("sudo ", "doas ", "unbuffer ", "parallel ", "busybox ", "ssh ", "-ok ", "-okdir ", "watch ", "strace ",
            "chroot ", "runuser ", "/usr/bin/curl ", "/usr/bin/git ", "npm exec ", "uv run ", "poetry run ")  # fmt: skip
"""Lines that need a program, a host, privileges or a terminal this test does not have (or run
the real program by its path, past the shim)."""
SHIMMED = {"Bash(rm:*)": "rm", "Bash(curl:*)": "curl", "Bash(git push:*)": "git", "Bash(git commit *)": "git",
           "Bash(npm run test)": "npm"}  # fmt: skip
WANTED_ARG = {"Bash(git push:*)": "push", "Bash(git commit *)": "commit", "Bash(npm run test)": "test"}


def shim_dir(tmp_path: Path) -> Path:
    shims = tmp_path / "shims"
    shims.mkdir()
    for name in set(SHIMMED.values()):
        script = shims / name
        script.write_text(f'#!/bin/sh\necho "{name} $*" >> "$SHIM_LOG"\n')
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return shims


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_real_bash_runs_the_named_command_for_each_line(tmp_path: Path) -> None:
    shims = shim_dir(tmp_path)
    ran, skipped, missed = 0, 0, []
    for index, (rule, line) in enumerate(dangerous()):
        if any(word in line + " " for word in NOT_HERE):
            skipped += 1
            continue
        work = tmp_path / f"w{index}"
        work.mkdir()
        for name in ("x", "y", "z"):
            (work / name).write_text("victim")
        log = tmp_path / f"log{index}"
        env = {"PATH": f"{shims}:/usr/bin:/bin", "HOME": str(work), "SHIM_LOG": str(log), "LC_ALL": "C"}
        subprocess.run(["bash", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20, check=False)  # fmt: skip
        calls = log.read_text() if log.exists() else ""
        program = SHIMMED[rule]
        hit = any(c.split(" ", 1)[0] == program and WANTED_ARG.get(rule, "") in c for c in calls.splitlines())
        if hit or (program == "rm" and not (work / "x").exists()):
            ran += 1
        else:
            missed.append((rule, line))
    print(f"\n[figures] real bash ran the named command for {ran} lines; {skipped} need what this machine lacks")
    assert not missed, "\n".join(f"{r} {l!r}" for r, l in missed)
    assert ran >= 200


def test_the_lines_bash_could_not_parse_ask_too() -> None:
    policy = ApprovalPolicy(rules=["Bash(rm:*)"])
    for line in ('echo "unterminated ; rm x', "echo 'open", "echo $(rm x", "echo ${x", "cat <(ls", "echo `ls"):
        assert policy.reason_for("Bash", {"command": line}) is not None, line
    assert os.sep == "/"


NAMES = ("rm", "\\rm", '"rm"', "r''m", "/bin/rm", "r\\m", "$'rm'", "command rm", "env rm", "nice rm", "timeout 5 rm",
         "exec rm")  # fmt: skip
PREFIXES = ("", "! ", ">/dev/null ", "2>&1 ", "A=1 ", 'A="x y" ', "<<<a ")
WRAPPINGS = ("({})", "$({})", "`{}`", 'bash -c "{}"', "sh -c '{}'", 'eval "{}"', "{{ {}; }}", "if {}; then :; fi",
             "for i in 1; do {}; done", "cat <({})", 'echo "$({})"', "f(){{ {}; }}; f", "case a in a) {};; esac",
             "true && {}", "false || {}", "x=$({})", 'echo "${{u:-$({})}}"', "cat <<E\n$({})\nE", "xargs {} <<<y",
             "find . -maxdepth 0 -exec {} \\;")  # fmt: skip


def random_lines(count: int) -> List[str]:
    """Lines nesting an ``rm`` in random grammar, wrappers and quoting (fixed seed)."""
    chooser = random.Random(36)
    out = []
    for _ in range(count):
        line = chooser.choice(PREFIXES) + chooser.choice(NAMES) + " x"
        for _ in range(chooser.randint(0, 3)):
            wrapping = chooser.choice(WRAPPINGS)
            if not any(q in wrapping and q in line for q in "'\""):
                line = wrapping.format(line)
        if chooser.random() < 0.5:
            line = chooser.choice(("; ", " && ", " | ", "\n", " & ")).join(chooser.sample([chooser.choice(("ls", "true", ":")), line], 2))
        out.append(line)
    return out


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_random_lines_that_run_rm_in_real_bash_all_ask(tmp_path: Path) -> None:
    """Differential: whenever real bash ran the shimmed ``rm`` (or a file went), the rule asked."""
    shims = shim_dir(tmp_path)
    policy = ApprovalPolicy(rules=["Bash(rm:*)"])
    ran, missed = 0, []
    for index, line in enumerate(random_lines(300)):
        work = tmp_path / f"r{index}"
        work.mkdir()
        for name in ("x", "y"):
            (work / name).write_text("victim")
        log = tmp_path / f"rlog{index}"
        env = {"PATH": f"{shims}:/usr/bin:/bin", "HOME": str(work), "SHIM_LOG": str(log), "LC_ALL": "C"}
        subprocess.run(["bash", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20, check=False)  # fmt: skip
        if log.exists() or not (work / "x").exists() or not (work / "y").exists():
            ran += 1
            if policy.reason_for("Bash", {"command": line}) is None:
                missed.append(line)
    print(f"\n[figures] random lines: bash ran rm in {ran} of 300, all asked: {not missed}")
    assert not missed, missed
    assert ran >= 200
