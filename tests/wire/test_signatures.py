"""Options, messages and every record class show their real signature to ``inspect``,
``help()`` and IPython completion; a user script type-checks under ``mypy --strict``."""

from __future__ import annotations

import dataclasses
import inspect
import pydoc
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from helpers import require_package

import claude_sync
from claude_sync._wire.record import FrozenRecord, Record

ROOT = Path(__file__).resolve().parents[2]
TYPING_DIR = Path(__file__).resolve().parents[1] / "package" / "typing_check"


def _record_classes() -> List[type]:
    names = [name for name in claude_sync.__all__ if name != "__version__"]
    objects = [getattr(claude_sync, name) for name in names]
    return [obj for obj in objects if isinstance(obj, type) and issubclass(obj, Record) and obj is not claude_sync.ClaudeCodeOptions]


def test_options_signature_lists_every_field() -> None:
    signature = inspect.signature(claude_sync.ClaudeAgentOptions)
    names = [f.name for f in dataclasses.fields(claude_sync.ClaudeAgentOptions)]
    assert list(signature.parameters) == names
    assert signature.parameters["max_turns"].default is None
    assert str(signature.parameters["max_turns"]) == "max_turns: Optional[int] = None"
    assert signature.parameters["allowed_tools"].default == []


@pytest.mark.parametrize("cls", _record_classes(), ids=lambda c: c.__name__)
def test_every_record_class_has_its_init_signature(cls: type) -> None:
    signature = inspect.signature(cls)
    init_fields = [f for f in dataclasses.fields(cls) if f.init]
    assert list(signature.parameters) == [f.name for f in init_fields]
    required = [f.name for f in init_fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    assert [p.name for p in signature.parameters.values() if p.default is inspect.Parameter.empty] == required
    bound = signature.bind_partial()  # the signature is a usable Signature
    assert bound.arguments == {}


def test_claude_code_options_shows_every_field_and_append_system_prompt_keyword_only() -> None:
    signature = inspect.signature(claude_sync.ClaudeCodeOptions)
    names = [f.name for f in dataclasses.fields(claude_sync.ClaudeAgentOptions)]
    assert list(signature.parameters) == [*names, "append_system_prompt"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())


def test_bases_have_no_signature_of_their_own() -> None:
    assert Record.__signature__ is None and FrozenRecord.__signature__ is None


def test_help_shows_the_fields() -> None:
    text = pydoc.render_doc(claude_sync.ResultMessage, renderer=pydoc.plaintext)
    # Python 3.13's pydoc wraps a long signature one parameter a line (behind " |  "): compare
    # with the layout folded away.
    folded = "".join(text.replace(" |  ", "").split())
    assert "ResultMessage(subtype:str,duration_ms:int" in folded
    assert "num_turns: int" in text
    options = pydoc.render_doc(claude_sync.ClaudeAgentOptions, renderer=pydoc.plaintext)
    assert "max_budget_usd: Optional[float] = None" in options


def test_signatures_are_not_built_at_import() -> None:
    code = "import claude_sync, claude_sync._wire.record as r; print(len(r._SIGNATURES))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True, cwd=ROOT)
    assert out.stdout.strip() == "0"


def test_ipython_completes_option_names() -> None:
    require_package("IPython", import_it=False)
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "from IPython.core.completer import provisionalcompleter\n"
        "shell = InteractiveShell.instance()\n"
        "shell.run_cell('from claude_sync import ClaudeAgentOptions, ResultMessage')\n"
        "for jedi in (True, False):\n"
        "    shell.Completer.use_jedi = jedi\n"
        "    for line in ('ClaudeAgentOptions(max_', 'ResultMessage(num_'):\n"
        "        with provisionalcompleter():\n"
        "            print(jedi, sorted({c.text for c in shell.Completer.completions(line, len(line))}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    options = "['max_budget_usd=', 'max_buffer_size=', 'max_retries=', 'max_thinking_tokens=', 'max_turns=']"
    assert lines == [f"True {options}", "True ['num_turns=']", f"False {options}", "False ['num_turns=']"]


def test_mypy_strict_passes_on_a_user_script_and_catches_misuse() -> None:
    require_package("mypy", import_it=False)
    good, wrong = TYPING_DIR / "user_script.py", TYPING_DIR / "wrong_script.py"
    also_good = TYPING_DIR / "list_of_messages.py"  # the common List[Message] loop, no casts
    out = subprocess.run(
        # follow-imports=silent: the package's own mypy run is the project's (pyproject); here
        # only the user's files are judged (older mypy releases narrow less inside the package).
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental",
         "--cache-dir", "/dev/null", str(good), str(also_good), str(wrong)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert not [line for line in errors if "wrong_script.py" not in line], out.stdout
    reported = sorted({int(re.match(r".*wrong_script\.py:(\d+):", line).group(1)) for line in errors})  # type: ignore[union-attr]
    marked = [n for n, line in enumerate(wrong.read_text().splitlines(), 1) if line.endswith("# error")]
    assert reported == marked, out.stdout
