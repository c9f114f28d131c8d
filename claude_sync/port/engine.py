"""``port_source(text)``: one module's source in, the ported source and the flags out.

The passes run over the original text and only decide edits; the edits are applied once at
the end, so every comment and every untouched character stays as it was:

1. ``official``: the official SDK's imports -> claude_sync's; ``strings``: module-path strings
   that name it rewritten, every other string that names it flagged;
2. ``keywords``: ``async``/``await`` dropped, async protocol methods renamed, coroutine calls
   that were not awaited marked;
3. ``references``: asyncio / anyio / trio (and the async spellings of typing, contextlib,
   unittest, pytest) rewritten or flagged;
   ``timeouts`` turns a time limit around one receive loop into its ``timeout=``;
   ``awaits`` flags the ``await``s it cannot prove still mean the same once dropped, and the
   ``async with`` / ``async for`` whose port would fail at run time (blockers);
4. ``cleanup``: imports no longer used dropped, imports the rewrites need added;
5. ``markers``: a ``# claude_sync.port:`` comment above each flagged line.

The result is compiled under the running Python; if it does not compile and no blocker
explains why, that is a bug in a rule and ``PortBug`` is raised (nothing is written). Flags
and rewrites are reported at their place in the ported text.

Pure: no I/O.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Set, Tuple

from .awaits import flag_blocking_contexts, flag_unproven_awaits
from .cleanup import clean_imports
from .keywords import coroutine_functions, drop_keywords, mark_unawaited_calls, rename_methods
from .markers import place_markers
from .official import port_official
from .plan import BLOCKS, NameOracle, Note, Plan, RunCoroutines
from .references import port_references
from .source import OffsetMap, SourceText, apply_edits
from .strings import port_strings
from .timeouts import port_timeouts

__all__ = ["Finding", "PortBug", "PortResult", "RunCoroutines", "UnparsableSource", "port_source", "run_coroutines"]


class UnparsableSource(ValueError):
    """The input is not Python this interpreter can parse (nothing was changed).

    Attributes:
        filename: The name the text was given (``port_source(filename=…)``; a path from the
            command line).
        line: The line the parser stopped at; None when it did not say.
    """

    def __init__(self, filename: str, error: BaseException) -> None:
        line = getattr(error, "lineno", None)
        where = f"{filename}:{line}" if line else filename
        super().__init__(f"{where}: cannot parse: {getattr(error, 'msg', None) or error}")
        self.filename = filename
        self.line = line


class PortBug(RuntimeError):
    """The rewrite produced text that does not parse, or edits that overlap: a bug in the
    tool (please report it with the input); nothing was changed."""


@dataclass(frozen=True)
class Finding:
    """A place in the ported text: a flag (hand work left) or a rewrite that was made.

    Attributes:
        line: The line in the ported text, from 1.
        column: The column in that line, in characters, from 1.
        message: For a flag: what needs a human and its sync equivalent; for a rewrite: what was
            rewritten.
        original_line: The same place's line in the original text, from 1.
        original_column: Its column there, in characters, from 1.
    """

    line: int
    column: int
    message: str
    original_line: int = 0
    original_column: int = 0


@dataclass(frozen=True)
class PortResult:
    """What ``port_source`` made of one module.

    Attributes:
        original: The text that was given.
        text: The ported text (equal to ``original`` when nothing needed porting).
        flags: The places left for a human, in the ported text's order.
        rewrites: The rewrites made, in the ported text's order.
        blockers: The flags (also in ``flags``) of places whose mechanical port would not
            compile or run (their message starts with "blocks the port: "); while there is
            one, ``text`` must not replace the original (the command line never writes it).
    """

    original: str
    text: str
    flags: List[Finding] = field(default_factory=list)
    rewrites: List[Finding] = field(default_factory=list)
    blockers: List[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the ported text differs from the original."""
        return self.text != self.original


def port_source(
    text: str,
    *,
    filename: str = "<source>",
    exists: Optional[NameOracle] = None,
    run: Optional[RunCoroutines] = None,
) -> PortResult:
    """Port one module's source text.

    ``exists(module, name)``, when given, tells whether a claude_sync module has a name
    (imports of names it lacks are flagged). ``run``: the coroutines and modules of the other
    files ported with this one (``run_coroutines``); an ``await`` of one of those coroutines, or
    of a coroutine method of the run on an object imported from one of those modules, is not
    flagged. Raises ``UnparsableSource`` when ``text`` does
    not parse (or tokenize, or is nested too deeply), ``PortBug`` when the rewrite would not
    compile and no blocker says why.
    """
    source = SourceText(text)
    try:
        tree = ast.parse(text, filename=filename)
        source.tokens  # noqa: B018 - tokenizing can fail where parsing did not
    except (SyntaxError, ValueError) as error:
        raise UnparsableSource(filename, error) from error
    except Exception as error:  # tokenize.TokenError and friends
        raise UnparsableSource(filename, error) from error
    try:
        plan = Plan(source, tree, exists, run)
        port_official(plan)
        port_strings(plan)
        port_timeouts(plan)
        drop_keywords(plan)
        rename_methods(plan)
        mark_unawaited_calls(plan)
        flag_blocking_contexts(plan)
        flag_unproven_awaits(plan)
        port_references(plan)
        clean_imports(plan)
        place_markers(plan)
    except RecursionError as error:
        raise UnparsableSource(filename, ValueError("nested too deeply for the porting tool")) from error
    try:
        new_text, offsets = apply_edits(text, plan.edits)
    except ValueError as error:
        raise PortBug(f"{filename}: {error}") from error
    new_source = SourceText(new_text)
    flags = _findings(plan.flags, offsets, new_source, source)
    blockers = [f for f in flags if f.message.startswith(BLOCKS)]
    try:
        compile(new_text, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        if not blockers:
            _compile_original(text, filename)
            raise PortBug(f"{filename}: the ported text does not compile ({error.msg}, line {error.lineno})") from error
    except (ValueError, RecursionError, MemoryError) as error:
        raise UnparsableSource(filename, ValueError(f"the ported text cannot be compiled here: {error}")) from error
    return PortResult(
        original=text,
        text=new_text,
        flags=flags,
        rewrites=_findings(plan.rewrites, offsets, new_source, source),
        blockers=blockers,
    )


def _compile_original(text: str, filename: str) -> None:
    """Raise ``UnparsableSource`` when the input itself does not compile (``ast`` parses some
    text the compiler refuses, ``nonlocal x`` without an ``x``): not the port's fault."""
    try:
        compile(text, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        raise UnparsableSource(filename, error) from error


def _findings(notes: List[Note], offsets: OffsetMap, new_source: SourceText, old_source: SourceText) -> List[Finding]:
    found = []
    for note in notes:
        line, column = new_source.position(offsets(note.offset))
        found.append(Finding(line, column, note.message, *old_source.position(note.offset)))
    return sorted(set(found), key=lambda f: (f.line, f.column, f.message))


def run_coroutines(modules: Iterable[Tuple[str, str]]) -> RunCoroutines:
    """The coroutines a run over ``modules`` (``(module name, source text)``; the name's last
    part is what other files import it as) makes synchronous. A text that does not parse is
    skipped (its own port reports it)."""
    functions: Set[str] = set()
    methods: Set[str] = set()
    names: Set[str] = set()
    for module, text in modules:
        names.add(module)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        found, found_methods = coroutine_functions(tree)
        functions.update(f"{module}.{name}" for name in found)
        methods.update(found_methods)
    return RunCoroutines(frozenset(functions), frozenset(methods), frozenset(names))
