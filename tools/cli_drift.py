"""What an installed Claude Code CLI has that claude_sync does not type: ``python tools/cli_drift.py``.

::

    python tools/cli_drift.py [--cli PATH] [--against OTHER_CLI] [--json]

For the CLI at ``--cli`` (default ``$CLAUDE_SYNC_TEST_CLI``) it lists, per kind, each name the CLI
knows that the library does not type and that ``tools/cli_drift_allow.json`` does not leave raw
on purpose (every row there has its reason). Exit status 0: nothing untyped; 1: something
untyped (listed); 2: the CLI could not be read. ``--against OTHER`` also lists what the first CLI
has that the other lacks, per kind (which names a CLI update brought or dropped).

Kinds, and where the CLI side comes from (both real CLIs, 2.1.197 and 2.1.332, read the same
way):

* ``options``: the long options of ``claude --help``. The CLI's own, stable, documented text.
* the rest from the CLI's bundle. The native binary embeds its JavaScript source as text (the
  npm ``cli.js`` of older versions is that text), and the wire schemas are zod objects whose
  literal fields survive minification: ``{type:X("system"),subtype:X("init"),…}`` (2.1.332
  writes ``P("init")``, 2.1.197 ``H.literal("init")``; the pattern takes any short callee).

  - ``hook_events``: the longest array literal starting ``["PreToolUse","PostToolUse",`` (the
    CLI's hook-event enum; the other such arrays are subsets).
  - ``system_subtypes``: objects ``{type:X("system"),subtype:X("<name>")``.
  - ``message_types``: objects ``{type:X("<name>"),`` whose own keys include ``session_id`` and
    ``uuid`` (what a stdout line carries; content blocks and attachments do not).
  - ``result_fields``: the own keys of the ``{type:X("result"),subtype:…}`` objects.
  - ``control_subtypes``: objects whose first key is ``subtype:X("<name>")`` (the control
    request and response schemas; both directions).

  Why these and not the strings the CLI prints: a schema names exactly what goes on the wire,
  and a missing literal or a changed shape shows up as a missing kind (each kind must find
  something, or the run fails with exit 2), never as silently nothing new. What e2e runs saw
  is not used: a run only sees what the fake API made the CLI do.

The library side is read from the library itself: ``KNOWN_HOOK_EVENTS``, the ``SystemMessage``
subclasses by subtype (plus ``init``), the message classes by ``type``,
``ResultMessage``'s fields, and for control subtypes and options the requests and flags its
source sends (a scan of ``claude_sync/`` for ``send_control_request("…"`` and the like, the
``subtype: Literal["…"]`` shapes and the handlers it answers; ``"--flag"`` and
``flag_pair("flag", …)`` in ``claude_sync/_options``).

A repository tool, not part of the package: it reads the library's internals and the source
tree, and it is for the people who keep claude_sync up with the CLI (CI runs it against the
newest supported CLI). Standard library only; Python 3.9+.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
ALLOW_FILE = Path(__file__).resolve().parent / "cli_drift_allow.json"
KINDS = ("hook_events", "system_subtypes", "message_types", "result_fields", "control_subtypes", "options")

_CALL = rb'[\w$]{1,4}(?:\.literal)?\("'
"""A zod literal as minified: ``P("x")`` (2.1.332), ``H.literal("x")`` (2.1.197)."""


# --------------------------------------------------------------------------- the CLI side (pure)


def own_keys(text: bytes, start: int) -> List[str]:
    """The keys of the object literal opening at ``text[start] == b"{"``, at its own depth.

    Skips nested brackets and string/template literals. Raises ``ValueError`` when ``start``
    is not a ``{`` or the object does not close within 200 kB.
    """
    if text[start:start + 1] != b"{":
        raise ValueError(f"no object literal at {start}")
    keys: List[str] = []
    depth, i, end = 0, start, min(len(text), start + 200_000)
    expect_key = False
    while i < end:
        c = text[i:i + 1]
        if c in b"\"'`":
            i = _skip_string(text, i, end)
            continue
        if c in b"{([":
            depth += 1
            expect_key = depth == 1
        elif c in b"})]":
            depth -= 1
            if depth == 0:
                return keys
        elif c == b"," and depth == 1:
            expect_key = True
        elif expect_key and depth == 1:
            match = re.match(rb"\s*([A-Za-z_$][\w$]*)\s*:", text[i:i + 200])
            if match:
                keys.append(match.group(1).decode())
                i += match.end()
            expect_key = False
            continue
        i += 1
    raise ValueError(f"the object literal at {start} does not close")


def _skip_string(text: bytes, i: int, end: int) -> int:
    quote, i = text[i:i + 1], i + 1
    while i < end:
        c = text[i:i + 1]
        if c == b"\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        i += 1
    return end


def hook_events(bundle: bytes) -> Set[str]:
    """The longest ``["PreToolUse","PostToolUse",…]`` array literal in the bundle."""
    best: List[str] = []
    for match in re.finditer(rb'\["PreToolUse","PostToolUse",(?:"[A-Za-z]+",?)*\]', bundle):
        names = json.loads(match.group(0))
        if len(names) > len(best):
            best = names
    return set(best)


def system_subtypes(bundle: bytes) -> Set[str]:
    pattern = rb"\{type:" + _CALL + rb'system"\),subtype:' + _CALL + rb'([a-z_]+)"\)'
    return {m.group(1).decode() for m in re.finditer(pattern, bundle)}


def message_types(bundle: bytes) -> Set[str]:
    found: Set[str] = set()
    for match in re.finditer(rb"\{type:" + _CALL + rb'([a-z_]+)"\),', bundle):
        try:
            keys = own_keys(bundle, match.start())
        except ValueError:
            continue
        if {"session_id", "uuid"} <= set(keys):
            found.add(match.group(1).decode())
    return found


def result_fields(bundle: bytes) -> Set[str]:
    found: Set[str] = set()
    for match in re.finditer(rb"\{type:" + _CALL + rb'result"\),subtype:', bundle):
        try:
            found.update(own_keys(bundle, match.start()))
        except ValueError:
            continue
    return found


def control_subtypes(bundle: bytes) -> Set[str]:
    pattern = rb"\(\{subtype:" + _CALL + rb'([a-z_]+)"\)'
    return {m.group(1).decode() for m in re.finditer(pattern, bundle)}


def kebab(option: str) -> str:
    """``--allowedTools`` → ``--allowed-tools`` (the CLI takes both spellings of such options)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "-" + m.group(1).lower(), option)


