"""The README's marked command blocks (``.. ci-run: NAME``) that ``.ci/run`` runs verbatim in
fresh clones: ``.ci/readme_commands.py`` finds each, the script it writes stops at the first
failing command, and ``.ci/run`` runs every marked block."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / ".ci" / "readme_commands.py"
MARKER = re.compile(r"^\.\. ci-run: ([\w-]+)", re.M)


def commands(name: str, *extra: str, readme: Path = ROOT / "README.rst") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *extra, name, str(readme)],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def test_the_readme_marks_the_two_commands_the_offline_path_the_step_by_step_and_the_docs() -> None:
    names = MARKER.findall((ROOT / "README.rst").read_text(encoding="utf-8"))
    assert names == ["two-commands", "offline", "step-by-step", "docs"]
    offline = commands("offline").stdout.splitlines()
    assert offline[0] == 'bash scripts/try.sh "What is 2 + 2?"', offline
    wrapped = [line.split("with_fake_api ", 1)[1] for line in offline if "-m claude_sync.testing.with_fake_api " in line]
    assert [w.split()[0:2] for w in wrapped] == [["python", "examples/quick_start.py"], ["claude-sync", '"What'],
                                                 ["claude-sync", "doctor"], ["jupyter", "nbconvert"]], wrapped
    two = commands("two-commands")
    assert two.returncode == 0 and two.stdout.splitlines() == ['bash scripts/try.sh "What is 2 + 2?"', "bash scripts/test.sh"]
    steps = commands("step-by-step").stdout.splitlines()
    assert "pip install -e '.[test]'" in steps and steps[-1] == "python -m pytest", steps
    assert commands("docs").stdout.splitlines()[-2:] == ["pip install -e '.[docs]'", "python -m sphinx docs docs/_build/html"]


def test_ci_runs_every_marked_block() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for name in MARKER.findall((ROOT / "README.rst").read_text(encoding="utf-8")):
        assert re.search(rf"^[^#\n]*readme_block {name}\b", run, re.M), f".ci/run does not run the README block {name!r}"


def test_the_scripts_the_two_commands_name_exist() -> None:
    for line in commands("two-commands").stdout.splitlines():
        assert (ROOT / line.split()[1]).is_file(), line


@pytest.mark.parametrize("first", ["false && echo never", "(exit 5)", "false"])
def test_the_script_stops_at_the_first_failing_command(first: str, tmp_path: Path) -> None:
    readme = tmp_path / "README.rst"
    readme.write_text(f"T\n=\n\n.. ci-run: t  a note\n\n::\n\n    echo one\n    {first}\n    echo after\n", encoding="utf-8")
    script = commands("t", "--script", readme=readme)
    assert script.returncode == 0, script.stderr
    done = subprocess.run(["bash", "-c", script.stdout], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "one" in done.stdout and "after" not in done.stdout
    status = 5 if first == "(exit 5)" else 1
    assert f"README command failed (exit {status}): {first}" in done.stderr


def test_an_activated_venv_carries_on_to_the_next_command(tmp_path: Path) -> None:
    readme = tmp_path / "README.rst"
    readme.write_text("T\n=\n\n.. ci-run: t\n\n::\n\n    export WHERE=set && cd /\n    test \"$WHERE\" = set && pwd\n", encoding="utf-8")
    done = subprocess.run(["bash", "-c", commands("t", "--script", readme=readme).stdout],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "/", done


@pytest.mark.parametrize("text, problem", [
    ("T\n=\n\nno marker\n", "0 '.. ci-run: t' markers"),
    ("T\n=\n\n.. ci-run: t\n\n::\n\n    a\n\n.. ci-run: t\n\n::\n\n    b\n", "2 '.. ci-run: t' markers"),
    ("T\n=\n\n.. ci-run: t\n\nprose\n", "not followed by a '::' paragraph"),
    ("T\n=\n\n.. ci-run: t\n\n::\n\nprose\n", "block is empty"),
])  # fmt: skip
def test_a_missing_or_broken_block_is_an_error(text: str, problem: str, tmp_path: Path) -> None:
    readme = tmp_path / "README.rst"
    readme.write_text(text, encoding="utf-8")
    done = commands("t", readme=readme)
    assert done.returncode == 1 and problem in done.stderr, done.stderr


def test_a_continued_line_is_one_command(tmp_path: Path) -> None:
    readme = tmp_path / "README.rst"
    readme.write_text("T\n=\n\n.. ci-run: t\n\n::\n\n    echo one \\\n      two\n    false\n", encoding="utf-8")
    done = subprocess.run(["bash", "-c", commands("t", "--script", readme=readme).stdout],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert "one two" in done.stdout and "README command failed (exit 1): false" in done.stderr, done
    readme.write_text("T\n=\n\n.. ci-run: t\n\n::\n\n    echo one \\\n", encoding="utf-8")
    assert "ends inside a continued line" in commands("t", readme=readme).stderr
