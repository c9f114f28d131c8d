"""What an installed Claude Code CLI has that claude_sync does not type: ``python tools/cli_drift.py``.

::

    python tools/cli_drift.py [--cli PATH] [--against OTHER_CLI] [--json]

For the CLI at ``--cli`` (default ``$CLAUDE_SYNC_TEST_CLI``) it lists, per kind, each name the CLI
knows that the library does not type and that ``tools/cli_drift_allow.json`` does not leave raw
on purpose (every row there has its reason). Exit status 0: nothing untyped; 1: something
untyped (listed); 2: the CLI could not be read. ``--against OTHER`` also lists what the first CLI
has that the other lacks, per kind (which names a CLI update brought or dropped).

Kinds, and where the CLI side comes from (the real CLIs 2.1.197, 2.1.332 and 2.1.333 read the
same way):

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
    request and response schemas; both directions), and the subtypes the CLI dispatches on
    without a schema (``e.request.subtype==="side_question"``).
  - the field kinds, ``<schema>.<key>``: the own keys of every schema of a name the library
    types (so a key added to ``tool_progress`` or to ``can_use_tool`` shows up).
    ``message_fields``: the stdout line schemas (``result`` is ``result_fields``, ``system``
    ``system_fields``); ``system_fields``: the ``system`` schemas by subtype;
    ``control_fields``: the control schemas by subtype, and ``hook_matcher`` (the
    initialize request's ``{matcher:…,hookCallbackIds:…}``).
  - ``control_response_fields``, ``<subtype>.<key>``: the own keys of the control responses
    the CLI describes (``….describe("Response …")``: ``initialize``, ``mcp_status``, …), named
    after the request schema just before each (where ``connectorsPending`` arrived in 2.1.333).
  - ``hook_output_fields``, ``<event>.<key>``: the own keys of every ``hookSpecificOutput``
    schema (``{hookEventName:X("PreToolUse"),…}``; ``permissionDecisionReasonCode`` arrived in
    2.1.333).
  - ``hidden_options``: the long options defined with ``.hideHelp()`` (``--instruction-dirs``,
    "SDK use only") that ``--help`` does not list.

  Why these and not the strings the CLI prints: a schema names exactly what goes on the wire,
  and a missing literal or a changed shape shows up as a missing kind (each kind must find
  something, or the run fails with exit 2), never as silently nothing new. What e2e runs saw
  is not used: a run only sees what the fake API made the CLI do.

The library side is read from the library itself: ``KNOWN_HOOK_EVENTS``, the ``SystemMessage``
subclasses by subtype (plus ``init``), the message classes by ``type``,
``ResultMessage``'s fields; for the message and system field kinds each class's wire keys
(fields, a field's ``wire`` name, properties named after a wire key such as ``written_at``,
and the ``obj["…"]`` keys its hand-written parser in ``_wire/parse.py`` reads); for
``control_fields`` any key the source names as a string literal (``"hook_asked"``: a request
it sends or reads carries it; an approximation: a key named anywhere counts); and for
control subtypes and options the requests and flags its
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
from types import ModuleType
from typing import AbstractSet, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
ALLOW_FILE = Path(__file__).resolve().parent / "cli_drift_allow.json"
KINDS = (
    "hook_events",
    "system_subtypes",
    "message_types",
    "result_fields",
    "message_fields",
    "system_fields",
    "control_subtypes",
    "control_fields",
    "control_response_fields",
    "hook_output_fields",
    "options",
    "hidden_options",
)
FIELD_KINDS = ("message_fields", "system_fields", "control_fields", "control_response_fields", "hook_output_fields")
"""Kinds whose names are ``<schema>.<key>``: a key of a wire schema the library types."""

_CALL = rb'[\w$]{1,4}(?:\.literal)?\("'
"""A zod literal as minified: ``P("x")`` (2.1.332), ``H.literal("x")`` (2.1.197)."""


# --------------------------------------------------------------------------- the CLI side (pure)


def object_end(text: bytes, start: int) -> int:
    """The index just past the ``}`` closing the object literal that opens at ``start``
    (-1: it does not close within 200 kB, or ``start`` is not a ``{``). Skips string/template
    literals."""
    return _scan_object(text, start)[1]


def own_keys(text: bytes, start: int) -> List[str]:
    """The keys of the object literal opening at ``text[start] == b"{"``, at its own depth.

    Skips nested brackets and string/template literals. Raises ``ValueError`` when ``start``
    is not a ``{`` or the object does not close within 200 kB.
    """
    if text[start:start + 1] != b"{":
        raise ValueError(f"no object literal at {start}")
    keys, closed = _scan_object(text, start)
    if closed == -1:
        raise ValueError(f"the object literal at {start} does not close")
    return keys


def _scan_object(text: bytes, start: int) -> Tuple[List[str], int]:
    """``(own keys, index past its closing brace)`` of the object literal at ``start``; the
    index is -1 when it does not close within 200 kB or ``start`` is not a ``{``."""
    if text[start:start + 1] != b"{":
        return [], -1
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
                return keys, i + 1
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
    return keys, -1


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
    """The control schemas' subtypes, and the subtypes the CLI dispatches on without one
    (``….request.subtype==="side_question"``: 2.1.333 handles ~20 such)."""
    pattern = rb"\(\{subtype:" + _CALL + rb'([a-z_]+)"\)'
    found = {m.group(1).decode() for m in re.finditer(pattern, bundle)}
    found.update(m.group(1).decode() for m in re.finditer(rb'\.request\.subtype===?"([a-z_]+)"', bundle))
    return found


def _keyed(bundle: bytes, pattern: bytes, offset: int = 0, need: AbstractSet[str] = frozenset()) -> Dict[str, Set[str]]:
    """``{name: own keys}`` of the object literals ``pattern`` finds (group 1 is the name;
    the literal opens at ``match.start() + offset``), the keys of every schema of one name
    together. Only objects whose keys include ``need``."""
    found: Dict[str, Set[str]] = {}
    for match in re.finditer(pattern, bundle):
        try:
            keys = own_keys(bundle, match.start() + offset)
        except ValueError:
            continue
        if need <= set(keys):
            found.setdefault(match.group(1).decode(), set()).update(keys)
    return found


def message_schemas(bundle: bytes) -> Dict[str, Set[str]]:
    """Per stdout line ``type``, the own keys of its schemas (the objects of ``message_types``)."""
    return _keyed(bundle, rb"\{type:" + _CALL + rb'([a-z_]+)"\),', need={"session_id", "uuid"})


def system_schemas(bundle: bytes) -> Dict[str, Set[str]]:
    """Per ``system`` subtype, the own keys of its schemas."""
    return _keyed(bundle, rb"\{type:" + _CALL + rb'system"\),subtype:' + _CALL + rb'([a-z_]+)"\)')


def control_schemas(bundle: bytes) -> Dict[str, Set[str]]:
    """Per control subtype, the own keys of its schemas (requests both ways, and responses),
    plus ``hook_matcher``: the keys of the initialize request's hook matchers
    (``{matcher:…,hookCallbackIds:…}``, where ``observesOnly`` arrived in 2.1.333)."""
    found = _keyed(bundle, rb"\(\{subtype:" + _CALL + rb'([a-z_]+)"\)', offset=1)
    for match in re.finditer(rb"\{matcher:[^{}]{0,120}?hookCallbackIds:", bundle):
        try:
            found.setdefault("hook_matcher", set()).update(own_keys(bundle, match.start()))
        except ValueError:
            continue
    return found


def control_response_schemas(bundle: bytes) -> Dict[str, Set[str]]:
    """Per control subtype, the own keys of the response schemas the CLI describes as such:
    each object literal closing right before ``).describe("Response``, named after the last
    request schema (``({subtype:X("<name>")``) before it (the bundle keeps a request and its
    response together; an object that itself has a ``subtype`` is not a response)."""
    found: Dict[str, Set[str]] = {}
    request = re.compile(rb"\(\{subtype:" + _CALL + rb'([a-z_]+)"\)')
    for described in re.finditer(rb'\}\)\.describe\("Response', bundle):
        close = described.start() + 1
        requests = list(request.finditer(bundle, max(0, described.start() - 300_000), described.start()))
        if not requests:
            continue
        last = requests[-1]
        for opening in re.finditer(rb"\(\{", bundle[last.end():close]):
            start = last.end() + opening.start() + 1
            if object_end(bundle, start) == close:
                keys = own_keys(bundle, start)
                if "subtype" not in keys:
                    found.setdefault(last.group(1).decode(), set()).update(keys)
                break
    return found


def hook_output_schemas(bundle: bytes) -> Dict[str, Set[str]]:
    """Per hook event, the own keys of its ``hookSpecificOutput`` schemas
    (``{hookEventName:X("PreToolUse"),permissionDecision:…}``)."""
    return _keyed(bundle, rb"\{hookEventName:" + _CALL + rb'([A-Za-z]+)"\)')


def hidden_options(bundle: bytes) -> Set[str]:
    """The long options the CLI defines with ``.hideHelp()`` (``--help`` does not list them;
    e.g. ``--instruction-dirs``, "SDK use only", in 2.1.333). Commander's
    ``new Option("--flag <arg>", "…")…hideHelp()``: the chain up to the next option."""
    found: Set[str] = set()
    opening = rb'new [\w$]{1,4}\("(?:-[\w-]+, )?(--[\w-]+)'
    for match in re.finditer(opening, bundle):
        chain = bundle[match.end():match.end() + 4000]
        stop = re.search(rb"addOption\(|\.option\(", chain)
        if b".hideHelp()" in (chain[:stop.start()] if stop else chain):
            found.add(kebab(match.group(1).decode()))
    return found


def field_rows(schemas: Mapping[str, Set[str]], names: Iterable[str]) -> Set[str]:
    """``<name>.<key>`` for every key of the schemas of ``names`` (the ones the library types:
    the keys of the others are not looked at, their names are a kind of their own)."""
    return {
        f"{name}.{key}" for name in names for key in schemas.get(name, ()) if key not in ("type", "subtype", "hookEventName")
    }


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


def cli_inventory(bundle: bytes, help_text: str, typed: Optional[Mapping[str, Set[str]]] = None) -> Dict[str, Set[str]]:
    """Every kind's names, as the CLI's bundle and ``--help`` give them.

    ``typed``: the library's inventory; the field kinds list the keys of the schemas whose
    name it types (``message_types``, ``system_subtypes``, ``control_subtypes``; the result's
    keys are ``result_fields``). Without it the field kinds list every schema's keys.
    """
    shown = help_options(help_text)
    messages, systems, controls = message_schemas(bundle), system_schemas(bundle), control_schemas(bundle)
    responses, hooks = control_response_schemas(bundle), hook_output_schemas(bundle)

    def names(kind: str, schemas: Mapping[str, Set[str]]) -> Iterable[str]:
        return schemas if typed is None else set(schemas) & set(typed.get(kind, ()))

    return {
        "hook_events": hook_events(bundle),
        "system_subtypes": system_subtypes(bundle),
        "message_types": message_types(bundle),
        "result_fields": result_fields(bundle),
        "message_fields": field_rows(messages, set(names("message_types", messages)) - {"result", "system"}),
        "system_fields": field_rows(systems, names("system_subtypes", systems)),
        "control_subtypes": control_subtypes(bundle),
        "control_fields": field_rows(controls, set(names("control_subtypes", controls)) | {"hook_matcher"}),
        "control_response_fields": field_rows(responses, names("control_subtypes", responses)),
        "hook_output_fields": field_rows(hooks, names("hook_events", hooks)),
        "options": shown,
        "hidden_options": hidden_options(bundle) - shown,
    }


# --------------------------------------------------------------------------- the library side


def _source_files(*parts: str) -> Iterator[Path]:
    yield from sorted((ROOT / "claude_sync").joinpath(*parts).rglob("*.py"))


def library_inventory() -> Dict[str, Set[str]]:
    """What claude_sync types, per kind (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    try:
        from claude_sync._callbacks.hook_types import KNOWN_HOOK_EVENTS
        from claude_sync._wire import parse
        from claude_sync._wire.messages import MESSAGE_CLASSES, ResultMessage
        from claude_sync._wire.system_messages import SYSTEM_CLASSES, SystemInitMessage
    finally:
        sys.path.remove(str(ROOT))

    sources = {path: path.read_text(encoding="utf-8") for path in _source_files()}
    control: Set[str] = set()
    send = r'(?:send_control_request|_newer_request|session\.request|_control)\(\s*"([a-z_]+)"'
    literals: Set[str] = set()
    for text in sources.values():
        control.update(re.findall(send, text))
        control.update(re.findall(r'subtype: Literal\["([a-z_]+)"\]', text))
        control.update(re.findall(r'"([a-z_]+)": Handler\(', text))
        control.update(re.findall(r'handlers\["([a-z_]+)"\]', text))
        literals.update(re.findall(r'"([A-Za-z_][\w]*)"', text))
    options: Set[str] = set()
    for path in _source_files("_options"):
        text = sources[path]
        options.update(kebab(name) for name in re.findall(r'"(--[a-z][\w-]*)', text))
        options.update(kebab("--" + name) for name in re.findall(r'flag_pair\("([\w-]+)"', text))
    typed_keys: Set[str] = set()
    hook_outputs: Dict[str, Set[str]] = {}
    for text in sources.values():
        for keys, event in typed_dicts(text):
            typed_keys.update(keys)
            if event is not None:
                hook_outputs.setdefault(event, set()).update(keys)
    result_names = wire_keys(ResultMessage, parse) - {"parsed_output"} | {"type", "subtype"}
    hand_parsed = {kind: wire_keys(cls, parse) for kind, cls in MESSAGE_CLASSES.items()}
    systems = {subtype: wire_keys(cls, parse) for subtype, cls in SYSTEM_CLASSES.items()}
    systems["init"] = wire_keys(SystemInitMessage, parse)
    return {
        "hook_events": set(KNOWN_HOOK_EVENTS),
        "system_subtypes": set(SYSTEM_CLASSES) | {"init"},
        "message_types": set(MESSAGE_CLASSES),
        "result_fields": result_names,
        "message_fields": {f"{kind}.{key}" for kind, keys in hand_parsed.items() for key in keys},
        "system_fields": {f"{subtype}.{key}" for subtype, keys in systems.items() for key in keys},
        "control_subtypes": control,
        "control_fields": {f"{subtype}.{key}" for subtype in control | {"hook_matcher"} for key in literals},
        "control_response_fields": {f"{subtype}.{key}" for subtype in control for key in literals | typed_keys},
        "hook_output_fields": {f"{event}.{key}" for event, keys in hook_outputs.items() for key in keys},
        "options": options,
        "hidden_options": options,
    }


def typed_dicts(source: str) -> List[Tuple[Set[str], Optional[str]]]:
    """``(keys, event)`` of each ``TypedDict`` class in ``source``: its annotated keys, and the
    hook event its ``hookEventName: Literal["…"]`` names (None when it has none)."""
    import ast

    found: List[Tuple[Set[str], Optional[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or not any(_named(base, "TypedDict") for base in node.bases):
            continue
        keys: Set[str] = set()
        event: Optional[str] = None
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                keys.add(item.target.id)
                if item.target.id == "hookEventName":
                    literal = re.search(r"Literal\[\s*[\"'](\w+)[\"']", ast.get_source_segment(source, item.annotation) or "")
                    event = literal.group(1) if literal else None
        found.append((keys, event))
    return found


def _named(node: object, name: str) -> bool:
    import ast

    return (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name)


def wire_keys(cls: type, parse: ModuleType) -> Set[str]:
    """The wire keys a message class types: its fields (a field's ``metadata["wire"]`` or its
    name), its properties named after a wire key (``written_at``), and the top-level keys its
    hand-written parser in ``_wire/parse.py`` reads (``obj["message"]``)."""
    import dataclasses
    import inspect

    keys = {f.metadata.get("wire", f.name) for f in dataclasses.fields(cls)}
    keys.update(name for name in dir(cls) if isinstance(inspect.getattr_static(cls, name, None), property))
    parser = getattr(parse, "_PARSER_BY_MESSAGE_CLASS", {}).get(cls)
    if parser is not None:
        keys.update(re.findall(r'obj\["(\w+)"\]', inspect.getsource(parser)))
    return keys - {"raw", "data", "type", "subtype"}


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


def read_cli(
    path: str, timeout: float = 60.0, typed: Optional[Mapping[str, Set[str]]] = None
) -> Tuple[str, Dict[str, Set[str]]]:
    """``(version, inventory)`` of the CLI at ``path`` (``typed``: see ``cli_inventory``).
    Raises ``CLIUnreadable``."""
    import mmap

    real = Path(os.path.realpath(path))
    try:
        version = _run(path, "--version", timeout).split()[0]
        help_text = _run(path, "--help", timeout)
        with open(real, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as bundle:
            inventory = cli_inventory(bundle, help_text, typed)  # type: ignore[arg-type]  # mmap reads as bytes
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
    library = library_inventory()
    try:
        version, cli = read_cli(args.cli, typed=library)
        other = read_cli(args.against, typed=library) if args.against else None
        allow = load_allow()
    except (CLIUnreadable, ValueError) as exc:
        print(f"cli_drift: {exc}", file=sys.stderr)
        return 2
    report = untyped(cli, library, allow)
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