def help_options(help_text: str) -> Set[str]:
    """Every long option ``--help`` lists, in kebab case (``--allowedTools, --allowed-tools``
    is one option)."""
    found: Set[str] = set()
    for line in help_text.splitlines():
        head = re.match(r"\s+((?:-[A-Za-z], )?--[\w-]+(?:, --[\w-]+)*)", line)
        if head:
            found.update(kebab(name) for name in re.findall(r"--[\w-]+", head.group(1)))
    return found - {"--help", "--version"}


def cli_inventory(bundle: bytes, help_text: str) -> Dict[str, Set[str]]:
    """Every kind's names, as the CLI's bundle and ``--help`` give them."""
    return {
        "hook_events": hook_events(bundle),
        "system_subtypes": system_subtypes(bundle),
        "message_types": message_types(bundle),
        "result_fields": result_fields(bundle),
        "control_subtypes": control_subtypes(bundle),
        "options": help_options(help_text),
    }


# --------------------------------------------------------------------------- the library side


def _source_files(*parts: str) -> Iterator[Path]:
    yield from sorted((ROOT / "claude_sync").joinpath(*parts).rglob("*.py"))


def library_inventory() -> Dict[str, Set[str]]:
    """What claude_sync types, per kind (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    try:
        from claude_sync._callbacks.hook_types import KNOWN_HOOK_EVENTS
        from claude_sync._wire.messages import MESSAGE_CLASSES, ResultMessage
        from claude_sync._wire.system_messages import SYSTEM_CLASSES
    finally:
        sys.path.remove(str(ROOT))
    import dataclasses

    sources = {path: path.read_text(encoding="utf-8") for path in _source_files()}
    control: Set[str] = set()
    send = r'(?:send_control_request|_newer_request|session\.request|_control)\(\s*"([a-z_]+)"'
    for text in sources.values():
        control.update(re.findall(send, text))
        control.update(re.findall(r'subtype: Literal\["([a-z_]+)"\]', text))
        control.update(re.findall(r'"([a-z_]+)": Handler\(', text))
        control.update(re.findall(r'handlers\["([a-z_]+)"\]', text))
    options: Set[str] = set()
    for path in _source_files("_options"):
        text = sources[path]
        options.update(kebab(name) for name in re.findall(r'"(--[a-z][\w-]*)', text))
        options.update(kebab("--" + name) for name in re.findall(r'flag_pair\("([\w-]+)"', text))
    result_names = {f.name for f in dataclasses.fields(ResultMessage)} - {"parsed_output", "raw"}
    wire_names = {"model_usage": "modelUsage"}
    return {
        "hook_events": set(KNOWN_HOOK_EVENTS),
        "system_subtypes": set(SYSTEM_CLASSES) | {"init"},
        "message_types": set(MESSAGE_CLASSES),
        "result_fields": {wire_names.get(name, name) for name in result_names},
        "control_subtypes": control,
        "options": options,
    }


# --------------------------------------------------------------------------- the report (pure)


def load_allow(path: Path = ALLOW_FILE) -> Dict[str, Dict[str, str]]:
    """``{kind: {name or glob: reason}}``. Raises ``ValueError`` for an unknown kind or a row
    without a reason."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    allow: Dict[str, Dict[str, str]] = {}
    for kind, entries in rows.items():
        if kind.startswith("_"):
            continue
        if kind not in KINDS:
            raise ValueError(f"{path.name}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        for name, reason in entries.items():
            if not isinstance(reason, str) or not reason.strip():
                raise ValueError(f"{path.name}: {kind} {name!r} has no reason")
        allow[kind] = dict(entries)
    return allow


def untyped(
    cli: Mapping[str, Set[str]], library: Mapping[str, Set[str]], allow: Mapping[str, Mapping[str, str]]
) -> Dict[str, List[str]]:
    """Per kind, what the CLI has that the library neither types nor leaves raw on purpose."""
    report: Dict[str, List[str]] = {}
    for kind in KINDS:
        patterns = allow.get(kind, {})
        missing = sorted(
            name for name in cli.get(kind, set()) - library.get(kind, set())
            if not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
        )
        if missing:
            report[kind] = missing
    return report


def differences(first: Mapping[str, Set[str]], second: Mapping[str, Set[str]]) -> Dict[str, Dict[str, List[str]]]:
    """Per kind, what only the first / only the second CLI has."""
    report: Dict[str, Dict[str, List[str]]] = {}
    for kind in KINDS:
        only_first = sorted(first.get(kind, set()) - second.get(kind, set()))
        only_second = sorted(second.get(kind, set()) - first.get(kind, set()))
        if only_first or only_second:
            report[kind] = {"only_first": only_first, "only_second": only_second}
    return report


# --------------------------------------------------------------------------- reading a CLI (I/O)


class CLIUnreadable(Exception):
    """The CLI's binary or ``--help`` could not be read, or a kind found nothing in it."""


def read_cli(path: str, timeout: float = 60.0) -> Tuple[str, Dict[str, Set[str]]]:
    """``(version, inventory)`` of the CLI at ``path``. Raises ``CLIUnreadable``."""
    import mmap

    real = Path(os.path.realpath(path))
    try:
        version = _run(path, "--version", timeout).split()[0]
        help_text = _run(path, "--help", timeout)
        with open(real, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as bundle:
            inventory = cli_inventory(bundle, help_text)  # type: ignore[arg-type]  # mmap reads as bytes
    except (OSError, ValueError, IndexError, subprocess.SubprocessError) as exc:
        raise CLIUnreadable(f"cannot read the CLI at {path}: {exc}") from exc
    empty = [kind for kind in KINDS if not inventory[kind]]
    if empty:
        raise CLIUnreadable(
            f"{path} ({version}): found no {', '.join(empty)} in it; the bundle's shape changed "
            f"and tools/cli_drift.py must learn the new one"
        )
    return version, inventory


def _run(path: str, flag: str, timeout: float) -> str:
    done = subprocess.run([path, flag], capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise subprocess.SubprocessError(f"{flag} exited {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


def main(argv: Optional[Iterable[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cli", default=os.environ.get("CLAUDE_SYNC_TEST_CLI"), help="the claude binary")
    parser.add_argument("--against", help="another claude binary: list what each has that the other lacks")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not args.cli:
        parser.error("no CLI: pass --cli PATH or set CLAUDE_SYNC_TEST_CLI")
    try:
        version, cli = read_cli(args.cli)
        other = read_cli(args.against) if args.against else None
        allow = load_allow()
    except (CLIUnreadable, ValueError) as exc:
        print(f"cli_drift: {exc}", file=sys.stderr)
        return 2
    report = untyped(cli, library_inventory(), allow)
    result: Dict[str, object] = {"cli": args.cli, "version": version, "untyped": report}
    if other is not None:
        result["against"] = {"cli": args.against, "version": other[0], "differences": differences(cli, other[1])}
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
    else:
        _print_text(result)
    return 1 if report else 0


def _print_text(result: Mapping[str, object]) -> None:
    report = result["untyped"]
    assert isinstance(report, dict)
    print(f"CLI {result['version']} ({result['cli']})")
    if not report:
        print("  nothing untyped (every name is typed or in tools/cli_drift_allow.json)")
    for kind, names in report.items():
        print(f"  untyped {kind} ({len(names)}): {', '.join(names)}")
    against = result.get("against")
    if isinstance(against, dict):
        print(f"against CLI {against['version']} ({against['cli']})")
        for kind, sides in against["differences"].items():
            if sides["only_first"]:
                print(f"  {kind} only in {result['version']}: {', '.join(sides['only_first'])}")
            if sides["only_second"]:
                print(f"  {kind} only in {against['version']}: {', '.join(sides['only_second'])}")


if __name__ == "__main__":
    sys.exit(main())
